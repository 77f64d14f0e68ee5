/** `parked list`: how many messages wait in a redrive queue, and a look at some of them. */
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { QUEUES, type QueueKey } from '../../shared/config/resources';
import type { QueueTarget } from '../targets';
import { describeMessage, type ParkedMessage } from './messages';
import { makeVisible, type ReadOptions, receive, sqsCommands } from './sqs';

/** Seconds a peeked message stays hidden if making it visible again fails. */
export const PEEK_VISIBILITY_SECONDS = 30;
export const DEFAULT_LIST_LIMIT = 10;

export interface ParkedQueueReport {
  queue: QueueKey;
  redriveUrl: string;
  /** Messages waiting in the redrive queue (ApproximateNumberOfMessages). */
  parked: number;
  /** Messages hidden right now by someone else's peek or redrive in progress. */
  hidden: number;
  /** Up to the limit, oldest first as far as SQS tells. */
  messages: ParkedMessage[];
  /**
   * A FIFO queue's redrive queue: a key's later messages can't be received (shown) while an
   * earlier one is, so a peek shows the first of each key (more of one key on AWS, at times).
   */
  fifo?: true;
}

export interface ListOptions extends ReadOptions {
  /** Messages to show (default 10). */
  limit?: number;
}

async function countParked(sqs: SQSClient, url: string): Promise<{ parked: number; hidden: number }> {
  const { GetQueueAttributesCommand } = sqsCommands();
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    parked: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
    hidden: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
  };
}

/**
 * How many messages are parked in `queue`'s redrive queue, and a summary of up to `limit` of
 * them. Nothing is consumed: the messages are received with a short visibility timeout and made
 * visible again straight after. Each peek adds one to a message's receive count (the redrive
 * queue has no redrive policy, so that is harmless).
 */
export async function listParked(
  sqs: SQSClient,
  queue: QueueTarget,
  options: ListOptions = {},
): Promise<ParkedQueueReport> {
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  const { parked, hidden } = await countParked(sqs, queue.redriveUrl);
  // A receive that waits (1 s by default, so it reaches every SQS host) is for a queue the count
  // says holds messages. With none counted, one that does not wait still shows messages the
  // approximate count has not caught up with, without holding `parked list` a second per queue.
  const read: ReadOptions = parked > 0 ? options : { ...options, waitTimeSeconds: 0 };
  const peeked: Message[] = [];
  const seen = new Set<string>();
  try {
    // Peeked messages stay hidden until the end, so each receive returns new ones.
    while (peeked.length < limit) {
      const batch = await receive(
        sqs,
        queue.redriveUrl,
        limit - peeked.length,
        PEEK_VISIBILITY_SECONDS,
        read,
      );
      const fresh = batch.filter((message) => !seen.has(message.MessageId ?? ''));
      for (const message of batch) {
        // A message seen twice (the peek outlasted its timeout) is released like the others.
        peeked.push(message);
        seen.add(message.MessageId ?? '');
      }
      if (fresh.length === 0 || (parked > 0 && seen.size >= parked)) break;
    }
  } finally {
    await makeVisible(sqs, queue.redriveUrl, peeked);
  }
  const unique = new Map<string, ParkedMessage>();
  for (const message of peeked) {
    const described = describeMessage(message);
    if (!unique.has(described.messageId)) unique.set(described.messageId, described);
  }
  return {
    queue: queue.key,
    redriveUrl: queue.redriveUrl,
    parked,
    hidden,
    messages: [...unique.values()].slice(0, limit),
    ...(QUEUES[queue.key].fifo === true ? { fifo: true as const } : {}),
  };
}

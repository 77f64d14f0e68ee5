/** `parked redrive`: messages moved from a redrive queue back to the queue they came from. */
import type { Message, MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import { QUEUES, type QueueKey } from '../../shared/config/resources';
import { explainAwsError } from '../errors';
import type { QueueTarget } from '../targets';
import { makeVisible, type ReadOptions, receive, sqsCommands } from './sqs';

/** Seconds a message being moved stays hidden from other readers of the redrive queue. */
export const REDRIVE_VISIBILITY_SECONDS = 60;

export interface RedriveOptions extends ReadOptions {
  /** Messages to move at most (default: all). */
  limit?: number;
}

export interface RedriveResult {
  queue: QueueKey;
  /** Messages now in the source queue. */
  moved: number;
  /** Of those, how many could not be deleted from the redrive queue (they will be moved again). */
  notDeleted: number;
  /** Messages that stay parked, with SQS's reason. */
  failed: Array<{ messageId: string; reason: string }>;
}

/**
 * Moves up to `limit` parked messages (default: all) from `queue`'s redrive queue back to the
 * queue itself: receive, send the exact bodies (and message attributes, and group) with no
 * delay, then delete from the redrive queue only what was sent. A message that could not be sent
 * stays parked and is made visible again; one sent but not deleted is in both queues (moved again
 * next time: a duplicate delivery at most, never a loss). Each message is handled at most once
 * per call.
 *
 * From a FIFO queue's redrive queue (which hands out a key's messages in order, the next once the
 * one before is deleted), each message goes back in its group, with its message id as its
 * de-duplication id: a move repeated within SQS's five minutes is taken once. A key's messages
 * go back in order: never two of one group in one request, and none after one of its group that
 * could not be moved (those stay parked behind it).
 */
export async function redriveParked(
  sqs: SQSClient,
  queue: QueueTarget,
  options: RedriveOptions = {},
): Promise<RedriveResult> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const result: RedriveResult = { queue: queue.key, moved: 0, notDeleted: 0, failed: [] };
  /** Received and not moved: made visible again before returning. */
  const unmoved = new Map<string, Message>();
  const handled = new Set<string>();
  const fifo = QUEUES[queue.key].fifo === true;
  /** FIFO: the groups of messages that stay parked (their later messages stay behind them), by the id of the one that did. */
  const stopped = new Map<string, string>();
  // Loaded here with the SQS client it goes with (see `sqsCommands`).
  const { batchForSend } =
    require('../../shared/queue/sqs-job-queue') as typeof import('../../shared/queue/sqs-job-queue');
  try {
    while (result.moved + result.failed.length < limit) {
      const batch = await receive(
        sqs,
        queue.redriveUrl,
        limit - result.moved - result.failed.length,
        REDRIVE_VISIBILITY_SECONDS,
        options,
      );
      const fresh = batch.filter((message) => !handled.has(message.MessageId ?? ''));
      for (const message of batch) unmoved.set(message.ReceiptHandle ?? '', message);
      if (fresh.length === 0) break;
      for (const message of fresh) handled.add(message.MessageId ?? '');
      for (const round of fifo ? inGroupRounds(fresh) : [fresh]) {
        const sendable = fifo ? round.filter((message) => !stuckBehind(message, stopped, result)) : round;
        for (const group of batchForSend(sendable, (message) =>
          Buffer.byteLength(payloadOf(message), 'utf8'),
        )) {
          const sent = await sendGroup(sqs, queue.url, group, result, fifo);
          if (fifo) stopGroupsOf(group, sent, stopped);
          if (sent.length === 0) continue;
          for (const message of sent) unmoved.delete(message.ReceiptHandle ?? '');
          result.moved += sent.length;
          result.notDeleted += await deleteMoved(sqs, queue.redriveUrl, sent);
        }
      }
      // A batch of only repeats means the rest of the queue is hidden or gone.
      if (fresh.length < batch.length) break;
    }
  } catch (error) {
    throw explainAwsError(error, `moving parked messages of the ${queue.key} queue`);
  } finally {
    await makeVisible(sqs, queue.redriveUrl, [...unmoved.values()]);
  }
  return result;
}

/** A FIFO message's group (the one it was sent with; SQS keeps it in the redrive queue). */
const groupOf = (message: Message): string | undefined => message.Attributes?.MessageGroupId;

/**
 * Messages in rounds that hold at most one of each group, a group's messages in the order they
 * were received (a FIFO queue's order): round n holds each group's n-th message.
 */
function inGroupRounds(messages: readonly Message[]): Message[][] {
  const rounds: Message[][] = [];
  const counts = new Map<string | undefined, number>();
  for (const message of messages) {
    const index = counts.get(groupOf(message)) ?? 0;
    counts.set(groupOf(message), index + 1);
    const round = rounds[index] ?? [];
    round.push(message);
    rounds[index] = round;
  }
  return rounds;
}

/** Whether a FIFO message stays parked behind an earlier one of its group (counted as failed). */
function stuckBehind(message: Message, stopped: ReadonlyMap<string, string>, result: RedriveResult): boolean {
  const group = groupOf(message);
  const blocker = group === undefined ? undefined : stopped.get(group);
  if (blocker === undefined) return false;
  result.failed.push({
    messageId: message.MessageId ?? '?',
    reason: `stays behind ${blocker}, an earlier message of its key that stays parked`,
  });
  return true;
}

/** Marks the groups of a FIFO request's messages that were not sent: their later messages stay parked. */
function stopGroupsOf(
  group: readonly Message[],
  sent: readonly Message[],
  stopped: Map<string, string>,
): void {
  for (const message of group) {
    const key = groupOf(message);
    if (key !== undefined && !sent.includes(message) && !stopped.has(key)) {
      stopped.set(key, message.MessageId ?? '?');
    }
  }
}

/** A received message's attributes as SendMessageBatch takes them (the value fields only). */
const attributesToSend = (message: Message): Record<string, MessageAttributeValue> | undefined => {
  const received = message.MessageAttributes;
  if (received === undefined || Object.keys(received).length === 0) return undefined;
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(received)) {
    attributes[name] = {
      DataType: value.DataType,
      ...(value.StringValue === undefined ? {} : { StringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { BinaryValue: value.BinaryValue }),
    };
  }
  return attributes;
};

/** What a message weighs in a SendMessageBatch request: its body and its attributes. */
const payloadOf = (message: Message) =>
  (message.Body ?? '') + JSON.stringify(message.MessageAttributes ?? {});

/**
 * Sends one group to the source queue; returns the messages SQS accepted. A message keeps its
 * `MessageGroupId` (a fair queue's tenant, a FIFO queue's key); to a FIFO queue it goes with its
 * message id as its de-duplication id and no delay of its own (SQS refuses one there).
 */
async function sendGroup(
  sqs: SQSClient,
  url: string,
  group: readonly Message[],
  result: RedriveResult,
  fifo: boolean,
): Promise<Message[]> {
  const { SendMessageBatchCommand } = sqsCommands();
  const answer = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: group.map((message, index) => {
        const attributes = attributesToSend(message);
        const groupId = groupOf(message);
        return {
          Id: String(index),
          MessageBody: message.Body ?? '',
          ...(fifo ? { MessageDeduplicationId: message.MessageId } : { DelaySeconds: 0 }),
          ...(groupId === undefined ? {} : { MessageGroupId: groupId }),
          ...(attributes === undefined ? {} : { MessageAttributes: attributes }),
        };
      }),
    }),
  );
  const accepted = new Set((answer.Successful ?? []).map((entry) => entry.Id));
  for (const failure of answer.Failed ?? []) {
    const message = group[Number(failure.Id)];
    result.failed.push({
      messageId: message?.MessageId ?? '?',
      reason: [failure.Code ?? 'Failed', failure.Message]
        .filter((part) => part !== undefined && part !== '')
        .join(': '),
    });
  }
  return group.filter((_, index) => accepted.has(String(index)));
}

/** Deletes moved messages from the redrive queue; returns how many could not be deleted. */
async function deleteMoved(sqs: SQSClient, redriveUrl: string, moved: readonly Message[]): Promise<number> {
  const { DeleteMessageBatchCommand } = sqsCommands();
  const deletion = await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: redriveUrl,
      Entries: moved.map((message, index) => ({
        Id: String(index),
        ReceiptHandle: message.ReceiptHandle,
      })),
    }),
  );
  return deletion.Failed?.length ?? 0;
}

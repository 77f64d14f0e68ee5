/** `parked redrive`: messages moved from a redrive queue back to the queue they came from. */
import {
  DeleteMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { QueueKey } from '../../shared/config/resources';
import { batchForSend } from '../../shared/queue/sqs-job-queue';
import { explainAwsError } from '../errors';
import type { QueueTarget } from '../targets';
import { makeVisible, type ReadOptions, receive } from './sqs';

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
 * queue itself: receive, send the exact bodies (and message attributes) with no delay, then
 * delete from the redrive queue only what was sent. A message that could not be sent stays
 * parked and is made visible again; one sent but not deleted is in both queues (moved again
 * next time: a duplicate delivery at most, never a loss). Each message is handled at most once
 * per call.
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
      for (const group of batchForSend(fresh, payloadOf)) {
        const sent = await sendGroup(sqs, queue.url, group, result);
        if (sent.length === 0) continue;
        for (const message of sent) unmoved.delete(message.ReceiptHandle ?? '');
        result.moved += sent.length;
        result.notDeleted += await deleteMoved(sqs, queue.redriveUrl, sent);
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

/** Sends one group to the source queue; returns the messages SQS accepted. */
async function sendGroup(
  sqs: SQSClient,
  url: string,
  group: readonly Message[],
  result: RedriveResult,
): Promise<Message[]> {
  const answer = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: group.map((message, index) => {
        const attributes = attributesToSend(message);
        return {
          Id: String(index),
          MessageBody: message.Body ?? '',
          DelaySeconds: 0,
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

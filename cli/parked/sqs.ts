/** The SQS calls peeking and moving share: receiving parked messages and making them visible again. */
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { SQS_LIMITS } from '../../shared/config/resources';

/**
 * The AWS SDK's SQS commands, loaded when the first one is sent: the program that defines
 * `parked` starts without the SDK (see `cli/program.ts`).
 */
export const sqsCommands = () => require('@aws-sdk/client-sqs') as typeof import('@aws-sdk/client-sqs');

export interface ReadOptions {
  /** Seconds a receive waits for messages (long polling); 1 finds messages on every SQS host. */
  waitTimeSeconds?: number;
}

/**
 * Receives up to `max` messages (at most ten a call) from `url`, hidden for
 * `visibilityTimeoutSeconds`, with the times and receive count a listing shows, a FIFO message's
 * group, de-duplication id and sequence number (a move keeps its group), and every message
 * attribute (a move sends them on).
 */
export async function receive(
  sqs: SQSClient,
  url: string,
  max: number,
  visibilityTimeoutSeconds: number,
  options: ReadOptions,
): Promise<Message[]> {
  const { ReceiveMessageCommand } = sqsCommands();
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: Math.min(SQS_LIMITS.maxBatchEntries, max),
      VisibilityTimeout: visibilityTimeoutSeconds,
      WaitTimeSeconds: options.waitTimeSeconds ?? 1,
      MessageSystemAttributeNames: [
        'SentTimestamp',
        'ApproximateFirstReceiveTimestamp',
        'ApproximateReceiveCount',
        'MessageGroupId',
        'MessageDeduplicationId',
        'SequenceNumber',
      ],
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, (index + 1) * size),
  );

/** Makes messages visible again at once; returns how many stay hidden until their timeout. */
export async function makeVisible(
  sqs: SQSClient,
  url: string,
  messages: readonly Message[],
): Promise<number> {
  const { ChangeMessageVisibilityBatchCommand } = sqsCommands();
  let stillHidden = 0;
  for (const chunk of chunks(messages, SQS_LIMITS.maxBatchEntries)) {
    try {
      const result = await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: url,
          Entries: chunk.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          })),
        }),
      );
      stillHidden += result.Failed?.length ?? 0;
    } catch {
      stillHidden += chunk.length;
    }
  }
  return stillHidden;
}

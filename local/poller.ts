/**
 * Invokes an SQS-consuming handler the way a Lambda event source mapping does: a few receive
 * loops long-poll batches and start an invocation for each, with at most `maxConcurrency`
 * invocations in flight per queue; each invocation deletes what succeeded and leaves reported
 * failures (or the whole batch, if the handler throws) to reappear after the visibility timeout.
 * A loop waits for its invocation (so the next receive gathers what arrived meanwhile), but only
 * for `handOffAfterMs`: a slow invocation (a webhook hanging for 30 s) is left running in its
 * slot and the loop receives again, so the queue's other messages keep moving.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { FunctionDefinition, FunctionKey } from '../shared/config/resources';
import type { LoggerLike } from '../shared/observability/logging';
import { Semaphore, withTimeout } from '../shared/platform/concurrency';
import { runAsFunction } from './current-function';
import { type InvocationStats, lambdaContext } from './lambda-context';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface PollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  /** Receive loops running side by side (Lambda's pollers). */
  receivers: number;
  /** Invocations in flight at most (the event source mapping's maximum concurrency). */
  maxConcurrency: number;
  /** How long a loop waits for its invocation before receiving again (default {@link HAND_OFF_AFTER_MS}). */
  handOffAfterMs?: number;
  fn: FunctionDefinition;
  fnKey: FunctionKey;
  handler: SqsHandler;
  logger: LoggerLike;
  /** Seconds a receive waits for messages (long polling). */
  waitTimeSeconds?: number;
  onInvocation?: (stats: InvocationStats) => void;
}

export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

/** How long a receive loop waits for its invocation before it hands it off and receives again. */
export const HAND_OFF_AFTER_MS = 100;

export class QueuePoller {
  private running = false;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private readonly slots: Semaphore;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: PollerOptions) {
    this.slots = new Semaphore(options.maxConcurrency);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // On AWS the event source mapping receives and deletes with the consuming function's role:
    // the loops run as that function, so their SQS calls are checked against its policy.
    this.loops = Array.from({ length: this.options.receivers }, () =>
      runAsFunction(this.options.fnKey, () => this.loop()),
    );
  }

  /** Stops receiving and waits for invocations in progress to finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    // A loop waiting for a slot gets one when an invocation ends, sees the stop and gives it back.
    await Promise.all(this.loops);
    // The loops add no invocation once they have ended; wait for those still running.
    await Promise.all(this.inFlight);
  }

  /** Messages handled and deleted so far (a running count). */
  completed = 0;

  /** Invocations in flight now. */
  get invocations(): number {
    return this.inFlight.size;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      // A slot is taken before a receive, so messages are received only when an invocation can start.
      const release = await this.slots.acquire();
      if (!this.running) {
        release();
        return;
      }
      const messages = await this.receive();
      if (messages.length === 0) {
        release();
        continue;
      }
      // A batch received while stopping is still invoked; `stop` waits for it.
      const invocation = this.invoke(messages)
        .catch((error: unknown) =>
          this.options.logger.error('invocation failed', { error: (error as Error).message }),
        )
        .finally(() => {
          this.inFlight.delete(invocation);
          release();
        });
      this.inFlight.add(invocation);
      // Like one of Lambda's pollers: wait for the invocation, so the next receive gathers what
      // arrived meanwhile (fuller batches, fewer invocations), but hand a slow one off after
      // `handOffAfterMs` and receive again, so a hanging webhook never holds up the queue.
      await withTimeout(invocation, this.options.handOffAfterMs ?? HAND_OFF_AFTER_MS);
    }
  }

  /** One receive; nothing when it fails or the poller is stopping. */
  private async receive(): Promise<Message[]> {
    const { sqs, queueUrl, logger } = this.options;
    try {
      const received = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: this.options.batchSize,
          WaitTimeSeconds: this.options.waitTimeSeconds ?? 2,
          MessageSystemAttributeNames: ['All'],
        }),
        { abortSignal: this.abort.signal },
      );
      return received.Messages ?? [];
    } catch (error) {
      if (!this.running) return [];
      logger.error('receive failed; polling again shortly', { queueUrl, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return [];
    }
  }

  private async invoke(messages: Message[]): Promise<void> {
    const { sqs, queueUrl, logger, fn } = this.options;
    const event: SQSEvent = {
      Records: messages.map((message) => toSqsRecord(message, this.options.queueArn)),
    };
    const started = Date.now();
    let failed: Set<string>;
    try {
      const response = await this.options.handler(event, lambdaContext(fn));
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      // Like Lambda: a thrown error fails the whole batch; the messages return after the visibility timeout.
      logger.error('handler failed; the whole batch will be received again', {
        queueUrl,
        error: (error as Error).message,
      });
      failed = new Set(messages.map((message) => message.MessageId ?? ''));
    }
    const durationMs = Date.now() - started;
    if (durationMs > fn.timeoutSeconds * 1000) {
      logger.warn('invocation ran past the function timeout; Lambda would have stopped it', { durationMs });
    }
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
    this.completed += done.length;
    for (let start = 0; start < done.length; start += 10) {
      try {
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done.slice(start, start + 10).map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle ?? '',
            })),
          }),
        );
      } catch (error) {
        logger.error('delete failed; those messages will be processed again', {
          error: (error as Error).message,
        });
      }
    }
    this.options.onInvocation?.({
      function: this.options.fnKey,
      source: queueUrl,
      records: messages.length,
      failed: failed.size,
      durationMs,
    });
  }
}

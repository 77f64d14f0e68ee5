/**
 * Invokes an SQS-consuming handler the way a Lambda event source mapping does: long-poll a batch,
 * invoke, delete what succeeded, and leave reported failures (or the whole batch, if the handler
 * throws) to reappear after the visibility timeout.
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
import { type InvocationStats, lambdaContext } from './lambda-context';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface PollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  /** Receive loops running side by side (concurrent invocations). */
  concurrency: number;
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

export class QueuePoller {
  private running = false;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(private readonly options: PollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = Array.from({ length: this.options.concurrency }, () => this.loop());
  }

  /** Stops receiving and waits for invocations in progress to finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    const { sqs, queueUrl, logger } = this.options;
    while (this.running) {
      let messages: Message[];
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
        messages = received.Messages ?? [];
      } catch (error) {
        if (!this.running) return;
        logger.error('receive failed; polling again shortly', { queueUrl, error: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      if (messages.length > 0) await this.invoke(messages);
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

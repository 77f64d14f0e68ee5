/**
 * The Lambda side of a queue consumer: parse each record as a job, hand it to the step, and report
 * the records that failed (`batchItemFailures`) so only those come back after the visibility
 * timeout. A record whose body is not a job fails too: after `maxReceiveCount` receives SQS parks
 * it in the redrive queue, where `gridwire parked` shows it.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueuedJob } from '../domain/delivery';
import { parseJob } from '../queue/job-codec';
import { flushMetrics } from './middleware';
import type { Observability } from './wiring';

export interface JobConsumerOptions {
  observability: Observability;
  /** Handles one job; rejecting fails (and so returns) its record. */
  handle: (job: QueuedJob, context: Context) => Promise<Record<string, unknown>>;
}

/** Events in a job, for logs. */
const jobSize = (job: QueuedJob): number =>
  job.kind === 'ended'
    ? job.ended.length
    : job.kind === 'validate' || job.kind === 'stored-fanout'
      ? 0
      : job.items.length;

/** The subscription a job is for, for logs; a fan-out's are named by the engine. */
const subscriptionOf = (job: QueuedJob): string | undefined =>
  job.kind === 'fanout' || job.kind === 'stored-fanout' ? undefined : job.subscription;

export function createJobConsumer({ observability, handle }: JobConsumerOptions) {
  const processor = new BatchProcessor(EventType.SQS);
  const consume = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const processRecord = async (record: SQSRecord) => {
      try {
        const job = parseJob(record.body);
        const report = await handle(job, context);
        observability.logger.debug('job processed', {
          topic: job.topic,
          subscription: subscriptionOf(job),
          events: jobSize(job),
          ...report,
        });
      } catch (error) {
        observability.logger.error('job failed; it will be received again', {
          messageId: record.messageId,
          receiveCount: record.attributes?.ApproximateReceiveCount,
          error: (error as Error).message,
        });
        throw error;
      }
    };
    // Failures are mapped record by record; an all-failed batch is not an invocation error.
    return processPartialResponse(event, processRecord, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  };
  return middy<SQSEvent, SQSBatchResponse>(consume)
    .use(injectLambdaContext(observability.logger))
    .use(flushMetrics(observability.buffer, observability.publishMetrics));
}

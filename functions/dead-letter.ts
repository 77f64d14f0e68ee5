/**
 * SQS consumer for the ended-delivery queue: writes dead letters to S3. Lambda gathers messages
 * for up to 300 s first, and the whole batch is written grouped by subscription, so a burst of
 * failures becomes a few blobs. Records that could be neither written nor re-queued are reported
 * as failures and come back from the queue.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readConfig } from '../shared/config/runtime';
import type { DeadLetterStep } from '../shared/delivery/dead-letter';
import type { EndedJob } from '../shared/domain/delivery';
import { flushMetrics, lazyHandler } from '../shared/lambda/middleware';
import { buildDeadLetterStep, createObservability, type Observability } from '../shared/lambda/wiring';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';
import { parseJob } from '../shared/queue/job-codec';

/** Time kept free at the end of an invocation: one S3 PUT (10 s at most) and the re-queueing. */
export const WRITE_MARGIN_MS = 15_000;

export interface DeadLetterHandlerDeps {
  step: DeadLetterStep;
  observability: Observability;
  clock?: Clock;
}

export function createDeadLetterHandler({ step, observability, clock = systemClock }: DeadLetterHandlerDeps) {
  const write = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const failures: string[] = [];
    const jobs: EndedJob[] = [];
    const messageIds: string[] = [];
    for (const record of event.Records) {
      try {
        const job = parseJob(record.body);
        if (job.kind !== 'ended') {
          throw new Error(
            'the ended-delivery queue received a delivery job; it belongs on the delivery queue',
          );
        }
        jobs.push(job);
        messageIds.push(record.messageId);
      } catch (error) {
        observability.logger.error('not an ended-delivery job; it will be received again, then parked', {
          messageId: record.messageId,
          error: (error as Error).message,
        });
        failures.push(record.messageId);
      }
    }
    // A slow bucket must not run the invocation out: what is not started by then is re-queued.
    const report = await step.write(jobs, {
      deadline: clock.now() + context.getRemainingTimeInMillis() - WRITE_MARGIN_MS,
    });
    for (const index of report.failed) failures.push(messageIds[index] as string);
    observability.logger.debug('dead letters handled', {
      written: report.written,
      blobs: report.blobs,
      waiting: report.waiting,
      dropped: report.dropped,
    });
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
  return middy<SQSEvent, SQSBatchResponse, Error, Context>(write)
    .use(injectLambdaContext(observability.logger))
    .use(flushMetrics(observability.buffer, observability.publishMetrics));
}

export const handler = lazyHandler(() => {
  const observability = createObservability('dead-letter');
  const runtime = { config: readConfig(), clients: createAwsClients() };
  return createDeadLetterHandler({ step: buildDeadLetterStep(runtime, observability), observability });
});

/**
 * SQS consumer for the delivery, retry and backlog queues: runs each job by its step in the job
 * registry (`shared/delivery/job-registry.ts`) on the delivery worker, in the consumer shell
 * (`shared/lambda/job-consumer.ts`), which reports the records that could not be finished, so
 * only those come back (after the visibility timeout). Invoked on a schedule with a
 * `backlog-sweep` event instead, it sends the ticks of backlogs whose wake is near.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readConfig } from '../shared/config/runtime';
import { kindsTakenBy } from '../shared/delivery/job-registry';
import { DELIVERY_TIMEOUT_MS } from '../shared/delivery/webhook-sender';
import type { DeliveryWorker } from '../shared/delivery/worker';
import { type BacklogSweepJob, backlogSweepJobSchema } from '../shared/domain/delivery';
import { createJobConsumer, registryStep } from '../shared/lambda/job-consumer';
import { flushMetrics, lazyHandler, logContext } from '../shared/lambda/middleware';
import { buildDeliveryWorker, createObservability, type Observability } from '../shared/lambda/wiring';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';

/** Time kept free at the end of an invocation for queueing follow-up jobs. */
export const FINISHING_MARGIN_MS = 5000;

export interface DeliveryHandlerDeps {
  worker: Pick<
    DeliveryWorker,
    | 'deliver'
    | 'deliverTogether'
    | 'validate'
    | 'fanOut'
    | 'handOffAgain'
    | 'storeJobs'
    | 'storeOne'
    | 'tick'
    | 'sweepBacklogs'
    | 'upgrade'
  >;
  observability: Observability;
  clock?: Clock;
}

/** No attempt starts unless it can take the full 30 s and still leave time for the follow-ups. */
export const attemptDeadline = (now: number, context: Pick<Context, 'getRemainingTimeInMillis'>): number =>
  now + context.getRemainingTimeInMillis() - DELIVERY_TIMEOUT_MS - FINISHING_MARGIN_MS;

/**
 * Requests that timed out are listened to for a late answer until the invocation has only the
 * finishing margin left (`shared/delivery/rules/late-answer.ts`), so it records one in time.
 */
export const listenUntil = (now: number, context: Pick<Context, 'getRemainingTimeInMillis'>): number =>
  now + context.getRemainingTimeInMillis() - FINISHING_MARGIN_MS;

/** The job kinds the delivery function takes, from the job registry. */
export const DELIVERY_JOB_KINDS = kindsTakenBy('delivery');

/** What the delivery function is invoked with: a batch of SQS messages, or the scheduled sweep. */
export type DeliveryFunctionEvent = SQSEvent | BacklogSweepJob;

/** The delivery function's handler (a sweep answers nothing). */
export type DeliveryFunctionHandler = (
  event: DeliveryFunctionEvent,
  context: Context,
) => Promise<SQSBatchResponse | undefined>;

const isSweep = (event: DeliveryFunctionEvent): event is BacklogSweepJob =>
  backlogSweepJobSchema.safeParse(event).success;

/**
 * Each job by its step, all of the batch at once (they share the worker's request slots; `store`
 * jobs are stored together); a job that could not be finished is retried later.
 */
export function createDeliveryHandler({
  worker,
  observability,
  clock = systemClock,
}: DeliveryHandlerDeps): DeliveryFunctionHandler {
  const consumer = createJobConsumer({
    observability,
    // Jobs queued before a deploy that changed the format are worked too (`job-upgrade.ts`).
    upgrade: (job) => worker.upgrade(job),
    step: registryStep('delivery', (context) => {
      const now = clock.now();
      // Requests of this invocation that timed out may still be answered: it listens until each
      // late window closes (at the latest the finishing margin before its timeout). Only its
      // own: where invocations share a worker (the local stack), none waits on another's.
      const listens: Promise<void>[] = [];
      return {
        worker,
        options: {
          attemptDeadline: attemptDeadline(now, context),
          listenUntil: listenUntil(now, context),
          listens,
        },
        settled: () => Promise.all(listens),
      };
    }),
  });
  const sweeper = middy<BacklogSweepJob, undefined, Error, Context>(async () => {
    const report = await worker.sweepBacklogs();
    observability.logger.info('backlog sweep', { ...report });
    return undefined;
  })
    .use(logContext(observability.logger))
    .use(flushMetrics(observability.flusher));
  return (event, context) => (isSweep(event) ? sweeper(event, context) : consumer(event, context));
}

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('delivery', runtime.config);
  return createDeliveryHandler({ worker: buildDeliveryWorker(runtime, observability), observability });
});

/**
 * SQS consumer for the delivery, retry and backlog queues: runs each job through the delivery
 * engine in the consumer shell (`shared/lambda/job-consumer.ts`), which reports the records that
 * could not be finished, so only those come back (after the visibility timeout). The `store` jobs
 * of a batch are stored together (their events share backlog segments). Invoked on a schedule
 * with a `backlog-sweep` event instead, it sends the ticks of backlogs whose wake is near.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readConfig } from '../shared/config/runtime';
import type { SourcedStoreJob } from '../shared/delivery/backlog-store-step';
import type { DeliveryEngine } from '../shared/delivery/engine';
import { DELIVERY_TIMEOUT_MS } from '../shared/delivery/webhook-sender';
import { type BacklogSweepJob, backlogSweepJobSchema } from '../shared/domain/delivery';
import { createJobConsumer, eachJob } from '../shared/lambda/job-consumer';
import { flushMetrics, lazyHandler, logContext } from '../shared/lambda/middleware';
import { buildDeliveryEngine, createObservability, type Observability } from '../shared/lambda/wiring';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';
import type { JobKind, JobOfKind } from '../shared/queue/job-kinds';
import { done, type RecordOutcome, retryLater } from '../shared/queue/record-outcome';

/** Time kept free at the end of an invocation for queueing follow-up jobs. */
export const FINISHING_MARGIN_MS = 5000;

export interface DeliveryHandlerDeps {
  engine: Pick<DeliveryEngine, 'processJob' | 'storeJobs' | 'sweepBacklogs' | 'upgrade'>;
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

/**
 * The job kinds the delivery function takes: every kind the delivery, retry and backlog queues
 * carry (`JOB_KINDS` in `shared/queue/job-kinds.ts`; a test holds the two together).
 */
export const DELIVERY_JOB_KINDS = [
  'deliver',
  'validate',
  'fanout',
  'stored-fanout',
  'ended',
  'store',
  'backlog-tick',
] as const satisfies readonly JobKind[];

type DeliveryFunctionJob = JobOfKind<(typeof DELIVERY_JOB_KINDS)[number]>;

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
 * Each job goes through the engine on its own, all of the batch at once (they share the engine's
 * request slots), except `store` jobs, stored together; a job the engine could not finish (it
 * rejected) is retried later.
 */
export function createDeliveryHandler({
  engine,
  observability,
  clock = systemClock,
}: DeliveryHandlerDeps): DeliveryFunctionHandler {
  /** One job through the engine; the late listens it opens join its invocation's `listens`. */
  const oneByOne = (listens: Promise<void>[]) =>
    eachJob(DELIVERY_JOB_KINDS, async (job, context) => {
      const now = clock.now();
      const report = await engine.processJob(job, {
        attemptDeadline: attemptDeadline(now, context),
        listenUntil: listenUntil(now, context),
        listens,
      });
      return done({ ...report });
    });
  const consumer = createJobConsumer({
    observability,
    // Jobs queued before a deploy that changed the format are worked too (`job-upgrade.ts`).
    upgrade: (job) => engine.upgrade(job),
    step: {
      kinds: DELIVERY_JOB_KINDS,
      run: async (jobs, context, messageIds) => {
        const stores: SourcedStoreJob[] = [];
        const others: DeliveryFunctionJob[] = [];
        jobs.forEach((job: DeliveryFunctionJob, index) => {
          if (job.kind === 'store') stores.push({ sourceId: messageIds[index] ?? String(index), job });
          else others.push(job);
        });
        const listens: Promise<void>[] = [];
        const [stored, worked] = await Promise.all([
          storeTogether(engine, stores),
          oneByOne(listens).run(others, context, []),
        ]);
        // Requests of this invocation that timed out may still be answered: it listens until each
        // late window closes (at the latest the finishing margin before its timeout). Only its
        // own: where invocations share a worker (the local stack), none waits on another's.
        await Promise.all(listens);
        // Back in record order: each kind's outcomes in the order its jobs came.
        const next = { store: 0, other: 0 };
        return jobs.map((job) =>
          job.kind === 'store'
            ? (stored[next.store++] ?? retryLater('the store step gave no outcome'))
            : (worked[next.other++] ?? retryLater('the engine gave no outcome')),
        );
      },
    },
  });
  const sweeper = middy<BacklogSweepJob, undefined, Error, Context>(async () => {
    const report = await engine.sweepBacklogs();
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
  return createDeliveryHandler({ engine: buildDeliveryEngine(runtime, observability), observability });
});

/** The outcome of each `store` job, stored together; all are retried later when the step fails. */
async function storeTogether(
  engine: Pick<DeliveryEngine, 'storeJobs'>,
  stores: readonly SourcedStoreJob[],
): Promise<RecordOutcome[]> {
  if (stores.length === 0) return [];
  try {
    const result = await engine.storeJobs(stores);
    return stores.map(({ sourceId, job }) => {
      const reason = result.unfinished.get(sourceId);
      return reason === undefined ? done({ stored: job.items.length }) : retryLater(reason);
    });
  } catch (error) {
    const again = retryLater((error as Error).message);
    return stores.map(() => again);
  }
}

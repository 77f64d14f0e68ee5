/**
 * SQS consumer for the delivery and retry queues: runs each job through the delivery engine in
 * the consumer shell (`shared/lambda/job-consumer.ts`), which reports the records that could not
 * be finished, so only those come back (after the visibility timeout).
 */
import type { Context } from 'aws-lambda';
import { readConfig } from '../shared/config/runtime';
import type { DeliveryEngine } from '../shared/delivery/engine';
import { DELIVERY_TIMEOUT_MS } from '../shared/delivery/webhook-sender';
import { createJobConsumer, eachJob } from '../shared/lambda/job-consumer';
import { lazyHandler } from '../shared/lambda/middleware';
import { buildDeliveryEngine, createObservability, type Observability } from '../shared/lambda/wiring';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';
import type { JobKind } from '../shared/queue/job-kinds';
import { done } from '../shared/queue/record-outcome';

/** Time kept free at the end of an invocation for queueing follow-up jobs. */
export const FINISHING_MARGIN_MS = 5000;

export interface DeliveryHandlerDeps {
  engine: Pick<DeliveryEngine, 'processJob'>;
  observability: Observability;
  clock?: Clock;
}

/** No attempt starts unless it can take the full 30 s and still leave time for the follow-ups. */
export const attemptDeadline = (now: number, context: Pick<Context, 'getRemainingTimeInMillis'>): number =>
  now + context.getRemainingTimeInMillis() - DELIVERY_TIMEOUT_MS - FINISHING_MARGIN_MS;

/**
 * The job kinds the delivery function takes: every kind the delivery and retry queues carry
 * (`JOB_KINDS` in `shared/queue/job-kinds.ts`; a test holds the two together).
 */
export const DELIVERY_JOB_KINDS = [
  'deliver',
  'validate',
  'fanout',
  'stored-fanout',
  'ended',
] as const satisfies readonly JobKind[];

/**
 * Each job goes through the engine on its own, all of the batch at once (they share the engine's
 * request slots); a job the engine could not finish (it rejected) is retried later.
 */
export function createDeliveryHandler({ engine, observability, clock = systemClock }: DeliveryHandlerDeps) {
  return createJobConsumer({
    observability,
    step: eachJob(DELIVERY_JOB_KINDS, async (job, context) => {
      const report = await engine.processJob(job, { attemptDeadline: attemptDeadline(clock.now(), context) });
      return done({ ...report });
    }),
  });
}

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('delivery', runtime.config);
  return createDeliveryHandler({ engine: buildDeliveryEngine(runtime, observability), observability });
});

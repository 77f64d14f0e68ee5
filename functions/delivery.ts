/**
 * SQS consumer for the delivery and retry queues: runs each job through the delivery engine and
 * reports the records that failed, so only those come back (after the visibility timeout).
 */
import type { Context } from 'aws-lambda';
import { readConfig } from '../shared/config/runtime';
import type { DeliveryEngine } from '../shared/delivery/engine';
import { DELIVERY_TIMEOUT_MS } from '../shared/delivery/webhook-sender';
import { createJobConsumer } from '../shared/lambda/job-consumer';
import { lazyHandler } from '../shared/lambda/middleware';
import { buildDeliveryEngine, createObservability, type Observability } from '../shared/lambda/wiring';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';

/** Time kept free at the end of an invocation for queueing follow-up jobs. */
export const FINISHING_MARGIN_MS = 5000;

export interface DeliveryHandlerDeps {
  engine: DeliveryEngine;
  observability: Observability;
  clock?: Clock;
}

/** No attempt starts unless it can take the full 30 s and still leave time for the follow-ups. */
export const attemptDeadline = (now: number, context: Pick<Context, 'getRemainingTimeInMillis'>): number =>
  now + context.getRemainingTimeInMillis() - DELIVERY_TIMEOUT_MS - FINISHING_MARGIN_MS;

export function createDeliveryHandler({ engine, observability, clock = systemClock }: DeliveryHandlerDeps) {
  return createJobConsumer({
    observability,
    handle: async (job, context) => {
      const report = await engine.processJob(job, { attemptDeadline: attemptDeadline(clock.now(), context) });
      return { ...report };
    },
  });
}

export const handler = lazyHandler(() => {
  const observability = createObservability('delivery');
  const runtime = { config: readConfig(), clients: createAwsClients() };
  return createDeliveryHandler({ engine: buildDeliveryEngine(runtime, observability), observability });
});

/**
 * SQS consumer for the ended-delivery queue: hands deliveries that ended without success to the
 * dead-letter step. Lambda gathers messages for up to 300 s first, so dead letters are handled in
 * few, larger groups.
 */
import type { DeadLetterStep } from '../shared/delivery/dead-letter';
import { createJobConsumer } from '../shared/lambda/job-consumer';
import { lazyHandler } from '../shared/lambda/middleware';
import { buildDeadLetterStep, createObservability, type Observability } from '../shared/lambda/wiring';

export interface DeadLetterHandlerDeps {
  step: DeadLetterStep;
  observability: Observability;
}

export function createDeadLetterHandler({ step, observability }: DeadLetterHandlerDeps) {
  return createJobConsumer({
    observability,
    handle: async (job) => {
      if (job.kind !== 'ended') {
        throw new Error('the ended-delivery queue received a delivery job; it belongs on the delivery queue');
      }
      return { ...(await step.handle(job)) };
    },
  });
}

export const handler = lazyHandler(() => {
  const observability = createObservability('dead-letter');
  return createDeadLetterHandler({ step: buildDeadLetterStep(observability), observability });
});

/**
 * SQS consumer for the ended-delivery queue: writes dead letters to S3. Lambda gathers messages
 * for up to 300 s first, and the whole batch is written grouped by subscription, so a burst of
 * failures becomes a few blobs. The dead-letter step says what became of each job; the consumer
 * shell (`shared/lambda/job-consumer.ts`) turns that into the batch response, so records that
 * could be neither written nor re-queued come back from the queue.
 */
import { readConfig } from '../shared/config/runtime';
import type { DeadLetterStep } from '../shared/delivery/dead-letter';
import { upgradeEndedJob } from '../shared/delivery/job-upgrade';
import { createJobConsumer } from '../shared/lambda/job-consumer';
import { lazyHandler } from '../shared/lambda/middleware';
import { buildDeadLetterStep } from '../shared/lambda/wiring/dead-letter';
import { createObservability, type Observability } from '../shared/lambda/wiring/observability';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';
import type { JobKind } from '../shared/queue/job-kinds';

/** Time kept free at the end of an invocation: one S3 PUT (10 s at most) and the re-queueing. */
export const WRITE_MARGIN_MS = 15_000;

/**
 * The job kinds the dead-letter function takes: every kind the ended-delivery queue carries
 * (`JOB_KINDS` in `shared/queue/job-kinds.ts`; a test holds the two together).
 */
export const DEAD_LETTER_JOB_KINDS = ['ended'] as const satisfies readonly JobKind[];

export interface DeadLetterHandlerDeps {
  step: Pick<DeadLetterStep, 'write'>;
  observability: Observability;
  clock?: Clock;
}

export function createDeadLetterHandler({ step, observability, clock = systemClock }: DeadLetterHandlerDeps) {
  return createJobConsumer({
    observability,
    // Ended jobs of an earlier format carry all the step needs; they are upgraded without a read.
    upgrade: async (job) => upgradeEndedJob(job),
    step: {
      kinds: DEAD_LETTER_JOB_KINDS,
      run: async (jobs, context) => {
        // A slow bucket must not run the invocation out: what is not started by then is re-queued.
        const report = await step.write(jobs, {
          deadline: clock.now() + context.getRemainingTimeInMillis() - WRITE_MARGIN_MS,
        });
        observability.logger.debug('dead letters handled', {
          written: report.written,
          blobs: report.blobs,
          waiting: report.waiting,
          dropped: report.dropped,
        });
        return report.outcomes;
      },
    },
  });
}

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('dead-letter', runtime.config);
  return createDeadLetterHandler({ step: buildDeadLetterStep(runtime, observability), observability });
});

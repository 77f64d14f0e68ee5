/**
 * SQS consumer for the ended-delivery queue: writes dead letters to S3. Lambda gathers messages
 * for up to 300 s first, and the whole batch is written grouped by subscription, so a burst of
 * failures becomes a few blobs. The dead-letter step says what became of each job; the consumer
 * shell (`shared/lambda/job-consumer.ts`) turns that into the batch response, so records that
 * could be neither written nor re-queued come back from the queue.
 */
import { readConfig } from '../shared/config/runtime';
import type { DeadLetterStep } from '../shared/delivery/dead-letter';
import { kindsTakenBy } from '../shared/delivery/job-registry';
import { upgradeEndedJob } from '../shared/delivery/job-upgrade';
import { createJobConsumer, registryStep } from '../shared/lambda/job-consumer';
import { lazyHandler } from '../shared/lambda/middleware';
import { buildDeadLetterStep } from '../shared/lambda/wiring/dead-letter';
import { createObservability, type Observability } from '../shared/lambda/wiring/observability';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';
import type { LegacyJobOfKind } from '../shared/queue/job-codec';

/** Time kept free at the end of an invocation: one S3 PUT (10 s at most) and the re-queueing. */
export const WRITE_MARGIN_MS = 15_000;

/** The job kinds the dead-letter function takes, from the job registry (`ended`). */
export const DEAD_LETTER_JOB_KINDS = kindsTakenBy('deadLetter');

export interface DeadLetterHandlerDeps {
  step: Pick<DeadLetterStep, 'write'>;
  observability: Observability;
  clock?: Clock;
}

export function createDeadLetterHandler({ step, observability, clock = systemClock }: DeadLetterHandlerDeps) {
  return createJobConsumer({
    observability,
    // Ended jobs of an earlier format carry all the step needs; they are upgraded without a read.
    upgrade: async (job) => upgradeEndedJob(job as LegacyJobOfKind<'ended'>),
    // A slow bucket must not run the invocation out: what is not started by then is re-queued.
    step: registryStep('deadLetter', (context) => ({
      worker: {
        write: async (jobs, options) => {
          const report = await step.write(jobs, options);
          observability.logger.debug('dead letters handled', {
            written: report.written,
            blobs: report.blobs,
            waiting: report.waiting,
            dropped: report.dropped,
          });
          return report;
        },
      },
      options: { attemptDeadline: clock.now() + context.getRemainingTimeInMillis() - WRITE_MARGIN_MS },
    })),
  });
}

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('dead-letter', runtime.config);
  return createDeadLetterHandler({ step: buildDeadLetterStep(runtime, observability), observability });
});

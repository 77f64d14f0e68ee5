/**
 * SQS consumer for the ended-delivery queue, which writes dead letters to S3, and for the archive
 * queue, which writes archive segments. Lambda gathers messages for up to 300 s (60 s for the
 * archive) first, and the whole batch is written grouped by subscription (by topic and hour), so
 * a burst of failures becomes a few blobs, and a minute of publishes a few segments. The dead-letter step says what became of each job; the consumer
 * shell (`shared/lambda/job-consumer.ts`) turns that into the batch response, so records that
 * could be neither written nor re-queued come back from the queue.
 */

import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  type ArchiveSweepEvent,
  type ArchiveSweepReport,
  archiveSweepEventSchema,
} from '../shared/archive/sweep';
import type { ArchiveWriter } from '../shared/archive/writer';
import { readConfig } from '../shared/config/runtime';
import type { DeadLetterStep } from '../shared/delivery/dead-letter';
import { kindsTakenBy } from '../shared/delivery/job-registry';
import { upgradeEndedJob } from '../shared/delivery/job-upgrade';
import { createJobConsumer, createSweepHandler, registryStep } from '../shared/lambda/job-consumer';
import { lazyHandler } from '../shared/lambda/middleware';
import {
  buildArchiveSweep,
  buildArchiveWriter,
  buildDeadLetterStep,
} from '../shared/lambda/wiring/dead-letter';
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
  /** The archive's writer (`archive` jobs). */
  archive: Pick<ArchiveWriter, 'writeArchive'>;
  /** The daily archive sweep (`archive/sweep.ts`), run when a schedule invokes the function for it. */
  sweepArchives?: () => Promise<ArchiveSweepReport>;
  observability: Observability;
  clock?: Clock;
}

/** What the dead-letter function is invoked with: a batch of SQS messages, or the archive sweep. */
export type DeadLetterFunctionEvent = SQSEvent | ArchiveSweepEvent;

/** The dead-letter function's handler (a sweep answers nothing). */
export type DeadLetterFunctionHandler = (
  event: DeadLetterFunctionEvent,
  context: Context,
) => Promise<SQSBatchResponse | undefined>;

const isArchiveSweep = (event: DeadLetterFunctionEvent): event is ArchiveSweepEvent =>
  archiveSweepEventSchema.safeParse(event).success;

export function createDeadLetterHandler({
  step,
  archive,
  sweepArchives,
  observability,
  clock = systemClock,
}: DeadLetterHandlerDeps): DeadLetterFunctionHandler {
  const consumer = createJobConsumer({
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
        writeArchive: async (jobs) => {
          const report = await archive.writeArchive(jobs);
          observability.logger.debug('archive copies written', {
            events: report.events,
            segments: report.segments,
          });
          return report;
        },
      },
      options: { attemptDeadline: clock.now() + context.getRemainingTimeInMillis() - WRITE_MARGIN_MS },
    })),
  });
  const sweeper = createSweepHandler<ArchiveSweepEvent>(observability, 'archive sweep', async () => {
    if (sweepArchives === undefined) throw new Error('this dead-letter function has no archive sweep');
    return sweepArchives();
  });
  return (event, context) =>
    isArchiveSweep(event) ? sweeper(event, context) : consumer(event as SQSEvent, context);
}

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('dead-letter', runtime.config);
  return createDeadLetterHandler({
    step: buildDeadLetterStep(runtime, observability),
    archive: buildArchiveWriter(runtime, observability),
    sweepArchives: buildArchiveSweep(runtime),
    observability,
  });
});

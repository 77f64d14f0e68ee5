/**
 * The consumer shell every queue-consuming function is built from: read each record as a job
 * (`queue/job-codec.ts`), refuse the kinds the function does not take (`delivery/job-registry.ts`),
 * bring a job of an earlier format to the current one with the function's upgrade
 * (`delivery/job-upgrade.ts`: messages queued before a deploy are worked, not refused), hand
 * the rest to the function's step, and answer SQS with `batchResponse` (`queue/record-outcome.ts`),
 * the one place that decides which messages come back. The step says what became of each record:
 * `done`, `retryLater(reason)` (a dependency failed; the message comes back after its visibility
 * timeout) or `poison(reason)` (it can never be handled; it comes back until SQS parks it in the
 * redrive queue, where an alarm sees it and `gridwire parked` shows it).
 *
 * Powertools' `BatchProcessor` is not used: it decides per record from whether the handler threw
 * and builds the failure list itself, which is the decision this shell keeps in one tested
 * function, and it hands the handler one record at a time, where the dead-letter step must see
 * the whole batch to group its writes per subscription. What it did besides (run the records at
 * once, catch what one throws, never fail the invocation for a failed batch) is a few lines here.
 * Powertools Logger (`injectLambdaContext`, through `logContext`) and Metrics (`flushMetrics`) stay.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { ArchiveForwarding, CarriedCopy } from '../archive/forward';
import {
  type ConsumerFunction,
  kindsTakenBy,
  queuesCarrying,
  type ReceivedMessage,
  runJobs,
  type StepContext,
} from '../delivery/job-registry';
import type { QueuedJob } from '../domain/delivery';
import type { LoggerLike } from '../observability/logging';
import { isLegacyJob, type LegacyJobOfKind, type ReadJob, readJobMessage } from '../queue/job-codec';
import { type JobKind, type JobOfKind, jobLogFields, jobTopicOf, kindOf } from '../queue/job-kinds';
import { batchResponse, done, poison, type RecordOutcome, retryLater } from '../queue/record-outcome';
import { ARCHIVE_ATTRIBUTE } from '../queue/sqs-job-queue';
import { flushMetrics, logContext } from './middleware';
import type { Observability } from './wiring';

/** What a function does with the jobs of a batch. */
export interface ConsumerStep<K extends JobKind> {
  /** The kinds it takes; a record of another kind is poison (it was sent to the wrong queue). */
  readonly kinds: readonly K[];
  /**
   * Works the batch's jobs of its kinds (in record order) and says what became of each: one
   * outcome per job, in the same order. If it rejects, every one of them is retried later.
   * `messageIds` are the ids of the messages the jobs came in, in the same order.
   */
  run(
    jobs: readonly JobOfKind<K>[],
    context: Context,
    messageIds: readonly string[],
    received: readonly ReceivedMessage[],
  ): Promise<readonly RecordOutcome[]>;
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A step that works each job on its own, all at once (a delivery function's jobs share its
 * webhook request slots). `handle` resolving is the job's outcome; rejecting means it could not
 * be finished now, and it is retried later.
 */
export function eachJob<K extends JobKind>(
  kinds: readonly K[],
  handle: (job: JobOfKind<K>, context: Context) => Promise<RecordOutcome>,
): ConsumerStep<K> {
  return {
    kinds,
    run: (jobs, context) =>
      Promise.all(
        jobs.map(async (job) => {
          try {
            return await handle(job, context);
          } catch (error) {
            return retryLater(reasonOf(error));
          }
        }),
      ),
  };
}

/** What one invocation gives a function's steps, and what it waits for before it ends. */
export interface InvocationContext<F extends ConsumerFunction>
  extends Omit<StepContext<F>, 'messageIds' | 'received'> {
  /** Waited for once the steps are done (a delivery worker's late listens). */
  readonly settled?: () => Promise<unknown>;
}

/**
 * A function's step from the job registry (`delivery/job-registry.ts`): the kinds it takes, each
 * worked by its step, with what `invocation` gives the steps of one invocation.
 */
export function registryStep<F extends ConsumerFunction>(
  fn: F,
  invocation: (context: Context) => InvocationContext<F>,
): ConsumerStep<JobKind> {
  return {
    kinds: kindsTakenBy(fn),
    run: async (jobs, context, messageIds, received) => {
      const { settled, ...given } = invocation(context);
      const outcomes = await runJobs(fn, jobs, { ...given, messageIds, received });
      await settled?.();
      return outcomes;
    },
  };
}

/**
 * How a function brings a job of an earlier format (one of the kinds it takes) to the current
 * one: the job to work, or `undefined` when nothing of it is left (its subscription is gone, and
 * the upgrade dropped its events as a deleted subscription's). Rejecting means it could not be
 * done now (the subscription could not be read): the message comes back.
 */
export type JobUpgrade<K extends JobKind> = (job: LegacyJobOfKind<K>) => Promise<QueuedJob | undefined>;

/**
 * A record as read: its job when it is one the step takes, else the outcome that ends it here;
 * `upgradedFrom`, the earlier format version it came in, once it was upgraded.
 */
type ReadRecord<K extends JobKind> =
  | { readonly job: JobOfKind<K>; readonly upgradedFrom?: number; readonly ended?: undefined }
  | { readonly job?: undefined; readonly upgradedFrom?: number; readonly ended: RecordOutcome };

/** Poison when a job's kind is not one the step takes, saying where it belongs. */
function wrongKind(job: ReadJob, kinds: readonly JobKind[]): RecordOutcome | undefined {
  const kind = kindOf(job);
  if (kinds.includes(kind)) return undefined;
  return poison(
    `a '${kind}' job belongs on the ${queuesCarrying(kind).join(' or ')} queue; this consumer takes ${kinds.join(', ')}`,
  );
}

async function readRecord<K extends JobKind>(
  record: SQSRecord,
  kinds: readonly K[],
  upgrade: JobUpgrade<K>,
): Promise<ReadRecord<K>> {
  let read: ReadJob;
  try {
    read = readJobMessage(record.body);
  } catch (error) {
    return { ended: poison(reasonOf(error)) };
  }
  const refused = wrongKind(read, kinds);
  if (refused !== undefined) return { ended: refused };
  if (!isLegacyJob(read)) return { job: read as JobOfKind<K> };
  const upgradedFrom = read.v;
  let job: QueuedJob | undefined;
  try {
    job = await upgrade(read as LegacyJobOfKind<K>);
  } catch (error) {
    return {
      ended: retryLater(`could not upgrade a job of format version ${upgradedFrom}: ${reasonOf(error)}`),
    };
  }
  if (job === undefined) return { upgradedFrom, ended: done({ upgradedFrom, leftToWork: 0 }) };
  const upgradedRefused = wrongKind(job, kinds);
  return upgradedRefused === undefined
    ? { job: job as JobOfKind<K>, upgradedFrom }
    : { upgradedFrom, ended: upgradedRefused };
}

/** A record as a step that keeps messages in their queue sees it (FIFO records carry their group). */
export const receivedOf = (record: SQSRecord): ReceivedMessage => {
  const { ApproximateReceiveCount: count, MessageGroupId: groupId } = record.attributes ?? {};
  return {
    messageId: record.messageId,
    receiptHandle: record.receiptHandle,
    receiveCount: Number(count ?? '1') || 1,
    ...(groupId === undefined ? {} : { groupId }),
  };
};

/** The step's outcomes; if it rejects, every job it was given is retried later. */
async function runStep<K extends JobKind>(
  step: ConsumerStep<K>,
  jobs: readonly JobOfKind<K>[],
  context: Context,
  messageIds: readonly string[],
  received: readonly ReceivedMessage[],
): Promise<readonly RecordOutcome[]> {
  try {
    return await step.run(jobs, context, messageIds, received);
  } catch (error) {
    const again = retryLater(reasonOf(error));
    return jobs.map(() => again);
  }
}

/**
 * What became of one record: its job (when it was one the step takes), its outcome, and the
 * earlier format version it came in, when it was upgraded.
 */
export interface ConsumedRecord {
  readonly job?: QueuedJob;
  readonly outcome: RecordOutcome;
  readonly upgradedFrom?: number;
}

/**
 * Each record's outcome, in record order: a record that is not a job the step takes is poison; a
 * job of an earlier format is upgraded first (`upgrade`), and done there when nothing of it is
 * left; the others get the step's outcome (retried later when the step gave none).
 */
export async function consumeRecords<K extends JobKind>(
  records: readonly SQSRecord[],
  step: ConsumerStep<K>,
  context: Context,
  upgrade: JobUpgrade<NoInfer<K>>,
  archive?: ArchiveForwarding,
): Promise<ConsumedRecord[]> {
  const read: ReadRecord<K>[] = await Promise.all(
    records.map((record) => readRecord(record, step.kinds, upgrade)),
  );
  if (archive !== undefined) await forwardCopies(records, read, archive);
  const jobs = read.flatMap((entry) => (entry.ended === undefined ? [entry.job] : []));
  const worked = records.filter((_, index) => read[index]?.ended === undefined);
  const messageIds = worked.map((record) => record.messageId);
  const outcomes =
    jobs.length === 0 ? [] : await runStep(step, jobs, context, messageIds, worked.map(receivedOf));
  let position = 0;
  return read.map((entry) => {
    const upgraded = entry.upgradedFrom === undefined ? {} : { upgradedFrom: entry.upgradedFrom };
    if (entry.ended !== undefined) return { outcome: entry.ended, ...upgraded };
    const outcome = outcomes[position] ?? retryLater('the step gave no outcome for this job');
    position += 1;
    return { job: entry.job, outcome, ...upgraded };
  });
}

/** The archive copy a record carries (base64, as Lambda hands binary attributes over). */
const carriedCopyOf = (record: SQSRecord): string | undefined => {
  const value = record.messageAttributes?.[ARCHIVE_ATTRIBUTE]?.binaryValue;
  return value === undefined || value === '' ? undefined : value;
};

/**
 * Forwards the archive copies the batch's jobs carried, in one send, before any job is worked:
 * when that fails, those records come back unworked (their events are neither delivered nor
 * archived yet), so a copy is never lost to a job that went on without it. A record that is not a
 * job is left to be parked, copy and all.
 */
async function forwardCopies<K extends JobKind>(
  records: readonly SQSRecord[],
  read: ReadRecord<K>[],
  archive: ArchiveForwarding,
): Promise<void> {
  const carrying: number[] = [];
  const copies: CarriedCopy[] = [];
  records.forEach((record, index) => {
    const copy = carriedCopyOf(record);
    const job = read[index]?.job;
    if (copy === undefined || job === undefined) return;
    carrying.push(index);
    copies.push({ topic: jobTopicOf(job), copy });
  });
  if (copies.length === 0) return;
  try {
    await archive.forward(copies);
  } catch (error) {
    const again = retryLater(`could not forward the archive copies: ${reasonOf(error)}`);
    for (const index of carrying) read[index] = { ended: again };
  }
}

/**
 * One log line per record: what was done (debug), or why it comes back (error); a job of an
 * earlier format says so once more, at info, so operators see an upgrade's leftovers worked off.
 */
function logOutcome(logger: LoggerLike, record: SQSRecord, consumed: ConsumedRecord): void {
  const { job, outcome, upgradedFrom } = consumed;
  const received = { messageId: record.messageId, receiveCount: record.attributes?.ApproximateReceiveCount };
  const fields = job === undefined ? {} : jobLogFields(job);
  if (upgradedFrom !== undefined) {
    logger.info('job of an earlier format upgraded', { ...received, ...fields, upgradedFrom });
  }
  switch (outcome.kind) {
    case 'done':
      logger.debug('job processed', { ...fields, ...outcome.details });
      return;
    case 'retryLater':
      logger.error('job failed; it will be received again', { ...received, error: outcome.reason });
      return;
    case 'poison':
      logger.error('not a job this function takes; it will be received again, then parked', {
        ...received,
        error: outcome.reason,
      });
      return;
    case 'waiting':
      logger.debug('job waits in its queue', {
        ...received,
        ...fields,
        until: new Date(outcome.until).toISOString(),
        ...outcome.details,
      });
      return;
  }
}

export interface JobConsumerOptions<K extends JobKind> {
  observability: Observability;
  step: ConsumerStep<K>;
  /** How the function brings jobs of an earlier format (of its kinds) to the current one. */
  upgrade: JobUpgrade<NoInfer<K>>;
  /** Where the archive copies its messages carry go (the delivery function's consumer). */
  archive?: ArchiveForwarding;
}

/** The Lambda handler of a queue consumer: the shell around `step`. */
export function createJobConsumer<K extends JobKind>({
  observability,
  step,
  upgrade,
  archive,
}: JobConsumerOptions<K>) {
  const consume = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const consumed = await consumeRecords(event.Records, step, context, upgrade, archive);
    consumed.forEach((entry, index) => {
      logOutcome(observability.logger, event.Records[index] as SQSRecord, entry);
    });
    return batchResponse(
      event.Records,
      consumed.map(({ outcome }) => outcome),
    );
  };
  return middy<SQSEvent, SQSBatchResponse, Error, Context>(consume)
    .use(logContext(observability.logger))
    .use(flushMetrics(observability.flusher));
}

/**
 * The Lambda handler of the sweep a schedule invokes a queue consumer's function with instead of
 * records: runs `sweep`, logs its report as `name` and answers nothing, in the consumer's log
 * context and with its metrics flushed.
 */
export function createSweepHandler<E>(
  observability: Observability,
  name: string,
  sweep: () => Promise<object>,
) {
  return middy<E, undefined, Error, Context>(async () => {
    const report = await sweep();
    observability.logger.info(name, { ...report });
    return undefined;
  })
    .use(logContext(observability.logger))
    .use(flushMetrics(observability.flusher));
}

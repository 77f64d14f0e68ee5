/**
 * The consumer shell every queue-consuming function is built from: parse each record as a job
 * (`queue/job-codec.ts`), refuse the kinds the function does not take (`queue/job-kinds.ts`), hand
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
import type { QueuedJob } from '../domain/delivery';
import type { LoggerLike } from '../observability/logging';
import { parseJob } from '../queue/job-codec';
import { type JobKind, type JobOfKind, jobLogFields, kindOf, queuesCarrying } from '../queue/job-kinds';
import { batchResponse, poison, type RecordOutcome, retryLater } from '../queue/record-outcome';
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

/** A record as read: its job when it is one the step takes, else the outcome that refuses it. */
type ReadRecord<K extends JobKind> =
  | { readonly job: JobOfKind<K>; readonly refused?: undefined }
  | { readonly job?: undefined; readonly refused: RecordOutcome };

function readRecord<K extends JobKind>(record: SQSRecord, kinds: readonly K[]): ReadRecord<K> {
  let job: QueuedJob;
  try {
    job = parseJob(record.body);
  } catch (error) {
    return { refused: poison(reasonOf(error)) };
  }
  const kind = kindOf(job);
  if (!(kinds as readonly JobKind[]).includes(kind)) {
    return {
      refused: poison(
        `a '${kind}' job belongs on the ${queuesCarrying(kind).join(' or ')} queue; this consumer takes ${kinds.join(', ')}`,
      ),
    };
  }
  return { job: job as JobOfKind<K> };
}

/** The step's outcomes; if it rejects, every job it was given is retried later. */
async function runStep<K extends JobKind>(
  step: ConsumerStep<K>,
  jobs: readonly JobOfKind<K>[],
  context: Context,
  messageIds: readonly string[],
): Promise<readonly RecordOutcome[]> {
  try {
    return await step.run(jobs, context, messageIds);
  } catch (error) {
    const again = retryLater(reasonOf(error));
    return jobs.map(() => again);
  }
}

/** What became of one record: its job (when it was one the step takes) and its outcome. */
export interface ConsumedRecord {
  readonly job?: QueuedJob;
  readonly outcome: RecordOutcome;
}

/**
 * Each record's outcome, in record order: a record that is not a job the step takes is poison;
 * the others get the step's outcome (retried later when the step gave none).
 */
export async function consumeRecords<K extends JobKind>(
  records: readonly SQSRecord[],
  step: ConsumerStep<K>,
  context: Context,
): Promise<ConsumedRecord[]> {
  const read = records.map((record) => readRecord(record, step.kinds));
  const jobs = read.flatMap((entry) => (entry.refused === undefined ? [entry.job] : []));
  const messageIds = records.flatMap((record, index) =>
    read[index]?.refused === undefined ? [record.messageId] : [],
  );
  const outcomes = jobs.length === 0 ? [] : await runStep(step, jobs, context, messageIds);
  let position = 0;
  return read.map((entry) => {
    if (entry.refused !== undefined) return { outcome: entry.refused };
    const outcome = outcomes[position] ?? retryLater('the step gave no outcome for this job');
    position += 1;
    return { job: entry.job, outcome };
  });
}

/** One log line per record: what was done (debug), or why it comes back (error). */
function logOutcome(
  logger: LoggerLike,
  record: SQSRecord,
  job: QueuedJob | undefined,
  outcome: RecordOutcome,
): void {
  const received = { messageId: record.messageId, receiveCount: record.attributes?.ApproximateReceiveCount };
  switch (outcome.kind) {
    case 'done':
      logger.debug('job processed', { ...(job === undefined ? {} : jobLogFields(job)), ...outcome.details });
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
  }
}

export interface JobConsumerOptions<K extends JobKind> {
  observability: Observability;
  step: ConsumerStep<K>;
}

/** The Lambda handler of a queue consumer: the shell around `step`. */
export function createJobConsumer<K extends JobKind>({ observability, step }: JobConsumerOptions<K>) {
  const consume = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const consumed = await consumeRecords(event.Records, step, context);
    consumed.forEach(({ job, outcome }, index) => {
      logOutcome(observability.logger, event.Records[index] as SQSRecord, job, outcome);
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

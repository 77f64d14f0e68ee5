/**
 * The job registry: for every job kind, its schema (`JOB_SCHEMAS`, `domain/delivery.ts`), the
 * queues that carry it, and on each of those queues the step that runs it
 * (`(jobs, context) => outcomes`) and whether it is batched. Each consuming function's kinds and
 * its dispatch are derived from here (`runJobs`), so adding a kind touches its shape, this table
 * and its step.
 *
 * A step belongs to the function that consumes its queue (`QUEUES[queue].consumer.function`; a
 * test holds the two together): delivery steps run on a delivery worker (`worker.ts`), the
 * dead-letter step on the dead-letter writer. An unbatched step runs each job on its own, all at
 * once (they share the worker's request slots); a batched one gets all of the batch's jobs of
 * its kind together.
 */
import type { z } from 'zod';
import type { ArchiveWriter } from '../archive/writer';
import type { QueueKey } from '../config/resources';
import { JOB_SCHEMAS, type JobKind, type JobOfKind, type QueuedJob } from '../domain/delivery';
import { kindOf } from '../queue/job-kinds';
import { done, type RecordOutcome, retryLater, waiting } from '../queue/record-outcome';
import type { DeadLetterStep } from './dead-letter';
import type { JobReport } from './job-report';
import type { JobOptions } from './ports';
import type { DeliveryWorker } from './worker';

/** The functions that consume queues, and what their steps run on. */
export interface StepWorkers {
  delivery: Pick<
    DeliveryWorker,
    | 'deliver'
    | 'deliverTogether'
    | 'validate'
    | 'fanOut'
    | 'handOffAgain'
    | 'storeJobs'
    | 'storeOne'
    | 'tick'
    | 'deliverOrdered'
    | 'replayPage'
    | 'firstCopies'
  >;
  deadLetter: Pick<DeadLetterStep, 'write'> & Pick<ArchiveWriter, 'writeArchive'>;
}
export type ConsumerFunction = keyof StepWorkers;

/** What a step runs with: its function's worker, the invocation's limits, the messages' ids. */
export interface StepContext<F extends ConsumerFunction> {
  readonly worker: StepWorkers[F];
  /** For the dead-letter step, `attemptDeadline` is when no further write starts. */
  readonly options: JobOptions;
  /** The ids of the messages the jobs came in, in the jobs' order. */
  readonly messageIds: readonly string[];
  /** The messages themselves, as received, in the jobs' order (ordered delivery keeps them in their queue). */
  readonly received: readonly ReceivedMessage[];
}

/** A message as received: its id, the handle to change its visibility, its receives so far and its FIFO group. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  /** SQS's `ApproximateReceiveCount`, this receive included. */
  readonly receiveCount: number;
  /** A FIFO queue's `MessageGroupId`. */
  readonly groupId?: string;
}

export interface JobStep<K extends JobKind, F extends ConsumerFunction> {
  readonly consumer: F;
  /** What the step does, in a line (logs and docs). */
  readonly does: string;
  /** Whether the batch's jobs of the kind are worked together (else each on its own, all at once). */
  readonly batched: boolean;
  /** Works the jobs; one outcome per job, in order. Rejecting retries them all later. */
  run(jobs: readonly JobOfKind<K>[], context: StepContext<F>): Promise<readonly RecordOutcome[]>;
}

/** A delivery step, which can also work one job on its own and report it. */
export interface DeliveryStep<K extends JobKind> extends JobStep<K, 'delivery'> {
  one(job: JobOfKind<K>, worker: StepWorkers['delivery'], options: JobOptions): Promise<JobReport>;
}

type AnyStep<K extends JobKind> = DeliveryStep<K> | JobStep<K, 'deadLetter'>;

export interface RegistryEntry<K extends JobKind> {
  /** Its shape (`domain/delivery.ts`). */
  readonly schema: z.ZodType<JobOfKind<K>>;
  /** The queues that carry the kind, and the step each queue's consumer runs it by. */
  readonly steps: Readonly<Partial<Record<QueueKey, AnyStep<K>>>>;
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A delivery step that works each job on its own; a job it could not finish is retried later. */
function eachJob<K extends JobKind>(
  does: string,
  one: (job: JobOfKind<K>, worker: StepWorkers['delivery'], options: JobOptions) => Promise<JobReport>,
): DeliveryStep<K> {
  return {
    consumer: 'delivery',
    does,
    batched: false,
    one,
    run: (jobs, { worker, options }) =>
      Promise.all(
        jobs.map((job) =>
          one(job, worker, options).then(
            (report): RecordOutcome => done({ ...report }),
            (error: unknown) => retryLater(reasonOf(error)),
          ),
        ),
      ),
  };
}

/**
 * Delivery jobs and fan-outs, all of the batch's together: small fan-outs opened into their jobs,
 * the due jobs of each subscription merged so events of separate publishes share batch requests
 * (`deliver-together.ts`), each message answered for on its own.
 */
const DELIVER: DeliveryStep<'deliver' | 'fanout' | 'stored-fanout'> = {
  consumer: 'delivery',
  does: "the delivery engine (resolve → wait → gate → attempt → settle), the batch's due jobs of each subscription merged into one and small fan-outs opened into theirs (delivery/deliver-together.ts)",
  batched: true,
  one: (job, worker, options) =>
    job.kind === 'fanout' || job.kind === 'stored-fanout'
      ? worker.fanOut(job, options)
      : worker.deliver(job, options),
  run: async (jobs, { worker, options, messageIds }) => {
    // A replay's part queued twice is worked once: the copies after the first are done unworked.
    const first = await worker.firstCopies(jobs, messageIds);
    const worked = jobs.filter((_, index) => first[index]);
    const results = await worker.deliverTogether(worked, options);
    let position = 0;
    return jobs.map((_, index) => {
      if (!first[index]) return done({ replayPartSentTwice: true });
      const result = results[position++];
      if (result === undefined) return retryLater('the step gave no outcome for this job');
      return result.ok ? done({ ...result.report }) : retryLater(result.reason);
    });
  },
};

const REPLAY_PAGE = eachJob<'replay-page'>(
  "a replay's next page: an archive segment's events queued as the subscription's deliveries, the next page sent (archive/replay.ts)",
  (job, worker) => worker.replayPage(job),
);

const VALIDATE = eachJob<'validate'>(
  'the endpoint validation handshake (delivery/handshake.ts)',
  (job, worker) => worker.validate(job),
);

const HAND_OFF_AGAIN = eachJob<'ended'>(
  'handed to the dead-letter step again (ended deliveries parked on the retry queue when the ended-delivery queue refused them)',
  (job, worker) => worker.handOffAgain(job),
);

const TICK = eachJob<'backlog-tick'>(
  "the backlog's timer at work: expire, release ahead, probe, drain, re-arm (delivery/backlog/tick.ts)",
  (job, worker, options) => worker.tick(job, options),
);

/** `store` jobs are stored together: their events share backlog segments. */
const STORE: DeliveryStep<'store'> = {
  consumer: 'delivery',
  does: "kept in the subscription's backlog: the batch's events grouped per endpoint into segments, the backlog's timer armed (delivery/backlog/store-step.ts)",
  batched: true,
  one: (job, worker) => worker.storeOne(job),
  run: async (jobs, { worker, messageIds }) => {
    const stores = jobs.map((job, index) => ({ sourceId: messageIds[index] ?? String(index), job }));
    const result = await worker.storeJobs(stores);
    return stores.map(({ sourceId, job }) => {
      const reason = result.unfinished.get(sourceId);
      return reason === undefined ? done({ stored: job.items.length }) : retryLater(reason);
    });
  },
};

/**
 * Ordered events: each FIFO group's messages one after another, each message's events one request
 * at a time, in order; a message that has to wait is hidden in its queue until it is due, and
 * kept (`delivery/ordered.ts`).
 */
const DELIVER_ORDERED: DeliveryStep<'ordered'> = {
  consumer: 'delivery',
  does: "ordered delivery: a key's events one request at a time in publish order, a retry as the message hidden until due (delivery/ordered.ts)",
  batched: true,
  one: async (job, worker, options) => {
    const [outcome] = await worker.deliverOrdered(
      [{ job, receiptHandle: '', receiveCount: 1, groupId: '' }],
      options,
    );
    if (outcome === undefined || outcome.kind !== 'finished') {
      throw new Error('an ordered job taken on its own must finish at once');
    }
    return outcome.report;
  },
  run: async (jobs, { worker, options, received }) => {
    const messages = jobs.map((job, index) => {
      const message = received[index];
      return {
        job,
        receiptHandle: message?.receiptHandle ?? '',
        receiveCount: message?.receiveCount ?? 1,
        groupId: message?.groupId ?? message?.messageId ?? String(index),
      };
    });
    const outcomes = await worker.deliverOrdered(messages, options);
    return outcomes.map((outcome) =>
      outcome.kind === 'finished'
        ? done({ ...outcome.report })
        : waiting(outcome.until, { ...outcome.report }),
    );
  },
};

/** Ended deliveries written to the dead-letter bucket, the whole batch grouped per subscription. */
const WRITE_DEAD_LETTERS: JobStep<'ended', 'deadLetter'> = {
  consumer: 'deadLetter',
  does: 'written to the dead-letter bucket, grouped per subscription (delivery/dead-letter.ts)',
  batched: true,
  run: async (jobs, { worker, options }) => {
    const report = await worker.write(jobs, { deadline: options.attemptDeadline });
    return report.outcomes;
  },
};

/** Archive copies written into their topics' segments, the whole batch grouped per topic and hour. */
const WRITE_ARCHIVE: JobStep<'archive', 'deadLetter'> = {
  consumer: 'deadLetter',
  does: "written into the archive bucket, the batch's events in one segment per topic and hour (archive/writer.ts)",
  batched: true,
  run: async (jobs, { worker }) => (await worker.writeArchive(jobs)).outcomes,
};

export const JOB_REGISTRY: { readonly [K in JobKind]: RegistryEntry<K> } = {
  deliver: { schema: JOB_SCHEMAS.deliver, steps: { delivery: DELIVER, retry: DELIVER } },
  validate: { schema: JOB_SCHEMAS.validate, steps: { delivery: VALIDATE } },
  fanout: { schema: JOB_SCHEMAS.fanout, steps: { delivery: DELIVER } },
  'stored-fanout': { schema: JOB_SCHEMAS['stored-fanout'], steps: { delivery: DELIVER } },
  ended: { schema: JOB_SCHEMAS.ended, steps: { endedDelivery: WRITE_DEAD_LETTERS, retry: HAND_OFF_AGAIN } },
  store: { schema: JOB_SCHEMAS.store, steps: { backlog: STORE } },
  'backlog-tick': { schema: JOB_SCHEMAS['backlog-tick'], steps: { retry: TICK } },
  ordered: { schema: JOB_SCHEMAS.ordered, steps: { ordered: DELIVER_ORDERED } },
  archive: { schema: JOB_SCHEMAS.archive, steps: { archive: WRITE_ARCHIVE } },
  'replay-page': { schema: JOB_SCHEMAS['replay-page'], steps: { delivery: REPLAY_PAGE } },
};

const KINDS = Object.keys(JOB_REGISTRY) as JobKind[];

const entryOf = (kind: JobKind): RegistryEntry<JobKind> => JOB_REGISTRY[kind] as RegistryEntry<JobKind>;

/** The queues that carry a kind. */
export const queuesCarrying = (kind: JobKind): QueueKey[] => Object.keys(entryOf(kind).steps) as QueueKey[];

/** The kinds a queue carries, in the registry's order. */
export const kindsCarriedBy = (queue: QueueKey): JobKind[] =>
  KINDS.filter((kind) => entryOf(kind).steps[queue] !== undefined);

/** The step a function runs a kind by (`undefined`: the function does not take it). */
export function stepFor<F extends ConsumerFunction>(kind: JobKind, fn: F): JobStep<JobKind, F> | undefined {
  const steps = Object.values(entryOf(kind).steps) as AnyStep<JobKind>[];
  return steps.find((step) => step.consumer === fn) as JobStep<JobKind, F> | undefined;
}

/** The kinds a function takes: those with a step of its own, in the registry's order. */
export const kindsTakenBy = (fn: ConsumerFunction): JobKind[] =>
  KINDS.filter((kind) => stepFor(kind, fn) !== undefined);

/**
 * Works a batch's jobs on a function's steps and says what became of each, in the jobs' order:
 * the jobs of a batched step together, the others each on its own, all at once. A step that
 * rejects (or gives no outcome for a job) has its jobs retried later.
 */
export async function runJobs<F extends ConsumerFunction>(
  fn: F,
  jobs: readonly QueuedJob[],
  context: StepContext<F>,
): Promise<RecordOutcome[]> {
  const groups = new Map<JobStep<JobKind, F>, number[]>();
  jobs.forEach((job, index) => {
    const step = stepFor(kindOf(job), fn);
    if (step === undefined) throw new Error(`the ${fn} function has no step for '${kindOf(job)}' jobs`);
    groups.set(step, [...(groups.get(step) ?? []), index]);
  });
  const outcomes: RecordOutcome[] = jobs.map(() => retryLater('the step gave no outcome for this job'));
  await Promise.all(
    [...groups].map(async ([step, indexes]) => {
      const mine = indexes.map((index) => jobs[index] as JobOfKind<JobKind>);
      const ids = indexes.map((index) => context.messageIds[index] ?? String(index));
      const received = indexes.flatMap((index) => {
        const message = context.received[index];
        return message === undefined ? [] : [message];
      });
      let got: readonly RecordOutcome[];
      try {
        got = await step.run(mine, { ...context, messageIds: ids, received });
      } catch (error) {
        got = mine.map(() => retryLater(reasonOf(error)));
      }
      indexes.forEach((index, position) => {
        const outcome = got[position];
        if (outcome !== undefined) outcomes[index] = outcome;
      });
    }),
  );
  return outcomes;
}

/**
 * Works one job of any kind the delivery function takes, by its step. Rejects when the job could
 * not be finished now (its message then comes back).
 */
export function processJob(
  worker: StepWorkers['delivery'],
  job: QueuedJob,
  options: JobOptions,
): Promise<JobReport> {
  const step = stepFor(kindOf(job), 'delivery') as DeliveryStep<JobKind> | undefined;
  if (step === undefined) throw new Error(`the delivery function takes no '${kindOf(job)}' jobs`);
  return step.one(job as JobOfKind<JobKind>, worker, options);
}

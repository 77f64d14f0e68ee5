/**
 * Subscriptions' backlogs in virtual time, for the benchmarks that run the real engine on a
 * virtual clock (`simulation.ts`, `held.ts`): the backlog queue with its consumer as on AWS, the
 * sweeper's schedule, and the store counted as S3 and DynamoDB bill it.
 *
 * - The backlog queue: `store` jobs the engine sends to `backlog` wait in a batching window, as the
 *   queue's event source gathers them (`QUEUES.backlog.consumer`): the window opens with the first
 *   message and closes after {@link BACKLOG_WINDOW_SECONDS}, or at once when it holds
 *   `LAMBDA_SQS_LIMITS.maxBatchSize` messages or its payload would pass the 6 MiB of an invocation.
 *   Then one delivery invocation stores the batch (`engine.storeJobs`, each job with its message
 *   id). Its receives take what is visible, up to 10 at a time (the messages sent at one moment);
 *   the event source deletes what it stored 10 at a time.
 * - Ticks ride the retry queue (`BACKLOG_TICK_QUEUE`): they go to the run's `VirtualQueue` with the
 *   delivery and retry jobs and are worked by the run's loop as any job is.
 * - The sweep (`engine.sweepBacklogs()`) runs at every whole virtual minute while anything is in
 *   flight or a backlog has a wake, as the schedule invokes the delivery function every minute.
 *   Its invocations and reads are the stack's, whatever the traffic: kept apart, never per event.
 * - The store and its counting: `counting-backlog-store.ts`.
 */

import { LAMBDA_SQS_LIMITS } from '../shared/config/event-source-mapping';
import { BACKLOG_WINDOW_SECONDS, type QueueKey } from '../shared/config/resources';
import type { BacklogSettings } from '../shared/delivery/backlog/backlogs';
import { parseStoreJob } from '../shared/delivery/backlog/store-step';
import type { DeliveryItem, DeliveryTarget, StoreJob } from '../shared/domain/delivery';
import { topicIdOf } from '../shared/domain/names';
import type { VirtualClock } from '../shared/platform/clock';
import { heldPublishBodies } from '../shared/publish/publisher';
import { targetGroupId } from '../shared/queue/job-codec';
import { batchJobs, type JobQueue, type OutgoingJob } from '../shared/queue/sqs-job-queue';
import type { HealthStore } from '../shared/storage/health';
import { isHeld } from '../shared/storage/held-marks';
import { sqsBilledChunks } from './aws-counter';
import { CountingBacklogStore, CountingHeldMarks, storeCallMs } from './counting-backlog-store';
import type { VirtualQueue } from './virtual-queue';

const S = 1000;
const MINUTE = 60 * S;
/** Sweeps run at every whole minute, as the schedule's rule fires. */
export const SWEEP_EVERY_MS = MINUTE;

/** A message of the backlog queue, waiting in the event source's window. */
interface BacklogMessage {
  readonly messageId: string;
  readonly body: string;
  readonly bytes: number;
  readonly sentAt: number;
}

/** What the backlog queue and its consumer did. */
export interface BacklogQueueCounts {
  sendRequests: number;
  receiveRequests: number;
  deleteRequests: number;
  billedRequests: number;
  messagesSent: number;
  /** Store invocations (one per closed window) and their billed GB-seconds. */
  invocations: number;
  /** Their duration, as assumed: per invocation, and per S3 and DynamoDB call. */
  durationMs: number;
  /** Largest batch one invocation stored. */
  largestBatch: number;
}

const bytesOf = (bodies: readonly { body: string }[]) =>
  bodies.reduce((sum, message) => sum + Buffer.byteLength(message.body, 'utf8'), 0);

/** What the engine needs to run the backlog: the parts it calls. */
export interface BacklogWorker {
  storeJobs(
    jobs: readonly { sourceId: string; job: StoreJob }[],
  ): Promise<{ unfinished: ReadonlyMap<string, string> }>;
  sweepBacklogs(): Promise<{ sent: number; rearmed: number; failed: number }>;
}

export interface VirtualBacklogOptions {
  /** The backlog queue's batching window (default {@link BACKLOG_WINDOW_SECONDS}). */
  windowSeconds?: number;
  /** Per invocation besides its calls, ms (the run's assumption for any delivery invocation). */
  perInvocationMs: number;
  /** Requests a drain has in flight at most. */
  drainConcurrency: number;
  /** The run's topic: its held marks are kept in its partition. */
  topic: string;
}

/**
 * The backlog of a virtual run: its store, its queue and consumer, the sweeper, and a `JobQueue`
 * for the engine that sends `backlog` jobs here and everything else to the run's queue.
 */
export class VirtualBacklog {
  readonly store: CountingBacklogStore;
  /** The held marks its ticks set, which the run's publishes read (`publish`). */
  readonly heldMarks: CountingHeldMarks;
  readonly queue: JobQueue;
  readonly counts: BacklogQueueCounts = {
    sendRequests: 0,
    receiveRequests: 0,
    deleteRequests: 0,
    billedRequests: 0,
    messagesSent: 0,
    invocations: 0,
    durationMs: 0,
    largestBatch: 0,
  };
  /** The sweeper's invocations, their assumed duration and the ticks they sent (a cost of the stack). */
  readonly sweeps = { invocations: 0, durationMs: 0, ticksSent: 0, rearmed: 0, timerIndexReadUnits: 0 };
  /** Tick messages sent to the retry queue (by stores, ticks and sweeps). */
  ticksSent = 0;
  private readonly pending: BacklogMessage[] = [];
  private pendingBytes = 0;
  private windowOpenedAt: number | undefined;
  /** Set when the window filled before its time. */
  private fullAt: number | undefined;
  private messageSeq = 0;
  private tokenSeq = 0;
  private lastSweepAt: number;
  private readonly windowMs: number;

  constructor(
    private readonly clock: VirtualClock,
    retryQueue: VirtualQueue,
    private readonly options: VirtualBacklogOptions,
  ) {
    this.store = new CountingBacklogStore(clock);
    this.heldMarks = new CountingHeldMarks(options.topic, clock.now());
    this.windowMs = (options.windowSeconds ?? BACKLOG_WINDOW_SECONDS) * S;
    this.lastSweepAt = Math.floor(clock.now() / SWEEP_EVERY_MS) * SWEEP_EVERY_MS;
    this.queue = {
      send: async (queue: QueueKey | string, jobs: readonly OutgoingJob[]) => {
        if (queue === 'backlog') return this.sendToBacklog(jobs);
        this.ticksSent += jobs.filter((job) => job.body.includes('"kind":"backlog-tick"')).length;
        return retryQueue.send(queue, jobs);
      },
    };
  }

  /** The engine's backlog dependency: this store, tokens counted so runs repeat exactly. */
  engineBacklog(healthStore: Pick<HealthStore, 'get' | 'put'>): BacklogSettings {
    return {
      store: this.store,
      healthStore,
      drainConcurrency: this.options.drainConcurrency,
      heldMarks: this.heldMarks,
      newToken: () => {
        this.tokenSeq += 1;
        return `token-${this.tokenSeq}`;
      },
    };
  }

  /**
   * A publish's one message, where a publisher sends it: for a held subscription the backlog
   * queue's window (true), else the run's delivery queue (false, put there by the caller). Like
   * every publish of these runs, its send is not counted.
   */
  async publish(target: DeliveryTarget, items: readonly DeliveryItem[], at: number): Promise<boolean> {
    const held = await this.heldMarks.list(topicIdOf(target.topic));
    if (!isHeld(held, target.subscription, target.uid)) return false;
    const [body, ...more] = heldPublishBodies(target, items, at);
    if (body === undefined || more.length > 0) return false;
    this.enqueue([{ body, delaySeconds: 0, groupId: targetGroupId(target) }]);
    return true;
  }

  private sendToBacklog(jobs: readonly OutgoingJob[]): void {
    for (const batch of batchJobs(jobs)) {
      this.counts.sendRequests += 1;
      this.counts.billedRequests += sqsBilledChunks(bytesOf(batch));
      this.counts.messagesSent += batch.length;
      this.enqueue(batch);
    }
  }

  /** Messages into the window, as sent now. */
  private enqueue(batch: readonly OutgoingJob[]): void {
    const now = this.clock.now();
    for (const job of batch) {
      this.messageSeq += 1;
      const bytes = Buffer.byteLength(job.body, 'utf8');
      this.pending.push({
        messageId: `backlog-message-${this.messageSeq}`,
        body: job.body,
        bytes,
        sentAt: now,
      });
      this.pendingBytes += bytes;
      this.windowOpenedAt ??= now;
      const full =
        this.pending.length >= LAMBDA_SQS_LIMITS.maxBatchSize ||
        this.pendingBytes >= LAMBDA_SQS_LIMITS.maxPayloadBytes;
      if (full) this.fullAt ??= now;
    }
  }

  /** Messages waiting in the backlog queue's window. */
  get waiting(): number {
    return this.pending.length;
  }

  /** When the open window closes; `undefined` with none open. */
  windowClosesAt(): number | undefined {
    if (this.windowOpenedAt === undefined) return undefined;
    return this.fullAt ?? this.windowOpenedAt + this.windowMs;
  }

  /** The next sweep after the last one. */
  nextSweepAt(): number {
    return this.lastSweepAt + SWEEP_EVERY_MS;
  }

  /**
   * Closes the window: one invocation stores what it gathered (up to the batch and payload limits;
   * the rest opens the next window at once). Returns the invocation's assumed duration.
   */
  async closeWindow(worker: BacklogWorker): Promise<number> {
    const batch: BacklogMessage[] = [];
    let bytes = 0;
    while (this.pending.length > 0 && batch.length < LAMBDA_SQS_LIMITS.maxBatchSize) {
      const next = this.pending[0] as BacklogMessage;
      if (batch.length > 0 && bytes + next.bytes > LAMBDA_SQS_LIMITS.maxPayloadBytes) break;
      batch.push(next);
      bytes += next.bytes;
      this.pending.shift();
    }
    this.pendingBytes -= bytes;
    this.windowOpenedAt = this.pending.length > 0 ? this.clock.now() : undefined;
    this.fullAt =
      this.pending.length >= LAMBDA_SQS_LIMITS.maxBatchSize ||
      this.pendingBytes >= LAMBDA_SQS_LIMITS.maxPayloadBytes
        ? this.clock.now()
        : undefined;
    // The pollers' receives: what was sent at one moment is visible together, up to 10 a receive.
    const byMoment = new Map<number, BacklogMessage[]>();
    for (const message of batch)
      byMoment.set(message.sentAt, [...(byMoment.get(message.sentAt) ?? []), message]);
    for (const messages of byMoment.values()) {
      for (let i = 0; i < messages.length; i += 10) {
        this.counts.receiveRequests += 1;
        this.counts.billedRequests += sqsBilledChunks(bytesOf(messages.slice(i, i + 10)));
      }
    }
    const before = { ...this.store.counts };
    const result = await worker.storeJobs(
      batch.map((message) => ({ sourceId: message.messageId, job: parseStore(message.body) })),
    );
    if (result.unfinished.size > 0) {
      throw new Error(
        `the store step left ${result.unfinished.size} messages unfinished: ${[...result.unfinished.values()][0]}`,
      );
    }
    const deletes = Math.ceil(batch.length / 10);
    this.counts.deleteRequests += deletes;
    this.counts.billedRequests += deletes;
    this.counts.invocations += 1;
    this.counts.largestBatch = Math.max(this.counts.largestBatch, batch.length);
    const durationMs = this.options.perInvocationMs + storeCallMs(diffCounts(this.store.counts, before));
    this.counts.durationMs += durationMs;
    return durationMs;
  }

  /** The sweep of the minute at `at` (the clock is there already). */
  async sweep(worker: BacklogWorker, at: number): Promise<void> {
    this.lastSweepAt = at;
    const before = { ...this.store.counts };
    const ticksBefore = this.ticksSent;
    const report = await worker.sweepBacklogs();
    const delta = diffCounts(this.store.counts, before);
    this.sweeps.invocations += 1;
    this.sweeps.durationMs += this.options.perInvocationMs + storeCallMs(delta);
    this.sweeps.ticksSent += this.ticksSent - ticksBefore;
    this.sweeps.rearmed += report.rearmed;
    this.sweeps.timerIndexReadUnits += delta.timerIndexReadUnits;
  }
}

/** `after - before`, field by field. */
export function diffCounts<T extends object>(after: T, before: T): T {
  const out = {} as Record<string, number>;
  for (const [key, value] of Object.entries(after)) {
    out[key] = (value as number) - ((before as Record<string, number>)[key] ?? 0);
  }
  return out as T;
}

function parseStore(body: string): StoreJob {
  const job = parseStoreJob(body);
  if (typeof job === 'string') throw new Error(job);
  return job;
}

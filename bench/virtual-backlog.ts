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
 * - The store: `MemoryBacklogStore` (the same rules as the table and bucket), each call counted as
 *   the DynamoDB and S3 requests `DynamoBacklogStore` makes for it: S3 PUT, GET and DELETE of
 *   segments; DynamoDB writes of index items and META by their size (`writeUnitsOf`), the timer
 *   index's (gsi1, all attributes projected) writes when a META enters, moves in or leaves it,
 *   failed conditional writes billed as written; strongly consistent reads at 1 unit per started
 *   4 KiB of what a query or get returns (at least 1), the timer index's eventually consistent
 *   queries at half that (one per shard). S3 storage is counted as byte-milliseconds of objects.
 */
import { BACKLOG_WINDOW_SECONDS, LAMBDA_SQS_LIMITS, type QueueKey } from '../shared/config/resources';
import { parseStoreJob } from '../shared/delivery/backlog-store-step';
import type { EngineBacklog } from '../shared/delivery/engine-backlogs';
import type {
  BacklogCheckpoint,
  BacklogLine,
  BacklogMeta,
  BacklogSegmentRef,
} from '../shared/domain/backlog';
import type { StoreJob } from '../shared/domain/delivery';
import { topicIdOf } from '../shared/domain/names';
import type { VirtualClock } from '../shared/platform/clock';
import { batchJobs, type JobQueue, type OutgoingJob } from '../shared/queue/sqs-job-queue';
import {
  type BacklogStore,
  backlogSegmentKey,
  hasWake,
  type ListSegmentsOptions,
  metaItem,
  type NewSegment,
  segmentItem,
  wakeShardOf,
} from '../shared/storage/backlog';
import type { HealthStore } from '../shared/storage/health';
import { BACKLOG_WAKE_SHARDS, epochKey } from '../shared/storage/table';
import { MemoryBacklogStore } from '../test/support/memory-stores';
import { sqsBilledChunks } from './aws-counter';
import { itemBytes, writeUnitsOf } from './dynamo-size';
import type { VirtualQueue } from './virtual-queue';

const S = 1000;
const MINUTE = 60 * S;
/** Bytes one strongly consistent read unit covers. */
const READ_UNIT_BYTES = 4096;

/** Sweeps run at every whole minute, as the schedule's rule fires. */
export const SWEEP_EVERY_MS = MINUTE;

/**
 * Billed time of the backlog's AWS calls, assumed (nothing here waits on a network): an S3 request
 * and a DynamoDB request each take this long, one after another, in the invocation that makes them.
 */
export const ASSUMED_CALL_MS = { s3: 20, dynamo: 5 } as const;

/** What the backlog's store made S3 and DynamoDB do. */
export interface BacklogStoreCounts {
  s3Puts: number;
  s3Gets: number;
  s3Deletes: number;
  /** Bytes of segment objects times the ms they were kept (S3 storage). */
  s3ByteMs: number;
  /** Write requests (put, update, delete), by item: segment index items and META. */
  indexWrites: number;
  metaWrites: number;
  /** Write units, the timer index's writes included in `metaWriteUnits`. */
  indexWriteUnits: number;
  metaWriteUnits: number;
  /** Read requests and units: gets and queries of the table, and the timer index's queries. */
  reads: number;
  readUnits: number;
  timerIndexReads: number;
  timerIndexReadUnits: number;
  /** Segments created (a segment written again over an existing index item is not), and their events. */
  segments: number;
  segmentEvents: number;
}

const emptyStoreCounts = (): BacklogStoreCounts => ({
  s3Puts: 0,
  s3Gets: 0,
  s3Deletes: 0,
  s3ByteMs: 0,
  indexWrites: 0,
  metaWrites: 0,
  indexWriteUnits: 0,
  metaWriteUnits: 0,
  reads: 0,
  readUnits: 0,
  timerIndexReads: 0,
  timerIndexReadUnits: 0,
  segments: 0,
  segmentEvents: 0,
});

/** Read units of a strongly consistent read that returned `bytes` (at least 1). */
const consistentReadUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES));

/**
 * Writes to the timer index when a META changes from `before` to `after` (either absent): one to
 * enter or leave it, one for a change in place, two when its sort key (the wake) moves.
 */
function timerIndexWrites(before: BacklogMeta | undefined, after: BacklogMeta | undefined): number {
  const was = before !== undefined && hasWake(before);
  const is = after !== undefined && hasWake(after);
  if (!was && !is) return 0;
  if (was !== is) return 1;
  return epochKey(before?.wakeAt ?? 0) === epochKey(after?.wakeAt ?? 0) ? 1 : 2;
}

/**
 * A `MemoryBacklogStore` whose every call is counted as the requests the table and bucket would
 * bill for it. `onSegment` sees every segment written (its events and due times).
 */
export class CountingBacklogStore implements BacklogStore {
  readonly inner = new MemoryBacklogStore();
  readonly counts = emptyStoreCounts();
  /** Object bytes by key and since when they are kept. */
  private readonly kept = new Map<string, { bytes: number; since: number }>();
  onSegment: ((lines: readonly BacklogLine[]) => void) | undefined;
  /** Segments created, by subscription. */
  readonly segmentsWritten = new Map<string, number>();

  constructor(private readonly clock: VirtualClock) {}

  /** Byte-ms of the objects still kept, up to now, added to the count (call once at the end). */
  settleStorage(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.kept) {
      this.counts.s3ByteMs += entry.bytes * (now - entry.since);
      this.kept.set(key, { ...entry, since: now });
    }
  }

  /** Whether any backlog has a wake (something will still tick). */
  async hasWakes(): Promise<boolean> {
    return (await this.inner.wakesBy(Number.MAX_SAFE_INTEGER)).length > 0;
  }

  private dropObject(key: string): void {
    const entry = this.kept.get(key);
    if (entry === undefined) return;
    this.counts.s3ByteMs += entry.bytes * (this.clock.now() - entry.since);
    this.kept.delete(key);
  }

  private countQuery(refs: readonly BacklogSegmentRef[]): void {
    this.counts.reads += 1;
    this.counts.readUnits += consistentReadUnits(
      refs.reduce((sum, ref) => sum + itemBytes(segmentItem(ref)), 0),
    );
  }

  async putSegment(segment: NewSegment): Promise<BacklogSegmentRef> {
    const key = backlogSegmentKey(
      topicIdOf(segment.target.topic),
      segment.target.subscription,
      segment.target.uid,
      segment.segmentId,
    );
    const existed = this.inner.objects.has(key);
    const ref = await this.inner.putSegment(segment);
    this.counts.s3Puts += 1;
    this.dropObject(key);
    const text = this.inner.objects.get(key) ?? '';
    this.kept.set(key, { bytes: Buffer.byteLength(text, 'utf8'), since: this.clock.now() });
    // The conditional put of the index item is billed whether it writes or not; a refused one
    // reads the stored item.
    this.counts.indexWrites += 1;
    this.counts.indexWriteUnits += writeUnitsOf(segmentItem(ref));
    if (existed) {
      this.counts.reads += 1;
      this.counts.readUnits += consistentReadUnits(itemBytes(segmentItem(ref)));
    } else {
      this.counts.segments += 1;
      this.counts.segmentEvents += segment.lines.length;
      const name = segment.target.subscription;
      this.segmentsWritten.set(name, (this.segmentsWritten.get(name) ?? 0) + 1);
    }
    this.onSegment?.(segment.lines);
    return ref;
  }

  async listSegments(
    topic: string,
    subscription: string,
    options?: ListSegmentsOptions,
  ): Promise<BacklogSegmentRef[]> {
    const refs = await this.inner.listSegments(topic, subscription, options);
    this.countQuery(refs);
    return refs;
  }

  readSegment(ref: BacklogSegmentRef) {
    this.counts.s3Gets += 1;
    return this.inner.readSegment(ref);
  }

  async updateCheckpoint(ref: BacklogSegmentRef, checkpoint: BacklogCheckpoint): Promise<boolean> {
    this.counts.indexWrites += 1;
    this.counts.indexWriteUnits += writeUnitsOf(segmentItem({ ...ref, ...checkpoint }));
    return this.inner.updateCheckpoint(ref, checkpoint);
  }

  async deleteSegment(ref: BacklogSegmentRef): Promise<void> {
    this.counts.indexWrites += 1;
    this.counts.indexWriteUnits += writeUnitsOf(segmentItem(ref));
    this.counts.s3Deletes += 1;
    this.dropObject(ref.key);
    await this.inner.deleteSegment(ref);
  }

  async getMeta(topic: string, subscription: string): Promise<BacklogMeta | undefined> {
    const meta = await this.inner.getMeta(topic, subscription);
    this.counts.reads += 1;
    this.counts.readUnits += consistentReadUnits(meta === undefined ? 0 : itemBytes(metaItem(meta)));
    return meta;
  }

  async putMeta(meta: BacklogMeta, expectedToken: string | undefined): Promise<boolean> {
    const before = await this.inner.getMeta(meta.topic, meta.subscription);
    const written = await this.inner.putMeta(meta, expectedToken);
    this.counts.metaWrites += 1;
    this.counts.metaWriteUnits += writeUnitsOf(metaItem(meta));
    if (written) this.counts.metaWriteUnits += timerIndexWrites(before, meta) * writeUnitsOf(metaItem(meta));
    return written;
  }

  async deleteMeta(topic: string, subscription: string, expectedToken: string): Promise<boolean> {
    const before = await this.inner.getMeta(topic, subscription);
    const deleted = await this.inner.deleteMeta(topic, subscription, expectedToken);
    this.counts.metaWrites += 1;
    const units = before === undefined ? 1 : writeUnitsOf(metaItem(before));
    this.counts.metaWriteUnits += units + (deleted ? timerIndexWrites(before, undefined) * units : 0);
    return deleted;
  }

  async summary(topic: string, subscription: string) {
    const refs = await this.inner.listSegments(topic, subscription);
    this.countQuery(refs);
    return this.inner.summary(topic, subscription);
  }

  async overview(topic: string, subscription: string, uid: string | undefined) {
    const overview = await this.inner.overview(topic, subscription, uid);
    this.countQuery(await this.inner.listSegments(topic, subscription));
    return overview;
  }

  async wakesBy(until: number): Promise<BacklogMeta[]> {
    const metas = await this.inner.wakesBy(until);
    const bytesByShard = new Array<number>(BACKLOG_WAKE_SHARDS).fill(0);
    for (const meta of metas) {
      const shard = wakeShardOf(meta.topic, meta.subscription);
      bytesByShard[shard] = (bytesByShard[shard] ?? 0) + itemBytes(metaItem(meta));
    }
    this.counts.timerIndexReads += BACKLOG_WAKE_SHARDS;
    this.counts.timerIndexReadUnits += bytesByShard.reduce(
      (sum, bytes) => sum + consistentReadUnits(bytes) / 2,
      0,
    );
    return metas;
  }
}

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

/** Calls a store makes, for the assumed time they take. */
export const storeCallMs = (counts: BacklogStoreCounts): number =>
  (counts.s3Puts + counts.s3Gets + counts.s3Deletes) * ASSUMED_CALL_MS.s3 +
  (counts.indexWrites + counts.metaWrites + counts.reads + counts.timerIndexReads) * ASSUMED_CALL_MS.dynamo;

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
}

/**
 * The backlog of a virtual run: its store, its queue and consumer, the sweeper, and a `JobQueue`
 * for the engine that sends `backlog` jobs here and everything else to the run's queue.
 */
export class VirtualBacklog {
  readonly store: CountingBacklogStore;
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
  engineBacklog(healthStore: Pick<HealthStore, 'get' | 'put'>): EngineBacklog {
    return {
      store: this.store,
      healthStore,
      drainConcurrency: this.options.drainConcurrency,
      newToken: () => {
        this.tokenSeq += 1;
        return `token-${this.tokenSeq}`;
      },
    };
  }

  private sendToBacklog(jobs: readonly OutgoingJob[]): void {
    const now = this.clock.now();
    for (const batch of batchJobs(jobs)) {
      this.counts.sendRequests += 1;
      this.counts.billedRequests += sqsBilledChunks(bytesOf(batch));
      this.counts.messagesSent += batch.length;
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

/**
 * The backlog's stores in the virtual runs, counted as AWS bills them (`virtual-backlog.ts` runs
 * the queue, its consumer and the sweeper around them).
 *
 * - `CountingBacklogStore`: `MemoryBacklogStore` (the same rules as the table and bucket), each
 *   call counted as the DynamoDB and S3 requests `DynamoBacklogStore` makes for it: S3 PUT, GET
 *   and DELETE of segments; DynamoDB writes of index items and META by their size
 *   (`writeUnitsOf`), the timer index's (gsi1, all attributes projected) writes when a META
 *   enters, moves in or leaves it, failed conditional writes billed as written; strongly
 *   consistent reads at 1 unit per started 4 KiB of what a query or get returns (at least 1), the
 *   timer index's eventually consistent queries at half that (one per shard). S3 storage is
 *   counted as byte-milliseconds of objects.
 * - `CountingHeldMarks`: the held marks of the in-memory table, counted as `DynamoHeldMarks`
 *   writes them (a conditional put or delete, billed whether it writes or not, and the topic's
 *   version moved when it did), and the publishers' reads of them: a query of the marks beside the
 *   subscription list's, once per subscription-list version.
 */
import type {
  BacklogCheckpoint,
  BacklogLine,
  BacklogMeta,
  BacklogSegmentRef,
} from '../shared/domain/backlog';
import type { Topic } from '../shared/domain/model';
import { topicIdOf } from '../shared/domain/names';
import type { VirtualClock } from '../shared/platform/clock';
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
import {
  type HeldMark,
  type HeldMarks,
  type HeldSubscriptions,
  heldMarkKey,
} from '../shared/storage/held-marks';
import { BACKLOG_WAKE_SHARDS, epochKey, subscriptionsParentKey } from '../shared/storage/table';
import { MemoryBacklogStore, memoryStores } from '../test/support/memory-stores';
import { itemBytes, writeUnitsOf } from './dynamo-size';

/** Bytes one strongly consistent read unit covers. */
const READ_UNIT_BYTES = 4096;

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

/** Calls a store makes, for the assumed time they take. */
export const storeCallMs = (counts: BacklogStoreCounts): number =>
  (counts.s3Puts + counts.s3Gets + counts.s3Deletes) * ASSUMED_CALL_MS.s3 +
  (counts.indexWrites + counts.metaWrites + counts.reads + counts.timerIndexReads) * ASSUMED_CALL_MS.dynamo;

/** What the held marks cost: their writes (with the topic's version), and the publishers' reads. */
export interface HeldMarkCounts {
  writes: number;
  writeUnits: number;
  /** Subscription-list versions publishers read (each a query of the subscriptions and one of the marks). */
  listReads: number;
  readUnits: number;
}

/**
 * Held marks in an in-memory table where the run's topic exists, counted as the table bills them.
 * `list` stands for a publisher's read: it is counted only when the topic's version moved since
 * the last one (the publisher keeps the list per version).
 */
export class CountingHeldMarks implements HeldMarks {
  private readonly tables = memoryStores();
  readonly counts: HeldMarkCounts = { writes: 0, writeUnits: 0, listReads: 0, readUnits: 0 };
  private readonly listedVersions = new Map<string, number>();

  /** `topic` is created at `at` (the in-memory store writes it before its first await). */
  constructor(topic: string, at: number) {
    void this.tables.topics.create(topic, { inputSchema: 'EventGridSchema', tags: {} }, new Date(at));
  }

  async set(mark: Omit<HeldMark, 'since'>, held: boolean, now: number): Promise<boolean> {
    const changed = await this.tables.heldMarks.set(mark, held, now);
    // The conditional put or delete is billed either way; the version's update when it wrote.
    this.counts.writes += changed ? 2 : 1;
    const markUnits = writeUnitsOf({
      ...heldMarkKey(mark.topic, mark.subscription),
      kind: 'held-mark',
      ...mark,
      since: now,
    });
    this.counts.writeUnits += markUnits + (changed ? await this.topicWriteUnits(mark.topic) : 0);
    return changed;
  }

  async list(topic: string): Promise<HeldSubscriptions> {
    const version = (await this.tables.topics.get(topic))?.subscriptionsVersion ?? 0;
    if (this.listedVersions.get(topic) !== version) {
      this.listedVersions.set(topic, version);
      this.counts.listReads += 1;
      // The subscription list's query and the marks' (each at least one unit, strongly consistent).
      this.counts.readUnits += 2;
    }
    return this.tables.heldMarks.list(topic);
  }

  private async topicWriteUnits(topic: string): Promise<number> {
    const stored = (await this.tables.topics.get(topic)) as Topic;
    return writeUnitsOf({ ...subscriptionsParentKey(topic), kind: 'topic', ...stored });
  }
}

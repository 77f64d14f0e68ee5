/**
 * Subscriptions' backlogs: stored events in segments (objects in the backlog bucket), an index
 * item per segment and a `#META` item per backlog in the table (`BACKLOG#<topic>#<sub>`, see
 * `table.ts`).
 *
 * A segment's object is JSON lines: a header (`BacklogSegmentHeader`), then one line per event
 * (`BacklogLine`) in due order. Each line is written as a job message writes its items
 * (`sqsSafeJson(JSON.stringify(...))`), so an event's text (`eventJson`) travels as a JSON string
 * and reads back exactly as published, character for character.
 *
 * Write order, so a crash never loses an event: a segment's object is written before its index
 * item (an object no item names is never read, and the bucket's lifecycle rule removes it), and a
 * segment's index item is deleted before its object (an item never names a missing object). Index
 * items are created only where none is (`attribute_not_exists`), so writing the same segment again
 * (a store step run again on the same messages, which gives the same segment id) keeps the stored
 * item and its checkpoint.
 */
import { createHash } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { BACKLOG_BUCKET, TABLE } from '../config/resources';
import {
  BACKLOG_SEGMENT_VERSION,
  type BacklogCheckpoint,
  type BacklogLine,
  type BacklogMeta,
  type BacklogSegmentHeader,
  type BacklogSegmentRef,
  type BacklogSummary,
  backlogLineSchema,
  backlogMetaSchema,
  backlogSegmentHeaderSchema,
  backlogSegmentRefSchema,
  byDueOrder,
  liveCount,
  NOTHING_DONE,
} from '../domain/backlog';
import type { DeliveryTarget } from '../domain/delivery';
import { topicIdOf } from '../domain/names';
import { malformedMessage } from '../platform/zod-issues';
import { sqsSafeJson } from '../queue/job-codec';
import {
  BACKLOG_META_SK,
  BACKLOG_SEGMENT_SK_PREFIX,
  BACKLOG_WAKE_SHARDS,
  backlogMetaKey,
  backlogPk,
  backlogSegmentSk,
  backlogWakePartition,
  epochKey,
  type ItemKey,
  itemAttributes,
  parseItem,
  Table,
  TOPICS_INDEX,
  withoutItemAttributes,
} from './table';

/** Days an idle backlog's META is kept after its last change (DynamoDB's TTL removes it). */
export const IDLE_META_RETENTION_DAYS = 7;

const lower = (name: string) => name.toLowerCase();

/**
 * The object key of a segment: `backlog/<topic id>/<subscription>/<uid>/<segment id>.jsonl`,
 * names in lower case as table keys are (`-` for a target without a uid). Each uid has its own
 * prefix, so a re-created subscription's events are never mistaken for the old one's.
 */
export const backlogSegmentKey = (
  topicId: string,
  subscription: string,
  uid: string | undefined,
  segmentId: string,
): string =>
  `${BACKLOG_BUCKET.prefix}${lower(topicId)}/${lower(subscription)}/${uid ?? '-'}/${segmentId}.jsonl`;

/** A segment to write: its events (any order) for one target, and its id (`segmentIdOf`). */
export interface NewSegment {
  readonly target: DeliveryTarget;
  readonly segmentId: string;
  readonly lines: readonly BacklogLine[];
  /** Epoch ms. */
  readonly createdAt: number;
}

/** A segment as read back: its header and its events in due order. */
export interface StoredSegment {
  readonly header: BacklogSegmentHeader;
  readonly lines: BacklogLine[];
}

/** One line of a segment's object, members in a fixed order. */
const lineText = (line: BacklogLine): string =>
  sqsSafeJson(JSON.stringify({ dueAt: line.dueAt, heldBy: line.heldBy, item: line.item }));

/** The bytes one event takes in a segment's object (its line and the line break). */
export const segmentLineBytes = (line: BacklogLine): number => Buffer.byteLength(lineText(line), 'utf8') + 1;

/**
 * A segment's object text and its index entry (nothing done yet). Its events are sorted in due
 * order; an empty segment is refused, since nothing would ever wake for it.
 */
export function encodeSegment(segment: NewSegment): { text: string; ref: BacklogSegmentRef } {
  const { target, segmentId, createdAt } = segment;
  const lines = [...segment.lines].sort(byDueOrder);
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (first === undefined || last === undefined) throw new RangeError(`segment ${segmentId} has no events`);
  const minPublishedAt = lines.reduce(
    (min, line) => Math.min(min, line.item.publishedAt),
    first.item.publishedAt,
  );
  const header: BacklogSegmentHeader = {
    v: BACKLOG_SEGMENT_VERSION,
    target,
    createdAt,
    count: lines.length,
    minDueAt: first.dueAt,
    maxDueAt: last.dueAt,
    minPublishedAt,
  };
  const text = `${[sqsSafeJson(JSON.stringify(header)), ...lines.map(lineText)].join('\n')}\n`;
  const topic = topicIdOf(target.topic);
  const ref: BacklogSegmentRef = {
    topic,
    subscription: target.subscription,
    ...(target.uid === undefined ? {} : { uid: target.uid }),
    segmentId,
    key: backlogSegmentKey(topic, target.subscription, target.uid, segmentId),
    count: lines.length,
    bytes: Buffer.byteLength(text, 'utf8'),
    minDueAt: first.dueAt,
    maxDueAt: last.dueAt,
    minPublishedAt,
    ...NOTHING_DONE,
  };
  return { text, ref };
}

/** Reads a segment's object text; throws naming the key and what is wrong (a truncated object too). */
export function decodeSegment(key: string, text: string): StoredSegment {
  const rows = text.split('\n');
  if (rows[rows.length - 1] === '') rows.pop();
  const parse = <T>(row: string, index: number, schema: z.ZodType<T>): T => {
    let json: unknown;
    try {
      json = JSON.parse(row);
    } catch (error) {
      throw new Error(`backlog segment ${key} line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new Error(malformedMessage(`backlog segment ${key} line ${index + 1}`, parsed.error));
    return parsed.data;
  };
  const header = parse(rows[0] ?? '', 0, backlogSegmentHeaderSchema);
  const lines = rows.slice(1).map((row, index) => parse(row, index + 1, backlogLineSchema));
  if (lines.length !== header.count) {
    throw new Error(`backlog segment ${key} holds ${lines.length} events; its header says ${header.count}`);
  }
  return { header, lines };
}

/** The events of a backlog that are not done yet, and the oldest publish time among its segments. */
export function summaryOf(refs: readonly BacklogSegmentRef[]): BacklogSummary {
  const live = refs.filter((ref) => liveCount(ref, ref.count) > 0);
  const events = live.reduce((sum, ref) => sum + liveCount(ref, ref.count), 0);
  if (live.length === 0) return { events };
  // Per segment, not per event: a segment's oldest event may be done already, so this may be older.
  return { events, oldestPublishedAt: Math.min(...live.map((ref) => ref.minPublishedAt)) };
}

/**
 * Whether a segment stored for `uid` is the subscription's with uid `current`: a subscription
 * deleted and created again under the same name has another uid. A side without a uid (a target
 * written before uids) matches any.
 */
export const storedFor = (ref: Pick<BacklogSegmentRef, 'uid'>, current: string | undefined): boolean =>
  ref.uid === undefined || current === undefined || ref.uid === current;

/** A backlog as the health view shows it: its META and what it holds for one subscription uid. */
export interface BacklogOverview {
  /** `undefined` when the backlog has none. */
  readonly meta: BacklogMeta | undefined;
  /** The events not done yet of the segments stored for the uid asked about (`storedFor`). */
  readonly summary: BacklogSummary;
}

/** What the management API reads of backlogs: the table's index alone, never a segment's object. */
export interface BacklogIndexReader {
  /** A backlog's META, read strongly consistently; `undefined` when it has none. */
  getMeta(topic: string, subscription: string): Promise<BacklogMeta | undefined>;
  /**
   * A backlog's META and the summary of its segments stored for `uid` (`storedFor`), from one
   * strongly consistent read of its partition.
   */
  overview(topic: string, subscription: string, uid: string | undefined): Promise<BacklogOverview>;
}

export interface ListSegmentsOptions {
  /**
   * Only segments whose earliest event is due by then (epoch ms; a due time with a fraction of a
   * millisecond counts from the next whole one, as its sort key does).
   */
  readonly dueBy?: number;
}

export interface BacklogStore extends BacklogIndexReader {
  /**
   * Writes a segment (its object, then its index item) and returns its index entry. Writing a
   * segment whose index item exists already keeps that item (and its checkpoint) and returns it.
   */
  putSegment(segment: NewSegment): Promise<BacklogSegmentRef>;
  /** A backlog's segments, in due order (by earliest event, then id), read strongly consistently. */
  listSegments(
    topic: string,
    subscription: string,
    options?: ListSegmentsOptions,
  ): Promise<BacklogSegmentRef[]>;
  /** A segment's header and events; rejects when its object is missing or malformed. */
  readSegment(ref: BacklogSegmentRef): Promise<StoredSegment>;
  /** Records how far a drain got through a segment; false when its index item is gone. */
  updateCheckpoint(ref: BacklogSegmentRef, checkpoint: BacklogCheckpoint): Promise<boolean>;
  /** Deletes a segment: its index item, then its object. Deleting it again does nothing. */
  deleteSegment(ref: BacklogSegmentRef): Promise<void>;
  /**
   * Writes `meta` only if the stored META still has `expectedToken` (`undefined`: no META yet).
   * False, writing nothing, when another writer came first.
   */
  putMeta(meta: BacklogMeta, expectedToken: string | undefined): Promise<boolean>;
  /**
   * Deletes a backlog's META only if its token is still `expectedToken` (a backlog whose
   * subscription is gone): false, deleting nothing, when another writer came first or there is none.
   */
  deleteMeta(topic: string, subscription: string, expectedToken: string): Promise<boolean>;
  /** The events not done yet and the oldest publish time, from the index (no segment is read). */
  summary(topic: string, subscription: string): Promise<BacklogSummary>;
  /**
   * The backlogs whose wake is at or before `until`, earliest first, from the timer index (an
   * index read, so a change of the last moments may not show yet). As for segments, a wake with
   * a fraction of a millisecond counts from the next whole one.
   */
  wakesBy(until: number): Promise<BacklogMeta[]>;
}

/** The timer index partition a backlog's META is listed under: fixed per backlog. */
export const wakeShardOf = (topic: string, subscription: string): number =>
  (createHash('sha256').update(backlogPk(topic, subscription)).digest()[0] ?? 0) % BACKLOG_WAKE_SHARDS;

/** Whether a META is listed in the timer index: while it has a wake and is not idle. */
export const hasWake = (meta: BacklogMeta): meta is BacklogMeta & { wakeAt: number } =>
  meta.wakeAt !== undefined && meta.state !== 'idle';

const segmentItemSchema = backlogSegmentRefSchema.extend(itemAttributes('backlog-segment'));
const metaItemSchema = backlogMetaSchema.extend(itemAttributes('backlog-meta'));

const segmentKey = (
  ref: Pick<BacklogSegmentRef, 'topic' | 'subscription' | 'minDueAt' | 'segmentId'>,
): ItemKey => ({
  pk: backlogPk(ref.topic, ref.subscription),
  sk: backlogSegmentSk(ref.minDueAt, ref.segmentId),
});

/**
 * Writes `merged` (as `putSegment`), then deletes each of `replaced`: the merged segment is
 * complete before any part goes, so a crash in between leaves events twice, never none.
 */
export async function replaceSegments(
  store: Pick<BacklogStore, 'putSegment' | 'deleteSegment'>,
  merged: NewSegment,
  replaced: readonly BacklogSegmentRef[],
): Promise<BacklogSegmentRef> {
  const ref = await store.putSegment(merged);
  for (const old of replaced) {
    if (old.key !== ref.key) await store.deleteSegment(old);
  }
  return ref;
}

const parseSegmentItem = (item: Record<string, unknown>): BacklogSegmentRef =>
  withoutItemAttributes(parseItem(segmentItemSchema, item, 'backlog segment'));
const parseMetaItem = (item: Record<string, unknown>): BacklogMeta =>
  withoutItemAttributes(parseItem(metaItemSchema, item, 'backlog META'));

/** Backlogs' index items in the table, read without the bucket (what management may read). */
export class DynamoBacklogIndex implements BacklogIndexReader {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async getMeta(topic: string, subscription: string): Promise<BacklogMeta | undefined> {
    const item = await this.table.get(backlogMetaKey(topic, subscription), { consistent: true });
    return item === undefined ? undefined : parseMetaItem(item);
  }

  async overview(topic: string, subscription: string, uid: string | undefined): Promise<BacklogOverview> {
    // META (`#META`) and the index items (`SEG#...`) share the partition: one query reads both.
    const items = await this.table.queryAll({
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': backlogPk(topic, subscription) },
    });
    const metaItem = items.find((item) => item.sk === BACKLOG_META_SK);
    const segments = items
      .filter((item) => typeof item.sk === 'string' && item.sk.startsWith(BACKLOG_SEGMENT_SK_PREFIX))
      .map(parseSegmentItem)
      .filter((ref) => storedFor(ref, uid));
    return {
      meta: metaItem === undefined ? undefined : parseMetaItem(metaItem),
      summary: summaryOf(segments),
    };
  }
}

/** Backlogs in the table and the backlog bucket. */
/** A segment's index item as the table holds it. */
export const segmentItem = (ref: BacklogSegmentRef): Record<string, unknown> => ({
  ...segmentKey(ref),
  kind: 'backlog-segment',
  ...ref,
});

/**
 * A backlog's META item as the table holds it: listed in the timer index (gsi1) while it has a
 * wake, and forgotten some days after it went idle.
 */
export function metaItem(meta: BacklogMeta): Record<string, unknown> {
  const index = TOPICS_INDEX;
  return {
    ...backlogMetaKey(meta.topic, meta.subscription),
    kind: 'backlog-meta',
    ...meta,
    ...(hasWake(meta)
      ? {
          [index.partitionKey]: backlogWakePartition(wakeShardOf(meta.topic, meta.subscription)),
          [index.sortKey]: epochKey(meta.wakeAt),
        }
      : {}),
    ...(meta.state === 'idle'
      ? { [TABLE.ttlAttribute]: Math.ceil(meta.updatedAt / 1000) + IDLE_META_RETENTION_DAYS * 86_400 }
      : {}),
  };
}

export class DynamoBacklogStore implements BacklogStore {
  private readonly table: Table;
  private readonly index: DynamoBacklogIndex;

  constructor(
    doc: DynamoDBDocumentClient,
    tableName: string,
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {
    this.table = new Table(doc, tableName);
    this.index = new DynamoBacklogIndex(doc, tableName);
  }

  async putSegment(segment: NewSegment): Promise<BacklogSegmentRef> {
    const { text, ref } = encodeSegment(segment);
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: ref.key,
        Body: text,
        ContentType: 'application/x-ndjson',
      }),
    );
    const key = segmentKey(ref);
    const created = await this.table.putIf(segmentItem(ref), {
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    if (created) return ref;
    const stored = await this.table.get(key, { consistent: true });
    // Deleted between the write and the read: the segment was finished meanwhile.
    return stored === undefined ? ref : parseSegmentItem(stored);
  }

  async listSegments(
    topic: string,
    subscription: string,
    options: ListSegmentsOptions = {},
  ): Promise<BacklogSegmentRef[]> {
    const pk = backlogPk(topic, subscription);
    const items =
      options.dueBy === undefined
        ? await this.table.queryPartition(pk, BACKLOG_SEGMENT_SK_PREFIX)
        : await this.table.queryAll({
            ConsistentRead: true,
            // `SEG#<due by + 1 ms>` sorts after every `SEG#<due by>#<id>` and before later ones.
            // Keys hold due times rounded up, so a segment is listed once that whole ms is due.
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: {
              ':pk': pk,
              ':from': BACKLOG_SEGMENT_SK_PREFIX,
              ':to': `${BACKLOG_SEGMENT_SK_PREFIX}${epochKey(Math.floor(options.dueBy) + 1)}`,
            },
          });
    return items.map(parseSegmentItem);
  }

  async readSegment(ref: BacklogSegmentRef): Promise<StoredSegment> {
    const answer = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: ref.key }));
    const text = await answer.Body?.transformToString('utf8');
    if (text === undefined) throw new Error(`backlog segment ${ref.key} has no body`);
    return decodeSegment(ref.key, text);
  }

  async updateCheckpoint(ref: BacklogSegmentRef, checkpoint: BacklogCheckpoint): Promise<boolean> {
    const updated = await this.table.updateExisting(
      segmentKey(ref),
      'SET doneThrough = :through, doneAfter = :after',
      { ':through': checkpoint.doneThrough, ':after': [...checkpoint.doneAfter] },
    );
    return updated !== undefined;
  }

  async deleteSegment(ref: BacklogSegmentRef): Promise<void> {
    await this.table.delete(segmentKey(ref));
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: ref.key }));
  }

  getMeta(topic: string, subscription: string): Promise<BacklogMeta | undefined> {
    return this.index.getMeta(topic, subscription);
  }

  putMeta(meta: BacklogMeta, expectedToken: string | undefined): Promise<boolean> {
    return this.table.putIf(
      metaItem(meta),
      expectedToken === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: '#token = :token',
            ExpressionAttributeNames: { '#token': 'token' },
            ExpressionAttributeValues: { ':token': expectedToken },
          },
    );
  }

  deleteMeta(topic: string, subscription: string, expectedToken: string): Promise<boolean> {
    return this.table.deleteIf(backlogMetaKey(topic, subscription), {
      ConditionExpression: '#token = :token',
      ExpressionAttributeNames: { '#token': 'token' },
      ExpressionAttributeValues: { ':token': expectedToken },
    });
  }

  async summary(topic: string, subscription: string): Promise<BacklogSummary> {
    return summaryOf(await this.listSegments(topic, subscription));
  }

  overview(topic: string, subscription: string, uid: string | undefined): Promise<BacklogOverview> {
    return this.index.overview(topic, subscription, uid);
  }

  async wakesBy(until: number): Promise<BacklogMeta[]> {
    const index = TOPICS_INDEX;
    const shards = await Promise.all(
      Array.from({ length: BACKLOG_WAKE_SHARDS }, (_, shard) =>
        this.table.queryAll({
          IndexName: index.name,
          KeyConditionExpression: '#g = :partition AND #s <= :until',
          ExpressionAttributeNames: { '#g': index.partitionKey, '#s': index.sortKey },
          ExpressionAttributeValues: {
            ':partition': backlogWakePartition(shard),
            ':until': epochKey(Math.floor(until)),
          },
        }),
      ),
    );
    return shards
      .flat()
      .map(parseMetaItem)
      .sort((a, b) => (a.wakeAt ?? 0) - (b.wakeAt ?? 0));
  }
}

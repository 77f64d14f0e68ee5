/**
 * The attempt history's items (the message log's, see `attempt-history.ts`): how a job's records
 * are packed into items and read back out of them, and how partition keys and listed ids are made.
 *
 * Writes are packed: the records one delivery job produces for one subscription become one item
 * (more only when they would pass {@link MAX_PACKED_BYTES}), so a job of many events costs a write
 * unit per KiB of packed history rather than one per attempt.
 *
 * | attribute    | value                                                                          |
 * |--------------|--------------------------------------------------------------------------------|
 * | `pk`         | `HISTORY#<topic>#<subscription>#<UTC hour of the newest record>#<shard>`, e.g. `HISTORY#orders#audit#2026-11-23T03#2`; names in lower case, shard 0..shards-1 at random |
 * | `sk`         | `<at of the newest record, 15 digits>#<16 random hex digits>`                  |
 * | `kind`       | `attempts`                                                                     |
 * | `uid`        | the subscription's `uid` when the records were made; absent when it had none (or they were written before it was kept) |
 * | `ids`        | the item's distinct event ids as `\n<id>\n<id>\n` (see {@link idToken})        |
 * | `records`    | the records as gzip-compressed JSON (binary): an array of records without `topic`, `subscription`, `uid` and `eventId` (the key, `uid` and `ids` have them), each with `e`, its event's position in `ids`; an event's `eventJson` on its first record only |
 * | `count`      | how many records                                                               |
 * | `expiresAt`  | epoch seconds: the newest record's time plus the retention (DynamoDB TTL)      |
 *
 * The key names the subscription, not its `uid`: a subscription deleted and created again under
 * the same name writes to the same partitions as its predecessor did. Its reads keep only its own
 * records ({@link ownRecord}), so the predecessor's log, and resending from it, are gone for it;
 * the predecessor's items are left to age out with the retention (deleting them would mean
 * reading every hour and shard of the retention on each subscription delete).
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { TABLE } from '../config/resources';
import type { AttemptRecord } from '../domain/attempts';

export const DEFAULT_HISTORY_SHARDS = 4;
/**
 * Packed size (compressed records plus the `ids` text) above which a job's records are split
 * over several items; DynamoDB's item limit is 400 KB, this leaves room for keys and names.
 */
export const MAX_PACKED_BYTES = 300 * 1024;
/** Escaped event ids longer than this (UTF-8 bytes) are listed by their SHA-256. */
export const MAX_LISTED_ID_BYTES = 512;
/** An attempt's error text is kept up to this many characters. */
export const MAX_ERROR_CHARS = 4096;
/** Marks a hashed token; an escaped id never starts with a backslash and `h`. */
const HASHED = '\\h';

export const lower = (name: string) => name.toLowerCase();
/** An epoch-ms time as in a sort key: 15 digits. */
export const padAt = (at: number) => String(at).padStart(15, '0');
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The UTC hour of `at` as in a partition key: `2026-11-23T03`. */
export const hourOf = (at: number) => new Date(at).toISOString().slice(0, 13);

export const historyPk = (topic: string, subscription: string, hour: string, shard: number) =>
  `HISTORY#${lower(topic)}#${lower(subscription)}#${hour}#${shard}`;

/**
 * An event id as listed in `ids`: backslashes doubled and newlines written `\n`, so no listed id
 * holds the newline that separates them and different ids stay different. One whose escaped form
 * is over {@link MAX_LISTED_ID_BYTES} is listed as `\h<sha256 of the id>`, which no escaped id can
 * be (an escaped id's backslash is always followed by another backslash or `n`).
 */
export function idToken(eventId: string): string {
  const escaped = eventId.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
  return Buffer.byteLength(escaped, 'utf8') > MAX_LISTED_ID_BYTES ? `${HASHED}${sha256(eventId)}` : escaped;
}

/** The `ids` attribute: each event's token between newlines (the events are distinct). */
export const idsAttribute = (eventIds: readonly string[]) => `\n${eventIds.map(idToken).join('\n')}\n`;

/** What `contains(ids, :needle)` looks for: one whole listed id. */
export const idNeedle = (eventId: string) => `\n${idToken(eventId)}\n`;

/**
 * A record as packed: without `topic`, `subscription` and `uid` (the item's key and `uid` have
 * them), and with `e`, the position of its event in the item's `ids`, instead of `eventId` (each
 * id is kept once).
 */
type PackedRecord = Omit<AttemptRecord, 'topic' | 'subscription' | 'uid' | 'eventId'> & { e: number };

function packedRecord(record: AttemptRecord, e: number): PackedRecord {
  const { topic: _topic, subscription: _subscription, uid: _uid, eventId: _eventId, error, ...rest } = record;
  return {
    e,
    ...rest,
    ...(error === undefined
      ? {}
      : { error: error.length > MAX_ERROR_CHARS ? error.slice(0, MAX_ERROR_CHARS) : error }),
  };
}

/** An event's records as packed: its text (`eventJson`) kept on the first record that has it only. */
function packedRecords(records: readonly AttemptRecord[], e: number): PackedRecord[] {
  let textKept = false;
  return records.map((record) => {
    const packed = packedRecord(record, e);
    if (packed.eventJson === undefined) return packed;
    if (!textKept) {
      textKept = true;
      return packed;
    }
    const { eventJson: _eventJson, ...rest } = packed;
    return rest;
  });
}

export interface PackOptions {
  retentionDays: number;
  shards?: number;
  /** A shard number in 0..shards-1 (default: random). */
  shard?: (shards: number) => number;
  /** The random part of a sort key (default: 8 random bytes as hex). */
  suffix?: () => string;
  /** Split above this many packed bytes (default {@link MAX_PACKED_BYTES}). */
  maxPackedBytes?: number;
}

interface EventRecords {
  eventId: string;
  records: AttemptRecord[];
}

interface Packed {
  ids: string;
  data: Buffer;
  count: number;
  newestAt: number;
}

function encode(events: readonly EventRecords[]): Packed {
  const records = events.flatMap((event) => event.records);
  return {
    ids: idsAttribute(events.map((event) => event.eventId)),
    data: gzipSync(JSON.stringify(events.flatMap((event, e) => packedRecords(event.records, e)))),
    count: records.length,
    newestAt: records.reduce((newest, record) => Math.max(newest, record.at), Number.NEGATIVE_INFINITY),
  };
}

/** Packs events into one chunk, or halves them (and the halves) until each chunk fits `max`. */
function packChunks(events: readonly EventRecords[], max: number): Packed[] {
  const packed = encode(events);
  if (packed.data.length + Buffer.byteLength(packed.ids, 'utf8') <= max) return [packed];
  if (events.length > 1) {
    const half = Math.ceil(events.length / 2);
    return [...packChunks(events.slice(0, half), max), ...packChunks(events.slice(half), max)];
  }
  const only = events[0] as EventRecords;
  if (only.records.length <= 1) return [packed];
  const half = Math.ceil(only.records.length / 2);
  return [
    ...packChunks([{ eventId: only.eventId, records: only.records.slice(0, half) }], max),
    ...packChunks([{ eventId: only.eventId, records: only.records.slice(half) }], max),
  ];
}

/**
 * The items for `records`: one per (topic, subscription, uid), split only when one would hold
 * more than `maxPackedBytes`; an event's records stay together unless they alone are too many.
 */
export function packHistory(
  records: readonly AttemptRecord[],
  options: PackOptions,
): Record<string, unknown>[] {
  const shards = options.shards ?? DEFAULT_HISTORY_SHARDS;
  const shardOf = options.shard ?? ((count: number) => randomInt(count));
  const suffix = options.suffix ?? (() => randomBytes(8).toString('hex'));
  // Grouped by the partition's names: a lookup finds the group under either spelling.
  const groups = new Map<
    string,
    { topic: string; subscription: string; uid?: string; events: Map<string, AttemptRecord[]> }
  >();
  for (const record of records) {
    const key = JSON.stringify([lower(record.topic), lower(record.subscription), record.uid ?? null]);
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        topic: record.topic,
        subscription: record.subscription,
        ...(record.uid === undefined ? {} : { uid: record.uid }),
        events: new Map(),
      };
      groups.set(key, group);
    }
    const list = group.events.get(record.eventId);
    if (list === undefined) group.events.set(record.eventId, [record]);
    else list.push(record);
  }
  const items: Record<string, unknown>[] = [];
  for (const group of groups.values()) {
    const events = [...group.events.entries()].map(([eventId, list]) => ({ eventId, records: list }));
    for (const packed of packChunks(events, options.maxPackedBytes ?? MAX_PACKED_BYTES)) {
      items.push({
        pk: historyPk(group.topic, group.subscription, hourOf(packed.newestAt), shardOf(shards)),
        sk: `${padAt(packed.newestAt)}#${suffix()}`,
        kind: 'attempts',
        ...(group.uid === undefined ? {} : { uid: group.uid }),
        ids: packed.ids,
        records: packed.data,
        count: packed.count,
        [TABLE.ttlAttribute]: Math.ceil(packed.newestAt / 1000) + options.retentionDays * 86_400,
      });
    }
  }
  return items;
}

/** The item's `uid` as a record's member: none when the item has none. */
const uidOfItem = (item: Record<string, unknown>): { uid?: string } =>
  typeof item.uid === 'string' ? { uid: item.uid } : {};

/**
 * One event's records in a history item, with every field back as recorded: `topic` and
 * `subscription` (which the item leaves to its key) are the names the lookup was made with.
 */
export function recordsOfItem(
  item: Record<string, unknown>,
  topic: string,
  subscription: string,
  eventId: string,
): AttemptRecord[] {
  if (item.kind !== 'attempts' || typeof item.ids !== 'string' || !(item.records instanceof Uint8Array)) {
    return [];
  }
  const e = item.ids.slice(1, -1).split('\n').indexOf(idToken(eventId));
  if (e < 0) return [];
  const packed = JSON.parse(gunzipSync(item.records).toString('utf8')) as PackedRecord[];
  return packed
    .filter((record) => record.e === e)
    .map(({ e: _e, ...rest }) => ({
      topic,
      subscription,
      ...uidOfItem(item),
      eventId,
      ...rest,
    }));
}

/** Every record of a history item, with `topic` and `subscription` as the lookup names them. */
export function allRecordsOfItem(
  item: Record<string, unknown>,
  topic: string,
  subscription: string,
): AttemptRecord[] {
  if (item.kind !== 'attempts' || typeof item.ids !== 'string' || !(item.records instanceof Uint8Array)) {
    return [];
  }
  const ids = item.ids.slice(1, -1).split('\n');
  const packed = JSON.parse(gunzipSync(item.records).toString('utf8')) as PackedRecord[];
  return packed.map(({ e, ...rest }) => ({
    topic,
    subscription,
    ...uidOfItem(item),
    eventId: unescapedId(ids[e] ?? ''),
    ...rest,
  }));
}

/** A listed id back as the event's id (a hashed one stays its `\\h<sha256>` token). */
function unescapedId(token: string): string {
  if (token.startsWith(HASHED)) return token;
  return token.replace(/\\(\\|n)/g, (_match, escaped: string) => (escaped === 'n' ? '\n' : '\\'));
}

/** Whose log a read is: the subscription as read now (its names, `uid` and creation time). */
export interface HistoryOwner {
  topic: string;
  name: string;
  uid?: string | undefined;
  /** ISO time; absent: records without a uid are the owner's whatever their time. */
  createdAt?: string | undefined;
}

/**
 * Whether a record read under the owner's names is the owner's, rather than a predecessor's (a
 * subscription of the same name, deleted since). A record with a uid is the owner's when the owner
 * has the same uid. A record without one was made for a subscription without a uid, or before
 * records kept it: it is the owner's when it was made at or after the owner's creation, since a
 * predecessor's records all come before (its jobs are dropped once the successor exists). So a
 * subscription's log written before records kept the uid stays its own, and its predecessor's
 * does not become the successor's.
 */
export function ownRecord(owner: HistoryOwner, record: Pick<AttemptRecord, 'uid' | 'at'>): boolean {
  if (record.uid !== undefined) return record.uid === owner.uid;
  if (owner.createdAt === undefined) return true;
  const created = Date.parse(owner.createdAt);
  return !Number.isFinite(created) || record.at >= created;
}

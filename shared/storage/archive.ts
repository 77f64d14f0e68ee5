/**
 * The archive bucket: every event a topic with an archive accepted, kept as it is delivered, in
 * gzipped JSON Lines segments of many events each. A segment holds one topic's events of one hour
 * (the hour they were published in), so a replay of a time range reads only that range's hours:
 *
 *   archive/<topic>/<topic created, epoch ms>/<yyyy>/<MM>/<dd>/<HH>/<first>-<last>-<id>.jsonl.gz
 *
 * `<topic>` is the topic's id, lower-cased and URI-encoded (a namespace topic's `/` is `%2F`), and
 * the topic's creation time keeps a topic made again under the same name apart from its namesake.
 * `<first>` and `<last>` are the epoch ms (13 digits) of the segment's earliest and latest events,
 * so listings come sorted by time and a replay skips segments outside its range unread. One line
 * per event: `{"publishedAt","publishId","index","eventId","dataVersion","traceparent"?,"event"}`,
 * `event` being the event's JSON as sent.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { z } from 'zod';
import { ARCHIVE_BUCKET } from '../config/resources';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** One archived event as a segment holds it. */
export interface ArchivedRecord {
  readonly publishedAt: number;
  readonly publishId: string;
  readonly index: number;
  readonly eventId: string;
  readonly dataVersion: string;
  readonly traceparent?: string;
  /** The event's JSON as sent. */
  readonly event: string;
}

/** The topic an archive belongs to: its id and when it was made. */
export interface ArchivedTopic {
  readonly topic: string;
  readonly createdAt: string;
}

/** A segment as a listing names it. */
export interface SegmentInfo {
  readonly key: string;
  /** Epoch ms of its earliest and latest events. */
  readonly first: number;
  readonly last: number;
  readonly bytes: number;
}

export interface ArchiveStore {
  /** Writes one segment of one topic's events of one hour (sorted by time); answers its key. */
  putSegment(topic: ArchivedTopic, records: readonly ArchivedRecord[]): Promise<string>;
  /** The segments holding events published in [since, until), oldest first. */
  listSegments(topic: ArchivedTopic, since: number, until: number): Promise<SegmentInfo[]>;
  /**
   * A replay's next page: the first segment after `after` (a segment key; none: from the start)
   * holding events published in [since, until), in key order (by hour, then first event), with the
   * segments right after it whose events overlap theirs (written at the same time by two writers),
   * at most `limit` in all, so that a page sees every event of its stretch of time and can put
   * them in order. One listing from where the last left off, however long the range.
   */
  nextSegments(
    topic: ArchivedTopic,
    after: string | undefined,
    since: number,
    until: number,
    limit: number,
  ): Promise<SegmentInfo[]>;
  /** A segment's events, in time order. */
  readSegment(key: string): Promise<ArchivedRecord[]>;
  /** Deletes the topic's segments of the days that ended before `before`; answers how many. */
  deleteBefore(topic: ArchivedTopic, before: number): Promise<number>;
  /** Deletes every segment of the topic's archive; answers how many. */
  deleteTopic(topic: ArchivedTopic): Promise<number>;
  /** The archived topics with segments in the bucket (as their keys name them). */
  listTopics(): Promise<ArchivedTopic[]>;
}

/** A topic's folder: `archive/<topic>/<created ms>/`. */
export function topicPrefix({ topic, createdAt }: ArchivedTopic): string {
  const created = Date.parse(createdAt);
  if (!Number.isFinite(created))
    throw new Error(`an archived topic's creation time is not a date: ${createdAt}`);
  return `${ARCHIVE_BUCKET.prefix}${encodeURIComponent(topic.toLowerCase())}/${created}/`;
}

const pad = (value: number, digits = 2) => String(value).padStart(digits, '0');

/** A day's folder under a topic's: `<yyyy>/<MM>/<dd>/`. */
const dayFolder = (at: number): string => {
  const date = new Date(at);
  return `${date.getUTCFullYear()}/${pad(date.getUTCMonth() + 1)}/${pad(date.getUTCDate())}/`;
};

/** The start of the hour `at` falls in. */
export const hourOf = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS;

/** The key of a segment whose events (all of one hour) run from `first` to `last`. */
export function segmentKey(
  topic: ArchivedTopic,
  first: number,
  last: number,
  id: string = randomUUID(),
): string {
  if (hourOf(first) !== hourOf(last)) throw new Error('a segment holds the events of one hour');
  return `${topicPrefix(topic)}${dayFolder(first)}${pad(new Date(first).getUTCHours())}/${pad(first, 13)}-${pad(last, 13)}-${id}.jsonl.gz`;
}

const SEGMENT_NAME = /\/(\d{13})-(\d{13})-[^/]+\.jsonl\.gz$/;

/** The time range a segment's key names; `undefined` for a key that is not a segment's. */
export function segmentRange(key: string): { first: number; last: number } | undefined {
  const match = SEGMENT_NAME.exec(key);
  if (match === null) return undefined;
  return { first: Number(match[1]), last: Number(match[2]) };
}

const EVENT_MEMBER = ',"event":';

/** One event's line: its JSON spliced in as sent, not parsed and written again. */
export function recordLine(record: ArchivedRecord): string {
  const head = {
    publishedAt: record.publishedAt,
    publishId: record.publishId,
    index: record.index,
    eventId: record.eventId,
    dataVersion: record.dataVersion,
    ...(record.traceparent === undefined ? {} : { traceparent: record.traceparent }),
  };
  return `${JSON.stringify(head).slice(0, -1)}${EVENT_MEMBER}${record.event}}`;
}

const lineSchema = z.object({
  publishedAt: z.number(),
  publishId: z.string(),
  index: z.number(),
  eventId: z.string(),
  dataVersion: z.string(),
  traceparent: z.string().optional(),
  event: z.unknown(),
});

/** A segment's text read back into its records; throws naming the line that is not one. */
export function parseSegment(text: string, key = 'a segment'): ArchivedRecord[] {
  const records: ArchivedRecord[] = [];
  text.split('\n').forEach((line, number) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new Error(`line ${number + 1} of ${key} is not JSON: ${(error as Error).message}`);
    }
    const parsed = lineSchema.safeParse(json);
    if (!parsed.success) throw new Error(`line ${number + 1} of ${key} is not an archived event`);
    const { event: _event, traceparent, ...rest } = parsed.data;
    // The event's text as it was spliced in (no quote can open `,"event":` inside a JSON string,
    // so its first occurrence is the member's): sent again byte for byte.
    const at = line.indexOf(EVENT_MEMBER);
    records.push({
      ...rest,
      ...(traceparent === undefined ? {} : { traceparent }),
      event: line.slice(at + EVENT_MEMBER.length, line.lastIndexOf('}')),
    });
  });
  return records;
}

/** Orders records by publish time, then publish, then position in it. */
export const byPublishOrder = (a: ArchivedRecord, b: ArchivedRecord): number =>
  a.publishedAt - b.publishedAt || a.publishId.localeCompare(b.publishId) || a.index - b.index;

export class ArchiveBucket implements ArchiveStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async putSegment(topic: ArchivedTopic, records: readonly ArchivedRecord[]): Promise<string> {
    const sorted = [...records].sort(byPublishOrder);
    const first = sorted[0];
    const last = sorted.at(-1);
    if (first === undefined || last === undefined) throw new Error('a segment holds at least one event');
    const key = segmentKey(topic, first.publishedAt, last.publishedAt);
    const body = gzipSync(`${sorted.map(recordLine).join('\n')}\n`);
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentType: 'application/x-ndjson',
        ContentEncoding: 'gzip',
      }),
    );
    return key;
  }

  async listSegments(topic: ArchivedTopic, since: number, until: number): Promise<SegmentInfo[]> {
    const segments: SegmentInfo[] = [];
    const prefix = topicPrefix(topic);
    for (let day = Math.floor(since / DAY_MS) * DAY_MS; day < until; day += DAY_MS) {
      for (const object of await this.listAll(`${prefix}${dayFolder(day)}`)) {
        const range = object.Key === undefined ? undefined : segmentRange(object.Key);
        if (range === undefined || range.last < since || range.first >= until) continue;
        segments.push({ key: object.Key as string, ...range, bytes: object.Size ?? 0 });
      }
    }
    return segments.sort((a, b) => a.first - b.first || a.key.localeCompare(b.key));
  }

  async nextSegments(
    topic: ArchivedTopic,
    after: string | undefined,
    since: number,
    until: number,
    limit: number,
  ): Promise<SegmentInfo[]> {
    const prefix = topicPrefix(topic);
    // Keys sort by hour: nothing before the hour `since` falls in can hold its events.
    const start = `${prefix}${dayFolder(since)}${pad(new Date(since).getUTCHours())}/`;
    let startAfter = after !== undefined && after > start ? after : start;
    const run = new OverlappingRun(since, until, limit);
    for (;;) {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          StartAfter: startAfter,
          MaxKeys: 1000,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined && !run.take(object.Key, object.Size ?? 0)) return run.segments;
      }
      const last = page.Contents?.at(-1)?.Key;
      if (page.IsTruncated !== true || last === undefined) return run.segments;
      startAfter = last;
    }
  }

  async readSegment(key: string): Promise<ArchivedRecord[]> {
    const answer = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const bytes = await answer.Body?.transformToByteArray();
    if (bytes === undefined) throw new Error(`the archive segment ${key} has no body`);
    return parseSegment(gunzipSync(bytes).toString('utf8'), key);
  }

  async deleteBefore(topic: ArchivedTopic, before: number): Promise<number> {
    const prefix = topicPrefix(topic);
    const expired: string[] = [];
    for (const object of await this.listAll(prefix)) {
      const range = object.Key === undefined ? undefined : segmentRange(object.Key);
      // A whole day goes at once: a segment goes once its day has ended before `before`.
      if (range !== undefined && Math.floor(range.first / DAY_MS) * DAY_MS + DAY_MS <= before) {
        expired.push(object.Key as string);
      }
    }
    return this.deleteKeys(expired);
  }

  async deleteTopic(topic: ArchivedTopic): Promise<number> {
    const keys = (await this.listAll(topicPrefix(topic))).flatMap((object) =>
      object.Key === undefined ? [] : [object.Key],
    );
    return this.deleteKeys(keys);
  }

  async listTopics(): Promise<ArchivedTopic[]> {
    const topics: ArchivedTopic[] = [];
    for (const topicFolder of await this.folders(ARCHIVE_BUCKET.prefix)) {
      const topic = decodeURIComponent(topicFolder.slice(ARCHIVE_BUCKET.prefix.length, -1));
      for (const createdFolder of await this.folders(topicFolder)) {
        const created = Number(createdFolder.slice(topicFolder.length, -1));
        if (Number.isFinite(created)) topics.push({ topic, createdAt: new Date(created).toISOString() });
      }
    }
    return topics;
  }

  private async deleteKeys(keys: readonly string[]): Promise<number> {
    for (let start = 0; start < keys.length; start += 1000) {
      const chunk = keys.slice(start, start + 1000);
      const answer = await this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = answer.Errors ?? [];
      if (failed.length > 0) {
        throw new Error(
          `could not delete ${failed.length} archive segments: ${failed[0]?.Code ?? '?'} ${failed[0]?.Message ?? ''}`.trim(),
        );
      }
    }
    return keys.length;
  }

  private async listAll(prefix: string) {
    const objects: { Key?: string; Size?: number }[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      objects.push(...(page.Contents ?? []));
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return objects;
  }

  private async folders(prefix: string): Promise<string[]> {
    const folders: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      );
      for (const folder of page.CommonPrefixes ?? [])
        if (folder.Prefix !== undefined) folders.push(folder.Prefix);
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return folders;
  }
}

/**
 * Segments taken in key order for a replay's page: the first in [since, until), then those that
 * overlap the run so far, up to `limit`.
 */
export class OverlappingRun {
  readonly segments: SegmentInfo[] = [];
  private lastAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly since: number,
    private readonly until: number,
    private readonly limit: number,
  ) {}

  /** Takes the segment `key` if it belongs to the run; false once nothing after it can. */
  take(key: string, bytes: number): boolean {
    const range = segmentRange(key);
    if (range === undefined) return true;
    // Past the range's last hour: nothing later can hold its events.
    if (hourOf(range.first) >= this.until) return false;
    if (range.last < this.since || range.first >= this.until) return this.segments.length === 0;
    if (this.segments.length > 0 && range.first > this.lastAt) return false;
    this.segments.push({ key, ...range, bytes });
    this.lastAt = Math.max(this.lastAt, range.last);
    return this.segments.length < this.limit;
  }
}

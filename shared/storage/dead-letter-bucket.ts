/**
 * The dead-letter bucket: blobs written by the dead-letter step, listed, read and marked as
 * replayed by the operator tools. Keys come from `delivery/rules/dead-letter-layout.ts`.
 *
 * A replay is recorded in a marker object beside the blob (`<key>.replayed`, holding
 * `{"at":"<ISO time>","reasons":[...]}`: when, and the dead-letter reasons whose records were
 * replayed), not in an object tag: the local S3 emulator (fauxqs 1.9) has no object tagging and
 * answers PutObjectTagging by overwriting the blob with the tagging document. A marker works the
 * same on AWS and locally, needs only s3:GetObject and s3:PutObject, and shows in a listing, so
 * a list of blobs knows which were replayed without a request per blob. Listings skip markers
 * (only `.json` keys are blobs). Markers written before reasons were recorded hold just the ISO
 * time; they count as covering every reason.
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { z } from 'zod';
import { type ReplayMarkerDocument, replayMarkerSchema } from '../domain/model';

/**
 * The user metadata naming the topic whose subscription wrote a blob (`x-amz-meta-gridwire-topic`:
 * the subscription's topic, `<namespace>/<topic>` for namespace topics). Classic keys carry no
 * topic (`<container>/<SUBSCRIPTION>/...`, the original's layout), so this stamp is what tells
 * two topics' subscriptions of the same name apart; blobs written before it have none.
 */
export const TOPIC_METADATA = 'gridwire-topic';

/**
 * The user metadata naming the uid of the subscription that wrote a blob
 * (`x-amz-meta-gridwire-subscription-uid`): a subscription deleted and created again under the
 * same name writes under the same prefix, and this tells its blobs from its predecessor's.
 */
export const SUBSCRIPTION_UID_METADATA = 'gridwire-subscription-uid';

/**
 * What a blob says about who wrote it and when: the topic and subscription uid stamped on it
 * (absent on blobs written before those stamps) and when S3 stored it (epoch ms).
 */
export interface DeadLetterBlobStamp {
  topic?: string;
  uid?: string;
  writtenAt?: number;
}

/** The stamp of an object's metadata and time, as S3 answers a GET or a HEAD. */
const stampOfObject = (metadata: Record<string, string> | undefined, lastModified: Date | undefined) => {
  const topic = metadata?.[TOPIC_METADATA];
  const uid = metadata?.[SUBSCRIPTION_UID_METADATA];
  return {
    ...(topic === undefined ? {} : { topic }),
    ...(uid === undefined ? {} : { uid }),
    ...(lastModified === undefined ? {} : { writtenAt: lastModified.getTime() }),
  };
};

/** One hour folder of a subscription's dead letters: its key prefix and the hour's start (epoch ms). */
export interface DeadLetterHourFolder {
  prefix: string;
  hourStart: number;
}

const HOUR_MS = 3_600_000;
/** How much later than its key's time a blob's write may land (and S3 date it). */
const WRITE_SLACK_MS = 15 * 60_000;

/** A blob's text and its stamp. */
export interface DeadLetterBlobRead extends DeadLetterBlobStamp {
  text: string;
}

const isMissing = (error: unknown) =>
  error instanceof NoSuchKey || ['NoSuchKey', 'NotFound'].includes((error as { name?: string }).name ?? '');

/**
 * The dead-letter destination does not exist (S3 answered `NoSuchBucket`): not an outage that
 * waiting could end, so the dead-letter step drops what it was to write (the original drops dead
 * letters whose destination isn't found) instead of trying for 4 hours.
 */
export class DeadLetterDestinationNotFound extends Error {
  override readonly name = 'DeadLetterDestinationNotFound';

  constructor(
    readonly bucketName: string,
    cause: unknown,
  ) {
    super(`the dead-letter bucket ${bucketName} does not exist`, { cause });
  }
}

/** Appended to a blob's key to name its replay marker. */
export const REPLAYED_MARKER_SUFFIX = '.replayed';

/** The key of the marker object that records when `key` was last replayed. */
export const replayedMarkerKey = (key: string): string => `${key}${REPLAYED_MARKER_SUFFIX}`;

/** What a blob's replay marker says. */
export interface ReplayMarker {
  /** Epoch ms of the last replay. */
  at: number;
  /**
   * The dead-letter reasons whose records were replayed (over all replays); `undefined` for every
   * reason (a marker from before reasons were recorded).
   */
  reasons?: string[];
}

/**
 * A stored marker read field by field: a field that is missing or not of its shape is left out,
 * so a damaged marker still reads (its time as the object's, its reasons as every reason).
 */
const storedReplayMarkerSchema = z.object({
  at: replayMarkerSchema.shape.at.optional().catch(undefined),
  reasons: replayMarkerSchema.shape.reasons.optional().catch(undefined),
});

/** `text` as epoch ms, or `fallback` when it is not a time. */
const timeOr = (text: string, fallback: number): number => {
  const at = Date.parse(text);
  return Number.isNaN(at) ? fallback : at;
};

/**
 * A marker's content: `{"at":..,"reasons":[..]}`, or (older markers) just the ISO time. A time
 * that cannot be read counts as `lastModified`; content that is not a marker of reasons counts as
 * covering every reason.
 */
export function parseReplayMarker(text: string, lastModified: number): ReplayMarker {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return { at: timeOr(trimmed, lastModified) };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { at: lastModified };
  }
  const parsed = storedReplayMarkerSchema.safeParse(json);
  if (!parsed.success) return { at: lastModified };
  const { at, reasons } = parsed.data;
  return {
    at: at === undefined ? lastModified : timeOr(at, lastModified),
    ...(reasons === undefined ? {} : { reasons }),
  };
}

/** A marker's content for a replay at `at` (epoch ms) of the records of these reasons. */
export const replayMarkerText = (at: number, reasons: readonly string[]): string =>
  JSON.stringify({
    at: new Date(at).toISOString(),
    reasons: [...new Set(reasons)].sort(),
  } satisfies ReplayMarkerDocument);

export interface DeadLetterBlobInfo {
  key: string;
  /** Epoch ms the blob was written. */
  writtenAt: number;
  bytes: number;
  /** Whether the blob has a replay marker (when: {@link DeadLetterBucket.replayedAt}). */
  replayed: boolean;
}

export class DeadLetterBucket {
  constructor(
    private readonly s3: S3Client,
    readonly bucketName: string,
  ) {}

  /**
   * Writes one blob (a JSON array of records), stamped with the topic and uid of the subscription
   * whose records it holds. Rejects if the bucket cannot be written: with a
   * {@link DeadLetterDestinationNotFound} when the bucket does not exist.
   */
  async put(key: string, body: string, topic?: string, uid?: string): Promise<void> {
    const metadata = {
      ...(topic === undefined ? {} : { [TOPIC_METADATA]: topic }),
      ...(uid === undefined ? {} : { [SUBSCRIPTION_UID_METADATA]: uid }),
    };
    try {
      await this.s3.send(
        new PutObjectCommand({
          Bucket: this.bucketName,
          Key: key,
          Body: body,
          ContentType: 'application/json; charset=utf-8',
          ...(Object.keys(metadata).length === 0 ? {} : { Metadata: metadata }),
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchBucket') {
        throw new DeadLetterDestinationNotFound(this.bucketName, error);
      }
      throw error;
    }
  }

  /** The numbered folders right under `prefix` (`<prefix><n>/`), largest first. */
  private async folderNumbers(prefix: string): Promise<number[]> {
    const numbers: number[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.bucketName,
          Prefix: prefix,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      );
      for (const folder of page.CommonPrefixes ?? []) {
        const name = folder.Prefix?.slice(prefix.length, -1) ?? '';
        if (/^\d{1,4}$/.test(name)) numbers.push(Number(name));
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return numbers.sort((a, b) => b - a);
  }

  /**
   * The hour folders under a subscription's `prefix` (`<yyyy>/<M>/<d>/<H>/`, the layout's), newest
   * first, whose hour overlaps [since, until): found level by level, one listing of a folder's
   * subfolders per folder opened, so the newest are reached without reading the older ones.
   */
  async *hourFolders(
    prefix: string,
    window: { since?: number; until?: number } = {},
  ): AsyncGenerator<DeadLetterHourFolder> {
    // A blob's folder is the hour its writer named it in; S3 dates it when the write lands, which
    // may be a little later, so a folder that ends shortly before `since` is still looked in.
    const overlaps = (start: number, end: number) =>
      (window.since === undefined || end + WRITE_SLACK_MS > window.since) &&
      (window.until === undefined || start < window.until);
    for (const year of await this.folderNumbers(prefix)) {
      if (!overlaps(Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1))) continue;
      for (const month of await this.folderNumbers(`${prefix}${year}/`)) {
        if (!overlaps(Date.UTC(year, month - 1, 1), Date.UTC(year, month, 1))) continue;
        for (const day of await this.folderNumbers(`${prefix}${year}/${month}/`)) {
          if (!overlaps(Date.UTC(year, month - 1, day), Date.UTC(year, month - 1, day + 1))) continue;
          for (const hour of await this.folderNumbers(`${prefix}${year}/${month}/${day}/`)) {
            const start = Date.UTC(year, month - 1, day, hour);
            if (!overlaps(start, start + HOUR_MS)) continue;
            yield { prefix: `${prefix}${year}/${month}/${day}/${hour}/`, hourStart: start };
          }
        }
      }
    }
  }

  /** Blobs under `prefix` written in [since, until), newest first. */
  async list(prefix: string, window: { since?: number; until?: number } = {}): Promise<DeadLetterBlobInfo[]> {
    const blobs: DeadLetterBlobInfo[] = [];
    const markers = new Set<string>();
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucketName, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key?.endsWith(`.json${REPLAYED_MARKER_SUFFIX}`) === true) markers.add(object.Key);
        if (object.Key === undefined || !object.Key.endsWith('.json')) continue;
        const writtenAt = object.LastModified?.getTime() ?? 0;
        if (window.since !== undefined && writtenAt < window.since) continue;
        if (window.until !== undefined && writtenAt >= window.until) continue;
        blobs.push({ key: object.Key, writtenAt, bytes: object.Size ?? 0, replayed: false });
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    for (const blob of blobs) blob.replayed = markers.has(replayedMarkerKey(blob.key));
    return blobs.sort((a, b) => b.writtenAt - a.writtenAt || b.key.localeCompare(a.key));
  }

  /** A blob's text, or `undefined` if there is no such blob. */
  async get(key: string): Promise<string | undefined> {
    return (await this.read(key))?.text;
  }

  /** A blob's text with its stamp, or `undefined` if there is no such blob. */
  async read(key: string): Promise<DeadLetterBlobRead | undefined> {
    try {
      const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucketName, Key: key }));
      const text = (await object.Body?.transformToString('utf-8')) ?? '';
      return { text, ...stampOfObject(object.Metadata, object.LastModified) };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /**
   * A blob's stamp without its text (no topic or uid on a blob written before stamps), or
   * `undefined` if there is no such blob.
   */
  async stampOf(key: string): Promise<DeadLetterBlobStamp | undefined> {
    try {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucketName, Key: key }));
      return stampOfObject(head.Metadata, head.LastModified);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** The blob's replay marker; `undefined` if it was never replayed. */
  async replayMarker(key: string): Promise<ReplayMarker | undefined> {
    try {
      const object = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucketName, Key: replayedMarkerKey(key) }),
      );
      const text = (await object.Body?.transformToString('utf-8')) ?? '';
      return parseReplayMarker(text, object.LastModified?.getTime() ?? 0);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** When the blob was last replayed (epoch ms), from its marker; `undefined` if it never was. */
  async replayedAt(key: string): Promise<number | undefined> {
    return (await this.replayMarker(key))?.at;
  }

  /**
   * Records that the records of `reasons` in the blob were replayed at `at` (epoch ms), replacing
   * an earlier marker (the caller merges the earlier reasons in).
   */
  async markReplayed(key: string, at: number, reasons: readonly string[]): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucketName,
        Key: replayedMarkerKey(key),
        Body: replayMarkerText(at, reasons),
        ContentType: 'application/json; charset=utf-8',
      }),
    );
  }
}

/**
 * The dead-letter bucket: blobs written by the dead-letter step, listed, read and marked as
 * replayed by the operator tools. Keys come from `delivery/rules/dead-letter-layout.ts`.
 *
 * A replay is recorded in a marker object beside the blob (`<key>.replayed`, holding the ISO
 * time), not in an object tag: the local S3 emulator (fauxqs 1.9) has no object tagging and
 * answers PutObjectTagging by overwriting the blob with the tagging document. A marker works the
 * same on AWS and locally, needs only s3:GetObject and s3:PutObject, and shows in a listing, so
 * a list of blobs knows which were replayed without a request per blob. Listings skip markers
 * (only `.json` keys are blobs).
 */
import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

/** Appended to a blob's key to name its replay marker. */
export const REPLAYED_MARKER_SUFFIX = '.replayed';

/** The key of the marker object that records when `key` was last replayed. */
export const replayedMarkerKey = (key: string): string => `${key}${REPLAYED_MARKER_SUFFIX}`;

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

  /** Writes one blob (a JSON array of records). Rejects if the bucket cannot be written. */
  async put(key: string, body: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucketName,
        Key: key,
        Body: body,
        ContentType: 'application/json; charset=utf-8',
      }),
    );
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
    try {
      const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucketName, Key: key }));
      return (await object.Body?.transformToString('utf-8')) ?? '';
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /**
   * When the blob was last replayed (epoch ms), from its marker; `undefined` if it never was. A
   * marker whose content is not a time counts as written when the marker was.
   */
  async replayedAt(key: string): Promise<number | undefined> {
    try {
      const object = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucketName, Key: replayedMarkerKey(key) }),
      );
      const at = Date.parse(((await object.Body?.transformToString('utf-8')) ?? '').trim());
      return Number.isNaN(at) ? (object.LastModified?.getTime() ?? 0) : at;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /** Records that the blob was replayed at `at` (epoch ms), replacing an earlier record. */
  async markReplayed(key: string, at: number): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucketName,
        Key: replayedMarkerKey(key),
        Body: new Date(at).toISOString(),
        ContentType: 'text/plain; charset=utf-8',
      }),
    );
  }
}

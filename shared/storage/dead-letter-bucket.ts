/**
 * The dead-letter bucket: blobs written by the dead-letter step, listed, read and marked as
 * replayed by the operator tools. Keys come from `delivery/rules/dead-letter-layout.ts`.
 */
import {
  GetObjectCommand,
  GetObjectTaggingCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  PutObjectTaggingCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

/** The object tag that records when a blob was last replayed (ISO time). */
export const REPLAYED_TAG = 'gridwire-replayed-at';

export interface DeadLetterBlobInfo {
  key: string;
  /** Epoch ms the blob was written. */
  writtenAt: number;
  bytes: number;
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
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucketName, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || !object.Key.endsWith('.json')) continue;
        const writtenAt = object.LastModified?.getTime() ?? 0;
        if (window.since !== undefined && writtenAt < window.since) continue;
        if (window.until !== undefined && writtenAt >= window.until) continue;
        blobs.push({ key: object.Key, writtenAt, bytes: object.Size ?? 0 });
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
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

  /** When the blob was last replayed (epoch ms), from its tag. */
  async replayedAt(key: string): Promise<number | undefined> {
    const { TagSet } = await this.s3.send(new GetObjectTaggingCommand({ Bucket: this.bucketName, Key: key }));
    const value = TagSet?.find((tag) => tag.Key === REPLAYED_TAG)?.Value;
    return value === undefined ? undefined : Date.parse(value);
  }

  /** Records that the blob was replayed at `at`. */
  async markReplayed(key: string, at: number): Promise<void> {
    await this.s3.send(
      new PutObjectTaggingCommand({
        Bucket: this.bucketName,
        Key: key,
        Tagging: { TagSet: [{ Key: REPLAYED_TAG, Value: new Date(at).toISOString() }] },
      }),
    );
  }
}

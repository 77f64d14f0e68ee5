/**
 * The fan-out bucket: the bodies of publishes whose fan-out is too large for one SQS message.
 * The publisher stores the body first and then sends one message naming it, so the message alone
 * decides whether the publish was queued: a body whose message was never sent is never read, and
 * the bucket's lifecycle rule removes it (and every other body) after `FAN_OUT_BUCKET.retentionDays`,
 * longer than a parked message is kept, so a message moved back from its redrive queue still
 * finds its body. (The local emulator has no lifecycle rules: locally, bodies stay.)
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

export interface FanOutStore {
  /** Resolves once the body is durably stored under `key`. */
  put(key: string, body: string): Promise<void>;
  /** The body stored under `key`; rejects when it can't be read. */
  get(key: string): Promise<string>;
}

/** The key a publish's fan-out is stored under: by day, then the publish's id. */
export const fanOutKey = (publishedAt: number, publishId: string): string =>
  `fanouts/${new Date(publishedAt).toISOString().slice(0, 10)}/${publishId}.json`;

export class FanOutBucket implements FanOutStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: 'application/json' }),
    );
  }

  async get(key: string): Promise<string> {
    const answer = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const text = await answer.Body?.transformToString('utf8');
    if (text === undefined) throw new Error(`the stored fan-out ${key} has no body`);
    return text;
  }
}

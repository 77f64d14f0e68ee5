/**
 * The buckets dead letters are written to: the stack's own, and the buckets subscriptions name
 * (`deadLetterDestination.properties.resourceId`, allowed by the deployer's `deadLetterBuckets`),
 * each reached with the function's own credentials or, for a bucket in another account, a role
 * it assumes. One {@link DeadLetterBucket} per bucket, role and external id, made when first
 * asked for.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { DeadLetterBucket } from './dead-letter-bucket';

/** Where a subscription's dead letters are: a bucket (absent: the stack's), and how it is reached. */
export interface DeadLetterBucketRef {
  bucket?: string;
  roleArn?: string;
  externalId?: string;
}

/** An S3 client with the function's credentials (no role) or a role's (and its external id). */
export type S3ClientFor = (roleArn?: string, externalId?: string) => S3Client;

/** The stack's own bucket and the named ones. */
export class DeadLetterBuckets {
  private readonly named = new Map<string, DeadLetterBucket>();

  constructor(
    /** The stack's own dead-letter bucket. */
    readonly own: DeadLetterBucket,
    private readonly s3For: S3ClientFor,
  ) {}

  /** The bucket `ref` names, reached as it says; the stack's own when it names none. */
  of(ref: DeadLetterBucketRef): DeadLetterBucket {
    if (ref.bucket === undefined) return this.own;
    const key = JSON.stringify([
      ref.bucket,
      ref.roleArn ?? null,
      ref.roleArn === undefined ? null : ref.externalId,
    ]);
    let bucket = this.named.get(key);
    if (bucket === undefined) {
      bucket = new DeadLetterBucket(this.s3For(ref.roleArn, ref.externalId), ref.bucket);
      this.named.set(key, bucket);
    }
    return bucket;
  }
}

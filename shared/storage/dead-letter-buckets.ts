/**
 * The buckets dead letters are written to: the stack's own, and the buckets subscriptions name
 * (`deadLetterDestination.properties.resourceId`, allowed by the deployer's `deadLetterBuckets`),
 * each reached with the function's own credentials or, for a bucket in another account, a role
 * it assumes. One S3 client per role and external id, one {@link DeadLetterBucket} per bucket
 * besides, each made when first asked for.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { DeadLetterBucket } from './dead-letter-bucket';

/** Where a subscription's dead letters are: a bucket (absent: the stack's), and how it is reached. */
export interface DeadLetterBucketRef {
  bucket?: string;
  roleArn?: string;
  externalId?: string;
}

/** A bucket a subscription names, and how it is reached. */
export type NamedBucketRef = DeadLetterBucketRef & { bucket: string };

/** An S3 client with the function's credentials (no role) or a role's (and its external id). */
export type S3ClientFor = (roleArn?: string, externalId?: string) => S3Client;

/**
 * The bucket `ref` names, from `named`; the stack's `own` when it names none. Throws when it names
 * one and this function has no way to named buckets.
 */
export function bucketFor<B>(
  ref: DeadLetterBucketRef,
  own: B,
  named: ((ref: NamedBucketRef) => B) | undefined,
): B {
  const { bucket } = ref;
  if (bucket === undefined) return own;
  if (named === undefined) {
    throw new Error(
      `the dead-letter bucket ${bucket} cannot be reached by this function (no named buckets are set up)`,
    );
  }
  return named({ ...ref, bucket });
}

/** The buckets subscriptions name, made when first asked for and kept. */
export class NamedDeadLetterBuckets {
  private readonly clients = new Map<string, S3Client>();
  private readonly buckets = new Map<string, DeadLetterBucket>();

  constructor(private readonly s3For: S3ClientFor) {}

  /** The bucket `ref` names, reached as it says. */
  of(ref: NamedBucketRef): DeadLetterBucket {
    const reach = JSON.stringify([
      ref.roleArn ?? null,
      ref.roleArn === undefined ? null : (ref.externalId ?? null),
    ]);
    const key = JSON.stringify([ref.bucket, reach]);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      let client = this.clients.get(reach);
      if (client === undefined) {
        client = this.s3For(ref.roleArn, ref.roleArn === undefined ? undefined : ref.externalId);
        this.clients.set(reach, client);
      }
      bucket = new DeadLetterBucket(client, ref.bucket);
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}

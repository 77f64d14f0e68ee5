/**
 * A subscription body's dead-letter destination from the command line's flags, over what `update`
 * read: a container (`--deadletter-container`), in the stack's own bucket or one the subscriber
 * names (`--deadletter-bucket`, its ARN as `resourceId`), written through a role of another account
 * (`--deadletter-role-arn`, `--deadletter-external-id`). The flags given replace those fields; the
 * others are kept from the destination the subscription has. `--no-deadletter-bucket` returns to
 * the stack's own bucket (the role and external id go with it); `--no-deadletter-role-arn` writes
 * with the stack's own credentials again (its external id goes with it).
 */
import { InvalidArgumentError } from 'commander';
import type { SubscriptionFlags } from './flags';

type Json = Record<string, unknown>;

const S3_BUCKET_ARN = 'arn:aws:s3:::';

/** An S3 bucket's ARN, in any partition the API takes (its name checked there): the name is the rest. */
const BUCKET_ARN = /^arn:(aws|aws-cn|aws-us-gov):s3:::(.+)$/;

/** An S3 bucket name: 3 to 63 lower-case letters, digits, dots and hyphens, a letter or digit at each end. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Whether `resourceId` names an S3 bucket (otherwise it is kept for familiarity only). */
export const isBucketArn = (resourceId: unknown): resourceId is string =>
  typeof resourceId === 'string' && BUCKET_ARN.test(resourceId);

/** The bucket's name in its ARN. */
export const bucketNameOf = (arn: string): string => BUCKET_ARN.exec(arn)?.[2] ?? arn;

/**
 * `--deadletter-bucket`: a bucket name becomes its ARN (`arn:aws:s3:::<name>`); an S3 bucket ARN
 * (`arn:aws:s3:::`, or the `aws-cn` and `aws-us-gov` partitions') is taken as it is (the API checks
 * it and that the stack allows it); anything else is refused.
 */
export function deadLetterBucketArgument(value: string): string {
  const flag = '--deadletter-bucket';
  if (value.startsWith('arn:')) {
    if (!isBucketArn(value)) {
      throw new InvalidArgumentError(`${flag}: '${value}' is not an S3 bucket ARN (arn:aws:s3:::<bucket>).`);
    }
    return value;
  }
  if (value.trim() === '') {
    throw new InvalidArgumentError(
      `${flag}: give a bucket name or ARN; --no-deadletter-bucket writes to the stack's own bucket again.`,
    );
  }
  if (!BUCKET_NAME.test(value)) {
    throw new InvalidArgumentError(
      `${flag}: '${value}' is neither an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens) nor a bucket ARN (arn:aws:s3:::<bucket>).`,
    );
  }
  return `${S3_BUCKET_ARN}${value}`;
}

/** A kept field's value: a string, or absent (a document may show `null` for none). */
const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The dead-letter flags given, as `--help` names them. */
const givenFlags = (flags: SubscriptionFlags): string[] =>
  [
    flags.deadletterBucket === undefined
      ? undefined
      : flags.deadletterBucket === false
        ? '--no-deadletter-bucket'
        : '--deadletter-bucket',
    flags.deadletterRoleArn === undefined
      ? undefined
      : flags.deadletterRoleArn === false
        ? '--no-deadletter-role-arn'
        : '--deadletter-role-arn',
    flags.deadletterExternalId === undefined
      ? undefined
      : flags.deadletterExternalId === false
        ? '--no-deadletter-external-id'
        : '--deadletter-external-id',
  ].filter((name) => name !== undefined);

/**
 * The dead-letter destination: `base` (the one `update` read; absent or `null`: none) with the
 * dead-letter flags given over it; `base` itself when none is given.
 */
export function deadLetterDestinationOf(flags: SubscriptionFlags, base: unknown): unknown {
  const others = givenFlags(flags);
  if (flags.deadletterContainer === undefined && others.length === 0) return base;
  const kept = ((base as Json | null | undefined)?.properties ?? {}) as Json;
  const container = flags.deadletterContainer ?? stringOf(kept.blobContainerName);
  if (container === undefined) {
    throw new InvalidArgumentError(
      `${others.join(', ')}: give --deadletter-container too; the subscription has no dead-letter destination`,
    );
  }
  const toOwnBucket = flags.deadletterBucket === false;
  const resourceId =
    typeof flags.deadletterBucket === 'string'
      ? deadLetterBucketArgument(flags.deadletterBucket)
      : toOwnBucket
        ? undefined
        : stringOf(kept.resourceId);
  // Back to the stack's bucket, or no role: no role, no external id.
  const roleArn =
    typeof flags.deadletterRoleArn === 'string'
      ? flags.deadletterRoleArn
      : flags.deadletterRoleArn === false || toOwnBucket
        ? undefined
        : stringOf(kept.roleArn);
  const externalId =
    typeof flags.deadletterExternalId === 'string'
      ? flags.deadletterExternalId
      : flags.deadletterExternalId === false || roleArn === undefined
        ? undefined
        : stringOf(kept.externalId);
  if (roleArn !== undefined && !isBucketArn(resourceId)) {
    throw new InvalidArgumentError(
      toOwnBucket
        ? "--deadletter-role-arn: for a bucket named with --deadletter-bucket, not with --no-deadletter-bucket (the stack's own bucket is written with its own credentials)"
        : "--deadletter-role-arn: for a bucket named with --deadletter-bucket (the stack's own bucket is written with its own credentials)",
    );
  }
  if (externalId !== undefined && roleArn === undefined) {
    throw new InvalidArgumentError(
      flags.deadletterRoleArn === false || toOwnBucket
        ? `--deadletter-external-id: sent when the role is assumed, not with ${flags.deadletterRoleArn === false ? '--no-deadletter-role-arn' : '--no-deadletter-bucket'}`
        : '--deadletter-external-id: sent when the role in --deadletter-role-arn is assumed; give the role too',
    );
  }
  const { resourceId: _id, roleArn: _role, externalId: _external, ...rest } = kept;
  return {
    endpointType: 'StorageBlob',
    properties: {
      ...rest,
      blobContainerName: container,
      ...(resourceId === undefined ? {} : { resourceId }),
      ...(roleArn === undefined ? {} : { roleArn }),
      ...(externalId === undefined ? {} : { externalId }),
    },
  };
}

/**
 * Where a subscription's dead letters are (the stack's bucket or the one it names, and the
 * prefix), which keys are its blobs, and whether a bucket it names is one the deployer allows.
 */
import { ENV } from '../../config/resources';
import { type DeadLetterFormat, deadLetterPrefix } from '../../delivery/rules/dead-letter-layout';
import {
  bucketArnOf,
  deadLetterBucketRefusal,
  PAIR_SEPARATOR,
} from '../../delivery/rules/resource-destinations';
import { deadLetterScopeOfTarget, deliveryTargetOf } from '../../delivery/target';
import type { DeadLetterDestination, Subscription } from '../../domain/model';
import { badRequest } from '../../http/errors';
import { bucketFor, type DeadLetterBucketRef, type NamedBucketRef } from '../../storage/dead-letter-buckets';
import type { DeadLetterBlobs } from './deps';

/** Where a subscription's dead letters are and how their records are written. */
export interface DeadLetterPlace {
  prefix: string;
  format: DeadLetterFormat;
  /** The bucket, and the role it is reached with; no bucket: the stack's own. */
  bucket: DeadLetterBucketRef;
}

/**
 * The subscription's dead-letter place, from its delivery target as the writer has it: the record
 * format and the key layout of that format. 400
 * naming the field when the subscription has no dead-letter destination.
 */
export function deadLetterPlace(subscription: Subscription): DeadLetterPlace {
  const target = deliveryTargetOf(subscription);
  const deadLetter = target.deadLetter;
  if (deadLetter === undefined) {
    throw badRequest(
      `properties.deadLetterDestination: the event subscription '${subscription.name}' has no dead-letter destination, so it has no dead letters.`,
    );
  }
  const { bucket, roleArn, externalId } = deadLetter;
  return {
    prefix: deadLetterPrefix(deadLetter.container, deadLetterScopeOfTarget({ ...target, deadLetter })),
    format: deadLetter.format,
    bucket: {
      ...(bucket === undefined ? {} : { bucket }),
      ...(roleArn === undefined ? {} : { roleArn }),
      ...(externalId === undefined ? {} : { externalId }),
    },
  };
}

/** The bucket operations of a place's bucket: the stack's own, or the one the subscription names. */
export function bucketOfPlace(
  place: DeadLetterPlace,
  deps: { bucket: DeadLetterBlobs; namedBucket?: (ref: NamedBucketRef) => DeadLetterBlobs },
): DeadLetterBlobs {
  return bucketFor(place.bucket, deps.bucket, deps.namedBucket);
}

/**
 * Refuses (400 naming `field`, the dead-letter destination's path in the body) a destination
 * whose bucket the deployer's list does not allow, or whose role it does not pair with it: a
 * bucket of the stack's own account needs an entry naming it; one reached with a role of another
 * account, an entry pairing the two (`<bucket>|<role>`). A destination without a bucket (the
 * stack's own) passes.
 */
export function checkDeadLetterBucket(
  deadLetter: DeadLetterDestination | undefined,
  allowList: readonly string[],
  field: string,
): void {
  if (deadLetter?.bucket === undefined) return;
  const { bucket, roleArn } = deadLetter;
  const refusal = deadLetterBucketRefusal(allowList, {
    bucket,
    ...(roleArn === undefined ? {} : { roleArn }),
  });
  if (refusal === undefined) return;
  const arn = bucketArnOf(bucket);
  const where = `${ENV.deadLetterBuckets}, the deadLetterBuckets prop, or a subscription declared in the CDK app with that bucket`;
  if (refusal === 'resourceArn') {
    throw badRequest(
      `${field}.properties.resourceId: ${arn} is not a bucket this stack may write dead letters to; its deployer can allow it (${where}), or leave resourceId out for the stack's own bucket.`,
    );
  }
  throw badRequest(
    `${field}.properties.roleArn: ${roleArn} is not paired with ${arn} on this stack's list of dead-letter buckets; its deployer can pair them (an entry '${arn}${PAIR_SEPARATOR}${roleArn}' in ${where}).`,
  );
}

/** What follows the prefix in a blob key: `<yyyy>/<M>/<d>/<H>/<name>.json`. */
const BLOB_KEY_TAIL = /^\d{4}\/\d{1,2}\/\d{1,2}\/\d{1,2}\/[^/]+\.json$/;

/**
 * Whether `key` has the shape of a blob key under the place's prefix. The folders are checked
 * too: a namespace `shop` writes under `<container>/shop/...`, which a classic subscription
 * `SHOP` would otherwise take for its own prefix.
 */
export const isBlobKey = (place: DeadLetterPlace, key: string): boolean =>
  key.startsWith(place.prefix) && BLOB_KEY_TAIL.test(key.slice(place.prefix.length));

/** A blob key of this subscription; 400 naming `field` otherwise. */
export function checkKey(place: DeadLetterPlace, key: string, field: string): string {
  if (!isBlobKey(place, key)) {
    throw badRequest(
      `${field}: '${key}' is not a dead-letter blob of this event subscription (its keys are '${place.prefix}<yyyy>/<M>/<d>/<H>/<name>.json').`,
    );
  }
  return key;
}

/**
 * Which blobs under a subscription's prefix are its own: the prefix has no topic, so two topics'
 * subscriptions of the same name writing to one container share it; a blob's topic stamp (else
 * its records) decides. Nor does it name the subscription's uid, so a subscription deleted and
 * created again under the same name shares it with its predecessor: the uid stamped on a blob
 * (else when it was written) decides that.
 */
import { type DeadLetterFormat, recordsHoldCloudEvents } from '../../delivery/rules/dead-letter-layout';
import type { Subscription } from '../../domain/model';
import { mapWithConcurrency } from '../../platform/concurrency';
import type {
  DeadLetterBlobInfo,
  DeadLetterBlobRead,
  DeadLetterBlobStamp,
} from '../../storage/dead-letter-bucket';
import { ownRecord } from '../../storage/history-items';
import { BLOB_CONCURRENCY, type DeadLetterBlobs } from './deps';
import { type DeadLetterPlace, isBlobKey } from './place';
import { blobRecords, recordOfTopic } from './records';
import type { TimeWindow } from './replay-request';

/** Topic names are case-insensitive. */
const sameTopic = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Whether a blob under the subscription's prefix holds the subscription's dead letters, all of
 * them: the topic stamped on it is the subscription's topic. A blob written before stamps (no
 * `stamp`) is the subscription's when its records say so: namespace keys name the namespace
 * topic itself, so every such blob under the prefix is its; any other blob only when it has
 * records and every one of them carries the subscription's `topic`. CloudEvents records name
 * their publisher's `source`, not the topic, so an unstamped CloudEvents blob belongs to no
 * subscription (it is read from the bucket directly). A blob is shown whole or not at all.
 */
export function blobOfTopic(
  format: DeadLetterFormat,
  topic: string,
  stamp: string | undefined,
  records: () => readonly string[],
): boolean {
  if (stamp !== undefined) return sameTopic(stamp, topic);
  if (format === 'namespace') return true;
  if (format === 'CloudEventSchemaV1_0') return false;
  const recorded = records();
  return recorded.length > 0 && recorded.every((record) => recordOfTopic(format, record, topic));
}

/**
 * Whether a blob of the subscription's topic is this subscription's, not a predecessor's (one of
 * the same name, deleted since, whose blobs share the prefix): the rule of the message log
 * (`ownRecord`), the uid stamped on the blob, else when it was written against the subscription's
 * creation.
 */
const blobOfSubscription = (subscription: Subscription, stamp: DeadLetterBlobStamp): boolean =>
  ownRecord(subscription, {
    ...(stamp.uid === undefined ? {} : { uid: stamp.uid }),
    at: (stamp.writtenAt ?? 0) + LAST_MODIFIED_PRECISION_MS,
  });

/**
 * S3 gives a blob's `Last-Modified` to the second (cut, not rounded): a blob is taken as written
 * up to that much later, so one written in its subscription's first second is still its own.
 * Only blobs written before uids were stamped are judged by their time at all.
 */
const LAST_MODIFIED_PRECISION_MS = 999;

/** Whether a blob read whole is the subscription's (an unreadable unstamped blob is no one's). */
export const readBlobOfTopic = (
  place: DeadLetterPlace,
  subscription: Subscription,
  key: string,
  blob: DeadLetterBlobRead,
) => {
  try {
    return (
      blobOfTopic(place.format, subscription.topic, blob.topic, () => blobRecords(key, blob.text)) &&
      blobOfSubscription(subscription, blob)
    );
  } catch {
    return false;
  }
};

/** Whether the blob `key` exists and is the subscription's (its stamp, else its records). */
export async function ownsBlob(
  bucket: DeadLetterBlobs,
  place: DeadLetterPlace,
  subscription: Subscription,
  key: string,
): Promise<boolean> {
  const stamp = await bucket.stampOf(key);
  if (stamp === undefined) return false;
  if (stamp.topic !== undefined || recordsHoldCloudEvents(place.format)) {
    return (
      blobOfTopic(place.format, subscription.topic, stamp.topic, () => []) &&
      blobOfSubscription(subscription, stamp)
    );
  }
  const blob = await bucket.read(key);
  return blob !== undefined && readBlobOfTopic(place, subscription, key, blob);
}

/**
 * The subscription's blobs written in the window (newest first), under its whole prefix or (`under`)
 * one of its folders.
 */
export async function ownBlobs(
  bucket: DeadLetterBlobs,
  place: DeadLetterPlace,
  subscription: Subscription,
  window: TimeWindow,
  under: string = place.prefix,
): Promise<DeadLetterBlobInfo[]> {
  const blobs = (await bucket.list(under, window)).filter((blob) => isBlobKey(place, blob.key));
  const owned = await mapWithConcurrency(blobs, BLOB_CONCURRENCY, (blob) =>
    ownsBlob(bucket, place, subscription, blob.key),
  );
  return blobs.filter((_, index) => owned[index]);
}

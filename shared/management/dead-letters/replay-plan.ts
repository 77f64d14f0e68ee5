/**
 * Planning a replay: which blobs a request selects, and for one blob which records go out (those
 * of the subscription's topic, of the reasons chosen, not replayed before unless forced) with the
 * counts its report entry shows. Pure, but for reading the selection from the bucket.
 */
import type { DeadLetterFormat } from '../../delivery/rules/dead-letter-layout';
import type { Subscription } from '../../domain/model';
import { badRequest } from '../../http/errors';
import type { DeadLetterBlobInfo, ReplayMarker } from '../../storage/dead-letter-bucket';
import type { DeadLetterBlobs } from './deps';
import { coveredByMarker } from './markers';
import { ownBlobs } from './ownership';
import { checkKey, type DeadLetterPlace } from './place';
import { blobRecords, matchingRecords, recordOfTopic } from './records';
import type { ReplayRequest } from './replay-request';
import type { BlobReplay } from './report';

/**
 * Blobs one replay call may select. A call reads each of them, so this keeps a call inside the
 * API's 29 s; `gridwire deadletters replay` makes one call per blob.
 */
export const MAX_REPLAY_BLOBS = 500;

/** A blob selected for a replay; `owned` once it is known to be the subscription's. */
export type SelectedBlob = Pick<DeadLetterBlobInfo, 'key' | 'replayed'> & { owned: boolean };

/**
 * The blobs a request selects: its keys (checked against the prefix; whether each is the
 * subscription's is checked when it is replayed) or the subscription's blobs in the window.
 * 400 when more than {@link MAX_REPLAY_BLOBS} are selected.
 */
export async function selectBlobs(
  bucket: DeadLetterBlobs,
  place: DeadLetterPlace,
  subscription: Subscription,
  request: ReplayRequest,
): Promise<SelectedBlob[]> {
  const selected = await selection(bucket, place, subscription, request);
  if (selected.length > MAX_REPLAY_BLOBS) {
    throw badRequest(
      `${request.keys === undefined ? 'since' : 'keys'}: ${selected.length} blobs are selected; one call replays at most ${MAX_REPLAY_BLOBS}. Narrow the window with since/until, or name the blobs with keys.`,
    );
  }
  return selected;
}

async function selection(
  bucket: DeadLetterBlobs,
  place: DeadLetterPlace,
  subscription: Subscription,
  request: ReplayRequest,
): Promise<SelectedBlob[]> {
  if (request.keys === undefined) {
    const blobs = await ownBlobs(bucket, place, subscription, request.window);
    return blobs.map((blob) => ({ key: blob.key, replayed: blob.replayed, owned: true }));
  }
  request.keys.forEach((key, index) => {
    checkKey(place, key, `keys[${index}]`);
  });
  // Whether a named blob was replayed is read from its marker, not from a listing.
  return request.keys.map((key) => ({ key, replayed: true, owned: false }));
}

/** A blob's records, those of the subscription's topic, and of those the ones the filter chose. */
export interface RecordSelection {
  records: string[];
  own: string[];
  matched: string[];
}

/** Reads a blob's records and selects; throws (a 422) when the blob is not an array of records. */
export function selectRecords(
  format: DeadLetterFormat,
  topic: string,
  key: string,
  text: string,
  reasons: ReplayRequest['reasons'],
): RecordSelection {
  const records = blobRecords(key, text);
  const own = records.filter((record) => recordOfTopic(format, record, topic));
  return { records, own, matched: matchingRecords(format, own, reasons) };
}

/** What the report entry counts of a blob read. */
export type BlobCounts = Pick<BlobReplay, 'records' | 'otherTopic' | 'matched' | 'alreadyReplayed'>;

export interface SendPlan {
  /** The records whose events go out. */
  toSend: string[];
  /** The blob is left alone: its marker covers every record matched, and no `force`. */
  skipped: boolean;
  counts: BlobCounts;
}

/**
 * Which of the matched records go out: those the blob's marker does not cover, or all of them
 * with `force`.
 */
export function planSend(
  format: DeadLetterFormat,
  marker: ReplayMarker | undefined,
  { records, own, matched }: RecordSelection,
  force: boolean,
): SendPlan {
  const fresh = matched.filter((record) => !coveredByMarker(format, marker, record));
  const skipped = marker !== undefined && fresh.length === 0 && !force;
  const toSend = force ? matched : fresh;
  const counts = {
    records: records.length,
    ...(own.length === records.length ? {} : { otherTopic: records.length - own.length }),
    matched: matched.length,
    ...(skipped || toSend.length === matched.length
      ? {}
      : { alreadyReplayed: matched.length - toSend.length }),
  };
  return { toSend, skipped, counts };
}

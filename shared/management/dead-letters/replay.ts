/**
 * Sending a replay: each selected blob read, planned (`replay-plan.ts`), its events queued to the
 * delivery queue as new deliveries and the blob marked replayed, a few blobs at a time.
 */
import { deliveryTargetOf } from '../../delivery/target';
import type { DeliveryTarget } from '../../domain/delivery';
import type { Subscription } from '../../domain/model';
import { METRIC, subscriptionDimensions } from '../../observability/metrics';
import { packJobs, targetGroupId } from '../../queue/job-codec';
import type { ReplayMarker } from '../../storage/dead-letter-bucket';
import { REPLAY_CLAIM_LEASE_MS } from '../../storage/replay-claims';
import { BLOB_CONCURRENCY, type DeadLetterBlobs, type DeadLetterServiceDeps } from './deps';
import { markerReasonsAfter } from './markers';
import { ownsBlob } from './ownership';
import { bucketOfPlace, type DeadLetterPlace, deadLetterPlace } from './place';
import { replayItem } from './records';
import { planSend, type RecordSelection, type SelectedBlob, selectBlobs, selectRecords } from './replay-plan';
import type { ReplayRequest } from './replay-request';
import { type BlobOutcome, type BlobReplay, type ReplayReport, replayReport } from './report';

/**
 * Queues the selected records' events to the subscription again, as new deliveries (the
 * original event ids kept, new delivery ids, attempts 0, published now, stamped with the
 * subscription's current uid and version, marked as resends of `deadletter:<blob key>`), blob by blob; each blob from which events were
 * queued is then marked replayed, with the reasons of the records replayed. Only records of the
 * subscription's topic are replayed (others are counted as `otherTopic`). A blob whose marker
 * covers every reason selected is skipped, and records of reasons it covers are left out,
 * unless `force`. A dry run reads and counts and changes nothing.
 *
 * Not atomic across blobs: a failing blob (unreadable, an event that cannot be queued, the
 * queue or the marker unavailable) is reported in its entry as `failed`; no further blob is
 * started, those in flight finish, and the report says what was queued and marked. Running the
 * same replay again continues where it stopped (events of a failing blob that reached the
 * queue, or of a blob queued but not marked, are delivered twice).
 */
export async function runReplay(
  deps: DeadLetterServiceDeps,
  subscription: Subscription,
  request: ReplayRequest,
): Promise<ReplayReport> {
  const place = deadLetterPlace(subscription);
  const selected = await selectBlobs(bucketOfPlace(place, deps), place, subscription, request);
  const context = replayContext(subscription, place, request, deps.newId());
  const outcomes = await replayInTurn(selected, (blob) => replayBlob(deps, context, blob));
  const report = replayReport(request, selected, outcomes);
  deps.metrics?.count(
    METRIC.ReplayedEventCount,
    report.eventsQueued,
    subscriptionDimensions(subscription.topic, subscription.name),
  );
  return report;
}

/** What replaying one blob needs from its call. */
interface ReplayContext {
  /** This call's id: its delivery ids' stem, and the owner of its claims. */
  callId: string;
  subscription: Subscription;
  place: DeadLetterPlace;
  request: ReplayRequest;
  target: DeliveryTarget;
  nextDeliveryId: () => string;
}

/** The call's context: the subscription's delivery target and delivery ids `replay-<callId>.<n>`. */
function replayContext(
  subscription: Subscription,
  place: DeadLetterPlace,
  request: ReplayRequest,
  callId: string,
): ReplayContext {
  let sequence = 0;
  return {
    callId,
    subscription,
    place,
    request,
    target: deliveryTargetOf(subscription),
    nextDeliveryId: () => {
      sequence += 1;
      return `replay-${callId}.${sequence}`;
    },
  };
}

/**
 * Replays the blobs {@link BLOB_CONCURRENCY} at a time, one after another per worker; after the
 * first failure no worker starts another. Each outcome is at its blob's index.
 */
async function replayInTurn(
  selected: readonly SelectedBlob[],
  replayOne: (blob: SelectedBlob) => Promise<BlobReplay | 'notFound'>,
): Promise<BlobOutcome[]> {
  const outcomes: BlobOutcome[] = new Array(selected.length);
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < selected.length) {
      const index = next;
      next += 1;
      const outcome = await replayOne(selected[index] as SelectedBlob);
      outcomes[index] = outcome;
      if (outcome !== 'notFound' && outcome.failed !== undefined) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(BLOB_CONCURRENCY, selected.length) }, worker));
  return outcomes;
}

/** A failed blob's entry: why, with the error's message, and what was counted before. */
const failure = (key: string, why: string, error: unknown, counts: Partial<BlobReplay> = {}): BlobReplay => ({
  key,
  ...counts,
  queued: counts.queued ?? 0,
  skipped: false,
  failed: `${why}: ${(error as Error).message}`,
});

/**
 * Replays (or counts) one blob: read, select its records, plan, pack its events, queue them,
 * mark it. Any failure is answered in the entry, not thrown.
 */
async function replayBlob(
  deps: DeadLetterServiceDeps,
  context: ReplayContext,
  blob: SelectedBlob,
): Promise<BlobReplay | 'notFound'> {
  // A dry run changes nothing, so it claims nothing.
  const claims = context.request.dryRun ? undefined : deps.claims;
  if (claims === undefined) return replayClaimedBlob(deps, context, blob);
  const now = deps.clock.now();
  let claimed: boolean;
  try {
    claimed = await claims.claim(blob.key, context.callId, now, now + REPLAY_CLAIM_LEASE_MS);
  } catch (error) {
    return failure(blob.key, 'The blob could not be claimed for this replay', error);
  }
  if (!claimed) return { key: blob.key, queued: 0, skipped: true, replayingElsewhere: true };
  try {
    // Claimed first, read after: a replay that finished meanwhile has left its marker to read.
    return await replayClaimedBlob(deps, context, blob);
  } finally {
    // Best effort: a claim left behind runs out with its lease.
    await claims.release(blob.key, context.callId).catch(() => undefined);
  }
}

/** Replays one blob this call may work on (claimed, or no claims kept). */
async function replayClaimedBlob(
  deps: DeadLetterServiceDeps,
  context: ReplayContext,
  blob: SelectedBlob,
): Promise<BlobReplay | 'notFound'> {
  const { place, request } = context;
  const { key } = blob;

  let read: BlobRead | 'notFound';
  try {
    read = await readForReplay(deps, context, blob);
  } catch (error) {
    return failure(key, 'The blob could not be read', error);
  }
  if (read === 'notFound') return read;
  const { marker, text } = read;
  const previously = marker === undefined ? {} : { replayedAt: marker.at };
  if (text === undefined) return { key, queued: 0, skipped: true, ...previously };

  let records: RecordSelection;
  try {
    records = selectRecords(place.format, context.subscription.topic, key, text, request.reasons);
  } catch (error) {
    return failure(key, 'The blob cannot be replayed', error, previously);
  }
  const { toSend, skipped, counts } = planSend(place.format, marker, records, request.force);
  if (skipped) {
    return request.dryRun
      ? { key, ...counts, queued: 0, skipped, ...previously }
      : { key, queued: 0, skipped, ...previously };
  }
  if (toSend.length === 0) return { key, ...counts, queued: 0, skipped, ...previously };

  // Built and packed in a dry run too, so an event that cannot be queued shows there.
  const now = deps.clock.now();
  let bodies: string[];
  try {
    bodies = packEvents(context, key, toSend, now);
  } catch (error) {
    const why =
      error instanceof RangeError
        ? 'An event is too large to queue, so none of this blob was queued'
        : 'The blob cannot be replayed';
    return failure(key, why, error, { ...counts, ...previously });
  }
  if (request.dryRun) return { key, ...counts, queued: 0, skipped, ...previously };

  try {
    const groupId = targetGroupId(context.target);
    await deps.queue.send(
      'delivery',
      bodies.map((body) => ({ body, delaySeconds: 0, groupId })),
    );
  } catch (error) {
    return failure(
      key,
      'Its events could not all be queued, so it is not marked as replayed (those that were queued will be delivered again by the next replay)',
      error,
      { ...counts, ...previously },
    );
  }
  const queued = { key, ...counts, queued: toSend.length, skipped, ...previously };
  return markReplayed(
    bucketOfPlace(place, deps),
    queued,
    now,
    markerReasonsAfter(place.format, marker, toSend),
  );
}

/** A blob as read for a replay: its marker if it has one, its text unless it is skipped unread. */
interface BlobRead {
  marker: ReplayMarker | undefined;
  text: string | undefined;
}

/**
 * Reads a selected blob's marker and, unless the marker covers every reason (the blob is then
 * skipped whatever is selected, and read only to count), its text.
 */
async function readForReplay(
  deps: DeadLetterServiceDeps,
  context: ReplayContext,
  blob: SelectedBlob,
): Promise<BlobRead | 'notFound'> {
  const { request } = context;
  const { key } = blob;
  const bucket = bucketOfPlace(context.place, deps);
  // A named blob of another topic is answered as one that does not exist.
  if (!blob.owned && !(await ownsBlob(bucket, context.place, context.subscription, key))) {
    return 'notFound';
  }
  // Read whatever the listing said: a replay that ended since it was made may have marked it.
  const marker = await bucket.replayMarker(key);
  if (marker?.reasons !== undefined || marker === undefined || request.force || request.dryRun) {
    const read = await bucket.read(key);
    if (read === undefined) return 'notFound';
    return { marker, text: read.text };
  }
  return { marker, text: undefined };
}

/** The records' events as new deliveries, packed into job bodies (a `RangeError` if one is too large). */
function packEvents(context: ReplayContext, key: string, records: readonly string[], now: number): string[] {
  const items = records.map((record) =>
    replayItem(
      context.place.format,
      record,
      context.nextDeliveryId(),
      now,
      `A record of the blob '${key}'`,
      `deadletter:${key}`,
    ),
  );
  return packJobs({ target: context.target }, items);
}

/** Marks a blob whose events were queued; a marker that cannot be written is a failed entry. */
async function markReplayed(
  bucket: DeadLetterBlobs,
  queued: BlobReplay,
  now: number,
  reasons: string[],
): Promise<BlobReplay> {
  try {
    await bucket.markReplayed(queued.key, now, reasons);
  } catch (error) {
    return {
      ...queued,
      marked: false,
      failed: `Its events were queued, but it could not be marked as replayed (a new replay sends them again): ${(error as Error).message}`,
    };
  }
  return { ...queued, marked: true };
}

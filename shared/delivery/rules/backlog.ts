/**
 * The backlog's rules, as pure functions: whether events are stored in a subscription's backlog or
 * ride the retry queue, when a backlog wakes, what a wake does with each stored event, how events
 * go back to the retry queue, and how far a drain got. Time is always an argument.
 *
 * The backlog replaces long waits on the retry queue (one 900 s hop after another) by one timer
 * per endpoint; everything an event keeps there (attempts, due time, TTL checked only when due)
 * is as it would be on the queue.
 */
import { createHash } from 'node:crypto';
import { type BacklogCheckpoint, type BacklogLine, type BacklogMeta, byDueOrder } from '../../domain/backlog';
import type { DeliveryItem } from '../../domain/delivery';
import type { RetryLimits } from '../../domain/model';
import { stampProbation } from './decide';
import { UNVALIDATED_ENDPOINT_HOLD_MS } from './handshake';
import type { DeliveryProfile } from './profiles';
import { expiresAtDue, sqsDelaySeconds, type WaitPrecision } from './retry';

// The due order is defined with the shapes it orders (storage writes segments in it too); the
// backlog's steps take it from here with the rest of the backlog's rules.
export { byDueOrder };

const MINUTE = 60_000;

/**
 * Waits longer than this are stored rather than queued: more than one 900 s hop plus the 15 min
 * a wake releases ahead, so a stored event never goes straight back to the queue for hops.
 */
export const BACKLOG_AFTER_MS = 20 * MINUTE;

/**
 * How far ahead of their due time a wake sends events back to the retry queue: the longest SQS
 * delay, so each goes in one message with its exact delay and keeps its due time to the second.
 */
export const RELEASE_AHEAD_MS = 15 * MINUTE;

/**
 * How late an event may leave the backlog and still count as on time: SQS delays count whole
 * seconds, so a release is up to a second late without anything holding it.
 */
export const ON_TIME_SLACK_MS = 1000;

/** What the store decision reads of an endpoint's health. */
export interface BacklogHealthView {
  /** Too many failures in a row (`unhealthySince` set), or paused: the backlog's timer does the probing. */
  readonly unhealthy: boolean;
  /** A drain is running: new events wait behind it, so the endpoint sees only the drain's requests. */
  readonly draining: boolean;
}

export interface StoreOrQueueInput {
  /** When the events are due (epoch ms); absent means now. */
  readonly dueAt: number | undefined;
  readonly now: number;
  readonly health: BacklogHealthView;
  /** Waits longer than this are stored ({@link BACKLOG_AFTER_MS} unless a stack says otherwise). */
  readonly backlogAfterMs: number;
}

/**
 * Whether events due at `dueAt` are stored in the backlog or sent to the retry queue: stored
 * while the endpoint is unhealthy or draining, whatever their due time, and when their wait is
 * longer than `backlogAfterMs`; queued otherwise (short waits and short probations stay as they are).
 */
export function storeOrQueue(input: StoreOrQueueInput): 'store' | 'queue' {
  const { dueAt, now, health, backlogAfterMs } = input;
  if (health.unhealthy || health.draining) return 'store';
  return dueAt !== undefined && dueAt - now > backlogAfterMs ? 'store' : 'queue';
}

/**
 * The hold a backlog's new events wait for: META's `heldUntil` while the backlog is holding its
 * endpoint, none otherwise. A backlog that is no longer holding keeps its past hold (for the
 * `Probation` stamps of events it kept), and that may end in the future: a pause's look-again
 * time, an hour on, once the subscription is resumed; a probation a successful probe ended early.
 */
export const currentHoldOf = (
  meta: Pick<BacklogMeta, 'state' | 'heldUntil'> | undefined,
): number | undefined => (meta?.state === 'holding' ? meta.heldUntil : undefined);

export interface WakeInput {
  /** Epoch ms until which the endpoint is held (probation), if it is. */
  readonly heldUntil: number | undefined;
  /** The earliest due time of each live segment (its index item's `minDueAt`). */
  readonly segmentDueAts: readonly number[];
  /** Whether the subscription's endpoint agreed to receive (see `endpointAgreed`). */
  readonly endpointAgreed: boolean;
  readonly now: number;
  readonly profile: Pick<DeliveryProfile, 'timeScale'>;
}

/**
 * When a backlog wakes next: when its earliest event is due, but not before the endpoint's hold
 * ends (nothing could be sent), nor, while the endpoint has not agreed, before the engine's own
 * wait for an unvalidated endpoint. `undefined` when nothing is stored: an empty backlog has no
 * timer. A segment's `minDueAt` may be of an event already drained, so a wake may come early and
 * find nothing due; it is never late.
 */
export function wakeAtOf(input: WakeInput): number | undefined {
  const { heldUntil, segmentDueAts, now, profile } = input;
  if (segmentDueAts.length === 0) return undefined;
  let wakeAt = Math.max(Math.min(...segmentDueAts), heldUntil ?? Number.NEGATIVE_INFINITY);
  if (!input.endpointAgreed)
    wakeAt = Math.max(wakeAt, now + UNVALIDATED_ENDPOINT_HOLD_MS / profile.timeScale);
  return wakeAt;
}

/** What a wake does with a segment's events, each list in due order. */
export interface TickClasses {
  /** Due, and their time to live ran out: they end (`TimeToLiveExceeded`) without an attempt. */
  readonly expired: BacklogLine[];
  /** Due, still alive: probed or drained (or held on, while the endpoint is held). */
  readonly due: BacklogLine[];
  /** Due within {@link RELEASE_AHEAD_MS}: sent back to the retry queue with their exact delays. */
  readonly soon: BacklogLine[];
  /** Due later: they stay. Their TTL is not looked at: it is checked when they come due. */
  readonly later: BacklogLine[];
}

/**
 * Sorts a segment's events at a wake. The TTL is checked only for events that are due, at the
 * time of the wake (as the engine checks it when a job comes due), so an event whose next attempt
 * is hours away is not ended early.
 */
export function classifyAtTick(
  lines: readonly BacklogLine[],
  now: number,
  limits: RetryLimits,
  profile: Pick<DeliveryProfile, 'timeScale'>,
): TickClasses {
  const classes: TickClasses = { expired: [], due: [], soon: [], later: [] };
  for (const line of [...lines].sort(byDueOrder)) {
    if (line.dueAt <= now) {
      (expiresAtDue(line.item.publishedAt, limits, now, profile) ? classes.expired : classes.due).push(line);
    } else {
      (line.dueAt - now <= RELEASE_AHEAD_MS ? classes.soon : classes.later).push(line);
    }
  }
  return classes;
}

/**
 * A stored event as it leaves the backlog at `at`: stamped `Probation` when it leaves more than
 * {@link ON_TIME_SLACK_MS} after its own due time because the endpoint was held past that due
 * time (`heldUntil`), as the engine stamps events it holds; otherwise unchanged. The stamp is
 * made here, when the event leaves, so nothing stored is rewritten while it waits.
 */
export function probationStamp(line: BacklogLine, at: number, heldUntil: number | undefined): DeliveryItem {
  const late = at - line.dueAt > ON_TIME_SLACK_MS;
  const heldPastDue = heldUntil !== undefined && heldUntil > line.dueAt;
  return late && heldPastDue ? stampProbation(line.item) : line.item;
}

/** Events sent back to the retry queue together: one job's due time and delay. */
export interface ReleaseGroup {
  /** The job's due time: its latest event's, so the job is never attempted before any of them. */
  readonly dueAt: number;
  readonly delaySeconds: number;
  /** In due order. */
  readonly items: DeliveryItem[];
}

/**
 * Events due within {@link RELEASE_AHEAD_MS}, grouped by the whole second their delay from `now`
 * rounds to, as the retry queue carries them: the events of a group arrive together, none before
 * its own due time and none more than a second after it. Groups come in due order. An event
 * beyond the window is refused: no delay could carry it.
 */
export function releaseGroups(
  entries: readonly { readonly dueAt: number; readonly item: DeliveryItem }[],
  now: number,
  precision: WaitPrecision,
): ReleaseGroup[] {
  const groups = new Map<number, { dueAt: number; items: { dueAt: number; item: DeliveryItem }[] }>();
  for (const entry of entries) {
    if (entry.dueAt - now > RELEASE_AHEAD_MS) {
      throw new RangeError(
        `event ${entry.item.deliveryId} is due ${entry.dueAt - now} ms from now, beyond the ${RELEASE_AHEAD_MS} ms a release reaches`,
      );
    }
    const delaySeconds = sqsDelaySeconds(entry.dueAt, now, precision);
    const group = groups.get(delaySeconds) ?? { dueAt: entry.dueAt, items: [] };
    group.dueAt = Math.max(group.dueAt, entry.dueAt);
    group.items.push(entry);
    groups.set(delaySeconds, group);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([delaySeconds, group]) => ({
      dueAt: group.dueAt,
      delaySeconds,
      items: group.items.sort(byDueOrder).map((entry) => entry.item),
    }));
}

/**
 * A segment's checkpoint after `done` more of its lines (indexes into its lines) were finished:
 * the done prefix grows over every line now done, and `doneAfter` keeps the done lines beyond
 * it, ascending. `complete` when every one of the `count` lines is done (the segment can go).
 */
export function checkpointOf(
  previous: BacklogCheckpoint,
  done: readonly number[],
  count: number,
): BacklogCheckpoint & { readonly complete: boolean } {
  const finished = new Set(previous.doneAfter);
  for (const index of done) {
    if (!Number.isInteger(index) || index < 0 || index >= count) {
      throw new RangeError(`line ${index} is not one of the segment's ${count} lines`);
    }
    if (index >= previous.doneThrough) finished.add(index);
  }
  let doneThrough = previous.doneThrough;
  while (finished.delete(doneThrough)) doneThrough += 1;
  const doneAfter = [...finished].sort((a, b) => a - b);
  return { doneThrough, doneAfter, complete: doneThrough >= count };
}

/** Whether line `index` of a segment is done at `checkpoint`. */
export const isDone = (checkpoint: BacklogCheckpoint, index: number): boolean =>
  index < checkpoint.doneThrough || checkpoint.doneAfter.includes(index);

/**
 * When a segment's earliest event that is not done yet is due; `undefined` when every line is
 * done. Its index item's `minDueAt` stays that of its first line, so once a wake has released or
 * ended the first lines, only this tells when the segment next has something to do (waking at the
 * stale `minDueAt` would find nothing due, and wake again at once).
 */
export function liveDueAt(
  lines: readonly Pick<BacklogLine, 'dueAt'>[],
  checkpoint: BacklogCheckpoint,
): number | undefined {
  let earliest: number | undefined;
  lines.forEach((line, index) => {
    if (!isDone(checkpoint, index) && (earliest === undefined || line.dueAt < earliest))
      earliest = line.dueAt;
  });
  return earliest;
}

/**
 * A segment's id: the first 16 hex digits of the SHA-256 of the sorted ids of the messages its
 * events came from. A store step that runs again on the same messages writes the same segment.
 */
export function segmentIdOf(sourceIds: readonly string[]): string {
  if (sourceIds.length === 0) throw new RangeError('a segment is made from at least one message');
  return createHash('sha256')
    .update([...sourceIds].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
}

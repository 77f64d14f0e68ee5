/**
 * The backlog sweeper: once a minute (an EventBridge rule on AWS, an interval locally) it reads
 * the timer index and sends the tick of every backlog whose wake is near and has none in flight,
 * arms again a wake whose tick was lost (the reconciler), writes how overdue the oldest wake is,
 * and every few minutes writes what the backlogs hold.
 *
 * What it watches, and why only this: a backlog's wake is the one due time Gridwire stores whose
 * only way to come back is a delayed SQS message (its tick) that nothing else remembers, so a
 * tick lost (deleted by a fault, or parked in the retry queue's redrive queue) would leave the
 * backlog's events waiting for good. The other stored due times are not like that:
 * - an ordered message's progress (`storage/ordered-progress.ts`, its `dueAt`) is a note the
 *   message reads when it comes back; the message itself is hidden, not deleted, so SQS hands it
 *   out again when its visibility runs out whatever happens to a consumer, and one it could not
 *   finish is parked in the ordered queue's redrive queue (alarmed), its progress expiring after;
 * - a retry hop's due time is in its own message, which SQS keeps until it is worked or parked;
 * - a replay (`archive/replay.ts`) has no due time: its pages are messages sent at once (the first
 *   delayed at most 15 minutes), each sending the next, and a page that keeps failing is parked in
 *   the delivery queue's redrive queue (alarmed); a running replay shows in `gridwire events replays`;
 * - the archive's daily sweep is a schedule of its own, with nothing stored to wake.
 * None of these has an index to read in one query either: covering them would cost a scan.
 */
import { randomUUID } from 'node:crypto';
import type { BacklogMeta } from '../../domain/backlog';
import type { DeliveryTarget } from '../../domain/delivery';
import type { LoggerLike } from '../../observability/logging';
import { METRIC, type MetricBuffer } from '../../observability/metrics';
import type { Clock } from '../../platform/clock';
import type { JobQueue } from '../../queue/sqs-job-queue';
import { type BacklogStore, hasWake } from '../../storage/backlog';
import type { SubscriptionSource } from '../ports';
import { RELEASE_AHEAD_MS } from '../rules/backlog';
import type { ProfileTable } from '../rules/profiles';
import { sqsDelaySeconds, waitPrecisionOf } from '../rules/retry';
import { deliveryTargetOf } from '../target';
import { setTimer } from './timer';

/** A wake this far past due has lost its tick message: the sweeper arms it again with a new token. */
export const WAKE_LATE_MS = 5 * 60_000;

/**
 * How long past its time a wake may still be in the timer index before it counts as overdue
 * (`OldestOverdueSeconds`). A due wake normally leaves the index within seconds: its tick was sent
 * ahead with its exact delay (by the sweep up to 15 minutes before, or by the store or tick that
 * set it), arrives when due, and its claim moves the wake to the lease's end. What may keep it a
 * little longer with nothing lost: a near wake set without its tick (a store or tick that stopped
 * between META and the send), which the next sweep sends, up to a minute later; the tick waiting
 * on a busy retry queue; the index showing a claim a moment late. Two sweep intervals cover these
 * and stay below {@link WAKE_LATE_MS}, so a lost wake shows three minutes before it is armed again.
 * Real time, as {@link WAKE_LATE_MS}: the local stack's time scale does not shrink either.
 */
export const OVERDUE_GRACE_MS = 2 * 60_000;

/** What the sweep needs: the index and META, the queue its ticks ride, and where it counts. */
export interface BacklogSweepDeps {
  store: BacklogStore;
  queue: JobQueue;
  clock: Clock;
  logger: LoggerLike;
  subscriptions: SubscriptionSource;
  /** Delivery profiles by name, already scaled by the time scale (1 on AWS). */
  profiles: ProfileTable;
  /** New timer tokens (default: random UUIDs). */
  newToken?: () => string;
  /**
   * Where the sweeper counts late wakes, writes how overdue the oldest wake is (every sweep) and,
   * every {@link BACKLOG_MEASURE_EVERY_MINUTES} minutes, how many events the backlogs hold and how
   * old the oldest is (default: nowhere).
   */
  metrics?: Pick<MetricBuffer, 'count' | 'gauge'>;
}

/** What one sweep did. */
export interface BacklogSweepReport {
  /** Ticks sent for wakes due soon that had none in flight. */
  readonly sent: number;
  /** Of those, ticks that replace a lost one (the wake was more than {@link WAKE_LATE_MS} late). */
  readonly rearmed: number;
  /** Backlogs that could not be armed now (the next sweep tries again). */
  readonly failed: number;
}

export class BacklogSweep {
  private readonly newToken: () => string;

  constructor(private readonly deps: BacklogSweepDeps) {
    this.newToken = deps.newToken ?? randomUUID;
  }

  /**
   * Sends the tick of every backlog whose wake is within {@link RELEASE_AHEAD_MS} of `now` and
   * has none in flight, with its exact delay, and marks it sent (`armedToken`; `setTimer`). A
   * crash before the mark sends it again at the next sweep, with the same token: whichever tick
   * claims first moves the token on, and the other does nothing. A wake more than {@link WAKE_LATE_MS} late lost its
   * tick (a redriven message, a bug): it is armed again at once with a new token, and counted
   * (`BacklogWakeLateCount`); META keeps when it was first due (`overdueSince`) until a tick takes
   * it. This re-arm is the reconciler of every wake `OldestOverdueSeconds` reports: each wake it
   * counts overdue is armed again once it is {@link WAKE_LATE_MS} late, and again every
   * {@link WAKE_LATE_MS} while no tick takes it. Every sweep writes `OldestOverdueSeconds` as it
   * found the index (before arming anything; 0 when nothing is overdue), and every
   * {@link BACKLOG_MEASURE_EVERY_MINUTES} minutes what the backlogs hold (`BacklogHeldEvents`,
   * `BacklogOldestEventAgeSeconds`) from their METAs.
   */
  async sweep(now: number = this.deps.clock.now()): Promise<BacklogSweepReport> {
    const { store, logger, metrics } = this.deps;
    let sent = 0;
    let rearmed = 0;
    let failed = 0;
    const armBy = now + RELEASE_AHEAD_MS;
    // A measuring sweep reads the whole timer index (every backlog holding events has a wake
    // there), so a backlog whose wake is hours away is counted too; the others read the near ones.
    const measuring = isMeasuringSweep(now);
    const listed = await store.wakesBy(measuring ? EVERY_WAKE : armBy);
    // Every due wake is at or before `armBy`: each sweep sees all of them, at no extra read.
    const overdue = oldestOverdue(listed, now);
    for (const meta of listed) {
      if (!hasWake(meta) || !isWakeBy(meta.wakeAt, armBy)) continue;
      const late = meta.wakeAt < now - WAKE_LATE_MS;
      if (meta.armedToken === meta.token && !late) continue;
      try {
        const target = await this.targetOf(meta);
        if (target === undefined) {
          logger.warn('backlog has a wake but neither a subscription nor a segment; left as it is', {
            topic: meta.topic,
            subscription: meta.subscription,
          });
          failed += 1;
          continue;
        }
        const token = late ? this.newToken() : meta.token;
        const profile = this.deps.profiles[target.profile];
        const set = await setTimer(
          { store, queue: this.deps.queue },
          // A late wake is moved to now, so it is not taken for lost again while its new tick is on
          // the way; when it was first due is kept, so it still counts as overdue until one takes it.
          {
            ...meta,
            token,
            ...(late ? { wakeAt: now, overdueSince: meta.overdueSince ?? meta.wakeAt } : {}),
            updatedAt: now,
          },
          meta.token,
          { target, delaySeconds: sqsDelaySeconds(meta.wakeAt, now, waitPrecisionOf(profile)) },
        );
        // Not set: a tick or a store came first and set its own timer.
        if (!set) continue;
        sent += 1;
        if (late) {
          rearmed += 1;
          logger.warn('backlog wake was late; armed again', {
            topic: meta.topic,
            subscription: meta.subscription,
            wakeAt: meta.wakeAt,
            lateMs: now - meta.wakeAt,
          });
        }
      } catch (error) {
        failed += 1;
        logger.error('could not arm a backlog wake; the next sweep tries again', {
          topic: meta.topic,
          subscription: meta.subscription,
          error: (error as Error).message,
        });
      }
    }
    metrics?.count(METRIC.BacklogWakeLateCount, rearmed);
    metrics?.gauge(METRIC.OldestOverdueSeconds, overdue?.seconds ?? 0, 'Seconds');
    if (measuring && metrics !== undefined) {
      const measure = measureBacklogs(listed, now);
      metrics.gauge(METRIC.BacklogHeldEvents, measure.events, 'Count');
      metrics.gauge(METRIC.BacklogOldestEventAgeSeconds, measure.oldestEventAgeSeconds, 'Seconds');
    }
    return { sent, rearmed, failed };
  }

  /**
   * The target a sweeper's tick carries: the subscription's as it is now, else (deleted) that of
   * a stored segment, so the tick can still find the backlog and drop it.
   */
  private async targetOf(meta: BacklogMeta): Promise<DeliveryTarget | undefined> {
    const subscription = await this.deps.subscriptions.get(meta.topic, meta.subscription);
    if (subscription !== undefined) return deliveryTargetOf(subscription);
    const [first] = await this.deps.store.listSegments(meta.topic, meta.subscription);
    return first === undefined ? undefined : (await this.deps.store.readSegment(first)).header.target;
  }
}

// ---- the sweeper's measures -------------------------------------------------------------------

/**
 * Minutes between two measures of the backlogs: the sweep of every minute that is a multiple of
 * this (by the clock, not per instance, so sweeps on several instances measure once between
 * them), as often as the alarms reading the measures look.
 */
export const BACKLOG_MEASURE_EVERY_MINUTES = 5;

/** The end of the timer index: every wake listed is at or before it. */
const EVERY_WAKE = Number.MAX_SAFE_INTEGER;

/** Whether the sweep at `now` measures the backlogs (see {@link BACKLOG_MEASURE_EVERY_MINUTES}). */
export const isMeasuringSweep = (now: number): boolean =>
  Math.floor(now / 60_000) % BACKLOG_MEASURE_EVERY_MINUTES === 0;

/**
 * Whether a wake is at or before `until` as the timer index reads it (`wakesBy`): a wake with a
 * fraction of a millisecond counts from the next whole one, and `until` from its whole one.
 */
const isWakeBy = (wakeAt: number, until: number): boolean => Math.ceil(wakeAt) <= Math.floor(until);

/** What the backlogs hold, as their METAs last summed it up. */
export interface BacklogMeasure {
  /** Events not done yet, over every backlog. */
  readonly events: number;
  /** Seconds since the oldest of them was published (0 with none). */
  readonly oldestEventAgeSeconds: number;
}

/**
 * Sums up the summaries the backlogs' METAs hold: as fresh as each backlog's last store or tick.
 * An idle backlog (not in the timer index) holds nothing. The age is per segment (its oldest
 * event's), so it may be older than any event still held, never younger.
 */
export function measureBacklogs(metas: readonly BacklogMeta[], now: number): BacklogMeasure {
  let events = 0;
  let oldest: number | undefined;
  for (const meta of metas) {
    if (!hasWake(meta)) continue;
    events += meta.summary.events;
    const published = meta.summary.oldestPublishedAt;
    if (meta.summary.events > 0 && published !== undefined) oldest = Math.min(oldest ?? published, published);
  }
  const oldestEventAgeSeconds = oldest === undefined ? 0 : Math.max(0, Math.floor((now - oldest) / 1000));
  return { events, oldestEventAgeSeconds };
}

// ---- overdue wakes ----------------------------------------------------------------------------

/** The oldest overdue wake of the timer index: whose, since when, and how long ago that was. */
export interface OverdueWake {
  readonly topic: string;
  readonly subscription: string;
  /** Epoch ms the wake was first due (before any arming again by the sweeper). */
  readonly dueSince: number;
  /** Whole seconds from `dueSince` to the time the index was looked at. */
  readonly seconds: number;
}

/**
 * The oldest overdue wake of `metas` at `now`, `undefined` when none is: a wake still in the timer
 * index (no tick has taken it) that was due more than {@link OVERDUE_GRACE_MS} before `now`, or
 * one the sweeper armed again (`overdueSince`) that is due. Counted from when it was first due.
 */
export function oldestOverdue(metas: readonly BacklogMeta[], now: number): OverdueWake | undefined {
  let oldest: OverdueWake | undefined;
  for (const meta of metas) {
    if (!hasWake(meta) || !isWakeBy(meta.wakeAt, now)) continue;
    if (meta.overdueSince === undefined && meta.wakeAt >= now - OVERDUE_GRACE_MS) continue;
    const dueSince = Math.min(meta.overdueSince ?? meta.wakeAt, meta.wakeAt);
    if (oldest !== undefined && oldest.dueSince <= dueSince) continue;
    oldest = {
      topic: meta.topic,
      subscription: meta.subscription,
      dueSince,
      seconds: Math.max(0, Math.floor((now - dueSince) / 1000)),
    };
  }
  return oldest;
}

/** Reads the timer index now and finds its oldest overdue wake (the local stack's status). */
export async function readOldestOverdue(
  store: Pick<BacklogStore, 'wakesBy'>,
  now: number,
): Promise<OverdueWake | undefined> {
  return oldestOverdue(await store.wakesBy(now), now);
}

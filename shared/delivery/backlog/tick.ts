/**
 * A subscription's backlog timer at work: what one `backlog-tick` does, and the sweeper that sends
 * ticks whose wake is near.
 *
 *   claim -> resolve -> gate -> expire -> release ahead -> probe -> drain -> re-arm
 *
 * - claim: only the tick carrying META's current token acts. It takes META by compare-and-set,
 *   with a new token, a lease and its wake at the lease's end, not marked armed: a crash anywhere
 *   later is resumed by the sweeper's tick for that wake, from what was written.
 * - resolve: the subscription as it is now. Segments of a deleted subscription, or of an older one
 *   of the same name (another uid), are dropped as `SubscriptionDeleted` and deleted.
 * - gate: the endpoint's health, read strongly consistently. On hold nothing is read or sent; the
 *   backlog wakes when the hold ends. A disabled endpoint's due events end as `EndpointDisabled`.
 * - expire: due events whose time to live ran out end as `TimeToLiveExceeded`; events not yet
 *   due are never looked at for it.
 * - release ahead: events due within 15 minutes but not yet due go back to the retry queue as
 *   ordinary delivery jobs, one per due second, with exact delays, and the engine attempts them
 *   when due.
 * - probe: right after a probation, the earliest due events that make one request are attempted.
 *   A failure puts the endpoint on probation again (the health tracker sees the outcome): the
 *   probed events are decided as after any attempt and stored back, and the backlog sleeps until
 *   the new hold ends. A success opens the drain.
 * - drain: the due events, in due order, a window at a time, through the delivery engine's own
 *   attempts, at most `drainConcurrency` in flight (the engine's slots start the window at 2 and
 *   grow it with each answer, halve it on push-back). Delivered events are done; failures are
 *   decided as after any attempt (retries and holds stored back, ended events handed over). An
 *   outcome that puts the endpoint on probation stops the drain: the rest stay where they are.
 *   Checkpoints every {@link DRAIN_CHECKPOINT_EVENTS} events or {@link DRAIN_CHECKPOINT_MS}.
 * - re-arm: the next wake, the tick for it sent when it is near (else left to the sweeper), META
 *   updated by compare-and-set; then the index is read once more for a segment stored meanwhile.
 *
 * Every event leaves a segment only after what follows it was sent (retry queue, ended-delivery
 * queue, drop, a new segment): a crash between the two sends it again (a duplicate), never loses
 * it. A drain that crashes repeats at most the events after its last checkpoint.
 *
 * This file holds the claim, resolve and gate and the order of the steps; the others live in
 * their own modules: expire and release ahead in `expiry.ts`, probe and drain in
 * `drain.ts`, the re-arm (and the forgetting of a deleted subscription's backlog) in
 * `rearm.ts`, and the sweeper in `sweep.ts`.
 */
import { randomUUID } from 'node:crypto';
import type { BacklogMeta, BacklogSegmentRef } from '../../domain/backlog';
import type { BacklogTickJob, DeliveryTarget } from '../../domain/delivery';
import { endpointIdOf, type Subscription } from '../../domain/model';
import { topicIdOf } from '../../domain/names';
import type { HeldMarks } from '../../storage/held-marks';
import type { DeliverySubscriptions, JobOptions } from '../ports';
import { checkpointOf, isDone, liveDueAt, RELEASE_AHEAD_MS } from '../rules/backlog';
import { endpointAgreed } from '../rules/handshake';
import { currentHealth, gateOf, holdsInBacklog } from '../rules/health';
import { deliveryTargetOf } from '../target';
import {
  BacklogDrain,
  type BacklogDrainDeps,
  type DrainResult,
  type DueEvent,
  type ReadSegment,
  TICK_DEADLINE_RESERVE_MS,
  TICK_LEASE_MS,
} from './drain';
import { expireAndRelease, type TickMode } from './expiry';
import { BacklogRearm, segmentKeyOf } from './rearm';
import { BacklogSweep, type BacklogSweepReport } from './sweep';

/**
 * A tick's dependencies: the drain's (its `queue` also takes released events and ticks; its
 * `healthStore` is read strongly consistently at every tick, since a worker's cached view could be
 * seconds old and a tick acts for the whole backlog at once; its `drops` also take the events of a
 * deleted subscription), the subscriptions, and more.
 */
export interface BacklogTickDeps extends BacklogDrainDeps, DeliverySubscriptions {
  /** New timer tokens (default: random UUIDs). */
  newToken?: () => string;
  /**
   * The held marks, set while the backlog holds an unhealthy endpoint's events and removed when it
   * no longer does, so publishers send straight here meanwhile (default: none kept).
   */
  heldMarks?: Pick<HeldMarks, 'set'>;
}

/** What one tick did. */
export interface BacklogTickReport {
  /**
   * `stale`: the tick's token was not the backlog's (or another writer took META first), so
   * nothing happened; `deleted`: the subscription is gone and its backlog was dropped;
   * `ticked`: the backlog was looked at and its timer set again.
   */
  readonly outcome: 'stale' | 'deleted' | 'ticked';
  /** Events sent back to the retry queue. */
  readonly released: number;
  /** Events probed or drained that the endpoint accepted. */
  readonly delivered: number;
  /** Events probed or drained that failed and were stored back to be tried again (or held). */
  readonly storedBack: number;
  /** Events ended (time to live, disabled endpoint): dead-lettered, or dropped without a destination. */
  readonly ended: number;
  /** Events dropped because their subscription was deleted. */
  readonly dropped: number;
  /** The next wake (epoch ms); `undefined` when nothing is stored or the tick was stale. */
  readonly wakeAt: number | undefined;
}

/**
 * Whether a segment stored for `uid` belongs to the subscription as it is now: a subscription
 * deleted and created again under the same name has another uid (as the engine's resolve reads it).
 */
const belongsTo = (uid: string | undefined, subscription: Subscription): boolean =>
  uid === undefined || subscription.uid === undefined || uid === subscription.uid;

export class BacklogTick {
  private readonly newToken: () => string;
  private readonly drain: BacklogDrain;
  private readonly sweeper: BacklogSweep;
  private readonly rearmer: BacklogRearm;

  constructor(private readonly deps: BacklogTickDeps) {
    this.newToken = deps.newToken ?? randomUUID;
    this.drain = new BacklogDrain(deps);
    this.sweeper = new BacklogSweep(deps);
    this.rearmer = new BacklogRearm(deps);
  }

  /** Works one tick of a backlog. Rejects when it could not finish; the sweeper's tick for its claimed wake then resumes it. */
  async tick(job: BacklogTickJob, options: JobOptions): Promise<BacklogTickReport> {
    const { store, clock } = this.deps;
    const topic = topicIdOf(job.target.topic);
    const name = job.target.subscription;
    const stale: BacklogTickReport = {
      outcome: 'stale',
      released: 0,
      delivered: 0,
      storedBack: 0,
      ended: 0,
      dropped: 0,
      wakeAt: undefined,
    };

    // ---- claim
    const meta = await store.getMeta(topic, name);
    if (meta === undefined || meta.token !== job.token) return stale;
    let claimed = await this.claim(meta);
    if (claimed === undefined) return stale;

    // ---- resolve
    const subscription = await this.deps.subscriptions.get(topic, name, job.target.version);
    const listed = await store.listSegments(topic, name);
    const gone = listed.filter((ref) => subscription === undefined || !belongsTo(ref.uid, subscription));
    const dropped = await this.dropSegments(job.target, gone);
    if (subscription === undefined) {
      const wakeAt = await this.rearmer.forget(job.target, claimed);
      return { ...stale, outcome: 'deleted', dropped, wakeAt };
    }
    const own = listed.filter((ref) => belongsTo(ref.uid, subscription));
    const profile = this.deps.profiles[subscription.deliveryProfile];
    // The jobs sent on are for the subscription as read now, never for an older version than the tick's.
    const target: DeliveryTarget = {
      ...deliveryTargetOf(subscription),
      version: Math.max(subscription.version, job.target.version),
    };

    // ---- gate
    const now = clock.now();
    const gated = await this.modeOf(subscription, now);
    let mode = gated.mode;

    // ---- expire, release ahead
    let released = 0;
    let ended = 0;
    let unfinished = false;
    const read: ReadSegment[] = [];
    let due: DueEvent[] = [];
    if (mode.kind !== 'hold') {
      for (const ref of own) {
        if (ref.minDueAt > now + RELEASE_AHEAD_MS) continue;
        if (clock.now() >= options.attemptDeadline - TICK_DEADLINE_RESERVE_MS) {
          unfinished = true;
          break;
        }
        read.push({ ref, lines: (await store.readSegment(ref)).lines, done: [], gone: false });
      }
      ({ released, ended, due } = await expireAndRelease(
        this.deps,
        subscription,
        profile,
        target,
        meta,
        mode,
        read,
        now,
      ));
      await this.drain.checkpoint(read);
    }

    // ---- probe, drain
    let drained: DrainResult | undefined;
    if ((mode.kind === 'probe' || mode.kind === 'open') && due.length > 0) {
      const run = { subscription, profile, target, read, options };
      drained = await this.drain.probeAndDrain(run, mode.kind === 'probe', due, claimed);
      claimed = drained.meta;
      ended += drained.ended;
      if (drained.heldUntil !== undefined) mode = { kind: 'hold', until: drained.heldUntil };
      // Out of time with due events left: they are drained by a tick sent at once.
      if (drained.deferred) unfinished = true;
    }

    // ---- re-arm
    const readKeys = new Map(read.map((segment) => [segmentKeyOf(segment.ref), segment]));
    const dueAts: number[] = [...(drained?.storedDueAts ?? [])];
    for (const ref of own) {
      const segment = readKeys.get(segmentKeyOf(ref));
      if (segment === undefined) {
        dueAts.push(ref.minDueAt);
        continue;
      }
      const next = liveDueAt(segment.lines, checkpointOf(segment.ref, segment.done, segment.ref.count));
      if (next !== undefined) dueAts.push(next);
    }
    if (unfinished) dueAts.push(clock.now());
    const wakeAt = await this.rearmer.rearm(target, claimed, {
      known: listed,
      dueAts,
      uid: subscription.uid,
      // A past hold is kept: events it kept past their due time and still stored (a tick out of
      // time, a crash) get their Probation stamp when they leave.
      heldUntil: mode.kind === 'hold' ? mode.until : meta.heldUntil,
      holding: mode.kind === 'hold',
      // Only an unhealthy endpoint's publishes are sent straight here: a short probation (a busy
      // answer, a timeout) ends before a publish would reach the backlog's tick.
      held: mode.kind === 'hold' && gated.unhealthy,
      agreed: mode.kind !== 'unagreed',
      profile,
    });
    return {
      outcome: 'ticked',
      released,
      delivered: drained?.delivered ?? 0,
      storedBack: drained?.storedBack ?? 0,
      ended,
      dropped,
      wakeAt,
    };
  }

  /** One pass of the sweeper over the timer index (see `BacklogSweep`). */
  sweep(now: number = this.deps.clock.now()): Promise<BacklogSweepReport> {
    return this.sweeper.sweep(now);
  }

  // ---- steps --------------------------------------------------------------------------------

  /**
   * Takes the backlog: moves META to a new token with a lease, its wake at the lease's end and
   * no tick sent for it. A tick that ends re-arms before then; one that dies is resumed by the
   * sweeper, which sends the tick of a near wake not marked armed (`setTimer`), so a crash is
   * picked up within a sweep of the lease's end. No continuation is sent at the claim: almost
   * every tick ends within seconds, and it would arrive later only to find the token moved on.
   * `undefined` when another writer changed META since it was read (the tick then does nothing).
   * A wake the sweeper armed again is taken now: it is no longer overdue (`overdueSince` goes).
   */
  private async claim(meta: BacklogMeta): Promise<BacklogMeta | undefined> {
    const now = this.deps.clock.now();
    const { armedToken: _armed, overdueSince: _overdue, ...unarmed } = meta;
    const claimed: BacklogMeta = {
      ...unarmed,
      token: this.newToken(),
      wakeAt: now + TICK_LEASE_MS,
      lease: { until: now + TICK_LEASE_MS },
      updatedAt: now,
    };
    return (await this.deps.store.putMeta(claimed, meta.token)) ? claimed : undefined;
  }

  /** What the endpoint's health (and its agreement) lets this tick do, and whether it is unhealthy. */
  private async modeOf(
    subscription: Subscription,
    now: number,
  ): Promise<{ mode: TickMode; unhealthy: boolean }> {
    // As the engine's gate: an endpoint that has not agreed gets nothing, whatever its health.
    if (!endpointAgreed(subscription)) return { mode: { kind: 'unagreed' }, unhealthy: false };
    const stored = await this.deps.healthStore.get(subscription.topic, subscription.name, {
      consistent: true,
    });
    const health = currentHealth(
      stored,
      subscription.topic,
      subscription.name,
      endpointIdOf(subscription.destination),
    );
    const gate = gateOf(health, now);
    // A paused endpoint's publishes go straight to its backlog, as an unhealthy one's do.
    const unhealthy = holdsInBacklog(health);
    if (gate.kind === 'hold') return { mode: { kind: 'hold', until: gate.until }, unhealthy };
    if (gate.kind === 'disabled') return { mode: { kind: 'disabled' }, unhealthy };
    // Probing or open: the due events are probed and drained from the backlog itself.
    return { mode: { kind: gate.kind }, unhealthy };
  }

  /** Drops the events of segments whose subscription is gone, then deletes the segments. */
  private async dropSegments(target: DeliveryTarget, refs: readonly BacklogSegmentRef[]): Promise<number> {
    let dropped = 0;
    for (const ref of refs) {
      const { lines } = await this.deps.store.readSegment(ref);
      const live = lines.filter((_, index) => !isDone(ref, index));
      if (live.length > 0) {
        this.deps.drops.drop(
          target,
          live.map((line) => ({ item: line.item, reason: 'SubscriptionDeleted' as const })),
        );
      }
      dropped += live.length;
      await this.deps.store.deleteSegment(ref);
    }
    return dropped;
  }
}

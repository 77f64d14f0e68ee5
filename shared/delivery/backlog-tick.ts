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
 */
import { randomUUID } from 'node:crypto';
import type { BacklogLine, BacklogMeta, BacklogSegmentRef, BacklogState } from '../domain/backlog';
import type { BacklogTickJob, DeliveryItem, DeliveryTarget } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { topicIdOf } from '../domain/names';
import type { MetricBuffer } from '../observability/metrics';
import { packJobs } from '../queue/job-codec';
import type { OutgoingJob } from '../queue/sqs-job-queue';
import { summaryOf } from '../storage/backlog';
import type { HealthStore } from '../storage/health';
import type { HeldMarks } from '../storage/held-marks';
import {
  BacklogDrain,
  type BacklogDrainDeps,
  type DrainResult,
  type DueEvent,
  type ReadSegment,
  type Taken,
  TICK_DEADLINE_RESERVE_MS,
  TICK_LEASE_MS,
} from './backlog-drain';
import { BacklogSweep, type BacklogSweepReport } from './backlog-sweep';
import { setTimer } from './backlog-timer';
import type { DropRecorder } from './dead-letter';
import type { AttemptHistory, JobOptions, SubscriptionSource } from './engine';
import { sendFollowUps } from './follow-ups';
import {
  byDueOrder,
  checkpointOf,
  classifyAtTick,
  isDone,
  liveDueAt,
  probationStamp,
  RELEASE_AHEAD_MS,
  releaseGroups,
  wakeAtOf,
} from './rules/backlog';
import { type Attempted, decideJob } from './rules/decide';
import { endpointAgreed } from './rules/handshake';
import { currentHealth, gateOf, isUnhealthy } from './rules/health';
import type { DeliveryProfile, ProfileTable } from './rules/profiles';
import { sqsDelaySeconds, waitPrecisionOf } from './rules/retry';
import { deliveryTargetOf } from './target';

/** A tick's dependencies: the drain's (its `queue` also takes released events and ticks), and more. */
export interface BacklogTickDeps extends BacklogDrainDeps {
  subscriptions: SubscriptionSource;
  /**
   * The endpoint's stored health, read strongly consistently at every tick: a worker's cached
   * view could be seconds old, and a tick acts for the whole backlog at once.
   */
  health: Pick<HealthStore, 'get' | 'put'>;
  /** Records events dropped (deleted subscription, or ended without a dead-letter destination). */
  drops: DropRecorder;
  history: AttemptHistory;
  /** Delivery profiles by name, already scaled by the time scale (1 on AWS). */
  profiles: ProfileTable;
  /** New timer tokens (default: random UUIDs). */
  newToken?: () => string;
  /**
   * The held marks, set while the backlog holds an unhealthy endpoint's events and removed when it
   * no longer does, so publishers send straight here meanwhile (default: none kept).
   */
  heldMarks?: Pick<HeldMarks, 'set'>;
  /**
   * Where the sweeper counts late wakes and, every {@link BACKLOG_MEASURE_EVERY_MINUTES} minutes,
   * writes how many events the backlogs hold and how old the oldest is (default: nowhere).
   */
  metrics?: Pick<MetricBuffer, 'count' | 'gauge'>;
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

/** Where a segment's index item is (the same segment listed twice has the same). */
const segmentKeyOf = (ref: Pick<BacklogSegmentRef, 'minDueAt' | 'segmentId'>): string =>
  `${ref.minDueAt}#${ref.segmentId}`;

/** What the gate lets a tick do with due events. */
type TickMode =
  /** On probation: nothing is read, expired or sent; wake when the hold ends. */
  | { readonly kind: 'hold'; readonly until: number }
  /** The endpoint has not agreed yet: expire, keep the rest (the wake waits for it). */
  | { readonly kind: 'unagreed' }
  /** Answered 410 Gone: due events end as `EndpointDisabled`; the rest wait until due. */
  | { readonly kind: 'disabled' }
  /** Right after a probation: one request finds out whether the endpoint answers again. */
  | { readonly kind: 'probe' }
  /** Open: due events are drained; those due within the window go back to the retry queue. */
  | { readonly kind: 'open' };

export class BacklogTick {
  private readonly newToken: () => string;
  private readonly drain: BacklogDrain;
  private readonly sweeper: BacklogSweep;

  constructor(private readonly deps: BacklogTickDeps) {
    this.newToken = deps.newToken ?? randomUUID;
    this.drain = new BacklogDrain(deps);
    this.sweeper = new BacklogSweep(deps);
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
      const wakeAt = await this.forget(job.target, claimed);
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
      ({ released, ended, due } = await this.expireAndRelease(
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
    const wakeAt = await this.rearm(target, claimed, {
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
   */
  private async claim(meta: BacklogMeta): Promise<BacklogMeta | undefined> {
    const now = this.deps.clock.now();
    const { armedToken: _armed, ...unarmed } = meta;
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
    const stored = await this.deps.health.get(subscription.topic, subscription.name, { consistent: true });
    const health = currentHealth(
      stored,
      subscription.topic,
      subscription.name,
      subscription.destination.endpointUrl,
    );
    const gate = gateOf(health, now);
    const unhealthy = isUnhealthy(health);
    if (gate.kind === 'hold') return { mode: { kind: 'hold', until: gate.until }, unhealthy };
    if (gate.kind === 'disabled') return { mode: { kind: 'disabled' }, unhealthy };
    // Probing or open: the due events are probed and drained from the backlog itself.
    return { mode: { kind: gate.kind }, unhealthy };
  }

  /**
   * Sets or removes the subscription's held mark when it differs from what META says, and
   * returns what META should say now. Best effort (a mark is advice to publishers): on failure
   * META keeps what it said, so the next tick tries again.
   */
  private async markHeld(meta: BacklogMeta, uid: string | undefined, held: boolean): Promise<boolean> {
    const marks = this.deps.heldMarks;
    const was = meta.held === true;
    if (marks === undefined || was === held) return marks !== undefined && was;
    const mark = {
      topic: meta.topic,
      subscription: meta.subscription,
      ...(uid === undefined ? {} : { uid }),
    };
    try {
      await marks.set(mark, held, this.deps.clock.now());
      return held;
    } catch (error) {
      this.deps.logger.warn('could not set the held mark of a backlog', {
        topic: meta.topic,
        subscription: meta.subscription,
        held,
        error: (error as Error).message,
      });
      return was;
    }
  }

  /**
   * Ends the due events whose time to live ran out (and, for a disabled endpoint, every due
   * event), sends back those due within the window but not yet due, and notes in `read` which
   * lines left. Everything is sent before the caller marks anything done. Returns the due events
   * left for the probe and the drain (when the endpoint may be sent to), in due order.
   */
  private async expireAndRelease(
    subscription: Subscription,
    profile: DeliveryProfile,
    target: DeliveryTarget,
    meta: BacklogMeta,
    mode: Exclude<TickMode, { kind: 'hold' }>,
    read: readonly ReadSegment[],
    now: number,
  ): Promise<{ released: number; ended: number; due: DueEvent[] }> {
    const expired: DeliveryItem[] = [];
    const due: DueEvent[] = [];
    const disabled: Attempted[] = [];
    const releasing: Array<{ dueAt: number; item: DeliveryItem }> = [];
    const taken: Taken[] = [];
    read.forEach((segment, segmentIndex) => {
      // `classifyAtTick` hands back the very lines it is given, so each finds its index here.
      const indexOf = new Map(segment.lines.map((line, index) => [line, index]));
      const live = segment.lines.filter((_, index) => !isDone(segment.ref, index));
      const classes = classifyAtTick(live, now, subscription.retry, profile);
      const take = (line: BacklogLine) =>
        taken.push({ segment: segmentIndex, index: indexOf.get(line) as number });
      for (const line of classes.expired) {
        // The stamp of a hold that kept the event past its due time, as a held job gets it.
        expired.push(probationStamp(line, now, meta.heldUntil));
        take(line);
      }
      if (mode.kind === 'disabled') {
        for (const line of classes.due) {
          disabled.push({ kind: 'disabled', item: line.item });
          take(line);
        }
      }
      if (mode.kind === 'probe' || mode.kind === 'open') {
        for (const line of classes.due) {
          due.push({
            segment: segmentIndex,
            index: indexOf.get(line) as number,
            line,
            item: probationStamp(line, now, meta.heldUntil),
          });
        }
      }
      // Only to an endpoint that answers: while it is being probed, events sent back to the queue
      // would be held and stored again when due. They wait for the next wake instead.
      if (mode.kind === 'open') {
        for (const line of classes.soon) {
          releasing.push({ dueAt: line.dueAt, item: probationStamp(line, now, meta.heldUntil) });
          take(line);
        }
      }
    });

    if (releasing.length > 0) {
      const jobs: OutgoingJob[] = [];
      // Delays count from the moment of sending, so no event arrives before it is due.
      const groups = releaseGroups(releasing, this.deps.clock.now(), waitPrecisionOf(profile));
      for (const group of groups) {
        for (const body of packJobs({ target, dueAt: group.dueAt }, group.items)) {
          jobs.push({ body, delaySeconds: group.delaySeconds });
        }
      }
      await this.deps.queue.send('retry', jobs);
    }
    if (expired.length > 0 || disabled.length > 0) {
      const decisions = decideJob({
        topic: subscription.topic,
        subscription: subscription.name,
        profile,
        limits: subscription.retry,
        attempted: disabled,
        expired,
        dueAt: now,
        now,
        random: this.deps.random,
        deadLetters: subscription.deadLetter !== undefined,
      });
      await sendFollowUps(this.deps, subscription, profile, target, decisions);
      if (subscription.deadLetter === undefined) {
        this.deps.drops.drop(
          target,
          decisions.ended.map(({ item, reason }) => ({ item, reason })),
        );
      }
      await this.recordHistory(decisions.records);
    }
    for (const { segment, index } of taken) read[segment]?.done.push(index);
    due.sort((a, b) => byDueOrder(a.line, b.line));
    return { released: releasing.length, ended: expired.length + disabled.length, due };
  }

  /**
   * A deleted subscription's backlog, its segments dropped: META is deleted (over the claim's
   * token). A store may have written a segment meanwhile and left its wake to this tick (it saw
   * the lease): the index is read once more, and such a segment gets a new META and a tick at
   * once, which drops it. Returns the wake set, if any.
   */
  private async forget(target: DeliveryTarget, claimed: BacklogMeta): Promise<number | undefined> {
    const { store, clock } = this.deps;
    if (claimed.held === true) await this.markHeld(claimed, claimed.uid, false);
    if (!(await store.deleteMeta(claimed.topic, claimed.subscription, claimed.token))) return undefined;
    const left = await store.listSegments(claimed.topic, claimed.subscription);
    if (left.length === 0) return undefined;
    const now = clock.now();
    const { lease: _lease, heldUntil: _heldUntil, armedToken: _armed, held: _held, ...kept } = claimed;
    const meta: BacklogMeta = {
      ...kept,
      token: this.newToken(),
      wakeAt: now,
      state: 'waiting',
      summary: summaryOf(left),
      updatedAt: now,
    };
    return (await setTimer({ store, queue: this.deps.queue }, meta, undefined, { target, delaySeconds: 0 }))
      ? now
      : undefined;
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

  /**
   * Sets the next timer: its tick sent first when it is near (the sweeper sends it otherwise),
   * then META moved from the claim's token by compare-and-set. Then the index is read once more:
   * a store that wrote a segment before this META write but read META before it may have left
   * it without a wake, so an earlier wake it needs is armed now. Returns the wake set.
   */
  private async rearm(
    target: DeliveryTarget,
    claimed: BacklogMeta,
    next: {
      /** Every segment the tick listed (read or not). */
      readonly known: readonly BacklogSegmentRef[];
      /** When each segment left is next due. */
      readonly dueAts: readonly number[];
      readonly uid: string | undefined;
      readonly heldUntil: number | undefined;
      readonly holding: boolean;
      /** Whether publishers should send straight to the backlog (the held mark). */
      readonly held: boolean;
      readonly agreed: boolean;
      readonly profile: DeliveryProfile;
    },
  ): Promise<number | undefined> {
    const { store, clock } = this.deps;
    const wakeOf = (dueAts: readonly number[]) =>
      wakeAtOf({
        heldUntil: next.holding ? next.heldUntil : undefined,
        segmentDueAts: dueAts,
        endpointAgreed: next.agreed,
        now: clock.now(),
        profile: next.profile,
      });
    const summary = async () => summaryOf(await store.listSegments(claimed.topic, claimed.subscription));
    const write = async (from: BacklogMeta, wakeAt: number | undefined): Promise<BacklogMeta | undefined> => {
      const token = this.newToken();
      const now = clock.now();
      const near = wakeAt !== undefined && wakeAt - now <= RELEASE_AHEAD_MS;
      const state: BacklogState = wakeAt === undefined ? 'idle' : next.holding ? 'holding' : 'waiting';
      // The mark first: should META's write fail after it, the next tick sees META disagree and sets it again.
      const held = await this.markHeld(from, next.uid, next.held && wakeAt !== undefined);
      const {
        lease: _lease,
        wakeAt: _wakeAt,
        armedToken: _armed,
        heldUntil: _heldUntil,
        held: _held,
        uid: _uid,
        ...kept
      } = from;
      const meta: BacklogMeta = {
        ...kept,
        ...(next.uid === undefined ? {} : { uid: next.uid }),
        token,
        ...(wakeAt === undefined ? {} : { wakeAt }),
        ...(near ? { armedToken: token } : {}),
        ...(next.heldUntil === undefined ? {} : { heldUntil: next.heldUntil }),
        ...(held ? { held } : {}),
        state,
        summary: await summary(),
        updatedAt: now,
      };
      const tick =
        near && wakeAt !== undefined
          ? { target, delaySeconds: sqsDelaySeconds(wakeAt, now, waitPrecisionOf(next.profile)) }
          : undefined;
      return (await setTimer({ store, queue: this.deps.queue }, meta, from.token, tick)) ? meta : undefined;
    };

    const wakeAt = wakeOf(next.dueAts);
    const armed = await write(claimed, wakeAt);
    if (armed === undefined) {
      this.deps.logger.warn(
        'backlog META changed under a claimed tick; its timer is left to the other writer',
        {
          topic: claimed.topic,
          subscription: claimed.subscription,
        },
      );
      return undefined;
    }
    const known = new Set(next.known.map(segmentKeyOf));
    const stored = (await store.listSegments(claimed.topic, claimed.subscription)).filter(
      (ref) => !known.has(segmentKeyOf(ref)),
    );
    if (stored.length === 0) return wakeAt;
    const earlier = wakeOf([...next.dueAts, ...stored.map((ref) => ref.minDueAt)]);
    if (earlier === undefined || (wakeAt !== undefined && earlier >= wakeAt)) return wakeAt;
    const again = await write(armed, earlier);
    return again === undefined ? wakeAt : earlier;
  }

  // ---- ticks and targets -----------------------------------------------------------------------

  private async recordHistory(records: Parameters<AttemptHistory['record']>[0]): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.deps.history.record(records);
    } catch (error) {
      // History is for operators; failing to write it must not fail (and so repeat) the tick.
      this.deps.logger.error('could not record backlog endings', {
        error: (error as Error).message,
        records: records.length,
      });
    }
  }
}

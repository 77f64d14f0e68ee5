/**
 * The probe and the drain of a backlog tick: once an endpoint's probation is over, one request
 * finds out whether it answers again, then its due events go through the delivery engine's own
 * request path a window at a time, within a concurrency window that starts small and grows while
 * the endpoint answers, with checkpoints so a crash repeats little and loses nothing. Events
 * that fail again are settled as any attempt (`settle.ts`) and stored back in the backlog.
 */
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS } from '../../config/resources';
import type { BacklogCheckpoint, BacklogLine, BacklogMeta, BacklogSegmentRef } from '../../domain/backlog';
import type { DeliveryItem, DeliveryTarget } from '../../domain/delivery';
import { endpointIdOf, type Subscription } from '../../domain/model';
import { type BacklogStore, segmentLineBytes } from '../../storage/backlog';
import { type HealthStore, rewriteHealth } from '../../storage/health';
import type { EngineAttempts } from '../engine-attempts';
import { sendFollowUps } from '../follow-ups';
import type { JobOptions, SettleDeps } from '../ports';
import { byDueOrder, checkpointOf } from '../rules/backlog';
import type { Attempted, JobDecisions } from '../rules/decide';
import { currentHealth, gateOf, withDrainMark } from '../rules/health';
import type { DeliveryProfile } from '../rules/profiles';
import { settle } from '../settle';
import { BACKLOG_SEGMENT_CAPS, contentSourceIds, cutIntoSegments, partSegmentId } from './store-step';

/**
 * How long a claimed tick owns its backlog: twice the delivery function's timeout, so the tick
 * the sweeper sends for a claimed wake arrives only after the tick that claimed it is certainly
 * over. A drain's mark on the endpoint's health runs out after as long.
 */
export const TICK_LEASE_MS = 2 * DELIVERY_FUNCTION_TIMEOUT_SECONDS * 1000;

/**
 * Time kept before the invocation's deadline: no further segment is read after it, and the rest
 * is left to a tick sent at once.
 */
export const TICK_DEADLINE_RESERVE_MS = 30_000;

/**
 * Due events a drain holds and attempts at a time (merged across segments in due order): the
 * memory of one window stays bounded, whatever the backlog.
 */
export const DRAIN_WINDOW_EVENTS = 5_000;

/**
 * A drain writes where it got to after this many finished events, or {@link DRAIN_CHECKPOINT_MS}
 * after the last checkpoint, whichever comes first: a crash repeats at most that much.
 */
export const DRAIN_CHECKPOINT_EVENTS = 1_000;
export const DRAIN_CHECKPOINT_MS = 5_000;

/**
 * What the probe and the drain need of a tick's dependencies: what settling their attempts takes
 * (`settle.ts`; its `health` is the health tracker the worker's requests report to, read before a
 * probe so its view starts from the stored health, and after outcomes, to see whether one put the
 * endpoint on probation), and more.
 */
export interface BacklogDrainDeps extends SettleDeps {
  store: BacklogStore;
  /** The worker's request path: the probe and the drain attempt events through its slots. */
  attempts: Pick<EngineAttempts, 'attemptItems'>;
  /** Requests a drain has in flight to its endpoint at most. */
  drainConcurrency: number;
  /**
   * The endpoint's stored health, where a drain after a probe marks itself running, so workers
   * store new events behind it (see `drainingUntil`).
   */
  healthStore: Pick<HealthStore, 'get' | 'put'>;
}

/** A stored event the tick takes out of its segment. */
export interface Taken {
  readonly segment: number;
  readonly index: number;
}

/** A segment as the tick read it, and which of its lines left it since its last checkpoint. */
export interface ReadSegment {
  /** Its index entry, with the checkpoint last written. */
  ref: BacklogSegmentRef;
  readonly lines: readonly BacklogLine[];
  done: number[];
  /** Every line done and the segment deleted. */
  gone: boolean;
}

/** A due event the probe or drain attempts, and where it is stored. */
export interface DueEvent extends Taken {
  readonly line: BacklogLine;
  /** The item as it leaves the backlog (stamped `Probation` when a hold kept it past due). */
  readonly item: DeliveryItem;
}

/** How a probe or drain ended. */
export interface DrainResult {
  readonly delivered: number;
  readonly storedBack: number;
  readonly ended: number;
  /** Due times of the segments written for events stored back. */
  readonly storedDueAts: readonly number[];
  /** Set when an outcome put the endpoint on probation: the backlog sleeps until then. */
  readonly heldUntil: number | undefined;
  /** The invocation ran out of time with due events not attempted. */
  readonly deferred: boolean;
  /** META as the drain left it (its state `draining` once it started). */
  readonly meta: BacklogMeta;
}

/** What a probe or drain works with. */
export interface DrainRun {
  readonly subscription: Subscription;
  readonly profile: DeliveryProfile;
  readonly target: DeliveryTarget;
  readonly read: ReadSegment[];
  readonly options: JobOptions;
}

export class BacklogDrain {
  constructor(private readonly deps: BacklogDrainDeps) {}

  /**
   * Marks the lines that left since the last checkpoint: a segment with none left is deleted,
   * others get a checkpoint. Each segment's entry then holds what was written.
   */
  async checkpoint(read: readonly ReadSegment[]): Promise<void> {
    for (const segment of read) {
      if (segment.done.length === 0 || segment.gone) continue;
      const next = checkpointOf(segment.ref, segment.done, segment.ref.count);
      const written: BacklogCheckpoint = { doneThrough: next.doneThrough, doneAfter: next.doneAfter };
      if (next.complete) await this.deps.store.deleteSegment(segment.ref);
      else await this.deps.store.updateCheckpoint(segment.ref, written);
      segment.ref = { ...segment.ref, ...written };
      segment.done = [];
      segment.gone = next.complete;
    }
  }

  /**
   * The probe (right after a probation), then the drain: the due events through the engine's
   * attempts, a window at a time, until none is left, an outcome puts the endpoint on probation,
   * or the invocation runs out of time.
   */
  async probeAndDrain(
    run: DrainRun,
    probe: boolean,
    due: readonly DueEvent[],
    claimed: BacklogMeta,
  ): Promise<DrainResult> {
    const { subscription, profile } = run;
    const { attempts, health, clock } = this.deps;
    const deadline = run.options.attemptDeadline - TICK_DEADLINE_RESERVE_MS;
    const totals = { delivered: 0, storedBack: 0, ended: 0, storedDueAts: [] as number[] };
    const result = (meta: BacklogMeta, heldUntil: number | undefined, deferred: boolean): DrainResult => ({
      ...totals,
      meta,
      heldUntil,
      deferred,
    });
    // The tracker's view starts from the stored health, so the probe's outcome is folded into
    // the right probation count (and its next hold is seen here).
    await health.current(subscription, profile);
    let rest = due;
    // The probe: one request. Events a late answer already delivered are settled without one,
    // so the probe goes on to the next events until it has made its request.
    while (probe) {
      const byItem = new Map(rest.map((event) => [event.item, event]));
      const outcomes = await attempts.attemptItems(
        subscription,
        profile,
        rest.slice(0, DRAIN_WINDOW_EVENTS).map((event) => event.item),
        { attemptDeadline: deadline, maxRequests: 1 },
        1,
      );
      await this.settleAttempts(run, byItem, outcomes, totals);
      await this.checkpoint(run.read);
      const made = outcomes.filter((entry) => entry.kind !== 'answeredLate');
      const probed = new Set(outcomes.map((entry) => entry.item));
      if (made.length > 0) {
        const answered = made.some((entry) => entry.kind === 'attempted');
        const delivered = made.every((entry) => entry.kind === 'attempted' && entry.result.delivered);
        if (!answered || !delivered) {
          const deferred = made.some((entry) => entry.kind === 'deferred');
          return result(claimed, this.heldUntilOf(subscription), deferred);
        }
      }
      rest = rest.filter((event) => !probed.has(event.item));
      if (rest.length === 0) return result(claimed, undefined, false);
      if (made.length > 0) break;
    }

    const draining: BacklogMeta = { ...claimed, state: 'draining', updatedAt: clock.now() };
    if (!(await this.deps.store.putMeta(draining, claimed.token))) return result(claimed, undefined, false);

    // An endpoint recovering from a probation gets the drain's requests alone: workers store new
    // events behind it while the mark is on the endpoint's health.
    const marked = probe && (await this.markDraining(subscription, clock.now() + TICK_LEASE_MS));
    try {
      while (rest.length > 0) {
        const window = rest.slice(0, DRAIN_WINDOW_EVENTS);
        rest = rest.slice(window.length);
        const outcome = await this.drainWindow(run, window, deadline, totals);
        if (outcome.heldUntil !== undefined) return result(draining, outcome.heldUntil, false);
        if (outcome.deferred) return result(draining, undefined, true);
      }
      return result(draining, undefined, false);
    } finally {
      if (marked) await this.markDraining(subscription, undefined);
    }
  }

  /**
   * Marks a drain of the subscription's backlog running until `until` on the endpoint's health,
   * or removes the mark. Best effort (health is advisory): false when it could not be written; a
   * mark left behind runs out by itself.
   */
  private async markDraining(subscription: Subscription, until: number | undefined): Promise<boolean> {
    const store = this.deps.healthStore;
    const { topic, name } = subscription;
    try {
      await rewriteHealth(store, topic, name, (stored) => {
        const health = currentHealth(stored, topic, name, endpointIdOf(subscription.destination));
        return until === undefined && health.drainingUntil === undefined
          ? undefined
          : withDrainMark(health, until);
      });
      return true;
    } catch (error) {
      this.deps.logger.warn('could not mark the backlog drain on the endpoint health', {
        topic,
        subscription: name,
        error: (error as Error).message,
      });
      return false;
    }
  }

  /**
   * Attempts one window of due events at up to `drainConcurrency` in flight, settling finished
   * ones at every checkpoint. Events held because the endpoint went on probation, or not started
   * before the deadline, stay in their segments untouched.
   */
  private async drainWindow(
    run: DrainRun,
    window: readonly DueEvent[],
    deadline: number,
    totals: { delivered: number; storedBack: number; ended: number; storedDueAts: number[] },
  ): Promise<{ heldUntil: number | undefined; deferred: boolean }> {
    const { clock } = this.deps;
    const byItem = new Map(window.map((event) => [event.item, event]));
    let finished: Attempted[] = [];
    let lastCheckpointAt = clock.now();
    let deferred = false;
    // Checkpoints run one after another while requests go on; the first failure is kept and
    // rethrown once the window's requests are over (the tick the sweeper sends for the claimed wake then resumes from the last one).
    let chain: Promise<void> = Promise.resolve();
    let failure: { error: unknown } | undefined;
    const checkpointNow = () => {
      const batch = finished;
      finished = [];
      lastCheckpointAt = clock.now();
      chain = chain.then(async () => {
        if (failure !== undefined) return;
        try {
          await this.settleAttempts(run, byItem, batch, totals);
          await this.checkpoint(run.read);
        } catch (error) {
          failure = { error };
        }
      });
    };
    try {
      await this.deps.attempts.attemptItems(
        run.subscription,
        run.profile,
        window.map((event) => event.item),
        {
          attemptDeadline: deadline,
          onAttempted: (entries) => {
            finished.push(...entries);
            if (entries.some((entry) => entry.kind === 'deferred')) deferred = true;
            if (
              finished.length >= DRAIN_CHECKPOINT_EVENTS ||
              clock.now() - lastCheckpointAt >= DRAIN_CHECKPOINT_MS
            )
              checkpointNow();
          },
        },
        this.deps.drainConcurrency,
      );
      checkpointNow();
    } finally {
      // Whatever happened to the requests, no checkpoint is left running behind the tick.
      await chain;
    }
    if (failure !== undefined) throw failure.error;
    // Also when the window's last answer began the probation (nothing was held after it).
    return { heldUntil: this.heldUntilOf(run.subscription), deferred };
  }

  /**
   * Settles finished attempts as any job's are (`settle.ts`): follow-ups first (ended deliveries
   * handed over, retries and holds stored back in a new segment), the attempts recorded, then
   * their lines are marked done (the caller's checkpoint writes it). Events held by a probation
   * that began meanwhile, or not started in time, are left as they are.
   */
  private async settleAttempts(
    run: DrainRun,
    byItem: ReadonlyMap<DeliveryItem, DueEvent>,
    outcomes: readonly Attempted[],
    totals: { delivered: number; storedBack: number; ended: number; storedDueAts: number[] },
  ): Promise<void> {
    const { subscription, profile, target, read } = run;
    const settled = outcomes.filter(
      (entry) => entry.kind !== 'deferred' && !(entry.kind === 'held' && entry.reason === 'probation'),
    );
    if (settled.length === 0) return;
    let storedBack = 0;
    // Retries and holds are stored back in the backlog (a new segment); the rest follows as a job's does.
    const keepInBacklog = async (decisions: JobDecisions) => {
      const again: BacklogLine[] = [
        ...[...decisions.retries].flatMap(([dueAt, items]) =>
          items.map((item): BacklogLine => ({ dueAt, heldBy: 'wait', item })),
        ),
        ...[...decisions.held].flatMap(([dueAt, items]) =>
          items.map((item): BacklogLine => ({ dueAt, heldBy: 'probation', item })),
        ),
      ];
      const handOver: JobDecisions = { ...decisions, retries: new Map(), held: new Map(), deferred: [] };
      await sendFollowUps(this.deps, subscription, profile, target, handOver);
      totals.storedDueAts.push(...(await this.storeBack(target, again)));
      storedBack = again.length;
    };
    const decisions = await settle(
      this.deps,
      { subscription, profile, target, attempted: settled },
      keepInBacklog,
    );
    for (const entry of settled) {
      const event = byItem.get(entry.item);
      if (event !== undefined) read[event.segment]?.done.push(event.index);
    }
    totals.delivered += decisions.delivered.length + decisions.answeredLate.length;
    totals.storedBack += storedBack;
    totals.ended += decisions.ended.length;
  }

  /**
   * Writes events to be tried again as new segments of the backlog (cut as the store step cuts
   * them). Their ids come from the events and their attempt counts, so a checkpoint done again
   * after a crash writes the same segments. Returns their earliest due times.
   */
  private async storeBack(target: DeliveryTarget, lines: readonly BacklogLine[]): Promise<number[]> {
    if (lines.length === 0) return [];
    const sourceIds = contentSourceIds(lines.map((line) => line.item));
    const runs = cutIntoSegments([...lines].sort(byDueOrder), BACKLOG_SEGMENT_CAPS, segmentLineBytes);
    const dueAts: number[] = [];
    for (const [index, part] of runs.entries()) {
      const ref = await this.deps.store.putSegment({
        target,
        segmentId: partSegmentId(sourceIds, index, runs.length),
        lines: part,
        createdAt: this.deps.clock.now(),
      });
      dueAts.push(ref.minDueAt);
    }
    return dueAts;
  }

  /** When the hold this worker's tracker sees now ends; `undefined` when the endpoint is not held. */
  private heldUntilOf(subscription: Subscription): number | undefined {
    const view = this.deps.health.peek(subscription);
    if (view === undefined) return undefined;
    const gate = gateOf(view, this.deps.clock.now());
    return gate.kind === 'hold' ? gate.until : undefined;
  }
}

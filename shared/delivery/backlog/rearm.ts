/**
 * How a backlog tick lets go of its backlog (see `tick.ts` for the whole tick): the
 * re-arm, which sets the next wake and moves META on from the claim's token, and, for a deleted
 * subscription, the forgetting of META. Both also set or remove the held mark publishers read.
 * Apart from the tick's control flow because this is where a wake could be lost: a store may
 * write a segment while the tick holds META, and both steps read the index once more for it.
 */
import { randomUUID } from 'node:crypto';
import type { BacklogMeta, BacklogSegmentRef, BacklogState } from '../../domain/backlog';
import type { DeliveryTarget } from '../../domain/delivery';
import type { LoggerLike } from '../../observability/logging';
import type { Clock } from '../../platform/clock';
import type { JobQueue } from '../../queue/sqs-job-queue';
import { type BacklogStore, summaryOf } from '../../storage/backlog';
import type { HeldMarks } from '../../storage/held-marks';
import { RELEASE_AHEAD_MS, wakeAtOf } from '../rules/backlog';
import type { DeliveryProfile } from '../rules/profiles';
import { sqsDelaySeconds, waitPrecisionOf } from '../rules/retry';
import { setTimer } from './timer';

/** What the re-arm needs of a tick's dependencies. */
export interface BacklogRearmDeps {
  store: BacklogStore;
  /** The queue the next tick rides. */
  queue: JobQueue;
  clock: Clock;
  logger: LoggerLike;
  /** New timer tokens (default: random UUIDs). */
  newToken?: () => string;
  /** The held marks publishers read (default: none kept). */
  heldMarks?: Pick<HeldMarks, 'set'>;
}

/** What the next timer is set from. */
export interface RearmPlan {
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
}

/** Where a segment's index item is (the same segment listed twice has the same). */
export const segmentKeyOf = (ref: Pick<BacklogSegmentRef, 'minDueAt' | 'segmentId'>): string =>
  `${ref.minDueAt}#${ref.segmentId}`;

export class BacklogRearm {
  private readonly newToken: () => string;

  constructor(private readonly deps: BacklogRearmDeps) {
    this.newToken = deps.newToken ?? randomUUID;
  }

  /**
   * Sets the next timer: its tick sent first when it is near (the sweeper sends it otherwise),
   * then META moved from the claim's token by compare-and-set. Then the index is read once more:
   * a store that wrote a segment before this META write but read META before it may have left
   * it without a wake, so an earlier wake it needs is armed now. Returns the wake set.
   */
  async rearm(target: DeliveryTarget, claimed: BacklogMeta, next: RearmPlan): Promise<number | undefined> {
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

  /**
   * A deleted subscription's backlog, its segments dropped: META is deleted (over the claim's
   * token). A store may have written a segment meanwhile and left its wake to this tick (it saw
   * the lease): the index is read once more, and such a segment gets a new META and a tick at
   * once, which drops it. Returns the wake set, if any.
   */
  async forget(target: DeliveryTarget, claimed: BacklogMeta): Promise<number | undefined> {
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
}

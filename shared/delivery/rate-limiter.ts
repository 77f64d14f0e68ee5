/**
 * A worker's side of the per-endpoint rate limit (`rules/rate-limit.ts`): requests to a
 * rate-limited subscription queue here, one lane per subscription, in the order they came. A lane
 * hands out what it holds of the current second's budget, each request at its place in the
 * second (`slotStartOf`) and never sooner than a request's share of a second after the one before
 * (so one worker's requests are never closer together than the limit allows), takes a further slice from the shared
 * store (`storage/rate-budget.ts`) when it runs out, and, once the second's budget is spent,
 * waits for the next second. A request with more waiting ahead of it than the limit allows for
 * `MAX_RATE_WAIT_MS` is not queued: it is held, placed after the others at the limit's pace.
 */
import { RATE_WINDOW_MS } from '../domain/destination';
import type { LoggerLike } from '../observability/logging';
import type { Clock } from '../platform/clock';
import type { RateBudgetStore, RateSlice } from '../storage/rate-budget';
import {
  holdsRequest,
  nextWindowAt,
  placeHeld,
  rateSliceOf,
  rateWindowOf,
  slotStartOf,
  startsInWindow,
} from './rules/rate-limit';

/** A request may start now, within `window` (epoch seconds): see {@link RateLimiter.valid}. */
export interface RatePermit {
  readonly kind: 'go';
  readonly window: number;
}
/** No budget soon enough: the request is held until `until` without an attempt. */
export interface RateHold {
  readonly kind: 'hold';
  readonly until: number;
}

/** Held back this long when the budget could not be read (the store is down). */
export const BUDGET_UNREADABLE_HOLD_MS = 5000;

interface Waiter {
  resolve(answer: RatePermit | RateHold): void;
}

interface Lane {
  readonly topic: string;
  readonly subscription: string;
  limit: number;
  window: number;
  /** Budget of `window` this worker holds and has not handed out: the next one's place in the second, and how many. */
  next: number;
  tokens: number;
  /** The store said `window`'s budget is spent. */
  spent: boolean;
  readonly waiting: Waiter[];
  pumping: boolean;
  /** Where the last held request was placed (epoch ms). */
  horizon: number;
  /** When this worker last let a request go (epoch ms). */
  lastGo: number;
}

export interface RateLimiterDeps {
  clock: Clock;
  budget: RateBudgetStore;
  logger: LoggerLike;
}

export class RateLimiter {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly deps: RateLimiterDeps) {}

  /**
   * Waits for budget to start one request to the subscription's endpoint (a batch is one
   * request), or says to hold it.
   */
  take(topic: string, subscription: string, limit: number): Promise<RatePermit | RateHold> {
    const key = `${topic.toLowerCase()}/${subscription.toLowerCase()}`;
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = {
        topic,
        subscription,
        limit,
        window: -1,
        next: 0,
        tokens: 0,
        spent: false,
        waiting: [],
        pumping: false,
        horizon: 0,
        lastGo: 0,
      };
      this.lanes.set(key, lane);
    }
    lane.limit = limit;
    const now = this.deps.clock.now();
    if (holdsRequest(limit, lane.waiting.length)) {
      const placed = placeHeld(limit, now, lane.waiting.length, lane.horizon);
      lane.horizon = placed.horizon;
      return Promise.resolve({ kind: 'hold', until: placed.until });
    }
    const answer = new Promise<RatePermit | RateHold>((resolve) => lane.waiting.push({ resolve }));
    if (!lane.pumping) void this.pump(key, lane);
    return answer;
  }

  /** Whether a permit still allows its request to start now (its second, before the guard). */
  valid(permit: RatePermit): boolean {
    return startsInWindow(permit.window, this.deps.clock.now());
  }

  /** Waits until `time`, once the requests just let through have started (a virtual clock moves at once). */
  private async pauseUntil(time: number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await this.deps.clock.sleep(Math.max(1, time - this.deps.clock.now()));
  }

  /** Hands out budget to a lane's waiters, in order, until none is left waiting. */
  private async pump(key: string, lane: Lane): Promise<void> {
    const { clock, budget, logger } = this.deps;
    lane.pumping = true;
    try {
      while (lane.waiting.length > 0) {
        const now = clock.now();
        const window = rateWindowOf(now);
        if (window !== lane.window) {
          lane.window = window;
          lane.tokens = 0;
          lane.spent = false;
        }
        if (lane.tokens > 0 && startsInWindow(window, now)) {
          // At its place in the second, and a request's share of a second after this worker's last.
          const earliest = Math.max(
            slotStartOf(window, lane.next, lane.limit),
            lane.lastGo + RATE_WINDOW_MS / lane.limit,
          );
          if (now < earliest) {
            await this.pauseUntil(earliest);
            continue;
          }
          lane.tokens -= 1;
          lane.next += 1;
          lane.lastGo = now;
          lane.waiting.shift()?.resolve({ kind: 'go', window });
          continue;
        }
        if (!startsInWindow(window, now) || lane.spent) {
          await this.pauseUntil(nextWindowAt(now));
          continue;
        }
        const want = rateSliceOf(lane.limit, lane.waiting.length);
        let granted: RateSlice;
        try {
          granted = await budget.take(lane.topic, lane.subscription, window, want, lane.limit);
        } catch (error) {
          // Nothing is sent without budget: the waiters are held, as if over the limit.
          logger.warn('could not take from the rate budget; holding the requests', {
            subscription: key,
            error: (error as Error).message,
          });
          const until = clock.now() + BUDGET_UNREADABLE_HOLD_MS;
          for (const waiter of lane.waiting.splice(0)) waiter.resolve({ kind: 'hold', until });
          return;
        }
        // Budget of a second that has passed meanwhile is of no use; the next round starts over.
        if (rateWindowOf(clock.now()) !== window) continue;
        // Slices of a lane follow each other in the second's order only when no other worker took
        // between them; a new slice starts where it was placed.
        if (granted.count > 0) {
          lane.next = granted.first;
          lane.tokens = granted.count;
        }
        if (granted.count < want) lane.spent = true;
      }
    } finally {
      lane.pumping = false;
      if (lane.waiting.length === 0 && lane.horizon < clock.now() - RATE_WINDOW_MS) {
        this.lanes.delete(key);
      }
    }
  }
}

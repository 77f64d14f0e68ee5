/**
 * Late answers: a request that timed out (no answer in 30 s) is still listened to for a while, and
 * a success answered in that time counts as the event's delivery, so its pending retry is
 * dropped instead of sent (the receiver already has the event). Best effort, as in the original:
 * a retry already sent before the late answer came is a duplicate.
 *
 * The listening ends 3 minutes after the request started, or not at all when no retry can follow
 * the timeout (the profile does not retry timeouts, or it was the last attempt allowed). An
 * invocation plans for it ({@link invocationLimits}): it starts no request later than 3 minutes
 * before it must stop listening (its deadline, less the time to record an answer), so whichever
 * moment of the invocation a request starts in, its whole window fits. The time the worker has to
 * stop by still bounds a window, should a request start later than that. Real time, as the 30 s
 * timeout is: neither is scaled by the time scale (only the local stack's `requestTimeScale`
 * shrinks both, with the invocation, for tests).
 */
import type { RetryLimits } from '../../domain/model';
import type { DeliveryProfile } from './profiles';
import { isRetriable } from './retry';

/** How long after a request starts a late success still drops the event's pending retry. */
export const LATE_ANSWER_WINDOW_MS = 3 * 60_000;

/**
 * The real-time lengths of a webhook request's life: how long it waits for its answer before it
 * counts as `TimedOut` (30 s, `DELIVERY_TIMEOUT_MS`), and how long after it started a timed-out
 * one is still listened to ({@link LATE_ANSWER_WINDOW_MS}).
 */
export interface RequestTimes {
  readonly timeoutMs: number;
  readonly lateWindowMs: number;
}

export interface LateListenInput {
  readonly profile: DeliveryProfile;
  readonly limits: Pick<RetryLimits, 'maxAttempts'>;
  /** Attempts made before this request (the request is attempt `attemptsBefore + 1`). */
  readonly attemptsBefore: number;
  /** When the request started (epoch ms). */
  readonly startedAt: number;
  /** How long the request waits for its answer before it counts as `TimedOut`. */
  readonly timeoutMs: number;
  /** The worker listens no later than this (epoch ms). */
  readonly stopBy: number;
  /** How long after it started a request is listened to at most (default 3 minutes). */
  readonly windowMs?: number;
}

/**
 * Until when (epoch ms) a request that times out is still listened to, or `undefined` when it is
 * not: no retry could follow its timeout, or no time would be left after the timeout.
 */
export function lateListenUntil(input: LateListenInput): number | undefined {
  const { profile, startedAt } = input;
  if (!isRetriable(profile, { outcome: 'TimedOut' })) return undefined;
  if (input.attemptsBefore + 1 >= input.limits.maxAttempts) return undefined;
  const until = Math.min(startedAt + (input.windowMs ?? LATE_ANSWER_WINDOW_MS), input.stopBy);
  return until > startedAt + input.timeoutMs ? until : undefined;
}

/** What an invocation gives its jobs: when requests stop starting, and when listening stops. */
export interface InvocationLimits {
  /** Epoch ms after which no request starts: one started until then has its whole late window. */
  readonly attemptDeadline: number;
  /** Epoch ms by which every late listen has ended, leaving the finishing margin. */
  readonly listenUntil: number;
}

/**
 * An invocation's limits, from its deadline (epoch ms): listening stops `finishingMarginMs` before
 * it (time to record a late answer and queue follow-ups), and requests start no later than a late
 * window before that, so every request started in the invocation, at whatever moment, is listened
 * to until 3 minutes after it started (`lateListenUntil` is never cut by the invocation).
 */
export function invocationLimits(
  deadline: number,
  times: { readonly lateWindowMs: number; readonly finishingMarginMs: number },
): InvocationLimits {
  const listenUntil = deadline - times.finishingMarginMs;
  return { attemptDeadline: listenUntil - times.lateWindowMs, listenUntil };
}

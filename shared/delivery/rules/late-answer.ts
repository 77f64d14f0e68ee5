/**
 * Late answers: a request that timed out (no answer in 30 s) is still listened to for a while, and
 * a success answered in that time counts as the event's delivery, so its pending retry is
 * dropped instead of sent (the receiver already has the event). Best effort, as in the original:
 * a retry already sent before the late answer came is a duplicate.
 *
 * The listening ends at the earliest of: 3 minutes after the request started, the time the worker
 * has to stop by (an invocation's deadline, less the time to record the answer), and not at all
 * when no retry can follow the timeout (the profile does not retry timeouts, or it was the last
 * attempt allowed). Real time, as the 30 s timeout is: neither is scaled.
 */
import type { RetryLimits } from '../../domain/model';
import type { DeliveryProfile } from './profiles';
import { isRetriable } from './retry';

/** How long after a request starts a late success still drops the event's pending retry. */
export const LATE_ANSWER_WINDOW_MS = 3 * 60_000;

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
}

/**
 * Until when (epoch ms) a request that times out is still listened to, or `undefined` when it is
 * not: no retry could follow its timeout, or no time would be left after the timeout.
 */
export function lateListenUntil(input: LateListenInput): number | undefined {
  const { profile, startedAt } = input;
  if (!isRetriable(profile, { outcome: 'TimedOut' })) return undefined;
  if (input.attemptsBefore + 1 >= input.limits.maxAttempts) return undefined;
  const until = Math.min(startedAt + LATE_ANSWER_WINDOW_MS, input.stopBy);
  return until > startedAt + input.timeoutMs ? until : undefined;
}

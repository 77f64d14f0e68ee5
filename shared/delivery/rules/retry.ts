/**
 * The retry engine's rules, as pure functions of their inputs. The clock (`now`) and the random
 * source are always arguments, so every rule, jitter included, is table-tested.
 */

import type { AttemptResult } from '../../domain/attempts';
import type { DeadLetterReason, RetryLimits } from '../../domain/model';
import type { DeliveryProfile } from './profiles';
import { isResourceFailure, resourceErrorRuleOf } from './resource-errors';

const SECOND = 1000;

/** The rule of an AWS resource's error (`resource-errors.ts`), when the result is one. */
const resourceRuleOf = (result: Pick<AttemptResult, 'httpStatus' | 'errorCode'>) =>
  isResourceFailure(result) ? resourceErrorRuleOf(result.errorCode as string) : undefined;

/** The event's time to live in ms under `profile` (divided by its time scale). */
export const timeToLiveMs = (limits: RetryLimits, profile: Pick<DeliveryProfile, 'timeScale'>): number =>
  limits.ttlMs / profile.timeScale;

/**
 * The schedule's delay after `failedAttempts` failed attempts (1 = after the first attempt): the
 * subscription's own schedule when it has one (`scheduleMs`, real time, scaled like the profile's;
 * its last step repeats), else the profile's.
 */
export function scheduledDelayMs(
  profile: DeliveryProfile,
  failedAttempts: number,
  scheduleMs?: readonly number[],
): number {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) {
    throw new RangeError(`failedAttempts must be an integer >= 1 (got ${failedAttempts})`);
  }
  if (scheduleMs !== undefined && scheduleMs.length > 0) {
    const step = scheduleMs[Math.min(failedAttempts, scheduleMs.length) - 1] as number;
    return step / profile.timeScale;
  }
  return profile.retryDelaysMs[failedAttempts - 1] ?? profile.repeatDelayMs;
}

/** The minimum wait the failed attempt's answer imposes, `Retry-After` included. */
export function retryFloorMs(
  profile: DeliveryProfile,
  result: Pick<AttemptResult, 'httpStatus' | 'retryAfterSeconds' | 'errorCode'>,
): number {
  // An AWS resource's error: its rule's floor (in the profile's time).
  const resourceRule = resourceRuleOf(result);
  if (resourceRule !== undefined) return resourceRule.floorMs / profile.timeScale;
  const statusFloor =
    result.httpStatus === undefined
      ? profile.defaultFloorMs
      : (profile.statusFloorsMs[result.httpStatus] ?? profile.defaultFloorMs);
  const honoursRetryAfter = result.httpStatus === 429 || result.httpStatus === 503;
  if (!honoursRetryAfter || result.retryAfterSeconds === undefined) return statusFloor;
  const askedMs = (result.retryAfterSeconds * SECOND) / profile.timeScale;
  return Math.max(statusFloor, Math.min(askedMs, profile.maxRetryAfterMs));
}

/** The delay before jitter: the schedule's step (the subscription's own, if any), raised to the failed answer's floor. */
export const baseDelayMs = (
  profile: DeliveryProfile,
  attemptsMade: number,
  result: Pick<AttemptResult, 'httpStatus' | 'retryAfterSeconds' | 'errorCode'>,
  scheduleMs?: readonly number[],
): number => Math.max(scheduledDelayMs(profile, attemptsMade, scheduleMs), retryFloorMs(profile, result));

/** Jitter for a delay: `random` is a uniform draw in [0, 1). */
export function jitterMs(profile: DeliveryProfile, delayMs: number, random: number): number {
  if (!(random >= 0 && random < 1)) throw new RangeError(`random must be in [0, 1) (got ${random})`);
  return random * Math.min(delayMs * profile.jitter.ratio, profile.jitter.maxMs);
}

/** Whether a failed attempt may be retried at all under this profile. */
export function isRetriable(
  profile: DeliveryProfile,
  result: Pick<AttemptResult, 'httpStatus' | 'outcome' | 'errorCode'>,
): boolean {
  const resourceRule = resourceRuleOf(result);
  if (resourceRule !== undefined) return resourceRule.retry;
  if (result.httpStatus !== undefined && profile.noRetryStatuses.includes(result.httpStatus)) return false;
  if (
    result.httpStatus === undefined &&
    result.errorCode !== undefined &&
    profile.noRetryErrorCodes.includes(result.errorCode)
  )
    return false;
  if (
    result.httpStatus === undefined &&
    result.outcome !== undefined &&
    profile.noRetryTransportOutcomes.includes(result.outcome)
  )
    return false;
  return result.outcome === undefined || profile.endingOutcomes[result.outcome] === undefined;
}

export type FailureDecision =
  | { readonly action: 'retry'; readonly delayMs: number; readonly dueAt: number }
  | { readonly action: 'deadLetter'; readonly reason: DeadLetterReason };

export interface FailureInput {
  readonly profile: DeliveryProfile;
  readonly limits: RetryLimits;
  /** Attempts made, counting the one that just failed. */
  readonly attemptsMade: number;
  readonly result: Pick<AttemptResult, 'httpStatus' | 'outcome' | 'errorCode' | 'retryAfterSeconds'>;
  /** Epoch ms of the decision. */
  readonly now: number;
  /** Uniform draw in [0, 1) for the jitter. */
  readonly random: number;
}

/**
 * What happens after a failed attempt: retry at `dueAt`, or stop (dead-letter, or drop when no
 * dead-letter destination is set). The TTL is deliberately not checked here: it is checked when
 * the next attempt comes due ({@link expiresAtDue}).
 */
export function decideAfterFailure(input: FailureInput): FailureDecision {
  const { profile, limits, attemptsMade, result, now, random } = input;
  // An AWS resource's error is judged by its own rule: a `Disabled` key or function is retried,
  // never the endpoint's end that a webhook's 410 Gone is.
  const ending =
    result.outcome === undefined || resourceRuleOf(result) !== undefined
      ? undefined
      : profile.endingOutcomes[result.outcome];
  if (ending !== undefined) return { action: 'deadLetter', reason: ending };
  if (!isRetriable(profile, result)) return { action: 'deadLetter', reason: 'NonRetriableOutcome' };
  if (attemptsMade >= limits.maxAttempts)
    return { action: 'deadLetter', reason: 'MaxDeliveryAttemptsExceeded' };
  const baseMs = baseDelayMs(profile, attemptsMade, result, limits.scheduleMs);
  const delayMs = baseMs + jitterMs(profile, baseMs, random);
  return { action: 'retry', delayMs, dueAt: now + delayMs };
}

/**
 * The TTL check made when an attempt comes due (never in between): an event older than its
 * time to live is not attempted and ends with `TimeToLiveExceeded`.
 */
export const expiresAtDue = (
  publishedAt: number,
  limits: RetryLimits,
  now: number,
  profile: Pick<DeliveryProfile, 'timeScale'>,
): boolean => now - publishedAt >= timeToLiveMs(limits, profile);

/** Below this much remaining wait, a consumer sleeps instead of sending the job round again. */
export const SHORT_WAIT_MS = 1000;

/**
 * How closely a job keeps its due time, given that SQS delays count whole seconds:
 * - `whole-seconds` (real time): the last hop's delay is rounded up, so the job surfaces at most
 *   a second after it is due and no invocation waits (a second is a tenth of the shortest step);
 * - `exact` (time-scaled runs, where a second can stand for minutes): delays are rounded down and
 *   the final sub-second is slept away in the invocation.
 * Either way a job is never attempted before it is due.
 */
export type WaitPrecision = 'whole-seconds' | 'exact';

/** The precision a profile's jobs keep: exact only when time is scaled. */
export const waitPrecisionOf = (profile: Pick<DeliveryProfile, 'timeScale'>): WaitPrecision =>
  profile.timeScale > 1 ? 'exact' : 'whole-seconds';

export type WaitPlan =
  | { readonly kind: 'due' }
  /** Less than a second left: wait in place (`exact` precision only). */
  | { readonly kind: 'sleep'; readonly ms: number }
  /** Send the job again with this delay; it may need further hops when more than 900 s remain. */
  | { readonly kind: 'hop'; readonly delaySeconds: number };

/**
 * How a consumer handles a job that is due at `dueAt`. Delays are capped at SQS's 900 s, so a
 * wait longer than 15 minutes becomes several hops, and rounded as `precision` says.
 */
export function planWait(
  dueAt: number | undefined,
  now: number,
  precision: WaitPrecision = 'exact',
  maxDelaySeconds = 900,
): WaitPlan {
  if (dueAt === undefined) return { kind: 'due' };
  const remainingMs = dueAt - now;
  if (remainingMs <= 0) return { kind: 'due' };
  if (precision === 'whole-seconds') {
    return { kind: 'hop', delaySeconds: Math.min(maxDelaySeconds, Math.ceil(remainingMs / SECOND)) };
  }
  if (remainingMs < SHORT_WAIT_MS) return { kind: 'sleep', ms: remainingMs };
  return { kind: 'hop', delaySeconds: Math.min(maxDelaySeconds, Math.floor(remainingMs / SECOND)) };
}

/** The SQS `DelaySeconds` for a job due at `dueAt` sent at `now` (0 when it may go at once). */
export function sqsDelaySeconds(
  dueAt: number | undefined,
  now: number,
  precision: WaitPrecision = 'exact',
  maxDelaySeconds = 900,
): number {
  const plan = planWait(dueAt, now, precision, maxDelaySeconds);
  return plan.kind === 'hop' ? plan.delaySeconds : 0;
}

/**
 * The retry engine's rules, as pure functions of their inputs. The clock (`now`) and the random
 * source are always arguments, so every rule, jitter included, is table-tested.
 */
import type { AttemptResult, DeadLetterReason, DeliveryOutcome, RetryPolicy } from '../../domain/model';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export interface Range {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/** A delivery profile: the schedule and limits one kind of topic follows. Pure data. */
export interface DeliveryProfile {
  readonly name: 'topic' | 'namespace';
  /** 1 in production; {@link scaleProfile} records the divisor it applied to every duration. */
  readonly timeScale: number;
  /** Delay before attempt n + 1 after n failed attempts: `retryDelaysMs[n - 1]`, then `repeatDelayMs`. */
  readonly retryDelaysMs: readonly number[];
  readonly repeatDelayMs: number;
  /** HTTP statuses that end delivery at once. */
  readonly noRetryStatuses: readonly number[];
  /** Outcomes (without an HTTP status) that end delivery at once. */
  readonly noRetryOutcomes: readonly DeliveryOutcome[];
  /** Minimum delay before the next attempt, by the failed attempt's HTTP status. */
  readonly statusFloorsMs: Readonly<Record<number, number>>;
  /** Minimum delay for every other failure. */
  readonly defaultFloorMs: number;
  /** Jitter added to each delay: uniform in [0, min(ratio * delay, maxMs)). */
  readonly jitter: { readonly ratio: number; readonly maxMs: number };
  /** Largest `Retry-After` (429/503) honoured as a floor; longer asks are capped to this. */
  readonly maxRetryAfterMs: number;
  readonly limits: { readonly maxDeliveryAttempts: Range; readonly eventTimeToLiveInMinutes: Range };
}

/** Classic topics: the schedule and limits of DELIVERY.md's `topic` profile. */
export const TOPIC_PROFILE: DeliveryProfile = {
  name: 'topic',
  timeScale: 1,
  retryDelaysMs: [
    10 * SECOND,
    30 * SECOND,
    1 * MINUTE,
    5 * MINUTE,
    10 * MINUTE,
    30 * MINUTE,
    1 * HOUR,
    3 * HOUR,
    6 * HOUR,
  ],
  repeatDelayMs: 12 * HOUR,
  noRetryStatuses: [400, 401, 403, 413],
  noRetryOutcomes: [],
  statusFloorsMs: { 408: 2 * MINUTE, 503: 30 * SECOND },
  defaultFloorMs: 10 * SECOND,
  jitter: { ratio: 0.1, maxMs: 1 * MINUTE },
  maxRetryAfterMs: 1 * HOUR,
  limits: {
    maxDeliveryAttempts: { min: 1, max: 30, default: 30 },
    eventTimeToLiveInMinutes: { min: 1, max: 1440, default: 1440 },
  },
};

/**
 * The same profile with every duration divided by `timeScale` (local demos and tests run a day
 * of retries in minutes). Limits stay as they are: they are counts and user-facing minutes.
 */
export function scaleProfile(profile: DeliveryProfile, timeScale: number): DeliveryProfile {
  if (!(timeScale >= 1)) throw new RangeError(`timeScale must be a number >= 1 (got ${timeScale})`);
  if (timeScale === 1) return profile;
  const scale = (ms: number) => ms / timeScale;
  return {
    ...profile,
    timeScale: profile.timeScale * timeScale,
    retryDelaysMs: profile.retryDelaysMs.map(scale),
    repeatDelayMs: scale(profile.repeatDelayMs),
    statusFloorsMs: Object.fromEntries(
      Object.entries(profile.statusFloorsMs).map(([status, ms]) => [status, scale(ms)]),
    ),
    defaultFloorMs: scale(profile.defaultFloorMs),
    jitter: { ratio: profile.jitter.ratio, maxMs: scale(profile.jitter.maxMs) },
    maxRetryAfterMs: scale(profile.maxRetryAfterMs),
  };
}

/** The event's time to live in ms, divided by the time scale. */
export const timeToLiveMs = (policy: RetryPolicy, timeScale = 1): number =>
  (policy.eventTimeToLiveInMinutes * MINUTE) / timeScale;

/** The schedule's delay after `failedAttempts` failed attempts (1 = after the first attempt). */
export function scheduledDelayMs(profile: DeliveryProfile, failedAttempts: number): number {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) {
    throw new RangeError(`failedAttempts must be an integer >= 1 (got ${failedAttempts})`);
  }
  return profile.retryDelaysMs[failedAttempts - 1] ?? profile.repeatDelayMs;
}

/** The minimum wait the failed attempt's answer imposes, `Retry-After` included. */
export function retryFloorMs(
  profile: DeliveryProfile,
  result: Pick<AttemptResult, 'httpStatus' | 'retryAfterSeconds'>,
): number {
  const statusFloor =
    result.httpStatus === undefined
      ? profile.defaultFloorMs
      : (profile.statusFloorsMs[result.httpStatus] ?? profile.defaultFloorMs);
  const honoursRetryAfter = result.httpStatus === 429 || result.httpStatus === 503;
  if (!honoursRetryAfter || result.retryAfterSeconds === undefined) return statusFloor;
  const askedMs = (result.retryAfterSeconds * SECOND) / profile.timeScale;
  return Math.max(statusFloor, Math.min(askedMs, profile.maxRetryAfterMs));
}

/** The delay before jitter: the schedule's step, raised to the failed answer's floor. */
export const baseDelayMs = (
  profile: DeliveryProfile,
  attemptsMade: number,
  result: Pick<AttemptResult, 'httpStatus' | 'retryAfterSeconds'>,
): number => Math.max(scheduledDelayMs(profile, attemptsMade), retryFloorMs(profile, result));

/** Jitter for a delay: `random` is a uniform draw in [0, 1). */
export function jitterMs(profile: DeliveryProfile, delayMs: number, random: number): number {
  if (!(random >= 0 && random < 1)) throw new RangeError(`random must be in [0, 1) (got ${random})`);
  return random * Math.min(delayMs * profile.jitter.ratio, profile.jitter.maxMs);
}

/** Whether a failed attempt may be retried at all under this profile. */
export function isRetriable(
  profile: DeliveryProfile,
  result: Pick<AttemptResult, 'httpStatus' | 'outcome'>,
): boolean {
  if (result.httpStatus !== undefined && profile.noRetryStatuses.includes(result.httpStatus)) return false;
  if (result.outcome !== undefined && profile.noRetryOutcomes.includes(result.outcome)) return false;
  return true;
}

export type FailureDecision =
  | { readonly action: 'retry'; readonly delayMs: number; readonly dueAt: number }
  | { readonly action: 'deadLetter'; readonly reason: DeadLetterReason };

export interface FailureInput {
  readonly profile: DeliveryProfile;
  readonly policy: RetryPolicy;
  /** Attempts made, counting the one that just failed. */
  readonly attemptsMade: number;
  readonly result: Pick<AttemptResult, 'httpStatus' | 'outcome' | 'retryAfterSeconds'>;
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
  const { profile, policy, attemptsMade, result, now, random } = input;
  if (!isRetriable(profile, result)) return { action: 'deadLetter', reason: 'NonRetriableOutcome' };
  if (attemptsMade >= policy.maxDeliveryAttempts)
    return { action: 'deadLetter', reason: 'MaxDeliveryAttemptsExceeded' };
  const baseMs = baseDelayMs(profile, attemptsMade, result);
  const delayMs = baseMs + jitterMs(profile, baseMs, random);
  return { action: 'retry', delayMs, dueAt: now + delayMs };
}

/**
 * The TTL check made when an attempt comes due (never in between): an event older than its
 * time to live is not attempted and ends with `TimeToLiveExceeded`.
 */
export const expiresAtDue = (publishedAt: number, policy: RetryPolicy, now: number, timeScale = 1): boolean =>
  now - publishedAt >= timeToLiveMs(policy, timeScale);

/** Below this much remaining wait, a consumer sleeps instead of sending the job round again. */
export const SHORT_WAIT_MS = 1000;

export type WaitPlan =
  | { readonly kind: 'due' }
  /** Less than a second left: wait in place (SQS delays count whole seconds). */
  | { readonly kind: 'sleep'; readonly ms: number }
  /** Send the job again with this delay; it may need further hops when more than 900 s remain. */
  | { readonly kind: 'hop'; readonly delaySeconds: number };

/**
 * How a consumer handles a job that is due at `dueAt`. Delays are rounded down to whole seconds
 * and capped at SQS's 900 s, so a message never surfaces after its due time because of rounding,
 * and a wait longer than 15 minutes becomes several hops; the last sub-second is slept away.
 */
export function planWait(dueAt: number | undefined, now: number, maxDelaySeconds = 900): WaitPlan {
  if (dueAt === undefined) return { kind: 'due' };
  const remainingMs = dueAt - now;
  if (remainingMs <= 0) return { kind: 'due' };
  if (remainingMs < SHORT_WAIT_MS) return { kind: 'sleep', ms: remainingMs };
  return { kind: 'hop', delaySeconds: Math.min(maxDelaySeconds, Math.floor(remainingMs / SECOND)) };
}

/** The SQS `DelaySeconds` for a job due at `dueAt` sent at `now` (0 when due within a second). */
export function sqsDelaySeconds(dueAt: number | undefined, now: number, maxDelaySeconds = 900): number {
  const plan = planWait(dueAt, now, maxDelaySeconds);
  return plan.kind === 'hop' ? plan.delaySeconds : 0;
}

/**
 * Delivery profiles: the schedule and limits one kind of topic follows, as pure data. A
 * subscription names its profile; the engine looks it up here, so one delivery function serves
 * every kind of topic and tests or the local stack shrink time without touching any rule.
 */
import type { DeadLetterReason, DeliveryOutcome, DeliveryProfileName } from '../../domain/model';

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
  readonly name: DeliveryProfileName;
  /** 1 in production; {@link scaleProfile} records the divisor it applied to every duration. */
  readonly timeScale: number;
  /** Delay before attempt n + 1 after n failed attempts: `retryDelaysMs[n - 1]`, then `repeatDelayMs`. */
  readonly retryDelaysMs: readonly number[];
  readonly repeatDelayMs: number;
  /** HTTP statuses that end delivery at once. */
  readonly noRetryStatuses: readonly number[];
  /**
   * Outcomes that end delivery at once when the attempt got no HTTP answer at all (transport
   * conditions: a timeout, a socket error...). An HTTP answer is judged by its status only, so a
   * 408 or 504 (also `TimedOut`) is not affected.
   */
  readonly noRetryTransportOutcomes: readonly DeliveryOutcome[];
  /**
   * Codes of transport errors that end delivery at once whatever their outcome's rule says: a
   * configuration error that retrying can't fix (the endpoint's name no longer exists).
   */
  readonly noRetryErrorCodes: readonly string[];
  /**
   * Outcomes that end delivery at once, with the reason recorded (`Disabled`, a 410 Gone: the
   * endpoint's other pending deliveries end too, see `rules/health.ts`).
   */
  readonly endingOutcomes: Readonly<Partial<Record<DeliveryOutcome, DeadLetterReason>>>;
  /** Minimum delay before the next attempt, by the failed attempt's HTTP status. */
  readonly statusFloorsMs: Readonly<Record<number, number>>;
  /** Minimum delay for every other failure. */
  readonly defaultFloorMs: number;
  /** Jitter added to each delay: uniform in [0, min(ratio * delay, maxMs)). */
  readonly jitter: { readonly ratio: number; readonly maxMs: number };
  /** Largest `Retry-After` (429/503) honoured as a floor; longer asks are capped to this. */
  readonly maxRetryAfterMs: number;
  /**
   * Dead letters: the blob layout and record format (`topic`: the classic key and records in the
   * subscription's delivery schema; `namespace`: the namespace key and record envelope, see
   * `rules/dead-letter-layout.ts`), and the timing: how long ended deliveries wait (so writes
   * group), how long a failing write is retried, and how often (after the n-th failed write
   * `retryDelaysMs[n - 1]`, then `retryDelayMs`; see {@link deadLetterRetryDelayMs}).
   */
  readonly deadLetter: {
    readonly layout: 'topic' | 'namespace';
    readonly writeDelayMs: number;
    readonly giveUpAfterMs: number;
    readonly retryDelaysMs: readonly number[];
    readonly retryDelayMs: number;
  };
  /**
   * What a subscription may ask for: attempts (`maxDeliveryAttempts` of classic subscriptions,
   * `maxDeliveryCount` of namespace ones) and time to live in minutes (`eventTimeToLiveInMinutes`,
   * or the ISO 8601 `eventTimeToLive` of namespace subscriptions, which has minute precision).
   */
  readonly limits: {
    readonly maxDeliveryAttempts: Range;
    readonly eventTimeToLiveInMinutes: Range;
    /**
     * A subscription's own retry schedule (`retryPolicy.retrySchedule`): at most `maxSteps`
     * steps, each from `minStepMs` to `maxStepMs` (real time).
     */
    readonly retrySchedule: {
      readonly minStepMs: number;
      readonly maxStepMs: number;
      readonly maxSteps: number;
    };
  };
  /** Endpoint health: probation by outcome, and when (and how long) a failing endpoint is held. */
  readonly health: {
    /** Probation after a failure with this outcome; outcomes not listed begin none on their own. */
    readonly probationMs: Readonly<Partial<Record<DeliveryOutcome, number>>>;
    /**
     * Answers about the event rather than the endpoint (400, 413: the endpoint is up and answered):
     * they end that event and change nothing in the endpoint's health.
     */
    readonly neutralOutcomes: readonly DeliveryOutcome[];
    /** Failures in a row after which the endpoint is unhealthy: every failure then holds it. */
    readonly unhealthyAfterFailures: number;
    /** An unhealthy endpoint's hold: `ratio` of the time it has been unhealthy, within [minMs, maxMs]. */
    readonly unhealthyHold: { readonly minMs: number; readonly maxMs: number; readonly ratio: number };
  };
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
  // A connection refused because the endpoint resolves to a non-public address: policy, not luck.
  noRetryTransportOutcomes: ['Forbidden'],
  // The name server answered that the endpoint's name does not exist (a deleted endpoint): the
  // page dead-letters or drops such configuration errors. Both stay `ResolutionError`; a name
  // server that could not answer (EAI_AGAIN) is retried like any outage.
  noRetryErrorCodes: ['ENOTFOUND', 'EAI_NONAME'],
  endingOutcomes: { Disabled: 'EndpointDisabled' },
  statusFloorsMs: { 408: 2 * MINUTE, 503: 30 * SECOND },
  defaultFloorMs: 10 * SECOND,
  jitter: { ratio: 0.1, maxMs: 1 * MINUTE },
  maxRetryAfterMs: 1 * HOUR,
  deadLetter: {
    layout: 'topic',
    writeDelayMs: 5 * MINUTE,
    giveUpAfterMs: 4 * HOUR,
    retryDelaysMs: [],
    retryDelayMs: 5 * MINUTE,
  },
  limits: {
    maxDeliveryAttempts: { min: 1, max: 30, default: 30 },
    eventTimeToLiveInMinutes: { min: 1, max: 1440, default: 1440 },
    // From the schedule's first step to its longest: a step of one's own stays within them.
    retrySchedule: { minStepMs: 10 * SECOND, maxStepMs: 12 * HOUR, maxSteps: 30 },
  },
  health: {
    probationMs: {
      Busy: 10 * SECOND,
      TimedOut: 10 * SECOND,
      SocketError: 30 * SECOND,
      NotFound: 5 * MINUTE,
      ResolutionError: 5 * MINUTE,
      Unauthorized: 5 * MINUTE,
      Forbidden: 5 * MINUTE,
      Disabled: 5 * MINUTE,
      Full: 5 * MINUTE,
      InvalidAzureFunctionDestination: 10 * MINUTE,
    },
    neutralOutcomes: ['BadRequest', 'PayloadTooLarge'],
    unhealthyAfterFailures: 10,
    unhealthyHold: { minMs: 1 * MINUTE, maxMs: 3 * HOUR, ratio: 0.5 },
  },
};

/**
 * Delays between attempts from a timeline of attempt times counted from the first attempt:
 * `[0, 10 s, 30 s]` gives `[10 s, 20 s]`.
 */
export function delaysBetween(attemptTimesMs: readonly number[]): number[] {
  return attemptTimesMs.slice(1).map((at, index) => at - (attemptTimesMs[index] as number));
}

/**
 * When a namespace subscription's attempts fall, counted from the first one: the original's
 * page lists 0 s (at once), 10 s, 30 s, 1 min and 5 min, then one every 5 minutes. Its own
 * worked example counts these as attempt times (retention 20 minutes: the 8th attempt falls at
 * 20 minutes, after 0 s, 10 s, 30 s, 1 min, 5 min, 10 min and 15 min), so the profile keeps the
 * timeline and derives the delays between attempts from it.
 */
export const NAMESPACE_ATTEMPT_TIMES_MS: readonly number[] = [
  0,
  10 * SECOND,
  30 * SECOND,
  1 * MINUTE,
  5 * MINUTE,
];

/**
 * Push subscriptions of namespace topics: DELIVERY.md's `namespace` profile. A no-retry list of
 * its own: 400, 401, 403, 404 and 414 from the page's list of error codes, 413 from its status
 * table (and its dead-letter section, which dead-letters 400 and 413 at once), and the transport
 * conditions (invalid argument, timeout, unauthorized access, cancelled operation, socket error).
 * The status table's floors are the classic ones: 408 waits 2 minutes or more, 503 30 seconds or
 * more, any other failure 10 seconds or more (which the schedule's shortest step already is). At
 * most 10 attempts and up to 7 days to live. Health is the classic one: the original documents
 * no other. Dead letters use the namespace layout and record envelope, and a failing write is
 * retried after 10 s, 1 min, 5 min, then every 5 minutes (SURFACE.md); the 5 minute write delay
 * and the 4 hour limit are the classic ones (documented for no other).
 */
export const NAMESPACE_PROFILE: DeliveryProfile = {
  ...TOPIC_PROFILE,
  name: 'namespace',
  retryDelaysMs: delaysBetween(NAMESPACE_ATTEMPT_TIMES_MS),
  repeatDelayMs: 5 * MINUTE,
  noRetryStatuses: [400, 401, 403, 404, 413, 414],
  noRetryTransportOutcomes: [
    // A request that could not be built (undici's invalid argument): the original's ArgumentException.
    'GenericError',
    'TimedOut',
    'Unauthorized',
    'Canceled',
    'SocketError',
    // A connection refused because the endpoint resolves to a non-public address.
    'Forbidden',
  ],
  deadLetter: {
    ...TOPIC_PROFILE.deadLetter,
    layout: 'namespace',
    retryDelaysMs: [10 * SECOND, 1 * MINUTE, 5 * MINUTE],
    retryDelayMs: 5 * MINUTE,
  },
  limits: {
    maxDeliveryAttempts: { min: 1, max: 10, default: 10 },
    // PT1M .. P7D; a subscription's own default is its topic's retention (see the management API).
    eventTimeToLiveInMinutes: { min: 1, max: 7 * 24 * 60, default: 7 * 24 * 60 },
    retrySchedule: { minStepMs: 10 * SECOND, maxStepMs: 12 * HOUR, maxSteps: 10 },
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
    health: {
      probationMs: Object.fromEntries(
        Object.entries(profile.health.probationMs).map(([outcome, ms]) => [outcome, scale(ms)]),
      ),
      neutralOutcomes: profile.health.neutralOutcomes,
      unhealthyAfterFailures: profile.health.unhealthyAfterFailures,
      unhealthyHold: {
        minMs: scale(profile.health.unhealthyHold.minMs),
        maxMs: scale(profile.health.unhealthyHold.maxMs),
        ratio: profile.health.unhealthyHold.ratio,
      },
    },
    deadLetter: {
      layout: profile.deadLetter.layout,
      writeDelayMs: scale(profile.deadLetter.writeDelayMs),
      giveUpAfterMs: scale(profile.deadLetter.giveUpAfterMs),
      retryDelaysMs: profile.deadLetter.retryDelaysMs.map(scale),
      retryDelayMs: scale(profile.deadLetter.retryDelayMs),
    },
  };
}

/**
 * How long a dead-letter write waits after its `failedWrites`-th failure (1 for the first):
 * the profile's steps, then its repeat delay.
 */
export const deadLetterRetryDelayMs = (
  timing: Pick<DeliveryProfile['deadLetter'], 'retryDelaysMs' | 'retryDelayMs'>,
  failedWrites: number,
): number => timing.retryDelaysMs[Math.max(1, failedWrites) - 1] ?? timing.retryDelayMs;

/**
 * Since when (epoch ms) a dead letter's destination has been unavailable, at `now`, a write of it
 * having just failed: since its first failed write (`firstFailedWriteAt`); `now` for its first;
 * when delivery ended for one re-queued before first failed writes were recorded.
 */
export const deadLetterUnavailableSince = (
  entry: { endedAt: number; failedWrites?: number; firstFailedWriteAt?: number },
  now: number,
): number => entry.firstFailedWriteAt ?? (entry.failedWrites === undefined ? now : entry.endedAt);

/**
 * Whether a dead letter whose write just failed is given up (dropped): its destination has been
 * unavailable for `giveUpAfterMs` (4 hours), counted from its first failed write.
 */
export const deadLetterGivesUp = (
  timing: Pick<DeliveryProfile['deadLetter'], 'giveUpAfterMs'>,
  entry: { endedAt: number; failedWrites?: number; firstFailedWriteAt?: number },
  now: number,
): boolean => now - deadLetterUnavailableSince(entry, now) >= timing.giveUpAfterMs;

/** Every profile by name, at real time (time scale 1). */
export const DELIVERY_PROFILES: Readonly<Record<DeliveryProfileName, DeliveryProfile>> = {
  topic: TOPIC_PROFILE,
  namespace: NAMESPACE_PROFILE,
};

export type ProfileTable = Readonly<Record<DeliveryProfileName, DeliveryProfile>>;

/** Every profile divided by `timeScale` (1 on AWS). */
export function scaleProfiles(timeScale: number, profiles: ProfileTable = DELIVERY_PROFILES): ProfileTable {
  return Object.fromEntries(
    Object.entries(profiles).map(([name, profile]) => [name, scaleProfile(profile, timeScale)]),
  ) as unknown as ProfileTable;
}

/**
 * Endpoint health as pure rules: which failures put a subscription on probation and for how
 * long, when a failing endpoint counts as unhealthy and how its holds grow, when it has
 * recovered, what the gate lets through, and which changes must be written at once.
 *
 * Every function takes the time (`at`, `now`) as an argument; the lengths come from the
 * delivery profile, so `--time-scale` shrinks them with every other delay.
 */

import type { EndpointHealth, HealthState } from '../../domain/health';
import type { DeliveryOutcome } from '../../domain/model';
import type { DeliveryProfile } from './profiles';

/** What one attempt told us about the endpoint. */
export interface HealthSignal {
  /** When the attempt started (epoch ms): outcomes are folded in this order. */
  readonly at: number;
  /**
   * When its outcome was known (default `at`): a probation runs from here, so a request that
   * timed out after 30 s still holds the endpoint for its full probation afterwards.
   */
  readonly endedAt?: number;
  readonly outcome: DeliveryOutcome | 'Delivered';
  /** A `Retry-After` the endpoint asked for (429/503), in ms of this profile's time. */
  readonly retryAfterMs?: number;
  /**
   * True for an AWS resource's service error: its `Disabled` (a key or function switched off) is
   * held by probation and retried, and never disables the endpoint as a webhook's 410 Gone does.
   */
  readonly resourceError?: boolean;
}

export type HealthProfile = Pick<DeliveryProfile, 'health' | 'maxRetryAfterMs'> & {
  /**
   * The subscription's `disableAfterFailingFor` in this profile's time: an endpoint that has
   * failed every attempt for this long is disabled; absent or 0: never.
   */
  readonly disableAfterMs?: number;
};

/** A fresh record for an endpoint that has no failures on file. */
export const freshHealth = (topic: string, subscription: string, endpointUrl: string): EndpointHealth => ({
  topic,
  subscription,
  endpointUrl,
  consecutiveFailures: 0,
  probations: 0,
  rev: 0,
});

/**
 * The stored record if it is about this endpoint; a subscription aimed at another URL (or with
 * nothing on file) starts fresh.
 */
export const currentHealth = (
  stored: EndpointHealth | undefined,
  topic: string,
  subscription: string,
  endpointUrl: string,
): EndpointHealth =>
  stored !== undefined && stored.endpointUrl === endpointUrl
    ? stored
    : {
        ...freshHealth(topic, subscription, endpointUrl),
        rev: stored?.rev ?? 0,
        ...(stored?.resetAt === undefined ? {} : { resetAt: stored.resetAt }),
        // A pause is the subscription's, not its endpoint's: aiming it elsewhere keeps it.
        ...(stored?.pausedAt === undefined ? {} : { pausedAt: stored.pausedAt }),
      };

/**
 * Whether the endpoint failed often enough in a row to count as unhealthy (until it delivers
 * again): its probations then grow with the outage.
 */
export const isUnhealthy = (health: EndpointHealth): boolean => health.unhealthySince !== undefined;

/** Whether an admin paused the subscription (until resumed, nothing is sent to its endpoint). */
export const isPaused = (health: EndpointHealth): boolean => health.pausedAt !== undefined;

/**
 * Whether the endpoint's events wait in its backlog rather than hop the retry queue: it is
 * unhealthy, or paused (either way its wait has no end known in advance).
 */
export const holdsInBacklog = (health: EndpointHealth): boolean => isUnhealthy(health) || isPaused(health);

/**
 * How long a paused endpoint's events are held before their backlog looks again (and ends those
 * whose time to live ran out); a resume wakes the backlog at once.
 */
export const PAUSED_HOLD_MS = 60 * 60_000;

/** Whether a drain of the subscription's backlog is running at `now` (its mark has not run out). */
export const isDraining = (health: EndpointHealth, now: number): boolean =>
  health.drainingUntil !== undefined && health.drainingUntil > now;

/** The health with a drain marked as running until `until`, or (`undefined`) the mark removed. */
export function withDrainMark(health: EndpointHealth, until: number | undefined): EndpointHealth {
  const { drainingUntil: _previous, ...rest } = health;
  return until === undefined ? rest : { ...rest, drainingUntil: until };
}

/** The probation an outcome calls for on its own (before any unhealthy hold), or 0. */
export function probationMs(profile: HealthProfile, signal: HealthSignal): number {
  if (signal.outcome === 'Delivered') return 0;
  const base = profile.health.probationMs[signal.outcome] ?? 0;
  if (base === 0 || signal.retryAfterMs === undefined) return base;
  return Math.max(base, Math.min(signal.retryAfterMs, profile.maxRetryAfterMs));
}

/**
 * How long an unhealthy endpoint is held after a failure at `at`: a share of the time it has been
 * unhealthy, at least `minMs` and at most `maxMs`. Holds grow with the outage (1 min, then about
 * half the time it has been failing, up to 3 hours) and need no counter that concurrent workers
 * could double-count.
 */
export function unhealthyHoldMs(profile: HealthProfile, unhealthySince: number, at: number): number {
  const { minMs, maxMs, ratio } = profile.health.unhealthyHold;
  return Math.min(maxMs, Math.max(minMs, (at - unhealthySince) * ratio));
}

/** The health after one more attempt's signal. Signals are folded in the order attempts started. */
export function applySignal(
  profile: HealthProfile,
  health: EndpointHealth,
  signal: HealthSignal,
): EndpointHealth {
  // An outcome of an attempt started before the last reset (an admin's enable) counts for nothing.
  if (health.resetAt !== undefined && signal.at < health.resetAt) return health;
  if (signal.outcome === 'Delivered') {
    const {
      probationUntil: _p,
      probationOutcome: _o,
      unhealthySince: _u,
      failingSince: _f,
      ...rest
    } = health;
    return {
      ...rest,
      consecutiveFailures: 0,
      probations: 0,
      lastOutcome: 'Delivered',
      lastSuccessAt: Math.max(signal.at, health.lastSuccessAt ?? 0),
    };
  }
  // The endpoint answered; the answer is about the event (it ends that event, nothing else).
  if (profile.health.neutralOutcomes.includes(signal.outcome)) return health;
  const failures = health.consecutiveFailures + 1;
  const unhealthySince =
    health.unhealthySince ?? (failures >= profile.health.unhealthyAfterFailures ? signal.at : undefined);
  const endedAt = Math.max(signal.at, signal.endedAt ?? signal.at);
  const holdMs = Math.max(
    probationMs(profile, signal),
    unhealthySince === undefined ? 0 : unhealthyHoldMs(profile, unhealthySince, endedAt),
  );
  const failingSince = Math.min(health.failingSince ?? signal.at, signal.at);
  const disableAfterMs = profile.disableAfterMs ?? 0;
  const disabledNow =
    health.disabledAt !== undefined
      ? undefined
      : signal.outcome === 'Disabled' && signal.resourceError !== true
        ? ('Gone' as const)
        : disableAfterMs > 0 && signal.at - failingSince >= disableAfterMs
          ? ('FailingTooLong' as const)
          : undefined;
  const next: EndpointHealth = {
    ...health,
    consecutiveFailures: failures,
    lastOutcome: signal.outcome,
    lastFailureAt: Math.max(signal.at, health.lastFailureAt ?? 0),
    failingSince,
    ...(unhealthySince === undefined ? {} : { unhealthySince }),
    ...(disabledNow === undefined ? {} : { disabledAt: signal.at, disabledReason: disabledNow }),
  };
  if (holdMs === 0) return next;
  const until = endedAt + holdMs;
  const current = health.probationUntil ?? 0;
  if (until <= current) return next;
  // A failure inside a probation extends it; one after it begins a new one.
  const begins = current <= endedAt;
  return {
    ...next,
    probationUntil: until,
    probationOutcome: signal.outcome,
    probations: health.probations + (begins ? 1 : 0),
  };
}

export const applySignals = (
  profile: HealthProfile,
  health: EndpointHealth,
  signals: readonly HealthSignal[],
): EndpointHealth =>
  [...signals].sort((a, b) => a.at - b.at).reduce((h, signal) => applySignal(profile, h, signal), health);

/** What the gate lets through for an endpoint at `now`. */
export type Gate =
  | { readonly kind: 'open' }
  /** Recovering from a probation: one attempt at a time per worker, to see if it answers again. */
  | { readonly kind: 'probe' }
  /** On probation (or held while unhealthy): no attempt before `until`. */
  | {
      readonly kind: 'hold';
      readonly until: number;
      readonly outcome: DeliveryOutcome | undefined;
      /**
       * When held events are due, if not at `until`: a paused endpoint's are due at once, so the
       * backlog sends them as soon as it is resumed, while `until` only says when to look again.
       */
      readonly dueAt?: number;
    }
  /** Answered 410 Gone: pending deliveries end until an admin enables it. */
  | { readonly kind: 'disabled' };

export function gateOf(health: EndpointHealth, now: number): Gate {
  if (health.disabledAt !== undefined) return { kind: 'disabled' };
  // Paused: held like a probation with no known end, looked at again every PAUSED_HOLD_MS.
  if (health.pausedAt !== undefined) {
    return { kind: 'hold', until: now + PAUSED_HOLD_MS, outcome: undefined, dueAt: now };
  }
  if (health.probationUntil !== undefined && health.probationUntil > now) {
    return { kind: 'hold', until: health.probationUntil, outcome: health.probationOutcome };
  }
  if (health.probations > 0 && health.consecutiveFailures > 0) return { kind: 'probe' };
  return { kind: 'open' };
}

/** Whether the gate lets requests through one at a time (the endpoint is recovering). */
export const isProbing = (health: EndpointHealth | undefined, now: number): boolean =>
  health !== undefined && gateOf(health, now).kind === 'probe';

/** The state operators see. */
export function healthState(health: EndpointHealth, now: number): HealthState {
  if (health.disabledAt !== undefined) return 'Disabled';
  if (health.pausedAt !== undefined) return 'Paused';
  if (health.unhealthySince !== undefined) return 'Unhealthy';
  if (health.probationUntil !== undefined && health.probationUntil > now) return 'Probation';
  return 'Healthy';
}

/**
 * Whether a change must be written at once: it changes what other workers' gates let through
 * (a probation begins, the endpoint turns unhealthy or is disabled, or it recovered from a
 * probation or hold). Anything else (failure counters going up or back to 0 between successes,
 * a probation extended by a failure inside it) can wait for the next time slice, and a success of
 * an endpoint with no failures on file is never written.
 */
export function writeUrgency(
  before: EndpointHealth,
  after: EndpointHealth,
  now: number,
): 'now' | 'later' | 'none' {
  const gateBefore = gateOf(before, now).kind;
  const gateAfter = gateOf(after, now).kind;
  if (gateBefore !== gateAfter) return 'now';
  if ((before.unhealthySince === undefined) !== (after.unhealthySince === undefined)) return 'now';
  if (after.disabledAt !== before.disabledAt) return 'now';
  if (after.pausedAt !== before.pausedAt) return 'now';
  if (after.consecutiveFailures === 0 && before.consecutiveFailures === 0) return 'none';
  return after.consecutiveFailures !== before.consecutiveFailures ||
    after.probationUntil !== before.probationUntil
    ? 'later'
    : 'none';
}

/**
 * The retry engine simulation's (`simulation.ts`) check of every attempt: never before the due
 * time its event was queued or stored with, and each wait between attempts within its schedule
 * step and jitter bound (unless a hold timed it).
 */
import { TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { baseDelayMs } from '../shared/delivery/rules/retry';

/** How late SQS's whole-second delays may make an attempt at real time (never early). */
export const SQS_ROUNDING_MS = 1000;

export interface AttemptLog {
  at: number;
  status: number;
  /** The due time the event last had when it was queued or stored, if known. */
  dueAt: number | undefined;
  /** Whether a hold (probation) kept the event since its previous attempt. */
  held: boolean;
}

/** What the attempts of every event add up to, and how their waits compare with the schedule. */
export interface AttemptTally {
  attempts: number;
  /** Events with a successful attempt. */
  delivered: number;
  /** Attempts and delivered events by pattern (the part of the log's id before `/`). */
  byPattern: Map<string, { delivered: number; attempts: number }>;
  waitsChecked: number;
  violations: number;
  maxJitterMs: number;
  maxJitterBoundMs: number;
  early: number;
  heldWaits: number;
}

/** Tallies the attempts of every event (by `<pattern>/<event id>`), checking each wait. */
export function tallyAttempts(attempts: ReadonlyMap<string, readonly AttemptLog[]>): AttemptTally {
  let waitsChecked = 0;
  let violations = 0;
  let maxJitterMs = 0;
  let maxJitterBoundMs = 0;
  let delivered = 0;
  let attemptCount = 0;
  let early = 0;
  let heldWaits = 0;
  const byPattern = new Map<string, { delivered: number; attempts: number }>();
  for (const [id, log] of attempts) {
    const name = id.split('/')[0] ?? '';
    const stats = byPattern.get(name) ?? { delivered: 0, attempts: 0 };
    stats.attempts += log.length;
    attemptCount += log.length;
    if (log.some((attempt) => attempt.status >= 200 && attempt.status <= 204)) {
      stats.delivered += 1;
      delivered += 1;
    }
    byPattern.set(name, stats);
    // Never before the due time the event was queued or stored with (due times may carry a
    // fraction of a millisecond; they travel rounded up).
    early += log.filter(
      (attempt) => attempt.dueAt !== undefined && attempt.at < Math.floor(attempt.dueAt),
    ).length;
    for (let n = 1; n < log.length; n += 1) {
      const previous = log[n - 1] as AttemptLog;
      if ((log[n] as AttemptLog).held) {
        // A hold kept it past its step: the schedule is not what timed this attempt.
        heldWaits += 1;
        continue;
      }
      const base = baseDelayMs(TOPIC_PROFILE, n, { httpStatus: previous.status });
      // SQS delays are whole seconds: at real time a job surfaces up to a second after it is due.
      const bound = Math.min(base * TOPIC_PROFILE.jitter.ratio, TOPIC_PROFILE.jitter.maxMs) + SQS_ROUNDING_MS;
      const wait = (log[n] as AttemptLog).at - previous.at;
      waitsChecked += 1;
      maxJitterMs = Math.max(maxJitterMs, wait - base);
      maxJitterBoundMs = Math.max(maxJitterBoundMs, bound);
      // (`>`: due times travel as whole milliseconds, rounded up, so a wait may reach the bound.)
      if (wait < base || wait > base + bound) violations += 1;
    }
  }
  return {
    attempts: attemptCount,
    delivered,
    byPattern,
    waitsChecked,
    violations,
    maxJitterMs,
    maxJitterBoundMs,
    early,
    heldWaits,
  };
}

import { scaleProfile, TOPIC_PROFILE } from '../../../../shared/delivery/rules/profiles';
import {
  baseDelayMs,
  decideAfterFailure,
  expiresAtDue,
  isRetriable,
  jitterMs,
  planWait,
  retryFloorMs,
  scheduledDelayMs,
  sqsDelaySeconds,
  timeToLiveMs,
  waitPrecisionOf,
} from '../../../../shared/delivery/rules/retry';
import { type RetryPolicy, retryLimitsOf } from '../../../../shared/domain/model';
import { H, M, S } from '../../../support/time';

const DEFAULT_POLICY: RetryPolicy = { maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 };

/** Walks an always-failing event through the pure rules; returns attempt times and the end. */
function simulate(policy: RetryPolicy, status: number, random = 0) {
  const attempts: number[] = [];
  let now = 0;
  for (;;) {
    if (expiresAtDue(0, retryLimitsOf(policy), now, TOPIC_PROFILE))
      return { attempts, end: { reason: 'TimeToLiveExceeded', at: now } };
    attempts.push(now);
    const decision = decideAfterFailure({
      profile: TOPIC_PROFILE,
      limits: retryLimitsOf(policy),
      attemptsMade: attempts.length,
      result: { httpStatus: status },
      now,
      random,
    });
    if (decision.action === 'deadLetter') return { attempts, end: { reason: decision.reason, at: now } };
    now = decision.dueAt;
  }
}

describe('retry schedule (topic profile)', () => {
  it.each([
    [1, 10 * S],
    [2, 30 * S],
    [3, 1 * M],
    [4, 5 * M],
    [5, 10 * M],
    [6, 30 * M],
    [7, 1 * H],
    [8, 3 * H],
    [9, 6 * H],
    [10, 12 * H],
    [11, 12 * H],
    [29, 12 * H],
  ])('after %i failed attempt(s) the next one waits %i ms', (failed, expected) => {
    expect(scheduledDelayMs(TOPIC_PROFILE, failed)).toBe(expected);
  });

  it('rejects an attempt count below 1', () => {
    expect(() => scheduledDelayMs(TOPIC_PROFILE, 0)).toThrow(/failedAttempts must be an integer >= 1/);
  });
});

describe('status codes', () => {
  it.each([
    [400, false],
    [401, false],
    [403, false],
    [413, false],
    [404, true],
    [408, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [301, true],
  ])('status %i is retried: %s', (status, retried) => {
    expect(isRetriable(TOPIC_PROFILE, { httpStatus: status })).toBe(retried);
  });

  it.each([400, 401, 403, 413])('status %i ends delivery at once, even on the first attempt', (status) => {
    expect(
      decideAfterFailure({
        profile: TOPIC_PROFILE,
        limits: retryLimitsOf(DEFAULT_POLICY),
        attemptsMade: 1,
        result: { httpStatus: status },
        now: 0,
        random: 0,
      }),
    ).toEqual({ action: 'deadLetter', reason: 'NonRetriableOutcome' });
  });

  it('410 Gone (Disabled) ends delivery with the reason the profile names: EndpointDisabled', () => {
    expect(isRetriable(TOPIC_PROFILE, { httpStatus: 410, outcome: 'Disabled' })).toBe(false);
    expect(
      decideAfterFailure({
        profile: TOPIC_PROFILE,
        limits: retryLimitsOf({ maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 }),
        attemptsMade: 1,
        result: { httpStatus: 410, outcome: 'Disabled' },
        now: 0,
        random: 0,
      }),
    ).toEqual({ action: 'deadLetter', reason: 'EndpointDisabled' });
  });

  it('network failures (no status) are retried', () => {
    expect(isRetriable(TOPIC_PROFILE, { outcome: 'SocketError' })).toBe(true);
    expect(isRetriable(TOPIC_PROFILE, { outcome: 'TimedOut' })).toBe(true);
  });

  // 003 (classic page), "Retry schedule": "If the error returned by the subscribed endpoint is a
  // configuration-related error that can't be fixed with retries (for example, if the endpoint is
  // deleted), Event Grid will either perform dead-lettering on the event or drop the event if
  // dead-letter isn't configured."
  it.each([
    ['ENOTFOUND', false],
    ['EAI_NONAME', false],
    ['EAI_AGAIN', true],
    [undefined, true],
  ])(
    'a ResolutionError with code %s is retried: %s (a name that does not exist is a deleted endpoint)',
    (errorCode, retried) => {
      const result = {
        outcome: 'ResolutionError' as const,
        ...(errorCode === undefined ? {} : { errorCode }),
      };
      expect(isRetriable(TOPIC_PROFILE, result)).toBe(retried);
      const decision = decideAfterFailure({
        profile: TOPIC_PROFILE,
        limits: retryLimitsOf(DEFAULT_POLICY),
        attemptsMade: 1,
        result,
        now: 0,
        random: 0,
      });
      expect(decision.action).toBe(retried ? 'retry' : 'deadLetter');
      if (!retried) expect(decision).toEqual({ action: 'deadLetter', reason: 'NonRetriableOutcome' });
    },
  );

  it('an error code only decides failures without an HTTP answer', () => {
    expect(
      isRetriable(TOPIC_PROFILE, { httpStatus: 500, outcome: 'GenericError', errorCode: 'ENOTFOUND' }),
    ).toBe(true);
  });

  it.each([
    // status, failed attempts so far, expected delay before jitter
    [408, 1, 2 * M],
    [408, 4, 5 * M],
    [503, 1, 30 * S],
    [503, 2, 30 * S],
    [503, 3, 1 * M],
    [500, 1, 10 * S],
    [404, 1, 10 * S],
    [404, 4, 5 * M],
    [undefined, 1, 10 * S],
  ])('status %s after %i failure(s) waits at least %i ms', (status, failed, expected) => {
    expect(baseDelayMs(TOPIC_PROFILE, failed, { httpStatus: status })).toBe(expected);
  });

  it.each([
    [429, 120, 120 * S],
    [503, 5, 30 * S],
    [503, 90, 90 * S],
    [429, 86_400, 1 * H],
    [500, 120, 10 * S],
  ])(
    'status %i with Retry-After %i s sets a floor of %i ms (capped at 1 h, only for 429/503)',
    (status, seconds, expected) => {
      expect(retryFloorMs(TOPIC_PROFILE, { httpStatus: status, retryAfterSeconds: seconds })).toBe(expected);
    },
  );
});

describe('jitter', () => {
  it('adds nothing for a draw of 0', () => {
    expect(jitterMs(TOPIC_PROFILE, 10 * S, 0)).toBe(0);
  });

  it.each([
    [10 * S, 1 * S],
    [5 * M, 30 * S],
    [10 * M, 60 * S],
    [12 * H, 60 * S],
  ])('for a %i ms delay stays below %i ms (10%%, at most a minute)', (delay, bound) => {
    expect(jitterMs(TOPIC_PROFILE, delay, 0.999_999)).toBeLessThan(bound);
    expect(jitterMs(TOPIC_PROFILE, delay, 0.999_999)).toBeGreaterThan(bound * 0.99);
  });

  it.each([-0.1, 1, Number.NaN])('refuses a draw of %s', (draw) => {
    expect(() => jitterMs(TOPIC_PROFILE, 10 * S, draw)).toThrow(/random must be in \[0, 1\)/);
  });

  it('is added to the delay the decision returns', () => {
    const decision = decideAfterFailure({
      profile: TOPIC_PROFILE,
      limits: retryLimitsOf(DEFAULT_POLICY),
      attemptsMade: 2,
      result: { httpStatus: 500 },
      now: 1_000_000,
      random: 0.5,
    });
    expect(decision).toEqual({ action: 'retry', delayMs: 30 * S + 1.5 * S, dueAt: 1_000_000 + 31.5 * S });
  });
});

describe('limits', () => {
  it('stops at max attempts', () => {
    const policy = { maxDeliveryAttempts: 3, eventTimeToLiveInMinutes: 1440 };
    const decide = (attemptsMade: number) =>
      decideAfterFailure({
        profile: TOPIC_PROFILE,
        limits: retryLimitsOf(policy),
        attemptsMade,
        result: { httpStatus: 500 },
        now: 0,
        random: 0,
      });
    expect(decide(2).action).toBe('retry');
    expect(decide(3)).toEqual({ action: 'deadLetter', reason: 'MaxDeliveryAttemptsExceeded' });
  });

  it('with max attempts 1, the first failure ends delivery', () => {
    expect(simulate({ maxDeliveryAttempts: 1, eventTimeToLiveInMinutes: 1440 }, 500)).toEqual({
      attempts: [0],
      end: { reason: 'MaxDeliveryAttemptsExceeded', at: 0 },
    });
  });

  it('TTL 30 min with 10 max attempts: 6 attempts, then TTL ends it (the attempt limit never bites)', () => {
    const run = simulate({ maxDeliveryAttempts: 10, eventTimeToLiveInMinutes: 30 }, 500);
    expect(run.attempts).toEqual([0, 10 * S, 40 * S, 100 * S, 400 * S, 1000 * S]);
    expect(run.end).toEqual({ reason: 'TimeToLiveExceeded', at: 2800 * S });
  });

  it('TTL is checked only when the next attempt comes due, not when it passes', () => {
    const policy = { maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1 };
    // Attempts at 0, 10 s, 40 s; the TTL passes at 60 s; the next attempt is due at 100 s.
    expect(expiresAtDue(0, retryLimitsOf(policy), 59_999, TOPIC_PROFILE)).toBe(false);
    expect(expiresAtDue(0, retryLimitsOf(policy), 60_000, TOPIC_PROFILE)).toBe(true);
    const run = simulate(policy, 500);
    expect(run.attempts).toEqual([0, 10 * S, 40 * S]);
    expect(run.end).toEqual({ reason: 'TimeToLiveExceeded', at: 100 * S });
  });

  it('a default subscription failing for a day: 11 attempts on the schedule, ended by TTL at the 12th due time', () => {
    const run = simulate(DEFAULT_POLICY, 500);
    const hms = (h: number, m: number, s: number) => h * H + m * M + s * S;
    expect(run.attempts).toEqual([
      0,
      hms(0, 0, 10),
      hms(0, 0, 40),
      hms(0, 1, 40),
      hms(0, 6, 40),
      hms(0, 16, 40),
      hms(0, 46, 40),
      hms(1, 46, 40),
      hms(4, 46, 40),
      hms(10, 46, 40),
      hms(22, 46, 40),
    ]);
    expect(run.end).toEqual({ reason: 'TimeToLiveExceeded', at: hms(34, 46, 40) });
  });

  it('a 400 on the first attempt ends after exactly one attempt', () => {
    expect(simulate(DEFAULT_POLICY, 400)).toEqual({
      attempts: [0],
      end: { reason: 'NonRetriableOutcome', at: 0 },
    });
  });
});

describe('waiting and hops', () => {
  const now = 1_000_000;
  it.each([
    [undefined, { kind: 'due' }],
    [now - 5, { kind: 'due' }],
    [now, { kind: 'due' }],
    [now + 1, { kind: 'sleep', ms: 1 }],
    [now + 999, { kind: 'sleep', ms: 999 }],
    [now + 1000, { kind: 'hop', delaySeconds: 1 }],
    [now + 10_500, { kind: 'hop', delaySeconds: 10 }],
    [now + 900_000, { kind: 'hop', delaySeconds: 900 }],
    [now + 900_999, { kind: 'hop', delaySeconds: 900 }],
    [now + 3 * H, { kind: 'hop', delaySeconds: 900 }],
  ])('due at %s: %j', (dueAt, plan) => {
    expect(planWait(dueAt, now)).toEqual(plan);
  });

  it.each([
    [10 * S + 500, 1, 1],
    [15 * M, 1, 0],
    [15 * M + 1, 1, 1],
    [3 * H, 12, 0],
    [6 * H + 33_300, 25, 1],
    [12 * H + 59_999, 49, 1],
  ])('a %i ms wait takes %i hop(s) and %i short sleep(s), never surfacing early', (wait, hops, sleeps) => {
    let clock = now;
    const dueAt = now + wait;
    let hopCount = 0;
    let sleepCount = 0;
    for (;;) {
      const plan = planWait(dueAt, clock);
      if (plan.kind === 'due') break;
      if (plan.kind === 'sleep') {
        sleepCount += 1;
        clock += plan.ms;
        continue;
      }
      expect(plan.delaySeconds).toBeLessThanOrEqual(900);
      hopCount += 1;
      clock += plan.delaySeconds * S;
      expect(clock).toBeLessThanOrEqual(dueAt);
    }
    expect(clock).toBe(dueAt);
    expect([hopCount, sleepCount]).toEqual([hops, sleeps]);
  });

  it.each([
    [now - 5, { kind: 'due' }],
    [now, { kind: 'due' }],
    [now + 1, { kind: 'hop', delaySeconds: 1 }],
    [now + 999, { kind: 'hop', delaySeconds: 1 }],
    [now + 1000, { kind: 'hop', delaySeconds: 1 }],
    [now + 10_500, { kind: 'hop', delaySeconds: 11 }],
    [now + 900_999, { kind: 'hop', delaySeconds: 900 }],
  ])('at real time (whole seconds), due at %s: %j: never a sleep, never early', (dueAt, plan) => {
    expect(planWait(dueAt, now, 'whole-seconds')).toEqual(plan);
  });

  it('rounds up at real time and keeps exact time when time is scaled', () => {
    expect(waitPrecisionOf(TOPIC_PROFILE)).toBe('whole-seconds');
    expect(waitPrecisionOf(scaleProfile(TOPIC_PROFILE, 60))).toBe('exact');
    expect(sqsDelaySeconds(now + 12_345, now, 'whole-seconds')).toBe(13);
  });

  it('gives SQS a whole-second delay of at most 900 s, 0 when due within a second', () => {
    expect(sqsDelaySeconds(now + 400, now)).toBe(0);
    expect(sqsDelaySeconds(now + 12_345, now)).toBe(12);
    expect(sqsDelaySeconds(now + 2 * H, now)).toBe(900);
    expect(sqsDelaySeconds(undefined, now)).toBe(0);
  });
});

describe('time scale', () => {
  it('divides every duration of the profile and the TTL', () => {
    const scaled = scaleProfile(TOPIC_PROFILE, 10);
    expect(scaled.retryDelaysMs.slice(0, 3)).toEqual([1 * S, 3 * S, 6 * S]);
    expect(scaled.repeatDelayMs).toBe(72 * M);
    expect(scaled.statusFloorsMs[408]).toBe(12 * S);
    expect(scaled.defaultFloorMs).toBe(1 * S);
    expect(scaled.jitter).toEqual({ ratio: 0.1, maxMs: 6 * S });
    expect(scaled.limits).toEqual(TOPIC_PROFILE.limits);
    expect(
      timeToLiveMs(retryLimitsOf({ maxDeliveryAttempts: 1, eventTimeToLiveInMinutes: 10 }), scaled),
    ).toBe(1 * M);
  });

  it('scales Retry-After the same way', () => {
    expect(retryFloorMs(scaleProfile(TOPIC_PROFILE, 10), { httpStatus: 429, retryAfterSeconds: 120 })).toBe(
      12 * S,
    );
  });

  it('leaves the profile unchanged at 1 and refuses less than 1', () => {
    expect(scaleProfile(TOPIC_PROFILE, 1)).toBe(TOPIC_PROFILE);
    expect(() => scaleProfile(TOPIC_PROFILE, 0.5)).toThrow(/timeScale must be a number >= 1/);
  });
});

describe("a subscription's own retry schedule", () => {
  const own = [10 * S, 1 * M, 10 * M, 1 * H];

  it('takes its steps in order, the last repeating', () => {
    expect([1, 2, 3, 4, 5, 29].map((failed) => scheduledDelayMs(TOPIC_PROFILE, failed, own))).toEqual([
      10 * S,
      1 * M,
      10 * M,
      1 * H,
      1 * H,
      1 * H,
    ]);
  });

  it('is scaled like the profile, and an empty one is the profile', () => {
    expect(scheduledDelayMs(scaleProfile(TOPIC_PROFILE, 60), 2, own)).toBe(1 * S);
    expect(scheduledDelayMs(TOPIC_PROFILE, 2, [])).toBe(30 * S);
  });

  it("still takes the profile's floors and status rules", () => {
    // 408 waits at least 2 minutes, whatever the step.
    expect(baseDelayMs(TOPIC_PROFILE, 1, { httpStatus: 408 }, own)).toBe(2 * M);
    expect(baseDelayMs(TOPIC_PROFILE, 1, { httpStatus: 500 }, own)).toBe(10 * S);
    const limits = { ...retryLimitsOf(DEFAULT_POLICY), scheduleMs: own };
    const after400 = decideAfterFailure({
      profile: TOPIC_PROFILE,
      limits,
      attemptsMade: 1,
      result: { httpStatus: 400 },
      now: 0,
      random: 0,
    });
    expect(after400).toEqual({ action: 'deadLetter', reason: 'NonRetriableOutcome' });
    const after500 = decideAfterFailure({
      profile: TOPIC_PROFILE,
      limits,
      attemptsMade: 3,
      result: { httpStatus: 500 },
      now: 0,
      random: 0,
    });
    expect(after500).toEqual({ action: 'retry', delayMs: 10 * M, dueAt: 10 * M });
  });
});

import { decideJob } from '../../../../shared/delivery/rules/decide';
import {
  DELIVERY_PROFILES,
  delaysBetween,
  NAMESPACE_PROFILE,
  scaleProfile,
  TOPIC_PROFILE,
} from '../../../../shared/delivery/rules/profiles';
import {
  decideAfterFailure,
  expiresAtDue,
  isRetriable,
  retryFloorMs,
  scheduledDelayMs,
} from '../../../../shared/delivery/rules/retry';
import type { AttemptResult } from '../../../../shared/domain/attempts';
import type { DeliveryItem } from '../../../../shared/domain/delivery';
import type { DeliveryOutcome, RetryLimits } from '../../../../shared/domain/model';
import { VirtualClock } from '../../../../shared/platform/clock';
import { item } from '../../../support/fakes';
import { M, S } from '../../../support/time';

describe('namespace profile: the schedule', () => {
  it('is the profile the table names `namespace`', () => {
    expect(DELIVERY_PROFILES.namespace).toBe(NAMESPACE_PROFILE);
    expect(NAMESPACE_PROFILE.name).toBe('namespace');
  });

  it.each([
    // failed attempts so far, delay before the next attempt, when that attempt falls
    [1, 10 * S, 10 * S],
    [2, 20 * S, 30 * S],
    [3, 30 * S, 1 * M],
    [4, 4 * M, 5 * M],
    [5, 5 * M, 10 * M],
    [6, 5 * M, 15 * M],
    [9, 5 * M, 30 * M],
  ])('after %i failed attempt(s) the next waits %i ms (attempt at %i ms)', (failed, delay, at) => {
    expect(scheduledDelayMs(NAMESPACE_PROFILE, failed)).toBe(delay);
    let time = 0;
    for (let n = 1; n <= failed; n += 1) time += scheduledDelayMs(NAMESPACE_PROFILE, n);
    expect(time).toBe(at);
  });

  it('turns a timeline of attempt times into delays between attempts', () => {
    expect(delaysBetween([0, 10 * S, 30 * S, 1 * M, 5 * M])).toEqual([10 * S, 20 * S, 30 * S, 4 * M]);
    expect(delaysBetween([0])).toEqual([]);
  });

  // Seed 002 (namespace push delivery), section 失败代码 (failure codes), its status table:
  // "408 请求超时 2 分钟或更长时间后重试" (408: retried after 2 minutes or more), "503 服务不可用
  // 30 秒或更长时间后重试" (503: after 30 seconds or more), "所有其他 10 秒或更长时间后重试"
  // (any other: after 10 seconds or more).
  it.each([
    [500, 10 * S, 10 * S],
    [503, 30 * S, 30 * S],
    [408, 2 * M, 2 * M],
    [undefined, 10 * S, 10 * S],
  ])(
    "follows the status table's floors: status %s after the first attempt waits at least %i ms",
    (status, floor, delay) => {
      expect(retryFloorMs(NAMESPACE_PROFILE, { httpStatus: status })).toBe(floor);
      const decision = decideAfterFailure({
        profile: NAMESPACE_PROFILE,
        limits: { maxAttempts: 10, ttlMs: 7 * 24 * 60 * M },
        attemptsMade: 1,
        result: { httpStatus: status },
        now: 0,
        random: 0,
      });
      expect(decision).toEqual({ action: 'retry', delayMs: delay, dueAt: delay });
    },
  );

  it("keeps the schedule's longer steps above the floors (after 4 failed attempts, 4 min)", () => {
    const decision = decideAfterFailure({
      profile: NAMESPACE_PROFILE,
      limits: { maxAttempts: 10, ttlMs: 7 * 24 * 60 * M },
      attemptsMade: 4,
      result: { httpStatus: 408 },
      now: 0,
      random: 0,
    });
    expect(decision).toEqual({ action: 'retry', delayMs: 4 * M, dueAt: 4 * M });
  });

  it('still honours a Retry-After on 429 and 503, up to the cap', () => {
    expect(retryFloorMs(NAMESPACE_PROFILE, { httpStatus: 429, retryAfterSeconds: 120 })).toBe(2 * M);
    expect(retryFloorMs(NAMESPACE_PROFILE, { httpStatus: 503, retryAfterSeconds: 86_400 })).toBe(60 * M);
  });

  it('has the namespace limits: 1..10 attempts (default 10), 1 minute to 7 days', () => {
    expect(NAMESPACE_PROFILE.limits).toEqual({
      maxDeliveryAttempts: { min: 1, max: 10, default: 10 },
      eventTimeToLiveInMinutes: { min: 1, max: 10_080, default: 10_080 },
      retrySchedule: { minStepMs: 10_000, maxStepMs: 43_200_000, maxSteps: 10 },
    });
  });

  it('scales like every profile (local time scale)', () => {
    const scaled = scaleProfile(NAMESPACE_PROFILE, 60);
    expect(scaled.retryDelaysMs).toEqual([10 * S, 20 * S, 30 * S, 4 * M].map((ms) => ms / 60));
    expect(scaled.repeatDelayMs).toBe(5 * S);
    expect(scaled.noRetryStatuses).toEqual(NAMESPACE_PROFILE.noRetryStatuses);
    expect(scaled.noRetryTransportOutcomes).toEqual(NAMESPACE_PROFILE.noRetryTransportOutcomes);
    expect(scaled.limits).toEqual(NAMESPACE_PROFILE.limits);
  });
});

describe('namespace profile: what is never retried', () => {
  const limits: RetryLimits = { maxAttempts: 10, ttlMs: 24 * 60 * M };
  const decide = (result: Pick<AttemptResult, 'httpStatus' | 'outcome'>) =>
    decideAfterFailure({ profile: NAMESPACE_PROFILE, limits, attemptsMade: 1, result, now: 0, random: 0 });

  // Seed 002 (namespace push delivery): the list of error codes not retried ("404 - NotFound",
  // "401 - Unauthorized", "403 - Forbidden", "400 -BadRequest", "414 RequestUriTooLong"); its
  // status table, "413 请求实体太大 不重试" (413 Payload Too Large: not retried); and its
  // dead-letter section, "如果事件网格收到 400(错误请求)或 413(请求实体太大)响应代码,它会立即计划事件
  // 以进行死信处理" (on a 400 or a 413 the event is scheduled for dead-lettering at once).
  it.each<[number, DeliveryOutcome, boolean, boolean]>([
    // status, outcome, retried under namespace, retried under topic
    [400, 'BadRequest', false, false],
    [401, 'Unauthorized', false, false],
    [403, 'Forbidden', false, false],
    [404, 'NotFound', false, true],
    [414, 'GenericError', false, true],
    [413, 'PayloadTooLarge', false, false],
    [408, 'TimedOut', true, true],
    [429, 'Busy', true, true],
    [500, 'GenericError', true, true],
    [503, 'Busy', true, true],
    [504, 'TimedOut', true, true],
  ])('status %i (%s): retried %s (topic profile: %s)', (status, outcome, namespace, topic) => {
    expect(isRetriable(NAMESPACE_PROFILE, { httpStatus: status, outcome })).toBe(namespace);
    expect(isRetriable(TOPIC_PROFILE, { httpStatus: status, outcome })).toBe(topic);
    expect(decide({ httpStatus: status, outcome }).action).toBe(namespace ? 'retry' : 'deadLetter');
  });

  it.each<[string, DeliveryOutcome, boolean]>([
    // transport condition (no HTTP answer), outcome, retried
    ['invalid argument (the request could not be built)', 'GenericError', false],
    ['timeout', 'TimedOut', false],
    ['unauthorized access', 'Unauthorized', false],
    ['cancelled operation', 'Canceled', false],
    ['socket error', 'SocketError', false],
    ['name resolution', 'ResolutionError', true],
  ])('without an answer, %s (%s): retried %s', (_condition, outcome, retried) => {
    expect(isRetriable(NAMESPACE_PROFILE, { outcome })).toBe(retried);
    expect(isRetriable(TOPIC_PROFILE, { outcome })).toBe(true);
    expect(decide({ outcome })).toEqual(
      retried
        ? { action: 'retry', delayMs: 10 * S, dueAt: 10 * S }
        : { action: 'deadLetter', reason: 'NonRetriableOutcome' },
    );
  });

  it('410 Gone ends delivery as EndpointDisabled, as in the topic profile', () => {
    expect(decide({ httpStatus: 410, outcome: 'Disabled' })).toEqual({
      action: 'deadLetter',
      reason: 'EndpointDisabled',
    });
  });

  it('ends at the attempt limit', () => {
    expect(
      decideAfterFailure({
        profile: NAMESPACE_PROFILE,
        limits: { maxAttempts: 3, ttlMs: 24 * 60 * M },
        attemptsMade: 3,
        result: { httpStatus: 500, outcome: 'GenericError' },
        now: 0,
        random: 0,
      }),
    ).toEqual({ action: 'deadLetter', reason: 'MaxDeliveryAttemptsExceeded' });
  });
});

describe("namespace profile: the original's worked example (retention 20 minutes, 10 attempts)", () => {
  const limits: RetryLimits = { maxAttempts: 10, ttlMs: 20 * M };

  it('through the retry rules: 7 attempts, then dead-lettered when the 8th comes due, at 20 minutes', () => {
    const clock = new VirtualClock(0);
    const attemptTimes: number[] = [];
    let end: { reason: string; at: number; attempt: number } | undefined;
    while (end === undefined) {
      if (expiresAtDue(0, limits, clock.now(), NAMESPACE_PROFILE)) {
        end = { reason: 'TimeToLiveExceeded', at: clock.now(), attempt: attemptTimes.length + 1 };
        break;
      }
      attemptTimes.push(clock.now());
      const decision = decideAfterFailure({
        profile: NAMESPACE_PROFILE,
        limits,
        attemptsMade: attemptTimes.length,
        result: { httpStatus: 500, outcome: 'GenericError' },
        now: clock.now(),
        random: 0,
      });
      if (decision.action === 'deadLetter') {
        end = { reason: decision.reason, at: clock.now(), attempt: attemptTimes.length };
      } else {
        clock.advanceTo(decision.dueAt);
      }
    }
    expect(attemptTimes).toEqual([0, 10 * S, 30 * S, 1 * M, 5 * M, 10 * M, 15 * M]);
    expect(end).toEqual({ reason: 'TimeToLiveExceeded', at: 20 * M, attempt: 8 });
  });

  it('through decideJob, job by job: the 8th attempt is never made and the event ends at 20 minutes', () => {
    const clock = new VirtualClock(0);
    let pending: DeliveryItem | undefined = item('e1', 0);
    const ends: Array<{ reason: string; endedAt: number; attempts: number }> = [];
    let jobs = 0;
    while (pending !== undefined && jobs < 20) {
      jobs += 1;
      const expired = expiresAtDue(pending.publishedAt, limits, clock.now(), NAMESPACE_PROFILE);
      const decisions = decideJob({
        topic: 'ns/orders',
        subscription: 'audit',
        profile: NAMESPACE_PROFILE,
        limits,
        attempted: expired
          ? []
          : [
              {
                kind: 'attempted',
                item: pending,
                startedAt: clock.now(),
                result: { delivered: false, httpStatus: 500, outcome: 'GenericError', durationMs: 0 },
              },
            ],
        expired: expired ? [pending] : [],
        dueAt: clock.now(),
        now: clock.now(),
        random: () => 0,
        deadLetters: true,
      });
      ends.push(
        ...decisions.ended.map((ended) => ({
          reason: ended.reason,
          endedAt: ended.endedAt,
          attempts: ended.item.attempts,
        })),
      );
      const [next] = [...decisions.retries.entries()];
      pending = next?.[1][0];
      if (next !== undefined) clock.advanceTo(next[0]);
    }
    expect(ends).toEqual([{ reason: 'TimeToLiveExceeded', endedAt: 20 * M, attempts: 7 }]);
    expect(jobs).toBe(8);
  });

  it('the attempt limit would bite only with fewer than 8 attempts allowed', () => {
    let now = 0;
    let made = 0;
    for (;;) {
      made += 1;
      const decision = decideAfterFailure({
        profile: NAMESPACE_PROFILE,
        limits: { maxAttempts: 5, ttlMs: 20 * M },
        attemptsMade: made,
        result: { httpStatus: 500 },
        now,
        random: 0,
      });
      if (decision.action === 'deadLetter') {
        expect(decision.reason).toBe('MaxDeliveryAttemptsExceeded');
        break;
      }
      now = decision.dueAt;
    }
    expect({ made, now }).toEqual({ made: 5, now: 5 * M });
  });
});

describe('the namespace profile: names that do not exist, and jitter', () => {
  it.each([
    ['ENOTFOUND', false],
    ['EAI_NONAME', false],
    ['EAI_AGAIN', true],
  ])('a ResolutionError with code %s is retried: %s', (errorCode, retried) => {
    // A name the name server says does not exist is a deleted endpoint, as on classic topics.
    expect(isRetriable(NAMESPACE_PROFILE, { outcome: 'ResolutionError', errorCode })).toBe(retried);
  });

  it('adds up to 10% (at most a minute) to each delay, never bringing a retry earlier', () => {
    const decide = (random: number, attemptsMade: number) =>
      decideAfterFailure({
        profile: NAMESPACE_PROFILE,
        limits: { maxAttempts: 10, ttlMs: 24 * 3_600_000 },
        attemptsMade,
        result: { outcome: 'GenericError', httpStatus: 500 },
        now: 0,
        random,
      });
    expect(decide(0, 1)).toMatchObject({ action: 'retry', delayMs: 10_000 });
    const latest = decide(0.999_999, 1);
    expect(latest.action === 'retry' && latest.delayMs).toBeGreaterThan(10_000);
    expect(latest.action === 'retry' && latest.delayMs).toBeLessThanOrEqual(11_000);
    const fiveMinutes = decide(0.999_999, 6);
    expect(fiveMinutes.action === 'retry' && fiveMinutes.delayMs).toBeLessThanOrEqual(300_000 + 30_000);
  });
});

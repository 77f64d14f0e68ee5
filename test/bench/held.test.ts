/**
 * The held-for-a-day model: the original's attempt count, computed from its schedule, and the
 * engine's costs against an endpoint that answers 503 all day.
 */

import { DEFAULT_LIMITS, originalAttemptsIn24h, runHeld } from '../../bench/held';
import { humanDuration, originalAttemptTimes } from '../../bench/original-schedule';
import { TOPIC_PROFILE } from '../../shared/delivery/rules/profiles';
import { H, M, S } from '../support/time';

describe('held 24 h model', () => {
  it('counts the original schedule: 11 attempts in 24 hours', () => {
    expect(TOPIC_PROFILE.retryDelaysMs).toEqual([10 * S, 30 * S, M, 5 * M, 10 * M, 30 * M, H, 3 * H, 6 * H]);
    expect(TOPIC_PROFILE.repeatDelayMs).toBe(12 * H);
    const times = originalAttemptsIn24h();
    expect(times.map(humanDuration)).toEqual([
      '0 s',
      '10 s',
      '40 s',
      '1 min 40 s',
      '6 min 40 s',
      '16 min 40 s',
      '46 min 40 s',
      '1 h 46 min 40 s',
      '4 h 46 min 40 s',
      '10 h 46 min 40 s',
      '22 h 46 min 40 s',
    ]);
    // A 30 s floor after each 503 shifts the early attempts, not the count.
    expect(originalAttemptsIn24h(30 * S)).toHaveLength(11);
  });

  it('stops at the attempt limit or the time to live, whichever comes first', () => {
    expect(originalAttemptTimes(TOPIC_PROFILE, { ...DEFAULT_LIMITS, maxAttempts: 3 })).toEqual([
      0,
      10 * S,
      40 * S,
    ]);
    expect(originalAttemptTimes(TOPIC_PROFILE, { maxAttempts: 30, ttlMs: 40 * S })).toEqual([0, 10 * S]);
    expect(originalAttemptTimes(TOPIC_PROFILE, { maxAttempts: 30, ttlMs: 72 * H })).toHaveLength(15);
  });

  it('says durations as people do', () => {
    expect(humanDuration(0)).toBe('0 s');
    expect(humanDuration(90 * S)).toBe('1 min 30 s');
    expect(humanDuration(12 * H)).toBe('12 h');
  });

  it('a lone event makes the attempts of the schedule and ends by its time to live', async () => {
    const run = await runHeld({ eventsPerJob: 1 });
    expect(run.ended).toEqual({ TimeToLiveExceeded: 1 });
    expect(run.webhookRequestsIn24h).toBe(originalAttemptsIn24h(30 * S).length);
    expect(run.webhookRequests).toBe(run.webhookRequestsIn24h);
    // Waits longer than 15 minutes are hops: one receive, send and delete each.
    expect(run.hops).toBeGreaterThan(100);
    expect(run.lambda.invocations).toBe(run.sqs.receiveRequests);
    expect(run.sqs.deleteRequests).toBe(run.sqs.receiveRequests);
    expect(run.lastEndedAfterHours).toBeGreaterThan(24);
    expect(run.dynamo.healthWriteConflicts).toBe(0);
  });

  it('holds a job of 100 on probation instead of attempting each event', async () => {
    const run = await runHeld({ eventsPerJob: 100 });
    expect(run.ended).toEqual({ TimeToLiveExceeded: 100 });
    // The first job sends at most half of a worker's request slots before the first 503 holds the rest.
    expect(run.webhookRequests).toBeGreaterThanOrEqual(16);
    expect(run.webhookRequests).toBeLessThan(100);
    expect(run.holds).toBeGreaterThan(100);
  });

  it("with backlogs, stores the lone event's long waits instead of hopping them, on the same schedule", async () => {
    const before = await runHeld({ eventsPerJob: 1 });
    const run = await runHeld({ eventsPerJob: 1, backlog: true });
    expect(run.ended).toEqual({ TimeToLiveExceeded: 1 });
    expect(run.webhookRequestsIn24h).toBe(before.webhookRequestsIn24h);
    expect(run.hops).toBe(0);
    expect(run.backlog?.heldEvents).toBe(1);
    expect(run.backlog?.store.segments).toBeGreaterThan(0);
    expect(run.lambda.invocations).toBeLessThan(before.lambda.invocations / 4);
    // Every segment written is read once when it wakes and deleted once done.
    expect(run.backlog?.store.s3Deletes).toBe(run.backlog?.store.segments);
  });

  it('with backlogs, a stream to a dead endpoint is held in shared segments and probed, not attempted per event', async () => {
    const run = await runHeld({ eventsPerJob: 100, backlog: true, streamEvents: 5_000 });
    expect(run.events).toBe(5_000);
    expect(run.ended).toEqual({ TimeToLiveExceeded: 5_000 });
    expect(run.backlog?.heldEvents).toBeGreaterThan(4_900);
    // 50 publishes a day, one every ~29 min: a segment per store window (one job of 100), and one
    // per failed probe (its event stored back); at most those.
    expect(run.backlog?.store.segments).toBeLessThanOrEqual(50 + run.webhookRequests);
    expect(run.backlog?.eventsPerSegment).toBeGreaterThan(20);
    expect(run.webhookRequests).toBeLessThan(200);
    // The phases add up to the whole (sweeps apart).
    const phases = run.backlog?.phases;
    const sum = (pick: (usage: NonNullable<typeof phases>['into']) => number) =>
      phases === undefined ? 0 : pick(phases.into) + pick(phases.holding) + pick(phases.wakes);
    expect(sum((u) => u.sqsBilledRequests)).toBeCloseTo(run.usage.sqsBilledRequests, 6);
    expect(sum((u) => u.lambda.delivery.invocations)).toBeCloseTo(run.lambda.invocations, 6);
    expect(run.backlog?.sweepUsage.lambda.delivery.invocations).toBeGreaterThan(24 * 60);
  });

  it('is deterministic for a seed', async () => {
    const [a, b] = await Promise.all([
      runHeld({ eventsPerJob: 10, seed: 3 }),
      runHeld({ eventsPerJob: 10, seed: 3 }),
    ]);
    expect({ ...a, wallMs: 0 }).toEqual({ ...b, wallMs: 0 });
    const [c, d] = await Promise.all([
      runHeld({ eventsPerJob: 10, seed: 3, backlog: true }),
      runHeld({ eventsPerJob: 10, seed: 3, backlog: true }),
    ]);
    expect({ ...c, wallMs: 0 }).toEqual({ ...d, wallMs: 0 });
  });
});

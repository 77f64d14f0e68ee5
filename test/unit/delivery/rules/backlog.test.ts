/**
 * The backlog's rules, table-tested from the delivery semantics: TTL checked only when an event
 * comes due, the store threshold's edges, the `Probation` stamp of events held past their due
 * time, release grouped by due second in due order, and drain checkpoints. Then the shapes.
 */
import {
  BACKLOG_AFTER_MS,
  type BacklogHealthView,
  checkpointOf,
  classifyAtTick,
  currentHoldOf,
  isDone,
  liveDueAt,
  ON_TIME_SLACK_MS,
  probationStamp,
  RELEASE_AHEAD_MS,
  releaseGroups,
  segmentIdOf,
  storeOrQueue,
  wakeAtOf,
} from '../../../../shared/delivery/rules/backlog';
import { decideJob } from '../../../../shared/delivery/rules/decide';
import { UNVALIDATED_ENDPOINT_HOLD_MS } from '../../../../shared/delivery/rules/handshake';
import { TOPIC_PROFILE } from '../../../../shared/delivery/rules/profiles';
import { sqsDelaySeconds } from '../../../../shared/delivery/rules/retry';
import {
  type BacklogLine,
  backlogLineSchema,
  backlogMetaSchema,
  backlogSegmentHeaderSchema,
  byDueOrder,
  liveCount,
  NOTHING_DONE,
} from '../../../../shared/domain/backlog';
import {
  backlogSweepJobSchema,
  backlogTickJobSchema,
  JOB_FORMAT_VERSION,
  QUEUED_JOB_SCHEMAS,
  storeJobSchema,
} from '../../../../shared/domain/delivery';
import { deliveryTarget, item } from '../../../support/fakes';
import { H, M, S } from '../../../support/time';

const T0 = Date.UTC(2026, 2, 1);
const DAY_TTL = { maxAttempts: 30, ttlMs: 24 * H };

const healthy: BacklogHealthView = { unhealthy: false, draining: false };
const line = (
  id: string,
  dueAt: number,
  publishedAt = T0,
  heldBy: BacklogLine['heldBy'] = 'wait',
): BacklogLine => ({
  dueAt,
  heldBy,
  item: item(id, publishedAt, { attempts: 2, lastOutcome: 'GenericError', lastHttpStatus: 500 }),
});
const ids = (lines: readonly { item: { deliveryId: string } }[]) =>
  lines.map((entry) => entry.item.deliveryId);

describe('storeOrQueue', () => {
  it.each<[string, number | undefined, BacklogHealthView, 'store' | 'queue']>([
    ['due now, healthy endpoint', undefined, healthy, 'queue'],
    ['a 10 s retry', T0 + 10 * S, healthy, 'queue'],
    ['a wait of exactly 20 min (not more than the threshold)', T0 + BACKLOG_AFTER_MS, healthy, 'queue'],
    ['a wait 1 ms over 20 min', T0 + BACKLOG_AFTER_MS + 1, healthy, 'store'],
    ['the 30 min step of the schedule', T0 + 30 * M, healthy, 'store'],
    ['the 12 h step', T0 + 12 * H, healthy, 'store'],
    ['due now, unhealthy endpoint', undefined, { unhealthy: true, draining: false }, 'store'],
    ['a 10 s retry, unhealthy endpoint', T0 + 10 * S, { unhealthy: true, draining: false }, 'store'],
    ['due now while a drain runs', undefined, { unhealthy: false, draining: true }, 'store'],
    ['already past due, healthy', T0 - 5 * M, healthy, 'queue'],
  ])('%s -> %s', (_name, dueAt, health, expected) => {
    expect(storeOrQueue({ dueAt, now: T0, health, backlogAfterMs: BACKLOG_AFTER_MS })).toBe(expected);
  });

  it('is above one SQS hop plus the release window, so a stored event is never hopped', () => {
    expect(BACKLOG_AFTER_MS).toBeGreaterThan(RELEASE_AHEAD_MS);
    expect(RELEASE_AHEAD_MS).toBe(900 * S);
  });
});

describe('currentHoldOf', () => {
  it.each<[string, Parameters<typeof currentHoldOf>[0], number | undefined]>([
    ['no META', undefined, undefined],
    ['holding: its hold', { state: 'holding', heldUntil: T0 + H }, T0 + H],
    ['holding, no hold recorded', { state: 'holding' }, undefined],
    [
      'waiting after a resume: the past hold (an hour on) is not waited for',
      { state: 'waiting', heldUntil: T0 + H },
      undefined,
    ],
    ['idle with a past hold', { state: 'idle', heldUntil: T0 + H }, undefined],
    ['draining with a past hold', { state: 'draining', heldUntil: T0 + H }, undefined],
  ])('%s', (_name, meta, expected) => {
    expect(currentHoldOf(meta)).toBe(expected);
  });
});

describe('wakeAtOf', () => {
  const wake = (overrides: Partial<Parameters<typeof wakeAtOf>[0]>) =>
    wakeAtOf({
      heldUntil: undefined,
      segmentDueAts: [],
      endpointAgreed: true,
      now: T0,
      profile: TOPIC_PROFILE,
      ...overrides,
    });

  it.each<[string, Partial<Parameters<typeof wakeAtOf>[0]>, number | undefined]>([
    ['nothing stored: no timer, even while held', { heldUntil: T0 + H }, undefined],
    ['the earliest segment due', { segmentDueAts: [T0 + 3 * H, T0 + H, T0 + 2 * H] }, T0 + H],
    [
      'held past the earliest due: the hold end',
      { segmentDueAts: [T0 + H], heldUntil: T0 + 2 * H },
      T0 + 2 * H,
    ],
    ['a hold that ended already', { segmentDueAts: [T0 + H], heldUntil: T0 - M }, T0 + H],
    ['a segment overdue: at once (its due time)', { segmentDueAts: [T0 - M] }, T0 - M],
    [
      'an endpoint that has not agreed: not before the unvalidated wait',
      { segmentDueAts: [T0 - M], endpointAgreed: false },
      T0 + UNVALIDATED_ENDPOINT_HOLD_MS,
    ],
    [
      'an endpoint that has not agreed, events due later than the wait',
      { segmentDueAts: [T0 + H], endpointAgreed: false },
      T0 + H,
    ],
  ])('%s', (_name, overrides, expected) => {
    expect(wake(overrides)).toBe(expected);
  });

  it('scales the unvalidated wait with the profile', () => {
    expect(wake({ segmentDueAts: [T0], endpointAgreed: false, profile: { timeScale: 60 } })).toBe(
      T0 + UNVALIDATED_ENDPOINT_HOLD_MS / 60,
    );
  });
});

describe('classifyAtTick', () => {
  // Published 23 h before the wake: the day's TTL runs out an hour after it.
  const published = T0 - 23 * H;

  it.each<[string, number, number, keyof ReturnType<typeof classifyAtTick>]>([
    ['due now, alive', T0, published, 'due'],
    ['overdue (held), alive', T0 - 2 * H, published, 'due'],
    ['due now, TTL ran out', T0, T0 - 24 * H, 'expired'],
    ['due now, TTL runs out exactly now', T0, T0 - DAY_TTL.ttlMs, 'expired'],
    ['due now, 1 ms of TTL left', T0, T0 - DAY_TTL.ttlMs + 1, 'due'],
    ['due in 10 min, TTL ran out: not checked before due', T0 + 10 * M, T0 - 30 * H, 'soon'],
    ['due in 12 h, TTL ran out before then: not ended early', T0 + 12 * H, published, 'later'],
    ['due in exactly 15 min', T0 + RELEASE_AHEAD_MS, published, 'soon'],
    ['due in 15 min and 1 ms', T0 + RELEASE_AHEAD_MS + 1, published, 'later'],
  ])('%s -> %s', (_name, dueAt, publishedAt, expected) => {
    const classes = classifyAtTick([line('e', dueAt, publishedAt)], T0, DAY_TTL, TOPIC_PROFILE);
    expect(
      Object.entries(classes)
        .filter(([, lines]) => lines.length > 0)
        .map(([name]) => name),
    ).toEqual([expected]);
  });

  it('checks the TTL in scaled time when the profile is scaled', () => {
    const scaled = { timeScale: 60 };
    const classes = classifyAtTick(
      [line('old', T0, T0 - 24 * M), line('young', T0, T0 - 23 * M)],
      T0,
      DAY_TTL,
      scaled,
    );
    expect([ids(classes.expired), ids(classes.due)]).toEqual([['d-old'], ['d-young']]);
  });

  it('keeps every class in due order: due time, then publish time, then delivery id', () => {
    const classes = classifyAtTick(
      [line('c', T0, T0 - 1), line('b', T0 - M, T0), line('a2', T0, T0 - 2), line('a1', T0, T0 - 2)],
      T0,
      DAY_TTL,
      TOPIC_PROFILE,
    );
    expect(ids(classes.due)).toEqual(['d-b', 'd-a1', 'd-a2', 'd-c']);
  });
});

describe('probationStamp', () => {
  it.each<[string, number, number | undefined, boolean]>([
    ['released on time, endpoint held before', T0, T0 - M, false],
    ['released within the second of slack after a hold', T0 + ON_TIME_SLACK_MS, T0 + 2 * S, false],
    [
      'released 1 ms beyond the slack because the endpoint was held',
      T0 + ON_TIME_SLACK_MS + 1,
      T0 + 2 * S,
      true,
    ],
    ['released an hour late because the endpoint was held', T0 + H, T0 + H, true],
    ['released late, but no hold reached its due time (a late timer)', T0 + M, T0 - S, false],
    ['released late, never held', T0 + M, undefined, false],
  ])('%s -> stamped: %s', (_name, at, heldUntil, stamped) => {
    const stored = line('e', T0);
    const released = probationStamp(stored, at, heldUntil);
    expect(released).toEqual(stamped ? { ...stored.item, lastOutcome: 'Probation' } : stored.item);
    // Attempts and the last status stay: no request was made.
    expect([released.attempts, released.lastHttpStatus]).toEqual([2, 500]);
  });

  it('stamps as the decide phase stamps events held by probation', () => {
    const stored = line('e', T0);
    const decisions = decideJob({
      topic: 'orders',
      subscription: 'audit',
      profile: TOPIC_PROFILE,
      limits: DAY_TTL,
      attempted: [{ kind: 'held', item: stored.item, until: T0 + H, reason: 'probation' }],
      expired: [],
      dueAt: T0,
      now: T0,
      random: () => 0,
      deadLetters: false,
    });
    expect([...decisions.held.values()].flat()).toEqual([probationStamp(stored, T0 + H, T0 + H)]);
  });
});

describe('releaseGroups', () => {
  const now = T0 + 400; // not on a second boundary

  it('groups events by the whole second they arrive in, each job due at its latest event', () => {
    const groups = releaseGroups(
      [
        { dueAt: now + 10 * S + 300, item: item('b', T0) },
        { dueAt: now + 10 * S, item: item('a', T0) },
        { dueAt: now + 9 * S + 1, item: item('c', T0) },
        { dueAt: now + 5 * M, item: item('d', T0) },
      ],
      now,
      'whole-seconds',
    );

    expect(
      groups.map((group) => [group.delaySeconds, group.dueAt, ids(group.items.map((i) => ({ item: i })))]),
    ).toEqual([
      [10, now + 10 * S, ['d-c', 'd-a']],
      [11, now + 10 * S + 300, ['d-b']],
      [300, now + 5 * M, ['d-d']],
    ]);
  });

  it('lets no event arrive before its due time or more than a second after it', () => {
    const dueAts = Array.from({ length: 40 }, (_, i) => now + 137 * i + 1);
    const groups = releaseGroups(
      dueAts.map((dueAt, i) => ({ dueAt, item: item(`e${i}`, T0) })),
      now,
      'whole-seconds',
    );
    for (const group of groups) {
      const arrival = now + group.delaySeconds * S;
      expect(group.delaySeconds).toBe(sqsDelaySeconds(group.dueAt, now, 'whole-seconds'));
      for (const released of group.items) {
        const dueAt = dueAts[Number(released.deliveryId.slice(3))] as number;
        expect(arrival).toBeGreaterThanOrEqual(dueAt);
        expect(arrival - dueAt).toBeLessThan(S);
      }
    }
    expect(groups.flatMap((group) => group.items)).toHaveLength(dueAts.length);
  });

  it('sends events already due with no delay, and refuses one beyond the window', () => {
    expect(releaseGroups([{ dueAt: now - M, item: item('a', T0) }], now, 'whole-seconds')).toEqual([
      { dueAt: now - M, delaySeconds: 0, items: [item('a', T0)] },
    ]);
    expect(() =>
      releaseGroups([{ dueAt: now + RELEASE_AHEAD_MS + 1, item: item('a', T0) }], now, 'whole-seconds'),
    ).toThrow(RangeError);
  });
});

describe('checkpointOf', () => {
  it.each<[string, { doneThrough: number; doneAfter: number[] }, number[], number, object]>([
    ['nothing done, nothing new', NOTHING_DONE, [], 5, { doneThrough: 0, doneAfter: [], complete: false }],
    ['a prefix finished', NOTHING_DONE, [1, 0], 5, { doneThrough: 2, doneAfter: [], complete: false }],
    ['finished after a gap', NOTHING_DONE, [4, 2], 5, { doneThrough: 0, doneAfter: [2, 4], complete: false }],
    [
      'the gap filled: the prefix takes the done lines after it',
      { doneThrough: 0, doneAfter: [2, 4] },
      [0, 1],
      5,
      { doneThrough: 3, doneAfter: [4], complete: false },
    ],
    [
      'every line done',
      { doneThrough: 3, doneAfter: [4] },
      [3],
      5,
      { doneThrough: 5, doneAfter: [], complete: true },
    ],
    [
      'lines done twice count once',
      { doneThrough: 2, doneAfter: [] },
      [0, 1, 3, 3],
      5,
      { doneThrough: 2, doneAfter: [3], complete: false },
    ],
  ])('%s', (_name, previous, done, count, expected) => {
    expect(checkpointOf(previous, done, count)).toEqual(expected);
  });

  it('refuses a line the segment does not have', () => {
    expect(() => checkpointOf(NOTHING_DONE, [5], 5)).toThrow(RangeError);
    expect(() => checkpointOf(NOTHING_DONE, [-1], 5)).toThrow(RangeError);
  });

  it('says which lines are done and how many are left', () => {
    const checkpoint = { doneThrough: 2, doneAfter: [4] };
    expect([0, 1, 2, 3, 4, 5].map((index) => isDone(checkpoint, index))).toEqual([
      true,
      true,
      false,
      false,
      true,
      false,
    ]);
    expect(liveCount(checkpoint, 6)).toBe(3);
  });
});

describe('liveDueAt', () => {
  const lines = [{ dueAt: T0 }, { dueAt: T0 + M }, { dueAt: T0 + H }, { dueAt: T0 + 2 * H }];
  it.each<[string, { doneThrough: number; doneAfter: number[] }, number | undefined]>([
    ['nothing done: the first line', NOTHING_DONE, T0],
    ['a done prefix: the first line after it', { doneThrough: 2, doneAfter: [] }, T0 + H],
    ['done lines after a gap are skipped', { doneThrough: 0, doneAfter: [0, 1, 2] }, T0 + 2 * H],
    ['a gap before done lines: the gap', { doneThrough: 0, doneAfter: [2, 3] }, T0],
    ['every line done: nothing', { doneThrough: 4, doneAfter: [] }, undefined],
  ])('%s', (_name, checkpoint, expected) => {
    expect(liveDueAt(lines, checkpoint)).toBe(expected);
  });
});

describe('segmentIdOf', () => {
  it('is the same for the same messages in any order, 16 hex digits', () => {
    const id = segmentIdOf(['m-2', 'm-1', 'm-3']);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(segmentIdOf(['m-3', 'm-1', 'm-2'])).toBe(id);
    expect(segmentIdOf(['m-1', 'm-2'])).not.toBe(id);
    expect(() => segmentIdOf([])).toThrow(RangeError);
  });
});

describe('byDueOrder', () => {
  it('orders by due time, then publish time, then delivery id', () => {
    const lines = [line('b', T0, T0), line('a', T0, T0), line('z', T0, T0 - 1), line('y', T0 - 1, T0 + 5)];
    expect(ids([...lines].sort(byDueOrder))).toEqual(['d-y', 'd-z', 'd-a', 'd-b']);
  });
});

describe('backlog shapes', () => {
  const target = deliveryTarget({ uid: 'uid-1', deadLetter: { container: 'dead' } });

  it.each([
    [
      'a store job',
      storeJobSchema,
      {
        v: JOB_FORMAT_VERSION,
        kind: 'store',
        target,
        dueAt: T0 + H,
        heldBy: 'probation',
        items: [item('a', T0)],
      },
    ],
    [
      'a backlog tick',
      backlogTickJobSchema,
      { v: JOB_FORMAT_VERSION, kind: 'backlog-tick', target, token: 't-1' },
    ],
    ['a backlog sweep', backlogSweepJobSchema, { v: JOB_FORMAT_VERSION, kind: 'backlog-sweep' }],
    ['a segment line', backlogLineSchema, line('a', T0)],
    [
      'a segment header',
      backlogSegmentHeaderSchema,
      { v: 1, target, createdAt: T0, count: 2, minDueAt: T0, maxDueAt: T0 + 1, minPublishedAt: T0 - H },
    ],
    [
      'a backlog META',
      backlogMetaSchema,
      {
        topic: 'orders',
        subscription: 'audit',
        uid: 'uid-1',
        endpointUrl: 'https://hooks.example.test/in',
        token: 't-1',
        wakeAt: T0,
        armedToken: 't-1',
        lease: { until: T0 + 240 * S },
        heldUntil: T0,
        state: 'draining',
        summary: { events: 3, oldestPublishedAt: T0 - H },
        updatedAt: T0,
      },
    ],
  ])('%s makes a round trip through JSON unchanged', (_name, schema, value) => {
    expect((schema as { parse(json: unknown): unknown }).parse(JSON.parse(JSON.stringify(value)))).toEqual(
      value,
    );
  });

  it.each([
    [
      'a store job without its due time',
      storeJobSchema,
      { v: JOB_FORMAT_VERSION, kind: 'store', target, heldBy: 'wait', items: [item('a', T0)] },
    ],
    [
      'a store job held by something else',
      storeJobSchema,
      { v: JOB_FORMAT_VERSION, kind: 'store', target, dueAt: T0, heldBy: 'busy', items: [item('a', T0)] },
    ],
    [
      'a tick without a token',
      backlogTickJobSchema,
      { v: JOB_FORMAT_VERSION, kind: 'backlog-tick', target, token: '' },
    ],
    [
      'a header of another version',
      backlogSegmentHeaderSchema,
      { v: 2, target, createdAt: T0, count: 1, minDueAt: T0, maxDueAt: T0, minPublishedAt: T0 },
    ],
  ])('refuses %s', (_name, schema, value) => {
    expect((schema as { safeParse(json: unknown): { success: boolean } }).safeParse(value).success).toBe(
      false,
    );
  });

  it('store and tick jobs ride queues; the sweep comes from a schedule, never a queue', () => {
    for (const schema of [storeJobSchema, backlogTickJobSchema]) {
      expect(QUEUED_JOB_SCHEMAS as readonly unknown[]).toContain(schema);
    }
    expect(QUEUED_JOB_SCHEMAS as readonly unknown[]).not.toContain(backlogSweepJobSchema);
  });
});

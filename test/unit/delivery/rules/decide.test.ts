import { type Attempted, type DecideInput, decideJob } from '../../../../shared/delivery/rules/decide';
import { TOPIC_PROFILE } from '../../../../shared/delivery/rules/profiles';
import type { AttemptResult } from '../../../../shared/domain/attempts';
import { item } from '../../../support/fakes';
import { S } from '../../../support/time';

const T0 = 1_000_000;

const attempted = (id: string, result: Partial<AttemptResult>, attempts = 0, startedAt = T0): Attempted => ({
  kind: 'attempted',
  item: item(id, T0, { attempts }),
  startedAt,
  result: { delivered: false, durationMs: 5, ...result },
});

const input = (overrides: Partial<DecideInput>): DecideInput => ({
  topic: 'orders',
  subscription: 'audit',
  profile: TOPIC_PROFILE,
  limits: { maxAttempts: 30, ttlMs: 86_400_000 },
  attempted: [],
  expired: [],
  dueAt: T0,
  now: T0 + 2 * S,
  random: () => 0,
  deadLetters: false,
  ...overrides,
});

describe('decideJob', () => {
  it.each<[string, string, Partial<AttemptResult>, number]>([
    ['200 on the first attempt', 'delivered', { delivered: true, httpStatus: 200 }, 0],
    ['500 on the first attempt', 'retry +10 s', { httpStatus: 500, outcome: 'GenericError' }, 0],
    ['503 on the second attempt', 'retry +30 s', { httpStatus: 503, outcome: 'Busy' }, 1],
    ['408 on the first attempt (floor 2 min)', 'retry +120 s', { httpStatus: 408, outcome: 'TimedOut' }, 0],
    ['400', 'ended NonRetriableOutcome', { httpStatus: 400, outcome: 'BadRequest' }, 0],
    [
      '500 on the 30th attempt',
      'ended MaxDeliveryAttemptsExceeded',
      { httpStatus: 500, outcome: 'GenericError' },
      29,
    ],
  ])('%s -> %s', (_name, expected, result, attempts) => {
    const decisions = decideJob(input({ attempted: [attempted('e1', result, attempts)] }));
    const summary =
      decisions.delivered.length === 1
        ? 'delivered'
        : decisions.ended.length === 1
          ? `ended ${decisions.ended[0]?.reason}`
          : `retry +${([...decisions.retries.keys()][0] ?? 0) / S - (T0 + 2 * S) / S} s`;
    expect(summary).toBe(expected);
  });

  it('counts retry delays from the end of the attempts and stamps each event with its own start', () => {
    const decisions = decideJob(
      input({
        attempted: [
          attempted('a', { httpStatus: 500 }, 0, T0),
          attempted('b', { httpStatus: 500 }, 0, T0 + 1500),
        ],
      }),
    );
    expect([...decisions.retries.entries()]).toEqual([
      [
        T0 + 2 * S + 10 * S,
        [
          expect.objectContaining({
            deliveryId: 'd-a',
            attempts: 1,
            lastAttemptAt: T0,
            lastOutcome: 'GenericError',
          }),
          expect.objectContaining({ deliveryId: 'd-b', attempts: 1, lastAttemptAt: T0 + 1500 }),
        ],
      ],
    ]);
    expect(decisions.records.map((record) => record.at)).toEqual([T0, T0 + 1500]);
  });

  it('draws jitter once per group of events that failed alike', () => {
    const draws: number[] = [];
    const random = () => {
      draws.push(0.5);
      return 0.5;
    };
    decideJob(
      input({
        random,
        attempted: [
          attempted('a', { httpStatus: 500 }),
          attempted('b', { httpStatus: 500 }),
          attempted('c', { httpStatus: 503 }),
        ],
      }),
    );
    // 500 and 503 share the 10 s step but 503 has a 30 s floor: two groups, two draws.
    expect(draws).toHaveLength(2);
  });

  it('ends expired events at the due time without an attempt, and keeps deferred ones untouched', () => {
    const decisions = decideJob(
      input({
        expired: [item('old', T0, { attempts: 3 })],
        attempted: [{ kind: 'deferred', item: item('late', T0) }],
      }),
    );
    expect(decisions.ended).toEqual([
      { item: item('old', T0, { attempts: 3 }), reason: 'TimeToLiveExceeded', endedAt: T0 },
    ]);
    expect(decisions.records).toEqual([
      expect.objectContaining({ attempt: 4, at: T0, outcome: 'NotAttempted' }),
    ]);
    expect(decisions.deferred).toEqual([item('late', T0)]);
  });

  it('says ended events are dead-lettered when the subscription has a destination, else dropped', () => {
    const ended = (deadLetters: boolean) =>
      decideJob(
        input({ deadLetters, attempted: [attempted('e', { httpStatus: 400, outcome: 'BadRequest' })] }),
      ).records[0]?.next;
    expect(ended(true)).toEqual({ action: 'deadLetter', reason: 'NonRetriableOutcome' });
    expect(ended(false)).toEqual({ action: 'dropped', reason: 'NonRetriableOutcome' });
  });

  it('records a success only when it follows failures', () => {
    const decisions = decideJob(
      input({
        attempted: [
          attempted('first', { delivered: true, httpStatus: 200 }, 0),
          attempted('later', { delivered: true, httpStatus: 204 }, 2),
        ],
      }),
    );
    expect(decisions.records).toEqual([
      expect.objectContaining({
        eventId: 'later',
        attempt: 3,
        outcome: 'Delivered',
        next: { action: 'none' },
      }),
    ]);
  });

  describe('the message log', () => {
    const ok = attempted('e1', { delivered: true, httpStatus: 200, response: 'thanks' });

    it('records no first-attempt success with deliveryLog Failures (the default), and each with All', () => {
      expect(decideJob(input({ attempted: [ok] })).records).toEqual([]);
      expect(decideJob(input({ attempted: [ok], deliveryLog: 'Failures' })).records).toEqual([]);
      const [record] = decideJob(input({ attempted: [ok], deliveryLog: 'All' })).records;
      expect(record).toEqual({
        topic: 'orders',
        subscription: 'audit',
        eventId: 'e1',
        deliveryId: 'd-e1',
        publishedAt: T0,
        attempt: 1,
        at: T0,
        outcome: 'Delivered',
        httpStatus: 200,
        durationMs: 5,
        response: 'thanks',
        eventJson: ok.kind === 'attempted' ? ok.item.eventJson : '',
        next: { action: 'none' },
      });
    });

    it("keeps a failed attempt's answer, and a resend's origin", () => {
      const failed: Attempted = {
        kind: 'attempted',
        item: item('e2', T0, { resendOf: 'd-first' }),
        startedAt: T0,
        result: {
          delivered: false,
          durationMs: 5,
          httpStatus: 500,
          outcome: 'GenericError',
          response: 'oops',
        },
      };
      expect(decideJob(input({ attempted: [failed] })).records[0]).toMatchObject({
        response: 'oops',
        resendOf: 'd-first',
        next: { action: 'retry' },
      });
    });

    it('keeps the text of events up to 64 KiB (UTF-8 bytes), and logs larger ones without it', () => {
      /** An event of `count` padding characters (`{"id":"<id>","p":"<padding>"}`). */
      const sized = (id: string, count: number, char = 'x'): Attempted => {
        const eventJson = `{"id":"${id}","p":"${char.repeat(count)}"}`;
        return {
          kind: 'attempted',
          item: { ...item(id, T0), eventJson },
          startedAt: T0,
          result: { delivered: true, durationMs: 1 },
        };
      };
      const wrapper = (id: string) => `{"id":"${id}","p":""}`.length;
      const cases = [
        sized('small', 64 * 1024 - wrapper('small')),
        sized('large', 64 * 1024 - wrapper('large') + 1),
        sized('wide', 40 * 1024, 'é'),
      ];
      const records = decideJob(input({ attempted: cases, deliveryLog: 'All' })).records;
      expect(records.map((record) => [record.eventId, record.eventJson !== undefined])).toEqual([
        ['small', true],
        ['large', false],
        // 40 KiB of characters, over 64 KiB of UTF-8.
        ['wide', false],
      ]);
    });
  });
});

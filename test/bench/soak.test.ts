/**
 * The soak's own parts, without a stack: the ledger (how it closes, what it calls missing, how
 * it explains duplicates, what it calls overdue), the traffic mix and the fault schedule.
 */
import { soakSection, soakSvg } from '../../bench/harness/soak-report';
import { faultSchedule } from '../../bench/soak/faults';
import { DUPLICATE_MARGIN_MS, SoakLedger } from '../../bench/soak/ledger';
import { numberOf, SOAK_SUBSCRIPTIONS, soakEvent, subscriptionOf } from '../../bench/soak/mix';

const T0 = 1_800_000_000_000;
/** Two subscriptions: even events to "a" (immediate), odd to "b" (not). */
const ledger = () => new SoakLedger((n) => n % 2, ['a', 'b'], [true, false], T0);

describe('the soak ledger', () => {
  it('closes when every accepted event is delivered, dead-lettered or dropped, and names what is missing', () => {
    const book = ledger();
    for (let n = 0; n < 6; n += 1) {
      book.offered(n);
      book.accepted(n, T0 + 1000);
    }
    book.offered(6); // never answered 200: not owed
    book.attempted(0, true, T0 + 2000);
    book.delivered(1, T0 + 2000);
    book.attempted(2, false, T0 + 2000);
    book.deadLettered(2, 'MaxDeliveryAttemptsExceeded');
    book.dropped(3, 'TimeToLiveExceeded');
    book.attempted(4, false, T0 + 2000);
    const open = book.close();
    expect(open).toMatchObject({
      offered: 7,
      accepted: 6,
      unanswered: 1,
      delivered: 2,
      deadLettered: 1,
      dropped: 1,
      missing: 2,
      closed: false,
      deadLetterReasons: { MaxDeliveryAttemptsExceeded: 1 },
      dropReasons: { TimeToLiveExceeded: 1 },
    });
    expect(open.missingSample).toEqual(['s4', 's5']);
    expect(book.outstanding()).toEqual([4, 5]);
    book.attempted(4, true, T0 + 3000);
    book.delivered(5, T0 + 3000);
    expect(book.close()).toMatchObject({ missing: 0, closed: true, delivered: 4 });
  });

  it('counts a second delivery as a duplicate, explained only by a resend or a fault while the stack held it', () => {
    const book = ledger();
    for (let n = 0; n < 3; n += 1) {
      book.offered(n);
      book.accepted(n, T0 + 500_000);
    }
    book.sentAgain(2);
    // Begun, not over yet: a delivery made again during the restart is explained already.
    const kill = { name: 'kill-stack', startMs: 600_000, endMs: Number.POSITIVE_INFINITY };
    book.fault(kill);
    // Event 0: accepted before the fault, delivered again long after it (a backlog): explained.
    book.delivered(0, T0 + 590_000);
    book.delivered(0, T0 + 605_000);
    kill.endMs = 610_000;
    book.delivered(0, T0 + 2_000_000);
    // Event 1: delivered twice before any fault: unexplained.
    book.delivered(1, T0 + 510_000);
    book.delivered(1, T0 + 520_000);
    // Event 2: published again after an unanswered request: explained.
    book.delivered(2, T0 + 510_000);
    book.delivered(2, T0 + 511_000);
    const closed = book.close();
    expect(closed).toMatchObject({ duplicated: 3, unexplainedDuplicates: 1, resentEvents: 1 });
    expect(closed.bySubscription.find((tally) => tally.subscription === 'b')?.unexplainedDuplicates).toBe(1);
  });

  it('does not explain a duplicate of an event accepted after the fault was over', () => {
    const book = ledger();
    book.offered(0);
    book.accepted(0, T0 + 10_000 + DUPLICATE_MARGIN_MS + 2000);
    book.fault({ name: 'table-outage', startMs: 0, endMs: 10_000 });
    book.delivered(0, T0 + 10_000 + DUPLICATE_MARGIN_MS + 5000);
    book.delivered(0, T0 + 10_000 + DUPLICATE_MARGIN_MS + 6000);
    expect(book.close().unexplainedDuplicates).toBe(1);
  });

  it('reports the oldest accepted event of an immediate subscription not yet attempted', () => {
    const book = ledger();
    for (let n = 0; n < 6; n += 1) book.offered(n);
    book.accepted(0, T0);
    book.accepted(1, T0); // not immediate: never overdue
    book.accepted(2, T0 + 30_000);
    book.accepted(4, T0 + 50_000);
    // Event 5 offered, not accepted yet: not due.
    expect(book.oldestUnattempted(T0 + 90_000)).toEqual({ seconds: 90, id: 's0' });
    book.attempted(0, false, T0 + 91_000);
    expect(book.oldestUnattempted(T0 + 100_000)).toEqual({ seconds: 70, id: 's2' });
    expect([book.subscriptionOfId('s2'), book.subscriptionOfId('s3'), book.subscriptionOfId('s9')]).toEqual([
      'a',
      'b',
      undefined,
    ]);
    book.attempted(2, true, T0 + 101_000);
    book.deadLettered(4, 'NonRetriableOutcome');
    expect(book.oldestUnattempted(T0 + 120_000)).toEqual({ seconds: 0, id: undefined });
  });

  it('grows past its first size', () => {
    const book = ledger();
    const n = 200_000;
    book.offered(n);
    book.accepted(n, T0);
    book.delivered(n, T0 + 1000);
    expect(book.close()).toMatchObject({ accepted: 1, delivered: 1, closed: true });
  });
});

describe('the soak mix', () => {
  it('spreads each subscription over the 1,000 slots in its share, and every event names its own', () => {
    const counts = new Map<number, number>();
    for (let n = 0; n < 1000; n += 1) counts.set(subscriptionOf(n), (counts.get(subscriptionOf(n)) ?? 0) + 1);
    SOAK_SUBSCRIPTIONS.forEach((subscription, index) => {
      expect(counts.get(index)).toBe(subscription.share);
    });
    // A request of 100 carries every kind whose share is at least 10 per mille.
    const inFirstHundred = new Set(Array.from({ length: 100 }, (_, n) => subscriptionOf(n)));
    SOAK_SUBSCRIPTIONS.forEach((subscription, index) => {
      if (subscription.share >= 10) expect(inFirstHundred.has(index)).toBe(true);
    });
    const event = JSON.parse(soakEvent(1234, '2026-12-03T00:00:00Z')) as { id: string; eventType: string };
    expect(numberOf(event.id)).toBe(1234);
    expect(event.eventType).toBe(`Soak.${SOAK_SUBSCRIPTIONS[subscriptionOf(1234)]?.name}`);
    expect(numberOf('other')).toBe(-1);
  });
});

describe('the soak fault schedule', () => {
  it('runs every fault inside the load, one after another, and shortens the long ones in a short run', () => {
    for (const minutes of [5, 30, 60]) {
      const faults = faultSchedule(minutes);
      expect(new Set(faults.map((fault) => fault.kind))).toEqual(
        new Set([
          'rotate-topic-keys',
          'kill-emulator',
          'endpoint-dead',
          'pause-subscription',
          'edit-subscriptions',
          'table-outage',
          'kill-stack',
          'rotate-signing-secret',
        ]),
      );
      const oneByOne = faults.filter((fault) => fault.concurrent !== true);
      for (const [index, fault] of faults.entries()) {
        expect(fault.atMs + fault.forMs).toBeLessThan(minutes * 60_000);
        if (index > 0) expect(fault.atMs).toBeGreaterThanOrEqual((faults[index - 1] as typeof fault).atMs);
      }
      for (const [index, fault] of oneByOne.entries()) {
        const next = oneByOne[index + 1];
        if (next !== undefined) expect(fault.atMs + fault.forMs).toBeLessThanOrEqual(next.atMs);
      }
    }
    const long = faultSchedule(30);
    expect(long.find((fault) => fault.kind === 'endpoint-dead')?.forMs).toBe(600_000);
    expect(long.find((fault) => fault.kind === 'table-outage')?.forMs).toBe(60_000);
    expect(faultSchedule(5).find((fault) => fault.kind === 'endpoint-dead')?.forMs).toBe(100_000);
  });
});

describe('the soak report', () => {
  const book = ledger();
  book.offered(0);
  book.accepted(0, T0);
  book.delivered(0, T0 + 1000);
  const details = {
    measured: { date: '2026-12-03T18:00:00.000Z', commit: 'abc1234' },
    faults: [
      {
        kind: 'kill-stack',
        description: 'the whole stack SIGKILLed',
        startedAtSeconds: 60,
        lastedSeconds: 7.1,
        restartSeconds: 6.5,
      },
    ],
    minutes: [
      {
        minute: 0,
        accepted: 10,
        settled: 9,
        rssMb: 250,
        worstUnattemptedSeconds: 0,
        overdueWakes: [],
        worstVisibleMessages: 3,
        faults: [],
      },
      {
        minute: 1,
        accepted: 20,
        settled: 21,
        rssMb: 300,
        worstUnattemptedSeconds: 12,
        worstStackOverdueSeconds: 0,
        overdueWakes: [],
        worstVisibleMessages: 5,
        faults: ['kill-stack'],
      },
    ],
    ledger: book.close(),
  };
  const scenario = { name: 'soak', description: '', figures: [], details };

  it('writes its fault timeline, its ledger by subscription and its minutes, and a chart of them', () => {
    const section = soakSection([scenario]);
    expect(section).toContain('## Soak');
    expect(section).toContain('commit `abc1234`');
    expect(section).toContain('| 60 | the whole stack SIGKILLed | 7.1 (serving again after 6.5) |  |');
    expect(section).toContain('| a | 1 | 1 | 0 | 0 | 0 | 0 (0) | 0 |');
    expect(section).toContain('| 1 | 20 | 21 | 300 |  | 12 | 0 | 5 | kill-stack |');
    const svg = soakSvg([scenario], details.measured.date) ?? '';
    expect(svg.match(/<polyline/g)).toHaveLength(5);
    expect(svg).toContain('<title>kill-stack</title>');
  });

  it('is left out when the results hold no soak', () => {
    expect(soakSection([])).toBe('');
    expect(soakSvg([], details.measured.date)).toBeUndefined();
  });
});

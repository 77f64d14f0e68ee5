/**
 * The recovery scenario's counting: requests in flight and connections at their peak, per-second
 * rates from a phase's start, the first success and the last new event, and the check of every
 * expected event against what was acknowledged.
 */
import { checkDeliveries, meanOverActiveSeconds, peakOf, RecoveryTally } from '../../bench/recovery';

describe('RecoveryTally', () => {
  it('keeps the most requests in flight at once, and counts a request begun before a switch out of the next phase', () => {
    const tally = new RecoveryTally('down', 0);
    tally.requestStarted(10);
    tally.requestStarted(20);
    tally.requestAnswered(30, 503, []);
    tally.requestStarted(40);
    tally.requestStarted(50);
    expect(tally.snapshot().peakInFlight).toBe(3);

    tally.switchTo('up', 1000);
    // Three were still unanswered at the switch: they count toward the new phase's peak.
    expect(tally.snapshot().peakInFlight).toBe(3);
    tally.requestAnswered(1001, 503, []);
    tally.requestAnswered(1002, 503, []);
    tally.requestAnswered(1003, 503, []);
    tally.requestStarted(1004);
    const up = tally.snapshot();
    expect(up).toMatchObject({ phase: 'up', requests: 1, peakInFlight: 3, firstOkAt: undefined });
  });

  it('keeps the most connections open at once', () => {
    const tally = new RecoveryTally('up', 0);
    tally.connectionOpened();
    tally.connectionOpened();
    tally.connectionClosed();
    tally.connectionOpened();
    tally.connectionOpened();
    expect(tally.snapshot().peakConnections).toBe(3);
  });

  it('counts requests and acknowledged events per second from the phase start', () => {
    const tally = new RecoveryTally('up', 10_000);
    for (const at of [10_100, 10_900, 12_500]) tally.requestStarted(at);
    tally.requestAnswered(10_200, 200, ['a', 'b']);
    tally.requestAnswered(10_950, 503, ['c']);
    tally.requestAnswered(12_600, 200, ['c']);
    const snapshot = tally.snapshot();
    expect(snapshot.requestsPerSecond).toEqual([2, 0, 1]);
    expect(snapshot.eventsPerSecond).toEqual([2, 0, 1]);
    expect(snapshot.firstOkAt).toBe(10_200);
    expect(snapshot.lastNewEventAt).toBe(12_600);
    expect(snapshot.distinctEvents).toBe(3);
  });

  it('does not move the last new event for an event acknowledged again', () => {
    const tally = new RecoveryTally('up', 0);
    tally.requestStarted(1);
    tally.requestAnswered(2, 200, ['a']);
    tally.requestStarted(3);
    tally.requestAnswered(5_000, 200, ['a']);
    expect(tally.snapshot()).toMatchObject({ lastNewEventAt: 2, distinctEvents: 1 });
    expect(tally.acknowledgedCounts()).toEqual([['a', 2]]);
  });

  it('acknowledges nothing for a failed answer', () => {
    const tally = new RecoveryTally('down', 0);
    tally.requestStarted(1);
    tally.requestAnswered(2, 503, ['a']);
    expect(tally.acknowledgedCounts()).toEqual([]);
    expect(tally.snapshot().firstOkAt).toBeUndefined();
  });
});

describe('checkDeliveries', () => {
  it('counts missing, duplicated and unexpected events', () => {
    const check = checkDeliveries(
      ['a', 'b', 'c', 'd'],
      [
        ['a', 1],
        ['b', 3],
        ['d', 2],
        ['z', 1],
      ],
    );
    expect(check).toEqual({
      expected: 4,
      missing: 1,
      duplicated: 2,
      extraDeliveries: 3,
      unexpected: 1,
      missingSample: ['c'],
    });
  });

  it('finds nothing wrong when each event arrived once', () => {
    expect(
      checkDeliveries(
        ['a', 'b'],
        [
          ['b', 1],
          ['a', 1],
        ],
      ),
    ).toMatchObject({ missing: 0, duplicated: 0, unexpected: 0 });
  });
});

describe('per-second series', () => {
  it('takes the busiest second, and the mean over the seconds from the first to the last active one', () => {
    const series = [0, 0, 4, 0, 8, 0, 0];
    expect(peakOf(series)).toBe(8);
    expect(meanOverActiveSeconds(series)).toBe(4);
    expect(peakOf([])).toBe(0);
    expect(meanOverActiveSeconds([0, 0])).toBe(0);
  });
});

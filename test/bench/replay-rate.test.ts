import type { ReferenceRates } from '../../bench/harness/types';
import {
  checkReplayed,
  type ReplayObservation,
  replayFigures,
  replayRate,
  replayResult,
} from '../../bench/replay-rate';

/** 4,000 archived events, replayed from t=1,000,000 ms, each received once, the last at +2 s. */
const ids = Array.from({ length: 4000 }, (_, n) => `archive-a-on-${n}`);
const observation = (overrides: Partial<ReplayObservation> = {}): ReplayObservation => ({
  topic: 'archive-a-on',
  expected: ids,
  received: ids,
  arrivedAt: ids.map((_, n) => 1_000_500 + (n * 1500) / (ids.length - 1)),
  startedAt: 1_000_000,
  segments: 40,
  reads: { gets: 40, bytes: 400_000, listings: 41 },
  replay: { id: 'rp-1', state: 'Completed', eventsFound: 4000, eventsQueued: 4000 },
  timedOut: false,
  ...overrides,
});

const reference = {
  loopbackHttp: { rate: 8000 },
  sqsRoundTrips: { rate: 100 },
} as unknown as ReferenceRates;

describe('the replay rate', () => {
  it('divides the events by the seconds from the start to the last arrival', () => {
    expect(replayRate(4000, 1_000_000, 1_002_000)).toBe(2000);
    expect(replayRate(4000, 1_000_000, 1_000_000)).toBe(0);
    expect(replayRate(0, 1_000_000, 1_002_000)).toBe(0);
  });

  it('counts each archived event once, from the replay start to the last event, and the pages read', () => {
    const result = replayResult(observation());
    expect(result.events).toBe(4000);
    expect(result.rate).toBe(2000);
    expect(result.firstSeconds).toBeCloseTo(0.5);
    expect(result.lastSeconds).toBeCloseTo(2);
    expect(result).toMatchObject({
      pages: 40,
      listings: 41,
      readBytes: 400_000,
      segments: 40,
      eventsPerPage: 100,
    });
    // A repeat adds nothing to the rate: the same 4,000 events in the same 2 s.
    const repeated = replayResult(
      observation({
        received: [...ids, ids[0] as string],
        arrivedAt: [...observation().arrivedAt, 1_001_000],
      }),
    );
    expect(repeated.rate).toBe(2000);
  });
});

describe('the replay check', () => {
  it('holds when every archived id arrives once and nothing else', () => {
    expect(checkReplayed(['e1', 'e2'], ['e2', 'e1'])).toEqual({
      expected: 2,
      once: 2,
      repeated: 0,
      extraRecords: 0,
      missing: 0,
      unknown: 0,
    });
  });

  it('fails on a duplicate, a missing id or an id not archived, and says which', () => {
    const byMetric = (result: ReturnType<typeof replayResult>) => {
      const figure = replayFigures(result, reference).find((f) => f.metric.includes('exactly once'));
      if (figure === undefined) throw new Error('no check figure');
      return figure;
    };
    expect(byMetric(replayResult(observation()))).toMatchObject({
      value: '4,000 / 4,000',
      goal: 'all, once each',
      met: true,
    });
    const duplicate = replayResult(observation({ received: [...ids, ids[7] as string] }));
    expect(duplicate.check).toMatchObject({ once: 3999, repeated: 1, extraRecords: 1, missing: 0 });
    expect(byMetric(duplicate)).toMatchObject({
      value: '3,999 / 4,000 (1 repeated, 0 missing, 0 not archived)',
      met: false,
    });
    const missing = replayResult(observation({ received: ids.slice(1) }));
    expect(byMetric(missing).met).toBe(false);
    const unknown = replayResult(observation({ received: [...ids, 'other'] }));
    expect(byMetric(unknown)).toMatchObject({ met: false });
    expect(unknown.check.unknown).toBe(1);
    const nothing = replayResult(observation({ expected: [], received: [], arrivedAt: [] }));
    expect(byMetric(nothing).met).toBe(false);
    expect(nothing.rate).toBe(0);
  });
});

describe('the replay figures', () => {
  it('gives the rate as a multiple of the loopback HTTP reference, one event a request', () => {
    const [rate] = replayFigures(replayResult(observation()), reference);
    expect(rate).toMatchObject({
      value: 2000,
      unit: 'events/s',
      share: { of: 'loopbackHttp', value: 0.25, eventsPerUnit: 1 },
    });
    expect(rate?.metric).toContain('4,000 events');
    // Without the reference in the run: no share.
    expect(replayFigures(replayResult(observation()), undefined)[0]?.share).toBeUndefined();
  });

  it("shows the pages, the times and the replay's own counts, delivered when the API gives them", () => {
    const figures = replayFigures(
      replayResult(
        observation({
          replay: {
            id: 'rp-1',
            state: 'Completed',
            eventsFound: 4000,
            eventsQueued: 4000,
            eventsDelivered: 3990,
            lastModifiedAt: new Date(1_002_500).toISOString(),
          },
        }),
      ),
      reference,
    );
    const value = (part: string) => figures.find((figure) => figure.metric.includes(part))?.value;
    expect(value('pages (segments')).toBe('40 / 40; 100');
    // Ended 2.5 s after its start: 40 pages in it, 16 a second, 0.16x 100 SQS round trips/s.
    expect(figures.find((figure) => figure.metric.includes('pages read per second'))).toMatchObject({
      value: 16,
      unit: 'pages/s',
      share: { of: 'sqsRoundTrips', value: 0.16, eventsPerUnit: 1 },
    });
    expect(value('seconds')).toBe('0.5 / 2 (2.5)');
    expect(value('its state')).toBe('Completed, 4,000 / 4,000 / 3,990');
    expect(figures.at(-1)?.metric).toContain('found / queued / delivered');
    // Without the API's delivered count, or its end: neither shown.
    const without = replayFigures(replayResult(observation()), reference);
    expect(without.at(-1)).toMatchObject({ value: 'Completed, 4,000 / 4,000' });
    expect(without.at(-1)?.metric).not.toContain('delivered');
    expect(without.find((figure) => figure.metric.includes('pages read per second'))).toMatchObject({
      value: 'unknown: it did not end',
    });
    expect(without.find((figure) => figure.metric.includes('seconds'))?.value).toBe('0.5 / 2');
  });
});

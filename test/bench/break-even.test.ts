/**
 * The bill's modelled parts that no run measures directly: the publish function's queue-depth
 * reads per warm instance, and the break-even table against the managed services.
 */
import {
  BREAK_EVEN_VOLUMES,
  breakEven,
  breakEvenTable,
  perMillionAtVolume,
  SECONDS_PER_MONTH,
  volumeLabel,
} from '../../bench/break-even';
import { type BillUsage, emptyLambdaUsage } from '../../bench/cost';
import { gateReadsOf } from '../../bench/scenarios/bill-cases';

/** `publishes` publish invocations of `ms` each over `seconds` (memory 512 MB). */
const usage = (publishes: number, ms: number, seconds: number): BillUsage => {
  const lambda = emptyLambdaUsage();
  lambda.publish = { invocations: publishes, gbSeconds: publishes * (ms / 1000) * 0.5 };
  return {
    events: publishes,
    httpRequests: publishes,
    lambda,
    sqsBilledRequests: 0,
    dynamoWriteUnits: 0,
    dynamoReadUnits: 0,
    s3Puts: 0,
    s3Gets: 0,
    seconds,
    webhookRequests: 0,
    webhookBytes: 0,
    publishAnswers: publishes,
    applicationLogLines: 0,
    applicationLogBytes: 0,
    emfRecords: 0,
    emfBytes: 0,
  };
};

describe("the publish function's queue-depth reads", () => {
  it('reads once per 2 s per instance while publishes come more often than that', () => {
    // 50 publishes/s of 20 ms: concurrency 1, four instances (INSTANCES_OVER_CONCURRENCY); each
    // takes 12.5 a second, more than one per 2 s, so each reads every 2 s: 2 a second.
    expect(gateReadsOf(usage(500, 20, 10), true)).toEqual({ instances: 4, reads: 20 });
  });

  it('reads at most once per publish where instances take fewer than one every 2 s', () => {
    // 1 publish/s of 100 ms on one instance: one read per publish, not per 2 s of the run.
    expect(gateReadsOf(usage(10, 100, 10), true)).toEqual({ instances: 1, reads: 5 });
    // 0.2 publishes/s on one instance: every publish reads (its last read is over 2 s old).
    expect(gateReadsOf(usage(2, 10, 10), true).reads).toBeCloseTo(2, 10);
  });

  it('reads nothing when the gate is off', () => {
    expect(gateReadsOf(usage(500, 20, 10), false).reads).toBe(0);
  });
});

describe('break-even against Event Grid and EventBridge', () => {
  const input = {
    label: 'Gridwire',
    perMillionByRate: [
      { eventsPerSecond: 5, perMillion: 1.5 },
      { eventsPerSecond: 50, perMillion: 0.9 },
      { eventsPerSecond: 500, perMillion: 0.7 },
    ],
    fixedMonthly: 20,
    eventGrid: 1.2,
    eventBridge: 1.2,
  };

  it('takes the per-event cost measured at the rate nearest a volume’s', () => {
    // 100M a month is 38.6 events/s: nearest 50. 1B is 386/s: nearest 500. 1M is 0.39/s: 5.
    expect(perMillionAtVolume(input, 100_000_000)).toBe(0.9);
    expect(perMillionAtVolume(input, 1_000_000_000)).toBe(0.7);
    expect(perMillionAtVolume(input, 1_000_000)).toBe(1.5);
    expect(SECONDS_PER_MONTH).toBe(2_592_000);
  });

  it('spreads the fixed monthly cost over the month’s events, and names the first volume where it is cheaper', () => {
    const row = breakEven(input);
    expect(BREAK_EVEN_VOLUMES).toEqual([100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]);
    // 100k: 1.5 + 20 / 0.1; 1M: 1.5 + 20; 10M: 1.5 + 2; 100M: 0.9 + 0.2; 1B: 0.7 + 0.02.
    expect(row.perMillionAt.map((value) => Number(value.toFixed(4)))).toEqual([201.5, 21.5, 3.5, 1.1, 0.72]);
    expect(row.cheaperThanEventGridFrom).toBe(100_000_000);
    expect(row.cheaperThanEventBridgeFrom).toBe(100_000_000);
  });

  it('says when no volume shown is cheaper', () => {
    const row = breakEven({ ...input, eventGrid: 0.5, eventBridge: 0.5 });
    expect(row.cheaperThanEventGridFrom).toBeUndefined();
    expect(breakEvenTable([row])).toContain('| none shown | none shown |');
  });

  it('renders a row per configuration and one per managed service', () => {
    const table = breakEvenTable([breakEven(input)]).split('\n');
    expect(table[0]).toBe(
      '| USD per million events, at events a month | 100k | 1M | 10M | 100M | 1B | cheaper than Event Grid from | cheaper than EventBridge from |',
    );
    expect(table[2]).toBe('| Gridwire | 202 | 21.50 | 3.50 | 1.10 | 0.72 | 100M | 100M |');
    expect(table[3]).toBe('| Event Grid (basic) | 1.20 | 1.20 | 1.20 | 1.20 | 1.20 | | |');
    expect(volumeLabel(2_500_000)).toBe('2.5M');
  });
});

import { DYNAMO_STORAGE_OVERHEAD_BYTES, deduplicationPerMillion } from '../../bench/cost';
import {
  acceptedIdItem,
  billDeduplication,
  type DeduplicationRun,
  deduplicationFigures,
  expectedCounts,
  expectedDuplicatesOf,
  REPEAT_PLAN,
  requestIds,
  typicalAcceptedIdBytes,
} from '../../bench/deduplication';
import { itemBytes, writeUnitsOf } from '../../bench/dynamo-size';
import { billSection } from '../../bench/harness/bill-report';
import type { Figure } from '../../bench/harness/types';

describe('the de-duplication load', () => {
  it('makes each request of 100 events: new ids, 10 ids of earlier requests, 2 of its own again', () => {
    const first = requestIds(REPEAT_PLAN, 't', 0);
    expect(first).toHaveLength(100);
    expect(new Set(first).size).toBe(98);
    expect(first.slice(98)).toEqual(['t-0-0', 't-0-1']);

    const fifth = requestIds(REPEAT_PLAN, 't', 4);
    expect(fifth).toHaveLength(100);
    expect(new Set(fifth).size).toBe(98);
    // The k-th repeat names new id k of request 4 - 1 - k, or of the first request.
    expect(fifth.slice(88, 98)).toEqual([
      't-3-0',
      't-2-1',
      't-1-2',
      't-0-3',
      't-0-4',
      't-0-5',
      't-0-6',
      't-0-7',
      't-0-8',
      't-0-9',
    ]);
    expect(fifth.slice(98)).toEqual(['t-4-0', 't-4-1']);
  });

  it('expects what publishing the requests one at a time gives, repeat for repeat', () => {
    const requests = 12;
    const seen = new Set<string>();
    let duplicates = 0;
    let puts = 0;
    let failedPuts = 0;
    for (let request = 0; request < requests; request += 1) {
      const ids = requestIds(REPEAT_PLAN, 't', request);
      const distinct = [...new Set(ids)];
      const repeatsOfEarlier = distinct.filter((id) => seen.has(id)).length;
      const answered = ids.length - distinct.length + repeatsOfEarlier;
      expect(answered).toBe(expectedDuplicatesOf(REPEAT_PLAN, request));
      duplicates += answered;
      puts += distinct.length;
      failedPuts += repeatsOfEarlier;
      for (const id of distinct) seen.add(id);
    }
    expect(expectedCounts(REPEAT_PLAN, requests)).toEqual({
      events: 1200,
      distinct: seen.size,
      duplicates,
      conditionalPuts: puts,
      failedPuts,
    });
    // 98 new ids, then 88 a request.
    expect(seen.size).toBe(98 + 11 * 88);
  });
});

describe('the accepted-id item', () => {
  it("is sized by DynamoDB's rules: one write unit", () => {
    const item = acceptedIdItem('orders-eu-production', '2026-11-25T00:00:00.000Z', 60);
    // pk: ACCEPTED# (9) + topic (20) + # + creation time (24) + # + the id's hash (43): 98 B.
    expect(String(item.pk)).toHaveLength(98);
    // pk 2 + 98, sk 2 + 3, kind 4 + 11, owner 5 + 36, acceptedAt 10 + 5 (8 digits), expiresAt 9 + 5.
    expect(itemBytes(item)).toBe(100 + 5 + 15 + 41 + 15 + 14);
    expect(typicalAcceptedIdBytes(60)).toBe(190);
    expect(writeUnitsOf(item)).toBe(1);
  });
});

describe('the price of a de-duplication window', () => {
  it('prices a write unit per event and each id stored, with point-in-time recovery, as computed by hand', () => {
    const cost = deduplicationPerMillion({ writeUnitsPerEvent: 1, itemBytes: 190, keptHours: 49 });
    // 1e6 write units x $0.625 per million.
    expect(cost.writes).toBeCloseTo(0.625, 9);
    // 1e6 x 290 B for 49 of 720 hours: 0.0197361 GB-months x ($0.25 + $0.20).
    expect(cost.storedBytesPerItem).toBe(190 + DYNAMO_STORAGE_OVERHEAD_BYTES);
    expect(cost.storage).toBeCloseTo(0.00888125, 8);
    expect(cost.total).toBeCloseTo(0.63388125, 8);
  });

  it("adds to the bill a write unit per event, a 60-minute window's storage and the topic's metric", () => {
    const added = billDeduplication(60);
    expect(added.model).toEqual({ writeUnitsPerEvent: 1, itemBytes: 190, keptHours: 49 });
    expect(added.perMillion.total).toBeCloseTo(0.63388125, 8);
    expect(added.perTopicMonthly).toBeCloseTo(0.3, 9);
  });

  it("states it in the bill's section", () => {
    const section = billSection([
      {
        name: 'bill',
        description: 'The bill.',
        figures: [],
        details: { cases: [], deduplication: billDeduplication(60) },
      },
    ]);
    expect(section).toContain('adds, with 60 minutes, **$0.6339 per million\npublished events**');
    expect(section).toContain('($0.6250 at one\nper event)');
    expect(section).toContain('48 h more\nassumed');
    expect(section).toContain('$0.30 a month per topic');
  });
});

describe('the de-duplication figures', () => {
  const requests = 30;
  const expected = expectedCounts(REPEAT_PLAN, requests);
  const run = (overrides: Partial<DeduplicationRun>): DeduplicationRun => ({
    requests,
    events: expected.events,
    duplicatesAnswered: expected.duplicates,
    answersWithHeader: requests,
    headerMismatches: 0,
    failedRequests: 0,
    delivered: expected.distinct,
    distinctDelivered: expected.distinct,
    acceptedWrites: {
      requests: expected.conditionalPuts,
      items: expected.conditionalPuts,
      units: expected.conditionalPuts,
    },
    failedAcceptedPuts: expected.failedPuts,
    dynamoWriteUnits: expected.conditionalPuts,
    publishGbSeconds: 30 * 0.2 * 0.5,
    publishLatencies: Array.from({ length: requests }, (_, i) => 20 + i),
    ...overrides,
  });
  const off = run({
    duplicatesAnswered: 0,
    answersWithHeader: 0,
    delivered: expected.events,
    acceptedWrites: { requests: 0, items: 0, units: 0 },
    failedAcceptedPuts: 0,
    dynamoWriteUnits: 0,
    publishGbSeconds: 30 * 0.02 * 0.5,
    publishLatencies: Array.from({ length: requests }, (_, i) => 2 + i / 10),
  });
  const byMetric = (figures: Figure[], start: string) => {
    const found = figures.find((figure) => figure.metric.startsWith(start));
    if (found === undefined) throw new Error(`no figure ${start}`);
    return found;
  };

  it('gives write units per published and per accepted event, and prices them', () => {
    const { figures, measuredWritesPerMillion, cost, publishDurationPerMillion } = deduplicationFigures(
      REPEAT_PLAN,
      60,
      run({}),
      off,
    );
    // 2,940 units over 3,000 events published, and over 2,650 accepted.
    expect(byMetric(figures, 'window on: DynamoDB write units per published event')).toMatchObject({
      value: '0.98 (0.98)',
      met: true,
    });
    expect(byMetric(figures, 'window on: DynamoDB write units per accepted event').value).toBe(1.1094);
    expect(byMetric(figures, 'window on: conditional puts')).toMatchObject({
      value: '2,940 (290) / 2,940 (290)',
      met: true,
    });
    expect(measuredWritesPerMillion).toBeCloseTo(0.98 * 0.625, 9);
    expect(cost.writes).toBeCloseTo(0.6125, 9);
    // (3 - 0.3) GB-s over 3,000 events: 0.0009 GB-s an event, x 1e6 x $0.0000133334.
    expect(publishDurationPerMillion).toBeCloseTo(0.01200006, 8);
  });

  it('holds the answers and deliveries to the plan', () => {
    const { figures } = deduplicationFigures(REPEAT_PLAN, 60, run({}), off);
    expect(byMetric(figures, 'window on: duplicates answered')).toMatchObject({
      value: '350 / 350',
      met: true,
    });
    expect(byMetric(figures, 'window on: events delivered')).toMatchObject({
      value: '2,650 / 2,650',
      met: true,
    });
    expect(byMetric(figures, 'window off, same load').value).toBe('3,000 / 2,650');
    expect(byMetric(figures, 'publish request p50 / p99').value).toBe('34 / 49 (3.4 / 4.9)');
  });

  it('fails the goals when a repeat is delivered, an answer is miscounted or a put is missing', () => {
    const delivered = deduplicationFigures(
      REPEAT_PLAN,
      60,
      run({ delivered: expected.distinct + 1 }),
      off,
    ).figures;
    expect(byMetric(delivered, 'window on: events delivered').met).toBe(false);
    const miscounted = deduplicationFigures(REPEAT_PLAN, 60, run({ headerMismatches: 1 }), off).figures;
    expect(byMetric(miscounted, 'window on: duplicates answered').met).toBe(false);
    const missing = deduplicationFigures(
      REPEAT_PLAN,
      60,
      run({ failedAcceptedPuts: expected.failedPuts - 1 }),
      off,
    ).figures;
    expect(byMetric(missing, 'window on: conditional puts').met).toBe(false);
  });
});

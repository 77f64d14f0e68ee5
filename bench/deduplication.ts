/**
 * The de-duplication scenario's pure parts (`scenarios/deduplication.ts`): which ids each publish
 * request carries (a known share repeating ids accepted by earlier requests, a few repeating
 * within the request), what a run must then count, the size of an accepted-id item as the
 * publish function writes it (`shared/storage/accepted-ids.ts`), and the figures from what a run
 * counted.
 */
import { TABLE } from '../shared/config/resources';
import { METRIC_DIMENSION_SETS } from '../shared/observability/metrics';
import { acceptedIdKey } from '../shared/storage/accepted-ids';
import { type DeduplicationCost, deduplicationPerMillion } from './cost';
import { itemBytes } from './dynamo-size';
import { p50p99, round } from './harness/figures';
import type { Figure } from './harness/types';
import { percentile } from './load';
import { PRICES } from './prices';

/** How each publish request of a de-duplication run is made up. */
export interface RepeatPlan {
  /** Events per publish request. */
  perRequest: number;
  /** Events repeating an id an earlier request carried (none in the first request). */
  repeatsOfEarlier: number;
  /** Events repeating an id earlier in the same request. */
  repeatsWithin: number;
}

/** 100 events a request: 10 repeat ids of earlier requests, 2 repeat ids of the same request. */
export const REPEAT_PLAN: RepeatPlan = { perRequest: 100, repeatsOfEarlier: 10, repeatsWithin: 2 };

/** New ids request `request` (from 0) brings: the rest of it repeats ids. */
export const newIdsIn = (plan: RepeatPlan, request: number): number =>
  plan.perRequest - plan.repeatsWithin - (request === 0 ? 0 : plan.repeatsOfEarlier);

/**
 * The ids of request `request`, in order: its new ids (`<prefix>-<request>-<n>`), then the
 * repeats of earlier requests (the k-th repeats new id k of request `request - 1 - k`, or of the
 * first request when there is none that far back: each an id already accepted, none twice in
 * the request), then the repeats of its own first new ids.
 */
export function requestIds(plan: RepeatPlan, prefix: string, request: number): string[] {
  const id = (from: number, n: number) => `${prefix}-${from}-${n}`;
  const fresh = Array.from({ length: newIdsIn(plan, request) }, (_, n) => id(request, n));
  const earlier =
    request === 0
      ? []
      : Array.from({ length: plan.repeatsOfEarlier }, (_, k) => id(Math.max(0, request - 1 - k), k));
  const within = fresh.slice(0, plan.repeatsWithin);
  return [...fresh, ...earlier, ...within];
}

/** What a run of `requests` requests must count with the window on, published one request at a time. */
export function expectedCounts(plan: RepeatPlan, requests: number) {
  const events = plan.perRequest * requests;
  let distinct = 0;
  for (let request = 0; request < requests; request += 1) distinct += newIdsIn(plan, request);
  return {
    events,
    distinct,
    /** Events answered as repeats (the header's counts summed) and not queued. */
    duplicates: events - distinct,
    /** Conditional puts: one per distinct id of each request (a repeat within a request makes none). */
    conditionalPuts: requests * (plan.perRequest - plan.repeatsWithin),
    /** Of those, the puts whose condition fails: each repeat of an earlier request's id. */
    failedPuts: Math.max(0, requests - 1) * plan.repeatsOfEarlier,
  };
}

/** The `gridwire-duplicate-events` count request `request` must be answered with. */
export const expectedDuplicatesOf = (plan: RepeatPlan, request: number): number =>
  plan.repeatsWithin + (request === 0 ? 0 : plan.repeatsOfEarlier);

/**
 * An accepted-id item as `DynamoAcceptedIds.claim` writes it, for a topic named `topicId` made at
 * `createdAt` (ISO 8601): its key (the id hashed), `kind`, the claiming publish's id (a UUID), the
 * time it was accepted (epoch ms) and its expiry (epoch s).
 */
export function acceptedIdItem(topicId: string, createdAt: string, windowMinutes: number) {
  const now = Date.parse('2026-11-25T00:00:00.000Z');
  return {
    ...acceptedIdKey({ id: topicId, createdAt }, 'f3c2a1b0-4d5e-4f60-8a9b-0c1d2e3f4a5b'),
    kind: 'accepted-id',
    owner: '8f5e1d2c-3b4a-4c5d-9e6f-7a8b9c0d1e2f',
    acceptedAt: now,
    [TABLE.ttlAttribute]: Math.ceil((now + windowMinutes * 60_000) / 1000),
  };
}

/** The bytes of a typical accepted-id item (a 20-character topic name), by DynamoDB's sizing rules. */
export const typicalAcceptedIdBytes = (windowMinutes: number): number =>
  itemBytes(acceptedIdItem('orders-eu-production', '2026-11-25T00:00:00.000Z', windowMinutes));

/**
 * Hours an accepted-id item is stored beyond its window: DynamoDB's time to live deletes an
 * expired item "typically within two days of expiration" (UpdateTimeToLive API reference), and
 * an expired item counts towards storage until it is deleted. Assumed: the whole two days.
 */
export const ASSUMED_TTL_DELETION_HOURS = 48;

/** The publish rate at which the stored accepted ids are sized (events/s, every id distinct). */
export const ASSUMED_STORAGE_RATE = 100;

/**
 * What the bill adds for a topic with a de-duplication window of `windowMinutes`: per million
 * published events, a write unit for each (a conditional put per distinct id of a request, new or
 * a repeat: at most one per event), and its accepted id stored for the window and until time to
 * live deletes it; by the month, the topic's own
 * `PublishDuplicateCount` series (the stack-wide one is already among the stack's metrics).
 */
export function billDeduplication(windowMinutes: number) {
  const model = {
    writeUnitsPerEvent: 1,
    itemBytes: typicalAcceptedIdBytes(windowMinutes),
    keptHours: windowMinutes / 60 + ASSUMED_TTL_DELETION_HOURS,
  };
  const perTopicSeries = METRIC_DIMENSION_SETS.PublishDuplicateCount.filter(
    (set) => set.length === 1 && set[0] === 'Topic',
  ).length;
  return {
    windowMinutes,
    model,
    perMillion: deduplicationPerMillion(model),
    perTopicMonthly: perTopicSeries * PRICES.cloudWatch.perMetricMonth,
  };
}

/** What one run counted: the window-on run, or the same load on a topic without a window. */
export interface DeduplicationRun {
  requests: number;
  events: number;
  /** The `gridwire-duplicate-events` counts summed (0 where the header was absent). */
  duplicatesAnswered: number;
  /** Answers that carried the header. */
  answersWithHeader: number;
  /** Requests answered with another count than the plan gives them. */
  headerMismatches: number;
  /** Requests not answered 200. */
  failedRequests: number;
  /** Events the sink acknowledged, and their distinct ids. */
  delivered: number;
  distinctDelivered: number;
  /** DynamoDB writes to accepted-id items (`ACCEPTED#`): requests, items, write units. */
  acceptedWrites: { requests: number; items: number; units: number };
  /** Those that failed (their condition did not hold: a repeat); billed all the same. */
  failedAcceptedPuts: number;
  /** Every DynamoDB write unit of the run. */
  dynamoWriteUnits: number;
  /** The publish function's billed GB-seconds in the run. */
  publishGbSeconds: number;
  publishLatencies: number[];
}

/** The de-duplication figures and the cost model's parts, from the two runs. */
export function deduplicationFigures(
  plan: RepeatPlan,
  windowMinutes: number,
  on: DeduplicationRun,
  off: DeduplicationRun,
): {
  figures: Figure[];
  cost: DeduplicationCost;
  measuredWritesPerMillion: number;
  /** The publish function's duration the window added, per million published events (local). */
  publishDurationPerMillion: number;
  /** Storage per million events were each item deleted as its window ends (the least it can be). */
  storageIfDeletedAtExpiry: number;
  storedGb: number;
} {
  const expected = expectedCounts(plan, on.requests);
  const perPublished = on.acceptedWrites.units / Math.max(1, on.events);
  const allPerPublished = on.dynamoWriteUnits / Math.max(1, on.events);
  const perAccepted = on.dynamoWriteUnits / Math.max(1, expected.distinct);
  const measuredWritesPerMillion = perPublished * 1_000_000 * PRICES.dynamodb.perWriteUnit;
  const bytes = typicalAcceptedIdBytes(windowMinutes);
  const keptHours = windowMinutes / 60 + ASSUMED_TTL_DELETION_HOURS;
  const cost = deduplicationPerMillion({ writeUnitsPerEvent: perPublished, itemBytes: bytes, keptHours });
  const atExpiry = deduplicationPerMillion({
    writeUnitsPerEvent: perPublished,
    itemBytes: bytes,
    keptHours: windowMinutes / 60,
  });
  const gbSecondsPerEvent = (run: DeduplicationRun) => run.publishGbSeconds / Math.max(1, run.events);
  const publishDurationPerMillion =
    (gbSecondsPerEvent(on) - gbSecondsPerEvent(off)) * 1_000_000 * PRICES.lambda.perGbSecond;
  // Items stored at a steady rate: every id of the window and of the deletion delay.
  const storedGb = (ASSUMED_STORAGE_RATE * keptHours * 3600 * cost.storedBytesPerItem) / 1e9;
  const latency = (run: DeduplicationRun) => p50p99(run.publishLatencies);
  const p99 = (run: DeduplicationRun) => percentile(run.publishLatencies, 99);
  const count = (value: number) => value.toLocaleString('en-US');
  return {
    cost,
    measuredWritesPerMillion,
    publishDurationPerMillion,
    storageIfDeletedAtExpiry: atExpiry.storage,
    storedGb,
    figures: [
      {
        metric: 'window on: DynamoDB write units per published event, accepted-id puts (all writes)',
        value: `${round(perPublished, 4)} (${round(allPerPublished, 4)})`,
        unit: 'WCU',
        goal: '<= 1',
        met: perPublished <= 1 && allPerPublished <= 1,
      },
      {
        metric: 'window on: conditional puts (of them failed: repeats of earlier ids) / expected',
        value: `${count(on.acceptedWrites.requests)} (${count(on.failedAcceptedPuts)}) / ${count(expected.conditionalPuts)} (${count(expected.failedPuts)})`,
        unit: 'puts',
        goal: 'equal',
        met:
          on.acceptedWrites.requests === expected.conditionalPuts &&
          on.failedAcceptedPuts === expected.failedPuts,
      },
      {
        metric: "window on: DynamoDB write units per accepted event (a repeat's failed put is billed too)",
        value: round(perAccepted, 4),
        unit: 'WCU',
      },
      {
        metric: 'window on: duplicates answered (gridwire-duplicate-events summed) / expected',
        value: `${count(on.duplicatesAnswered)} / ${count(expected.duplicates)}`,
        unit: 'events',
        goal: 'equal, each request',
        met:
          on.duplicatesAnswered === expected.duplicates &&
          on.headerMismatches === 0 &&
          on.answersWithHeader === on.requests,
      },
      {
        metric: 'window on: events delivered / distinct ids published',
        value: `${count(on.delivered)} / ${count(expected.distinct)}`,
        unit: 'events',
        goal: 'equal: no repeat delivered, none lost',
        met: on.delivered === expected.distinct && on.distinctDelivered === expected.distinct,
      },
      {
        metric: 'window off, same load: events delivered / distinct ids published',
        value: `${count(off.delivered)} / ${count(expected.distinct)}`,
        unit: 'events',
      },
      {
        metric: 'publish request p50 / p99, window on (off)',
        value: `${latency(on)} (${latency(off)})`,
        unit: 'ms',
      },
      {
        metric: 'publish request p99 added by the window (locally: the puts go to dynalite)',
        value: round(p99(on) - p99(off), 1),
        unit: 'ms',
      },
      {
        metric: 'de-duplication DynamoDB writes per million published events (measured units x list price)',
        value: round(measuredWritesPerMillion, 4),
        unit: 'USD',
      },
      {
        metric:
          'publish function duration the window added per million published events (locally: waiting on dynalite, not DynamoDB)',
        value: round(publishDurationPerMillion, 4),
        unit: 'USD',
      },
      {
        metric: `accepted-id storage per million events (${bytes} B + ${cost.storedBytesPerItem - bytes} B an item, kept ${windowMinutes} min + ${ASSUMED_TTL_DELETION_HOURS} h, with point-in-time recovery)`,
        value: round(cost.storage, 4),
        unit: 'USD',
      },
      {
        metric: `accepted-id items stored at ${ASSUMED_STORAGE_RATE} distinct events/s (assumed), and their monthly cost`,
        value: `${round(storedGb, 2)} GB, ${round(storedGb * (PRICES.dynamodb.storagePerGbMonth + PRICES.dynamodb.pitrPerGbMonth), 2)} USD/month`,
        unit: '',
      },
    ],
  };
}

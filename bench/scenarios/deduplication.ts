/**
 * What a topic's de-duplication window costs, on the shared stack: the same publishes, 100 events
 * a request with a known share of repeated ids, to a topic without a window and to one with a
 * 60-minute window, each with one webhook subscription on the sink. Measured: the DynamoDB writes
 * the window adds (counted by kind of item), the repeats answered in `gridwire-duplicate-events`,
 * what the sink received (no repeat delivered, no event lost) and the publish request's latency
 * with the window and without; priced per million published events, with the accepted ids'
 * storage.
 */
import { TABLE } from '../../shared/config/resources';
import { DEDUPLICATION_WINDOW_IN_MINUTES } from '../../shared/domain/model';
import {
  ASSUMED_STORAGE_RATE,
  ASSUMED_TTL_DELETION_HOURS,
  type DeduplicationRun,
  deduplicationFigures,
  expectedCounts,
  expectedDuplicatesOf,
  REPEAT_PLAN,
  requestIds,
  typicalAcceptedIdBytes,
} from '../deduplication';
import { round } from '../harness/figures';
import type { LiveStack } from '../harness/live-stack';
import { endProgress, log, progress } from '../harness/log';
import type { Scenario, ScenarioResult } from '../harness/types';
import type { Sink } from '../load';
import { PRICES } from '../prices';

/** The window measured, minutes. */
const WINDOW_MINUTES = 60;
const DUPLICATE_HEADER = 'gridwire-duplicate-events';

/** Creates `topic` (with `windowMinutes`, 0 for none) and one subscription on the sink; returns its key. */
async function topicOnSink(live: LiveStack, topic: string, sinkUrl: string, windowMinutes: number) {
  await live.call('PUT', `/admin/topics/${topic}`, {
    properties: { inputSchema: 'EventGridSchema', deduplicationWindowInMinutes: windowMinutes },
  });
  await live.call('PUT', `/admin/topics/${topic}/eventSubscriptions/sink`, {
    properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl: sinkUrl } } },
  });
  const keys = (await live.call('POST', `/admin/topics/${topic}/listKeys`)) as { key1: string };
  return keys.key1;
}

/** One publish request of the plan's ids; its answer's status, duplicate count and latency. */
async function publish(live: LiveStack, topic: string, key: string, ids: readonly string[]) {
  const time = new Date().toISOString();
  const t = Date.now();
  const body = ids.map(
    (id) =>
      `{"id":"${id}","subject":"bench/${id}","eventType":"Bench.Event","eventTime":"${time}","data":{"t":${t}}}`,
  );
  const started = performance.now();
  const response = await fetch(`${live.stack.apiUrl}/topics/${topic}/api/events?api-version=2018-01-01`, {
    method: 'POST',
    headers: { 'aeg-sas-key': key, 'content-type': 'application/json' },
    body: `[${body.join(',')}]`,
  });
  await response.arrayBuffer();
  const header = response.headers.get(DUPLICATE_HEADER);
  return {
    status: response.status,
    duplicates: header === null ? undefined : Number(header),
    ms: performance.now() - started,
  };
}

/**
 * Publishes `requests` requests of the plan to `topic`, one at a time (each request's earlier
 * repeats then name ids already accepted), waits until the sink has `expected` events (and a
 * second more, for any repeat), and takes the stack's usage.
 */
async function measureRun(
  live: LiveStack,
  sink: Sink,
  options: { topic: string; windowMinutes: number; requests: number; expected: (distinct: number) => number },
): Promise<DeduplicationRun & { usage: ReturnType<LiveStack['usage']['take']> }> {
  const key = await topicOnSink(live, options.topic, sink.url, options.windowMinutes);
  // A fresh count of the ids the sink acknowledged, and of the stack's usage.
  sink.configure(0, 0);
  await sink.take();
  live.usage.take();
  const run: DeduplicationRun = {
    requests: options.requests,
    events: 0,
    duplicatesAnswered: 0,
    answersWithHeader: 0,
    headerMismatches: 0,
    failedRequests: 0,
    delivered: 0,
    distinctDelivered: 0,
    acceptedWrites: { requests: 0, items: 0, units: 0 },
    failedAcceptedPuts: 0,
    dynamoWriteUnits: 0,
    publishGbSeconds: 0,
    publishLatencies: [],
  };
  for (let request = 0; request < options.requests; request += 1) {
    const ids = requestIds(REPEAT_PLAN, options.topic, request);
    const answer = await publish(live, options.topic, key, ids);
    run.events += ids.length;
    run.publishLatencies.push(answer.ms);
    if (answer.status !== 200) run.failedRequests += 1;
    if (answer.duplicates !== undefined) {
      run.answersWithHeader += 1;
      run.duplicatesAnswered += answer.duplicates;
      if (answer.duplicates !== expectedDuplicatesOf(REPEAT_PLAN, request)) run.headerMismatches += 1;
    }
  }
  const expected = options.expected(expectedCounts(REPEAT_PLAN, options.requests).distinct);
  const deadline = performance.now() + 30_000;
  let quietUntil = Number.POSITIVE_INFINITY;
  while (performance.now() < Math.min(deadline, quietUntil)) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const taken = await sink.take();
    run.delivered += taken.latencies.length;
    run.distinctDelivered = taken.distinctDelivered;
    progress(`  ${options.topic}: delivered ${run.delivered.toLocaleString('en-US')} of ${expected}`);
    // Once all are in, a second more: a repeat delivered would arrive in it.
    if (run.delivered >= expected && quietUntil === Number.POSITIVE_INFINITY)
      quietUntil = performance.now() + 1000;
  }
  endProgress();
  // Let the pollers finish their last deletes before reading the counters.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const usage = live.usage.take();
  const kind = TABLE.acceptedIdPrefix.replace(/#$/, '');
  run.acceptedWrites = usage.aws.dynamoWrites[kind] ?? { requests: 0, items: 0, units: 0 };
  run.failedAcceptedPuts = Object.entries(usage.aws.failedRequests)
    .filter(([operation]) => operation.startsWith('dynamodb:Put'))
    .reduce((sum, [, count]) => sum + count, 0);
  run.dynamoWriteUnits = usage.aws.dynamoWriteUnits;
  run.publishGbSeconds = usage.lambda.publish?.gbSeconds ?? 0;
  return { ...run, usage };
}

async function measureDeduplication(live: LiveStack, sink: Sink, quick: boolean): Promise<ScenarioResult> {
  const requests = quick ? 30 : 100;
  const expected = expectedCounts(REPEAT_PLAN, requests);
  const share = `${REPEAT_PLAN.repeatsOfEarlier} of ${REPEAT_PLAN.perRequest} repeating ids of earlier requests, ${REPEAT_PLAN.repeatsWithin} repeating ids of the same request`;
  // The window's code path run once before it is measured (the stack is warm otherwise).
  log('de-duplication: warming up the window (5 requests, not measured)');
  await measureRun(live, sink, {
    topic: 'dedup-warm-up',
    windowMinutes: WINDOW_MINUTES,
    requests: 5,
    expected: (distinct) => distinct,
  });
  log(
    `de-duplication: ${expected.events.toLocaleString('en-US')} events in ${requests} requests of ${REPEAT_PLAN.perRequest} (${share}), window off, then on (${WINDOW_MINUTES} min)`,
  );
  const off = await measureRun(live, sink, {
    topic: 'dedup-off',
    windowMinutes: 0,
    requests,
    // Without a window every event is delivered, repeats too.
    expected: () => expected.events,
  });
  const on = await measureRun(live, sink, {
    topic: 'dedup-on',
    windowMinutes: WINDOW_MINUTES,
    requests,
    expected: (distinct) => distinct,
  });
  const result = deduplicationFigures(REPEAT_PLAN, WINDOW_MINUTES, on, off);
  const runDetails = ({ usage, publishLatencies: _latencies, ...run }: typeof on) => ({
    ...run,
    dynamoWrites: usage.aws.dynamoWrites,
    dynamoReadUnits: usage.aws.dynamoReadUnits,
    dynamoRequests: Object.fromEntries(
      Object.entries(usage.aws.requests).filter(([operation]) => operation.startsWith('dynamodb:')),
    ),
    dynamoFailedRequests: Object.fromEntries(
      Object.entries(usage.aws.failedRequests).filter(([operation]) => operation.startsWith('dynamodb:')),
    ),
  });
  return {
    name: 'deduplication',
    description: `A topic with \`deduplicationWindowInMinutes: ${WINDOW_MINUTES}\` and one webhook subscription on the sink, on the shared stack: ${expected.events.toLocaleString('en-US')} events published by the benchmark's process (where the stack runs too), one request of ${REPEAT_PLAN.perRequest} at a time (${share}: ${expected.distinct.toLocaleString('en-US')} distinct ids, ${expected.duplicates.toLocaleString('en-US')} repeats), then delivered; the same requests (ids of their own) to a topic without a window, before it, for comparison. Measured: each answer's \`${DUPLICATE_HEADER}\` against the count the plan gives its request; the events and distinct ids the sink acknowledged; the publish request's latency with and without the window (one request in flight, so the time the window adds to a request, not under load; locally the puts go to dynalite on this machine, so the time added, and the publish function's duration it adds (kept out of the cost), are the emulator's, not DynamoDB's); the DynamoDB writes the SDK middleware counted, by kind of item (\`${TABLE.acceptedIdPrefix}\`), failed conditional puts included. dynalite reports no consumed capacity, so write units are counted from the items' sizes (an accepted-id item is under 1 KB: one unit); DynamoDB on AWS bills a put whose condition fails as a write unit too, so a repeat of an earlier request's id costs one, and a repeat within a request none (ids are claimed once per request). Priced at the on-demand list price ($${(PRICES.dynamodb.perWriteUnit * 1_000_000).toFixed(3)} per million write units). Assumed, for storage: an accepted-id item of a typical topic, sized by DynamoDB's rules plus its 100 B of indexing overhead, stored for the window and ${ASSUMED_TTL_DELETION_HOURS} h more (time to live deletes an expired item typically within two days; its deletes are free), at $${PRICES.dynamodb.storagePerGbMonth.toFixed(2)} per GB-month and $${PRICES.dynamodb.pitrPerGbMonth.toFixed(2)} for point-in-time recovery, without the 25 GB a month free; per event this is the same at any rate, and the stored size is given at ${ASSUMED_STORAGE_RATE} distinct events/s. The window goes up to ${DEDUPLICATION_WINDOW_IN_MINUTES.max} min: storage grows with it, writes do not.`,
    figures: result.figures,
    details: {
      plan: { ...REPEAT_PLAN, requests, windowMinutes: WINDOW_MINUTES },
      expected,
      on: runDetails(on),
      off: runDetails(off),
      costPerMillionPublished: {
        measuredWrites: round(result.measuredWritesPerMillion, 5),
        modelled: Object.fromEntries(Object.entries(result.cost).map(([k, v]) => [k, round(v, 5)])),
        storageIfDeletedAtExpiry: round(result.storageIfDeletedAtExpiry, 5),
        publishDurationAddedLocally: round(result.publishDurationPerMillion, 5),
      },
      storage: {
        itemBytes: typicalAcceptedIdBytes(WINDOW_MINUTES),
        assumedRate: ASSUMED_STORAGE_RATE,
        keptHours: WINDOW_MINUTES / 60 + ASSUMED_TTL_DELETION_HOURS,
        storedGb: round(result.storedGb, 3),
      },
      prices: { source: PRICES.source, takenOn: PRICES.takenOn, dynamodb: PRICES.sources.dynamodb },
    },
  };
}

export const deduplication: Scenario = {
  name: 'deduplication',
  description:
    'a 60-minute de-duplication window: DynamoDB writes per event, repeats answered and not delivered, publish latency, cost per million',
  uses: ['sharedStack', 'sink'],
  async run(ctx) {
    const live = await ctx.sharedStack();
    return { results: [await measureDeduplication(live, await ctx.sink(), ctx.quick)] };
  },
};

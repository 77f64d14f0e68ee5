/**
 * Publish throughput with filters: the throughput load to ten subscriptions with five advanced
 * filters each, beside the same events to one subscription without a filter, on the shared stack.
 */
import { FUNCTIONS } from '../../shared/config/resources';
import {
  acceptedMatches,
  expectedMatches,
  FILTERED_SUBSCRIPTIONS,
  matchesPerEvent,
  orderData,
} from '../filters';
import { p50p99, publishedDetails, round, shareOf } from '../harness/figures';
import { type Rig, topicWithSubscriptions } from '../harness/live-stack';
import { type LoadRun, loadRun, sqsRequests, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { Figure, ReferenceRates, Scenario, ScenarioResult } from '../harness/types';
import { percentile } from '../load';
import { THROUGHPUT_OFFERED } from './throughput';

/** What the filters scenario publishes, and what its filters are expected to match. */
interface FilterWorkload {
  seconds: number;
  offered: number;
  data: ReturnType<typeof orderData>;
  /** Subscriptions each published event matches, by its place in `data`. */
  perEvent: number[];
  subscriptions: number;
  filtersEach: number;
  /** Shares of the published events' (event, subscription) pairs that match, and of events matching none. */
  pairShare: number;
  noneShare: number;
}

/** The unfiltered comparison run and the filtered run. */
interface FilterRuns {
  baseline: LoadRun;
  run: LoadRun;
}

/** What the filtered run's filters matched, beside what they were predicted to. */
interface FilterCounts {
  accepted: number;
  /** Events accepted x subscriptions. */
  pairs: number;
  predicted: number;
  /** Deliveries per second the offered load calls for. */
  offeredDeliveries: number;
  matched: number;
  unmatched: number;
  bySubscription: Record<string, { delivered: number; predicted: number }>;
}

const FILTERED_TOPIC = 'filters';

function filterWorkload(quick: boolean): FilterWorkload {
  const data = orderData();
  const perEvent = matchesPerEvent(data);
  const subscriptions = FILTERED_SUBSCRIPTIONS.length;
  return {
    seconds: quick ? 5 : 12,
    offered: THROUGHPUT_OFFERED,
    data,
    perEvent,
    subscriptions,
    filtersEach: FILTERED_SUBSCRIPTIONS[0]?.filter.advancedFilters?.length ?? 0,
    pairShare: expectedMatches(perEvent, perEvent.length) / (perEvent.length * subscriptions),
    noneShare: perEvent.filter((n) => n === 0).length / perEvent.length,
  };
}

/**
 * The same events to one subscription without a filter, then to the filtered ones, after a
 * warm-up at this rate so that neither run pays for getting there.
 */
async function runFilterLoads(rig: Rig, workload: FilterWorkload): Promise<FilterRuns> {
  const { live, sink } = rig;
  const { offered, seconds, subscriptions, filtersEach, perEvent } = workload;
  const load = { eventsPerRequest: 100, eventsPerSecond: offered, seconds, data: workload.data };
  log(
    `filters: ${offered.toLocaleString('en-US')} events/s offered (100 per request) for ${seconds} s to one subscription without a filter, then to ${subscriptions} with ${filtersEach} advanced filters each`,
  );
  await warmUp(rig, { topic: 'filters-warm-up', eventsPerSecond: offered, eventsPerRequest: 100 });
  const baseline = await loadRun(rig, {
    ...load,
    name: 'filters-baseline',
    topic: 'filters-baseline',
  });
  const run = await loadRun(rig, {
    ...load,
    name: 'filters',
    topic: FILTERED_TOPIC,
    subscribe: () =>
      topicWithSubscriptions(
        live,
        FILTERED_TOPIC,
        FILTERED_SUBSCRIPTIONS.map(({ name, filter }) => ({ name, url: `${sink.url}/${name}`, filter })),
      ),
    expectedDeliveries: (published) => acceptedMatches(perEvent, published.acceptedByData),
  });
  return { baseline, run };
}

function filterCounts(rig: Rig, workload: FilterWorkload, run: LoadRun): FilterCounts {
  const { metrics } = rig.live.stack;
  const accepted = run.published.accepted;
  return {
    accepted,
    pairs: accepted * workload.subscriptions,
    predicted: acceptedMatches(workload.perEvent, run.published.acceptedByData),
    offeredDeliveries: workload.offered * workload.subscriptions * workload.pairShare,
    matched: metrics.sum('MatchedEventCount', { Topic: FILTERED_TOPIC }),
    unmatched: metrics.sum('UnmatchedEventCount', { Topic: FILTERED_TOPIC }),
    bySubscription: Object.fromEntries(
      FILTERED_SUBSCRIPTIONS.map((subscription) => [
        subscription.name,
        {
          delivered: run.byPath[`/hook/${subscription.name}`] ?? 0,
          predicted: acceptedMatches(
            matchesPerEvent(workload.data, [subscription]),
            run.published.acceptedByData,
          ),
        },
      ]),
    ),
  };
}

/** Events accepted per second of the load phase (until the publishers' last answer). */
const publishRate = (r: LoadRun) => r.published.accepted / r.loadSeconds;
const publishP = (r: LoadRun, p: number) => percentile(r.published.publishLatencies, p);
/** Mean publish-function duration per request, ms (billed, so each rounded up to 1 ms). */
const publishMs = (r: LoadRun) => {
  const usage = r.usage.lambda.publish;
  return usage === undefined || usage.invocations === 0
    ? Number.NaN
    : (usage.gbSeconds / usage.invocations / (FUNCTIONS.publish.memoryMb / 1024)) * 1000;
};
const sqsWorkPerEvent = (r: LoadRun) =>
  (sqsRequests(r.usage.aws.requests) - r.usage.aws.sqsEmptyReceives) / r.published.accepted;

function filterDescription({
  offered,
  seconds,
  subscriptions,
  filtersEach,
  pairShare,
  noneShare,
}: FilterWorkload) {
  return `The throughput load (${offered.toLocaleString('en-US')} events/s offered, 100 per request, for ${seconds} s; unbatched delivery) to one topic with ${subscriptions} subscriptions on the sink, each with ${filtersEach} advanced filters on \`data.*\` members (numbers, strings, a boolean, presence, one nested key; all 19 operators appear). The events are orders drawn from a seeded generator (amount, colour, region, priority, express, SKU, customer tier, an optional coupon and gift message); ${round(pairShare * 100, 1)}% of the (event, subscription) pairs match, so the sink gets about as many deliveries as the throughput scenario's one subscription (${round(noneShare * 100, 0)}% of the events match no subscription, others one or several). The same events to one subscription without a filter ran just before, as the comparison (figures "filtered / unfiltered"), after 3 s of unmeasured load at the same rate. Publish rate: events accepted per second from the first publish request to the last answer; delivered: deliveries (event, subscription pairs) per second while publishing; the publish function's duration is as billed (each invocation rounded up to 1 ms).`;
}

function filterFigures(
  workload: FilterWorkload,
  { baseline, run }: FilterRuns,
  counts: FilterCounts,
  reference: ReferenceRates | undefined,
): Figure[] {
  const { offered, subscriptions } = workload;
  const { accepted, pairs, predicted, matched, unmatched } = counts;
  const both = (f: (r: LoadRun) => number, digits = 0) =>
    `${round(f(run), digits).toLocaleString('en-US')} / ${round(f(baseline), digits).toLocaleString('en-US')}`;
  /** Unbatched: each delivery is one webhook request. */
  const httpShare = (f: (r: LoadRun) => number) =>
    shareOf(reference, 'loopbackHttp', [round(f(run), 0), round(f(baseline), 0)]);
  return [
    { metric: 'events accepted', value: accepted, unit: 'events' },
    {
      metric: `publish rate achieved (${offered.toLocaleString('en-US')}/s offered), filtered / unfiltered`,
      value: both(publishRate),
      unit: 'events/s',
      ...httpShare(publishRate),
    },
    {
      metric: 'publish request p50, filtered / unfiltered',
      value: both((r) => publishP(r, 50), 1),
      unit: 'ms',
    },
    {
      metric: 'publish request p99, filtered / unfiltered',
      value: both((r) => publishP(r, 99), 1),
      unit: 'ms',
    },
    {
      metric: 'publish function mean duration per request of 100 events, filtered / unfiltered',
      value: both(publishMs, 2),
      unit: 'ms',
    },
    {
      metric: `delivered per second while publishing (mean), filtered / unfiltered (offered: ${round(counts.offeredDeliveries, 0).toLocaleString('en-US')} / ${offered.toLocaleString('en-US')})`,
      value: both((r) => r.steadyRate),
      unit: 'events/s',
      ...httpShare((r) => r.steadyRate),
    },
    {
      metric: 'slowest second while publishing, filtered',
      value: round(run.steadyMin, 0),
      unit: 'events/s',
      ...shareOf(reference, 'loopbackHttp', round(run.steadyMin, 0)),
    },
    {
      metric: `(event, subscription) pairs matched (of events accepted x ${subscriptions})`,
      value: round((matched / pairs) * 100, 2),
      unit: `% (${matched.toLocaleString('en-US')} of ${pairs.toLocaleString('en-US')})`,
    },
    {
      metric: 'events matching no subscription',
      value: round((unmatched / accepted) * 100, 1),
      unit: '% of events accepted',
    },
    {
      metric: 'deliveries / pairs the filters match',
      value: `${run.delivered.toLocaleString('en-US')} / ${predicted.toLocaleString('en-US')}`,
      unit: 'events',
      goal: 'all',
      met: run.delivered === predicted && matched === predicted,
    },
    {
      metric: 'publish -> webhook p50 / p99 under load, filtered',
      value: p50p99(run.latencies),
      unit: 'ms',
    },
    {
      metric: 'last delivery after publishing stopped, filtered',
      value: round(run.drainSeconds, 2),
      unit: 's',
    },
    {
      metric: 'SQS requests per accepted event, without empty polls, filtered / unfiltered',
      value: both(sqsWorkPerEvent, 4),
      unit: 'requests',
    },
  ];
}

function filterDetails({ baseline, run }: FilterRuns, counts: FilterCounts): Record<string, unknown> {
  return {
    published: publishedDetails(run.published),
    baseline: {
      published: publishedDetails(baseline.published),
      delivered: baseline.delivered,
      steadyRate: round(baseline.steadyRate, 0),
      drainSeconds: round(baseline.drainSeconds, 2),
      p50: round(percentile(baseline.latencies, 50), 1),
      p99: round(percentile(baseline.latencies, 99), 1),
      lambda: baseline.usage.lambda,
    },
    matchedPairs: counts.matched,
    predictedPairs: counts.predicted,
    unmatchedEvents: counts.unmatched,
    bySubscription: counts.bySubscription,
    filters: Object.fromEntries(
      FILTERED_SUBSCRIPTIONS.map(({ name, filter }) => [name, filter.advancedFilters]),
    ),
    lambda: run.usage.lambda,
    requests: run.usage.aws.requests,
  };
}

/**
 * Publish throughput with filters: the throughput load (same offered rate, 100 events per
 * request, unbatched delivery) to ten subscriptions with five advanced filters each, which match
 * about one (event, subscription) pair in ten, so about as many deliveries as the throughput
 * scenario's one subscription makes. The same events to one subscription without a filter run
 * first, as the comparison.
 */
async function measureFilters(
  rig: Rig,
  quick: boolean,
  reference: ReferenceRates | undefined,
): Promise<ScenarioResult> {
  const workload = filterWorkload(quick);
  const runs = await runFilterLoads(rig, workload);
  const counts = filterCounts(rig, workload, runs.run);
  return {
    name: 'throughput, 10 filtered subscriptions',
    description: filterDescription(workload),
    figures: filterFigures(workload, runs, counts, reference),
    details: filterDetails(runs, counts),
    timeline: runs.run.timeline,
  };
}

export const filters: Scenario = {
  name: 'filters',
  description: 'the throughput load to 10 subscriptions with 5 advanced filters each, beside none',
  uses: ['sharedStack', 'sink', 'loadGenerator'],
  usesReferenceRates: true,
  async run(ctx) {
    const rig = await ctx.rig(await ctx.sharedStack());
    return { results: [await measureFilters(rig, ctx.quick, ctx.handedOn.referenceRates)] };
  },
};

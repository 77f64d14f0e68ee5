/**
 * Dead endpoints beside healthy ones, on a stack of its own at time scale 1: what a 503 webhook,
 * a closed port and a webhook that never answers cost the healthy subscriptions, what they are
 * sent, and what they cost in DynamoDB and SQS.
 */
import { QUEUES } from '../../shared/config/resources';
import { healthPk } from '../../shared/storage/table';
import { p50p99, publishedDetails, round } from '../harness/figures';
import { type LiveStack, liveStack, topicWithSubscriptions } from '../harness/live-stack';
import { type LoadRun, loadRun, sqsRequests, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { BenchContext, Figure, LatencyP99, Scenario, ScenarioResult } from '../harness/types';
import { closeAfterHanging, closedPort, deadWebhook } from '../harness/webhooks';
import { peakPerSecond, percentile } from '../load';
import type { PublishOutcome } from '../publisher-protocol';
import { lastRunLatencyP99 } from './latency';

const HEALTHY_SUBSCRIPTIONS = 4;

type DeadWebhook = Awaited<ReturnType<typeof deadWebhook>>;

/** The load: as much healthy delivery as the latency scenario, 1,000 deliveries/s in jobs of 20 events. */
interface DeadLoad {
  eventsPerSecond: number;
  eventsPerRequest: number;
  seconds: number;
}

/** The dead endpoints: a webhook answering 503, one that never answers, and a closed port. */
interface DeadEndpoints {
  dead: DeadWebhook;
  hanging: DeadWebhook;
  refusedUrl: string;
}

/** The baseline (healthy subscriptions only) and the measured run, with the counters read just before it. */
interface DeadRuns {
  baseline: LoadRun;
  run: LoadRun;
  before: {
    refusedAttempts: number;
    deadHeld: number;
    refusedHeld: number;
    deadRequests: number;
    hangingRequests: number;
  };
}

/** What the measured run did, healthy and dead subscriptions alike. */
interface DeadCounts {
  sent: number;
  deadRequests: number;
  hangingRequests: number;
  refusedAttempts: number;
  heldEvents503: number;
  heldEventsRefused: number;
  /** When each health item write happened, per dead subscription. */
  deadHealth: number[];
  refusedHealth: number[];
  history: { requests: number; items: number; units: number };
  sqsAll: number;
  retryQueue: number;
  p50: number;
  p99: number;
  healthyPaths: string[];
  perHealthy: number[];
  allDelivered: boolean;
  /** Seconds from the first publish until the healthy deliveries were done. */
  window: number;
}

const TOPIC = 'dead-endpoint';

/** A subscription's series of the stack's metrics on the measured topic. */
const metricOf = (live: LiveStack) => (name: string, subscription: string) =>
  live.stack.metrics.sum(name, { Topic: TOPIC, EventSubscriptionName: subscription.toUpperCase() });

/**
 * The same load to the healthy subscriptions alone first (what they get on their own), then to
 * them beside the dead ones, after a warm-up.
 */
async function runDeadLoads(
  ctx: BenchContext,
  live: LiveStack,
  { dead, hanging, refusedUrl }: DeadEndpoints,
  { eventsPerRequest, eventsPerSecond, seconds }: DeadLoad,
): Promise<DeadRuns> {
  const rig = await ctx.rig(live);
  const { sink } = rig;
  await warmUp(rig);
  const healthy = Array.from({ length: HEALTHY_SUBSCRIPTIONS }, (_, i): [string, string] => [
    `healthy${i + 1}`,
    `${sink.url}/healthy${i + 1}`,
  ]);
  const subscribe = (name: string, subscriptions: Array<[string, string]>) => () =>
    topicWithSubscriptions(
      live,
      name,
      subscriptions.map(([subscription, url]) => ({ name: subscription, url })),
    );
  const load = {
    eventsPerRequest,
    eventsPerSecond,
    seconds,
    expectedDeliveries: (published: PublishOutcome) => published.accepted * HEALTHY_SUBSCRIPTIONS,
  };
  const baseline = await loadRun(rig, {
    ...load,
    name: 'dead endpoint (baseline, healthy only)',
    topic: `${TOPIC}-baseline`,
    subscribe: subscribe(`${TOPIC}-baseline`, healthy),
  });
  const metric = metricOf(live);
  const before = {
    refusedAttempts: metric('DeliveryAttemptFailCount', 'refused'),
    deadHeld: metric('DeliveryHeldCount', 'dead503'),
    refusedHeld: metric('DeliveryHeldCount', 'refused'),
    deadRequests: dead.requests(),
    hangingRequests: hanging.requests(),
  };
  const run = await loadRun(rig, {
    ...load,
    name: 'dead endpoint',
    topic: TOPIC,
    subscribe: subscribe(TOPIC, [
      ...healthy,
      ['dead503', dead.url],
      ['refused', refusedUrl],
      ['hanging', hanging.url],
    ]),
  });
  return { baseline, run, before };
}

function deadCounts(
  live: LiveStack,
  { dead, hanging }: DeadEndpoints,
  { run, before }: DeadRuns,
): DeadCounts {
  const metric = metricOf(live);
  const sent = run.published.accepted;
  const aws = run.usage.aws;
  const healthTimes = Object.entries(aws.healthWriteTimes);
  const healthOf = (subscription: string) =>
    healthTimes.find(([pk]) => pk === healthPk(TOPIC, subscription))?.[1] ?? [];
  const healthyPaths = Array.from({ length: HEALTHY_SUBSCRIPTIONS }, (_, i) => `/hook/healthy${i + 1}`);
  const perHealthy = healthyPaths.map((path) => run.byPath[path] ?? 0);
  return {
    sent,
    deadRequests: dead.requests() - before.deadRequests,
    hangingRequests: hanging.requests() - before.hangingRequests,
    refusedAttempts: metric('DeliveryAttemptFailCount', 'refused') - before.refusedAttempts,
    heldEvents503: metric('DeliveryHeldCount', 'dead503') - before.deadHeld,
    heldEventsRefused: metric('DeliveryHeldCount', 'refused') - before.refusedHeld,
    deadHealth: healthOf('dead503'),
    refusedHealth: healthOf('refused'),
    history: aws.dynamoWrites.HISTORY ?? { requests: 0, items: 0, units: 0 },
    sqsAll: sqsRequests(aws.requests),
    retryQueue: aws.sqsByQueue[QUEUES.retry.localName] ?? 0,
    p50: percentile(run.latencies, 50),
    p99: percentile(run.latencies, 99),
    healthyPaths,
    perHealthy,
    allDelivered: perHealthy.every((count) => count === sent),
    window: run.usageSeconds,
  };
}

function deadDescription({ eventsPerSecond, eventsPerRequest, seconds }: DeadLoad, window: number): string {
  return `${eventsPerSecond.toLocaleString('en-US')} events/s (${eventsPerRequest} per request) for ${seconds} s to one topic with ${HEALTHY_SUBSCRIPTIONS} subscriptions on the sink (1,000 healthy deliveries/s, as in the latency scenario), one on a webhook answering 503, one on a closed port (connections refused) and one on a webhook that never answers (each request times out after 30 s, longer than the run); time scale 1, after 3 s of warm-up and the same load to the four healthy subscriptions alone (the baseline). Counts cover the ${round(window, 1)} s from the first publish until the healthy deliveries were done. Ten failures in a row make an endpoint unhealthy, held for at least a minute, longer than this run: what a dead endpoint is sent here is what it gets before its first probation ends (the held 24 h scenario follows a whole day).`;
}

function deadFigures(
  counts: DeadCounts,
  aws: LoadRun['usage']['aws'],
  baseline: LoadRun,
  latencyP99: LatencyP99 | undefined,
): Figure[] {
  const { sent, p50, p99, deadHealth, refusedHealth, history } = counts;
  const perSecond = (count: number) => round(count / counts.window, 2);
  const vsSent = `vs ${sent.toLocaleString('en-US')} events sent`;
  return [
    {
      metric: 'healthy deliveries (4 subscriptions x events accepted)',
      value: `${counts.perHealthy.reduce((a, b) => a + b, 0).toLocaleString('en-US')} / ${(sent * HEALTHY_SUBSCRIPTIONS).toLocaleString('en-US')}`,
      unit: 'events',
      goal: 'all',
      met: counts.allDelivered,
    },
    { metric: 'healthy publish -> webhook p50', value: round(p50, 1), unit: 'ms' },
    {
      metric: 'healthy publish -> webhook p99',
      value: round(p99, 1),
      unit: 'ms',
      goal: `< 100 (latency scenario${latencyP99 === undefined ? ': not run' : `${latencyP99.earlierRun === undefined ? '' : `, run of ${latencyP99.earlierRun}`}: ${latencyP99.ms} ms`})`,
      met: p99 < 100,
    },
    {
      metric: 'healthy p50 / p99, same load without the dead subscriptions (run first)',
      value: p50p99(baseline.latencies),
      unit: 'ms',
    },
    {
      metric: 'requests to the 503 webhook / events sent to it',
      value: `${counts.deadRequests} / ${sent.toLocaleString('en-US')}`,
      unit: 'requests',
      goal: vsSent,
    },
    {
      metric: 'requests to the webhook that never answers / events sent to it',
      value: `${counts.hangingRequests} / ${sent.toLocaleString('en-US')}`,
      unit: 'requests',
      goal: vsSent,
    },
    {
      metric: 'connection attempts to the closed port / events sent to it',
      value: `${counts.refusedAttempts} / ${sent.toLocaleString('en-US')}`,
      unit: 'attempts',
      goal: vsSent,
    },
    {
      metric: 'health item writes, 503 webhook: mean / busiest second',
      value: `${perSecond(deadHealth.length)} / ${peakPerSecond(deadHealth)}`,
      unit: 'writes/s',
      goal: '< 100/s (partition: 1,000)',
      met: peakPerSecond(deadHealth) < 100,
    },
    {
      metric: 'health item writes, closed port: mean / busiest second',
      value: `${perSecond(refusedHealth.length)} / ${peakPerSecond(refusedHealth)}`,
      unit: 'writes/s',
      goal: '< 100/s (partition: 1,000)',
      met: peakPerSecond(refusedHealth) < 100,
    },
    {
      metric: 'attempt-history writes (items / write units)',
      value: `${history.items} / ${history.units}`,
      unit: 'writes',
    },
    {
      metric: 'SQS requests per published event (7 subscriptions), without empty polls',
      value: round((counts.sqsAll - aws.sqsEmptyReceives) / sent, 4),
      unit: 'requests',
    },
    {
      metric: 'retry-queue SQS requests per dead-endpoint event, without empty polls',
      value: round(counts.retryQueue / (3 * sent), 4),
      unit: 'requests',
    },
  ];
}

function deadDetails({ baseline, run }: DeadRuns, counts: DeadCounts): Record<string, unknown> {
  const aws = run.usage.aws;
  return {
    published: publishedDetails(run.published),
    windowSeconds: round(counts.window, 2),
    baseline: {
      accepted: baseline.published.accepted,
      deliveredBySubscription: baseline.byPath,
      p50: round(percentile(baseline.latencies, 50), 1),
      p99: round(percentile(baseline.latencies, 99), 1),
    },
    healthyDeliveriesBySubscription: Object.fromEntries(
      counts.healthyPaths.map((path, i) => [path, counts.perHealthy[i]]),
    ),
    deadEndpoint: {
      requests503: counts.deadRequests,
      refusedAttempts: counts.refusedAttempts,
      heldEvents503: counts.heldEvents503,
      heldEventsRefused: counts.heldEventsRefused,
      healthWrites503: counts.deadHealth.length,
      healthWritesRefused: counts.refusedHealth.length,
    },
    dynamoWrites: aws.dynamoWrites,
    dynamoReadUnits: aws.dynamoReadUnits,
    sqsByQueue: aws.sqsByQueue,
    sqsEmptyReceives: aws.sqsEmptyReceives,
    requests: aws.requests,
    failedRequests: aws.failedRequests,
    lambda: run.usage.lambda,
  };
}

/**
 * One topic, four subscriptions on the sink and two dead ones (a webhook answering 503 and a
 * closed port), at time scale 1: what the dead endpoints cost the healthy ones (latency, the
 * deliveries), what they are sent, and what they cost in DynamoDB and SQS while they are dead.
 */
async function measureDeadEndpoint(
  ctx: BenchContext,
  latencyP99: LatencyP99 | undefined,
): Promise<ScenarioResult> {
  const seconds = ctx.quick ? 5 : 15;
  const load: DeadLoad = { eventsPerSecond: 1000 / HEALTHY_SUBSCRIPTIONS, eventsPerRequest: 20, seconds };
  log(
    `dead endpoint: ${load.eventsPerSecond} events/s (${load.eventsPerRequest} per request) for ${seconds} s to ${HEALTHY_SUBSCRIPTIONS} healthy subscriptions, one answering 503, one refusing connections and one that never answers`,
  );
  const dead = await deadWebhook(503);
  const hanging = await deadWebhook('hang');
  const endpoints: DeadEndpoints = {
    dead,
    hanging,
    refusedUrl: `http://127.0.0.1:${await closedPort()}/refused`,
  };
  let opened: LiveStack | undefined;
  try {
    const live = await liveStack({ timeScale: 1 });
    opened = live;
    const runs = await runDeadLoads(ctx, live, endpoints, load);
    const counts = deadCounts(live, endpoints, runs);
    return {
      name: 'dead endpoint',
      description: deadDescription(load, counts.window),
      figures: deadFigures(counts, runs.run.usage.aws, runs.baseline, latencyP99),
      details: deadDetails(runs, counts),
      timeline: runs.run.timeline,
    };
  } finally {
    await closeAfterHanging(hanging, opened, dead);
  }
}

export const deadEndpoint: Scenario = {
  name: 'dead-endpoint',
  description: '4 healthy subscriptions beside a 503 webhook, a closed port and a webhook that never answers',
  uses: ['sink', 'loadGenerator'],
  async run(ctx) {
    const latencyP99 = ctx.handedOn.latencyP99 ?? (await lastRunLatencyP99());
    return { results: [await measureDeadEndpoint(ctx, latencyP99)] };
  },
};

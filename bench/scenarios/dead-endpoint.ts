/**
 * Dead endpoints beside healthy ones, on a stack of its own at time scale 1: what a 503 webhook,
 * a closed port and a webhook that never answers cost the healthy subscriptions, what they are
 * sent, and what they cost in DynamoDB and SQS.
 */
import { QUEUES } from '../../shared/config/resources';
import { healthPk } from '../../shared/storage/table';
import { p50p99, publishedDetails, round } from '../harness/figures';
import { type LiveStack, liveStack, topicWithSubscriptions } from '../harness/live-stack';
import { loadRun, sqsRequests, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { BenchContext, LatencyP99, Scenario, ScenarioResult } from '../harness/types';
import { closeAfterHanging, closedPort, deadWebhook } from '../harness/webhooks';
import { peakPerSecond, percentile } from '../load';
import type { PublishOutcome } from '../publisher-protocol';
import { lastRunLatencyP99 } from './latency';

const HEALTHY_SUBSCRIPTIONS = 4;

/**
 * One topic, four subscriptions on the sink and two dead ones (a webhook answering 503 and a
 * closed port), at time scale 1: what the dead endpoints cost the healthy ones (latency, the
 * deliveries), what they are sent, and what they cost in DynamoDB and SQS while they are dead.
 */
async function measureDeadEndpoint(
  ctx: BenchContext,
  latencyP99: LatencyP99 | undefined,
): Promise<ScenarioResult> {
  const { quick } = ctx;
  const seconds = quick ? 5 : 15;
  // As much healthy delivery as the latency scenario: 1,000 deliveries/s in jobs of 20 events.
  const eventsPerSecond = 1000 / HEALTHY_SUBSCRIPTIONS;
  const eventsPerRequest = 20;
  log(
    `dead endpoint: ${eventsPerSecond} events/s (${eventsPerRequest} per request) for ${seconds} s to ${HEALTHY_SUBSCRIPTIONS} healthy subscriptions, one answering 503, one refusing connections and one that never answers`,
  );
  const dead = await deadWebhook(503);
  const hanging = await deadWebhook('hang');
  const refusedUrl = `http://127.0.0.1:${await closedPort()}/refused`;
  const topic = 'dead-endpoint';
  let opened: LiveStack | undefined;
  try {
    const live = await liveStack({ timeScale: 1 });
    opened = live;
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
    // The same load without the dead subscriptions first: what the healthy ones get on their own.
    const baseline = await loadRun(rig, {
      ...load,
      name: 'dead endpoint (baseline, healthy only)',
      topic: `${topic}-baseline`,
      subscribe: subscribe(`${topic}-baseline`, healthy),
    });
    const metric = (name: string, subscription: string) =>
      live.stack.metrics.sum(name, { Topic: topic, EventSubscriptionName: subscription.toUpperCase() });
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
      topic,
      subscribe: subscribe(topic, [
        ...healthy,
        ['dead503', dead.url],
        ['refused', refusedUrl],
        ['hanging', hanging.url],
      ]),
    });
    const sent = run.published.accepted;
    const deadRequests = dead.requests() - before.deadRequests;
    const hangingRequests = hanging.requests() - before.hangingRequests;
    const refusedAttempts = metric('DeliveryAttemptFailCount', 'refused') - before.refusedAttempts;
    const aws = run.usage.aws;
    const healthTimes = Object.entries(aws.healthWriteTimes);
    const healthOf = (subscription: string) =>
      healthTimes.find(([pk]) => pk === healthPk(topic, subscription))?.[1] ?? [];
    const deadHealth = healthOf('dead503');
    const refusedHealth = healthOf('refused');
    const history = aws.dynamoWrites.HISTORY ?? { requests: 0, items: 0, units: 0 };
    const sqsAll = sqsRequests(aws.requests);
    const retryQueue = aws.sqsByQueue[QUEUES.retry.localName] ?? 0;
    const p50 = percentile(run.latencies, 50);
    const p99 = percentile(run.latencies, 99);
    const healthyPaths = Array.from({ length: HEALTHY_SUBSCRIPTIONS }, (_, i) => `/hook/healthy${i + 1}`);
    const perHealthy = healthyPaths.map((path) => run.byPath[path] ?? 0);
    const allDelivered = perHealthy.every((count) => count === sent);
    const window = run.usageSeconds;
    const perSecond = (count: number) => round(count / window, 2);
    return {
      name: 'dead endpoint',
      description: `${eventsPerSecond.toLocaleString('en-US')} events/s (${eventsPerRequest} per request) for ${seconds} s to one topic with ${HEALTHY_SUBSCRIPTIONS} subscriptions on the sink (1,000 healthy deliveries/s, as in the latency scenario), one on a webhook answering 503, one on a closed port (connections refused) and one on a webhook that never answers (each request times out after 30 s, longer than the run); time scale 1, after 3 s of warm-up and the same load to the four healthy subscriptions alone (the baseline). Counts cover the ${round(window, 1)} s from the first publish until the healthy deliveries were done. Ten failures in a row make an endpoint unhealthy, held for at least a minute, longer than this run: what a dead endpoint is sent here is what it gets before its first probation ends (the held 24 h scenario follows a whole day).`,
      figures: [
        {
          metric: 'healthy deliveries (4 subscriptions x events accepted)',
          value: `${perHealthy.reduce((a, b) => a + b, 0).toLocaleString('en-US')} / ${(sent * HEALTHY_SUBSCRIPTIONS).toLocaleString('en-US')}`,
          unit: 'events',
          goal: 'all',
          met: allDelivered,
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
          value: `${deadRequests} / ${sent.toLocaleString('en-US')}`,
          unit: 'requests',
          goal: `vs ${sent.toLocaleString('en-US')} events sent`,
        },
        {
          metric: 'requests to the webhook that never answers / events sent to it',
          value: `${hangingRequests} / ${sent.toLocaleString('en-US')}`,
          unit: 'requests',
          goal: `vs ${sent.toLocaleString('en-US')} events sent`,
        },
        {
          metric: 'connection attempts to the closed port / events sent to it',
          value: `${refusedAttempts} / ${sent.toLocaleString('en-US')}`,
          unit: 'attempts',
          goal: `vs ${sent.toLocaleString('en-US')} events sent`,
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
          value: round((sqsAll - aws.sqsEmptyReceives) / sent, 4),
          unit: 'requests',
        },
        {
          metric: 'retry-queue SQS requests per dead-endpoint event, without empty polls',
          value: round(retryQueue / (3 * sent), 4),
          unit: 'requests',
        },
      ],
      details: {
        published: publishedDetails(run.published),
        windowSeconds: round(window, 2),
        baseline: {
          accepted: baseline.published.accepted,
          deliveredBySubscription: baseline.byPath,
          p50: round(percentile(baseline.latencies, 50), 1),
          p99: round(percentile(baseline.latencies, 99), 1),
        },
        healthyDeliveriesBySubscription: Object.fromEntries(
          healthyPaths.map((path, i) => [path, perHealthy[i]]),
        ),
        deadEndpoint: {
          requests503: deadRequests,
          refusedAttempts,
          heldEvents503: metric('DeliveryHeldCount', 'dead503') - before.deadHeld,
          heldEventsRefused: metric('DeliveryHeldCount', 'refused') - before.refusedHeld,
          healthWrites503: deadHealth.length,
          healthWritesRefused: refusedHealth.length,
        },
        dynamoWrites: aws.dynamoWrites,
        dynamoReadUnits: aws.dynamoReadUnits,
        sqsByQueue: aws.sqsByQueue,
        sqsEmptyReceives: aws.sqsEmptyReceives,
        requests: aws.requests,
        failedRequests: aws.failedRequests,
        lambda: run.usage.lambda,
      },
      timeline: run.timeline,
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

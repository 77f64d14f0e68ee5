/**
 * One healthy subscription beside 8 endpoints that never answer and 8 answering 503, on a stack of
 * its own at time scale 1: the healthy one's latency alone and in that crowd.
 */
import { LOCAL_CONFIG_DEFAULTS } from '../../local/stack';
import { p50p99, round } from '../harness/figures';
import {
  type BenchSubscription,
  type LiveStack,
  liveStack,
  topicWithSubscriptions,
} from '../harness/live-stack';
import { loadRun, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { BenchContext, Scenario, ScenarioResult } from '../harness/types';
import { closeAfterHanging, deadWebhook } from '../harness/webhooks';
import { percentile } from '../load';

const CROWD_NEIGHBOURS = 8;

/**
 * One healthy subscription beside 8 endpoints that never answer and 8 answering 503, at time
 * scale 1: the healthy one's latency alone and in that crowd (the worker's request slots are
 * shared fairly, and a request unanswered for a second stops counting against them).
 */
async function measureCrowd(ctx: BenchContext): Promise<ScenarioResult> {
  const { quick } = ctx;
  const seconds = quick ? 5 : 15;
  const eventsPerSecond = 200;
  const eventsPerRequest = 10;
  log(
    `crowd: ${eventsPerSecond} events/s (${eventsPerRequest} per request) for ${seconds} s to one healthy subscription, alone and beside ${CROWD_NEIGHBOURS} hanging and ${CROWD_NEIGHBOURS} failing (503) neighbours`,
  );
  const failing = await deadWebhook(503);
  const hanging = await deadWebhook('hang');
  let opened: LiveStack | undefined;
  try {
    const live = await liveStack({ timeScale: 1 });
    opened = live;
    const rig = await ctx.rig(live);
    const { sink } = rig;
    await warmUp(rig);
    const load = { eventsPerRequest, eventsPerSecond, seconds };
    const alone = await loadRun(rig, { ...load, name: 'crowd (healthy alone)', topic: 'crowd-alone' });
    const neighbours: BenchSubscription[] = Array.from({ length: CROWD_NEIGHBOURS }, (_, i) => [
      { name: `hanging${i + 1}`, url: `${hanging.url}/${i + 1}` },
      { name: `failing${i + 1}`, url: `${failing.url}/${i + 1}` },
    ]).flat();
    const before = { hanging: hanging.requests(), failing: failing.requests() };
    const crowd = await loadRun(rig, {
      ...load,
      name: 'crowd',
      topic: 'crowd',
      subscribe: () =>
        topicWithSubscriptions(live, 'crowd', [
          { name: 'healthy', url: `${sink.url}/healthy` },
          ...neighbours,
        ]),
    });
    const p99 = percentile(crowd.latencies, 99);
    const sent = crowd.published.accepted;
    const deliveredAll = (crowd.byPath['/hook/healthy'] ?? 0) >= sent;
    return {
      name: 'crowd',
      description: `${eventsPerSecond} events/s (${eventsPerRequest} per request) for ${seconds} s to one topic whose one healthy subscription is on the sink, first alone (its own topic), then beside ${CROWD_NEIGHBOURS} subscriptions on a webhook that never answers (each request times out after 30 s, longer than the run) and ${CROWD_NEIGHBOURS} on a webhook answering 503; time scale 1, one local stack (one delivery engine: ${LOCAL_CONFIG_DEFAULTS.deliveryConcurrency} request slots shared round robin, at most a quarter per subscription, 2 at first for an endpoint that has not answered yet), after 3 s of warm-up. Latency: publish call to the sink's receipt of the healthy subscription's deliveries.`,
      figures: [
        {
          metric: 'healthy deliveries beside the crowd / events accepted',
          value: `${(crowd.byPath['/hook/healthy'] ?? 0).toLocaleString('en-US')} / ${sent.toLocaleString('en-US')}`,
          unit: 'events',
          goal: 'all',
          met: deliveredAll,
        },
        {
          metric: 'healthy p50 / p99 alone',
          value: p50p99(alone.latencies),
          unit: 'ms',
        },
        {
          metric: `healthy p50 / p99 beside ${CROWD_NEIGHBOURS} hanging and ${CROWD_NEIGHBOURS} failing`,
          value: p50p99(crowd.latencies),
          unit: 'ms',
          goal: 'p99 < 2,000',
          met: p99 < 2000,
        },
        {
          metric: 'requests to the hanging / failing neighbours (all 8 each)',
          value: `${hanging.requests() - before.hanging} / ${failing.requests() - before.failing}`,
          unit: 'requests',
          goal: `vs ${(sent * CROWD_NEIGHBOURS).toLocaleString('en-US')} events each`,
        },
      ],
      details: {
        alone: {
          accepted: alone.published.accepted,
          p50: percentile(alone.latencies, 50),
          p99: percentile(alone.latencies, 99),
        },
        crowd: { accepted: sent, byPath: crowd.byPath, windowSeconds: round(crowd.usageSeconds, 2) },
      },
      timeline: crowd.timeline,
    };
  } finally {
    await closeAfterHanging(hanging, opened, failing);
  }
}

export const crowd: Scenario = {
  name: 'crowd',
  description: 'one healthy subscription alone, then beside 8 hanging and 8 failing neighbours',
  uses: ['sink', 'loadGenerator'],
  run: async (ctx) => ({ results: [await measureCrowd(ctx)] }),
};

/** Publish-to-webhook latency at 1,000 events/s, one subscription, on the shared stack. */

import { publishedDetails, round } from '../harness/figures';
import { loadRun } from '../harness/load-run';
import { log } from '../harness/log';
import { readLastResults } from '../harness/report';
import type { LatencyP99, Scenario } from '../harness/types';
import { percentile } from '../load';

const NAME = 'latency';
const P99_METRIC = 'publish -> webhook p99';

/** The latency result's details; `p99Ms` is what later runs read back (see {@link lastRunLatencyP99}). */
interface LatencyDetails {
  published: ReturnType<typeof publishedDetails>;
  drainSeconds: number;
  /** Publish-to-webhook p99, ms to one decimal, as the figure reports it. */
  p99Ms: number;
}

/** The latency p99 the last results file holds, for runs that do not measure it. */
export async function lastRunLatencyP99(): Promise<LatencyP99 | undefined> {
  const last = await readLastResults();
  const result = last?.scenarios.find((scenario) => scenario.name === NAME);
  if (last === undefined || result === undefined) return undefined;
  const details = result.details as Partial<LatencyDetails>;
  // Files written before `p99Ms` was recorded hold the p99 only as the figure.
  const ms = details.p99Ms ?? result.figures.find((figure) => figure.metric === P99_METRIC)?.value;
  return typeof ms === 'number' ? { ms, earlierRun: last.date.slice(0, 10) } : undefined;
}

export const latency: Scenario = {
  name: NAME,
  description: 'publish-to-webhook latency at 1,000 events/s (20 per request), one subscription',
  uses: ['sharedStack', 'sink', 'loadGenerator'],
  async run(ctx) {
    const seconds = ctx.quick ? 5 : 30;
    log(`latency: 1,000 events/s (20 per request) for ${seconds} s`);
    const run = await loadRun(await ctx.rig(await ctx.sharedStack()), {
      name: 'latency',
      eventsPerRequest: 20,
      eventsPerSecond: 1000,
      seconds,
      topic: 'latency',
    });
    const p50 = percentile(run.latencies, 50);
    const p99 = percentile(run.latencies, 99);
    const p99Ms = round(p99, 1);
    const details: LatencyDetails = {
      published: publishedDetails(run.published),
      drainSeconds: round(run.drainSeconds),
      p99Ms,
    };
    return {
      results: [
        {
          name: 'latency',
          description: `Publish-to-webhook latency at 1,000 events/s (50 requests/s of 20 events) for ${seconds} s, one subscription, the delivery queue's event source invoking at once (\`deliveryBatchingWindow: { seconds: 0 }\`): the pipeline's own latency. The construct's default window adds up to its length where batches do not fill (scenario bill, by rate).`,
          figures: [
            { metric: 'events delivered', value: run.delivered, unit: 'events' },
            { metric: 'publish -> webhook p50', value: round(p50, 1), unit: 'ms' },
            { metric: P99_METRIC, value: p99Ms, unit: 'ms', goal: '< 100', met: p99 < 100 },
            {
              metric: 'publish request p99',
              value: round(percentile(run.published.publishLatencies, 99), 1),
              unit: 'ms',
            },
          ],
          details: { ...details },
          timeline: run.timeline,
        },
      ],
      handOn: { latencyP99: { ms: p99Ms } },
    };
  },
};

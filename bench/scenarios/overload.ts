/**
 * Overload: the unbatched peak measured first, then 0.5x to 2x that peak offered from an
 * open-loop publisher, on a stack of its own: does the stack hold its peak and refuse the rest
 * early with 429 and Retry-After?
 */
import { round, shareOf } from '../harness/figures';
import { liveStack, type Rig, topicWithSubscription } from '../harness/live-stack';
import { loadRun, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { ReferenceRates, Scenario, ScenarioResult } from '../harness/types';
import { percentile } from '../load';

/**
 * Where the overload ladder starts looking for the peak: it first offers twice this (well past
 * what one machine delivers unbatched) and takes what it delivered as the measured peak.
 */
const OVERLOAD_PEAK_ESTIMATE = 12_000;
const OVERLOAD_FACTORS = [0.5, 1, 1.5, 2];

interface OverloadStep {
  /** Multiple of the measured peak offered; null for the calibration step that measures it. */
  factor: number | null;
  /** `calibration` or `2x`, as reported. */
  label: string;
  offered: number;
  delivered: number;
  slowest: number;
  accepted: number;
  answers: Record<string, number>;
  refused: number;
  refusedWithRetryAfter: number;
  p99: number;
  drain: number;
}

/** One rung of the ladder: `offered` events/s, 100 per request, to a fresh topic on the sink. */
async function overloadStep(
  rig: Rig,
  factor: number | null,
  offered: number,
  seconds: number,
): Promise<OverloadStep> {
  const label = factor === null ? 'calibration' : `${factor}x`;
  log(
    `overload: ${offered.toLocaleString('en-US')} events/s offered (${label}), 100 per request, for ${seconds} s`,
  );
  const topic = `overload-${factor === null ? 'calibration' : `${Math.round(factor * 100)}pct`}-${offered}`;
  const { live, sink } = rig;
  const run = await loadRun(rig, {
    name: topic,
    eventsPerRequest: 100,
    eventsPerSecond: offered,
    seconds,
    topic,
    subscribe: () => topicWithSubscription(live, topic, sink.url),
  });
  const answers = run.published.answers;
  return {
    factor,
    label,
    offered,
    delivered: round(run.steadyRate, 0),
    slowest: round(run.steadyMin, 0),
    accepted: run.published.accepted,
    answers,
    refused: (answers['429'] ?? 0) + (answers['503'] ?? 0),
    refusedWithRetryAfter: run.published.refusalsWithRetryAfter,
    p99: round(percentile(run.latencies, 99), 0),
    drain: round(run.drainSeconds, 2),
  };
}

/**
 * Overload: the peak is measured first (twice the estimate offered, so the stack is saturated),
 * then loads of 0.5x, 1x, 1.5x and 2x that measured peak are offered (100 events per publish
 * request, one subscription, open loop: publishers do not slow down), 10 s each. A saturated
 * stack should hold its peak, and refuse what it can't take early with 429 and `Retry-After`
 * instead of letting the backlog grow. The share at 2x is taken of the best rate seen anywhere in
 * the ladder (calibration included), so a lucky step can only make the goal harder.
 */
async function measureOverload(
  rig: Rig,
  quick: boolean,
  reference: ReferenceRates | undefined,
): Promise<ScenarioResult> {
  const seconds = quick ? 5 : 10;
  const calibration = await overloadStep(rig, null, OVERLOAD_PEAK_ESTIMATE * 2, seconds);
  const measuredPeak = calibration.delivered;
  const steps: OverloadStep[] = [];
  for (const factor of OVERLOAD_FACTORS) {
    steps.push(await overloadStep(rig, factor, Math.round(measuredPeak * factor), seconds));
  }
  const all = [calibration, ...steps];
  const peak = Math.max(...all.map((step) => step.delivered));
  const top = steps[steps.length - 1];
  const share = top === undefined || peak === 0 ? 0 : top.delivered / peak;
  const notOk = all.reduce(
    (sum, step) =>
      sum + Object.entries(step.answers).reduce((s, [status, n]) => (status === '200' ? s : s + n), 0),
    0,
  );
  const refusedWithRetryAfter = all.reduce((sum, step) => sum + step.refusedWithRetryAfter, 0);
  return {
    name: 'overload',
    description: `The unbatched peak is measured first: ${(OVERLOAD_PEAK_ESTIMATE * 2).toLocaleString('en-US')} events/s offered for ${seconds} s, and what was delivered is the measured peak. Then offered loads of ${OVERLOAD_FACTORS.map((f) => `${f}x`).join(', ')} that measured peak, ${seconds} s each. 100 events per publish request to one subscription on the sink answering 200, from an open-loop publisher that does not slow down or honour Retry-After (the worst case). The local stack refuses publish requests with 429 and Retry-After while fresh deliveries back up in the delivery queue (as API Gateway's throttle answers on AWS). The share at 2x is of the best mean rate of any step, the calibration included. Every accepted event is delivered before the next step starts.`,
    figures: [
      {
        metric: `delivered at ${top?.label} the measured peak (${top?.offered.toLocaleString('en-US')} events/s offered), share of the best rate seen (${peak.toLocaleString('en-US')} events/s)`,
        value: round(share * 100, 1),
        unit: '%',
        goal: '>= 90',
        ...(quick ? {} : { met: share >= 0.9 }),
      },
      {
        metric: 'refused publish requests answered 429/503 with Retry-After',
        value: `${refusedWithRetryAfter} of ${notOk}`,
        unit: 'requests',
        goal: 'all',
        ...(quick ? {} : { met: refusedWithRetryAfter === notOk }),
      },
      ...all.map((step) => ({
        metric: `offered ${step.offered.toLocaleString('en-US')}/s (${step.label}): delivered mean / slowest second; publish answers; publish -> webhook p99; last delivery after stop`,
        value: `${step.delivered.toLocaleString('en-US')} / ${step.slowest.toLocaleString('en-US')} events/s; ${Object.entries(
          step.answers,
        )
          .map(([status, n]) => `${n} x ${status}`)
          .join(', ')}; ${step.p99} ms; ${step.drain} s`,
        unit: '',
        ...shareOf(reference, 'loopbackHttp', [step.delivered, step.slowest]),
      })),
    ],
    details: { measuredPeak, peak, calibration, steps },
  };
}

export const overload: Scenario = {
  name: 'overload',
  description: 'the unbatched peak, then 0.5x to 2x of it offered open loop: held rate and early refusals',
  uses: ['sink', 'loadGenerator'],
  usesReferenceRates: true,
  async run(ctx) {
    const live = await liveStack({ timeScale: 1 });
    try {
      const rig = await ctx.rig(live);
      await warmUp(rig);
      return { results: [await measureOverload(rig, ctx.quick, ctx.handedOn.referenceRates)] };
    } finally {
      await live.close();
    }
  },
};

/**
 * Output batching: the batched throughput ladder (the highest rate the stack keeps up with, and
 * one step past it) and how full batches get, on the shared stack.
 */
import { costPerMillionEvents } from '../cost';
import { round, shareOf } from '../harness/figures';
import { type Rig, topicWithSubscription } from '../harness/live-stack';
import { type LoadRun, loadRun, usageOf } from '../harness/load-run';
import { log } from '../harness/log';
import type { ReferenceRates, Scenario, ScenarioResult } from '../harness/types';
import { percentile } from '../load';

/**
 * Offered loads of the batched throughput ladder, events/s. The goal is 50,000 delivered per
 * second; the ladder shows the highest rate the stack keeps up with and what happens above it.
 */
const BATCHED_LADDER = [10_000, 20_000, 30_000, 40_000, 50_000, 60_000];
/** Events per publish request, so per job and per webhook request of the ladder. */
const EVENTS_PER_JOB = 100;
/** A step kept up only when the last delivery came this soon after publishing stopped (among other tests). */
const KEPT_UP_DRAIN_SECONDS = 2;

/**
 * Output batching: a ladder of offered loads (100 events per publish request) to a subscription
 * with `maxEventsPerBatch: 100`, and how full batches get at 100, 1,000 and 5,000 events/s
 * (the engine never waits to fill a batch: a batch holds the due events of the subscription one
 * delivery invocation received, its jobs merged).
 */
async function measureBatching(
  rig: Rig,
  quick: boolean,
  reference: ReferenceRates | undefined,
): Promise<ScenarioResult[]> {
  const { live, sink } = rig;
  const seconds = quick ? 5 : 15;
  const steps: Array<{
    offered: number;
    delivered: number;
    slowest: number;
    drain: number;
    p50: number;
    p99: number;
    publishP99: number;
    perRequest: number;
    keptUp: boolean;
    run: LoadRun;
  }> = [];
  for (const offered of BATCHED_LADDER) {
    log(
      `batched throughput: ${offered.toLocaleString('en-US')} events/s offered (100 per request), maxEventsPerBatch 100, for ${seconds} s`,
    );
    const topic = `batched-${offered}`;
    const run = await loadRun(rig, {
      name: topic,
      eventsPerRequest: EVENTS_PER_JOB,
      eventsPerSecond: offered,
      seconds,
      topic,
      subscribe: () =>
        topicWithSubscription(live, topic, sink.url, 'EventGridSchema', {
          maxEventsPerBatch: EVENTS_PER_JOB,
        }),
    });
    // Kept up: publishers were not slowed down, delivery matched the offered rate, nothing lagged.
    const keptUp =
      run.published.failedRequests === 0 &&
      run.loadSeconds <= seconds * 1.1 &&
      run.steadyRate >= offered * 0.95 &&
      run.drainSeconds <= KEPT_UP_DRAIN_SECONDS;
    steps.push({
      offered,
      delivered: round(run.steadyRate, 0),
      slowest: round(run.steadyMin, 0),
      drain: round(run.drainSeconds, 2),
      p50: round(percentile(run.latencies, 50), 1),
      p99: round(percentile(run.latencies, 99), 1),
      publishP99: round(percentile(run.published.publishLatencies, 99), 1),
      perRequest: round(run.delivered / Math.max(1, run.webhookRequests), 1),
      keptUp,
      run,
    });
    // Above what it keeps up with the stack falls behind; one step past that is enough to show it.
    if (!keptUp) break;
  }
  const kept = steps.filter((step) => step.keptUp);
  const best = kept.reduce<(typeof steps)[number] | undefined>(
    (top, step) => (top === undefined || step.delivered > top.delivered ? step : top),
    undefined,
  );
  const first = steps[0];
  /** A job of 100 events is one SQS message sent, received and deleted. */
  const jobShare = (rates: number | number[]) => shareOf(reference, 'sqsRoundTrips', rates, EVENTS_PER_JOB);
  const costRun = first?.run;
  const cost = costRun === undefined ? undefined : costPerMillionEvents(usageOf(costRun, costRun.delivered));
  const fills: Array<{ rate: number; perRequest: number; events: number; requests: number }> = [];
  for (const rate of [100, 1000, 5000]) {
    for (const perRequest of [1, 20]) {
      // Single-event publishes at 5,000/s would measure the publish API, not batching.
      if (perRequest === 1 && rate > 1000) continue;
      const fillSeconds = quick ? 3 : 10;
      log(
        `batch fill: ${rate.toLocaleString('en-US')} events/s, ${perRequest} per publish request, maxEventsPerBatch 1000, ${fillSeconds} s`,
      );
      const topic = `fill-${rate}-${perRequest}`;
      const fill = await loadRun(rig, {
        name: topic,
        eventsPerRequest: perRequest,
        eventsPerSecond: rate,
        seconds: fillSeconds,
        topic,
        subscribe: () =>
          topicWithSubscription(live, topic, sink.url, 'EventGridSchema', { maxEventsPerBatch: 1000 }),
      });
      fills.push({ rate, perRequest, events: fill.delivered, requests: fill.webhookRequests });
    }
  }
  return [
    {
      name: 'batched throughput',
      description: `Offered loads of ${BATCHED_LADDER.map((rate) => rate.toLocaleString('en-US')).join(', ')} events/s for ${seconds} s each (100 events per publish request) to one subscription with \`maxEventsPerBatch: 100\`, on the sink answering 200, stopping one step after the stack falls behind (a step keeps up when publishers were not slowed by more than 10%, at least 95% of the offered rate was delivered while publishing, and the last delivery came within ${KEPT_UP_DRAIN_SECONDS} s of the end). All of it runs on this machine's 2 cores: load generator, API, publish and delivery functions (one Node.js thread), emulators and sink.`,
      figures: [
        {
          metric: 'highest rate delivered while keeping up (mean)',
          value: best?.delivered ?? 0,
          unit: 'events/s',
          goal: '>= 50,000',
          ...(quick ? {} : { met: (best?.delivered ?? 0) >= 50_000 }),
          ...jobShare(best?.delivered ?? 0),
        },
        ...steps.map((step) => ({
          metric: `offered ${step.offered.toLocaleString('en-US')}/s: delivered mean / slowest second, p50 / p99, last delivery after stop`,
          value: `${step.delivered.toLocaleString('en-US')} / ${step.slowest.toLocaleString('en-US')} events/s, ${step.p50} / ${step.p99} ms, ${step.drain} s`,
          unit: step.keptUp ? 'kept up' : 'fell behind',
          ...jobShare([step.delivered, step.slowest]),
        })),
        { metric: 'events per webhook request', value: first?.perRequest ?? 0, unit: 'events' },
        ...(cost === undefined
          ? []
          : [
              {
                metric: `modelled AWS cost per million events (at ${first?.offered.toLocaleString('en-US')}/s)`,
                value: round(cost.total, 4),
                unit: 'USD',
              },
            ]),
      ],
      details: {
        steps: steps.map(({ run, ...step }) => ({ ...step, webhookRequests: run.webhookRequests })),
        ...(cost === undefined ? {} : { cost }),
      },
      ...(best === undefined ? {} : { timeline: best.run.timeline }),
    },
    {
      name: 'batch fill',
      description:
        "Events per webhook request for a subscription with `maxEventsPerBatch: 1000`, by publish rate and events per publish request. A batch holds the subscription's due events one delivery invocation received (its jobs merged, so events of separate publishes share requests), so fill follows how publishers batch and how many messages an invocation gets. This stack's delivery queue invokes at once (no batching window, the construct's default), each poller with what one receive returned (at most 10 messages); a 1 s window is measured in the bill scenario.",
      figures: fills.map((fill) => ({
        metric: `${fill.rate.toLocaleString('en-US')} events/s, ${fill.perRequest} per publish request`,
        value: round(fill.events / Math.max(1, fill.requests), 2),
        unit: 'events per request',
      })),
      details: { fills },
    },
  ];
}

export const batching: Scenario = {
  name: 'batching',
  description: 'the batched throughput ladder (100 events per request and per batch) and batch fill',
  uses: ['sharedStack', 'sink', 'loadGenerator'],
  usesReferenceRates: true,
  async run(ctx) {
    const rig = await ctx.rig(await ctx.sharedStack());
    return { results: await measureBatching(rig, ctx.quick, ctx.handedOn.referenceRates) };
  },
};

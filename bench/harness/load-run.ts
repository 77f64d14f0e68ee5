/**
 * A load run: publish at a fixed rate from the load generator, sample the sink every second,
 * wait for the backlog to drain, and take the stack's usage. Every load scenario is made of these.
 */

import type { InputSchema } from '../../shared/domain/model';
import { LOCAL_STACK_ONLY } from '../aws-counter';
import type { Usage } from '../cost';
import { percentile, type UsageCollector } from '../load';
import type { PublishOutcome, PublishPlan } from '../publisher-protocol';
import { round } from './figures';
import { type Rig, topicWithSubscription } from './live-stack';
import { endProgress, log, progress } from './log';
import type { TimelinePoint } from './types';

export interface LoadOptions {
  name: string;
  eventsPerRequest: number;
  eventsPerSecond: number;
  seconds: number;
  topic: string;
  /** Creates the topic and its subscriptions and returns its key (default: one on the sink). */
  subscribe?: () => Promise<string>;
  /** Deliveries the sink must see before the run ends (default: one per accepted event). */
  expectedDeliveries?: (published: PublishOutcome) => number;
  /** The topic's input schema when the run creates it (default Event Grid). */
  schema?: InputSchema;
  /** More data members of the events published (see {@link PublishPlan.data}). */
  data?: PublishPlan['data'];
  /**
   * Seconds the publishers go on at the same rate after `seconds` (default 0). Latency is taken
   * over the events of the first `seconds` only: the trailing ones keep the queue as busy while
   * those are gathered and delivered, as steady traffic would, instead of leaving the last of them
   * to a quiet queue (where a batching window's long polls hold a batch for their whole wait).
   * Everything else (deliveries, requests, bytes, usage) counts the trailing events too.
   */
  trailingSeconds?: number;
}

export interface LoadRun {
  published: PublishOutcome;
  /** From the first publish request to the publishers' last answer. */
  loadSeconds: number;
  /** Events the sink acknowledged. */
  delivered: number;
  /** Requests the sink answered 2xx (one per batch when the subscription batches). */
  webhookRequests: number;
  /** Every request the sink received (failed attempts too), and their bytes on arrival. */
  webhookAttempts: number;
  webhookBytes: number;
  /** Mean events delivered per second while publishing (seconds 2 to the end of the load). */
  steadyRate: number;
  /** The slowest of those seconds. */
  steadyMin: number;
  /** From the end of publishing to the last delivery. */
  drainSeconds: number;
  /** From the first publish to the last delivery. */
  totalSeconds: number;
  /** Publish-to-webhook latency (ms) of each event delivered, but those of `trailingSeconds`. */
  latencies: number[];
  timeline: TimelinePoint[];
  /** Events delivered by request path (one path per subscription). */
  byPath: Record<string, number>;
  usage: ReturnType<UsageCollector['take']>;
  /** The window `usage` covers. */
  usageSeconds: number;
}

/** A load run against a sink that answers after `webhookMs`; the sink answers at once again after it. */
export async function loadRunWithWebhookDelay(
  rig: Rig,
  webhookMs: number,
  options: LoadOptions,
): Promise<LoadRun> {
  rig.sink.configure(0, webhookMs);
  try {
    return await loadRun(rig, options);
  } finally {
    rig.sink.configure(0, 0);
  }
}

/** Publishes at a fixed rate, samples the sink every second, then waits for the backlog to drain. */
export async function loadRun({ live, sink, publishers }: Rig, options: LoadOptions): Promise<LoadRun> {
  const key = await (
    options.subscribe ?? (() => topicWithSubscription(live, options.topic, sink.url, options.schema))
  )();
  const expected = options.expectedDeliveries ?? ((published: PublishOutcome) => published.accepted);
  await sink.take();
  live.usage.take();
  const usageStarted = performance.now();
  const byPath: Record<string, number> = {};
  const timeline: TimelinePoint[] = [];
  const latencies: number[] = [];
  let delivered = 0;
  let webhookRequests = 0;
  let webhookAttempts = 0;
  let webhookBytes = 0;
  let lastAt = 0;
  let sampling = true;
  const startedAt = Date.now();
  const started = performance.now();
  const trailingSeconds = options.trailingSeconds ?? 0;
  // Events published after this (epoch ms) are the trailing ones: delivered and counted, their
  // latency not taken. Without trailing seconds every event's is.
  const measuredUntil = trailingSeconds > 0 ? startedAt + options.seconds * 1000 : Number.POSITIVE_INFINITY;
  const sampler = (async () => {
    let second = 0;
    while (sampling) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      second += 1;
      const taken = await sink.take();
      lastAt = Math.max(lastAt, taken.lastAt);
      const eventsThisSecond = taken.latencies.length;
      delivered += eventsThisSecond;
      webhookRequests += taken.delivered;
      webhookAttempts += taken.requests;
      webhookBytes += taken.requestBytes;
      for (const [path, count] of Object.entries(taken.byPath)) byPath[path] = (byPath[path] ?? 0) + count;
      // A loop, not a spread: a second can bring more samples than a call may take arguments.
      for (const [index, latency] of taken.latencies.entries()) {
        if ((taken.sentAt[index] ?? 0) < measuredUntil) latencies.push(latency);
      }
      timeline.push({
        second,
        delivered: eventsThisSecond,
        p50: round(percentile(taken.latencies, 50), 1),
        p99: round(percentile(taken.latencies, 99), 1),
      });
      progress(
        `  ${options.name}: ${second}s  delivered ${delivered.toLocaleString('en-US')}  (${eventsThisSecond.toLocaleString('en-US')}/s, p99 ${timeline.at(-1)?.p99} ms)`,
      );
    }
  })();
  const published = await publishers.run({
    apiUrl: live.stack.apiUrl,
    topic: options.topic,
    key,
    eventsPerRequest: options.eventsPerRequest,
    requestsPerSecond: options.eventsPerSecond / options.eventsPerRequest,
    durationMs: (options.seconds + trailingSeconds) * 1000,
    prefix: options.name,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.data === undefined ? {} : { data: options.data }),
  });
  const loadSeconds = (performance.now() - started) / 1000;
  const loadEndedAt = Date.now();
  const loadSecondsWhole = timeline.length;
  const drainStarted = performance.now();
  while (delivered < expected(published) && performance.now() - drainStarted < 120_000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  sampling = false;
  await sampler;
  endProgress();
  // Seconds 2 .. end of load: the pipeline is full and publishers are still sending.
  const steady = timeline.slice(1, Math.max(2, loadSecondsWhole)).map((point) => point.delivered);
  const steadyRate = steady.length === 0 ? Number.NaN : steady.reduce((a, b) => a + b, 0) / steady.length;
  const steadyMin = steady.length === 0 ? Number.NaN : Math.min(...steady);
  const drainSeconds = Math.max(0, (lastAt - loadEndedAt) / 1000);
  const totalSeconds = (lastAt - startedAt) / 1000;
  // Let the pollers finish their last deletes before reading the counters.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return {
    published,
    loadSeconds,
    delivered,
    webhookRequests,
    webhookAttempts,
    webhookBytes,
    steadyRate,
    steadyMin,
    drainSeconds,
    totalSeconds,
    latencies,
    timeline,
    byPath,
    usage: live.usage.take(),
    usageSeconds: (performance.now() - usageStarted) / 1000,
  };
}

/** Three seconds of unmeasured load, so JIT compilation and connection set-up are not measured. */
export async function warmUp(
  rig: Rig,
  load: { topic: string; eventsPerSecond: number; eventsPerRequest: number } = {
    topic: 'warm-up',
    eventsPerSecond: 1000,
    eventsPerRequest: 20,
  },
): Promise<void> {
  log(`${load.topic}: 3 s at ${load.eventsPerSecond.toLocaleString('en-US')} events/s (not measured)`);
  await loadRun(rig, { ...load, name: load.topic, seconds: 3 });
}

/** A run's usage (what the collector took) as the cost model takes it, per `events`. */
export function usageOf(run: Pick<LoadRun, 'usage'>, events: number): Usage {
  return {
    events,
    httpRequests: run.usage.httpRequests,
    lambda: run.usage.lambda as Usage['lambda'],
    sqsBilledRequests: run.usage.aws.sqsBilledRequests,
    sqsFifoBilledRequests: run.usage.aws.sqsFifoBilledRequests,
    dynamoWriteUnits: run.usage.aws.dynamoWriteUnits,
    dynamoReadUnits: run.usage.aws.dynamoReadUnits,
    s3Puts: run.usage.aws.requests['s3:PutObject'] ?? 0,
    s3Gets: run.usage.aws.requests['s3:GetObject'] ?? 0,
  };
}

/** SQS requests of every operation, from a count by `service:operation`. */
export const sqsRequests = (requests: Record<string, number>): number =>
  Object.entries(requests)
    .filter(([key]) => key.startsWith('sqs:') && !LOCAL_STACK_ONLY.has(key.slice('sqs:'.length)))
    .reduce((sum, [, count]) => sum + count, 0);

/**
 * Deterministic simulation of the retry engine: the real `DeliveryEngine` in virtual time,
 * an in-memory queue that honours SQS delays, and webhooks with scripted failure patterns.
 * A day of retries for a thousand events runs in about a second, and every attempt is checked
 * against the schedule and its jitter bound.
 */

import { DropRecorder } from '../shared/delivery/dead-letter';
import { DeliveryEngine } from '../shared/delivery/engine';
import { HealthTracker } from '../shared/delivery/health';
import { outcomeForStatus } from '../shared/delivery/rules/outcomes';
import { DELIVERY_PROFILES, TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { baseDelayMs } from '../shared/delivery/rules/retry';
import { deliveryTargetOf } from '../shared/delivery/target';
import type { WebhookRequest, WebhookSender } from '../shared/delivery/webhook-sender';
import type { DeliveryItem, EventGridEvent } from '../shared/domain/delivery';
import {
  type AttemptResult,
  type RetryPolicy,
  retryLimitsOf,
  type Subscription,
} from '../shared/domain/model';
import { silentLogger } from '../shared/observability/logging';
import { EVERY_DIMENSION, MetricBuffer } from '../shared/observability/metrics';
import { seededRandom, VirtualClock } from '../shared/platform/clock';
import { packJobs, parseJob } from '../shared/queue/job-codec';
import { MemoryHealthStore } from '../test/support/memory-stores';
import { queuedItem, VirtualQueue } from './virtual-queue';

const S = 1000;
/** How late SQS's whole-second delays may make an attempt at real time (never early). */
export const SQS_ROUNDING_MS = S;
const M = 60 * S;
const H = 60 * M;

/** A webhook's behaviour: the HTTP status it answers at a given virtual time (ms since start). */
export interface EndpointPattern {
  name: string;
  describe: string;
  status(elapsedMs: number, random: () => number): number;
  retryPolicy?: RetryPolicy;
}

export const PATTERNS: EndpointPattern[] = [
  { name: 'healthy', describe: 'always 200', status: () => 200 },
  {
    name: 'flaky-30',
    describe: '30% of answers are 500',
    status: (_t, random) => (random() < 0.3 ? 500 : 200),
  },
  {
    name: 'down-2h',
    describe: '503 for the first 2 hours, then 200',
    status: (t) => (t < 2 * H ? 503 : 200),
  },
  { name: 'always-500', describe: '500 forever (ends by TTL)', status: () => 500 },
  { name: 'timeout-408', describe: '408 for 30 minutes, then 200', status: (t) => (t < 30 * M ? 408 : 200) },
  { name: 'rejects-400', describe: '400 (never retried)', status: () => 400 },
  {
    name: 'five-attempts',
    describe: '500 forever, maxDeliveryAttempts 5',
    status: () => 500,
    retryPolicy: { maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 1440 },
  },
];

interface AttemptLog {
  at: number;
  status: number;
}

export interface SimulationResult {
  events: number;
  simulatedHours: number;
  wallMs: number;
  attempts: number;
  delivered: number;
  ended: Record<string, number>;
  /** Waits between consecutive attempts of one event, checked against the schedule. */
  waitsChecked: number;
  /** Waits shorter than the schedule step (with its floor) or longer than step + jitter bound + SQS rounding (1 s). */
  violations: number;
  /** Largest wait minus its schedule step, in ms (the jitter actually applied). */
  maxJitterMs: number;
  /** Largest allowed jitter among the checked waits, in ms. */
  maxJitterBoundMs: number;
  /** Jobs sent round again because they were not due yet (waits over 15 min). */
  hops: number;
  /** SQS messages sent in all (retries, hops, deferrals). */
  sqsSends: number;
  byPattern: Array<{
    pattern: string;
    describe: string;
    events: number;
    delivered: number;
    attempts: number;
    ended: Record<string, number>;
  }>;
}

export async function runSimulation(
  options: { events?: number; seed?: number; hours?: number } = {},
): Promise<SimulationResult> {
  const started = performance.now();
  const eventCount = options.events ?? 1000;
  const hours = options.hours ?? 48;
  const random = seededRandom(options.seed ?? 7);
  const clock = new VirtualClock();
  const t0 = clock.now();
  const queue = new VirtualQueue(clock);
  // Every dimension together: ends are counted by subscription and reason at once.
  const metrics = new MetricBuffer(EVERY_DIMENSION);
  const drops = new DropRecorder(metrics, silentLogger);
  // Every event has its own subscription (`<pattern>~<event id>`): the schedule of each event is
  // checked on its own, not mixed with probation that other events' failures begin (the health
  // rules have their own tests, and the dead-endpoint benchmarks measure them).
  const subscriptions = new Map<string, Subscription>();
  const subscriptionFor = (pattern: EndpointPattern, eventId: string): Subscription => {
    const name = `${pattern.name}~${eventId}`;
    const subscription: Subscription = {
      topic: 'sim',
      name,
      destination: { endpointType: 'WebHook', endpointUrl: `https://${pattern.name}.sim.test/${eventId}` },
      version: 1,
      deliveryProfile: 'topic',
      filter: {},
      retry: retryLimitsOf(
        pattern.retryPolicy ?? { maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 },
      ),
      eventDeliverySchema: 'EventGridSchema',
      labels: [],
      createdAt: new Date(t0).toISOString(),
      updatedAt: new Date(t0).toISOString(),
    };
    subscriptions.set(name, subscription);
    return subscription;
  };
  const attempts = new Map<string, AttemptLog[]>();
  const patternByHost = new Map(PATTERNS.map((pattern) => [`${pattern.name}.sim.test`, pattern]));
  const sender: WebhookSender = {
    send: async (request: WebhookRequest): Promise<AttemptResult> => {
      const pattern = patternByHost.get(new URL(request.url).host) as EndpointPattern;
      const status = pattern.status(clock.now() - t0, random);
      const id = `${pattern.name}/${request.headers['aeg-output-event-id']}`;
      attempts.set(id, [...(attempts.get(id) ?? []), { at: clock.now(), status }]);
      return status >= 200 && status <= 204
        ? { delivered: true, httpStatus: status, durationMs: 5 }
        : { delivered: false, httpStatus: status, outcome: outcomeForStatus(status), durationMs: 5 };
    },
  };
  const engine = new DeliveryEngine({
    clock,
    random,
    profiles: DELIVERY_PROFILES,
    subscriptions: { get: async (_topic, name) => subscriptions.get(name) },
    sender,
    queue,
    history: { record: async () => {} },
    drops,
    metrics,
    logger: silentLogger,
    concurrency: 64,
    health: new HealthTracker({
      store: new MemoryHealthStore(),
      clock,
      logger: silentLogger,
      cacheMs: 2000,
      flushIntervalMs: 1000,
    }),
  });

  // Publish: 1 to 10 events at a time per pattern, spread over the first hour.
  let published = 0;
  const perPattern = new Map<string, number>();
  while (published < eventCount) {
    const pattern = PATTERNS[published % PATTERNS.length] as EndpointPattern;
    const size = Math.min(eventCount - published, 1 + Math.floor(random() * 10));
    const publishedAt = t0 + Math.floor(random() * H);
    const items: DeliveryItem[] = Array.from({ length: size }, (_, i) => {
      const id = `e${published + i}`;
      const event: EventGridEvent = {
        id,
        topic: '/gridwire/topics/sim',
        subject: id,
        eventType: 'Sim.Event',
        eventTime: new Date(publishedAt).toISOString(),
        dataVersion: '',
        metadataVersion: '1',
      };
      return queuedItem(event, publishedAt);
    });
    perPattern.set(pattern.name, (perPattern.get(pattern.name) ?? 0) + size);
    for (const item of items) {
      const subscription = subscriptionFor(pattern, item.eventId);
      for (const body of packJobs({ target: deliveryTargetOf(subscription) }, [item])) {
        queue.put(body, publishedAt);
      }
    }
    published += size;
  }
  const publishedMessages = queue.size;

  let hops = 0;
  const end = t0 + hours * H;
  for (
    let [message] = queue.receive(1);
    message !== undefined && message.visibleAt <= end;
    [message] = queue.receive(1)
  ) {
    clock.advanceTo(message.visibleAt);
    const report = await engine.processJob(parseJob(message.body), {
      attemptDeadline: Number.MAX_SAFE_INTEGER,
    });
    if (report.hopped) hops += 1;
  }
  // The simulated subscriptions have no dead-letter destination: ended events are dropped (and
  // counted) by the engine; nothing reaches the ended-delivery queue.
  if (queue.ended.length > 0)
    throw new Error('no dead-letter destination is set, yet events were dead-lettered');

  const ended: Record<string, number> = {};
  const endedByPattern = new Map<string, Record<string, number>>(
    PATTERNS.map((pattern) => [pattern.name, {}]),
  );
  for (const point of metrics.drain()) {
    if (point.name !== 'DroppedEventCount') continue;
    const reason = point.dimensions.DropReason ?? '?';
    const count = point.values[0] ?? 0;
    ended[reason] = (ended[reason] ?? 0) + count;
    const pattern = (point.dimensions.EventSubscriptionName ?? '').toLowerCase().split('~')[0] ?? '';
    const forPattern = endedByPattern.get(pattern);
    if (forPattern !== undefined) forPattern[reason] = (forPattern[reason] ?? 0) + count;
  }

  let waitsChecked = 0;
  let violations = 0;
  let maxJitterMs = 0;
  let maxJitterBoundMs = 0;
  let delivered = 0;
  let attemptCount = 0;
  const byPattern = new Map<string, { delivered: number; attempts: number }>();
  for (const [id, log] of attempts) {
    const name = id.split('/')[0] ?? '';
    const stats = byPattern.get(name) ?? { delivered: 0, attempts: 0 };
    stats.attempts += log.length;
    attemptCount += log.length;
    if (log.some((attempt) => attempt.status >= 200 && attempt.status <= 204)) {
      stats.delivered += 1;
      delivered += 1;
    }
    byPattern.set(name, stats);
    for (let n = 1; n < log.length; n += 1) {
      const previous = log[n - 1] as AttemptLog;
      const base = baseDelayMs(TOPIC_PROFILE, n, { httpStatus: previous.status });
      // SQS delays are whole seconds: at real time a job surfaces up to a second after it is due.
      const bound = Math.min(base * TOPIC_PROFILE.jitter.ratio, TOPIC_PROFILE.jitter.maxMs) + SQS_ROUNDING_MS;
      const wait = (log[n] as AttemptLog).at - previous.at;
      waitsChecked += 1;
      maxJitterMs = Math.max(maxJitterMs, wait - base);
      maxJitterBoundMs = Math.max(maxJitterBoundMs, bound);
      // (`>`: due times travel as whole milliseconds, rounded up, so a wait may reach the bound.)
      if (wait < base || wait > base + bound) violations += 1;
    }
  }

  return {
    events: published,
    simulatedHours: hours,
    wallMs: Math.round(performance.now() - started),
    attempts: attemptCount,
    delivered,
    ended,
    waitsChecked,
    violations,
    maxJitterMs: Math.round(maxJitterMs),
    maxJitterBoundMs: Math.round(maxJitterBoundMs),
    hops,
    sqsSends: queue.messagesSent + publishedMessages,
    byPattern: PATTERNS.map((pattern) => ({
      pattern: pattern.name,
      describe: pattern.describe,
      events: perPattern.get(pattern.name) ?? 0,
      delivered: byPattern.get(pattern.name)?.delivered ?? 0,
      attempts: byPattern.get(pattern.name)?.attempts ?? 0,
      ended: endedByPattern.get(pattern.name) ?? {},
    })),
  };
}

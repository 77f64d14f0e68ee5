/**
 * What an event costs while its endpoint is dead: the real delivery engine, health tracker,
 * subscription cache and history packing in virtual time, against a webhook that answers 503 to
 * every request, with the `topic` profile at real time scale. A day (and the rest of the event's
 * life) takes well under a second.
 *
 * Counted, from the first receive of the published job until the last event has ended: SQS
 * SendMessageBatch requests (grouped as the job queue groups them), receives and deletes (one
 * receive per batch of messages visible at the same moment, at most ten; empty polls are a cost
 * per queue, not per event, and are left out), delivery invocations (one per received batch),
 * DynamoDB reads and writes (health items and packed history items by their size, subscription
 * reads through the same cache as on AWS) and webhook requests. One delivery worker (one health
 * tracker) handles every job, as a single Lambda instance would. The subscription has no
 * dead-letter destination, so ended events are dropped and cost nothing more.
 *
 * Lambda duration is the one part assumed: any wait the engine sleeps is measured in virtual time
 * (at real time there is none: the last hop is rounded up to a whole second); the rest is
 * {@link ASSUMED_MS}.
 */

import { attemptDeadline } from '../functions/delivery';
import { FUNCTIONS } from '../shared/config/resources';
import { CONFIG_DEFAULTS } from '../shared/config/runtime';
import { DropRecorder } from '../shared/delivery/dead-letter';
import { DeliveryEngine } from '../shared/delivery/engine';
import { HealthTracker } from '../shared/delivery/health';
import { outcomeForStatus } from '../shared/delivery/rules/outcomes';
import { DELIVERY_PROFILES, type DeliveryProfile, TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { deliveryTargetOf } from '../shared/delivery/target';
import type { WebhookSender } from '../shared/delivery/webhook-sender';
import type { DeliveryItem, EventGridEvent } from '../shared/domain/delivery';
import {
  type AttemptResult,
  type RetryLimits,
  retryLimitsOf,
  type Subscription,
} from '../shared/domain/model';
import { cachedSubscriptions, HEALTH_FLUSH_INTERVAL_MS } from '../shared/lambda/wiring';
import { silentLogger } from '../shared/observability/logging';
import { EVERY_DIMENSION, METRIC, MetricBuffer } from '../shared/observability/metrics';
import { seededRandom, VirtualClock } from '../shared/platform/clock';
import { packJobs, parseJob } from '../shared/queue/job-codec';
import { packHistory } from '../shared/storage/attempt-history';
import { BATCH_WRITE_LIMIT } from '../shared/storage/batch-write';
import type { HealthStore } from '../shared/storage/health';
import { HEALTH_SK, healthPk } from '../shared/storage/table';
import { MemoryHealthStore } from '../test/support/memory-stores';
import { billedGbSeconds, emptyLambdaUsage, type Usage } from './cost';
import { writeUnitsOf } from './dynamo-size';
import { queuedItem, type VirtualMessage, VirtualQueue } from './virtual-queue';

const S = 1000;
const H = 3600 * S;

/**
 * Billed time per delivery invocation besides the measured sleeps: its AWS calls (a read, an
 * SQS send, a write or two), and the dead endpoint's 503 when the invocation makes requests
 * (requests in flight together count once).
 */
export const ASSUMED_MS = { perInvocation: 25, webhookAnswer: 100 } as const;

/** Size of each event as published (its JSON text), a typical event with some data. */
export const EVENT_BYTES = 1024;

/** The status the dead endpoint answers with. */
export const DEAD_STATUS = 503;

/** The default limits of a subscription: 30 attempts, 24 hours. */
export const DEFAULT_LIMITS = retryLimitsOf({ maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 });

/**
 * When the original service attempts an event whose every attempt fails: the schedule's steps
 * (each raised to `floorMs`, without jitter) until `maxAttempts` attempts or until the next
 * attempt would come at or after the time to live. Times in ms after publish.
 */
export function originalAttemptTimes(
  profile: Pick<DeliveryProfile, 'retryDelaysMs' | 'repeatDelayMs'>,
  limits: Pick<RetryLimits, 'maxAttempts' | 'ttlMs'>,
  floorMs = 0,
): number[] {
  const times = [0];
  while (times.length < limits.maxAttempts) {
    const made = times.length;
    const step = profile.retryDelaysMs[made - 1] ?? profile.repeatDelayMs;
    const next = (times.at(-1) as number) + Math.max(step, floorMs);
    if (next >= limits.ttlMs) break;
    times.push(next);
  }
  return times;
}

/** A duration as people say it: `1 h 47 min`, `30 s`. */
export function humanDuration(ms: number): string {
  const h = Math.floor(ms / H);
  const min = Math.floor((ms % H) / (60 * S));
  const sec = Math.round((ms % (60 * S)) / S);
  const parts = [h > 0 ? `${h} h` : '', min > 0 ? `${min} min` : '', sec > 0 ? `${sec} s` : ''];
  const spoken = parts.filter((part) => part !== '').join(' ');
  return spoken === '' ? '0 s' : spoken;
}

/** Health items in memory, counting reads and writes (lost races included: they are billed). */
class CountingHealthStore implements HealthStore {
  private readonly inner = new MemoryHealthStore();
  readUnits = 0;
  writes = 0;
  conflicts = 0;
  writeUnits = 0;

  async get(topic: string, subscription: string, options: { consistent?: boolean } = {}) {
    this.readUnits += options.consistent === true ? 1 : 0.5;
    return this.inner.get(topic, subscription);
  }

  async put(health: Parameters<HealthStore['put']>[0], expectedRev: number | undefined): Promise<boolean> {
    this.writes += 1;
    this.writeUnits += writeUnitsOf({
      pk: healthPk(health.topic, health.subscription),
      sk: HEALTH_SK,
      kind: 'health',
      ...health,
    });
    const written = await this.inner.put(health, expectedRev);
    if (!written) this.conflicts += 1;
    return written;
  }
}

export interface HeldRun {
  eventsPerJob: number;
  events: number;
  /** When the last event ended, hours after publish. */
  lastEndedAfterHours: number;
  ended: Record<string, number>;
  webhookRequests: number;
  /** Webhook requests in the first 24 hours. */
  webhookRequestsIn24h: number;
  /** Jobs sent round again because they were not due yet (SQS delays are at most 15 min). */
  hops: number;
  /** Events sent back to the retry queue without an attempt (probation), counted per hold. */
  holds: number;
  sqs: {
    sendRequests: number;
    receiveRequests: number;
    deleteRequests: number;
    billedRequests: number;
    messagesSent: number;
  };
  dynamo: {
    healthWrites: number;
    healthWriteConflicts: number;
    healthWriteUnits: number;
    healthReadUnits: number;
    subscriptionReadUnits: number;
    historyItems: number;
    historyWriteUnits: number;
    historyRequests: number;
  };
  lambda: { invocations: number; invocationsWithRequests: number; sleptMs: number; gbSeconds: number };
  /** The usage, for the cost model (spread over `events`). */
  usage: Usage;
  wallMs: number;
}

/**
 * One job of `eventsPerJob` events published to a subscription whose endpoint answers 503 to
 * everything, followed until every event has ended (at most `maxHours`).
 */
export async function runHeld(
  options: { eventsPerJob: number; seed?: number; maxHours?: number } = { eventsPerJob: 1 },
): Promise<HeldRun> {
  const started = performance.now();
  const random = seededRandom(options.seed ?? 7);
  const clock = new VirtualClock();
  const t0 = clock.now();
  const queue = new VirtualQueue(clock);
  // Every dimension together: ends are counted by subscription and reason at once.
  const metrics = new MetricBuffer(EVERY_DIMENSION);
  const healthStore = new CountingHealthStore();
  const subscription: Subscription = {
    topic: 'held',
    name: 'dead',
    destination: { endpointType: 'WebHook', endpointUrl: 'https://dead.sim.test/' },
    version: 1,
    deliveryProfile: 'topic',
    filter: {},
    retry: DEFAULT_LIMITS,
    eventDeliverySchema: 'EventGridSchema',
    labels: [],
    createdAt: new Date(t0).toISOString(),
    updatedAt: new Date(t0).toISOString(),
  };
  let subscriptionReadUnits = 0;
  const subscriptions = cachedSubscriptions(
    {
      get: async (_topic: string, _name: string, read: { consistent?: boolean } = {}) => {
        subscriptionReadUnits += read.consistent === true ? 1 : 0.5;
        return subscription;
      },
    },
    CONFIG_DEFAULTS.subscriptionCacheSeconds * 1000,
    clock,
  );
  const requestTimes: number[] = [];
  const sender: WebhookSender = {
    send: async (): Promise<AttemptResult> => {
      // Answers come after every request already started has gone out, as over a network.
      await new Promise((resolve) => setImmediate(resolve));
      requestTimes.push(clock.now());
      return {
        delivered: false,
        httpStatus: DEAD_STATUS,
        outcome: outcomeForStatus(DEAD_STATUS),
        durationMs: ASSUMED_MS.webhookAnswer,
      };
    },
  };
  const history = { items: 0, units: 0, requests: 0 };
  const engine = new DeliveryEngine({
    clock,
    random,
    profiles: DELIVERY_PROFILES,
    subscriptions,
    sender,
    queue,
    history: {
      record: async (records) => {
        const items = packHistory(records, {
          retentionDays: CONFIG_DEFAULTS.historyRetentionDays,
          shard: () => 0,
          suffix: () => '0'.repeat(16),
        });
        history.items += items.length;
        history.units += items.reduce((sum, item) => sum + writeUnitsOf(item), 0);
        history.requests += Math.ceil(items.length / BATCH_WRITE_LIMIT);
      },
    },
    drops: new DropRecorder(metrics, silentLogger),
    metrics,
    logger: silentLogger,
    concurrency: CONFIG_DEFAULTS.deliveryConcurrency,
    health: new HealthTracker({
      store: healthStore,
      clock,
      logger: silentLogger,
      cacheMs: CONFIG_DEFAULTS.healthCacheMs,
      flushIntervalMs: HEALTH_FLUSH_INTERVAL_MS,
    }),
  });

  const items: DeliveryItem[] = Array.from({ length: options.eventsPerJob }, (_, i) => {
    const id = `held-${i}`;
    const event: EventGridEvent = {
      id,
      topic: '/gridwire/topics/held',
      subject: id,
      eventType: 'Bench.Held',
      eventTime: new Date(t0).toISOString(),
      data: { pad: '' },
      dataVersion: '',
      metadataVersion: '1',
    };
    const bare = Buffer.byteLength(JSON.stringify(event), 'utf8');
    event.data = { pad: 'x'.repeat(Math.max(0, EVENT_BYTES - bare)) };
    return queuedItem(event, t0);
  });
  for (const body of packJobs({ target: deliveryTargetOf(subscription) }, items)) {
    queue.put(body, t0);
  }

  const lambda = { invocations: 0, invocationsWithRequests: 0, sleptMs: 0, gbSeconds: 0 };
  let hops = 0;
  let lastEndedAt = t0;
  const end = t0 + (options.maxHours ?? 72) * H;
  for (let batch = queue.receive(); batch.length > 0; batch = queue.receive()) {
    const visibleAt = (batch[0] as VirtualMessage).visibleAt;
    if (visibleAt > end) throw new Error(`events still pending after ${options.maxHours ?? 72} hours`);
    clock.advanceTo(visibleAt);
    const requestsBefore = requestTimes.length;
    let longestMs = 0;
    for (const message of batch) {
      const startedAt = clock.now();
      const report = await engine.processJob(parseJob(message.body), {
        attemptDeadline: attemptDeadline(startedAt, {
          getRemainingTimeInMillis: () => FUNCTIONS.delivery.timeoutSeconds * 1000,
        }),
      });
      if (report.hopped) hops += 1;
      if (report.ended > 0) lastEndedAt = clock.now();
      longestMs = Math.max(longestMs, clock.now() - startedAt);
    }
    queue.delete();
    const withRequests = requestTimes.length > requestsBefore;
    lambda.invocations += 1;
    if (withRequests) lambda.invocationsWithRequests += 1;
    lambda.sleptMs += longestMs;
    lambda.gbSeconds += billedGbSeconds(
      'delivery',
      longestMs + ASSUMED_MS.perInvocation + (withRequests ? ASSUMED_MS.webhookAnswer : 0),
    );
  }

  const ended: Record<string, number> = {};
  let holds = 0;
  for (const point of metrics.drain()) {
    const count = point.values.reduce((sum, value) => sum + value, 0);
    if (point.name === METRIC.DroppedEventCount) {
      const reason = point.dimensions.DropReason ?? '?';
      ended[reason] = (ended[reason] ?? 0) + count;
    }
    if (point.name === METRIC.DeliveryHeldCount) holds += count;
  }
  const endedCount = Object.values(ended).reduce((sum, count) => sum + count, 0);
  if (endedCount !== options.eventsPerJob)
    throw new Error(`${endedCount} of ${options.eventsPerJob} events ended; the rest are unaccounted for`);

  const lambdaUsage = emptyLambdaUsage();
  lambdaUsage.delivery = { invocations: lambda.invocations, gbSeconds: lambda.gbSeconds };
  const dynamo = {
    healthWrites: healthStore.writes,
    healthWriteConflicts: healthStore.conflicts,
    healthWriteUnits: healthStore.writeUnits,
    healthReadUnits: healthStore.readUnits,
    subscriptionReadUnits,
    historyItems: history.items,
    historyWriteUnits: history.units,
    historyRequests: history.requests,
  };
  return {
    eventsPerJob: options.eventsPerJob,
    events: options.eventsPerJob,
    lastEndedAfterHours: (lastEndedAt - t0) / H,
    ended,
    webhookRequests: requestTimes.length,
    webhookRequestsIn24h: requestTimes.filter((at) => at - t0 < 24 * H).length,
    hops,
    holds,
    sqs: {
      sendRequests: queue.sendRequests,
      receiveRequests: queue.receiveRequests,
      deleteRequests: queue.deleteRequests,
      billedRequests: queue.billedRequests,
      messagesSent: queue.messagesSent,
    },
    dynamo,
    lambda,
    usage: {
      events: options.eventsPerJob,
      httpRequests: 0,
      lambda: lambdaUsage,
      sqsBilledRequests: queue.billedRequests,
      dynamoWriteUnits: dynamo.healthWriteUnits + dynamo.historyWriteUnits,
      dynamoReadUnits: dynamo.healthReadUnits + dynamo.subscriptionReadUnits,
      s3Puts: 0,
      s3Gets: 0,
    },
    wallMs: Math.round(performance.now() - started),
  };
}

/** The original's attempts in 24 hours for an event that fails every time, by its schedule. */
export const originalAttemptsIn24h = (floorMs = 0): number[] =>
  originalAttemptTimes(TOPIC_PROFILE, DEFAULT_LIMITS, floorMs);

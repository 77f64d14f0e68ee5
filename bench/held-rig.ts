/**
 * The held-for-a-day bench's set-up (`held.ts`): the real delivery engine, health tracker and
 * subscription cache in virtual time, a queue that honours SQS delays, backlogs when asked for,
 * and a webhook that answers 503 to every request; each part counting what it would bill.
 */
import { CONFIG_DEFAULTS } from '../shared/config/runtime';
import { DropRecorder } from '../shared/delivery/dead-letter';
import { HealthTracker } from '../shared/delivery/health';
import { outcomeForStatus } from '../shared/delivery/rules/outcomes';
import { DELIVERY_PROFILES } from '../shared/delivery/rules/profiles';
import { deliveryTargetOf } from '../shared/delivery/target';
import type { WebhookSender } from '../shared/delivery/webhook-sender';
import { DeliveryWorker } from '../shared/delivery/worker';
import type { AttemptResult } from '../shared/domain/attempts';
import type { DeliveryTarget } from '../shared/domain/delivery';
import type { Subscription } from '../shared/domain/model';
import { cachedSubscriptions, HEALTH_FLUSH_INTERVAL_MS } from '../shared/lambda/wiring';
import { silentLogger } from '../shared/observability/logging';
import { EVERY_DIMENSION, MetricBuffer } from '../shared/observability/metrics';
import { seededRandom, VirtualClock } from '../shared/platform/clock';
import { BATCH_WRITE_LIMIT } from '../shared/storage/batch-write';
import { packHistory } from '../shared/storage/history-items';
import { writeUnitsOf } from './dynamo-size';
import { CountingHealthStore, type Meter } from './held-meters';
import { ASSUMED_MS, DEAD_STATUS, DEFAULT_LIMITS, type HeldOptions } from './held-settings';
import { VirtualBacklog } from './virtual-backlog';
import { VirtualQueue } from './virtual-queue';
import { UNUSED_WORKER_PARTS } from './virtual-worker';

/** Packed history items written, their write units and batch-write requests. */
export interface HistoryCounts {
  items: number;
  units: number;
  requests: number;
}

/** Everything a held run works with, and the counters it reads its costs from. */
export interface HeldRig {
  clock: VirtualClock;
  /** When the run starts (the first publish). */
  t0: number;
  queue: VirtualQueue;
  /** Every dimension together: ends are counted by subscription and reason at once. */
  metrics: MetricBuffer;
  healthStore: CountingHealthStore;
  backlog: VirtualBacklog | undefined;
  /** Events stored in the backlog at least once (by delivery id). */
  heldIds: Set<string>;
  subscription: Subscription;
  /** Where the subscription's jobs are addressed. */
  target: DeliveryTarget;
  /** Read units of the subscription reads that got past the cache. */
  subscriptionReads: { units: number };
  /** When each webhook request was made. */
  requestTimes: number[];
  history: HistoryCounts;
  /** One delivery worker (one health tracker) handles every job, as a single Lambda instance would. */
  worker: DeliveryWorker;
}

/** The subscription whose endpoint is dead: default limits, the `topic` profile, no dead-letter destination. */
function deadSubscription(t0: number): Subscription {
  return {
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
}

/** A webhook answering 503 to every request, noting when each was made. */
function deadSender(clock: VirtualClock, requestTimes: number[]): WebhookSender {
  return {
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
}

/** Backlogs as on AWS, noting the events they store; `undefined` for a run without them. */
function heldBacklog(
  clock: VirtualClock,
  queue: VirtualQueue,
  heldIds: Set<string>,
  wanted: boolean | undefined,
): VirtualBacklog | undefined {
  if (!wanted) return undefined;
  const backlog = new VirtualBacklog(clock, queue, {
    perInvocationMs: ASSUMED_MS.perInvocation,
    drainConcurrency: CONFIG_DEFAULTS.drainConcurrency,
    topic: 'held',
  });
  backlog.store.onSegment = (lines) => {
    for (const line of lines) heldIds.add(line.item.deliveryId);
  };
  return backlog;
}

/** History records packed into items as on AWS, counted by items, write units and requests. */
function countingHistory(history: HistoryCounts) {
  return {
    record: async (records: Parameters<typeof packHistory>[0]) => {
      const items = packHistory(records, {
        retentionDays: CONFIG_DEFAULTS.historyRetentionDays,
        shard: () => 0,
        suffix: () => '0'.repeat(16),
      });
      history.items += items.length;
      history.units += items.reduce((sum, item) => sum + writeUnitsOf(item), 0);
      history.requests += Math.ceil(items.length / BATCH_WRITE_LIMIT);
    },
  };
}

/** The delivery worker and what it works with, in virtual time, as `options` ask. */
export function heldRig(options: HeldOptions): HeldRig {
  const random = seededRandom(options.seed ?? 7);
  const clock = new VirtualClock();
  const t0 = clock.now();
  const queue = new VirtualQueue(clock);
  const metrics = new MetricBuffer(EVERY_DIMENSION);
  const healthStore = new CountingHealthStore();
  const heldIds = new Set<string>();
  const backlog = heldBacklog(clock, queue, heldIds, options.backlog);
  const subscription = deadSubscription(t0);
  const subscriptionReads = { units: 0 };
  const subscriptions = cachedSubscriptions(
    {
      get: async (_topic: string, _name: string, read: { consistent?: boolean } = {}) => {
        subscriptionReads.units += read.consistent === true ? 1 : 0.5;
        return subscription;
      },
    },
    CONFIG_DEFAULTS.subscriptionCacheSeconds * 1000,
    clock,
  );
  const requestTimes: number[] = [];
  const history: HistoryCounts = { items: 0, units: 0, requests: 0 };
  const worker = new DeliveryWorker({
    clock,
    random,
    // The models deliver no ordered subscriptions.
    ordered: 'none',
    profiles: DELIVERY_PROFILES,
    subscriptions,
    sender: deadSender(clock, requestTimes),
    queue: backlog?.queue ?? queue,
    history: countingHistory(history),
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
    backlog: backlog === undefined ? 'none' : backlog.engineBacklog(healthStore),
    ...UNUSED_WORKER_PARTS,
  });
  return {
    clock,
    t0,
    queue,
    metrics,
    healthStore,
    backlog,
    heldIds,
    subscription,
    target: deliveryTargetOf(subscription),
    subscriptionReads,
    requestTimes,
    history,
    worker,
  };
}

/** What the counters say now, so each job's (or window's) part is a difference. */
export function meterNow(rig: HeldRig): Meter {
  const { queue, backlog, healthStore, history } = rig;
  return {
    sqsBilled: queue.billedRequests + (backlog?.counts.billedRequests ?? 0),
    invocations: 0,
    gbSeconds: 0,
    writeUnits:
      healthStore.writeUnits +
      history.units +
      (backlog === undefined
        ? 0
        : backlog.store.counts.indexWriteUnits +
          backlog.store.counts.metaWriteUnits +
          backlog.heldMarks.counts.writeUnits),
    readUnits:
      healthStore.readUnits +
      rig.subscriptionReads.units +
      (backlog === undefined
        ? 0
        : backlog.store.counts.readUnits +
          backlog.store.counts.timerIndexReadUnits +
          backlog.heldMarks.counts.readUnits),
    s3Puts: backlog?.store.counts.s3Puts ?? 0,
    s3Gets: backlog?.store.counts.s3Gets ?? 0,
    s3Deletes: backlog?.store.counts.s3Deletes ?? 0,
  };
}

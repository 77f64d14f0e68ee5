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
 *
 * The counters and the usage by phase are in `held-meters.ts`; the original's schedule, read
 * beside the run, in `original-schedule.ts`.
 */

import { attemptDeadline } from '../functions/delivery';
import { FUNCTIONS } from '../shared/config/resources';
import { CONFIG_DEFAULTS } from '../shared/config/runtime';
import { DropRecorder } from '../shared/delivery/dead-letter';
import { DeliveryEngine } from '../shared/delivery/engine';
import { HealthTracker } from '../shared/delivery/health';
import { outcomeForStatus } from '../shared/delivery/rules/outcomes';
import { DELIVERY_PROFILES, TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { deliveryTargetOf } from '../shared/delivery/target';
import type { WebhookSender } from '../shared/delivery/webhook-sender';
import type { AttemptResult } from '../shared/domain/attempts';
import type { DeliveryItem, EventGridEvent } from '../shared/domain/delivery';
import { retryLimitsOf, type Subscription } from '../shared/domain/model';
import { cachedSubscriptions, HEALTH_FLUSH_INTERVAL_MS } from '../shared/lambda/wiring';
import { silentLogger } from '../shared/observability/logging';
import { EVERY_DIMENSION, METRIC, MetricBuffer } from '../shared/observability/metrics';
import { seededRandom, VirtualClock } from '../shared/platform/clock';
import { packJobs, parseJob } from '../shared/queue/job-codec';
import { BATCH_WRITE_LIMIT } from '../shared/storage/batch-write';
import { packHistory } from '../shared/storage/history-items';
import { billedGbSeconds, type Usage } from './cost';
import { storeCallMs } from './counting-backlog-store';
import { writeUnitsOf } from './dynamo-size';
import {
  addMeter,
  CountingHealthStore,
  emptyMeter,
  HELD_PHASES,
  type HeldBacklogCounts,
  type HeldPhase,
  type HeldRun,
  type Meter,
  usageOfMeter,
} from './held-meters';
import { originalAttemptTimes } from './original-schedule';
import { diffCounts, VirtualBacklog } from './virtual-backlog';
import { queuedItem, VirtualQueue } from './virtual-queue';

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

export interface HeldOptions {
  eventsPerJob: number;
  seed?: number;
  /** Hours after the first publish by which every event must have ended (default 72). */
  maxHours?: number;
  /** Keep backlogs as on AWS (`virtual-backlog.ts`); default false, the engine as before them. */
  backlog?: boolean;
  /**
   * Publish this many events in all, in jobs of `eventsPerJob` spread evenly over `streamHours`
   * (default: one job, at the start).
   */
  streamEvents?: number;
  /** Default 24. */
  streamHours?: number;
  /**
   * With backlogs, publishes to the subscription while it is held go straight to its backlog, as
   * the publisher sends them (default true); false sends every publish to the delivery queue.
   */
  heldPublishes?: boolean;
}

/**
 * Jobs of `eventsPerJob` events published to a subscription whose endpoint answers 503 to
 * everything (one job at the start, or a stream of them), followed until every event has ended.
 */
export async function runHeld(options: HeldOptions = { eventsPerJob: 1 }): Promise<HeldRun> {
  const started = performance.now();
  const random = seededRandom(options.seed ?? 7);
  const clock = new VirtualClock();
  const t0 = clock.now();
  const queue = new VirtualQueue(clock);
  // Every dimension together: ends are counted by subscription and reason at once.
  const metrics = new MetricBuffer(EVERY_DIMENSION);
  const healthStore = new CountingHealthStore();
  const backlog = options.backlog
    ? new VirtualBacklog(clock, queue, {
        perInvocationMs: ASSUMED_MS.perInvocation,
        drainConcurrency: CONFIG_DEFAULTS.drainConcurrency,
        topic: 'held',
      })
    : undefined;
  const heldIds = new Set<string>();
  if (backlog !== undefined) {
    backlog.store.onSegment = (lines) => {
      for (const line of lines) heldIds.add(line.item.deliveryId);
    };
  }
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
    queue: backlog?.queue ?? queue,
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
    ...(backlog === undefined ? {} : { backlog: backlog.engineBacklog(healthStore) }),
  });

  let eventSeq = 0;
  const itemsOf = (publishedAt: number): DeliveryItem[] =>
    Array.from({ length: options.eventsPerJob }, () => {
      const id = `held-${eventSeq}`;
      eventSeq += 1;
      const event: EventGridEvent = {
        id,
        topic: '/gridwire/topics/held',
        subject: id,
        eventType: 'Bench.Held',
        eventTime: new Date(publishedAt).toISOString(),
        data: { pad: '' },
        dataVersion: '',
        metadataVersion: '1',
      };
      const bare = Buffer.byteLength(JSON.stringify(event), 'utf8');
      event.data = { pad: 'x'.repeat(Math.max(0, EVENT_BYTES - bare)) };
      return queuedItem(event, publishedAt);
    });
  const target = deliveryTargetOf(subscription);
  // Publishes are put in the queue as their time comes (not counted as sends, as before).
  const events = options.streamEvents ?? options.eventsPerJob;
  const jobs = Math.max(1, Math.round(events / options.eventsPerJob));
  const publishEveryMs = jobs === 1 ? 0 : ((options.streamHours ?? 24) * H) / jobs;
  let published = 0;
  let heldPublished = 0;
  const heldPublishes = options.heldPublishes ?? true;
  const nextPublishAt = () => (published < jobs ? t0 + Math.floor(published * publishEveryMs) : undefined);

  // What the counters say now, so each job's (or window's) part is a difference.
  const meterNow = (): Meter => ({
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
      subscriptionReadUnits +
      (backlog === undefined
        ? 0
        : backlog.store.counts.readUnits +
          backlog.store.counts.timerIndexReadUnits +
          backlog.heldMarks.counts.readUnits),
    s3Puts: backlog?.store.counts.s3Puts ?? 0,
    s3Gets: backlog?.store.counts.s3Gets ?? 0,
    s3Deletes: backlog?.store.counts.s3Deletes ?? 0,
  });
  const phases: Record<HeldPhase, Meter> = { into: emptyMeter(), holding: emptyMeter(), wakes: emptyMeter() };
  const sweepMeter = emptyMeter();

  const lambda = { invocations: 0, invocationsWithRequests: 0, sleptMs: 0, gbSeconds: 0 };
  let hops = 0;
  let ticks = 0;
  let holdingTicks = 0;
  let messagesReceived = 0;
  let lastEndedAt = t0;
  const end = t0 + (options.maxHours ?? 72) * H;
  for (;;) {
    const publishAt = nextPublishAt();
    const nextJob = queue.nextVisibleAt();
    const closes = backlog?.windowClosesAt();
    if (publishAt === undefined && nextJob === undefined && closes === undefined) {
      if (backlog === undefined || !(await backlog.store.hasWakes())) break;
    }
    const sweepAt = backlog?.nextSweepAt() ?? Number.POSITIVE_INFINITY;
    const at = Math.min(
      publishAt ?? Number.POSITIVE_INFINITY,
      nextJob ?? Number.POSITIVE_INFINITY,
      closes ?? Number.POSITIVE_INFINITY,
      sweepAt,
    );
    if (at > end) throw new Error(`events still pending after ${options.maxHours ?? 72} hours`);
    clock.advanceTo(at);
    if (publishAt === at) {
      const items = itemsOf(at);
      // As the publisher sends it: to a held subscription's backlog, or to the delivery queue. The
      // publisher's read of the marks (once per subscription-list version) is a cost of getting in.
      const before = meterNow();
      const held = backlog !== undefined && heldPublishes && (await backlog.publish(target, items, at));
      addMeter(phases.into, diffCounts(meterNow(), before));
      if (!held) for (const body of packJobs({ target }, items)) queue.put(body, at);
      if (held) heldPublished += 1;
      published += 1;
      continue;
    }
    if (backlog !== undefined && closes === at) {
      const before = meterNow();
      const durationMs = await backlog.closeWindow(engine);
      const delta = diffCounts(meterNow(), before);
      delta.invocations = 1;
      delta.gbSeconds = billedGbSeconds('delivery', durationMs);
      lambda.invocations += 1;
      lambda.gbSeconds += delta.gbSeconds;
      addMeter(phases.into, delta);
      continue;
    }
    if (nextJob !== at) {
      if (backlog === undefined) throw new Error('a sweep without a backlog');
      const before = meterNow();
      const sweepsBefore = backlog.sweeps.durationMs;
      await backlog.sweep(engine, at);
      const delta = diffCounts(meterNow(), before);
      delta.invocations = 1;
      delta.gbSeconds = billedGbSeconds('delivery', backlog.sweeps.durationMs - sweepsBefore);
      addMeter(sweepMeter, delta);
      continue;
    }
    const beforeReceive = meterNow();
    const batch = queue.receive();
    messagesReceived += batch.length;
    const requestsBefore = requestTimes.length;
    let longestMs = 0;
    let storeMs = 0;
    const jobPhases: HeldPhase[] = [];
    const jobsMeter = emptyMeter();
    for (const message of batch) {
      const startedAt = clock.now();
      const job = parseJob(message.body);
      const before = meterNow();
      const storeBefore = backlog === undefined ? undefined : { ...backlog.store.counts };
      const jobRequestsBefore = requestTimes.length;
      const report = await engine.processJob(job, {
        attemptDeadline: attemptDeadline(startedAt, {
          getRemainingTimeInMillis: () => FUNCTIONS.delivery.timeoutSeconds * 1000,
        }),
      });
      if (report.hopped) hops += 1;
      if (report.ended > 0) lastEndedAt = clock.now();
      longestMs = Math.max(longestMs, clock.now() - startedAt);
      if (backlog !== undefined && storeBefore !== undefined) {
        storeMs += storeCallMs(diffCounts(backlog.store.counts, storeBefore));
      }
      let phase: HeldPhase = 'into';
      if (job.kind === 'backlog-tick') {
        ticks += 1;
        const idle =
          report.delivered + report.retried + report.ended + report.stored === 0 &&
          requestTimes.length === jobRequestsBefore;
        if (idle) holdingTicks += 1;
        phase = idle ? 'holding' : 'wakes';
      }
      jobPhases.push(phase);
      const delta = diffCounts(meterNow(), before);
      addMeter(phases[phase], delta);
      addMeter(jobsMeter, delta);
    }
    queue.delete();
    const withRequests = requestTimes.length > requestsBefore;
    const gbSeconds = billedGbSeconds(
      'delivery',
      longestMs + ASSUMED_MS.perInvocation + (withRequests ? ASSUMED_MS.webhookAnswer : 0) + storeMs,
    );
    lambda.invocations += 1;
    if (withRequests) lambda.invocationsWithRequests += 1;
    lambda.sleptMs += longestMs;
    lambda.gbSeconds += gbSeconds;
    // What the batch costs besides its jobs (its receive and delete, the invocation), shared by its jobs.
    const shared = diffCounts(diffCounts(meterNow(), beforeReceive), jobsMeter);
    shared.invocations = 1;
    shared.gbSeconds = gbSeconds;
    for (const phase of jobPhases) addMeter(phases[phase], shared, 1 / jobPhases.length);
  }
  backlog?.store.settleStorage();

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
  const eventCount = jobs * options.eventsPerJob;
  const endedCount = Object.values(ended).reduce((sum, count) => sum + count, 0);
  if (endedCount !== eventCount)
    throw new Error(`${endedCount} of ${eventCount} events ended; the rest are unaccounted for`);

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
  const usageOf = (meter: Meter, storageByteMs: number): Usage =>
    usageOfMeter(meter, eventCount, storageByteMs);
  const total = emptyMeter();
  for (const phase of HELD_PHASES) addMeter(total, phases[phase]);
  const storageByteMs = backlog?.store.counts.s3ByteMs ?? 0;
  let backlogCounts: HeldBacklogCounts | undefined;
  if (backlog !== undefined) {
    const store = backlog.store.counts;
    const backlogWrites = store.indexWrites + store.metaWrites + backlog.heldMarks.counts.writes;
    const heldEvents = Math.max(1, heldIds.size);
    backlogCounts = {
      heldEvents: heldIds.size,
      queue: { ...backlog.counts },
      store: { ...store },
      ticks,
      holdingTicks,
      sweeps: { ...backlog.sweeps },
      eventsPerSegment: store.segments === 0 ? 0 : store.segmentEvents / store.segments,
      publishesToBacklog: heldPublished,
      publishes: published,
      heldMarks: { ...backlog.heldMarks.counts },
      backlogWritesPerHeldEvent: backlogWrites / heldEvents,
      writesPerHeldEvent: (backlogWrites + dynamo.healthWrites + dynamo.historyItems) / heldEvents,
      phases: {
        into: usageOf(phases.into, 0),
        holding: usageOf(phases.holding, storageByteMs),
        wakes: usageOf(phases.wakes, 0),
      },
      sweepUsage: usageOf(sweepMeter, 0),
    };
  }
  const sqsRequests = {
    sendRequests: queue.sendRequests + (backlog?.counts.sendRequests ?? 0),
    receiveRequests: queue.receiveRequests + (backlog?.counts.receiveRequests ?? 0),
    deleteRequests: queue.deleteRequests + (backlog?.counts.deleteRequests ?? 0),
    billedRequests: queue.billedRequests + (backlog?.counts.billedRequests ?? 0),
    messagesSent: queue.messagesSent + (backlog?.counts.messagesSent ?? 0),
    messagesPerReceive: queue.receiveRequests === 0 ? 0 : messagesReceived / queue.receiveRequests,
  };
  return {
    eventsPerJob: options.eventsPerJob,
    events: eventCount,
    lastEndedAfterHours: (lastEndedAt - t0) / H,
    ended,
    webhookRequests: requestTimes.length,
    webhookRequestsIn24h: requestTimes.filter((at) => at - t0 < 24 * H).length,
    hops,
    holds,
    sqs: sqsRequests,
    dynamo,
    lambda,
    backlog: backlogCounts,
    usage: usageOf(total, storageByteMs),
    wallMs: Math.round(performance.now() - started),
  };
}

/** The original's attempts in 24 hours for an event that fails every time, by its schedule. */
export const originalAttemptsIn24h = (floorMs = 0): number[] =>
  originalAttemptTimes(TOPIC_PROFILE, DEFAULT_LIMITS, floorMs);

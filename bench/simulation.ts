/**
 * Deterministic simulation of the retry engine: the real `DeliveryEngine` in virtual time,
 * an in-memory queue that honours SQS delays, and webhooks with scripted failure patterns.
 * A day of retries for a thousand events runs in about a second, and every attempt is checked
 * against the schedule and its jitter bound.
 *
 * With the backlog on (the default), the engine keeps subscriptions' backlogs as on AWS
 * (`virtual-backlog.ts`): long waits and an unhealthy endpoint's events are stored, the backlog
 * queue's consumer stores them a window at a time, ticks ride the retry queue and the sweeper
 * runs every minute. Every attempt is also checked against the due time its event last had when
 * it was queued or stored (never early), and one endpoint parked for hours by 503s shows what its
 * backlog does: a probe per probation, then the drain.
 */

import { CONFIG_DEFAULTS } from '../shared/config/runtime';
import { parseStoreJob } from '../shared/delivery/backlog-store-step';
import { DropRecorder } from '../shared/delivery/dead-letter';
import { DeliveryEngine } from '../shared/delivery/engine';
import { HealthTracker } from '../shared/delivery/health';
import { outcomeForStatus } from '../shared/delivery/rules/outcomes';
import { DELIVERY_PROFILES, TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { baseDelayMs } from '../shared/delivery/rules/retry';
import { deliveryTargetOf } from '../shared/delivery/target';
import type { WebhookRequest, WebhookSender } from '../shared/delivery/webhook-sender';
import type { BacklogLine } from '../shared/domain/backlog';
import type { DeliveryItem, EventGridEvent } from '../shared/domain/delivery';
import type { EndpointHealth } from '../shared/domain/model';
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
import type { JobQueue } from '../shared/queue/sqs-job-queue';
import { MemoryHealthStore } from '../test/support/memory-stores';
import { VirtualBacklog } from './virtual-backlog';
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

/**
 * One endpoint, one subscription, many events: 503 for the first 6 hours, then 200. Its events
 * are held (probation, then the backlog) rather than attempted on their own schedules.
 */
export const PARKED: EndpointPattern = {
  name: 'parked-endpoint',
  describe: 'one subscription, 503 for 6 hours, then 200',
  status: (t) => (t < PARKED_FOR_MS ? 503 : 200),
};
/** How long the parked endpoint answers 503. */
export const PARKED_FOR_MS = 6 * H;

interface AttemptLog {
  at: number;
  status: number;
  /** The due time the event last had when it was queued or stored, if known. */
  dueAt: number | undefined;
  /** Whether a hold (probation) kept the event since its previous attempt. */
  held: boolean;
}

/** What became of the parked endpoint's events. */
export interface ParkedResult {
  events: number;
  /** Delivered (after the endpoint recovered: it answers 503 until then). */
  delivered: number;
  ended: Record<string, number>;
  /** Webhook requests while it answered 503, and those after it became unhealthy. */
  requestsWhileDown: number;
  requestsWhileUnhealthy: number;
  /** Probations that ended while it was unhealthy and answering 503 (each ends in one probe). */
  probationEnds: number;
  /** Events that went through its backlog (stored at least once). */
  throughBacklog: number;
  /** Segments written for its backlog (stores, and probed events stored back). */
  segments: number;
  /** Last delivery, hours after the endpoint recovered. */
  lastDeliveredAfterRecoveryHours: number;
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
  /** SQS messages sent in all (retries, hops, deferrals, ticks, store jobs). */
  sqsSends: number;
  /** Whether the engine kept backlogs. */
  backlog: boolean;
  /** Attempts made before the due time their event had when it was last queued or stored (must be 0). */
  early: number;
  /** Waits not checked against the schedule because a hold (probation) applied. */
  heldWaits: number;
  /** Events stored in a backlog at least once, store invocations, ticks worked and sweeps. */
  stored: number;
  storeInvocations: number;
  ticks: number;
  sweeps: number;
  parked: ParkedResult;
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
  options: { events?: number; seed?: number; hours?: number; backlog?: boolean; parkedEvents?: number } = {},
): Promise<SimulationResult> {
  const started = performance.now();
  const eventCount = options.events ?? 1000;
  const hours = options.hours ?? 48;
  const random = seededRandom(options.seed ?? 7);
  const clock = new VirtualClock();
  const t0 = clock.now();
  const queue = new VirtualQueue(clock);
  const healthStore = new MemoryHealthStore();
  const withBacklog = options.backlog ?? true;
  const backlog = withBacklog
    ? new VirtualBacklog(clock, queue, {
        perInvocationMs: 0,
        drainConcurrency: CONFIG_DEFAULTS.drainConcurrency,
      })
    : undefined;
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
  const parkedSubscription: Subscription = {
    ...subscriptionFor(PARKED, 'all'),
    name: PARKED.name,
    destination: { endpointType: 'WebHook', endpointUrl: `https://${PARKED.name}.sim.test/` },
  };
  subscriptions.delete(`${PARKED.name}~all`);
  subscriptions.set(PARKED.name, parkedSubscription);

  // The due time each event's next attempt has, as it was last queued or stored, and whether a
  // hold put it there (by delivery id and attempts made).
  const dues = new Map<string, { dueAt: number; held: boolean }>();
  const dueKey = (item: Pick<DeliveryItem, 'deliveryId' | 'attempts'>) =>
    `${item.deliveryId}#${item.attempts}`;
  const noteDue = (items: readonly DeliveryItem[], dueAt: number, held: boolean) => {
    for (const item of items) {
      const key = dueKey(item);
      dues.set(key, {
        dueAt,
        held: held || item.lastOutcome === 'Probation' || dues.get(key)?.held === true,
      });
    }
  };
  const storedIds = new Set<string>();
  const noteSegment = (lines: readonly BacklogLine[]) => {
    for (const line of lines) {
      storedIds.add(line.item.deliveryId);
      noteDue([line.item], line.dueAt, line.heldBy === 'probation');
    }
  };
  if (backlog !== undefined) backlog.store.onSegment = noteSegment;
  const routed = backlog?.queue ?? queue;
  const jobQueue: JobQueue = {
    send: async (name, jobs) => {
      for (const job of jobs) {
        const parsed = name === 'backlog' ? parseStoreJob(job.body) : parseJob(job.body);
        if (typeof parsed === 'string') throw new Error(parsed);
        if (parsed.kind === 'store') noteDue(parsed.items, parsed.dueAt, parsed.heldBy === 'probation');
        else if (parsed.kind === undefined || parsed.kind === 'deliver') {
          noteDue(parsed.items, parsed.dueAt ?? clock.now() + job.delaySeconds * S, false);
        }
      }
      await routed.send(name, jobs);
    },
  };

  const attempts = new Map<string, AttemptLog[]>();
  const patternByHost = new Map(
    [...PATTERNS, PARKED].map((pattern) => [`${pattern.name}.sim.test`, pattern]),
  );
  const sender: WebhookSender = {
    send: async (request: WebhookRequest): Promise<AttemptResult> => {
      const pattern = patternByHost.get(new URL(request.url).host) as EndpointPattern;
      const status = pattern.status(clock.now() - t0, random);
      const eventId = request.headers['aeg-output-event-id'] ?? '';
      const id = `${pattern.name}/${eventId}`;
      const log = attempts.get(id) ?? [];
      const due = dues.get(`${eventId}#${log.length}`);
      // Held: stamped so, or its endpoint was on probation when it came due (its backlog keeps it).
      const name = pattern === PARKED ? PARKED.name : `${pattern.name}~${eventId}`;
      const heldAtDue =
        due !== undefined &&
        (holds.get(name) ?? []).some((hold) => hold.from <= due.dueAt && due.dueAt < hold.until);
      log.push({ at: clock.now(), status, dueAt: due?.dueAt, held: due?.held === true || heldAtDue });
      attempts.set(id, log);
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
    queue: jobQueue,
    history: { record: async () => {} },
    drops,
    metrics,
    logger: silentLogger,
    concurrency: 64,
    health: new HealthTracker({
      store: healthStore,
      clock,
      logger: silentLogger,
      cacheMs: 2000,
      flushIntervalMs: 1000,
    }),
    ...(backlog === undefined ? {} : { backlog: backlog.engineBacklog(healthStore) }),
  });
  // Every hold of the parked endpoint while it was unhealthy, by when it ends.
  const parkedHolds = new Set<number>();
  let unhealthyAt: number | undefined;
  // Each endpoint's holds (probations) as written: from the write until the hold ends.
  const holds = new Map<string, Array<{ from: number; until: number }>>();
  const put = healthStore.put.bind(healthStore);
  healthStore.put = async (health: EndpointHealth, expectedRev: number | undefined) => {
    const written = await put(health, expectedRev);
    if (written && health.probationUntil !== undefined && health.probationUntil > clock.now()) {
      const list = holds.get(health.subscription) ?? [];
      list.push({ from: clock.now(), until: health.probationUntil });
      holds.set(health.subscription, list);
    }
    if (written && health.subscription === PARKED.name && health.unhealthySince !== undefined) {
      unhealthyAt ??= health.unhealthySince;
      if (health.probationUntil !== undefined) parkedHolds.add(health.probationUntil);
    }
    return written;
  };

  // Publish: 1 to 10 events at a time per pattern, spread over the first hour.
  let published = 0;
  const perPattern = new Map<string, number>();
  while (published < eventCount) {
    const pattern = PATTERNS[published % PATTERNS.length] as EndpointPattern;
    const size = Math.min(eventCount - published, 1 + Math.floor(random() * 10));
    const publishedAt = t0 + Math.floor(random() * H);
    const items: DeliveryItem[] = Array.from({ length: size }, (_, i) =>
      simulatedItem(`e${published + i}`, publishedAt),
    );
    perPattern.set(pattern.name, (perPattern.get(pattern.name) ?? 0) + size);
    for (const item of items) {
      const subscription = subscriptionFor(pattern, item.eventId);
      for (const body of packJobs({ target: deliveryTargetOf(subscription) }, [item])) {
        queue.put(body, publishedAt);
      }
    }
    published += size;
  }
  // The parked endpoint's events: 1 to 10 at a time too, over the first hour, all to one subscription.
  const parkedEvents = options.parkedEvents ?? 200;
  for (let parked = 0; parked < parkedEvents; ) {
    const size = Math.min(parkedEvents - parked, 1 + Math.floor(random() * 10));
    const publishedAt = t0 + Math.floor(random() * H);
    const items = Array.from({ length: size }, (_, i) => simulatedItem(`p${parked + i}`, publishedAt));
    for (const body of packJobs({ target: deliveryTargetOf(parkedSubscription) }, items)) {
      queue.put(body, publishedAt);
    }
    noteDue(items, publishedAt, false);
    parked += size;
  }
  const publishedMessages = queue.size;

  let hops = 0;
  let ticks = 0;
  const end = t0 + hours * H;
  const run = { attemptDeadline: Number.MAX_SAFE_INTEGER };
  for (;;) {
    const nextJob = queue.nextVisibleAt();
    const closes = backlog?.windowClosesAt();
    const idle = nextJob === undefined && closes === undefined;
    if (backlog === undefined || (idle && !(await backlog.store.hasWakes()))) {
      if (nextJob === undefined || nextJob > end) break;
    }
    const sweepAt = backlog?.nextSweepAt() ?? Number.POSITIVE_INFINITY;
    const at = Math.min(nextJob ?? Number.POSITIVE_INFINITY, closes ?? Number.POSITIVE_INFINITY, sweepAt);
    if (at > end) break;
    clock.advanceTo(at);
    if (backlog !== undefined && closes === at) {
      await backlog.closeWindow(engine);
    } else if (nextJob === at) {
      const [message] = queue.receive(1);
      const job = parseJob((message as { body: string }).body);
      if (job.kind === 'backlog-tick') ticks += 1;
      const report = await engine.processJob(job, run);
      if (report.hopped) hops += 1;
    } else if (backlog !== undefined) {
      await backlog.sweep(engine, at);
    }
  }
  // The simulated subscriptions have no dead-letter destination: ended events are dropped (and
  // counted) by the engine; nothing reaches the ended-delivery queue.
  if (queue.ended.length > 0)
    throw new Error('no dead-letter destination is set, yet events were dead-lettered');

  const ended: Record<string, number> = {};
  const endedByPattern = new Map<string, Record<string, number>>(
    PATTERNS.map((pattern) => [pattern.name, {}]),
  );
  const patternNames = [...PATTERNS, PARKED].map((pattern) => pattern.name);
  endedByPattern.set(PARKED.name, {});
  for (const point of metrics.drain()) {
    if (point.name !== 'DroppedEventCount') continue;
    const reason = point.dimensions.DropReason ?? '?';
    const count = point.values[0] ?? 0;
    ended[reason] = (ended[reason] ?? 0) + count;
    const pattern = (point.dimensions.EventSubscriptionName ?? '').toLowerCase().split('~')[0] ?? '';
    if (!patternNames.includes(pattern)) continue;
    const forPattern = endedByPattern.get(pattern);
    if (forPattern !== undefined) forPattern[reason] = (forPattern[reason] ?? 0) + count;
  }

  let waitsChecked = 0;
  let violations = 0;
  let maxJitterMs = 0;
  let maxJitterBoundMs = 0;
  let delivered = 0;
  let attemptCount = 0;
  let early = 0;
  let heldWaits = 0;
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
    // Never before the due time the event was queued or stored with (due times may carry a
    // fraction of a millisecond; they travel rounded up).
    early += log.filter(
      (attempt) => attempt.dueAt !== undefined && attempt.at < Math.floor(attempt.dueAt),
    ).length;
    for (let n = 1; n < log.length; n += 1) {
      const previous = log[n - 1] as AttemptLog;
      if ((log[n] as AttemptLog).held) {
        // A hold kept it past its step: the schedule is not what timed this attempt.
        heldWaits += 1;
        continue;
      }
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

  const parkedLogs = [...attempts.entries()].filter(([id]) => id.startsWith(`${PARKED.name}/`));
  const parkedRequests = parkedLogs.flatMap(([, log]) => log);
  const deliveredAts = parkedRequests.filter((a) => a.status === 200).map((a) => a.at);
  const parked: ParkedResult = {
    events: parkedEvents,
    delivered: byPattern.get(PARKED.name)?.delivered ?? 0,
    ended: endedByPattern.get(PARKED.name) ?? {},
    requestsWhileDown: parkedRequests.filter((a) => a.at < t0 + PARKED_FOR_MS).length,
    requestsWhileUnhealthy: parkedRequests.filter(
      (a) => unhealthyAt !== undefined && a.at > unhealthyAt && a.at < t0 + PARKED_FOR_MS,
    ).length,
    probationEnds: [...parkedHolds].filter((until) => until < t0 + PARKED_FOR_MS).length,
    throughBacklog: [...storedIds].filter((id) => id.startsWith('p')).length,
    segments: backlog?.store.segmentsWritten.get(PARKED.name) ?? 0,
    lastDeliveredAfterRecoveryHours:
      deliveredAts.length === 0 ? 0 : (Math.max(...deliveredAts) - t0 - PARKED_FOR_MS) / H,
  };
  const parkedIds = new Set([...storedIds].filter((id) => id.startsWith('p')));

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
    sqsSends: queue.messagesSent + publishedMessages + (backlog?.counts.messagesSent ?? 0),
    backlog: withBacklog,
    early,
    heldWaits,
    stored: storedIds.size - parkedIds.size,
    storeInvocations: backlog?.counts.invocations ?? 0,
    ticks,
    sweeps: backlog?.sweeps.invocations ?? 0,
    parked,
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

/** An event of the simulation as publish queues it. */
function simulatedItem(id: string, publishedAt: number): DeliveryItem {
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
}

/**
 * Deterministic simulation of the retry engine: the real `DeliveryEngine` in virtual time,
 * an in-memory queue that honours SQS delays, and webhooks with scripted failure patterns
 * (`simulation-workload.ts`). A day of retries for a thousand events runs in about a second, and
 * every attempt is checked against the schedule and its jitter bound (`simulation-checks.ts`).
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
import { DELIVERY_PROFILES } from '../shared/delivery/rules/profiles';
import { deliveryTargetOf } from '../shared/delivery/target';
import type { WebhookRequest, WebhookSender } from '../shared/delivery/webhook-sender';
import type { AttemptResult } from '../shared/domain/attempts';
import type { BacklogLine } from '../shared/domain/backlog';
import type { DeliveryItem } from '../shared/domain/delivery';
import type { EndpointHealth } from '../shared/domain/health';
import { retryLimitsOf, type Subscription } from '../shared/domain/model';
import { silentLogger } from '../shared/observability/logging';
import { EVERY_DIMENSION, MetricBuffer } from '../shared/observability/metrics';
import { seededRandom, VirtualClock } from '../shared/platform/clock';
import { packJobs, parseJob } from '../shared/queue/job-codec';
import type { JobQueue } from '../shared/queue/sqs-job-queue';
import { MemoryHealthStore } from '../test/support/memory-stores';
import { type AttemptLog, tallyAttempts } from './simulation-checks';
import { type EndpointPattern, PARKED, PARKED_FOR_MS, PATTERNS, simulatedItem } from './simulation-workload';
import { VirtualBacklog } from './virtual-backlog';
import { VirtualQueue } from './virtual-queue';

const S = 1000;
const H = 60 * 60 * S;

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
        topic: 'sim',
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

  const tally = tallyAttempts(attempts);
  const { byPattern } = tally;

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
    attempts: tally.attempts,
    delivered: tally.delivered,
    ended,
    waitsChecked: tally.waitsChecked,
    violations: tally.violations,
    maxJitterMs: Math.round(tally.maxJitterMs),
    maxJitterBoundMs: Math.round(tally.maxJitterBoundMs),
    hops,
    sqsSends: queue.messagesSent + publishedMessages + (backlog?.counts.messagesSent ?? 0),
    backlog: withBacklog,
    early: tally.early,
    heldWaits: tally.heldWaits,
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

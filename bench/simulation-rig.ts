/**
 * The retry engine simulation's set-up (`simulation.ts`): the real engine and health tracker in
 * virtual time, a queue that honours SQS delays, backlogs when asked for, a subscription of its
 * own for every event (and one for the parked endpoint's), and the scripted webhooks; around them,
 * the records every attempt is checked against (the due time its event was queued or stored with,
 * and the holds its endpoint was under).
 */
import { CONFIG_DEFAULTS } from '../shared/config/runtime';
import { parseStoreJob } from '../shared/delivery/backlog/store-step';
import { DropRecorder } from '../shared/delivery/dead-letter';
import { HealthTracker } from '../shared/delivery/health';
import { outcomeForStatus } from '../shared/delivery/rules/outcomes';
import { DELIVERY_PROFILES } from '../shared/delivery/rules/profiles';
import type { WebhookRequest, WebhookSender } from '../shared/delivery/webhook-sender';
import { DeliveryWorker } from '../shared/delivery/worker';
import type { AttemptResult } from '../shared/domain/attempts';
import type { BacklogLine } from '../shared/domain/backlog';
import type { DeliveryItem } from '../shared/domain/delivery';
import type { EndpointHealth } from '../shared/domain/health';
import { retryLimitsOf, type Subscription } from '../shared/domain/model';
import { silentLogger } from '../shared/observability/logging';
import { EVERY_DIMENSION, MetricBuffer } from '../shared/observability/metrics';
import { seededRandom, VirtualClock } from '../shared/platform/clock';
import { parseJob } from '../shared/queue/job-codec';
import type { JobQueue } from '../shared/queue/sqs-job-queue';
import { MemoryHealthStore } from '../test/support/memory-stores';
import type { AttemptLog } from './simulation-checks';
import { type EndpointPattern, PARKED, PATTERNS } from './simulation-workload';
import { VirtualBacklog } from './virtual-backlog';
import { VirtualQueue } from './virtual-queue';
import { UNUSED_WORKER_PARTS } from './virtual-worker';

const S = 1000;

export interface SimulationOptions {
  /** Events to the scripted endpoints (default 1,000). */
  events?: number;
  seed?: number;
  /** Simulated hours (default 48). */
  hours?: number;
  /** Keep backlogs as on AWS (default true). */
  backlog?: boolean;
  /** Events to the parked endpoint (default 200). */
  parkedEvents?: number;
}

/** What became of the parked endpoint's health while it answered 503. */
export interface ParkedWatch {
  /** When it was first marked unhealthy. */
  unhealthyAt: number | undefined;
  /** When each hold (probation) written while it was unhealthy ends. */
  holds: Set<number>;
}

/** Everything a simulation works with, and the records its checks read. */
export interface SimulationRig {
  clock: VirtualClock;
  /** When the simulation starts. */
  t0: number;
  random: () => number;
  queue: VirtualQueue;
  backlog: VirtualBacklog | undefined;
  /** Every dimension together: ends are counted by subscription and reason at once. */
  metrics: MetricBuffer;
  subscriptions: SimulatedSubscriptions;
  dues: DueTimes;
  /** Events stored in a backlog at least once (by delivery id). */
  storedIds: Set<string>;
  /** Every attempt, by `<pattern>/<event id>`. */
  attempts: Map<string, AttemptLog[]>;
  parkedWatch: ParkedWatch;
  worker: DeliveryWorker;
}

/**
 * Every event has its own subscription (`<pattern>~<event id>`): the schedule of each event is
 * checked on its own, not mixed with probation that other events' failures begin (the health
 * rules have their own tests, and the dead-endpoint benchmarks measure them). The parked
 * endpoint's events all go to one subscription, named as the endpoint.
 */
export class SimulatedSubscriptions {
  private readonly byName = new Map<string, Subscription>();
  readonly parked: Subscription;

  constructor(private readonly t0: number) {
    this.parked = {
      ...this.for(PARKED, 'all'),
      name: PARKED.name,
      destination: { endpointType: 'WebHook', endpointUrl: `https://${PARKED.name}.sim.test/` },
    };
    this.byName.delete(`${PARKED.name}~all`);
    this.byName.set(PARKED.name, this.parked);
  }

  /** The subscription of the event `eventId` to an endpoint of `pattern`, made (again) now. */
  for(pattern: EndpointPattern, eventId: string): Subscription {
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
      createdAt: new Date(this.t0).toISOString(),
      updatedAt: new Date(this.t0).toISOString(),
    };
    this.byName.set(name, subscription);
    return subscription;
  }

  get(name: string): Subscription | undefined {
    return this.byName.get(name);
  }
}

/**
 * The due time each event's next attempt has, as it was last queued or stored, and whether a
 * hold put it there (by delivery id and attempts made).
 */
export class DueTimes {
  private readonly dues = new Map<string, { dueAt: number; held: boolean }>();

  note(items: readonly DeliveryItem[], dueAt: number, held: boolean): void {
    for (const item of items) {
      const key = `${item.deliveryId}#${item.attempts}`;
      this.dues.set(key, {
        dueAt,
        held: held || item.lastOutcome === 'Probation' || this.dues.get(key)?.held === true,
      });
    }
  }

  /** The due time of the event `deliveryId` after `attempts` attempts, if known. */
  of(deliveryId: string, attempts: number): { dueAt: number; held: boolean } | undefined {
    return this.dues.get(`${deliveryId}#${attempts}`);
  }
}

/** The worker's queue: every job sent notes its events' due time, then goes to `routed`. */
function dueNotingQueue(routed: JobQueue, dues: DueTimes, clock: VirtualClock): JobQueue {
  return {
    send: async (name, jobs) => {
      for (const job of jobs) {
        const parsed = name === 'backlog' ? parseStoreJob(job.body) : parseJob(job.body);
        if (typeof parsed === 'string') throw new Error(parsed);
        if (parsed.kind === 'store') dues.note(parsed.items, parsed.dueAt, parsed.heldBy === 'probation');
        else if (parsed.kind === undefined || parsed.kind === 'deliver') {
          dues.note(parsed.items, parsed.dueAt ?? clock.now() + job.delaySeconds * S, false);
        }
      }
      await routed.send(name, jobs);
    },
  };
}

/** Each endpoint's holds (probations) as written: from the write until the hold ends. */
type Holds = Map<string, Array<{ from: number; until: number }>>;

/**
 * The scripted webhooks: each request answered as its endpoint's pattern says at this virtual
 * time, and logged with the due time its event had and whether a hold timed it.
 */
function scriptedSender(
  clock: VirtualClock,
  t0: number,
  random: () => number,
  record: { attempts: Map<string, AttemptLog[]>; dues: DueTimes; holds: Holds },
): WebhookSender {
  const patternByHost = new Map(
    [...PATTERNS, PARKED].map((pattern) => [`${pattern.name}.sim.test`, pattern]),
  );
  return {
    send: async (request: WebhookRequest): Promise<AttemptResult> => {
      const pattern = patternByHost.get(new URL(request.url).host) as EndpointPattern;
      const status = pattern.status(clock.now() - t0, random);
      const eventId = request.headers['aeg-output-event-id'] ?? '';
      const id = `${pattern.name}/${eventId}`;
      const log = record.attempts.get(id) ?? [];
      const due = record.dues.of(eventId, log.length);
      // Held: stamped so, or its endpoint was on probation when it came due (its backlog keeps it).
      const name = pattern === PARKED ? PARKED.name : `${pattern.name}~${eventId}`;
      const heldAtDue =
        due !== undefined &&
        (record.holds.get(name) ?? []).some((hold) => hold.from <= due.dueAt && due.dueAt < hold.until);
      log.push({ at: clock.now(), status, dueAt: due?.dueAt, held: due?.held === true || heldAtDue });
      record.attempts.set(id, log);
      return status >= 200 && status <= 204
        ? { delivered: true, httpStatus: status, durationMs: 5 }
        : { delivered: false, httpStatus: status, outcome: outcomeForStatus(status), durationMs: 5 };
    },
  };
}

/** Notes every hold written to `healthStore`, and the parked endpoint's while it is unhealthy. */
function watchHolds(healthStore: MemoryHealthStore, clock: VirtualClock, holds: Holds, parked: ParkedWatch) {
  const put = healthStore.put.bind(healthStore);
  healthStore.put = async (health: EndpointHealth, expectedRev: number | undefined) => {
    const written = await put(health, expectedRev);
    if (written && health.probationUntil !== undefined && health.probationUntil > clock.now()) {
      const list = holds.get(health.subscription) ?? [];
      list.push({ from: clock.now(), until: health.probationUntil });
      holds.set(health.subscription, list);
    }
    if (written && health.subscription === PARKED.name && health.unhealthySince !== undefined) {
      parked.unhealthyAt ??= health.unhealthySince;
      if (health.probationUntil !== undefined) parked.holds.add(health.probationUntil);
    }
    return written;
  };
}

/** The delivery worker and what it works with, in virtual time, as `options` ask. */
export function simulationRig(options: SimulationOptions): SimulationRig {
  const random = seededRandom(options.seed ?? 7);
  const clock = new VirtualClock();
  const t0 = clock.now();
  const queue = new VirtualQueue(clock);
  const healthStore = new MemoryHealthStore();
  const backlog =
    (options.backlog ?? true)
      ? new VirtualBacklog(clock, queue, {
          perInvocationMs: 0,
          drainConcurrency: CONFIG_DEFAULTS.drainConcurrency,
          topic: 'sim',
        })
      : undefined;
  const metrics = new MetricBuffer(EVERY_DIMENSION);
  const subscriptions = new SimulatedSubscriptions(t0);
  const dues = new DueTimes();
  const storedIds = new Set<string>();
  if (backlog !== undefined) {
    backlog.store.onSegment = (lines: readonly BacklogLine[]) => {
      for (const line of lines) {
        storedIds.add(line.item.deliveryId);
        dues.note([line.item], line.dueAt, line.heldBy === 'probation');
      }
    };
  }
  const attempts = new Map<string, AttemptLog[]>();
  const holds: Holds = new Map();
  const worker = new DeliveryWorker({
    clock,
    random,
    // The models deliver no ordered subscriptions.
    ordered: 'none',
    profiles: DELIVERY_PROFILES,
    subscriptions: { get: async (_topic, name) => subscriptions.get(name) },
    sender: scriptedSender(clock, t0, random, { attempts, dues, holds }),
    queue: dueNotingQueue(backlog?.queue ?? queue, dues, clock),
    history: { record: async () => {} },
    drops: new DropRecorder(metrics, silentLogger),
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
    backlog: backlog === undefined ? 'none' : backlog.engineBacklog(healthStore),
    ...UNUSED_WORKER_PARTS,
  });
  const parkedWatch: ParkedWatch = { unhealthyAt: undefined, holds: new Set() };
  watchHolds(healthStore, clock, holds, parkedWatch);
  return {
    clock,
    t0,
    random,
    queue,
    backlog,
    metrics,
    subscriptions,
    dues,
    storedIds,
    attempts,
    parkedWatch,
    worker,
  };
}

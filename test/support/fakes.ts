/**
 * Test doubles for the delivery engine's ports: a virtual clock, a scripted webhook, a queue and
 * a history that keep what they are given.
 */

import { packArchiveCopy } from '../../shared/archive/copy';
import { archiveJobsOf } from '../../shared/archive/forward';
import { replayPageBody } from '../../shared/archive/replay';
import type { QueueKey } from '../../shared/config/resources';
import { DeadLetterStep, type DeadLetterStepDeps, DropRecorder } from '../../shared/delivery/dead-letter';
import { HealthTracker } from '../../shared/delivery/health';
import { processJob, runJobs } from '../../shared/delivery/job-registry';
import type { JobReport } from '../../shared/delivery/job-report';
import type { JobOptions, SubscriptionSource } from '../../shared/delivery/ports';
import { DELIVERY_PROFILES, type ProfileTable } from '../../shared/delivery/rules/profiles';
import { deliveryTargetOf } from '../../shared/delivery/target';
import { DeliveryWorker, type DeliveryWorkerDeps } from '../../shared/delivery/worker';
import type { AttemptRecord, AttemptResult } from '../../shared/domain/attempts';
import {
  type DeliveryItem,
  type DeliveryJob,
  type DeliveryTarget,
  type EndedJob,
  type EventGridEvent,
  type FanOutJob,
  JOB_FORMAT_VERSION,
  type QueuedJob,
  type StoredFanOutJob,
  type TopicRef,
} from '../../shared/domain/delivery';
import type { EndpointHealth } from '../../shared/domain/health';
import type {
  Namespace,
  NamespaceTopic,
  Subscription,
  Topic,
  WebhookDestination,
} from '../../shared/domain/model';
import { topicIdOf } from '../../shared/domain/names';
import { silentLogger } from '../../shared/observability/logging';
import { MetricBuffer } from '../../shared/observability/metrics';
import { type Clock, VirtualClock } from '../../shared/platform/clock';
import type { SecretOpener } from '../../shared/platform/sealing';
import type { NamespacePublishRequest } from '../../shared/publish/publish-request';
import { Publisher } from '../../shared/publish/publisher';
import { expandFanOut, messageGroupOf, parseFanOut, parseJob } from '../../shared/queue/job-codec';
import type { RecordOutcome } from '../../shared/queue/record-outcome';
import type { JobQueue, OutgoingJob } from '../../shared/queue/sqs-job-queue';
import type { BacklogStore } from '../../shared/storage/backlog';
import type { FanOutStore } from '../../shared/storage/fan-out-bucket';
import { MemoryAcceptedIds, MemoryHealthStore, MemoryOrderedProgress } from './memory-stores';

export { VirtualClock };

import { type ResourceSender, resourceFailure } from '../../shared/delivery/resource-sender';
import type { WebhookRequest, WebhookSender } from '../../shared/delivery/webhook-sender';
import type { LateAnswerStore } from '../../shared/storage/late-answers';

/**
 * The delivery jobs a queued job stands for: itself, or a fan-out's jobs (a stored fan-out read
 * from `fanOuts`).
 */
export function deliveryJobsOf(
  job: DeliveryJob | FanOutJob | StoredFanOutJob,
  fanOuts?: MemoryFanOutStore,
): DeliveryJob[] {
  if (job.kind === 'fanout') return expandFanOut(job);
  if (job.kind === 'stored-fanout') {
    if (fanOuts === undefined)
      throw new Error(`a stored fan-out (${job.key}) and no fan-out store to read it`);
    return expandFanOut(parseFanOut(fanOuts.bodies.get(job.key) ?? ''));
  }
  return [job];
}

/** Fan-outs stored by key, in memory. */
export class MemoryFanOutStore implements FanOutStore {
  readonly bodies = new Map<string, string>();
  /** Every put fails with this error. */
  failWith: Error | undefined;
  async put(key: string, body: string): Promise<void> {
    if (this.failWith !== undefined) throw this.failWith;
    this.bodies.set(key, body);
  }
  async get(key: string): Promise<string> {
    const body = this.bodies.get(key);
    if (body === undefined) throw new Error(`NoSuchKey: ${key}`);
    return body;
  }
}

export class RecordingQueue implements JobQueue {
  readonly sent: Array<{ queue: QueueKey; job: OutgoingJob; at: number }> = [];
  /** Where a publisher using this queue stores fan-outs (and jobs taken read them from). */
  readonly fanOuts = new MemoryFanOutStore();
  /** Every send fails with this error. */
  failWith: Error | undefined;
  /** Sends to these queues fail (the others work). */
  readonly failing = new Map<QueueKey, Error>();
  constructor(private readonly clock: Clock) {}
  async send(queue: QueueKey, jobs: readonly OutgoingJob[]): Promise<void> {
    if (jobs.length === 0) return;
    // Every sender names its job's tenant for fair queues; each is held here to the one the job
    // itself names, so every test that sends through this queue checks its sender's group.
    for (const job of jobs) {
      const named = messageGroupOf(parseJob(job.body));
      if (job.groupId !== named) {
        throw new Error(`a job for message group ${named} was sent in group ${job.groupId}`);
      }
    }
    const failure = this.failWith ?? this.failing.get(queue);
    if (failure !== undefined) throw failure;
    for (const job of jobs) this.sent.push({ queue, job, at: this.clock.now() });
  }
  /** Parsed delivery jobs sent so far (ended-delivery jobs stay), and forget them. */
  take(): Array<{ queue: QueueKey; job: DeliveryJob; delaySeconds: number; at: number }> {
    const taken: Array<{ queue: QueueKey; job: DeliveryJob; delaySeconds: number; at: number }> = [];
    const kept: typeof this.sent = [];
    for (const entry of this.sent.splice(0)) {
      const job = parseJob(entry.job.body);
      if (
        job.kind === 'ended' ||
        job.kind === 'validate' ||
        job.kind === 'store' ||
        job.kind === 'backlog-tick' ||
        job.kind === 'ordered' ||
        job.kind === 'archive' ||
        job.kind === 'replay-page'
      )
        kept.push(entry);
      else {
        for (const one of deliveryJobsOf(job, this.fanOuts)) {
          taken.push({ queue: entry.queue, job: one, delaySeconds: entry.job.delaySeconds, at: entry.at });
        }
      }
    }
    this.sent.push(...kept);
    return taken;
  }
  /** Ended-delivery jobs sent so far, with the queue they went to, and forget them. */
  takeEnded(): Array<{ queue: QueueKey; job: EndedJob; delaySeconds: number }> {
    const taken: Array<{ queue: QueueKey; job: EndedJob; delaySeconds: number }> = [];
    const kept: typeof this.sent = [];
    for (const entry of this.sent.splice(0)) {
      const job = parseJob(entry.job.body);
      if (job.kind === 'ended') taken.push({ queue: entry.queue, job, delaySeconds: entry.job.delaySeconds });
      else kept.push(entry);
    }
    this.sent.push(...kept);
    return taken;
  }
}

export type Answer = Partial<AttemptResult> | ((request: WebhookRequest) => Partial<AttemptResult>);

/** A webhook whose answers are scripted; records every request with the clock's time. */
export class ScriptedSender implements WebhookSender {
  readonly requests: Array<{ request: WebhookRequest; at: number }> = [];
  inFlight = 0;
  maxInFlight = 0;
  constructor(
    private readonly clock: Clock,
    private answer: Answer = { delivered: true, httpStatus: 200 },
    private readonly latencyMs = 0,
  ) {}
  answerWith(answer: Answer): void {
    this.answer = answer;
  }
  async send(request: WebhookRequest): Promise<AttemptResult> {
    this.requests.push({ request, at: this.clock.now() });
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      const answer = typeof this.answer === 'function' ? this.answer(request) : this.answer;
      return { delivered: false, durationMs: 1, ...answer };
    } finally {
      this.inFlight -= 1;
    }
  }
}

export class MemoryHistory {
  readonly records: AttemptRecord[] = [];
  failWith: Error | undefined;
  async record(records: readonly AttemptRecord[]): Promise<void> {
    if (this.failWith !== undefined) throw this.failWith;
    this.records.push(...records);
  }
}

/** Topic `orders` (Event Grid schema) with keys `key-one` and `key-two`. */
export const topicFixture = (overrides: Partial<Topic> = {}): Topic => ({
  name: 'orders',
  inputSchema: 'EventGridSchema',
  keys: { key1: 'key-one', key2: 'key-two' },
  tags: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  subscriptionsVersion: 1,
  ...overrides,
});

export const subscription = (overrides: Partial<Subscription> = {}): Subscription => ({
  topic: 'orders',
  name: 'audit',
  version: 1,
  deliveryProfile: 'topic',
  destination: { endpointType: 'WebHook', endpointUrl: 'https://hooks.example.test/in' },
  filter: {},
  retry: { maxAttempts: 30, ttlMs: 1440 * 60_000 },
  eventDeliverySchema: 'EventGridSchema',
  labels: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

/** A delivery item for `id`; `event` overrides fields of the event it carries. */
export const item = (
  id: string,
  publishedAt: number,
  overrides: Partial<DeliveryItem> & { event?: Partial<EventGridEvent> } = {},
): DeliveryItem => {
  const { event: eventOverrides, ...rest } = overrides;
  const event = { ...eventOf(id, publishedAt), ...eventOverrides };
  return {
    deliveryId: `d-${id}`,
    eventId: event.id,
    dataVersion: event.dataVersion,
    eventJson: JSON.stringify(event),
    attempts: 0,
    publishedAt,
    ...rest,
  };
};

/** The event `item(id, publishedAt)` carries. */
/**
 * A namespace topic's push subscription body for `endpointUrl`, with further `push` settings and
 * further `properties` (`filtersConfiguration`...).
 */
export const namespacePushBody = (
  endpointUrl: string,
  push: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) => ({
  properties: {
    deliveryConfiguration: {
      deliveryMode: 'Push',
      push: { destination: { endpointType: 'WebHook', properties: { endpointUrl } }, ...push },
    },
    ...extra,
  },
});

/** An Event Grid schema event as a publisher sends it (the topic filled in by publish). */
export const publishedEvent = (id: string, eventType = 'Order.Created') => ({
  id,
  subject: 'orders/1',
  eventType,
  eventTime: '2026-01-01T00:00:00Z',
  data: {},
});

export const eventOf = (id: string, publishedAt: number): EventGridEvent => ({
  id,
  topic: '/gridwire/topics/orders',
  subject: 'orders/1',
  eventType: 'Order.Created',
  eventTime: new Date(publishedAt).toISOString(),
  data: { id },
  dataVersion: '1.0',
  metadataVersion: '1',
});

/** The delivery target of `subscription(overrides)`, as the publisher builds it. */
export const deliveryTarget = (overrides: Partial<Subscription> = {}): DeliveryTarget =>
  deliveryTargetOf(subscription(overrides));

/** A delivery job of `items` for `target` (by default the `subscription()` fixture's). */
export const job = (items: DeliveryItem[], dueAt?: number, target = deliveryTarget()): DeliveryJob => ({
  v: JOB_FORMAT_VERSION,
  target,
  ...(dueAt === undefined ? {} : { dueAt }),
  items,
});

/** A delivery worker that also works one job of any kind by its registry step, as tests drive it. */
export type WorkerUnderTest = DeliveryWorker & {
  processJob(job: QueuedJob, options: JobOptions): Promise<JobReport>;
  /**
   * The jobs of one invocation (messages `m1`, `m2`, ...), by their steps in the job registry as
   * the delivery function runs them: what became of each message, in order.
   */
  processBatch(jobs: readonly QueuedJob[], options: JobOptions): Promise<RecordOutcome[]>;
};

/** The worker, with `processJob` and `processBatch` dispatching through the job registry. */
export function underTest(worker: DeliveryWorker): WorkerUnderTest {
  return Object.assign(worker, {
    processJob: (job: QueuedJob, options: JobOptions) => processJob(worker, job, options),
    processBatch: (jobs: readonly QueuedJob[], options: JobOptions) =>
      runJobs('delivery', jobs, {
        worker,
        options,
        messageIds: jobs.map((_, index) => `m${index + 1}`),
        received: jobs.map((_, index) => ({
          messageId: `m${index + 1}`,
          receiptHandle: `h${index + 1}`,
          receiveCount: 1,
        })),
      }),
  });
}

export interface EngineHarness {
  engine: WorkerUnderTest;
  clock: VirtualClock;
  queue: RecordingQueue;
  sender: ScriptedSender;
  history: MemoryHistory;
  healthStore: MemoryHealthStore;
  metrics: MetricBuffer;
  subscriptions: Map<string, Subscription>;
  /** Every subscription lookup the engine made, with the version it asked for. */
  subscriptionReads: Array<{ topic: string; name: string; minVersion: number | undefined }>;
  draws: number[];
  /** Ordered delivery's progress store and the visibility changes it made. */
  ordered: { progress: MemoryOrderedProgress; visibility: RecordingVisibility };
}

/** Records the visibility changes ordered delivery makes (receipt handle, seconds, when). */
export class RecordingVisibility {
  readonly changes: Array<{ receiptHandle: string; seconds: number; at: number }> = [];
  constructor(private readonly clock: Clock) {}
  async hide(receiptHandle: string, seconds: number): Promise<void> {
    this.changes.push({ receiptHandle, seconds, at: this.clock.now() });
  }
}

/** Timer tokens `token-1`, `token-2`, ... in the order they are made. */
export function tokens(): () => string {
  let made = 0;
  return () => {
    made += 1;
    return `token-${made}`;
  };
}

/** A harness without AWS resource destinations: every send fails, as a worker that cannot reach them. */
export const NO_RESOURCES: ResourceSender = {
  send: async (_destination: unknown, messages: readonly unknown[]) =>
    messages.map(() =>
      resourceFailure('NoResourceSender', 'this test worker cannot deliver to AWS resources', 0),
    ),
} as unknown as ResourceSender;

/** A harness without the endpoint handshake: a validation job fails (and would come back). */
export const NO_HANDSHAKE: DeliveryWorkerDeps['handshake'] = {
  run: async () => {
    throw new Error('this worker has no endpoint handshake');
  },
};

/** A delivery engine wired to test doubles. `randoms` are returned in order, then 0.5 forever. */
export function engineHarness(
  options: {
    randoms?: number[];
    concurrency?: number;
    latencyMs?: number;
    healthCacheMs?: number;
    /** Delivery profiles (default: real time). */
    profiles?: ProfileTable;
    /** Shared by engines that stand for several workers. */
    healthStore?: MemoryHealthStore;
    clock?: VirtualClock;
    /** Replaces the scripted sender as what the engine calls (the scripted one stays unused). */
    sendVia?: WebhookSender;
    subscriptionConcurrency?: number;
    /** Replaces the map-backed subscription source (e.g. the real cache over a fake store). */
    subscriptionSource?: SubscriptionSource;
    /** Opens secret custom header values (default: none, as in a function without a key). */
    sealer?: SecretOpener;
    /** Where the engine counts (default: a buffer with every series, per subscription too). */
    metrics?: MetricBuffer;
    /** Keeps backlogs in this store (default: none; long waits hop and holds ride the queue). */
    backlog?: { store: BacklogStore; routing?: boolean; drainConcurrency?: number };
    /** Records late answers here (default: none; a request is given up at its timeout). */
    lateAnswers?: LateAnswerStore;
    /** Sends to AWS resource destinations (default: none). */
    resources?: ResourceSender;
    /** Runs validation jobs (default: none; such a job fails). */
    handshake?: DeliveryWorkerDeps['handshake'];
  } = {},
): EngineHarness {
  const clock = options.clock ?? new VirtualClock();
  const queue = new RecordingQueue(clock);
  const sender = new ScriptedSender(clock, { delivered: true, httpStatus: 200 }, options.latencyMs ?? 0);
  const history = new MemoryHistory();
  const healthStore = options.healthStore ?? new MemoryHealthStore();
  const metrics = options.metrics ?? new MetricBuffer();
  const subscriptions = new Map<string, Subscription>([
    ['orders/audit', subscription({ deadLetter: { container: 'dead' } })],
  ]);
  const randoms = [...(options.randoms ?? [])];
  const draws: number[] = [];
  const drops = new DropRecorder(metrics, silentLogger);
  const subscriptionReads: Array<{ topic: string; name: string; minVersion: number | undefined }> = [];
  const ordered = { progress: new MemoryOrderedProgress(), visibility: new RecordingVisibility(clock) };
  const deps: DeliveryWorkerDeps = {
    clock,
    random: () => {
      const value = randoms.shift() ?? 0.5;
      draws.push(value);
      return value;
    },
    profiles: options.profiles ?? DELIVERY_PROFILES,
    subscriptions: options.subscriptionSource ?? {
      get: async (topic, name, minVersion) => {
        subscriptionReads.push({ topic, name, minVersion });
        return subscriptions.get(`${topic}/${name}`);
      },
    },
    sender: options.sendVia ?? sender,
    queue,
    fanOuts: queue.fanOuts,
    history,
    drops,
    metrics,
    logger: silentLogger,
    concurrency: options.concurrency ?? 8,
    health: new HealthTracker({
      store: healthStore,
      clock,
      logger: silentLogger,
      cacheMs: options.healthCacheMs ?? 1000,
      flushIntervalMs: 1000,
      metrics,
    }),
    ...(options.subscriptionConcurrency === undefined
      ? {}
      : { subscriptionConcurrency: options.subscriptionConcurrency }),
    sealer: options.sealer ?? 'none',
    lateAnswers: options.lateAnswers ?? 'none',
    resources: options.resources ?? NO_RESOURCES,
    handshake: options.handshake ?? NO_HANDSHAKE,
    ordered,
    ...(options.backlog === undefined
      ? { backlog: 'none' as const }
      : {
          backlog: {
            store: options.backlog.store,
            healthStore,
            drainConcurrency: options.backlog.drainConcurrency ?? 4,
            ...(options.backlog.routing === undefined ? {} : { routing: options.backlog.routing }),
            newToken: tokens(),
          },
        }),
  };
  return {
    engine: underTest(new DeliveryWorker(deps)),
    clock,
    queue,
    sender,
    history,
    healthStore,
    metrics,
    subscriptions,
    subscriptionReads,
    draws,
    ordered,
  };
}

/** Reads a message body that must be a delivery job (tests of what publish and the engine send). */
export function parseDeliveryJob(body: string): DeliveryJob {
  const job = parseJob(body);
  if (job.kind !== undefined && job.kind !== 'deliver')
    throw new Error(`expected a delivery job, got a '${job.kind}' job`);
  return job;
}

/** A dead-letter step wired to a recording queue and a virtual clock, writing to `bucket`. */
export function deadLetterStepHarness(
  bucket: DeadLetterStepDeps['bucket'],
  startAt = Date.now(),
  notices?: DeadLetterStepDeps['notices'],
  namedBucket?: DeadLetterStepDeps['namedBucket'],
) {
  const clock = new VirtualClock(startAt);
  const queue = new RecordingQueue(clock);
  const metrics = new MetricBuffer();
  let ids = 0;
  const step = new DeadLetterStep({
    bucket,
    queue,
    clock,
    profiles: DELIVERY_PROFILES,
    drops: new DropRecorder(metrics, silentLogger),
    metrics,
    logger: silentLogger,
    newId: () => `blob-${++ids}`,
    ...(notices === undefined ? {} : { notices }),
    ...(namedBucket === undefined ? {} : { namedBucket }),
  });
  return { clock, queue, metrics, step };
}

/** The health document of an endpoint with nothing against it (without its `endpointUrl`). */
export const HEALTHY_DOCUMENT = {
  state: 'Healthy',
  probationUntil: null,
  consecutiveFailures: 0,
  lastOutcome: null,
  lastFailureAt: null,
  lastSuccessAt: null,
  failingSince: null,
  disabledAt: null,
  disabledReason: null,
  pausedAt: null,
  held: null,
  // A subscription without validation, or whose endpoint agreed: deliveries go to it.
  provisioningState: 'Succeeded',
} as const;

/**
 * A publisher with the namespace `shop` (keys `ns-key-one`, `ns-key-two`) and its topic `orders`,
 * one push subscription `push`; `send` publishes to it with key1 unless told otherwise, and
 * `listed` keeps the topic ids whose subscriptions were listed.
 */
export function namespacePublisher() {
  const clock = new VirtualClock();
  const queue = new RecordingQueue(clock);
  const listed: string[] = [];
  const namespace: Namespace = {
    name: 'shop',
    keys: { key1: 'ns-key-one', key2: 'ns-key-two' },
    tags: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
  const topic: NamespaceTopic = {
    namespace: 'shop',
    name: 'orders',
    eventRetentionInDays: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    subscriptionsVersion: 1,
  };
  const publisher = new Publisher({
    store: {
      getTopic: async () => undefined,
      getNamespace: async (name) => (name === 'shop' ? namespace : undefined),
      getNamespaceTopic: async (_ns, name) => (name === 'orders' ? topic : undefined),
      listSubscriptions: async (topicId) => {
        listed.push(topicId);
        return [subscription({ topic: 'shop/orders', name: 'push', deliveryProfile: 'namespace' })];
      },
    },
    acceptedIds: new MemoryAcceptedIds(),
    queue,
    fanOuts: queue.fanOuts,
    clock,
    metrics: new MetricBuffer(),
    logger: silentLogger,
    newId: () => 'pub-1',
    topicCacheMs: 1000,
  });
  const send = (request: Partial<NamespacePublishRequest>) =>
    publisher.publishToNamespace({
      namespace: 'shop',
      topic: 'orders',
      key: 'ns-key-one',
      body: Buffer.alloc(0),
      headers: {},
      ...request,
    });
  return { send, queue, listed, publisher };
}

/**
 * An engine harness whose subscription `orders/audit` (with a dead-letter destination) has these
 * destination settings over a plain webhook's.
 */
export function engineWithDestination(
  destination: Partial<WebhookDestination>,
  options: Parameters<typeof engineHarness>[0] = {},
): EngineHarness {
  const h = engineHarness(options);
  h.subscriptions.set(
    'orders/audit',
    subscription({
      deadLetter: { container: 'dead' },
      destination: { endpointType: 'WebHook', endpointUrl: 'https://hooks.example.test/in', ...destination },
    }),
  );
  return h;
}

/**
 * The health of `orders/audit`'s endpoint, unhealthy for an hour and on probation for another
 * minute from `now` (override `probationUntil` for a hold that is over).
 */
export const unhealthyEndpoint = (now: number, overrides: Partial<EndpointHealth> = {}): EndpointHealth => ({
  topic: 'orders',
  subscription: 'audit',
  endpointUrl: 'https://hooks.example.test/in',
  consecutiveFailures: 12,
  probations: 3,
  rev: 1,
  unhealthySince: now - 3_600_000,
  probationUntil: now + 60_000,
  probationOutcome: 'GenericError',
  lastFailureAt: now - 1000,
  ...overrides,
});

/** One publish's archive copy of `events` (ids) to `topic`, in base64 as an archive job holds it. */
export const archiveCopyText = (
  topic: TopicRef,
  events: readonly string[] = ['e1'],
  publishedAt = 1,
): string =>
  packArchiveCopy({
    topic: topicIdOf(topic),
    topicCreatedAt: new Date(0).toISOString(),
    publishId: 'p-1',
    publishedAt,
    events: events.map((id, index) => ({
      index,
      eventId: id,
      dataVersion: '1',
      json: JSON.stringify({ id }),
    })),
  }).toString('base64');

/** A replay's page job for `subscription` of `topic`. */
export const replayPageJobBody = (topic: TopicRef, subscription = 'audit', replayId = 'r-1'): string =>
  replayPageBody(topic, subscription, replayId);

/** The message body of an archive job carrying that copy. */
export function archiveJobBody(topic: TopicRef, events: readonly string[] = ['e1'], publishedAt = 1): string {
  const [job] = archiveJobsOf([{ topic, copy: archiveCopyText(topic, events, publishedAt) }]);
  if (job === undefined) throw new Error('no archive job');
  return job.body;
}

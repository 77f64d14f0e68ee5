/**
 * Builds each function's dependencies from configuration. Lambda (from environment variables)
 * and the local stack (from its own options) go through these same builders.
 */

import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { ENV, QUEUES, type QueueKey } from '../config/resources';
import { CONFIG_DEFAULTS, type RuntimeConfig, requireSetting } from '../config/runtime';
import { DeadLetterStep, DropRecorder } from '../delivery/dead-letter';
import { SUBSCRIPTION_DISABLED, subscriptionDisabledNotice } from '../delivery/disabled-notice';
import { EndpointAuth } from '../delivery/endpoint-auth';
import { DeliveryEngine, type SubscriptionSource } from '../delivery/engine';
import { EndpointHandshake } from '../delivery/handshake';
import { HealthTracker } from '../delivery/health';
import { AwsResourceSender } from '../delivery/resource-sender';
import { VALIDATION_WINDOW_MS } from '../delivery/rules/handshake';
import { scaleProfiles } from '../delivery/rules/profiles';
import { UndiciWebhookSender, type WebhookSender } from '../delivery/webhook-sender';
import { type Subscription, subscriptionExpired } from '../domain/model';
import type { ManagementDeps } from '../management/api';
import {
  METRICS_NAMESPACE,
  MetricBuffer,
  MetricFlusher,
  type MetricPoint,
  SERVICE_NAME,
  seriesFor,
} from '../observability/metrics';
import { type AwsClients, createSecretsManagerClient } from '../platform/aws';
import { TtlCache } from '../platform/cache';
import { type Clock, type Random, systemClock, systemRandom } from '../platform/clock';
import { awsResourceClients, resourceTypesOf } from '../platform/resource-clients';
import { AesGcmSealer, type KeySource, keyText } from '../platform/sealing';
import { DeliveryBacklogGate } from '../publish/admission';
import { Publisher } from '../publish/publisher';
import { BACKLOG_TICK_QUEUE } from '../queue/job-codec';
import { waitingMessages } from '../queue/queue-depth';
import { SqsJobQueue } from '../queue/sqs-job-queue';
import { AttemptHistoryTable } from '../storage/attempt-history';
import { DynamoBacklogIndex, DynamoBacklogStore } from '../storage/backlog';
import { DeadLetterBucket } from '../storage/dead-letter-bucket';
import { DynamoDeclaredDestinations } from '../storage/declared-destinations';
import { FanOutBucket } from '../storage/fan-out-bucket';
import { DynamoHealthStore } from '../storage/health';
import { DynamoHeldMarks } from '../storage/held-marks';
import { DynamoLateAnswers } from '../storage/late-answers';
import { DynamoRateBudget } from '../storage/rate-budget';
import { DynamoReplayClaims } from '../storage/replay-claims';
import { publishingStore, tableStores } from '../storage/store';
import { DynamoSubscriptionStore, type SubscriptionStore } from '../storage/subscriptions';
import { publishMetricPoints } from './middleware';

/** Logging and metrics of one function. */
export interface Observability {
  logger: Logger;
  /** Metric points not yet written. */
  buffer: MetricBuffer;
  /** Writes the buffered points at the end of an invocation, or later (`metricsFlushSeconds`). */
  flusher: MetricFlusher;
}

/**
 * A function's logging and metrics settings. A function passes its `RuntimeConfig`, which holds
 * `subscriptionMetrics` and `metricsFlushSeconds` under the same names.
 */
export interface ObservabilityOptions {
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** Replaces CloudWatch EMF output (the local stack aggregates in memory). */
  publishMetrics?: (points: readonly MetricPoint[]) => void;
  /**
   * Whether metrics are counted per subscription, or per topic in its place (the function's
   * `RuntimeConfig.subscriptionMetrics`).
   * @default false, as `readConfig` reads an absent variable
   */
  subscriptionMetrics?: boolean;
  /**
   * Seconds metric points may be kept across invocations before they are written (see
   * `MetricFlusher`).
   * @default 0: written at the end of every invocation
   */
  metricsFlushSeconds?: number;
  /**
   * The CloudWatch namespace of the metric records (the function's `RuntimeConfig.metricsNamespace`).
   * @default METRICS_NAMESPACE
   */
  metricsNamespace?: string;
  /** The flusher's time. */
  clock?: Clock;
}

export function createObservability(functionName: string, options: ObservabilityOptions = {}): Observability {
  let publishMetrics = options.publishMetrics;
  if (publishMetrics === undefined) {
    const namespace = options.metricsNamespace ?? METRICS_NAMESPACE;
    const metrics = new Metrics({ namespace, serviceName: SERVICE_NAME });
    publishMetrics = (points) => publishMetricPoints(points, metrics);
  }
  const buffer = new MetricBuffer(
    seriesFor({ subscriptionMetrics: options.subscriptionMetrics ?? CONFIG_DEFAULTS.subscriptionMetrics }),
  );
  const flushSeconds = options.metricsFlushSeconds ?? CONFIG_DEFAULTS.metricsFlushSeconds;
  const clock = options.clock ?? systemClock;
  const flusher = new MetricFlusher(buffer, publishMetrics, { everyMs: flushSeconds * 1000, now: clock.now });
  if (flushSeconds > 0 && options.publishMetrics === undefined) writeMetricsOnShutdown(flusher);
  return {
    logger: new Logger({
      serviceName: SERVICE_NAME,
      ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
      persistentKeys: { function: functionName },
    }),
    buffer,
    flusher,
  };
}

/**
 * On Lambda, points kept across invocations are written when the instance is shut down, if the
 * runtime hears of it: Lambda sends SIGTERM (and waits up to 500 ms) only to functions with an
 * extension. Without one the instance is frozen and then stopped, and its points are lost.
 */
function writeMetricsOnShutdown(flusher: MetricFlusher): void {
  process.once('SIGTERM', () => {
    flusher.flush();
    process.exit(0);
  });
}

export interface Runtime {
  config: RuntimeConfig;
  clients: AwsClients;
  clock?: Clock;
  random?: Random;
}

/** The topics, subscriptions and namespaces of the stack's table (access keys sealed when there is a key). */
const storesOf = (runtime: Runtime) =>
  tableStores(
    runtime.clients.dynamo,
    requireSetting(runtime.config.tableName, ENV.tableName),
    buildTopicKeySealer(runtime),
  );

/** The attempt history: packed per job and subscription, kept `historyRetentionDays`. */
const historyOf = (runtime: Runtime) => {
  const clock = runtime.clock ?? systemClock;
  return new AttemptHistoryTable(
    runtime.clients.dynamo,
    requireSetting(runtime.config.tableName, ENV.tableName),
    { retentionDays: runtime.config.historyRetentionDays, now: () => clock.now() },
  );
};

/** The job queue; a function only needs (and checks for) the URLs of the queues it sends to. */
const queueOf = (runtime: Runtime, sendsTo: readonly QueueKey[]) => {
  const urls: Partial<Record<QueueKey, string>> = {};
  for (const key of sendsTo) urls[key] = requireSetting(runtime.config.queueUrls[key], QUEUES[key].urlEnv);
  return new SqsJobQueue(runtime.clients.sqs, urls);
};

/** The sealing key is read once per container: it changes only with the stack. */
const KEY_CACHE_SECONDS = 365 * 24 * 3600;

/** The sealing key's text from a Secrets Manager secret, through Powertools Parameters. */
export function secretKeySource(
  secretArn: string,
  provider?: SecretsProvider,
  /** The variable that named the secret, and what its key seals, for error messages. */
  named: { env: string; seals: string } = { env: ENV.headerKeySecretArn, seals: 'secret header values' },
): KeySource {
  let secrets = provider;
  return {
    keyText: async () => {
      secrets ??= new SecretsProvider({ awsSdkV3Client: createSecretsManagerClient() });
      let value: unknown;
      try {
        value = await secrets.get(secretArn, { maxAge: KEY_CACHE_SECONDS });
      } catch (error) {
        throw new Error(
          `could not read the key that seals ${named.seals} from ${secretArn} (${named.env}): ${(error as Error).message}`,
        );
      }
      if (typeof value !== 'string' || value === '') {
        throw new Error(`the secret ${secretArn} (${named.env}) must hold the sealing key as non-empty text`);
      }
      return value;
    },
  };
}

/**
 * The sealer of secret delivery header values: its key from the stack's secret (AWS) or given
 * inline (the local stack); undefined when there is neither, and secret values can't be used.
 */
export function buildSealer(runtime: Runtime): AesGcmSealer | undefined {
  const { headerKeySecretArn, headerKey } = runtime.config;
  if (headerKeySecretArn !== undefined) return new AesGcmSealer(secretKeySource(headerKeySecretArn));
  if (headerKey !== undefined) return new AesGcmSealer(keyText(headerKey));
  return undefined;
}

/**
 * The sealer of topic and namespace access keys (the publish and management functions): its key
 * from its own secret, so the functions that may open secret header values can't open access
 * keys, and the other way round. Undefined when there is none: keys are then written unsealed.
 */
export function buildTopicKeySealer(runtime: Runtime): AesGcmSealer | undefined {
  const { topicKeySecretArn, topicKey } = runtime.config;
  if (topicKeySecretArn !== undefined) {
    return new AesGcmSealer(
      secretKeySource(topicKeySecretArn, undefined, {
        env: ENV.topicKeySecretArn,
        seals: 'topic access keys',
      }),
    );
  }
  if (topicKey !== undefined) return new AesGcmSealer(keyText(topicKey));
  return undefined;
}

/** The fan-out bucket: publishes too large for one message. */
export const fanOutsOf = (runtime: Runtime): FanOutBucket =>
  new FanOutBucket(runtime.clients.s3, requireSetting(runtime.config.fanOutBucket, ENV.fanOutBucket));

export function buildPublisher(runtime: Runtime, observability: Observability): Publisher {
  const stores = storesOf(runtime);
  return new Publisher({
    store: publishingStore(stores),
    // A held subscription's publishes go straight to its backlog while events are routed there.
    ...(runtime.config.backlog
      ? { queue: queueOf(runtime, ['delivery', 'backlog']), held: stores.heldMarks }
      : { queue: queueOf(runtime, ['delivery']) }),
    fanOuts: fanOutsOf(runtime),
    clock: runtime.clock ?? systemClock,
    metrics: observability.buffer,
    logger: observability.logger,
    newId: randomUUID,
    topicCacheMs: runtime.config.topicCacheMs,
  });
}

/**
 * The publish function's gate on the delivery queue's backlog (`deliveryBacklogLimit`); undefined
 * when the limit is 0, as in the local stack, whose own gate at the door refuses instead.
 */
export function buildDeliveryBacklogGate(
  runtime: Runtime,
  observability: Observability,
): DeliveryBacklogGate | undefined {
  const limit = runtime.config.deliveryBacklogLimit;
  if (limit === 0) return undefined;
  const url = requireSetting(runtime.config.queueUrls.delivery, QUEUES.delivery.urlEnv);
  const clock = runtime.clock ?? systemClock;
  return new DeliveryBacklogGate({
    waitingJobs: () => waitingMessages(runtime.clients.sqs, url),
    limit,
    now: () => clock.now(),
    onReadError: (error) =>
      observability.logger.warn('could not read the delivery queue depth; admitting publishes', {
        error: error.message,
      }),
  });
}

const constant =
  <T>(value: T) =>
  (): T =>
    value;

export function buildManagementDeps(
  runtime: Runtime,
  observability?: Observability,
  /** The public URL when it is known only later (the local stack's own address); else the setting. */
  options: { publicUrl?: () => string } = {},
): ManagementDeps {
  const sealer = buildSealer(runtime);
  return {
    ...(observability === undefined ? {} : { metrics: observability.buffer, logger: observability.logger }),
    ...storesOf(runtime),
    history: historyOf(runtime),
    clock: runtime.clock ?? systemClock,
    newId: randomUUID,
    deadLetterBucket: new DeadLetterBucket(
      runtime.clients.s3,
      requireSetting(runtime.config.deadLetterBucket, ENV.deadLetterBucket),
    ),
    declaredDestinations: new DynamoDeclaredDestinations(
      runtime.clients.dynamo,
      requireSetting(runtime.config.tableName, ENV.tableName),
    ),
    replayClaims: new DynamoReplayClaims(
      runtime.clients.dynamo,
      requireSetting(runtime.config.tableName, ENV.tableName),
    ),
    // Resend and replay calls per subscription and minute, counted where every instance sees them.
    callBudget: new DynamoRateBudget(
      runtime.clients.dynamo,
      requireSetting(runtime.config.tableName, ENV.tableName),
    ),
    // Replayed dead letters go out as fresh deliveries; a backlog's tick is sent at once on a change.
    queue: queueOf(runtime, ['delivery', BACKLOG_TICK_QUEUE]),
    allowHttpEndpoints: runtime.config.allowHttpEndpoints,
    validateEndpoints: runtime.config.validateEndpoints,
    validationWindowMs: VALIDATION_WINDOW_MS / runtime.config.timeScale,
    blockPrivateEndpoints: runtime.config.blockPrivateEndpoints,
    resourceDestinations: runtime.config.resourceDestinations,
    // The local stack brings its emulator's clients (SQS and SNS); on AWS every type is reachable.
    ...(runtime.clients.resources === undefined
      ? {}
      : { resourceTypes: resourceTypesOf(runtime.clients.resources) }),
    propagationDelayMs: runtime.config.topicCacheMs,
    healthStore: healthStoreOf(runtime),
    healthCacheMs: runtime.config.healthCacheMs,
    // The index alone: the management function reads no backlog segment.
    backlog: new DynamoBacklogIndex(
      runtime.clients.dynamo,
      requireSetting(runtime.config.tableName, ENV.tableName),
    ),
    publicUrl: options.publicUrl ?? constant(requireSetting(runtime.config.publicUrl, ENV.publicUrl)),
    ...(runtime.config.publishUrl === undefined ? {} : { publishUrl: constant(runtime.config.publishUrl) }),
    ...(sealer === undefined ? {} : { sealer }),
  };
}

/**
 * Subscriptions read through a short-lived cache. A cached definition older than the version a
 * job was made for is read again, so a change is obeyed by every event published after the
 * change returned. A miss is confirmed with a strongly consistent read before anything is
 * dropped, and never cached: a subscription re-created moments after a delete is seen at once.
 * While the table can't be read, the last definition read is used (stale on error), so delivery
 * goes on through a table outage; a job made for a newer version than that fails and comes back.
 * A subscription whose expiration time has come is read as none, so its queued and held events
 * are dropped as `SubscriptionDeleted`.
 */
export function cachedSubscriptions(
  subscriptions: Pick<SubscriptionStore, 'get'>,
  ttlMs: number,
  clock: Clock,
  onStale?: (key: string, error: unknown) => void,
): SubscriptionSource {
  const cache = new TtlCache<Subscription | undefined>(ttlMs, clock.now, {
    keep: (subscription) => subscription !== undefined,
    staleOnError: true,
    ...(onStale === undefined ? {} : { onStale }),
  });
  return {
    get: async (topic, name, minVersion = 0) => {
      const key = `${topic.toLowerCase()}#${name.toLowerCase()}`;
      const cached = await cache.get(key, () => subscriptions.get(topic, name));
      const found =
        cached !== undefined && cached.version >= minVersion
          ? cached
          : await cache.get(key, () => subscriptions.get(topic, name, { consistent: true }), { fresh: true });
      // An expired subscription is gone from its expiration time on, cached or not.
      return found === undefined || subscriptionExpired(found, clock.now()) ? undefined : found;
    },
  };
}

export function buildDeliveryEngine(
  runtime: Runtime,
  observability: Observability,
  options: { sender?: WebhookSender } = {},
): DeliveryEngine {
  const clock = runtime.clock ?? systemClock;
  const subscriptions = new DynamoSubscriptionStore(
    runtime.clients.dynamo,
    requireSetting(runtime.config.tableName, ENV.tableName),
  );
  const sealer = buildSealer(runtime);
  // Deliveries and handshakes go out under the same connection rules.
  const http = new UndiciWebhookSender({
    clock,
    blockPrivateEndpoints: runtime.config.blockPrivateEndpoints,
  });
  const healthStore = healthStoreOf(runtime);
  // Token requests go out as deliveries do; SigV4 signs with the function's own credentials.
  const endpointAuth = new EndpointAuth({
    clock,
    exchange: http,
    awsCredentials: runtime.clients.dynamo.config.credentials,
    awsRegion: runtime.clients.dynamo.config.region,
    // Only the local stack allows http endpoints; its emulator credentials may sign for loopback.
    signLoopback: runtime.config.allowHttpEndpoints,
  });
  // A subscription disabled for failing too long is announced on the stack's system topic.
  const notices = buildPublisher(runtime, observability);
  return new DeliveryEngine({
    clock,
    random: runtime.random ?? systemRandom,
    profiles: scaleProfiles(runtime.config.timeScale),
    subscriptions: cachedSubscriptions(
      subscriptions,
      runtime.config.subscriptionCacheMs,
      clock,
      (key, error) =>
        observability.logger.warn('could not read a subscription; delivering with the last one read', {
          subscription: key,
          error: (error as Error).message,
        }),
    ),
    sender: options.sender ?? http,
    // The delivery queue takes the jobs of fan-outs passed on to other workers.
    queue: queueOf(runtime, ['delivery', 'retry', 'endedDelivery', 'backlog']),
    fanOuts: fanOutsOf(runtime),
    history: historyOf(runtime),
    lateAnswers: new DynamoLateAnswers(
      runtime.clients.dynamo,
      requireSetting(runtime.config.tableName, ENV.tableName),
    ),
    endpointAuth,
    // The local stack brings its emulator's; on AWS the function makes its own, per region.
    resources: new AwsResourceSender({ clients: runtime.clients.resources ?? awsResourceClients(), clock }),
    rateBudget: new DynamoRateBudget(
      runtime.clients.dynamo,
      requireSetting(runtime.config.tableName, ENV.tableName),
    ),
    drops: new DropRecorder(observability.buffer, observability.logger),
    metrics: observability.buffer,
    logger: observability.logger,
    concurrency: runtime.config.deliveryConcurrency,
    health: new HealthTracker({
      store: healthStore,
      clock,
      logger: observability.logger,
      cacheMs: runtime.config.healthCacheMs,
      flushIntervalMs: HEALTH_FLUSH_INTERVAL_MS,
      metrics: observability.buffer,
      onDisabled: async (subscription, health) => {
        await notices.publishOwn(SUBSCRIPTION_DISABLED.topic, [
          subscriptionDisabledNotice(subscription, health),
        ]);
      },
    }),
    ...(sealer === undefined ? {} : { sealer }),
    handshake: new EndpointHandshake({
      subscriptions,
      exchange: http,
      clock,
      logger: observability.logger,
      newId: randomUUID,
      auth: endpointAuth,
      ...(sealer === undefined ? {} : { opener: sealer }),
    }),
    backlog: {
      store: backlogsOf(runtime),
      healthStore,
      routing: runtime.config.backlog,
      afterMs: runtime.config.backlogAfterMs,
      drainConcurrency: runtime.config.drainConcurrency,
      heldMarks: new DynamoHeldMarks(
        runtime.clients.dynamo,
        requireSetting(runtime.config.tableName, ENV.tableName),
      ),
    },
  });
}

/** Subscriptions' backlogs: segments in the backlog bucket, their index in the table. */
const backlogsOf = (runtime: Runtime): DynamoBacklogStore =>
  new DynamoBacklogStore(
    runtime.clients.dynamo,
    requireSetting(runtime.config.tableName, ENV.tableName),
    runtime.clients.s3,
    requireSetting(runtime.config.backlogBucket, ENV.backlogBucket),
  );

/**
 * Least time between two writes of one endpoint's failure counters by one worker: with every
 * urgent change (a probation begins, the endpoint recovers) written at once, this bounds what a
 * failing endpoint costs in writes (see docs/ARCHITECTURE.md, "Endpoint health").
 */
export const HEALTH_FLUSH_INTERVAL_MS = 1000;

/** The endpoint-health items of the stack's table. */
export const healthStoreOf = (runtime: Runtime): DynamoHealthStore =>
  new DynamoHealthStore(runtime.clients.dynamo, requireSetting(runtime.config.tableName, ENV.tableName));

/** The dead-letter step behind the dead-letter function. */
export function buildDeadLetterStep(runtime: Runtime, observability: Observability): DeadLetterStep {
  return new DeadLetterStep({
    bucket: new DeadLetterBucket(
      runtime.clients.s3,
      requireSetting(runtime.config.deadLetterBucket, ENV.deadLetterBucket),
    ),
    queue: queueOf(runtime, ['endedDelivery']),
    clock: runtime.clock ?? systemClock,
    profiles: scaleProfiles(runtime.config.timeScale),
    drops: new DropRecorder(observability.buffer, observability.logger),
    metrics: observability.buffer,
    logger: observability.logger,
    newId: randomUUID,
    // Dead-letter notices are published as any publish is, to the stack's own topic.
    notices: buildPublisher(runtime, observability),
  });
}

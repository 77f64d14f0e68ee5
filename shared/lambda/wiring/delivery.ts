/**
 * The delivery function's wiring: its worker (`shared/delivery/worker.ts`), every capability
 * provided from configuration. Lambda (from environment variables) and the local stack (from its
 * own options) build it here alike.
 */
import { randomUUID } from 'node:crypto';
import { ReplayPages } from '../../archive/replay';
import { ENV, QUEUES } from '../../config/resources';
import { requireSetting } from '../../config/runtime';
import { DropRecorder } from '../../delivery/dead-letter';
import { SUBSCRIPTION_DISABLED, subscriptionDisabledNotice } from '../../delivery/disabled-notice';
import { EndpointAuth } from '../../delivery/endpoint-auth';
import { EndpointHandshake } from '../../delivery/handshake';
import { HealthTracker } from '../../delivery/health';
import type { SubscriptionSource } from '../../delivery/ports';
import { AwsResourceSender } from '../../delivery/resource-sender';
import type { RequestTimes } from '../../delivery/rules/late-answer';
import { scaleProfiles } from '../../delivery/rules/profiles';
import { deliveryTargetOf } from '../../delivery/target';
import { UndiciWebhookSender, type WebhookSender } from '../../delivery/webhook-sender';
import { DeliveryWorker } from '../../delivery/worker';
import { type Subscription, subscriptionExpired } from '../../domain/model';
import { TtlCache } from '../../platform/cache';
import { type Clock, systemClock, systemRandom } from '../../platform/clock';
import { awsResourceClients } from '../../platform/resource-clients';
import { compileFilter } from '../../publish/filter';
import { orderedKeyOf } from '../../publish/ordered-routing';
import { archivedEventView } from '../../publish/publish-request';
import { SqsMessageVisibility } from '../../queue/visibility';
import { DynamoBacklogStore } from '../../storage/backlog';
import { DynamoHeldMarks } from '../../storage/held-marks';
import { DynamoLateAnswers } from '../../storage/late-answers';
import { DynamoOrderedProgress } from '../../storage/ordered-progress';
import { DynamoRateBudget } from '../../storage/rate-budget';
import { DynamoReplaySends } from '../../storage/replay-sends';
import { DynamoReplayStore } from '../../storage/replays';
import { DynamoSubscriptionStore, type SubscriptionStore } from '../../storage/subscriptions';
import type { Observability } from './observability';
import { buildPublisher } from './publish';
import {
  archiveOf,
  buildSealer,
  fanOutsOf,
  healthStoreOf,
  historyOf,
  queueOf,
  type Runtime,
} from './runtime';

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

export function buildDeliveryWorker(
  runtime: Runtime,
  observability: Observability,
  options: { sender?: WebhookSender; requestTimes?: RequestTimes } = {},
): DeliveryWorker {
  const clock = runtime.clock ?? systemClock;
  const subscriptions = new DynamoSubscriptionStore(
    runtime.clients.dynamo,
    requireSetting(runtime.config.tableName, ENV.tableName),
  );
  const sealer = buildSealer(runtime);
  // Deliveries and handshakes go out under the same connection rules.
  const { requestTimes } = options;
  const http = new UndiciWebhookSender({
    clock,
    blockPrivateEndpoints: runtime.config.blockPrivateEndpoints,
    ...(runtime.config.egressProxyUrl === undefined ? {} : { proxyUrl: runtime.config.egressProxyUrl }),
    ...(requestTimes === undefined
      ? {}
      : { timeoutMs: requestTimes.timeoutMs, lateWindowMs: requestTimes.lateWindowMs }),
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
  return new DeliveryWorker({
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
    ...(requestTimes === undefined ? {} : { requestTimes }),
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
    // Without a sealing key, nothing sealed can be opened (subscriptions without secrets still work).
    sealer: sealer ?? 'none',
    handshake: new EndpointHandshake({
      subscriptions,
      exchange: http,
      clock,
      logger: observability.logger,
      newId: randomUUID,
      auth: endpointAuth,
      ...(sealer === undefined ? {} : { opener: sealer }),
    }),
    // Ordered events wait in their FIFO queue; what they have been through is kept in the table.
    ordered: {
      progress: new DynamoOrderedProgress(
        runtime.clients.dynamo,
        requireSetting(runtime.config.tableName, ENV.tableName),
      ),
      visibility: new SqsMessageVisibility(
        runtime.clients.sqs,
        requireSetting(runtime.config.queueUrls.ordered, QUEUES.ordered.urlEnv),
      ),
    },
    ...(runtime.config.archiveBucket === undefined
      ? {}
      : {
          replays: buildReplays(runtime, observability, subscriptions, clock),
          replayCounts: new DynamoReplayStore(
            runtime.clients.dynamo,
            requireSetting(runtime.config.tableName, ENV.tableName),
          ),
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

/**
 * Replays from topics' archives: their pages read the archive bucket and the subscription as it is
 * now (its filter and, for an ordered one, its key), and queue deliveries and the next page; the
 * parts they queued are claimed as received.
 */
function buildReplays(
  runtime: Runtime,
  observability: Observability,
  subscriptions: Pick<SubscriptionStore, 'get'>,
  clock: Clock,
): { pages: ReplayPages; sends: DynamoReplaySends } {
  const tableName = requireSetting(runtime.config.tableName, ENV.tableName);
  const pages = new ReplayPages({
    replays: new DynamoReplayStore(runtime.clients.dynamo, tableName),
    archive: archiveOf(runtime),
    subscription: async (topic, name) => {
      const subscription = await subscriptions.get(topic, name, { consistent: true });
      if (subscription === undefined) return undefined;
      const target = deliveryTargetOf(subscription);
      const matches = compileFilter(subscription.filter);
      const path = subscription.orderedDelivery?.key.split('.');
      return {
        target,
        matches: (json) => matches(archivedEventView(json)),
        ...(path === undefined ? {} : { orderedKeyOf: (item) => orderedKeyOf(target, path, item) }),
      };
    },
    queue: queueOf(runtime, ['delivery', 'ordered']),
    clock,
    logger: observability.logger,
  });
  return { pages, sends: new DynamoReplaySends(runtime.clients.dynamo, tableName) };
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

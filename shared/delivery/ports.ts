/**
 * The ports of delivery: what the engine, the backlog and the settle step ask of the world,
 * grouped by capability. Each part names the groups it uses, and the delivery function's worker
 * (`worker.ts`) is built from all of them, each provided by type: nothing it needs is optional.
 *
 * This file imports only types, from the layers below delivery and from delivery's own leaf
 * modules, so every part of delivery can import it without an import loop.
 */
import type { AttemptRecord } from '../domain/attempts';
import type { Subscription } from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import type { MetricBuffer } from '../observability/metrics';
import type { Clock, Random } from '../platform/clock';
import type { SecretOpener } from '../platform/sealing';
import type { JobQueue } from '../queue/sqs-job-queue';
import type { LateAnswerStore } from '../storage/late-answers';
import type { RateBudgetStore } from '../storage/rate-budget';
import type { ReplayStore } from '../storage/replays';
import type { DropRecorder } from './dead-letter';
import type { EndpointAuth } from './endpoint-auth';
import type { HealthTracker } from './health';
import type { ResourceSender } from './resource-sender';
import type { RequestTimes } from './rules/late-answer';
import type { ProfileTable } from './rules/profiles';
import type { WebhookSender } from './webhook-sender';

export interface SubscriptionSource {
  /**
   * The subscription, at `minVersion` or newer when it exists at all; `undefined` only when a
   * strongly consistent read confirms it (or its topic) no longer exists.
   */
  get(topic: string, name: string, minVersion?: number): Promise<Subscription | undefined>;
}

export interface AttemptHistory {
  record(records: readonly AttemptRecord[]): Promise<void>;
}

/** How long a job may run: set by the invocation working it. */
export interface JobOptions {
  /** Epoch ms after which no new attempt starts; later items go back to the queue untouched. */
  attemptDeadline: number;
  /**
   * Epoch ms by which this worker stops listening to requests that timed out
   * (`rules/late-answer.ts`); without it none is listened to after its timeout.
   */
  listenUntil?: number;
  /**
   * Collects the job's listens (each settles when its late window closes), for the invocation to
   * wait on before it ends; listens are opened without it only where nothing ends early (tests).
   */
  listens?: Promise<void>[];
}

/** Time, chance and the delivery profiles (already scaled by the time scale; 1 on AWS). */
export interface DeliveryTime {
  clock: Clock;
  random: Random;
  profiles: ProfileTable;
}

/** Where delivery reports what it does. */
export interface DeliveryTelemetry {
  metrics: MetricBuffer;
  logger: LoggerLike;
}

/** The subscriptions, as delivery reads them. */
export interface DeliverySubscriptions {
  subscriptions: SubscriptionSource;
}

/** The job queues (delivery, retry, backlog, ended-delivery). */
export interface DeliveryQueues {
  queue: JobQueue;
}

/**
 * Where the end of a delivery is written (`settle.ts`): the attempt history (and the message
 * log), the drops of events that end without a dead-letter destination, and the endpoint's health.
 */
export interface DeliveryRecords {
  history: AttemptHistory;
  drops: DropRecorder;
  /** Endpoint health: the gate's verdicts, and where attempt outcomes are reported. */
  health: HealthTracker;
  /** Where a replay's delivered events are counted (absent: replays show none delivered). */
  replayCounts?: Pick<ReplayStore, 'addDelivered'>;
}

/** The request path (`engine-attempts.ts`): how requests are made and how many at once. */
export interface RequestPath {
  sender: WebhookSender;
  /** Webhook requests in flight at once, across all jobs of this worker. */
  concurrency: number;
  /**
   * Requests in flight at once to one subscription's endpoint (default: a quarter of
   * `concurrency`). Requests left unanswered for `STALL_MS` no longer count against
   * `concurrency`, so no number of hanging endpoints fills a worker.
   */
  subscriptionConcurrency?: number;
  /**
   * Opens sealed values (secret custom headers, signing secrets, endpoint credentials); `'none'`
   * where no sealing key is configured: subscriptions without secrets still work, and one with a
   * secret is retried as when a dependency is down.
   */
  sealer: SecretOpener | 'none';
  /** Sends to AWS resource destinations (SQS queues, SNS topics...). */
  resources: ResourceSender;
  /** Puts credentials on the requests of subscriptions with `auth` (default: one of its own). */
  endpointAuth?: EndpointAuth;
  /**
   * The shared budgets of rate-limited endpoints (`maxDeliveriesPerSecond`), so the limit holds
   * across workers (default: each worker counts its own requests only).
   */
  rateBudget?: RateBudgetStore;
  /**
   * Records successes answered after their request timed out, for the events' retries to find
   * (`late-answers.ts`); `'none'`: a request is given up at its timeout.
   */
  lateAnswers: LateAnswerStore | 'none';
  /**
   * The sender's timeout and the late window its timed-out requests are listened to for (default
   * 30 s and 3 minutes, as on AWS; the local stack's `requestTimeScale` shrinks both for tests).
   */
  requestTimes?: RequestTimes;
}

/** Everything the settle step needs (`settle.ts`). */
export interface SettleDeps extends DeliveryTime, DeliveryTelemetry, DeliveryQueues, DeliveryRecords {}

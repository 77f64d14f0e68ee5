/**
 * What the management operations depend on, grouped by capability: each route module asks for
 * the groups it uses (`<module>Deps`, an intersection of these), and the management function's
 * wiring (`shared/lambda/wiring/management.ts`) provides them all as {@link ManagementDeps}.
 * Nothing here is optional: what a stack may lack (a sealing key) is a variant the routes answer
 * for, and what differs in the local stack (the resource types it reaches, its public URL) is a
 * value the wiring gives.
 *
 * Types only, of the stores and ports below: every module of the management API may import this
 * file, and it imports none of them.
 */

import type { PortalBranding } from '../config/portal';
import type { SourceDefinition } from '../config/sources';
import type { ConsoleFiles } from '../console/files';
import type { ResourceEndpointType } from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import type { MetricBuffer } from '../observability/metrics';
import type { Clock } from '../platform/clock';
import type { SecretSealer } from '../platform/sealing';
import type { JobQueue } from '../queue/sqs-job-queue';
import type { SessionKeys } from '../sessions/keys';
import type { AttemptHistoryLookup } from '../storage/attempt-history';
import type { BacklogIndexReader } from '../storage/backlog';
import type { NamedBucketRef } from '../storage/dead-letter-buckets';
import type { DeclaredDestinationsStore } from '../storage/declared-destinations';
import type { EventTypeStore } from '../storage/event-types';
import type { HealthStore } from '../storage/health';
import type { NamespaceStore, NamespaceTopicStore } from '../storage/namespaces';
import type { RateBudgetStore } from '../storage/rate-budget';
import type { RecoveryMarks } from '../storage/recoveries';
import type { ReplayClaims } from '../storage/replay-claims';
import type { ReplayStore } from '../storage/replays';
import type { SubscriptionStore } from '../storage/subscriptions';
import type { TopicStore } from '../storage/topics';
import type { DeadLetterBlobs } from './dead-letters/deps';

/** Classic topics, namespaces and namespace topics, as the stack's table keeps them. */
export interface TopicStoreDeps {
  topics: TopicStore;
  namespaces: NamespaceStore;
  namespaceTopics: NamespaceTopicStore;
}

/** Topics' event catalogs (classic and namespace topics alike), as the stack's table keeps them. */
export interface EventTypeDeps {
  eventTypes: EventTypeStore;
}

/** Event subscriptions (classic and namespace alike), as the stack's table keeps them. */
export interface SubscriptionStoreDeps {
  subscriptions: SubscriptionStore;
}

/** The time: what is stamped on changes, windows and limits count from, and answers wait on. */
export interface ClockDeps {
  clock: Clock;
}

/** New unique ids (subscription `uid`s, validation codes, replay and resend ids). */
export interface IdDeps {
  newId: () => string;
}

/** How long answers wait for publishers to see a change. */
export interface PropagationDeps {
  /**
   * How long publishers may keep using a cached topic. Changes that publishers must see
   * (subscriptions, keys) are answered only after this long, so they are live on return.
   */
  propagationDelayMs: number;
}

/** Endpoint health: read by the health view, rewritten by `pause`, `resume` and `enable`, reset on delete. */
export interface HealthDeps {
  healthStore: HealthStore;
  /**
   * How long delivery workers trust their cached copy of an endpoint's health; `enable` is
   * answered only after this long, so every worker lets deliveries through on return.
   */
  healthCacheMs: number;
}

/**
 * Backlogs' index items, from the table alone: what the health view shows as `held`, and the
 * META whose token a tick sent at once carries (`backlog-wake.ts`).
 */
export interface BacklogDeps {
  backlog: BacklogIndexReader;
}

/**
 * The job queues: where handshakes, resent events and replayed dead letters are queued (the
 * `delivery` queue), and where a backlog's tick is sent at once (`BACKLOG_TICK_QUEUE`).
 */
export interface QueueDeps {
  queue: JobQueue;
}

/** Dead letters: the bucket (listing, reading, marking blobs replayed) and the claims of replays at work. */
export interface DeadLetterDeps {
  /** The stack's own dead-letter bucket. */
  deadLetterBucket: DeadLetterBlobs;
  /**
   * The buckets subscriptions may name for their dead letters beside the stack's (bucket ARN
   * patterns; `<bucket>|<role>` pairs one with another account's role). Empty: none.
   */
  deadLetterBuckets: readonly string[];
  /**
   * A bucket a subscription names, reached as it says (a role to assume). Absent: such a
   * subscription's dead letters cannot be listed or replayed (503).
   */
  namedDeadLetterBucket?: (ref: NamedBucketRef) => DeadLetterBlobs;
  /** Claims on blobs being replayed, so two replays at once never both replay one. */
  replayClaims: ReplayClaims;
}

/**
 * The per-subscription counts of resend and replay calls (`call-limits.ts`), kept in the table so
 * the limits hold across management function instances.
 */
export interface CallLimitDeps {
  callBudget: RateBudgetStore;
}

/** The attempt history (the message log); its retention bounds a lookup's window. */
export interface HistoryDeps {
  history: AttemptHistoryLookup;
}

/** The validation handshake new endpoints go through. */
export interface ValidationDeps {
  /**
   * New endpoints (a new subscription, or a changed endpoint URL) must pass the validation
   * handshake before events are matched to them.
   */
  validateEndpoints: boolean;
  /** How long a validation URL validates (5 minutes, divided by the time scale). */
  validationWindowMs: number;
}

/** What webhook endpoint (and token) URLs may be. */
export interface EndpointRuleDeps {
  /**
   * Endpoint and token URLs may be `http://` (the local stack only), where SigV4 auth may also
   * sign for loopback hosts, its emulator credentials being accepted by no AWS API.
   */
  allowHttpEndpoints: boolean;
  /** Endpoint URLs aimed at loopback, private or other non-public addresses are refused. */
  blockPrivateEndpoints: boolean;
  /**
   * The fixed public addresses requests to endpoints leave from (the `egress` prop's Elastic IPs);
   * empty: none (Lambda's shared addresses, or this machine's).
   */
  egressAddresses?: readonly string[];
  /** Whether requests to endpoints go through an egress proxy. */
  egressProxy?: boolean;
}

/** Which AWS resources subscriptions may deliver to. */
export interface ResourceDestinationDeps {
  /**
   * The AWS resources subscriptions may deliver to (ARN patterns, `*` for any run of characters
   * within one segment; `<resource>|<role>` pairs a resource with another account's role); a
   * resource destination not matching one is refused. Empty: none.
   */
  resourceDestinations: readonly string[];
  /**
   * The resources and roles subscriptions declared in the CDK app deliver to (kept in the table:
   * the list grows with each one), allowed beside `resourceDestinations`. Read only when a
   * resource destination is not among those patterns; put by the declared-resources provider.
   */
  declaredDestinations: DeclaredDestinationsStore;
  /** The resource types this stack can deliver to (on AWS every type; the local stack: SQS and SNS). */
  resourceTypes: readonly ResourceEndpointType[];
}

/**
 * How the stack seals secrets before they are stored (secret delivery header values, endpoint and
 * token URL query strings, signing and client secrets) and opens them again: with its key, or not
 * at all. A stack without a key refuses what needs one (503, naming the field); all else works.
 */
export type SecretSealing =
  | { readonly kind: 'sealed'; readonly sealer: SecretSealer }
  | { readonly kind: 'noKey' };

export interface SealingDeps {
  sealing: SecretSealing;
}

/** The sources topics take events from (`ENV.sources`), which topic documents show. */
export interface SourceDeps {
  sources?: readonly SourceDefinition[];
}

/** The URLs documents and handshakes name. */
export interface UrlDeps {
  /**
   * The API's public base URL, from configuration (`ENV.publicUrl`: the `publicUrl` prop or
   * the HTTP API's own URL on AWS; `--public-url` or the stack's own address locally): the base of
   * validation URLs. Never taken from a request.
   */
  publicUrl: () => string;
  /**
   * The base of topic `endpoint` properties: the publish function's URL when publishing has a
   * front door of its own (`ENV.publishUrl`), else the public URL.
   */
  publishUrl: () => string;
}

/** Where best-effort steps that failed are logged (a backlog's tick that could not be sent). */
export interface LoggingDeps {
  logger: LoggerLike;
}

/** The invocation's metric points (replayed dead letters are counted). */
export interface MetricsDeps {
  metrics: MetricBuffer;
}

/**
 * Console and portal sessions: the key that signs their tokens, and how the portal looks and
 * where it may be framed.
 */
export interface SessionDeps {
  /** The session key; undefined when the stack has none (sessions are then refused, 503). */
  sessionKeys: SessionKeys | undefined;
  /** The console's and portal's page and files. */
  consoleFiles: ConsoleFiles;
  /** Origins that may frame the portal. */
  portalFrameAncestors: readonly string[];
  /** The portal's title, logo and accent colour. */
  portalBranding: PortalBranding;
}

/** Replays of subscriptions from their topics' archives. */
export interface ReplayDeps {
  replays: ReplayStore;
  /** How long after its publish an event is surely in the archive: a replay of a range ending later waits. */
  archiveLagMs: number;
}

/** Deliveries recovered in bulk from the message log (`recover-routes.ts`), each marked once. */
export interface RecoveryDeps {
  recoveries: RecoveryMarks;
}

/** Everything the management operations depend on: every capability group. */
export interface ManagementDeps
  extends TopicStoreDeps,
    EventTypeDeps,
    ReplayDeps,
    RecoveryDeps,
    SubscriptionStoreDeps,
    ClockDeps,
    IdDeps,
    PropagationDeps,
    HealthDeps,
    BacklogDeps,
    QueueDeps,
    DeadLetterDeps,
    CallLimitDeps,
    HistoryDeps,
    ValidationDeps,
    EndpointRuleDeps,
    ResourceDestinationDeps,
    SealingDeps,
    UrlDeps,
    SourceDeps,
    LoggingDeps,
    MetricsDeps,
    SessionDeps {}

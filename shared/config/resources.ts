/**
 * The one list of Gridwire's resources: queues, table, bucket and functions (the HTTP routes are
 * `routes.ts`'s).
 *
 * The CDK construct (`infra/delivery-pipeline.ts`) and the local runtime (`local/stack.ts`) both
 * build from these definitions, and the handlers read the environment variables named here, so
 * a queue, table or route can't exist in one place and be missing in another.
 */

import { DELIVERY_BATCHING_DEFAULTS, LAMBDA_SQS_LIMITS, visibilityTimeoutOf } from './event-source-mapping';

/** Environment variables the functions read (set by CDK on AWS, by the local runtime locally). */
export const ENV = {
  tableName: 'GRIDWIRE_TABLE_NAME',
  deliveryQueueUrl: 'GRIDWIRE_DELIVERY_QUEUE_URL',
  retryQueueUrl: 'GRIDWIRE_RETRY_QUEUE_URL',
  /** The queue of ended deliveries, on their way to the dead-letter step. */
  endedDeliveryQueueUrl: 'GRIDWIRE_ENDED_DELIVERY_QUEUE_URL',
  /** The queue of events on their way into a subscription's backlog (`store` jobs). */
  backlogQueueUrl: 'GRIDWIRE_BACKLOG_QUEUE_URL',
  orderedQueueUrl: 'GRIDWIRE_ORDERED_QUEUE_URL',
  /** The queue of publishes' archive copies, on their way into archive segments. */
  archiveQueueUrl: 'GRIDWIRE_ARCHIVE_QUEUE_URL',
  /** The bucket of topics' archives: every event an archived topic accepted, in segments. */
  archiveBucket: 'GRIDWIRE_ARCHIVE_BUCKET',
  deadLetterBucket: 'GRIDWIRE_DEAD_LETTER_BUCKET',
  /** The bucket of publishes whose fan-out is too large for one SQS message. */
  fanOutBucket: 'GRIDWIRE_FAN_OUT_BUCKET',
  /** The bucket of backlog segments: events kept while their endpoint is sick or their wait is long. */
  backlogBucket: 'GRIDWIRE_BACKLOG_BUCKET',
  /** Divides every delivery delay and TTL (local demos and tests only; always 1 on AWS). */
  timeScale: 'GRIDWIRE_TIME_SCALE',
  /** `true` lets subscriptions use `http://` endpoint URLs (local mode). */
  allowHttpEndpoints: 'GRIDWIRE_ALLOW_HTTP_ENDPOINTS',
  /**
   * Jobs waiting in the delivery queue from which the publish function refuses publishes with
   * 429 and `Retry-After`, until they are down to half (0: never). The construct's
   * `deliveryBacklogLimit` on AWS; not set locally, where the local stack's own gate refuses.
   */
  deliveryBacklogLimit: 'GRIDWIRE_DELIVERY_BACKLOG_LIMIT',
  /** Milliseconds a publish function keeps a topic (keys, subscription-list version). */
  topicCacheMs: 'GRIDWIRE_TOPIC_CACHE_MS',
  /** Seconds a delivery function keeps a subscription definition before reading it again. */
  subscriptionCacheSeconds: 'GRIDWIRE_SUBSCRIPTION_CACHE_SECONDS',
  /** How many webhook requests one delivery invocation has in flight at once. */
  deliveryConcurrency: 'GRIDWIRE_DELIVERY_CONCURRENCY',
  /** How many webhook requests a backlog's drain has in flight to its endpoint at most. */
  drainConcurrency: 'GRIDWIRE_DRAIN_CONCURRENCY',
  /** `false` stops routing events into backlogs (those holding events still drain). */
  backlog: 'GRIDWIRE_BACKLOG',
  /** Seconds an event's wait must exceed for it to be kept in the backlog rather than hop on the retry queue. */
  backlogAfterSeconds: 'GRIDWIRE_BACKLOG_AFTER_SECONDS',
  /** Milliseconds a delivery function trusts its copy of an endpoint's health (other workers' verdicts). */
  healthCacheMs: 'GRIDWIRE_HEALTH_CACHE_MS',
  /** Days failed-attempt history is kept in the table. */
  historyRetentionDays: 'GRIDWIRE_HISTORY_RETENTION_DAYS',
  /** Seconds after its publish by which an event is surely archived: later replays wait that long. */
  archiveLagSeconds: 'GRIDWIRE_ARCHIVE_LAG_SECONDS',
  /**
   * The API's public base URL: the base of validation URLs, handshake origins and topic `endpoint`
   * properties (never taken from a request). On AWS the `publicUrl` prop, else the HTTP API's own
   * URL; the local stack's `--public-url`, else its own address.
   */
  publicUrl: 'GRIDWIRE_PUBLIC_URL',
  /**
   * The base of topic `endpoint` properties when publishing has a front door of its own: on AWS
   * the publish function's URL, with `publishIngress: 'functionUrl'` and no `publicUrl` (the
   * HTTP API then serves no key publishing). Set on the management function only; default the
   * public URL.
   */
  publishUrl: 'GRIDWIRE_PUBLISH_URL',
  /**
   * The Secrets Manager secret whose text is the key that seals secret delivery header values
   * (AWS; set on the management and delivery functions only).
   */
  headerKeySecretArn: 'GRIDWIRE_HEADER_KEY_SECRET_ARN',
  /** The sealing key's text itself (the local stack only, from its data directory). */
  headerKey: 'GRIDWIRE_HEADER_KEY',
  /**
   * The Secrets Manager secret whose text is the key that seals topic and namespace access keys
   * in the table (AWS; set on the management and publish functions only).
   */
  topicKeySecretArn: 'GRIDWIRE_TOPIC_KEY_SECRET_ARN',
  /** That key's text itself (the local stack only, from its data directory). */
  topicKey: 'GRIDWIRE_TOPIC_KEY',
  /**
   * The Secrets Manager secret whose text is the key that signs console and portal session
   * tokens (AWS; set on the management function only, which may also replace it to revoke every
   * session).
   */
  sessionKeySecretArn: 'GRIDWIRE_SESSION_KEY_SECRET_ARN',
  /** The file holding that key (the local stack only, in its data directory). */
  sessionKeyFile: 'GRIDWIRE_SESSION_KEY_FILE',
  /**
   * The origins that may show the portal in a frame (CSP `frame-ancestors`, space-separated);
   * none by default. The `portalFrameAncestors` prop on AWS, `--portal-frame-ancestors` locally.
   */
  portalFrameAncestors: 'GRIDWIRE_PORTAL_FRAME_ANCESTORS',
  /** The portal's look (JSON `{"title", "logoUrl", "accentColor"}`, each optional): the `portalBranding` prop. */
  portalBranding: 'GRIDWIRE_PORTAL_BRANDING',
  /**
   * `true`: a subscription's endpoint must agree to receive (the validation handshake) before
   * events are matched to it. On by default on AWS; the local stack's `--validate-endpoints`.
   */
  validateEndpoints: 'GRIDWIRE_VALIDATE_ENDPOINTS',
  /**
   * `true`: endpoint URLs that point at loopback, private, link-local or other non-public
   * addresses are refused, when a subscription is written and again at every connection. On by
   * default on AWS; the local stack's `--block-private-endpoints`.
   */
  blockPrivateEndpoints: 'GRIDWIRE_BLOCK_PRIVATE_ENDPOINTS',
  /**
   * An HTTP proxy every request to an endpoint goes through (`http://[user:pass@]host:port`): a
   * CONNECT tunnel per connection, the SSRF guard still applied to the endpoint itself. The
   * `egress.proxyUrl` prop on AWS, `--egress-proxy` locally; absent: requests go direct.
   */
  egressProxyUrl: 'GRIDWIRE_EGRESS_PROXY_URL',
  /**
   * The fixed public addresses requests to endpoints leave from (comma-separated), shown by the
   * management API's `GET /status` and `gridwire status --api`: the Elastic IPs of the NAT
   * gateways the `egress` prop made (or named). Absent: no fixed addresses.
   */
  egressAddresses: 'GRIDWIRE_EGRESS_ADDRESSES',
  resourceDestinations: 'GRIDWIRE_RESOURCE_DESTINATIONS',
  /**
   * The queues topics take events from (`shared/publish/sources.ts`): a JSON array of
   * `{name, kind, queueArn, topic, format}`, set by the construct's `topic.addSource(...)` on the
   * publish and management functions, by `gridwire start --source` locally. Absent: none.
   */
  sources: 'GRIDWIRE_SOURCES',
  /**
   * The S3 buckets subscriptions may have their dead letters written to beside the stack's own
   * (`deadLetterDestination.properties.resourceId`): comma-separated bucket ARNs
   * (`arn:aws:s3:::<name>`, `*` standing for any run of characters of a name), an entry
   * `<bucket>|<role>` pairing a bucket with a role of another account to assume. The
   * `deadLetterBuckets` prop on AWS; every bucket of the emulator in the local stack.
   */
  deadLetterBuckets: 'GRIDWIRE_DEAD_LETTER_BUCKETS',
  /**
   * `true`: metrics about a subscription's events are counted per subscription (`Topic`,
   * `EventSubscriptionName`), each a billed custom metric; otherwise per topic. Off by default on
   * AWS (the `subscriptionMetrics` prop); always on in the local stack, whose `status` shows them.
   */
  subscriptionMetrics: 'GRIDWIRE_SUBSCRIPTION_METRICS',
  /**
   * Seconds a function may keep metric points across invocations before writing them (0: at the
   * end of every invocation). The `metricsFlushSeconds` prop on AWS; 0 in the local stack.
   */
  metricsFlushSeconds: 'GRIDWIRE_METRICS_FLUSH_SECONDS',
  /**
   * The CloudWatch namespace the functions write their metrics to (default `Gridwire`). The
   * `metricsNamespace` prop on AWS, which the pipeline's alarms and dashboard read too, so two
   * deployments in one account and region keep their metrics apart.
   */
  metricsNamespace: 'GRIDWIRE_METRICS_NAMESPACE',
} as const;

/**
 * Environment variables of the local stack's command line (`gridwire start`), beside `ENV`, so
 * every `GRIDWIRE_*` name is written once. Each stands in for the option of the same name; the
 * local stack then gives the handlers the `ENV` variables built from those options.
 * `--time-scale` and `--public-url` read `ENV.timeScale` and `ENV.publicUrl`, the same variables
 * the functions read.
 */
export const LOCAL_ENV = {
  /** `--port`: API port (0 picks a free one). */
  port: 'GRIDWIRE_PORT',
  /**
   * `--function-url-port`: port of the publish function's URL, the second front door (default
   * the API port + 1; 0 picks a free one).
   */
  functionUrlPort: 'GRIDWIRE_FUNCTION_URL_PORT',
  /** `--host`: interface the API and the emulators listen on. */
  host: 'GRIDWIRE_HOST',
  /** `--data-dir`: state, the admin token and `endpoints.json`. */
  dataDir: 'GRIDWIRE_DATA_DIR',
  /** `--admin-token`: a fixed admin token instead of the one generated into the data directory. */
  adminToken: 'GRIDWIRE_ADMIN_TOKEN',
  /** `--admin-token-file`: a file holding the fixed admin token (kept out of the process list). */
  adminTokenFile: 'GRIDWIRE_ADMIN_TOKEN_FILE',
  /** `--log-level`: handler log level. */
  logLevel: 'GRIDWIRE_LOG_LEVEL',
  /** `--delivery-batching-window`: seconds the local delivery queue's poller gathers messages. */
  deliveryBatchingWindow: 'GRIDWIRE_DELIVERY_BATCHING_WINDOW',
  /** `--delivery-batch-size`: messages per local delivery invocation at most. */
  deliveryBatchSize: 'GRIDWIRE_DELIVERY_BATCH_SIZE',
  /** Internal: how the local stack passes its settings (JSON) to the emulator child process. */
  emulatorOptions: 'GRIDWIRE_EMULATOR_OPTIONS',
} as const;

export type QueueKey = 'delivery' | 'retry' | 'endedDelivery' | 'backlog' | 'ordered' | 'archive';

export interface QueueDefinition {
  /** CDK construct id. */
  readonly id: string;
  /** Queue name in the local stack (on AWS, CloudFormation generates names). */
  readonly localName: string;
  /** Environment variable carrying the queue URL to the functions. */
  readonly urlEnv: string;
  /** Must be at least the consumer's timeout; AWS recommends six times it. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the redrive queue. */
  readonly maxReceiveCount: number;
  /**
   * A FIFO queue (names end in `.fifo`, its redrive queue is FIFO too): messages carry a group
   * and a de-duplication id, never a delay of their own; a group's messages are received one
   * after another, never while an earlier one is in flight. Its consumer takes no batching window.
   */
  readonly fifo?: true;
  /** The redrive queue that catches messages the consumer keeps failing on. */
  readonly redrive: { readonly id: string; readonly localName: string; readonly retentionDays: number };
  /** Event source mapping settings of the consuming function. */
  readonly consumer: {
    readonly batchSize: number;
    /** Upper bound on concurrent invocations for this queue (AWS minimum is 2). */
    readonly maxConcurrency: number;
    /** Seconds Lambda gathers messages before invoking (0 = at once; at most 300). */
    readonly batchingWindowSeconds: number;
    /** The function that consumes the queue. */
    readonly function: FunctionKey;
  };
}

/**
 * Delivery function timeout: 85 s in which requests may start, the 3 minutes each request that
 * times out is listened to from its start (a late success removes its event's next retry, as the
 * original's delivery page says), and a 5 s margin to record an answer and queue follow-ups
 * (`attemptDeadline` in `functions/delivery.ts`). An invocation with no timed-out request ends
 * when its work is done; only one that listens runs on, at most 265 s. The queues' visibility
 * timeout is six times this, per AWS guidance for SQS event sources, so a batch still being worked
 * on is never handed to a second consumer.
 */
export const DELIVERY_FUNCTION_TIMEOUT_SECONDS = 270;

/** Dead-letter function timeout (it writes grouped dead letters; no webhook calls). */
export const DEAD_LETTER_FUNCTION_TIMEOUT_SECONDS = 60;

/**
 * Seconds the backlog queue's consumer gathers `store` jobs before it runs (the `backlogWindowSeconds`
 * prop on AWS): the longer, the more events share one segment and its writes.
 */
export const BACKLOG_WINDOW_SECONDS = 60;

/** Seconds the archive queue's consumer gathers copies before writing: fewer, larger segments. */
export const ARCHIVE_WINDOW_SECONDS = 60;

export const QUEUES: Readonly<Record<QueueKey, QueueDefinition>> = {
  /**
   * Fresh deliveries, written by the publish function. Its consumer takes what one receive returns
   * at once by default, or gathers them for a window (`DELIVERY_BATCHING_DEFAULTS`, the
   * `deliveryBatchingWindow` prop), which its visibility timeout then adds.
   */
  delivery: {
    id: 'DeliveryQueue',
    localName: 'gridwire-delivery',
    urlEnv: ENV.deliveryQueueUrl,
    visibilityTimeoutSeconds: visibilityTimeoutOf(
      DELIVERY_FUNCTION_TIMEOUT_SECONDS,
      DELIVERY_BATCHING_DEFAULTS.seconds,
    ),
    maxReceiveCount: 5,
    redrive: { id: 'DeliveryRedriveQueue', localName: 'gridwire-delivery-redrive', retentionDays: 14 },
    // The batch size and window are the defaults of `deliveryBatchingWindow`.
    consumer: {
      batchSize: DELIVERY_BATCHING_DEFAULTS.batchSize,
      maxConcurrency: 50,
      batchingWindowSeconds: DELIVERY_BATCHING_DEFAULTS.seconds,
      function: 'delivery',
    },
  },
  /**
   * Retries and long waits: messages sit here with a delay (at most 900 s per hop). Kept apart
   * from fresh deliveries so a sick endpoint's backlog never delays healthy traffic.
   */
  retry: {
    id: 'RetryQueue',
    localName: 'gridwire-retry',
    urlEnv: ENV.retryQueueUrl,
    visibilityTimeoutSeconds: DELIVERY_FUNCTION_TIMEOUT_SECONDS * 6,
    maxReceiveCount: 5,
    redrive: { id: 'RetryRedriveQueue', localName: 'gridwire-retry-redrive', retentionDays: 14 },
    consumer: { batchSize: 10, maxConcurrency: 20, batchingWindowSeconds: 0, function: 'delivery' },
  },
  /**
   * Deliveries that ended without success, on their way to the dead-letter step. Its consumer
   * gathers messages for up to 300 s, so dead letters are written in few, larger groups.
   */
  endedDelivery: {
    id: 'EndedDeliveryQueue',
    localName: 'gridwire-ended',
    urlEnv: ENV.endedDeliveryQueueUrl,
    visibilityTimeoutSeconds: DEAD_LETTER_FUNCTION_TIMEOUT_SECONDS * 6 + 300,
    maxReceiveCount: 5,
    redrive: { id: 'EndedDeliveryRedriveQueue', localName: 'gridwire-ended-redrive', retentionDays: 14 },
    consumer: { batchSize: 100, maxConcurrency: 2, batchingWindowSeconds: 300, function: 'deadLetter' },
  },
  /**
   * Events on their way into a subscription's backlog (`store` jobs), for the delivery function's
   * store step. Its consumer gathers many small jobs per invocation (up to Lambda's batch and
   * payload limits), so one segment and its few writes serve many events; two invocations at
   * most, since each endpoint's events are best stored together. Nothing is sent here yet.
   */
  backlog: {
    id: 'BacklogQueue',
    localName: 'gridwire-backlog',
    urlEnv: ENV.backlogQueueUrl,
    visibilityTimeoutSeconds: visibilityTimeoutOf(DELIVERY_FUNCTION_TIMEOUT_SECONDS, BACKLOG_WINDOW_SECONDS),
    maxReceiveCount: 5,
    redrive: { id: 'BacklogRedriveQueue', localName: 'gridwire-backlog-redrive', retentionDays: 14 },
    consumer: {
      batchSize: LAMBDA_SQS_LIMITS.maxBatchSize,
      maxConcurrency: 2,
      batchingWindowSeconds: BACKLOG_WINDOW_SECONDS,
      function: 'delivery',
    },
  },
  /**
   * Events of subscriptions with ordered delivery, one message each, in a group per subscription
   * and key (`orderedGroupId`): SQS hands a group's messages out in the order they were sent,
   * and the next only once the one before is deleted, so a key's events are attempted one at a
   * time, in order. A retry is the same message made invisible until it is due
   * (ChangeMessageVisibility, at most 12 hours a time), so the group waits for it; its attempts so
   * far are kept in the table. High-throughput FIFO (de-duplication and throughput per group).
   * Every retry and hold is a receive: the redrive is a backstop at SQS's highest count, the
   * delivery function ends events by their own limits long before it.
   */
  ordered: {
    id: 'OrderedQueue',
    localName: 'gridwire-ordered.fifo',
    urlEnv: ENV.orderedQueueUrl,
    visibilityTimeoutSeconds: DELIVERY_FUNCTION_TIMEOUT_SECONDS * 6,
    maxReceiveCount: 1000,
    fifo: true,
    redrive: { id: 'OrderedRedriveQueue', localName: 'gridwire-ordered-redrive.fifo', retentionDays: 14 },
    // Lambda takes at most 10 messages a batch from a FIFO queue, and no batching window.
    consumer: { batchSize: 10, maxConcurrency: 50, batchingWindowSeconds: 0, function: 'delivery' },
  },
  /**
   * Archive copies of publishes (`archive` jobs), forwarded by the delivery function from the
   * publishes' own messages, one message per topic and batch. Its consumer gathers them for a
   * minute and writes each topic's copies as a few segments (`archive/writer.ts`); a copy it
   * cannot write comes back, and after five receives is parked, where the archive's alarm sees it.
   */
  archive: {
    id: 'ArchiveQueue',
    localName: 'gridwire-archive',
    urlEnv: ENV.archiveQueueUrl,
    visibilityTimeoutSeconds: visibilityTimeoutOf(
      DEAD_LETTER_FUNCTION_TIMEOUT_SECONDS,
      ARCHIVE_WINDOW_SECONDS,
    ),
    maxReceiveCount: 5,
    redrive: { id: 'ArchiveRedriveQueue', localName: 'gridwire-archive-redrive', retentionDays: 14 },
    consumer: {
      batchSize: 1000,
      maxConcurrency: 2,
      batchingWindowSeconds: ARCHIVE_WINDOW_SECONDS,
      function: 'deadLetter',
    },
  },
};

/**
 * Names of the stack outputs carrying a queue's URL and its redrive queue's URL, after the
 * pipeline's output prefix (`''` for the first pipeline of a stack, see the construct's
 * `outputPrefix`). The CDK construct writes them; `gridwire parked --stack [--pipeline]` reads them.
 */
export function queueOutputNames(
  key: QueueKey,
  prefix = '',
): { readonly url: string; readonly redriveUrl: string } {
  const queue = QUEUES[key];
  return { url: `${prefix}${queue.id}Url`, redriveUrl: `${prefix}${queue.redrive.id}Url` };
}

/**
 * Names of the pipeline's other stack outputs: the API's base URL, the state table's name and
 * the dead-letter bucket's name, after the same prefix as the queue outputs. Fixed, like them, so
 * the guides and scripts can name them (`ApiUrl`, not the construct path and hash CDK would
 * give).
 */
export function pipelineOutputNames(prefix = ''): {
  readonly apiUrl: string;
  readonly tableName: string;
  readonly deadLetterBucketName: string;
  /**
   * The public addresses requests to endpoints leave from, comma-separated (`ENV.egressAddresses`);
   * only with the `egress` prop's fixed addresses.
   */
  readonly egressAddresses: string;
} {
  return {
    apiUrl: `${prefix}ApiUrl`,
    tableName: `${prefix}TableName`,
    deadLetterBucketName: `${prefix}DeadLetterBucketName`,
    egressAddresses: `${prefix}EgressAddresses`,
  };
}

/**
 * What an output prefix may be: letters and digits (CloudFormation output names are
 * alphanumeric), at most 64 of them.
 */
export const OUTPUT_PREFIX_PATTERN = /^[A-Za-z0-9]{1,64}$/;

/** SQS's message size limit (1 MiB since 2025) and the largest delay one message can carry. */
export const SQS_LIMITS = { maxMessageBytes: 1_048_576, maxDelaySeconds: 900, maxBatchEntries: 10 } as const;

/** Single-table layout. Item kinds and key formats live in `shared/storage/table.ts`. */
export const TABLE = {
  id: 'StateTable',
  localName: 'gridwire-state',
  nameEnv: ENV.tableName,
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes expired attempt-history items, idle backlogs and expired subscriptions. */
  ttlAttribute: 'expiresAt',
  /** Sparse index over topic items, for listing topics without a scan. */
  topicsIndex: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /**
   * What the partition key of every accepted event id begins with: the only items the publish
   * function writes (its role's condition on `dynamodb:LeadingKeys`).
   */
  acceptedIdPrefix: 'ACCEPTED#',
} as const;

export const BUCKET = {
  id: 'DeadLetterBucket',
  localName: 'gridwire-dead-letters',
  nameEnv: ENV.deadLetterBucket,
} as const;

/**
 * Publishes whose fan-out is too large for one SQS message: stored here, then named by the one
 * message (see `shared/storage/fan-out-bucket.ts`). Written by the publish function, read by the
 * delivery function; objects expire on their own.
 */
export const FAN_OUT_BUCKET = {
  id: 'FanOutBucket',
  localName: 'gridwire-fan-outs',
  nameEnv: ENV.fanOutBucket,
  /**
   * Days a stored fan-out is kept (the bucket's lifecycle rule): more than the 14 days a redrive
   * queue keeps a parked message, so a message moved back still finds its body.
   */
  retentionDays: 15,
} as const;

/**
 * Backlog segments: the events of a subscription kept while its endpoint is sick or their next
 * attempt is far away, in objects of many events each (see `shared/storage/backlog.ts`), indexed
 * in the table. Read and written by the delivery function.
 */
export const BACKLOG_BUCKET = {
  id: 'BacklogBucket',
  localName: 'gridwire-backlog',
  nameEnv: ENV.backlogBucket,
  /** The prefix of every segment's key. */
  prefix: 'backlog/',
  /**
   * Days an object is kept at most (the bucket's lifecycle rule): a last resort for segments no
   * index item names any more, longer than the longest time to live (7 days).
   */
  retentionDays: 15,
} as const;

/**
 * Topics' archives: every event a topic with `archive` accepted, as it was delivered, in gzipped
 * segments of many events (`shared/storage/archive.ts`), under the topic and the hour the events
 * were published in. Written by the dead-letter function (the archive queue's consumer), read by
 * replays; a daily sweep removes what is older than each topic's retention, and a lifecycle rule
 * whatever is older than the longest retention.
 */
export const ARCHIVE_BUCKET = {
  id: 'ArchiveBucket',
  localName: 'gridwire-archive',
  nameEnv: ENV.archiveBucket,
  /** The prefix of every segment's key. */
  prefix: 'archive/',
  /** Days an object is kept at most (the lifecycle rule): one more than the longest retention. */
  retentionDays: 366,
} as const;

export type FunctionKey = 'publish' | 'management' | 'delivery' | 'deadLetter';

export interface FunctionDefinition {
  readonly id: string;
  /** Handler file, relative to the project root. */
  readonly entry: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly description: string;
}

export const FUNCTIONS: Readonly<Record<FunctionKey, FunctionDefinition>> = {
  publish: {
    id: 'PublishFunction',
    entry: 'functions/publish.ts',
    memoryMb: 512,
    timeoutSeconds: 29,
    description: 'Accepts published events and queues one delivery job per matching subscription',
  },
  management: {
    id: 'ManagementFunction',
    entry: 'functions/management.ts',
    memoryMb: 256,
    timeoutSeconds: 29,
    description: 'Topics, keys and event subscriptions (admin API)',
  },
  delivery: {
    id: 'DeliveryFunction',
    entry: 'functions/delivery.ts',
    memoryMb: 512,
    timeoutSeconds: DELIVERY_FUNCTION_TIMEOUT_SECONDS,
    description: 'Pushes queued events to webhooks and schedules retries',
  },
  deadLetter: {
    id: 'DeadLetterFunction',
    entry: 'functions/dead-letter.ts',
    memoryMb: 256,
    timeoutSeconds: DEAD_LETTER_FUNCTION_TIMEOUT_SECONDS,
    description: 'Writes dead letters (deliveries that ended without success) and archive segments',
  },
};

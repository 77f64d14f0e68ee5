/**
 * Gridwire's domain words as types: events, topics, subscriptions, delivery items and attempts.
 * The shapes the table stores (topic, namespace, namespace topic, subscription, endpoint health)
 * are zod schemas, their types derived from them: the storage items extend these schemas, so a
 * field added here is read back from the table, never dropped on the way.
 */
import { z } from 'zod';
import { destinationSchema } from './destination';

/** Delivery outcomes, named as the original service reports them (`lastDeliveryOutcome`). */
export const DELIVERY_OUTCOMES = [
  'NotFound',
  'Disabled',
  'Full',
  'Unauthorized',
  'BadRequest',
  'TimedOut',
  'Busy',
  'PayloadTooLarge',
  'Probation',
  'Canceled',
  'Aborted',
  'SocketError',
  'ResolutionError',
  'Delivering',
  'SessionQueueNotSupported',
  'Forbidden',
  'InvalidAzureFunctionDestination',
  /** An HTTP answer the list above has no name for (500, 502, 409, a redirect...). */
  'GenericError',
] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** Why an event stopped being retried. */
export const DEAD_LETTER_REASONS = [
  'MaxDeliveryAttemptsExceeded',
  'TimeToLiveExceeded',
  /** The endpoint gave an answer that retrying can't change (400, 401, 403, 413 for webhooks). */
  'NonRetriableOutcome',
  /** The endpoint answered 410 Gone: its pending deliveries end until an admin enables it again. */
  'EndpointDisabled',
] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** Why events were discarded without reaching a dead-letter destination. */
export const DROP_REASONS = [
  /** Dead-letter reason applies but the subscription has no dead-letter destination. */
  ...DEAD_LETTER_REASONS,
  /** The subscription (or its topic) was deleted while events were pending. */
  'SubscriptionDeleted',
  /** The dead-letter location could not be written for the whole retention limit (4 hours). */
  'DeadLetterStoreUnavailable',
  /** The dead-letter location does not exist (its bucket is gone): dropped at the first write. */
  'DeadLetterDestinationNotFound',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** Input schemas a topic can accept. */
export const INPUT_SCHEMAS = ['EventGridSchema', 'CloudEventSchemaV1_0', 'CustomEventSchema'] as const;
export type InputSchema = (typeof INPUT_SCHEMAS)[number];

/** Schemas a subscription can deliver in (which ones depends on its topic's input schema). */
export const EVENT_DELIVERY_SCHEMAS = [
  'EventGridSchema',
  'CloudEventSchemaV1_0',
  'CustomInputSchema',
] as const;
export type EventDeliverySchema = (typeof EVENT_DELIVERY_SCHEMAS)[number];

/** Where one Event Grid field of a custom-schema event comes from. */
export const mappedFieldSchema = z.object({
  /** A top-level member of the published event. */
  sourceField: z.string().optional(),
  /** Used when the event has no usable value in `sourceField` (or none is mapped). */
  defaultValue: z.string().optional(),
});
export type MappedField = z.infer<typeof mappedFieldSchema>;

const sourceFieldSchema = z.object({ sourceField: z.string() });

/**
 * How events of a `CustomEventSchema` topic become Event Grid events (the original's `Json`
 * input schema mapping). `id`, `topic` and `eventTime` come only from a source field; when unmapped
 * (or absent from an event) the id is generated and the time is the publish time.
 */
export const inputSchemaMappingSchema = z.object({
  id: sourceFieldSchema.optional(),
  topic: sourceFieldSchema.optional(),
  eventTime: sourceFieldSchema.optional(),
  subject: mappedFieldSchema.optional(),
  eventType: mappedFieldSchema.optional(),
  dataVersion: mappedFieldSchema.optional(),
});
export type InputSchemaMapping = z.infer<typeof inputSchemaMappingSchema>;

/** The Event Grid fields a mapping can fill, in the order the management API shows them. */
export const MAPPED_FIELDS = ['id', 'topic', 'eventTime', 'subject', 'eventType', 'dataVersion'] as const;
export type MappedFieldName = (typeof MAPPED_FIELDS)[number];

/** The two access keys of a topic or a namespace (either one is accepted). */
export const topicKeysSchema = z.object({ key1: z.string(), key2: z.string() });
export type TopicKeys = z.infer<typeof topicKeysSchema>;

const tagsSchema = z.record(z.string(), z.string());

/**
 * How long a topic remembers the ids of the events it accepted, to answer a publisher's repeat
 * without delivering it again: 0 (off, the default) to 1440 minutes, on classic and namespace topics.
 */
export const DEDUPLICATION_WINDOW_IN_MINUTES = { min: 0, max: 1440, default: 0 } as const;

/** A topic's de-duplication window in milliseconds; 0 when it has none. */
export const deduplicationWindowMs = (topic: { deduplicationWindowInMinutes?: number | undefined }): number =>
  (topic.deduplicationWindowInMinutes ?? 0) * 60_000;

/**
 * How long a topic's archive keeps the events it accepted, in days (`archive.retentionInDays`), on
 * classic and namespace topics; a namespace topic's default is its `eventRetentionInDays`.
 */
export const ARCHIVE_RETENTION_IN_DAYS = { min: 1, max: 365 } as const;

/** A topic's archive: every event it accepts kept as published, for this many days (`storage/archive.ts`). */
export const topicArchiveSchema = z.object({ retentionInDays: z.number() });
export type TopicArchive = z.infer<typeof topicArchiveSchema>;

/**
 * What a topic that validates its events does with an event whose type its catalog does not
 * list: `allow` (the default) lets it through, `reject` refuses the publish.
 */
export const UNKNOWN_EVENT_TYPES = ['allow', 'reject'] as const;
export type UnknownEventTypes = (typeof UNKNOWN_EVENT_TYPES)[number];

/**
 * A topic's event validation settings and the version of its event catalog, on classic and
 * namespace topics alike (`event-types.ts`). Absent: off, `allow`, version 0.
 */
const eventValidationFields = {
  /** Events whose type has a schema in the topic's catalog must match it; absent: false. */
  validateEvents: z.boolean().optional(),
  /** With `validateEvents`: what an event of a type the catalog does not list gets; absent: `allow`. */
  unknownEventTypes: z.enum(UNKNOWN_EVENT_TYPES).optional(),
  /**
   * Bumped on every change of the topic's event catalog; publishers compile the catalog's
   * schemas again when it moves. Absent: 0.
   */
  catalogVersion: z.number().optional(),
};

/** Whether a topic validates its events, and how it treats types its catalog does not list. */
export interface EventValidationSettings {
  validateEvents: boolean;
  unknownEventTypes: UnknownEventTypes;
}

/** A topic's event validation settings, absent ones at their defaults. */
export const eventValidationOf = (topic: {
  validateEvents?: boolean | undefined;
  unknownEventTypes?: UnknownEventTypes | undefined;
}): EventValidationSettings => ({
  validateEvents: topic.validateEvents ?? false,
  unknownEventTypes: topic.unknownEventTypes ?? 'allow',
});

export const topicSchema = z.object({
  name: z.string(),
  inputSchema: z.enum(INPUT_SCHEMAS),
  /** Present exactly when `inputSchema` is `CustomEventSchema`. */
  inputSchemaMapping: inputSchemaMappingSchema.optional(),
  keys: topicKeysSchema,
  tags: tagsSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Bumped on every subscription change; publishers re-read the subscription list when it moves. */
  subscriptionsVersion: z.number(),
  /** Minutes a repeated event id is recognised (`DEDUPLICATION_WINDOW_IN_MINUTES`); absent or 0: off. */
  deduplicationWindowInMinutes: z.number().optional(),
  /** Its archive (`ARCHIVE_RETENTION_IN_DAYS`); absent: off. */
  archive: topicArchiveSchema.optional(),
  ...eventValidationFields,
});
export type Topic = z.infer<typeof topicSchema>;

/** A namespace: a group of namespace topics sharing two access keys. */
export const namespaceSchema = z.object({
  name: z.string(),
  keys: topicKeysSchema,
  tags: tagsSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Namespace = z.infer<typeof namespaceSchema>;

/**
 * A topic of a namespace. Its subscriptions name it `<namespace>/<topic>` (see
 * `namespaceTopicId` in `names.ts`) and deliver with the `namespace` profile.
 */
export const namespaceTopicSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  /** How long events are kept for its subscriptions, 1..7 days; no subscription's time to live exceeds it. */
  eventRetentionInDays: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Bumped on every subscription change, like a classic topic's. */
  subscriptionsVersion: z.number(),
  /** As a classic topic's: minutes a repeated event id is recognised; absent or 0: off. */
  deduplicationWindowInMinutes: z.number().optional(),
  /** As a classic topic's: its archive; absent: off. */
  archive: topicArchiveSchema.optional(),
  ...eventValidationFields,
});
export type NamespaceTopic = z.infer<typeof namespaceTopicSchema>;

/** A retry policy as the management API takes and shows it. */
export const retryPolicySchema = z.object({
  maxDeliveryAttempts: z.number(),
  eventTimeToLiveInMinutes: z.number(),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/**
 * A retry policy as the engine applies it, normalised once when a subscription is parsed (from an
 * API body or from the table). `ttlMs` is real time; a delivery profile's `timeScale` shrinks it.
 * `scheduleMs`, when set, is the subscription's own schedule (real time, its last step repeating)
 * in place of its profile's; the profile's floors still raise a step.
 */
export const retryLimitsSchema = z.object({
  maxAttempts: z.number(),
  ttlMs: z.number(),
  scheduleMs: z.array(z.number()).optional(),
});
export type RetryLimits = z.infer<typeof retryLimitsSchema>;

export const retryLimitsOf = (policy: RetryPolicy): RetryLimits => ({
  maxAttempts: policy.maxDeliveryAttempts,
  ttlMs: policy.eventTimeToLiveInMinutes * 60_000,
});

export const retryPolicyOf = (limits: RetryLimits): RetryPolicy => ({
  maxDeliveryAttempts: limits.maxAttempts,
  eventTimeToLiveInMinutes: limits.ttlMs / 60_000,
});

/**
 * Delivery profiles by name: the schedule and limits a subscription follows. Classic topics use
 * `topic`, push subscriptions of namespace topics `namespace`; the profiles themselves (pure
 * data) are in `shared/delivery/rules/profiles.ts`.
 */
export const DELIVERY_PROFILE_NAMES = ['topic', 'namespace'] as const;
export type DeliveryProfileName = (typeof DELIVERY_PROFILE_NAMES)[number];

// Where a subscription's events go (webhook or AWS resource), with its headers, signing and auth.
export * from './destination';

export interface SubscriptionFilter {
  /** Exact event type names; `undefined` matches every type. */
  includedEventTypes?: string[];
  /** The subject must start with this (empty or absent: any subject). */
  subjectBeginsWith?: string;
  /** The subject must end with this (empty or absent: any subject). */
  subjectEndsWith?: string;
  /** Whether `subjectBeginsWith`/`subjectEndsWith` compare case; `false` when absent. */
  isSubjectCaseSensitive?: boolean;
  /** Whether an advanced filter looks into an array value (any element may match); `false` when absent. */
  enableAdvancedFilteringOnArrays?: boolean;
  /** Conditions on the event's members, all of which must hold. */
  advancedFilters?: AdvancedFilter[];
}

/** Advanced filter operators, by the shape of what they compare with. */
export const ADVANCED_FILTER_OPERATORS = {
  /** `values`: numbers. */
  numberSet: ['NumberIn', 'NumberNotIn'],
  /** `value`: one number. */
  numberCompare: [
    'NumberLessThan',
    'NumberGreaterThan',
    'NumberLessThanOrEquals',
    'NumberGreaterThanOrEquals',
  ],
  /** `values`: `[min, max]` pairs, both ends included. */
  numberRange: ['NumberInRange', 'NumberNotInRange'],
  /** `value`: a boolean. */
  bool: ['BoolEquals'],
  /** `values`: strings, compared ignoring case. */
  string: [
    'StringContains',
    'StringNotContains',
    'StringBeginsWith',
    'StringNotBeginsWith',
    'StringEndsWith',
    'StringNotEndsWith',
    'StringIn',
    'StringNotIn',
  ],
  /** No value. */
  presence: ['IsNullOrUndefined', 'IsNotNull'],
} as const;

type Operators = typeof ADVANCED_FILTER_OPERATORS;
export type AdvancedFilterOperator = Operators[keyof Operators][number];

/**
 * One advanced filter, shaped as the original's ARM API writes it. `key` is a dotted path into the
 * event as delivered (`data.color`, `subject`; CloudEvents attributes such as `source`).
 */
export type AdvancedFilter =
  | { operatorType: Operators['numberSet'][number]; key: string; values: number[] }
  | { operatorType: Operators['numberCompare'][number]; key: string; value: number }
  | { operatorType: Operators['numberRange'][number]; key: string; values: [number, number][] }
  | { operatorType: Operators['bool'][number]; key: string; value: boolean }
  | { operatorType: Operators['string'][number]; key: string; values: string[] }
  | { operatorType: Operators['presence'][number]; key: string };

/** Dead-letter record formats: by delivery schema for classic topics, an envelope for namespace topics. */
export const DEAD_LETTER_FORMATS = [
  'EventGridSchema',
  'CustomInputSchema',
  'CloudEventSchemaV1_0',
  'namespace',
] as const;
export type DeadLetterFormat = (typeof DEAD_LETTER_FORMATS)[number];

/**
 * Where a subscription's dead letters go: a container, which is a top-level key prefix in a
 * dead-letter bucket (the original's storage container); the bucket is the stack's own unless
 * `bucket` names another (the original's storage account, which the subscriber provides).
 */
export const deadLetterDestinationSchema = z.object({
  container: z.string(),
  /**
   * The storage resource id as given: an S3 bucket ARN (`arn:aws:s3:::<bucket>`, then `bucket`
   * is its name), or any other id, kept and shown for familiarity (the bucket is the stack's).
   */
  resourceId: z.string().optional(),
  /** The bucket the dead letters are written to, when not the stack's own. */
  bucket: z.string().optional(),
  /** A role to assume to write to `bucket` (a bucket in another account). */
  roleArn: z.string().optional(),
  /** The external id sent when `roleArn` is assumed. */
  externalId: z.string().optional(),
});
export type DeadLetterDestination = z.infer<typeof deadLetterDestinationSchema>;

/**
 * A dead-letter blob's replay marker as stored beside it (`<key>.replayed`): when the blob was
 * last replayed (ISO time) and the dead-letter reasons whose records were replayed, over all its
 * replays. Reasons are kept as written, so a marker written by a later version still reads.
 */
export const replayMarkerSchema = z.object({ at: z.string(), reasons: z.array(z.string()) });
export type ReplayMarkerDocument = z.infer<typeof replayMarkerSchema>;

/**
 * Whether a subscription's endpoint agreed to receive (the validation handshake). Created when a
 * subscription gets a new endpoint while validation is on; the rules that read it are in
 * `shared/delivery/rules/handshake.ts`.
 */
export const endpointValidationSchema = z.object({
  /** The endpoint URL being validated; another URL needs its own validation. */
  endpointUrl: z.string(),
  /** The secret the endpoint echoes (`validationCode`) or that the validation URL carries. */
  code: z.string(),
  /** Epoch ms when this validation began. */
  startedAt: z.number(),
  /** Epoch ms after which the validation URL no longer validates (5 minutes after the start). */
  expiresAt: z.number(),
  /** Epoch ms when the endpoint agreed; absent while it has not. */
  validatedAt: z.number().optional(),
  /** Why the automatic handshake did not validate (the last one sent). */
  handshakeError: z.string().optional(),
});
export type EndpointValidation = z.infer<typeof endpointValidationSchema>;

const filterObjectSchema = z.looseObject({ includedEventTypes: z.array(z.string()).optional() });

/**
 * A subscription's filter, held whole. The filter rules (`validateFilter`) check it when it is
 * saved, so a read asks only for an object, and keeps every member it finds: none is dropped,
 * whatever the filter grows.
 */
export const subscriptionFilterSchema = z.custom<SubscriptionFilter>(
  (value) => filterObjectSchema.safeParse(value).success,
  'must be a filter object',
);

/** A subscription's provisioning state, as the management API shows it. */
export const PROVISIONING_STATES = ['Succeeded', 'AwaitingManualAction', 'Failed'] as const;
export type ProvisioningState = (typeof PROVISIONING_STATES)[number];

/** How long an endpoint may fail every attempt before its subscription is disabled, unless it says: 5 days. */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/** What a subscription's message log keeps: failed attempts and what follows them, or every attempt. */
export const DELIVERY_LOG_MODES = ['Failures', 'All'] as const;
export type DeliveryLogMode = (typeof DELIVERY_LOG_MODES)[number];

export const subscriptionSchema = z.object({
  topic: z.string(),
  name: z.string(),
  /**
   * Set when the subscription is created and kept by every change: a subscription deleted and
   * created again under the same name is another subscription, and jobs of the old one are
   * dropped rather than delivered to the new one. Absent on items written before it existed.
   */
  uid: z.string().optional(),
  /**
   * Grows with every change of the subscription (also across a delete and re-create). Delivery
   * jobs carry the version they were made for; a cached definition older than that is re-read.
   */
  version: z.number(),
  /** The schedule and limits this subscription's deliveries follow. */
  deliveryProfile: z.enum(DELIVERY_PROFILE_NAMES),
  destination: destinationSchema,
  filter: subscriptionFilterSchema,
  retry: retryLimitsSchema,
  /** Absent: ended deliveries are dropped (counted and logged). */
  deadLetter: deadLetterDestinationSchema.optional(),
  /** How events are delivered (and dead-lettered); it follows the topic's input schema. */
  eventDeliverySchema: z.enum(EVENT_DELIVERY_SCHEMAS),
  labels: z.array(z.string()),
  /** What the message log keeps (`shared/storage/attempt-history.ts`); absent: `Failures`. */
  deliveryLog: z.enum(DELIVERY_LOG_MODES).optional(),
  /**
   * How long (real time) the endpoint may fail every attempt before the subscription is disabled
   * with a notice (`Gridwire.SubscriptionDisabled`); 0: never. Absent: {@link DEFAULT_DISABLE_AFTER_MS}.
   */
  disableAfterFailingForMs: z.number().optional(),
  /** Absent: the endpoint needs no validation (validation off when it was set, or written before it existed). */
  validation: endpointValidationSchema.optional(),
  /**
   * `expirationTimeUtc` as an ISO time (`toISOString`): from then on the subscription receives no
   * events and is deleted ({@link subscriptionExpired}). Absent: it never expires.
   */
  expirationTime: z.string().optional(),
  /**
   * Events with the same key are delivered one at a time, in the order they were accepted
   * (`shared/delivery/ordered.ts`). Absent: no order is kept.
   */
  orderedDelivery: z.object({ key: z.string() }).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

/** The key an ordered subscription's events are kept in order by: `subject` or a dotted path into the event. */
export const ORDERED_KEY_RULE =
  '"subject", or a dotted path of 1 to 8 member names into the event as delivered (such as "data.orderId")';

/** Whether `path` is an ordered key ({@link ORDERED_KEY_RULE}): 1 to 8 non-empty names of at most 256 characters. */
export const isOrderedKeyPath = (path: string): boolean => {
  const names = path.split('.');
  return (
    names.length >= 1 && names.length <= 8 && names.every((name) => name.length >= 1 && name.length <= 256)
  );
};

/**
 * Whether a subscription has expired at `nowMs`: its expiration time has come. From that moment
 * it is read as deleted everywhere: publishers queue nothing for it, delivery workers drop its
 * queued events (`SubscriptionDeleted`) and the management API deletes it when it meets it.
 */
export const subscriptionExpired = (
  subscription: Pick<Subscription, 'expirationTime'>,
  nowMs: number,
): boolean => subscription.expirationTime !== undefined && Date.parse(subscription.expirationTime) <= nowMs;

/**
 * A subscription's next version: above its previous one, and at least the change's time in ms, so
 * versions keep growing across a delete and re-create (whose previous version is gone). Management
 * changes are answered only after the propagation delay, so clocks would have to be that far
 * apart to break the order.
 */
export const nextSubscriptionVersion = (existing: Pick<Subscription, 'version'> | undefined, nowMs: number) =>
  Math.max((existing?.version ?? 0) + 1, nowMs);

/**
 * Gridwire's domain words as types: events, topics, subscriptions, delivery items and attempts.
 */

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
export const isDeliveryOutcome = (value: unknown): value is DeliveryOutcome =>
  typeof value === 'string' && (DELIVERY_OUTCOMES as readonly string[]).includes(value);

/** Why an event stopped being retried. */
export const DEAD_LETTER_REASONS = [
  'MaxDeliveryAttemptsExceeded',
  'TimeToLiveExceeded',
  /** The endpoint gave an answer that retrying can't change (400, 401, 403, 413 for webhooks). */
  'NonRetriableOutcome',
] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** Why events were discarded without reaching a dead-letter destination. */
export const DROP_REASONS = [
  /** Dead-letter reason applies but the subscription has no dead-letter destination. */
  ...DEAD_LETTER_REASONS,
  /** The subscription (or its topic) was deleted while events were pending. */
  'SubscriptionDeleted',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** Input schemas a topic can accept. Only Event Grid schema is accepted so far. */
export const INPUT_SCHEMAS = ['EventGridSchema', 'CloudEventSchemaV1_0', 'CustomEventSchema'] as const;
export type InputSchema = (typeof INPUT_SCHEMAS)[number];

/** An event in the Event Grid schema, as stored and delivered (after the service stamped it). */
export interface EventGridEvent {
  id: string;
  topic: string;
  subject: string;
  eventType: string;
  eventTime: string;
  data?: unknown;
  dataVersion: string;
  metadataVersion: '1';
  [extra: string]: unknown;
}

export interface TopicKeys {
  key1: string;
  key2: string;
}

export interface Topic {
  name: string;
  inputSchema: InputSchema;
  keys: TopicKeys;
  tags: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  /** Bumped on every subscription change; publishers re-read the subscription list when it moves. */
  subscriptionsVersion: number;
}

export interface RetryPolicy {
  maxDeliveryAttempts: number;
  eventTimeToLiveInMinutes: number;
}

export interface WebhookDestination {
  endpointType: 'WebHook';
  endpointUrl: string;
}

export interface SubscriptionFilter {
  /** Exact event type names; `undefined` matches every type. */
  includedEventTypes?: string[];
}

export interface Subscription {
  topic: string;
  name: string;
  destination: WebhookDestination;
  filter: SubscriptionFilter;
  retryPolicy: RetryPolicy;
  eventDeliverySchema: 'EventGridSchema';
  labels: string[];
  createdAt: string;
  updatedAt: string;
}

/**
 * One event on its way to one subscription, with everything the retry engine needs. It travels
 * inside SQS messages, so the happy path needs no database write.
 */
export interface DeliveryItem {
  /** Unique per (published event, subscription); tells apart events that reuse an `id`. */
  deliveryId: string;
  event: EventGridEvent;
  /** Attempts made so far (the next attempt sends `aeg-delivery-count: attempts`). */
  attempts: number;
  /** Epoch ms when the event was accepted (TTL counts from here). */
  publishedAt: number;
  lastOutcome?: DeliveryOutcome;
  lastHttpStatus?: number;
  /** Epoch ms of the last attempt. */
  lastAttemptAt?: number;
}

/** The body of one SQS message: events for one subscription that are due at the same time. */
export interface DeliveryJob {
  v: 1;
  topic: string;
  subscription: string;
  /** Epoch ms before which nothing in the job may be attempted; absent means now. */
  dueAt?: number;
  items: DeliveryItem[];
}

/** The result of one HTTP attempt. */
export interface AttemptResult {
  /** `true` only for HTTP 200-204. */
  delivered: boolean;
  /** `undefined` when delivered. */
  outcome?: DeliveryOutcome;
  httpStatus?: number;
  durationMs: number;
  /** Short error text for network failures. */
  error?: string;
  /** Seconds from a `Retry-After` answer header, when present and valid. */
  retryAfterSeconds?: number;
}

/** What happened after an attempt (or a due-time check), as recorded in the attempt history. */
export type AttemptNext =
  | { action: 'retry'; dueAt: number }
  | { action: 'deadLetter'; reason: DeadLetterReason }
  | { action: 'dropped'; reason: DropReason }
  | { action: 'none' };

/**
 * One entry of an event's delivery history. Written only for failed attempts and for what
 * follows them, so a first-attempt success costs no database write.
 */
export interface AttemptRecord {
  topic: string;
  subscription: string;
  eventId: string;
  deliveryId: string;
  publishedAt: number;
  /** 1-based attempt number; 0 for a due-time decision made without an attempt (TTL expiry). */
  attempt: number;
  /** Epoch ms. */
  at: number;
  outcome: DeliveryOutcome | 'Delivered' | 'NotAttempted';
  httpStatus?: number;
  durationMs?: number;
  error?: string;
  next: AttemptNext;
}

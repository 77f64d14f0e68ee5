/**
 * The shapes that travel between the pipeline's steps: events, delivery items and the jobs that
 * carry them through the queues. Each is defined once, as a schema; its TypeScript type is derived
 * from the schema, so a field cannot exist in the model and vanish on the wire.
 */
import { z } from 'zod';
import {
  DEAD_LETTER_FORMATS,
  DEAD_LETTER_REASONS,
  DELIVERY_OUTCOMES,
  DELIVERY_PROFILE_NAMES,
  EVENT_DELIVERY_SCHEMAS,
} from './model';

/**
 * An event in the Event Grid schema after the service stamped it: what filters and headers look
 * at. It travels as text (`DeliveryItem.eventJson`), never as this parsed form.
 */
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

/**
 * One event on its way to one subscription, with everything the retry engine needs. It travels
 * inside SQS messages, so the happy path needs no database write.
 */
export const deliveryItemSchema = z.object({
  /** Unique per (published event, subscription); tells apart events that reuse an `id`. */
  deliveryId: z.string().min(1),
  /** The event's `id`. */
  eventId: z.string(),
  /** The event's `dataVersion` (echoed in a header). */
  dataVersion: z.string(),
  /**
   * The event as delivered: the publisher's JSON text, member by member (values exactly as
   * written), with the fields the service stamps. Never parsed on the way, so big numbers, a
   * `__proto__` key or the way a number is written arrive as published.
   */
  eventJson: z.string().min(2),
  /** Attempts made so far (the next attempt sends `aeg-delivery-count: attempts`). */
  attempts: z.number().int().min(0),
  /** Epoch ms when the event was accepted (TTL counts from here). */
  publishedAt: z.number(),
  lastOutcome: z.enum(DELIVERY_OUTCOMES).optional(),
  lastHttpStatus: z.number().int().optional(),
  /** Epoch ms when the last attempt started. */
  lastAttemptAt: z.number().optional(),
  /**
   * Set once a request of this event timed out and was listened to for a late answer: until when
   * (epoch ms, the latest such window). Its retries look for a recorded late success first.
   */
  lateUntil: z.number().optional(),
  /**
   * Set on a resend (an event sent again from the message log): the delivery id it sends again.
   * The request carries it in a header (`RESEND_HEADER`, `delivery/rules/headers.ts`) and the
   * log records it.
   */
  resendOf: z.string().optional(),
  /**
   * Set on an event sent again from its topic's archive by a replay: `archive`. Requests whose
   * events all carry it say so in a header (`REPLAY_HEADER`, `delivery/rules/headers.ts`).
   */
  replayOf: z.literal('archive').optional(),
  /**
   * The publish request's W3C `traceparent`, when it had a valid one: every delivery request of
   * the event continues its trace (`delivery/rules/trace-context.ts`).
   */
  traceparent: z.string().optional(),
});
export type DeliveryItem = z.infer<typeof deliveryItemSchema>;

/**
 * The version of the job format. Raised when a queued shape changes in a way an older reader
 * cannot take. Messages of an earlier version are still read (`job-format-1.ts`) and upgraded when
 * received (`delivery/job-upgrade.ts`); one of a later version is refused with its version named
 * (see docs/deploy.md, "Upgrading").
 */
export const JOB_FORMAT_VERSION = 2;
const formatVersion = z.literal(JOB_FORMAT_VERSION);

/**
 * A topic by identity: a classic topic by its name, a namespace topic by its namespace and name.
 * (Storage and the attempt history key both by one text, `topicIdOf` in `names.ts`.)
 */
export const topicRefSchema = z.object({
  /** Set for a namespace topic. */
  namespace: z.string().min(1).optional(),
  name: z.string().min(1),
});
export type TopicRef = z.infer<typeof topicRefSchema>;

/** Where a subscription's ended deliveries are written, and in which record format. */
export const deadLetterPlaceSchema = z.object({
  container: z.string().min(1),
  format: z.enum(DEAD_LETTER_FORMATS),
  /** The bucket written to; absent: the stack's own. */
  bucket: z.string().min(1).optional(),
  /** A role to assume to write to `bucket`, and the external id its trust policy may ask for. */
  roleArn: z.string().min(1).optional(),
  externalId: z.string().min(1).optional(),
});

/**
 * Whom a job's events are for and how they are delivered, as the subscription said when the job
 * was made. Built from a subscription in one place (`delivery/rules/target.ts`) and carried on
 * every job, so no step rebuilds it from loose fields: the delivery step reads the subscription
 * again (at least at `version`) and builds a new one for the jobs it sends on; the dead-letter
 * step reads nothing else.
 */
export const deliveryTargetSchema = z.object({
  topic: topicRefSchema,
  subscription: z.string().min(1),
  /** The subscription's `uid`; a subscription found with another uid was deleted and re-created. */
  uid: z.string().optional(),
  /**
   * The subscription version the target was built from. A delivery function holding an older
   * cached definition reads the subscription again before acting on the job.
   */
  version: z.number(),
  /** The delivery profile (schedule, limits, dead-letter timing). */
  profile: z.enum(DELIVERY_PROFILE_NAMES),
  /** The schema events are delivered (and dead-lettered) in. */
  schema: z.enum(EVENT_DELIVERY_SCHEMAS),
  /** Absent: ended deliveries are dropped (counted and logged). */
  deadLetter: deadLetterPlaceSchema.optional(),
});
export type DeliveryTarget = z.infer<typeof deliveryTargetSchema>;

/** The target of ended deliveries: one with a dead-letter place. */
export const deadLetterTargetSchema = deliveryTargetSchema.required({ deadLetter: true });
export type DeadLetterTarget = z.infer<typeof deadLetterTargetSchema>;

/** Events for one subscription that are due at the same time: the body of one SQS message. */
export const deliveryJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('deliver').optional(),
  target: deliveryTargetSchema,
  /** Epoch ms before which nothing in the job may be attempted; absent means now. */
  dueAt: z.number().optional(),
  items: z.array(deliveryItemSchema).min(1),
  /**
   * A replay's part (`<replay id>:<page>:<part>`): the first message received with it is worked,
   * a copy sent again by a replay page worked twice is not (`replay-sends.ts`). Fresh from a
   * replay only: its retries are jobs of their own, without it.
   */
  replayChunk: z.string().optional(),
});
export type DeliveryJob = z.infer<typeof deliveryJobSchema>;

/** A delivery that ended without success, with its final state (attempts, last outcome...). */
export const endedDeliverySchema = z.object({
  item: deliveryItemSchema,
  reason: z.enum(DEAD_LETTER_REASONS),
  /** Epoch ms when delivery ended. */
  endedAt: z.number(),
  /**
   * Namespace subscriptions: the subscription's custom header values for this event when delivery
   * ended, secret ones left out (they are never opened for this). Absent when there are none.
   */
  customDeliveryProperties: z.record(z.string(), z.string()).optional(),
  /** Writes of this dead letter that failed so far (absent: none); picks the next write's delay. */
  failedWrites: z.number().int().min(1).optional(),
  /**
   * Epoch ms of the first failed write of this dead letter (absent: none failed yet). The
   * destination has been unavailable since then; after 4 hours of that, the event is dropped.
   */
  firstFailedWriteAt: z.number().optional(),
});
export type EndedDelivery = z.infer<typeof endedDeliverySchema>;

/**
 * Events of one ordered subscription with the same key, from one publish, in publish order: the
 * body of one message of the ordered (FIFO) queue, in the key's group. They are attempted one
 * request at a time, in order; what happened to them so far (events finished, attempts of the
 * next) is kept in the table while the message waits for a retry (`storage/ordered-progress.ts`).
 */
export const orderedJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('ordered'),
  target: deliveryTargetSchema,
  /** The events' key (the value at the subscription's `orderedDelivery.key`; "" when absent). */
  key: z.string(),
  items: z.array(deliveryItemSchema).min(1),
});
export type OrderedJob = z.infer<typeof orderedJobSchema>;

/**
 * Ended deliveries of one subscription, on their way to the dead-letter step. Their target is
 * the subscription as it was when they ended, so the step reads nothing.
 */
export const endedJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('ended'),
  /** Also where and how the dead-letter step writes them, and its timing (the profile). */
  target: deadLetterTargetSchema,
  ended: z.array(endedDeliverySchema).min(1),
});
export type EndedJob = z.infer<typeof endedJobSchema>;

/**
 * Asks a subscription's endpoint to agree to receive (the validation handshake). Queued by the
 * management API; a job whose code is no longer the subscription's does nothing.
 */
export const validationJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('validate'),
  target: deliveryTargetSchema,
  /** The validation's code (`EndpointValidation.code`). */
  code: z.string().min(1),
  /** The URL a GET of which validates by hand (sent to the endpoint). */
  validationUrl: z.string().min(1),
});
export type ValidationJob = z.infer<typeof validationJobSchema>;

/**
 * One subscription a fan-out goes to, and which of the fan-out's events it matched: a delivery
 * target without its topic (the fan-out names the topic once).
 */
export const fanOutTargetSchema = deliveryTargetSchema.omit({ topic: true }).extend({
  /** Indexes into the fan-out's `items`, in publish order. */
  matched: z.array(z.number().int().min(0)).min(1),
});
export type FanOutTarget = z.infer<typeof fanOutTargetSchema>;

/**
 * One publish request that goes to more than one delivery job (several subscriptions, or more
 * events than one job holds), carried by one SQS message so the publish is queued whole or not
 * at all. Each event travels once; each target names the events it matched. The delivery step
 * turns it into the delivery jobs the publisher would otherwise have queued one by one.
 */
export const fanOutJobSchema = z
  .object({
    v: formatVersion,
    kind: z.literal('fanout'),
    topic: topicRefSchema,
    items: z.array(deliveryItemSchema).min(1),
    targets: z.array(fanOutTargetSchema).min(1),
  })
  .superRefine((job, context) => {
    // Every position a target names is an event the fan-out carries.
    for (const [t, target] of job.targets.entries()) {
      for (const index of target.matched) {
        if (index >= job.items.length) {
          context.addIssue({
            code: 'custom',
            path: ['targets', t, 'matched'],
            message: `index ${index} is beyond the ${job.items.length} items`,
          });
        }
      }
    }
  });
export type FanOutJob = z.infer<typeof fanOutJobSchema>;

/**
 * A fan-out too large for one SQS message: its body (a {@link FanOutJob}) was stored whole in the
 * fan-out bucket before this message was sent, so the message alone decides whether the publish
 * was queued.
 */
export const storedFanOutJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('stored-fanout'),
  topic: topicRefSchema,
  /** The object key of the fan-out's body in the fan-out bucket. */
  key: z.string().min(1),
  /** The body's size in bytes (for logs and the bill). */
  bytes: z.number().int().min(0),
});
export type StoredFanOutJob = z.infer<typeof storedFanOutJobSchema>;

/**
 * Why events went to the backlog instead of the retry queue: the endpoint was held (`probation`:
 * on probation, unhealthy or draining), or the event's next attempt is far away (`wait`).
 */
export const BACKLOG_HELD_BY = ['probation', 'wait'] as const;
export type BacklogHeldBy = (typeof BACKLOG_HELD_BY)[number];

/**
 * Events for one subscription to be kept in its backlog (segments in the backlog bucket) until
 * they are due or the endpoint recovers: a delivery job whose due time is always known, and why it
 * is stored. Carried by the backlog queue to the store step.
 */
export const storeJobSchema = deliveryJobSchema.extend({
  kind: z.literal('store'),
  /** Epoch ms before which none of the events may be attempted. */
  dueAt: z.number(),
  heldBy: z.enum(BACKLOG_HELD_BY),
});
export type StoreJob = z.infer<typeof storeJobSchema>;

/**
 * The timer of one subscription's backlog: when it arrives, the backlog is looked at (expired,
 * released, probed, drained). Only the tick whose `token` is the backlog's current one acts;
 * any other is stale and does nothing, so a duplicate or an old timer costs one receive.
 */
export const backlogTickJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('backlog-tick'),
  target: deliveryTargetSchema,
  token: z.string().min(1),
});
export type BacklogTickJob = z.infer<typeof backlogTickJobSchema>;

/**
 * Asks for one pass over the backlogs' timer index: every backlog whose wake is near gets its
 * tick sent. Sent on a schedule, not by a queue.
 */
export const backlogSweepJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('backlog-sweep'),
});
export type BacklogSweepJob = z.infer<typeof backlogSweepJobSchema>;

/**
 * Archive copies of publishes to one topic (each gzipped JSON in base64, `archive/copy.ts`),
 * forwarded from the publishes' own messages on their way into the topic's archive segments.
 */
export const archiveJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('archive'),
  topic: topicRefSchema,
  copies: z.array(z.string().min(1)).min(1),
});
export type ArchiveJob = z.infer<typeof archiveJobSchema>;

/**
 * One page of a replay: the subscription's next archive segment after the replay's cursor, its
 * events queued as deliveries, the cursor moved on and the next page sent (`archive/replay.ts`).
 */
export const replayPageJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('replay-page'),
  topic: topicRefSchema,
  subscription: z.string().min(1),
  replayId: z.string().min(1),
});
export type ReplayPageJob = z.infer<typeof replayPageJobSchema>;

/**
 * Every shape a Gridwire queue carries. {@link QueuedJob} is their union, so a new shape is added
 * here or nowhere, and named by its kind in {@link JOB_SCHEMAS}; the job registry
 * (`delivery/job-registry.ts`) says which queues carry each kind and the step that runs it.
 */
export const QUEUED_JOB_SCHEMAS = [
  deliveryJobSchema,
  validationJobSchema,
  fanOutJobSchema,
  storedFanOutJobSchema,
  endedJobSchema,
  storeJobSchema,
  backlogTickJobSchema,
  orderedJobSchema,
  archiveJobSchema,
  replayPageJobSchema,
] as const;

/** Anything a Gridwire queue carries. A job without `kind` is a delivery job. */
export type QueuedJob = z.infer<(typeof QUEUED_JOB_SCHEMAS)[number]>;

/** A job's kind; a job without `kind` is a `deliver` job. */
export type JobKind = NonNullable<QueuedJob['kind']>;

/** The job of one kind. */
export type JobOfKind<K extends JobKind> = Extract<QueuedJob, { kind?: K }>;

/** Each kind's schema, by its name (a test holds it to {@link QUEUED_JOB_SCHEMAS}). */
export const JOB_SCHEMAS: { readonly [K in JobKind]: z.ZodType<JobOfKind<K>> } = {
  /** Events for one subscription, due at the same time: published, retried, held, replayed. */
  deliver: deliveryJobSchema,
  /** A subscription's endpoint validation handshake, queued by the management API. */
  validate: validationJobSchema,
  /** One publish's events for several delivery jobs, in one message. */
  fanout: fanOutJobSchema,
  /** A fan-out too large for one message, named by its key in the fan-out bucket. */
  'stored-fanout': storedFanOutJobSchema,
  /** Deliveries that ended without success, on their way to the dead-letter bucket. */
  ended: endedJobSchema,
  /** Events on their way into their subscription's backlog (an endpoint held, or a long wait). */
  store: storeJobSchema,
  /** A subscription's backlog timer: it wakes the backlog when its earliest event is due. */
  'backlog-tick': backlogTickJobSchema,
  /** One key's events of one publish, for an ordered subscription, in its key's FIFO group. */
  ordered: orderedJobSchema,
  /** Publishes' archive copies, on their way into their topic's archive segments. */
  archive: archiveJobSchema,
  /** One page of a subscription's replay from its topic's archive. */
  'replay-page': replayPageJobSchema,
};

/**
 * The job kinds as the queues carry them: for each kind, its schema (from `domain/delivery.ts`)
 * and what logs and message groups read of a job. `readJobMessage` reads a message body of the
 * current format through this table (an earlier format's kinds keep these names,
 * `domain/job-format-1.ts`). Which queues carry each kind and the step that runs it there are the
 * job registry's (`delivery/job-registry.ts`), which builds on this table; a test checks that
 * every shape in `QUEUED_JOB_SCHEMAS` has its entry here.
 */
import type { z } from 'zod';
import {
  type BacklogTickJob,
  backlogTickJobSchema,
  type DeliveryJob,
  deliveryJobSchema,
  type EndedJob,
  endedJobSchema,
  type FanOutJob,
  fanOutJobSchema,
  type QueuedJob,
  type StoredFanOutJob,
  type StoreJob,
  storedFanOutJobSchema,
  storeJobSchema,
  type TopicRef,
  type ValidationJob,
  validationJobSchema,
} from '../domain/delivery';
import { topicIdOf } from '../domain/names';

/** A job's kind; a job without `kind` is a `deliver` job. */
export type JobKind = NonNullable<QueuedJob['kind']>;

/** The job of one kind. */
export type JobOfKind<K extends JobKind> = Extract<QueuedJob, { kind?: K }>;

export interface JobKindDefinition<J extends QueuedJob> {
  readonly schema: z.ZodType<J>;
  /** For logs: the topic the job's events were published to. */
  topicOf(job: J): TopicRef;
  /** For logs: the subscription the job is for (a fan-out has several; the engine names them). */
  subscriptionOf(job: J): string | undefined;
  /** For logs: the events the message itself carries. */
  eventsOf(job: J): number;
}

export const JOB_KINDS: { readonly [K in JobKind]: JobKindDefinition<JobOfKind<K>> } = {
  /** Events for one subscription, due at the same time: published, retried, held, replayed. */
  deliver: {
    schema: deliveryJobSchema,
    topicOf: (job: DeliveryJob) => job.target.topic,
    subscriptionOf: (job: DeliveryJob) => job.target.subscription,
    eventsOf: (job: DeliveryJob) => job.items.length,
  },
  /** A subscription's endpoint validation handshake, queued by the management API. */
  validate: {
    schema: validationJobSchema,
    topicOf: (job: ValidationJob) => job.target.topic,
    subscriptionOf: (job: ValidationJob) => job.target.subscription,
    eventsOf: () => 0,
  },
  /** One publish's events for several delivery jobs, in one message. */
  fanout: {
    schema: fanOutJobSchema,
    topicOf: (job: FanOutJob) => job.topic,
    subscriptionOf: () => undefined,
    eventsOf: (job: FanOutJob) => job.items.length,
  },
  /** A fan-out too large for one message, named by its key in the fan-out bucket. */
  'stored-fanout': {
    schema: storedFanOutJobSchema,
    topicOf: (job: StoredFanOutJob) => job.topic,
    subscriptionOf: () => undefined,
    eventsOf: () => 0,
  },
  /** Deliveries that ended without success, on their way to the dead-letter bucket. */
  ended: {
    schema: endedJobSchema,
    topicOf: (job: EndedJob) => job.target.topic,
    subscriptionOf: (job: EndedJob) => job.target.subscription,
    eventsOf: (job: EndedJob) => job.ended.length,
  },
  /** Events on their way into their subscription's backlog (an endpoint held, or a long wait). */
  store: {
    schema: storeJobSchema,
    topicOf: (job: StoreJob) => job.target.topic,
    subscriptionOf: (job: StoreJob) => job.target.subscription,
    eventsOf: (job: StoreJob) => job.items.length,
  },
  /** A subscription's backlog timer: it wakes the backlog when its earliest event is due. */
  'backlog-tick': {
    schema: backlogTickJobSchema,
    topicOf: (job: BacklogTickJob) => job.target.topic,
    subscriptionOf: (job: BacklogTickJob) => job.target.subscription,
    eventsOf: () => 0,
  },
};

const isJobKind = (value: unknown): value is JobKind =>
  typeof value === 'string' && Object.hasOwn(JOB_KINDS, value);

/** A job's kind (of any format read: the kinds keep their names across formats). */
export const kindOf = (job: { readonly kind?: JobKind }): JobKind => job.kind ?? 'deliver';

/**
 * The kind a message claims to be, from its parsed JSON: its `kind` when that names a kind, else
 * `deliver` (whose schema then names `kind` as what is wrong, when there is one).
 */
export function claimedKind(json: unknown): JobKind {
  const kind = typeof json === 'object' && json !== null ? (json as { kind?: unknown }).kind : undefined;
  return isJobKind(kind) ? kind : 'deliver';
}

/** The definition of a job's kind. */
export const definitionOf = (kind: JobKind): JobKindDefinition<QueuedJob> =>
  JOB_KINDS[kind] as JobKindDefinition<QueuedJob>;

/** What logs say about a job: its topic, the subscription it is for and the events it carries. */
export function jobLogFields(job: QueuedJob): { topic: string; subscription?: string; events: number } {
  const definition = definitionOf(kindOf(job));
  const subscription = definition.subscriptionOf(job);
  return {
    topic: topicIdOf(definition.topicOf(job)),
    ...(subscription === undefined ? {} : { subscription }),
    events: definition.eventsOf(job),
  };
}

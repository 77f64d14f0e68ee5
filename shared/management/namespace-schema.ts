/**
 * Request bodies and documents of namespaces, namespace topics and their push subscriptions
 * (the original's ARM shapes). The webhook destination, its batching and header settings, the
 * event type filter and the dead-letter destination are the classic subscription's pieces
 * (`schema.ts`); the attempt and time-to-live limits are the `namespace` delivery profile's.
 */
import { z } from 'zod';
import { NAMESPACE_PROFILE, type Range } from '../delivery/rules/profiles';
import {
  ARCHIVE_RETENTION_IN_DAYS,
  DEDUPLICATION_WINDOW_IN_MINUTES,
  type DeliveryLogMode,
  type Namespace,
  type NamespaceTopic,
  type RetryLimits,
  type Subscription,
  type SubscriptionFilter,
  type TopicArchive,
  type UnknownEventTypes,
} from '../domain/model';
import { namespaceResourceId, namespaceTopicResourceId, splitNamespaceTopicId } from '../domain/names';
import { badRequest } from '../http/errors';
import { isoDurationMinutes, isoDurationOf } from '../platform/iso-duration';
import type { NamespaceInput } from '../storage/namespaces';
import { type DestinationInput, destinationInputOf, destinationSchema } from './destination-schema';
import { intInRange, invalidBody } from './request-body';
import {
  deadLetterDocument,
  destinationDocument,
  disableAfterDocument,
  expirationDocument,
  filterDocument,
  provisioningProperties,
  retryScheduleDocument,
  systemData,
} from './resource-documents';
import {
  deadLetterOf,
  deadLetterWithIdentitySchema,
  deliveryLogSchema,
  disableAfterSchema,
  expirationOf,
  expirationTimeSchema,
  filterOf,
  labelsSchema,
  orderedDeliveryOf,
  orderedDeliverySchema,
  retryScheduleSchema,
  subscriptionFilterSchema,
} from './subscription-schema';
import { unknownEventTypesSchema, validateEventsSchema } from './topic-schema';

const MINUTES_PER_DAY = 24 * 60;

/** A namespace topic's event retention: 1 to 7 days, 1 by default. */
export const NAMESPACE_TOPIC_LIMITS = {
  eventRetentionInDays: { min: 1, max: 7, default: 1 } satisfies Range,
} as const;

/** Topics one namespace may hold (the original's standard tier quota). */
export const MAX_TOPICS_PER_NAMESPACE = 100;

/** Where a namespace subscription's push settings are in its body (error messages name them). */
export const PUSH_FIELD = 'properties.deliveryConfiguration.push';

const ttlRange = NAMESPACE_PROFILE.limits.eventTimeToLiveInMinutes;
const TTL_RULE = `must be an ISO 8601 duration with minute precision between ${isoDurationOf(ttlRange.min)} and ${isoDurationOf(ttlRange.max)} (such as PT30M or P1DT12H)`;

/** `eventTimeToLive`: parsed to minutes within the namespace profile's range. */
const eventTimeToLiveSchema = z.string({ error: TTL_RULE }).transform((text, ctx) => {
  const minutes = isoDurationMinutes(text);
  if (minutes === undefined) {
    ctx.addIssue({ code: 'custom', message: `${TTL_RULE} (got '${text}')` });
    return z.NEVER;
  }
  if (minutes < ttlRange.min || minutes > ttlRange.max) {
    ctx.addIssue({
      code: 'custom',
      message: `${TTL_RULE} (got ${text}, ${minutes < ttlRange.min ? 'shorter' : 'longer'})`,
    });
    return z.NEVER;
  }
  return minutes;
});

// ---- request bodies ----------------------------------------------------------------------------

const tagsSchema = z.record(z.string(), z.string(), { error: 'must be an object of string values' });

/** The namespace body (exported, as every admin body schema is, for tests that walk its fields). */
export const namespaceBodySchema = z.strictObject({
  location: z.string().optional(),
  tags: tagsSchema.optional(),
  properties: z.strictObject({}).optional(),
});

export function parseNamespaceBody(body: unknown): NamespaceInput {
  // Absent: `{}`. A JSON `null` is no object: refused, as the document describes the body.
  const parsed = namespaceBodySchema.safeParse(body === undefined ? {} : body);
  if (!parsed.success) throw invalidBody(parsed.error, 'namespace definition');
  return { tags: parsed.data.tags ?? {} };
}

/** The namespace topic body. */
export const namespaceTopicBodySchema = z.strictObject({
  properties: z
    .strictObject({
      eventRetentionInDays: intInRange(NAMESPACE_TOPIC_LIMITS.eventRetentionInDays).optional(),
      inputSchema: z
        .literal('CloudEventSchemaV1_0', {
          error: 'must be CloudEventSchemaV1_0 (namespace topics take CloudEvents 1.0 only)',
        })
        .optional(),
      publisherType: z.literal('Custom', { error: "must be 'Custom'" }).optional(),
      deduplicationWindowInMinutes: intInRange(DEDUPLICATION_WINDOW_IN_MINUTES).optional(),
      archive: z
        .strictObject(
          { retentionInDays: intInRange(ARCHIVE_RETENTION_IN_DAYS).optional() },
          {
            error: `must be {"retentionInDays": ${ARCHIVE_RETENTION_IN_DAYS.min}..${ARCHIVE_RETENTION_IN_DAYS.max}} (default the topic's eventRetentionInDays), {} or null`,
          },
        )
        .nullable()
        .optional(),
      validateEvents: validateEventsSchema.optional(),
      unknownEventTypes: unknownEventTypesSchema.optional(),
    })
    .optional(),
});

export interface NamespaceTopicInput {
  eventRetentionInDays: number;
  /** 0: off. */
  deduplicationWindowInMinutes: number;
  /** Its archive; absent: none. */
  archive?: TopicArchive;
  /** Events checked against the topic's event catalog; false when not given. */
  validateEvents: boolean;
  /** What an event of a type the catalog does not list gets; `allow` when not given. */
  unknownEventTypes: UnknownEventTypes;
}

export function parseNamespaceTopicBody(body: unknown): NamespaceTopicInput {
  // Absent: `{}`. A JSON `null` is no object: refused, as the document describes the body.
  const parsed = namespaceTopicBodySchema.safeParse(body === undefined ? {} : body);
  if (!parsed.success) throw invalidBody(parsed.error, 'namespace topic definition');
  return {
    eventRetentionInDays:
      parsed.data.properties?.eventRetentionInDays ?? NAMESPACE_TOPIC_LIMITS.eventRetentionInDays.default,
    deduplicationWindowInMinutes:
      parsed.data.properties?.deduplicationWindowInMinutes ?? DEDUPLICATION_WINDOW_IN_MINUTES.default,
    ...archiveOf(parsed.data.properties),
    validateEvents: parsed.data.properties?.validateEvents ?? false,
    unknownEventTypes: parsed.data.properties?.unknownEventTypes ?? 'allow',
  };
}

/** A namespace topic's archive as given: its retention defaults to the topic's event retention. */
function archiveOf(
  properties: { eventRetentionInDays?: number; archive?: { retentionInDays?: number } | null } | undefined,
): { archive?: TopicArchive } {
  if (properties?.archive == null) return {};
  return {
    archive: {
      retentionInDays:
        properties.archive.retentionInDays ??
        properties.eventRetentionInDays ??
        NAMESPACE_TOPIC_LIMITS.eventRetentionInDays.default,
    },
  };
}

/** The namespace subscription body; `parseNamespaceSubscriptionBody` checks it against its topic too. */
export function namespaceSubscriptionBodySchema(allowHttp: boolean) {
  return z.strictObject({
    properties: z.strictObject(
      {
        deliveryConfiguration: z.strictObject(
          {
            deliveryMode: z.literal('Push', {
              error: "must be 'Push' (this version of Gridwire delivers namespace events by push only)",
            }),
            push: z.strictObject(
              {
                maxDeliveryCount: intInRange(NAMESPACE_PROFILE.limits.maxDeliveryAttempts).optional(),
                eventTimeToLive: eventTimeToLiveSchema.optional(),
                retrySchedule: retryScheduleSchema(NAMESPACE_PROFILE).optional(),
                destination: destinationSchema(allowHttp),
                deadLetterDestinationWithResourceIdentity: deadLetterWithIdentitySchema.nullable().optional(),
              },
              { error: 'is required' },
            ),
          },
          { error: 'is required: {"deliveryMode": "Push", "push": {...}}' },
        ),
        filtersConfiguration: subscriptionFilterSchema,
        expirationTimeUtc: expirationTimeSchema,
        // Gridwire's: as on classic subscriptions (a portal scope selects by them).
        labels: labelsSchema,
        deliveryLog: deliveryLogSchema,
        disableAfterFailingFor: disableAfterSchema,
        // Gridwire's: as on classic subscriptions.
        orderedDelivery: orderedDeliverySchema,
        eventDeliverySchema: z
          .literal('CloudEventSchemaV1_0', {
            error: 'must be CloudEventSchemaV1_0 (namespace topics deliver CloudEvents 1.0 only)',
          })
          .optional(),
      },
      { error: 'is required' },
    ),
  });
}

/** A namespace subscription as the API takes it, its limits decided against its topic. */
export interface NamespaceSubscriptionInput extends DestinationInput {
  filter: SubscriptionFilter;
  /** `maxDeliveryCount` and `eventTimeToLive`, normalised: `{ maxAttempts, ttlMs }`. */
  retry: RetryLimits;
  deadLetter?: Subscription['deadLetter'];
  /** `expirationTimeUtc` as an ISO time; absent when none. */
  expirationTime?: string;
  /** What the message log keeps; absent (not given): `Failures`. */
  deliveryLog?: DeliveryLogMode;
  /** `disableAfterFailingFor` in ms (0: never); absent (not given): the default. */
  disableAfterFailingForMs?: number;
  /** `labels` (Gridwire's on namespace subscriptions); none when not given. */
  labels: string[];
  /** Events with the same key in order (Gridwire's); absent: none. */
  orderedDelivery?: { key: string };
}

/**
 * Parses a namespace subscription body for a subscription of `topic`. `eventTimeToLive` may not
 * exceed the topic's retention, and defaults to it; `maxDeliveryCount` defaults to 10.
 */
export function parseNamespaceSubscriptionBody(
  body: unknown,
  options: { allowHttp: boolean; topic: Pick<NamespaceTopic, 'name' | 'eventRetentionInDays'> },
): NamespaceSubscriptionInput {
  const parsed = namespaceSubscriptionBodySchema(options.allowHttp).safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error, 'event subscription');
  const { properties } = parsed.data;
  const push = properties.deliveryConfiguration.push;
  const retentionMinutes = options.topic.eventRetentionInDays * MINUTES_PER_DAY;
  const ttlMinutes = push.eventTimeToLive ?? Math.min(ttlRange.default, retentionMinutes);
  if (ttlMinutes > retentionMinutes) {
    throw badRequest(
      `${PUSH_FIELD}.eventTimeToLive: must not exceed the retention of topic '${options.topic.name}', ${isoDurationOf(retentionMinutes)} (eventRetentionInDays ${options.topic.eventRetentionInDays}) (got ${isoDurationOf(ttlMinutes)}).`,
    );
  }
  return {
    ...destinationInputOf(push.destination),
    filter: filterOf(properties.filtersConfiguration),
    retry: {
      maxAttempts: push.maxDeliveryCount ?? NAMESPACE_PROFILE.limits.maxDeliveryAttempts.default,
      ttlMs: ttlMinutes * 60_000,
      ...(push.retrySchedule === undefined ? {} : { scheduleMs: push.retrySchedule }),
    },
    ...deadLetterOf(
      push.deadLetterDestinationWithResourceIdentity?.deadLetterDestination,
      push.deadLetterDestinationWithResourceIdentity?.identity,
    ),
    ...expirationOf(properties.expirationTimeUtc),
    labels: properties.labels ?? [],
    ...(properties.deliveryLog === undefined ? {} : { deliveryLog: properties.deliveryLog }),
    ...(properties.disableAfterFailingFor === undefined
      ? {}
      : { disableAfterFailingForMs: properties.disableAfterFailingFor }),
    ...orderedDeliveryOf(properties.orderedDelivery),
  };
}

// ---- documents ---------------------------------------------------------------------------------

/** The namespace as the management API returns it. */
export function namespaceDocument(namespace: Omit<Namespace, 'keys'>) {
  return {
    id: namespaceResourceId(namespace.name),
    name: namespace.name,
    type: 'Microsoft.EventGrid/namespaces',
    tags: namespace.tags,
    properties: { provisioningState: 'Succeeded' },
    systemData: systemData(namespace),
  };
}

/** The namespace topic as the management API returns it. */
export function namespaceTopicDocument(topic: NamespaceTopic) {
  return {
    id: namespaceTopicResourceId(topic.namespace, topic.name),
    name: topic.name,
    type: 'Microsoft.EventGrid/namespaces/topics',
    properties: {
      provisioningState: 'Succeeded',
      publisherType: 'Custom',
      inputSchema: 'CloudEventSchemaV1_0',
      eventRetentionInDays: topic.eventRetentionInDays,
      deduplicationWindowInMinutes: topic.deduplicationWindowInMinutes ?? 0,
      archive: topic.archive ?? null,
      validateEvents: topic.validateEvents ?? false,
      unknownEventTypes: topic.unknownEventTypes ?? 'allow',
    },
    systemData: systemData(topic),
  };
}

/**
 * A namespace subscription as the management API returns it: secret header values masked and
 * the endpoint without its query string, exactly as for classic subscriptions.
 */
export function namespaceSubscriptionDocument(subscription: Subscription, nowMs: number) {
  const parts = splitNamespaceTopicId(subscription.topic);
  if (parts === undefined) throw new Error(`'${subscription.topic}' is not a namespace topic`);
  const { namespace, topic } = parts;
  const topicId = namespaceTopicResourceId(namespace, topic);
  return {
    id: `${topicId}/eventSubscriptions/${subscription.name}`,
    name: subscription.name,
    type: 'Microsoft.EventGrid/namespaces/topics/eventSubscriptions',
    properties: {
      ...provisioningProperties(subscription, nowMs),
      deliveryConfiguration: {
        deliveryMode: 'Push',
        push: {
          maxDeliveryCount: subscription.retry.maxAttempts,
          eventTimeToLive: isoDurationOf(Math.round(subscription.retry.ttlMs / 60_000)),
          ...retryScheduleDocument(subscription.retry),
          destination: destinationDocument(subscription.destination),
          ...(subscription.deadLetter === undefined
            ? {}
            : {
                deadLetterDestinationWithResourceIdentity: {
                  deadLetterDestination: deadLetterDocument(subscription.deadLetter),
                },
              }),
        },
      },
      eventDeliverySchema: 'CloudEventSchemaV1_0',
      filtersConfiguration: filterDocument(subscription.filter),
      labels: subscription.labels,
      deliveryLog: subscription.deliveryLog ?? 'Failures',
      ...disableAfterDocument(subscription),
      ...expirationDocument(subscription),
      orderedDelivery: subscription.orderedDelivery ?? null,
    },
    systemData: systemData(subscription),
  };
}

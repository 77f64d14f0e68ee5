/**
 * Request bodies of the management API (ARM-shaped, as the original service takes them) and the
 * resource documents it returns. Every rejection names the field and the allowed values.
 */
import { type ZodError, z } from 'zod';
import { healthState } from '../delivery/rules/health';
import { type DeliveryProfile, type Range, TOPIC_PROFILE } from '../delivery/rules/profiles';
import {
  type DeadLetterDestination,
  type EndpointHealth,
  EVENT_DELIVERY_SCHEMAS,
  type EventDeliverySchema,
  INPUT_SCHEMAS,
  type InputSchema,
  type InputSchemaMapping,
  MAPPED_FIELDS,
  type MappedField,
  type RetryLimits,
  retryLimitsOf,
  retryPolicyOf,
  type Subscription,
  type Topic,
} from '../domain/model';
import { isValidName, NAME_RULES, type NameKind, topicResourceId } from '../domain/names';
import { badRequest } from '../http/errors';

/** Subscriptions one topic may hold (the original service's quota). */
export const MAX_SUBSCRIPTIONS_PER_TOPIC = 500;

/** Checks a topic or subscription name from the path; throws a 400 naming the rule. */
export function validateName(kind: NameKind, name: string): string {
  const rule = NAME_RULES[kind];
  if (!isValidName(kind, name)) {
    throw badRequest(
      `The ${kind} name '${name}' is invalid: use ${rule.min} to ${rule.max} characters, letters, digits and hyphens only.`,
      'InvalidName',
    );
  }
  return name;
}

/** Fields of the original API that later Gridwire versions accept; named so the error says so. */
const NOT_YET_SUPPORTED = new Set([
  'properties.deadLetterWithResourceIdentity',
  'properties.deliveryWithResourceIdentity',
  'properties.destination.properties.maxEventsPerBatch',
  'properties.destination.properties.preferredBatchSizeInKilobytes',
  'properties.destination.properties.deliveryAttributeMappings',
  'properties.destination.properties.azureActiveDirectoryTenantId',
  'properties.destination.properties.azureActiveDirectoryApplicationIdOrUri',
  'properties.filter.subjectBeginsWith',
  'properties.filter.subjectEndsWith',
  'properties.filter.isSubjectCaseSensitive',
  'properties.filter.advancedFilters',
  'properties.filter.enableAdvancedFilteringOnArrays',
  'properties.expirationTimeUtc',
]);

/** Turns the first zod issue into a 400 whose message names the field. */
export function invalidBody(error: ZodError, what: string): Error {
  const issue = error.issues[0];
  if (issue === undefined) return badRequest(`The ${what} is invalid.`);
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const fields = issue.keys.map((key) => (path === '' ? key : `${path}.${key}`));
    const later = fields.filter((field) => NOT_YET_SUPPORTED.has(field));
    if (later.length > 0) {
      return badRequest(
        `${later.join(', ')}: not supported yet by this version of Gridwire.`,
        'NotSupported',
      );
    }
    return badRequest(`${fields.join(', ')}: unknown field${fields.length > 1 ? 's' : ''} in the ${what}.`);
  }
  return badRequest(`${path === '' ? 'body' : path}: ${issue.message}.`);
}

const intInRange = (range: Range) =>
  z
    .number({ error: `must be an integer between ${range.min} and ${range.max}` })
    .int({ error: `must be an integer between ${range.min} and ${range.max}` })
    .min(range.min, {
      error: `must be an integer between ${range.min} and ${range.max} (got a smaller value)`,
    })
    .max(range.max, {
      error: `must be an integer between ${range.min} and ${range.max} (got a larger value)`,
    });

/** The longest source field name and default value a mapping may hold. */
export const MAPPING_LIMITS = { sourceFieldChars: 256, defaultValueChars: 1024 } as const;

const sourceField = z
  .string({ error: 'sourceField must be a string naming a top-level member of the published events' })
  .min(1, 'sourceField must not be empty')
  .max(
    MAPPING_LIMITS.sourceFieldChars,
    `sourceField may be at most ${MAPPING_LIMITS.sourceFieldChars} characters`,
  );

/** `id`, `topic`, `eventTime`: only from the event (each event needs its own). */
const sourceOnly = z.strictObject({
  sourceField,
  defaultValue: z
    .never({ error: 'takes no defaultValue: this field comes only from a sourceField' })
    .optional(),
});

/** `subject`, `eventType`, `dataVersion`: a source field, a default, or both. */
const sourceOrDefault = z
  .strictObject({
    sourceField: sourceField.optional(),
    defaultValue: z
      .string({ error: 'defaultValue must be a string' })
      .min(1, 'defaultValue must not be empty')
      .max(
        MAPPING_LIMITS.defaultValueChars,
        `defaultValue may be at most ${MAPPING_LIMITS.defaultValueChars} characters`,
      )
      .optional(),
  })
  .refine((field) => field.sourceField !== undefined || field.defaultValue !== undefined, {
    error: 'needs a sourceField, a defaultValue or both',
  });

const inputSchemaMappingSchema = z.strictObject({
  inputSchemaMappingType: z.literal('Json', { error: 'must be "Json"' }),
  properties: z
    .strictObject({
      id: sourceOnly.optional(),
      topic: sourceOnly.optional(),
      eventTime: sourceOnly.optional(),
      subject: sourceOrDefault.optional(),
      eventType: sourceOrDefault.optional(),
      dataVersion: sourceOrDefault.optional(),
    })
    .superRefine((fields, ctx) => {
      // Event Grid events need both; without either, no event could ever be mapped.
      for (const required of ['eventType', 'subject'] as const) {
        if (fields[required] === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [required],
            message:
              'is required: give a sourceField, a defaultValue or both (every Event Grid event has one)',
          });
        }
      }
    }),
});

export const topicBodySchema = z.strictObject({
  location: z.string().optional(),
  tags: z.record(z.string(), z.string()).optional(),
  properties: z
    .strictObject({
      inputSchema: z
        .string({ error: `must be one of ${INPUT_SCHEMAS.join(', ')}` })
        .refine((value) => (INPUT_SCHEMAS as readonly string[]).includes(value), {
          error: `must be one of ${INPUT_SCHEMAS.join(', ')}`,
        })
        .optional(),
      inputSchemaMapping: inputSchemaMappingSchema.optional(),
      publicNetworkAccess: z.string().optional(),
    })
    .superRefine((properties, ctx) => {
      const custom = properties.inputSchema === 'CustomEventSchema';
      if (custom && properties.inputSchemaMapping === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['inputSchemaMapping'],
          message:
            'is required with inputSchema CustomEventSchema: {"inputSchemaMappingType": "Json", "properties": {...}} mapping at least eventType and subject',
        });
      }
      if (!custom && properties.inputSchemaMapping !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['inputSchemaMapping'],
          message: 'applies only to topics with inputSchema CustomEventSchema',
        });
      }
    })
    .optional(),
});

export interface TopicInput {
  inputSchema: InputSchema;
  inputSchemaMapping?: InputSchemaMapping;
  tags: Record<string, string>;
}

/** The mapping as stored: only the fields given, each with only its given parts. */
function mappingOf(fields: z.infer<typeof inputSchemaMappingSchema>['properties']): InputSchemaMapping {
  const mapping: Record<string, MappedField> = {};
  for (const name of MAPPED_FIELDS) {
    const field = fields[name];
    if (field === undefined) continue;
    mapping[name] = {
      ...(field.sourceField === undefined ? {} : { sourceField: field.sourceField }),
      ...('defaultValue' in field && field.defaultValue !== undefined
        ? { defaultValue: field.defaultValue }
        : {}),
    };
  }
  return mapping as InputSchemaMapping;
}

export function parseTopicBody(body: unknown): TopicInput {
  const parsed = topicBodySchema.safeParse(body ?? {});
  if (!parsed.success) throw invalidBody(parsed.error, 'topic definition');
  const mapping = parsed.data.properties?.inputSchemaMapping;
  return {
    inputSchema: (parsed.data.properties?.inputSchema as InputSchema | undefined) ?? 'EventGridSchema',
    ...(mapping === undefined ? {} : { inputSchemaMapping: mappingOf(mapping.properties) }),
    tags: parsed.data.tags ?? {},
  };
}

/** A mapping as the management API shows it (the original's ARM shape). */
export const inputSchemaMappingDocument = (mapping: InputSchemaMapping) => ({
  inputSchemaMappingType: 'Json',
  properties: mapping,
});

/** Whether two mappings say the same thing (a topic's mapping cannot be changed). */
export const sameMapping = (a: InputSchemaMapping | undefined, b: InputSchemaMapping | undefined): boolean =>
  JSON.stringify(a === undefined ? null : mappingOf(a)) ===
  JSON.stringify(b === undefined ? null : mappingOf(b));

function subscriptionBodySchema(profile: DeliveryProfile, allowHttp: boolean) {
  const endpointUrl = z.string({ error: 'is required and must be a string' }).superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL' });
      return;
    }
    const allowed = allowHttp ? ['https:', 'http:'] : ['https:'];
    if (!allowed.includes(url.protocol)) {
      ctx.addIssue({
        code: 'custom',
        message: allowHttp
          ? 'must be an http or https URL'
          : 'must be an https URL (http is allowed in local mode only)',
      });
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not carry user credentials' });
    }
  });
  return z.strictObject({
    properties: z.strictObject(
      {
        destination: z.strictObject(
          {
            endpointType: z.literal('WebHook', { error: "must be 'WebHook'" }),
            properties: z.strictObject({ endpointUrl }, { error: 'is required' }),
          },
          { error: 'is required' },
        ),
        filter: z
          .strictObject({
            includedEventTypes: z
              .array(z.string().min(1, { error: 'entries must be non-empty strings' }), {
                error: 'must be an array of event type names, or null for all',
              })
              .max(100, { error: 'holds at most 100 event types' })
              .nullable()
              .optional(),
          })
          .optional(),
        retryPolicy: z
          .strictObject({
            maxDeliveryAttempts: intInRange(profile.limits.maxDeliveryAttempts).optional(),
            eventTimeToLiveInMinutes: intInRange(profile.limits.eventTimeToLiveInMinutes).optional(),
          })
          .optional(),
        eventDeliverySchema: z
          .enum(EVENT_DELIVERY_SCHEMAS, { error: `must be one of ${EVENT_DELIVERY_SCHEMAS.join(', ')}` })
          .optional(),
        labels: z.array(z.string()).optional(),
        deadLetterDestination: z
          .strictObject({
            endpointType: z.literal('StorageBlob', { error: "must be 'StorageBlob'" }),
            properties: z.strictObject(
              {
                blobContainerName: z.string({ error: 'is required' }).regex(CONTAINER_NAME.pattern, {
                  error: `must be ${CONTAINER_NAME.min} to ${CONTAINER_NAME.max} lower-case letters, digits and single hyphens, starting and ending with a letter or digit`,
                }),
                resourceId: z.string().max(1024, { error: 'is at most 1024 characters' }).optional(),
              },
              { error: 'is required' },
            ),
          })
          .nullable()
          .optional(),
      },
      { error: 'is required' },
    ),
  });
}

/** The original's storage container rule; the container is the top-level key prefix of dead letters. */
export const CONTAINER_NAME = {
  min: 3,
  max: 63,
  pattern: /^(?=.{3,63}$)[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$/,
} as const;

export interface SubscriptionInput {
  endpointUrl: string;
  includedEventTypes?: string[];
  /** Normalised once, here: `{ maxAttempts, ttlMs }`. */
  retry: RetryLimits;
  labels: string[];
  deadLetter?: DeadLetterDestination;
  /** As asked for; {@link deliverySchemaFor} decides it against the topic. */
  eventDeliverySchema?: (typeof EVENT_DELIVERY_SCHEMAS)[number];
}

/**
 * The delivery schema of a subscription on a topic with `inputSchema`, by the original's rules.
 * Event Grid input: Event Grid (default) or CloudEvents 1.0 (converted when delivered). Custom
 * input: Event Grid through the topic's mapping (default), CloudEvents 1.0 through it too, or
 * CustomInputSchema (as published). CloudEvents input: CloudEvents only. Anything else is a 400
 * naming `eventDeliverySchema`.
 */
export function deliverySchemaFor(
  inputSchema: InputSchema,
  requested: SubscriptionInput['eventDeliverySchema'],
): EventDeliverySchema {
  switch (inputSchema) {
    case 'CloudEventSchemaV1_0':
      if (requested === undefined || requested === 'CloudEventSchemaV1_0') return 'CloudEventSchemaV1_0';
      throw badRequest(
        `properties.eventDeliverySchema: a topic with input schema CloudEventSchemaV1_0 delivers CloudEventSchemaV1_0 only; CloudEvents input can't be converted to ${requested}.`,
      );
    case 'EventGridSchema':
      if (requested === 'CustomInputSchema') {
        throw badRequest(
          'properties.eventDeliverySchema: CustomInputSchema delivers events as their publisher wrote them, which only topics with input schema CustomEventSchema take; this topic delivers EventGridSchema or CloudEventSchemaV1_0.',
        );
      }
      return requested ?? 'EventGridSchema';
    case 'CustomEventSchema':
      // As on the original, a custom topic delivers the Event Grid form (through its mapping) by default.
      return requested ?? 'EventGridSchema';
  }
}

export function parseSubscriptionBody(body: unknown, options: { allowHttp: boolean }): SubscriptionInput {
  const parsed = subscriptionBodySchema(TOPIC_PROFILE, options.allowHttp).safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error, 'event subscription');
  const { properties } = parsed.data;
  const types = properties.filter?.includedEventTypes ?? undefined;
  const limits = TOPIC_PROFILE.limits;
  const dead = properties.deadLetterDestination;
  return {
    endpointUrl: properties.destination.properties.endpointUrl,
    ...(types === undefined || types.some((type) => type.toLowerCase() === 'all')
      ? {}
      : { includedEventTypes: types }),
    retry: retryLimitsOf({
      maxDeliveryAttempts: properties.retryPolicy?.maxDeliveryAttempts ?? limits.maxDeliveryAttempts.default,
      eventTimeToLiveInMinutes:
        properties.retryPolicy?.eventTimeToLiveInMinutes ?? limits.eventTimeToLiveInMinutes.default,
    }),
    labels: properties.labels ?? [],
    ...(properties.eventDeliverySchema === undefined
      ? {}
      : { eventDeliverySchema: properties.eventDeliverySchema }),
    ...(dead === undefined || dead === null
      ? {}
      : {
          deadLetter: {
            container: dead.properties.blobContainerName,
            ...(dead.properties.resourceId === undefined ? {} : { resourceId: dead.properties.resourceId }),
          },
        }),
  };
}

const systemData = (resource: { createdAt: string; updatedAt: string }) => ({
  createdAt: resource.createdAt,
  lastModifiedAt: resource.updatedAt,
});

/** The topic as the management API returns it. */
export function topicDocument(topic: Topic, baseUrl: string) {
  return {
    id: topicResourceId(topic.name),
    name: topic.name,
    type: 'Microsoft.EventGrid/topics',
    tags: topic.tags,
    properties: {
      provisioningState: 'Succeeded',
      endpoint: `${baseUrl}/topics/${topic.name}/api/events`,
      inputSchema: topic.inputSchema,
      ...(topic.inputSchemaMapping === undefined
        ? {}
        : { inputSchemaMapping: inputSchemaMappingDocument(topic.inputSchemaMapping) }),
    },
    systemData: systemData(topic),
  };
}

/** The endpoint URL without query string or fragment, which may carry secrets. */
export function endpointBaseUrl(endpointUrl: string): string {
  const url = new URL(endpointUrl);
  return `${url.origin}${url.pathname}`;
}

/** The subscription as the management API returns it (the full endpoint URL only via getFullUrl). */
export function subscriptionDocument(subscription: Subscription) {
  const topicId = topicResourceId(subscription.topic);
  return {
    id: `${topicId}/eventSubscriptions/${subscription.name}`,
    name: subscription.name,
    type: 'Microsoft.EventGrid/eventSubscriptions',
    properties: {
      topic: topicId,
      provisioningState: 'Succeeded',
      destination: {
        endpointType: 'WebHook',
        properties: { endpointBaseUrl: endpointBaseUrl(subscription.destination.endpointUrl) },
      },
      filter: { includedEventTypes: subscription.filter.includedEventTypes ?? null },
      retryPolicy: retryPolicyOf(subscription.retry),
      eventDeliverySchema: subscription.eventDeliverySchema,
      labels: subscription.labels,
      ...(subscription.deadLetter === undefined
        ? {}
        : {
            deadLetterDestination: {
              endpointType: 'StorageBlob',
              properties: {
                blobContainerName: subscription.deadLetter.container,
                ...(subscription.deadLetter.resourceId === undefined
                  ? {}
                  : { resourceId: subscription.deadLetter.resourceId }),
              },
            },
          }),
    },
    systemData: systemData(subscription),
  };
}

const isoOrNull = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/**
 * An endpoint's health as the management API returns it. `health` is already the record about
 * the subscription's current endpoint (`currentHealth`); `probationUntil` is shown only while it
 * holds attempts back, and the endpoint URL without its query string, like `endpointBaseUrl`.
 */
export function healthDocument(health: EndpointHealth, nowMs: number) {
  return {
    state: healthState(health, nowMs),
    probationUntil:
      health.probationUntil !== undefined && health.probationUntil > nowMs
        ? isoOrNull(health.probationUntil)
        : null,
    consecutiveFailures: health.consecutiveFailures,
    lastOutcome: health.lastOutcome ?? null,
    lastFailureAt: isoOrNull(health.lastFailureAt),
    lastSuccessAt: isoOrNull(health.lastSuccessAt),
    endpointUrl: endpointBaseUrl(health.endpointUrl),
  };
}

export type HealthDocument = ReturnType<typeof healthDocument>;

/**
 * Request bodies of the management API (ARM-shaped, as the original service takes them) and the
 * resource documents it returns. Every rejection names the field and the allowed values.
 */

import { type ZodError, z } from 'zod';
import { BATCH_LIMITS } from '../delivery/rules/batching';
import { provisioningStateOf } from '../delivery/rules/handshake';
import { healthState } from '../delivery/rules/health';
import { type DeliveryProfile, type Range, TOPIC_PROFILE } from '../delivery/rules/profiles';
import {
  type DeadLetterDestination,
  type DeliveryAttributeMapping,
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
  type SubscriptionFilter,
  type Topic,
  type WebhookDestination,
} from '../domain/model';
import { isValidName, NAME_RULES, type NameKind, topicResourceId } from '../domain/names';
import { badRequest } from '../http/errors';
import { describeControlCharacter, firstControlCharacter } from '../platform/control-characters';
import { firstIssue } from '../platform/zod-issues';
import { validateFilter } from '../publish/filter';
import type { TopicInput } from '../storage/topics';

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
  'properties.destination.properties.azureActiveDirectoryTenantId',
  'properties.destination.properties.azureActiveDirectoryApplicationIdOrUri',
  'properties.expirationTimeUtc',
]);

/** Turns the first zod issue into a 400 whose message names the field. */
export function invalidBody(error: ZodError, what: string): Error {
  const first = firstIssue(error);
  if (first === undefined) return badRequest(`The ${what} is invalid.`);
  const { issue, path } = first;
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

/** An integer in `range`; the message names the range. */
export const intInRange = (range: Range) =>
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

/** The original's limits on delivery attribute mappings (custom delivery headers). */
export const DELIVERY_ATTRIBUTE_LIMITS = {
  maxMappings: 10,
  nameChars: 100,
  /** UTF-8 bytes of a static value. */
  valueBytes: 4096,
  sourceFieldChars: 256,
} as const;

export const DELIVERY_ATTRIBUTE_TYPES = ['Static', 'Dynamic'] as const;

/** Prefix of the headers Gridwire itself sends with deliveries (as the original's `aeg-*`). */
const RESERVED_PREFIX = 'aeg-';

/**
 * Header names a mapping may not use, and why: Gridwire sets them for each request, or they
 * control the connection or the message's framing, so a custom value would break the request.
 */
export const RESERVED_HEADER_NAMES: Readonly<Record<string, string>> = {
  host: 'Gridwire sets it from the endpoint URL',
  'content-type': 'Gridwire sets it for the delivery schema',
  'content-length': 'Gridwire sets it from the body (it frames the request)',
  'content-encoding': 'it would make the endpoint decode the body wrongly',
  'transfer-encoding': 'it frames the request, which Gridwire controls',
  connection: 'it controls the connection, which Gridwire manages',
  'keep-alive': 'it controls the connection, which Gridwire manages',
  te: 'it negotiates transfer codings, which Gridwire controls',
  trailer: 'it announces trailer fields, which Gridwire never sends',
  upgrade: 'it asks to switch protocols, which would break the request',
  expect: 'it changes how the request is sent, which Gridwire controls',
};

/** RFC 9110 `token`: the characters of a header name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 `field-value` characters: tab, space, visible ASCII and obs-text (0x80-0xFF). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const headerName = z.string({ error: 'must be a string: an HTTP header name' }).superRefine((name, ctx) => {
  const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
  if (name.length < 1 || name.length > DELIVERY_ATTRIBUTE_LIMITS.nameChars) {
    return fail(`must be 1 to ${DELIVERY_ATTRIBUTE_LIMITS.nameChars} characters (got ${name.length})`);
  }
  if (!HEADER_NAME.test(name)) {
    return fail(
      "must be a valid HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only (no spaces, colons or other characters)",
    );
  }
  const lower = name.toLowerCase();
  if (lower.startsWith(RESERVED_PREFIX)) {
    return fail(
      `must not start with '${RESERVED_PREFIX}': those headers are Gridwire's own delivery headers`,
    );
  }
  const reason = RESERVED_HEADER_NAMES[lower];
  if (reason !== undefined) return fail(`'${name}' can't be set by a mapping: ${reason}`);
});

const staticProperties = z.strictObject(
  {
    value: z
      .string({
        error:
          'must be a string (a secret value is never shown, so it is given again with every PUT of the subscription)',
      })
      .superRefine((value, ctx) => {
        const bytes = Buffer.byteLength(value, 'utf8');
        if (bytes > DELIVERY_ATTRIBUTE_LIMITS.valueBytes) {
          ctx.addIssue({
            code: 'custom',
            message: `may be at most ${DELIVERY_ATTRIBUTE_LIMITS.valueBytes} bytes in UTF-8 (got ${bytes} bytes)`,
          });
        } else if (!HEADER_VALUE.test(value)) {
          ctx.addIssue({
            code: 'custom',
            message:
              "holds a character a header value can't carry: only tab, space, visible ASCII and Latin-1 (0x80-0xFF), no CR, LF or other control characters",
          });
        }
      }),
    isSecret: z.boolean({ error: 'must be true or false' }).optional(),
  },
  { error: 'is required: {"value": "...", "isSecret": false}' },
);

const dynamicProperties = z.strictObject(
  {
    sourceField: z
      .string({ error: 'must be a string: a dotted path into the event, such as data.tenant' })
      .superRefine((path, ctx) => {
        const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
        if (path === '') return fail('must not be empty: a dotted path into the event, such as data.tenant');
        if (path.length > DELIVERY_ATTRIBUTE_LIMITS.sourceFieldChars) {
          return fail(
            `may be at most ${DELIVERY_ATTRIBUTE_LIMITS.sourceFieldChars} characters (got ${path.length})`,
          );
        }
        if (path.split('.').some((segment) => segment === '')) {
          return fail("must be a dotted path with no empty segments (no leading, trailing or doubled '.')");
        }
      }),
  },
  { error: 'is required: {"sourceField": "data.tenant"}' },
);

export const deliveryAttributeMappingsSchema = z
  .array(
    z.discriminatedUnion(
      'type',
      [
        z.strictObject({ name: headerName, type: z.literal('Static'), properties: staticProperties }),
        z.strictObject({ name: headerName, type: z.literal('Dynamic'), properties: dynamicProperties }),
      ],
      {
        error: (issue) =>
          issue.code === 'invalid_union'
            ? `must be one of ${DELIVERY_ATTRIBUTE_TYPES.join(', ')}`
            : 'must be an object: {"name": "...", "type": "Static" or "Dynamic", "properties": {...}}',
      },
    ),
    { error: 'must be an array of mappings' },
  )
  .superRefine((mappings, ctx) => {
    if (mappings.length > DELIVERY_ATTRIBUTE_LIMITS.maxMappings) {
      ctx.addIssue({
        code: 'custom',
        message: `holds at most ${DELIVERY_ATTRIBUTE_LIMITS.maxMappings} mappings (got ${mappings.length})`,
      });
      return;
    }
    const seen = new Map<string, number>();
    mappings.forEach((mapping, index) => {
      const key = mapping.name.toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `'${mapping.name}' is already the name of mapping ${first} (names are unique, ignoring case)`,
        });
      } else {
        seen.set(key, index);
      }
    });
  });

/** The original's storage container rule; the container is the top-level key prefix of dead letters. */
export const CONTAINER_NAME = {
  min: 3,
  max: 63,
  pattern: /^(?=.{3,63}$)[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$/,
} as const;

/** `URL.href` of a URL already checked; the text itself if it does not parse (never stored then). */
const normalizedUrl = (value: string): string => {
  try {
    return new URL(value).href;
  } catch {
    return value;
  }
};

/** A webhook destination (`{"endpointType": "WebHook", "properties": {...}}`) as both kinds of subscription take it. */
export function webhookDestinationSchema(allowHttp: boolean) {
  const endpointUrl = z.string({ error: 'is required and must be a string' }).superRefine((value, ctx) => {
    // Checked as typed: the URL parser would quietly drop tabs and line breaks.
    const control = firstControlCharacter(value);
    if (control !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `must not contain control characters (CR, LF, tab or any other below U+0020, or DEL); found ${describeControlCharacter(control.code)} at position ${control.index}`,
      });
      return;
    }
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
  // Stored as parsed (`URL.href`): the one spelling delivery, health and validation compare.
  const parsedEndpointUrl = endpointUrl.transform((value) => normalizedUrl(value));
  return z.strictObject(
    {
      endpointType: z.literal('WebHook', { error: "must be 'WebHook'" }),
      properties: z.strictObject(
        {
          endpointUrl: parsedEndpointUrl,
          maxEventsPerBatch: intInRange(BATCH_LIMITS.maxEventsPerBatch).optional(),
          preferredBatchSizeInKilobytes: intInRange(BATCH_LIMITS.preferredBatchSizeInKilobytes).optional(),
          deliveryAttributeMappings: deliveryAttributeMappingsSchema.optional(),
        },
        { error: 'is required' },
      ),
    },
    { error: 'is required' },
  );
}

/** A storage-blob dead-letter destination, as both kinds of subscription take it. */
export const deadLetterDestinationSchema = z.strictObject(
  {
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
  },
  { error: 'is required' },
);

/**
 * A subscription's filter as both kinds of subscription take it (`filter` on classic ones,
 * `filtersConfiguration` on namespace ones): checked by the filter rules themselves
 * (`validateFilter`), so what is accepted is exactly what the fan-out can compile. A violation
 * is a 400 naming the field, the index and the limit.
 */
export const subscriptionFilterSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value === undefined || value === null) return;
    const violation = validateFilter(value);
    if (violation !== undefined) {
      ctx.addIssue({ code: 'custom', path: violation.field.split('.'), message: violation.message });
    }
  })
  .optional();

/** The filter as stored: the event type list as {@link includedEventTypesOf} keeps it, the rest as given. */
export function filterOf(raw: unknown): SubscriptionFilter {
  if (raw === undefined || raw === null) return {};
  const { includedEventTypes, ...rest } = raw as SubscriptionFilter & {
    includedEventTypes?: string[] | null;
  };
  const defined = Object.fromEntries(
    Object.entries(rest).filter(([, value]) => value !== undefined && value !== null),
  );
  return { ...includedEventTypesOf(includedEventTypes), ...defined } as SubscriptionFilter;
}

/** A stored filter as the management API shows it (`includedEventTypes` null for every type). */
export const filterDocument = (filter: SubscriptionFilter) => ({
  ...filter,
  includedEventTypes: filter.includedEventTypes ?? null,
});

function subscriptionBodySchema(profile: DeliveryProfile, allowHttp: boolean) {
  return z.strictObject({
    properties: z.strictObject(
      {
        destination: webhookDestinationSchema(allowHttp),
        filter: subscriptionFilterSchema,
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
        deadLetterDestination: deadLetterDestinationSchema.nullable().optional(),
      },
      { error: 'is required' },
    ),
  });
}

/**
 * A delivery attribute mapping as the API takes it: a secret static value still in plain text
 * (sealed before it is stored; see `shared/management/api.ts`).
 */
export type DeliveryAttributeInput =
  | { name: string; type: 'Static'; isSecret: boolean; value: string }
  | { name: string; type: 'Dynamic'; sourceField: string };

export interface SubscriptionInput {
  endpointUrl: string;
  /** Output batching, only the settings given. */
  maxEventsPerBatch?: number;
  preferredBatchSizeInKilobytes?: number;
  /** Custom delivery headers, in the order given; absent when none. */
  deliveryAttributeMappings?: DeliveryAttributeInput[];
  /** The whole filter as stored (event types, subject and advanced filters). */
  filter: SubscriptionFilter;
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

/** The parts of a subscription input its webhook destination gives. */
export type DestinationInput = Pick<
  SubscriptionInput,
  'endpointUrl' | 'maxEventsPerBatch' | 'preferredBatchSizeInKilobytes' | 'deliveryAttributeMappings'
>;

/** A parsed webhook destination as input: batch settings only as given, mappings in order. */
export function destinationInputOf(
  destination: z.infer<ReturnType<typeof webhookDestinationSchema>>['properties'],
): DestinationInput {
  const mappings = destination.deliveryAttributeMappings ?? [];
  return {
    endpointUrl: destination.endpointUrl,
    ...(destination.maxEventsPerBatch === undefined
      ? {}
      : { maxEventsPerBatch: destination.maxEventsPerBatch }),
    ...(destination.preferredBatchSizeInKilobytes === undefined
      ? {}
      : { preferredBatchSizeInKilobytes: destination.preferredBatchSizeInKilobytes }),
    ...(mappings.length === 0
      ? {}
      : {
          deliveryAttributeMappings: mappings.map(
            (mapping): DeliveryAttributeInput =>
              mapping.type === 'Static'
                ? {
                    name: mapping.name,
                    type: 'Static',
                    isSecret: mapping.properties.isSecret ?? false,
                    value: mapping.properties.value,
                  }
                : { name: mapping.name, type: 'Dynamic', sourceField: mapping.properties.sourceField },
          ),
        }),
  };
}

/** The event type filter as stored: absent (every type) for none, null or `All`. */
const includedEventTypesOf = (
  types: string[] | null | undefined,
): Pick<SubscriptionFilter, 'includedEventTypes'> =>
  types === undefined || types === null || types.some((type) => type.toLowerCase() === 'all')
    ? {}
    : { includedEventTypes: types };

/** A parsed dead-letter destination as stored. */
export const deadLetterOf = (
  dead: z.infer<typeof deadLetterDestinationSchema> | null | undefined,
): Pick<SubscriptionInput, 'deadLetter'> =>
  dead === undefined || dead === null
    ? {}
    : {
        deadLetter: {
          container: dead.properties.blobContainerName,
          ...(dead.properties.resourceId === undefined ? {} : { resourceId: dead.properties.resourceId }),
        },
      };

export function parseSubscriptionBody(body: unknown, options: { allowHttp: boolean }): SubscriptionInput {
  const parsed = subscriptionBodySchema(TOPIC_PROFILE, options.allowHttp).safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error, 'event subscription');
  const { properties } = parsed.data;
  const limits = TOPIC_PROFILE.limits;
  return {
    ...destinationInputOf(properties.destination.properties),
    filter: filterOf(properties.filter),
    retry: retryLimitsOf({
      maxDeliveryAttempts: properties.retryPolicy?.maxDeliveryAttempts ?? limits.maxDeliveryAttempts.default,
      eventTimeToLiveInMinutes:
        properties.retryPolicy?.eventTimeToLiveInMinutes ?? limits.eventTimeToLiveInMinutes.default,
    }),
    labels: properties.labels ?? [],
    ...(properties.eventDeliverySchema === undefined
      ? {}
      : { eventDeliverySchema: properties.eventDeliverySchema }),
    ...deadLetterOf(properties.deadLetterDestination),
  };
}

/** `systemData` of a resource document. */
export const systemData = (resource: { createdAt: string; updatedAt: string }) => ({
  createdAt: resource.createdAt,
  lastModifiedAt: resource.updatedAt,
});

/** The topic as the management API returns it. */
export function topicDocument(topic: Omit<Topic, 'keys'>, baseUrl: string) {
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

/** A mapping as the management API shows it: a secret value is never shown, sealed or not. */
export function deliveryAttributeMappingDocument(mapping: DeliveryAttributeMapping) {
  if (mapping.type === 'Dynamic') {
    return { name: mapping.name, type: 'Dynamic', properties: { sourceField: mapping.sourceField } };
  }
  return {
    name: mapping.name,
    type: 'Static',
    properties: mapping.isSecret
      ? { value: null, isSecret: true }
      : { value: mapping.value, isSecret: false },
  };
}

/** The destination's properties as shown: batch settings always (their defaults when not set). */
export function destinationPropertiesDocument(destination: WebhookDestination) {
  const mappings = destination.deliveryAttributeMappings ?? [];
  return {
    endpointBaseUrl: endpointBaseUrl(destination.endpointUrl),
    maxEventsPerBatch: destination.maxEventsPerBatch ?? BATCH_LIMITS.maxEventsPerBatch.default,
    preferredBatchSizeInKilobytes:
      destination.preferredBatchSizeInKilobytes ?? BATCH_LIMITS.preferredBatchSizeInKilobytes.default,
    ...(mappings.length === 0
      ? {}
      : { deliveryAttributeMappings: mappings.map(deliveryAttributeMappingDocument) }),
  };
}

/** A dead-letter destination as shown. */
export const deadLetterDocument = (deadLetter: DeadLetterDestination) => ({
  endpointType: 'StorageBlob',
  properties: {
    blobContainerName: deadLetter.container,
    ...(deadLetter.resourceId === undefined ? {} : { resourceId: deadLetter.resourceId }),
  },
});

/**
 * `provisioningState` at `nowMs`, and while the endpoint has not agreed (or once it did), how its
 * validation stands. The code is never shown: only the endpoint receives it.
 */
export function provisioningProperties(subscription: Subscription, nowMs: number) {
  const validation = subscription.validation;
  return {
    provisioningState: provisioningStateOf(subscription, nowMs),
    ...(validation === undefined
      ? {}
      : {
          endpointValidation: {
            startedAt: new Date(validation.startedAt).toISOString(),
            ...(validation.validatedAt === undefined
              ? { validationUrlExpiresAt: new Date(validation.expiresAt).toISOString() }
              : { validatedAt: new Date(validation.validatedAt).toISOString() }),
            ...(validation.handshakeError === undefined || validation.validatedAt !== undefined
              ? {}
              : { handshakeError: validation.handshakeError }),
          },
        }),
  };
}

/** The subscription as the management API returns it (the full endpoint URL only via getFullUrl). */
export function subscriptionDocument(subscription: Subscription, nowMs: number) {
  const topicId = topicResourceId(subscription.topic);
  return {
    id: `${topicId}/eventSubscriptions/${subscription.name}`,
    name: subscription.name,
    type: 'Microsoft.EventGrid/eventSubscriptions',
    properties: {
      topic: topicId,
      ...provisioningProperties(subscription, nowMs),
      destination: {
        endpointType: 'WebHook',
        properties: destinationPropertiesDocument(subscription.destination),
      },
      filter: filterDocument(subscription.filter),
      retryPolicy: retryPolicyOf(subscription.retry),
      eventDeliverySchema: subscription.eventDeliverySchema,
      labels: subscription.labels,
      ...(subscription.deadLetter === undefined
        ? {}
        : { deadLetterDestination: deadLetterDocument(subscription.deadLetter) }),
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

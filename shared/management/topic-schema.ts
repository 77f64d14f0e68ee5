/**
 * The topic request body (ARM-shaped, as the original service takes it): input schema, and for a
 * custom-schema topic the mapping of its events' fields onto Event Grid's.
 */

import { z } from 'zod';
import {
  ARCHIVE_RETENTION_IN_DAYS,
  DEDUPLICATION_WINDOW_IN_MINUTES,
  INPUT_SCHEMAS,
  type InputSchema,
  type InputSchemaMapping,
  MAPPED_FIELDS,
  type MappedField,
  UNKNOWN_EVENT_TYPES,
} from '../domain/model';
import type { TopicInput } from '../storage/topics';
import { intInRange, invalidBody } from './request-body';

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

/**
 * `properties.validateEvents`: events whose type has a schema in the topic's event catalog must
 * match it (default false; classic and namespace topics).
 */
export const validateEventsSchema = z
  .boolean({ error: 'must be true or false' })
  .describe(
    "Check each published event's data against its type's schema in the topic's event catalog (default false).",
  );

/**
 * `properties.unknownEventTypes`: with `validateEvents`, what an event of a type the catalog does
 * not list gets: `allow` (the default) or `reject`.
 */
export const unknownEventTypesSchema = z
  .enum(UNKNOWN_EVENT_TYPES, { error: `must be one of ${UNKNOWN_EVENT_TYPES.join(', ')}` })
  .describe(
    "With validateEvents: an event of a type the topic's catalog does not list passes (allow, the default) or is refused (reject).",
  );

/** `properties.archive`: `{"retentionInDays": 1..365}`; `null` or absent: no archive. */
export const archiveBodySchema = z.strictObject(
  { retentionInDays: intInRange(ARCHIVE_RETENTION_IN_DAYS) },
  {
    error: `must be {"retentionInDays": ${ARCHIVE_RETENTION_IN_DAYS.min}..${ARCHIVE_RETENTION_IN_DAYS.max}} or null`,
  },
);

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
      deduplicationWindowInMinutes: intInRange(DEDUPLICATION_WINDOW_IN_MINUTES).optional(),
      archive: archiveBodySchema.nullable().optional(),
      validateEvents: validateEventsSchema.optional(),
      unknownEventTypes: unknownEventTypesSchema.optional(),
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
      if (
        custom &&
        (properties.deduplicationWindowInMinutes ?? 0) > 0 &&
        properties.inputSchemaMapping?.properties.id?.sourceField === undefined
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['deduplicationWindowInMinutes'],
          message:
            'needs the events to carry their ids: map id from a member (inputSchemaMapping.properties.id.sourceField), or leave the window at 0',
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
  // Absent: `{}`. A JSON `null` is no object: refused, as the document describes the body.
  const parsed = topicBodySchema.safeParse(body === undefined ? {} : body);
  if (!parsed.success) throw invalidBody(parsed.error, 'topic definition');
  const mapping = parsed.data.properties?.inputSchemaMapping;
  return {
    inputSchema: (parsed.data.properties?.inputSchema as InputSchema | undefined) ?? 'EventGridSchema',
    ...(mapping === undefined ? {} : { inputSchemaMapping: mappingOf(mapping.properties) }),
    tags: parsed.data.tags ?? {},
    deduplicationWindowInMinutes:
      parsed.data.properties?.deduplicationWindowInMinutes ?? DEDUPLICATION_WINDOW_IN_MINUTES.default,
    ...(parsed.data.properties?.archive == null ? {} : { archive: parsed.data.properties.archive }),
    validateEvents: parsed.data.properties?.validateEvents ?? false,
    unknownEventTypes: parsed.data.properties?.unknownEventTypes ?? 'allow',
  };
}

/** Whether two mappings say the same thing (a topic's mapping cannot be changed). */
export const sameMapping = (a: InputSchemaMapping | undefined, b: InputSchemaMapping | undefined): boolean =>
  JSON.stringify(a === undefined ? null : mappingOf(a)) ===
  JSON.stringify(b === undefined ? null : mappingOf(b));

/**
 * A topic's event catalog in the admin API: the body of `PUT .../eventTypes/{eventType}`
 * ({@link eventTypeBodySchema}), and the documents its routes answer with (one type:
 * {@link eventTypeDocumentSchema}; the list: {@link eventTypeListSchema}). Beside the body's zod
 * schema, a schema must be a valid draft 2020-12 schema that compiles, and an example given with
 * one must match it: {@link parseEventTypeBody} checks both, naming the field and what failed.
 */
import { z } from 'zod';
import { EVENT_TYPE_LIMITS, type EventType, jsonBytes } from '../domain/event-types';
import { namespaceTopicResourceId, splitNamespaceTopicId, topicResourceId } from '../domain/names';
import { badRequest } from '../http/errors';
import { exampleProblem, JSON_SCHEMA_DRAFT, schemaProblem } from '../publish/event-validation';
import { invalidBody } from './request-body';
import { systemData } from './resource-documents';

/** The largest `PUT .../eventTypes/{eventType}` body: a schema and an example at their limits, pretty-printed. */
export const MAX_EVENT_TYPE_BODY_BYTES = 256 * 1024;

const kib = (bytes: number) => `${bytes / 1024} KiB`;

/** `PUT /admin/.../topics/{topic}/eventTypes/{eventType}`: creates the type or replaces it whole. */
export const eventTypeBodySchema = z
  .strictObject(
    {
      description: z
        .string({ error: 'must be a string' })
        .max(
          EVENT_TYPE_LIMITS.descriptionChars,
          `may be at most ${EVENT_TYPE_LIMITS.descriptionChars} characters`,
        )
        .optional()
        .describe(`What events of this type say (at most ${EVENT_TYPE_LIMITS.descriptionChars} characters).`),
      schema: z
        .record(z.string(), z.unknown(), { error: 'must be a JSON Schema (draft 2020-12) object' })
        .optional()
        .describe(
          `A JSON Schema (draft 2020-12, ${JSON_SCHEMA_DRAFT}) of the events' data: valid by the draft's meta-schema, compiling (no unknown keywords or formats, every $ref resolved within it), at most ${kib(EVENT_TYPE_LIMITS.schemaBytes)} as compact JSON. A topic with validateEvents refuses events of this type whose data does not match it.`,
        ),
      example: z
        .unknown()
        .optional()
        .describe(
          `An example of the events' data: any JSON, at most ${kib(EVENT_TYPE_LIMITS.exampleBytes)} as compact JSON; it must match the schema when both are given.`,
        ),
    },
    {
      error:
        'must be a JSON object such as {"description": "...", "schema": {"type": "object"}, "example": {}}',
    },
  )
  .describe('An event type of a topic’s event catalog; every member is optional.');

/** What a type is made of, checked: the schema and example as compact JSON text. */
export interface EventTypeInput {
  description?: string;
  schemaJson?: string;
  exampleJson?: string;
}

/** The body, checked by the zod schema, the size limits, the schema's validity and the example's match. */
export function parseEventTypeBody(body: unknown): EventTypeInput {
  // A JSON `null` is no object either: refused as the document describes the body, not taken as `{}`.
  const parsed = eventTypeBodySchema.safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error, 'event type');
  const { description, schema } = parsed.data;
  const hasExample = typeof body === 'object' && body !== null && Object.hasOwn(body, 'example');
  const schemaJson = schema === undefined ? undefined : JSON.stringify(schema);
  if (schemaJson !== undefined && jsonBytes(schemaJson) > EVENT_TYPE_LIMITS.schemaBytes) {
    throw badRequest(
      `schema: is ${jsonBytes(schemaJson)} bytes as compact JSON; a schema may be at most ${EVENT_TYPE_LIMITS.schemaBytes} bytes (${kib(EVENT_TYPE_LIMITS.schemaBytes)}).`,
    );
  }
  const exampleJson = hasExample ? JSON.stringify(parsed.data.example ?? null) : undefined;
  if (exampleJson !== undefined && jsonBytes(exampleJson) > EVENT_TYPE_LIMITS.exampleBytes) {
    throw badRequest(
      `example: is ${jsonBytes(exampleJson)} bytes as compact JSON; an example may be at most ${EVENT_TYPE_LIMITS.exampleBytes} bytes (${kib(EVENT_TYPE_LIMITS.exampleBytes)}).`,
    );
  }
  if (schema !== undefined) {
    const problem = schemaProblem(schema);
    if (problem !== undefined) throw badRequest(`schema: ${problem}.`, 'InvalidSchema');
    if (hasExample) {
      const mismatch = exampleProblem(schema, parsed.data.example ?? null);
      if (mismatch !== undefined) throw badRequest(`example: ${mismatch}.`, 'ExampleDoesNotMatch');
    }
  }
  return {
    ...(description === undefined ? {} : { description }),
    ...(schemaJson === undefined ? {} : { schemaJson }),
    ...(exampleJson === undefined ? {} : { exampleJson }),
  };
}

// ---- documents ---------------------------------------------------------------------------------

const systemDataSchema = z.object({
  createdAt: z.string().describe('When the type was first put (ISO 8601).'),
  lastModifiedAt: z.string().describe('When it was last put (ISO 8601).'),
});

const resourceFields = {
  id: z
    .string()
    .describe(
      "The type's resource id: /gridwire/topics/<topic>/eventTypes/<name>, or /gridwire/namespaces/<namespace>/topics/<topic>/eventTypes/<name>.",
    ),
  name: z.string().describe('The event type, as first written (names match case-insensitively).'),
  type: z.enum(['Gridwire/topics/eventTypes', 'Gridwire/namespaces/topics/eventTypes']),
  systemData: systemDataSchema,
};

/** One event type as `GET`, and `PUT`, answer it. */
export const eventTypeDocumentSchema = z
  .object({
    ...resourceFields,
    properties: z.object({
      description: z.string().nullable().describe('null when it has none.'),
      schema: z
        .record(z.string(), z.unknown())
        .nullable()
        .describe("The JSON Schema (draft 2020-12) of the events' data; null when it has none."),
      example: z.unknown().optional().describe('An example of the events’ data; absent when it has none.'),
    }),
  })
  .describe('An event type of a topic’s event catalog.');
export type EventTypeDocument = z.infer<typeof eventTypeDocumentSchema>;

/** One event type as the list shows it: without its schema and example, which `GET` of the type shows. */
export const eventTypeSummarySchema = z
  .object({
    ...resourceFields,
    properties: z.object({
      description: z.string().nullable().describe('null when it has none.'),
      hasSchema: z.boolean().describe('Whether it has a schema.'),
      hasExample: z.boolean().describe('Whether it has an example.'),
    }),
  })
  .describe('An event type as a list shows it.');

/** `GET .../eventTypes`: the topic's catalog, sorted by name. */
export const eventTypeListSchema = z
  .object({ value: z.array(eventTypeSummarySchema) })
  .describe('A topic’s event catalog, sorted by name.');

/** The resource id and type of an entry, by its topic id (a classic topic's name or `<namespace>/<topic>`). */
function resourceOf(entry: EventType) {
  const namespaced = splitNamespaceTopicId(entry.topic);
  const topicId =
    namespaced === undefined
      ? topicResourceId(entry.topic)
      : namespaceTopicResourceId(namespaced.namespace, namespaced.topic);
  return {
    id: `${topicId}/eventTypes/${entry.name}`,
    name: entry.name,
    type:
      namespaced === undefined
        ? ('Gridwire/topics/eventTypes' as const)
        : ('Gridwire/namespaces/topics/eventTypes' as const),
  };
}

/** An event type as the API shows it. */
export const eventTypeDocument = (entry: EventType): EventTypeDocument => ({
  ...resourceOf(entry),
  properties: {
    description: entry.description ?? null,
    schema: entry.schemaJson === undefined ? null : (JSON.parse(entry.schemaJson) as Record<string, unknown>),
    ...(entry.exampleJson === undefined ? {} : { example: JSON.parse(entry.exampleJson) as unknown }),
  },
  systemData: systemData(entry),
});

/** An event type as the list shows it. */
export const eventTypeSummary = (entry: EventType): z.infer<typeof eventTypeSummarySchema> => ({
  ...resourceOf(entry),
  properties: {
    description: entry.description ?? null,
    hasSchema: entry.schemaJson !== undefined,
    hasExample: entry.exampleJson !== undefined,
  },
  systemData: systemData(entry),
});

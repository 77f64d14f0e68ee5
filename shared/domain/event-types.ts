/**
 * A topic's event catalog: the event types it documents, each with a description, a JSON Schema
 * (draft 2020-12) of its events' data and an example payload, all optional. A topic with
 * `validateEvents` checks the data of each published event whose type has a schema against it
 * (`publish/event-validation.ts`); its `unknownEventTypes` says what an event of a type the
 * catalog does not list gets. Classic and namespace topics alike: a catalog belongs to a topic
 * id (`<topic>` or `<namespace>/<topic>`, as subscriptions name their topic).
 */
import { z } from 'zod';

/** The limits of a topic's catalog (docs/limits.md). */
export const EVENT_TYPE_LIMITS = {
  /** Event types one topic's catalog may list. */
  perTopic: 100,
  /** Characters of an event type's name. */
  nameChars: { min: 1, max: 128 },
  /** Characters of a description. */
  descriptionChars: 1024,
  /** Bytes of a schema as compact JSON text (UTF-8). */
  schemaBytes: 64 * 1024,
  /** Bytes of an example as compact JSON text (UTF-8). */
  exampleBytes: 64 * 1024,
} as const;

/**
 * What an event type's name may hold: letters, digits and `. _ - : + ~`, starting with a letter
 * or digit (`Order.Created`, `com.example.order.created`, `Microsoft.Storage.BlobCreated`). It is
 * a segment of the catalog's paths, so it holds no `/`, space, `?`, `#` or `%`.
 */
export const EVENT_TYPE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:+~-]*$/;

/** Why `name` is not an event type's name, or `undefined` when it is one. */
export function eventTypeNameProblem(name: string): string | undefined {
  const { min, max } = EVENT_TYPE_LIMITS.nameChars;
  if (name.length < min || name.length > max) {
    return `an event type's name is ${min} to ${max} characters (got ${name.length})`;
  }
  if (!EVENT_TYPE_NAME_PATTERN.test(name)) {
    return "an event type's name holds letters, digits and . _ - : + ~ only, and starts with a letter or digit";
  }
  return undefined;
}

/**
 * One entry of a topic's catalog as stored. The schema and the example are kept as JSON text:
 * what was given, compact, with every number as written and no nesting limit of the table's.
 */
export const eventTypeSchema = z.object({
  /** The topic id: a classic topic's name, or `<namespace>/<topic>`. */
  topic: z.string(),
  /** As first written (names are case-insensitive). */
  name: z.string(),
  description: z.string().optional(),
  /** The JSON Schema (draft 2020-12) of the events' `data`, as JSON text. */
  schemaJson: z.string().optional(),
  /** An example of the events' `data`, as JSON text. */
  exampleJson: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type EventType = z.infer<typeof eventTypeSchema>;

/** What publishers read of a catalog: each type's name and schema, when it has one. */
export interface CatalogSchema {
  name: string;
  schemaJson?: string;
}

/** Bytes of a JSON text in UTF-8 (what the size limits count). */
export const jsonBytes = (text: string): number => Buffer.byteLength(text, 'utf8');

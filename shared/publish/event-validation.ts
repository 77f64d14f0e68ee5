/**
 * Events checked against their topic's event catalog (`domain/event-types.ts`): JSON Schema
 * draft 2020-12, by Ajv. The management API checks a schema when it is put (it must be a valid
 * draft 2020-12 schema that compiles, and a given example must match it: {@link schemaProblem},
 * {@link exampleProblem}); the publisher compiles a topic's schemas once per catalog version
 * ({@link CompiledCatalog}, each type's on its first event) and refuses a publish whose events do
 * not match ({@link checkEventData}), naming the event's index, its type, the path in its data
 * and what failed.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { CatalogSchema } from '../domain/event-types';
import { type EventValidationSettings, eventValidationOf, type Topic } from '../domain/model';
import { TtlCache } from '../platform/cache';
import type { EventTypeStore } from '../storage/event-types';
import { invalidInput } from './rejection';

/** The meta-schema catalog schemas are written in; a schema's `$schema`, when given, must name it. */
export const JSON_SCHEMA_DRAFT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * A new Ajv for draft 2020-12 with the formats of `ajv-formats` (`email`, `date-time`, `uri`...):
 * strict about the schema (an unknown keyword, which would check nothing, is an error), quiet
 * (no log lines), stopping at the first error.
 */
function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: false, logger: false });
  addFormats(ajv);
  return ajv;
}

/** A JSON Pointer into an event's data as the errors name it: `data/items/0/price`, `data` for the whole. */
const dataPath = (instancePath: string): string => `data${instancePath}`;

/** One Ajv error in words: its message, and the value it is about when the message does not say. */
function errorText(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const message = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return `${message} ('${params.additionalProperty}')`;
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed = JSON.stringify(params.allowedValues);
    return allowed.length <= 200 ? `${message} ${allowed}` : message;
  }
  if (error.keyword === 'const' && params.allowedValue !== undefined) {
    const allowed = JSON.stringify(params.allowedValue);
    return allowed.length <= 200 ? `${message} ${allowed}` : message;
  }
  return message;
}

/** The first error of a failed validation, as `<path> <message>`. */
function firstError(errors: readonly ErrorObject[] | null | undefined, path: (pointer: string) => string) {
  const [first] = errors ?? [];
  if (first === undefined) return 'does not match';
  return `${path(first.instancePath)} ${errorText(first)}`;
}

const isSchemaObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why `schema` cannot be a catalog schema, or `undefined` when it can: it must be a JSON object,
 * name draft 2020-12 as its `$schema` if it names one, be valid by the draft's meta-schema and
 * compile (no unknown keywords or formats, every `$ref` resolved within it), and checking a few
 * simple values against it must end (no `$ref` loop that checks nothing: {@link ENDLESS}). The
 * words follow `schema` in an error message.
 */
export function schemaProblem(schema: unknown): string | undefined {
  if (!isSchemaObject(schema)) return 'must be a JSON Schema (draft 2020-12) object';
  const declared = schema.$schema;
  // Not `String(declared)`: an object whose `toString` member is no function cannot be made a string.
  if (
    declared !== undefined &&
    (typeof declared !== 'string' || declared.replace(/#$/, '') !== JSON_SCHEMA_DRAFT)
  ) {
    return `$schema must be ${JSON_SCHEMA_DRAFT} (or left out): only draft 2020-12 is supported (got ${JSON.stringify(declared)})`;
  }
  const ajv = newAjv();
  if (!(ajv.validateSchema(schema) as boolean)) {
    return `is not a valid draft 2020-12 schema: ${firstError(ajv.errors, (pointer) => `at ${pointer === '' ? '/' : pointer}:`)}`;
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    if (isStackOverflow(error)) return ENDLESS;
    return `does not compile: ${(error as Error).message}`;
  }
  if (PROBES.some((probe) => boundedValidate(validate, probe) === 'endless')) return ENDLESS;
  return undefined;
}

/** Why `example` does not match `schema` (a schema {@link schemaProblem} passed), or `undefined`. */
export function exampleProblem(schema: Record<string, unknown>, example: unknown): string | undefined {
  const validate = newAjv().compile(schema);
  const valid = boundedValidate(validate, example);
  if (valid === 'endless') return `cannot be checked: ${ENDLESS}`;
  if (valid) return undefined;
  return `does not match the schema: ${firstError(validate.errors, (pointer) => `example${pointer}`)}`;
}

/**
 * What an endless schema is told by. A schema may refer to itself (`{"$ref": "#"}`, a `$ref` or
 * `$dynamicRef` loop) with nothing in between that stops it: checking a value against it never
 * ends, and Ajv's validator, which recurses, overflows the stack.
 */
const ENDLESS =
  'the schema refers to itself without end (a $ref loop that checks nothing before it recurses)';

/** Values a schema is tried on when it is put, so one endless for any of them is refused then. */
const PROBES: readonly unknown[] = [null, true, 0, '', [], {}, [[]], { a: {} }];

const isStackOverflow = (error: unknown) =>
  (error as Error | undefined)?.name === 'RangeError' && /call stack/i.test((error as Error).message);

/** `validate(value)`, or `'endless'` when checking it never ends (the stack overflowed). */
function boundedValidate(validate: ValidateFunction, value: unknown): boolean | 'endless' {
  try {
    return validate(value) as boolean;
  } catch (error) {
    if (isStackOverflow(error)) return 'endless';
    throw error;
  }
}

/** What the checks need of one accepted event: its type and its data. */
export interface CheckedEvent {
  eventType: string;
  /** The event's `data`, parsed; `undefined` when it has none (checked as `null`). */
  data: unknown;
  /** It carries binary data (a CloudEvent's `data_base64`), which no JSON Schema can check. */
  binaryData?: boolean;
}

interface CatalogEntry {
  name: string;
  schema?: Record<string, unknown>;
  validate?: ValidateFunction;
}

/**
 * A topic's catalog as the publisher holds it, for one catalog version: each type's schema,
 * compiled on its first event and then kept (one Ajv per catalog, so two schemas of one topic
 * may share an `$id`). Type names match case-insensitively, as event type filters do.
 */
export class CompiledCatalog {
  private readonly entries = new Map<string, CatalogEntry>();
  private ajv: Ajv2020 | undefined;
  /** Schemas compiled so far (what the tests count). */
  compiled = 0;

  constructor(schemas: readonly CatalogSchema[]) {
    for (const { name, schemaJson } of schemas) {
      this.entries.set(name.toLowerCase(), {
        name,
        ...(schemaJson === undefined ? {} : { schema: JSON.parse(schemaJson) as Record<string, unknown> }),
      });
    }
  }

  /** Types listed. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The type's validator: `undefined` when the catalog lists the type without a schema,
   * `'unlisted'` when it does not list it.
   */
  validatorOf(eventType: string): ValidateFunction | undefined | 'unlisted' {
    const entry = this.entries.get(eventType.toLowerCase());
    if (entry === undefined) return 'unlisted';
    if (entry.schema === undefined) return undefined;
    if (entry.validate === undefined) {
      this.ajv ??= newAjv();
      entry.validate = this.ajv.compile(entry.schema);
      this.compiled += 1;
    }
    return entry.validate;
  }
}

/**
 * Checks the events of one publish against the topic's catalog, as its settings say; throws a
 * `PublishRejection` naming the first event that fails (its index, its type, and the path in its
 * data with what failed), so nothing of the request is queued. A topic without `validateEvents`
 * checks nothing.
 */
export function checkEventData(
  events: readonly CheckedEvent[],
  settings: EventValidationSettings,
  catalog: CompiledCatalog,
): void {
  if (!settings.validateEvents) return;
  events.forEach((event, index) => {
    const validate = catalog.validatorOf(event.eventType);
    if (validate === 'unlisted') {
      if (settings.unknownEventTypes === 'reject') {
        throw invalidInput(
          `Event at index ${index}: event type '${event.eventType}' is not in the topic's event catalog, and the topic rejects unknown event types (unknownEventTypes: reject).`,
          'UnknownEventType',
        );
      }
      return;
    }
    if (validate === undefined) return;
    if (event.binaryData === true) {
      throw invalidInput(
        `Event at index ${index} (type '${event.eventType}'): data_base64 carries binary data, and the type's schema checks JSON data: send the data as JSON (data).`,
        'EventDataInvalid',
      );
    }
    const valid = boundedValidate(validate, event.data === undefined ? null : event.data);
    if (valid === 'endless') {
      throw invalidInput(
        `Event at index ${index} (type '${event.eventType}'): data cannot be checked: ${ENDLESS}; the type's schema needs changing.`,
        'EventDataInvalid',
      );
    }
    if (!valid) {
      throw invalidInput(
        `Event at index ${index} (type '${event.eventType}'): data does not match the type's schema: ${firstError(validate.errors, dataPath)}.`,
        'EventDataInvalid',
      );
    }
  });
}

/**
 * The publisher's compiled catalogs, keyed by the topic's id, creation time and catalog version:
 * a catalog's schemas are read and compiled once per version, and then only when the topic (re-read
 * every topic cache period) shows a new one; an entry is never stale, its TTL only frees memory.
 */
export class EventCatalogs {
  private readonly compiled: TtlCache<CompiledCatalog>;

  constructor(
    private readonly reader: Pick<EventTypeStore, 'schemas'> | undefined,
    now: () => number,
  ) {
    this.compiled = new TtlCache(10 * 60_000, now, { maxEntries: 200 });
  }

  /** Checks `events` when the topic validates its events; refuses the publish when one does not match. */
  async check(
    topicId: string,
    topic: Pick<Topic, 'createdAt' | 'catalogVersion' | 'validateEvents' | 'unknownEventTypes'>,
    events: readonly CheckedEvent[],
  ): Promise<void> {
    const settings = eventValidationOf(topic);
    if (!settings.validateEvents) return;
    const reader = this.reader;
    if (reader === undefined) throw new Error('this publisher reads no event catalogs');
    const catalog = await this.compiled.get(
      `${topicId.toLowerCase()}#${topic.createdAt}#${topic.catalogVersion ?? 0}`,
      async () => new CompiledCatalog(await reader.schemas(topicId)),
    );
    checkEventData(events, settings, catalog);
  }
}

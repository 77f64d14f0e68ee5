/**
 * fast-check arbitraries of the values a JSON Schema (2020-12, as the OpenAPI document writes
 * request bodies and query parameters) describes: `$ref` into the document, `const`, `enum`,
 * `anyOf`/`oneOf`, `type` (one or several), objects with their required and optional members and
 * `additionalProperties`, arrays with `items`/`prefixItems` and their bounds, numbers within
 * their bounds, strings within their lengths, with a `pattern` where fast-check can generate it
 * and the `date`, `date-time` and `uri` formats. A member described `not: {}` (may not be there)
 * is left out.
 *
 * What it makes is valid-ish: valid as far as the schema says, never further (a route's own checks
 * beyond its schema, an endpoint URL that must resolve, are not known here). `hint` gives an
 * arbitrary of its own for a member by name (an endpoint URL pointing somewhere harmless).
 */
import fc from 'fast-check';

export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

export interface SchemaArbitraryOptions {
  /** The document `$ref`s point into (`#/components/schemas/Topic`). */
  readonly document: unknown;
  /** An arbitrary for a member by its name, used instead of its schema's; undefined: none. */
  readonly hint?: (member: string, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;
  /** How deep `$ref`s and nesting are followed before a value stops growing (default 8). */
  readonly maxDepth?: number;
  /**
   * How likely an optional member is there (default 1/2). Lower makes valid values likelier where a
   * schema has many optional members and its route checks each beyond what the schema says.
   */
  readonly optionalChance?: number;
}

type SchemaObject = { readonly [keyword: string]: unknown };

/** The schema at a local `$ref` (`#/a/b`), JSON-pointer tokens unescaped. */
function resolveRef(document: unknown, ref: string): JsonSchema {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are followed, not ${ref}`);
  const found = ref
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (at, part) =>
        (at as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    );
  if (found === undefined) throw new Error(`no schema at ${ref}`);
  return found as JsonSchema;
}

/** Whether a schema allows nothing (`not: {}`, `false`): a member that may not be there. */
const allowsNothing = (schema: JsonSchema): boolean =>
  schema === false ||
  (typeof schema === 'object' &&
    typeof schema.not === 'object' &&
    schema.not !== null &&
    Object.keys(schema.not).length === 0);

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** How long generated strings and arrays get at most, beyond what the schema requires. */
const SPREAD = 4;
const STRING_SPREAD = 24;

/** Any JSON value, small. */
const anyJson = () => fc.jsonValue({ maxDepth: 2 });

function stringArbitrary(schema: SchemaObject): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = Math.min(num(schema.maxLength) ?? minLength + STRING_SPREAD, minLength + STRING_SPREAD);
  const fits = (text: string) =>
    text.length >= minLength && text.length <= (num(schema.maxLength) ?? Number.POSITIVE_INFINITY);
  switch (schema.format) {
    case 'date-time':
      return instants().map((date) => date.toISOString());
    case 'date':
      return instants().map((date) => date.toISOString().slice(0, 10));
    case 'uri':
      return fc.webUrl();
  }
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern);
    try {
      return fc.stringMatching(pattern).filter(fits);
    } catch {
      // fast-check generates from no lookahead: from the pattern without them, kept when they hold.
    }
    try {
      return fc
        .stringMatching(new RegExp(withoutLookaheads(schema.pattern)))
        .filter((text) => fits(text) && pattern.test(text));
    } catch {
      // Still none: any string of the lengths.
    }
  }
  return fc.string({ minLength, maxLength });
}

/** A pattern with its lookaheads (`(?=...)`, `(?!...)`) taken out. */
function withoutLookaheads(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i += 1) {
    if (pattern[i] === '\\') {
      out += pattern.slice(i, i + 2);
      i += 1;
    } else if (pattern.startsWith('(?=', i) || pattern.startsWith('(?!', i)) {
      let open = 0;
      for (; i < pattern.length; i += 1) {
        if (pattern[i] === '\\') i += 1;
        else if (pattern[i] === '(') open += 1;
        else if (pattern[i] === ')' && --open === 0) break;
      }
    } else out += pattern[i];
  }
  return out;
}

/** Times around now: a year back and forth. */
const instants = () => {
  const now = Date.now();
  return fc.date({
    min: new Date(now - 366 * 86_400_000),
    max: new Date(now + 366 * 86_400_000),
    noInvalidDate: true,
  });
};

function numberArbitrary(schema: SchemaObject, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = num(schema.exclusiveMinimum);
  const exclusiveMax = num(schema.exclusiveMaximum);
  const min =
    num(schema.minimum) ?? (exclusiveMin === undefined ? undefined : exclusiveMin + (integer ? 1 : 1e-9));
  const max =
    num(schema.maximum) ?? (exclusiveMax === undefined ? undefined : exclusiveMax - (integer ? 1 : 1e-9));
  if (integer) {
    return fc.integer({
      min: Math.max(Math.ceil(min ?? -1_000_000), Number.MIN_SAFE_INTEGER),
      max: Math.min(Math.floor(max ?? 1_000_000), Number.MAX_SAFE_INTEGER),
    });
  }
  return fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true });
}

/** Stands for a member left out. */
const ABSENT = Symbol('absent');

/** An object's members: the required always, the optional sometimes, others where allowed. */
function objectArbitrary(
  schema: SchemaObject,
  options: SchemaArbitraryOptions,
  depth: number,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, member] of Object.entries(properties)) {
    if (allowsNothing(member)) continue;
    model[name] = options.hint?.(name, member) ?? arbitraryAt(member, options, depth + 1);
  }
  const chance = options.optionalChance ?? 1 / 2;
  const members = Object.entries(model).map(([name, value]) =>
    (required.has(name)
      ? value
      : fc.oneof(
          { weight: Math.round((1 - chance) * 100), arbitrary: fc.constant(ABSENT) },
          { weight: Math.round(chance * 100), arbitrary: value },
        )
    ).map((member) => [name, member] as const),
  );
  const described = fc
    .tuple(...members)
    .map((entries) => Object.fromEntries(entries.filter(([, member]) => member !== ABSENT)));
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length > 0 || extra === false || extra === undefined) return described;
  // A map (`tags`, `labels`): string keys, each value of the schema's `additionalProperties`.
  const keys =
    typeof schema.propertyNames === 'object'
      ? stringArbitrary(schema.propertyNames as SchemaObject)
      : fc.string({ minLength: 1, maxLength: 12 });
  const values = extra === true ? anyJson() : arbitraryAt(extra as JsonSchema, options, depth + 1);
  return fc.dictionary(keys, values, { maxKeys: 3 });
}

function arrayArbitrary(
  schema: SchemaObject,
  options: SchemaArbitraryOptions,
  depth: number,
): fc.Arbitrary<unknown[]> {
  const minLength = num(schema.minItems) ?? 0;
  const maxLength = Math.min(num(schema.maxItems) ?? minLength + SPREAD, minLength + SPREAD);
  if (Array.isArray(schema.prefixItems)) {
    return fc.tuple(
      ...(schema.prefixItems as JsonSchema[]).map((item) => arbitraryAt(item, options, depth + 1)),
    );
  }
  const items =
    schema.items === undefined ? anyJson() : arbitraryAt(schema.items as JsonSchema, options, depth + 1);
  return fc.array(items, { minLength, maxLength: depth > (options.maxDepth ?? 8) ? minLength : maxLength });
}

function ofType(
  type: string,
  schema: SchemaObject,
  options: SchemaArbitraryOptions,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'string':
      return stringArbitrary(schema);
    case 'array':
      return arrayArbitrary(schema, options, depth);
    case 'object':
      return objectArbitrary(schema, options, depth);
    default:
      throw new Error(`unknown JSON Schema type ${type}`);
  }
}

/** The arbitrary of `schema`'s values. */
export function arbitraryAt(
  schema: JsonSchema,
  options: SchemaArbitraryOptions,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (schema === true) return anyJson();
  if (schema === false) return fc.constant(null);
  if (typeof schema.$ref === 'string') {
    // Past the depth a recursive schema would never end: stop at null.
    if (depth > (options.maxDepth ?? 8)) return fc.constant(null);
    return arbitraryAt(resolveRef(options.document, schema.$ref), options, depth + 1);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(alternatives)) {
    return fc.oneof(...alternatives.map((alternative) => arbitraryAt(alternative, options, depth + 1)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return arbitraryAt(schema.allOf[0] as JsonSchema, options, depth + 1);
  }
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === 'string'
      ? [schema.type]
      : [];
  if (types.length === 0) {
    // No type: an object when it has members, else any JSON.
    return schema.properties === undefined ? anyJson() : objectArbitrary(schema, options, depth);
  }
  return fc.oneof(...types.map((type) => ofType(type, schema, options, depth)));
}

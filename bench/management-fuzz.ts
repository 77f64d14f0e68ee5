/**
 * A property-based fuzz of the management API: requests generated with fast-check over every admin
 * route of `shared/config/routes.ts` (and the validation URL), through the admin token and
 * through the console's API with an operator's and a portal's session, sent to a running stack.
 * Shared by the integration test (`test/integration/management-fuzz.test.ts`, some 1,600
 * requests) and the benchmark's `fuzz` scenario (`scenarios/fuzz.ts`, 20,000).
 *
 * A request is its route's method and path, the path parameters mostly the fixtures' names (a
 * topic, namespace, namespace topic, their subscriptions, an event type and a replay, made before
 * the run and made again when a request deletes them), else other valid names or odd ones
 * (encoded slashes, dots, NUL, lone surrogates, right-to-left and zero-width characters, names
 * thousands of characters long); a query string where the route takes one (valid-ish values
 * from the OpenAPI document, or odd ones); a content type, mostly JSON; and a body: valid-ish,
 * generated from the route's request body schema in the OpenAPI document
 * (`json-schema-arbitrary.ts`), or that body mutated (a member replaced by a value of another
 * type, a huge or strange string, JSON nested thousands of levels deep; a `__proto__`,
 * `constructor` or `prototype` key added; a member removed; a value wrapped), or raw bytes
 * (empty, invalid JSON, invalid UTF-8, JSON scalars, deep nesting, 300 KB).
 *
 * The properties, for every answer: its status is below 500 (no dependency is down, so not even a
 * 503); a 4xx carries the API's JSON error body (`{"error": {"code", "message", "details"?}}`),
 * or API Gateway's `{"message"}` where the gateway itself may answer (no route matches: 404); a
 * JSON answer parses; and an answer comes within {@link REQUEST_TIMEOUT_MS}. After the run the
 * stack must still answer known-good requests ({@link checkAlive}).
 */
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { CONSOLE_API_PATH, ROUTES, VALIDATION_PATH } from '../shared/config/routes';
import { openApiDocument, openApiPath } from '../shared/openapi/document';
import { errorBodySchema, gatewayErrorSchema } from '../shared/openapi/spec';
import { arbitraryAt, type JsonSchema } from './json-schema-arbitrary';

/** Where the stack answers, and its admin token. */
export interface FuzzTarget {
  readonly apiUrl: string;
  readonly adminToken: string;
}

/** How long an answer may take before the request counts as hanging. */
export const REQUEST_TIMEOUT_MS = 15_000;

/** The resources the requests mostly name, made before the run. */
export const FIXTURES = {
  topic: 'fz-topic',
  namespace: 'fz-ns',
  namespaceTopic: 'fz-ns-topic',
  subscription: 'fz-sub',
  eventType: 'Fz.Created',
  /** An event published to both topics before the run, so their logs hold it. */
  event: 'fz-event',
} as const;

/** Other valid names a request may use (and so create): few, so a run makes few resources. */
const OTHER_NAMES = ['fz-other', 'fz-spare'] as const;

/** Stands in a path for the fixture replay's id, which is known only once it is made. */
const REPLAY_ID = '@replay@';
/** The same for the namespace subscription's replay. */
const NAMESPACE_REPLAY_ID = '@namespace-replay@';

// ---- Requests ----------------------------------------------------------------------------------

/** Who a request is sent as. */
type Caller = 'admin' | 'operatorSession' | 'portalSession' | 'none' | 'wrongToken';

/** A generated request; its credentials and the fixture replay's id are filled in when it is sent. */
export class FuzzRequest {
  constructor(
    /** The route key it was made for (`PUT /admin/topics/{topic}`). */
    readonly route: string,
    readonly method: string,
    /** Path and query, percent-encoded as sent. */
    readonly path: string,
    readonly caller: Caller,
    readonly headers: Readonly<Record<string, string>>,
    /** How the body was made: `valid`, `mutated (...)`, `raw (...)`, `none`. */
    readonly bodyKind: string,
    readonly body: Buffer | undefined,
  ) {}

  /** The request as fast-check prints a counterexample: method, path, headers and the body's start. */
  [fc.toStringMethod](): string {
    return describeRequest(this);
  }
}

const excerpt = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;

/** The request in a few lines: control characters and odd code points escaped, long parts cut. */
export function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? 'no body'
      : `${request.body.length} bytes, ${request.bodyKind}: ${excerpt(JSON.stringify(request.body.toString('utf8')), 400)}`;
  return [
    `${request.method} ${excerpt(request.path, 400)}`,
    `  as ${request.caller}, headers ${JSON.stringify(request.headers)}`,
    `  body: ${body}`,
  ].join('\n');
}

// ---- Values ------------------------------------------------------------------------------------

/**
 * A choice whose failing value is shrunk towards its first alternative, the plainest (the
 * fixture's name, no body, the admin token, JSON): a failure is reported with as little odd about
 * it as still fails.
 */
const SHRINK_TO_FIRST = { withCrossShrink: true } as const;

/** Nested arrays (or objects `{"a": ...}`) `depth` levels deep. */
function nested(depth: number, objects = false): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = objects ? { a: value } : [value];
  return value;
}

/** An object with an own member named `key` (`__proto__` included), the others copied. */
function withMember(source: object, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(source)) define(out, name, member);
  define(out, key, value);
  return out;
}

function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const HUGE = {
  '1 KB': 'a'.repeat(1_000),
  '60 KB': 'x'.repeat(60_000),
  '300 KB': 'y'.repeat(300_000),
  '300 KB emoji': '\u{1F600}'.repeat(75_000),
} as const;

/** Strings that have broken parsers, names, logs and storage elsewhere. */
const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0001\u001f\u007f',
  '\r\n',
  '\t',
  '\ud800',
  '\udfff',
  'a\ud83db',
  '\u202eevil',
  '\u200b',
  '\u200d\u200c',
  '\ufeff',
  'e\u0301\u0301\u0301',
  '\u{1F600}',
  'Ωé',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '../../etc/passwd',
  '%2e%2e%2f',
  '%00',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection string, sent as it is.
  '${jndi:x}',
  "'; --",
  '{"a":1}',
  'null',
  'true',
  '1e999',
  '-0',
  'NaN',
  'http://127.0.0.1:1/',
  'javascript:alert(1)',
  '2026-02-30T25:61:61Z',
  '0000-00-00',
  '9999-12-31T23:59:59.999Z',
  '-271821-04-20T00:00:00Z',
];

const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom(...Object.values(HUGE)) },
);

/** Keys an object may gain: prototype names, empty, control and odd code points. */
const oddKey: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'valueOf',
      'hasOwnProperty',
      '__defineGetter__',
      '',
      '\u0000',
      '\ud800',
      '\u202e',
      'a.b',
      '$ref',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);

const DEEP = [nested(150), nested(150, true), nested(3_000), nested(3_000, true)];

/** A value of any type, mostly odd. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      5e-324,
      2 ** 53 + 2,
      [],
      {},
      [null],
      { '': '' },
      withMember({}, '__proto__', { polluted: true }),
      withMember({}, 'constructor', { prototype: { polluted: true } }),
    ),
  },
  { weight: 4, arbitrary: oddString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(...DEEP) },
);

// ---- Mutations ---------------------------------------------------------------------------------

type MutationKind = 'replace' | 'addKey' | 'remove' | 'wrapInArray' | 'wrapInObject';

interface Mutation {
  kind: MutationKind;
  /** Which value of the body (depth first), modulo their number. */
  at: number;
  key: string;
  value: unknown;
}

const mutations: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<MutationKind>(
    'replace',
    'replace',
    'replace',
    'addKey',
    'remove',
    'wrapInArray',
    'wrapInObject',
  ),
  at: fc.nat(),
  key: oddKey,
  value: oddValue,
});

type Path = readonly (string | number)[];

/** Every value's path in `value`, depth first (at most 500, at most 20 levels down). */
function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (out.length >= 500) return out;
  out.push(at);
  if (at.length >= 20 || typeof value !== 'object' || value === null) return out;
  const members: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : Object.entries(value);
  for (const [key, member] of members) paths(member, [...at, key], out);
  return out;
}

const REMOVED = Symbol('removed');

/** `value` with the value at `path` changed by `change` (copied along the path, never in place). */
function updateAt(value: unknown, path: Path, change: (old: unknown) => unknown): unknown {
  if (path.length === 0) return change(value);
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) {
    const updated = updateAt(value[head as number], rest, change);
    const copy = [...value];
    if (updated === REMOVED) copy.splice(head as number, 1);
    else copy[head as number] = updated;
    return copy;
  }
  const record = value as Record<string, unknown>;
  const updated = updateAt(record[head as string], rest, change);
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(record)) {
    if (key !== head) define(copy, key, member);
    else if (updated !== REMOVED) define(copy, key, updated);
  }
  return copy;
}

/** The body mutated, and what was done (for the report). */
function mutate(value: unknown, mutation: Mutation): { value: unknown; what: string } {
  const all = paths(value);
  const path = all[mutation.at % all.length] as Path;
  const where = path.length === 0 ? 'the body' : path.map(String).join('.');
  const changed = updateAt(value, path, (old) => {
    switch (mutation.kind) {
      case 'replace':
        return mutation.value;
      case 'addKey':
        return withMember(
          typeof old === 'object' && old !== null && !Array.isArray(old) ? old : {},
          mutation.key,
          mutation.value,
        );
      case 'remove':
        return path.length === 0 ? undefined : REMOVED;
      case 'wrapInArray':
        return [old];
      case 'wrapInObject':
        return withMember({}, mutation.key, old);
    }
  });
  const what =
    mutation.kind === 'addKey' || mutation.kind === 'wrapInObject'
      ? `${mutation.kind} ${JSON.stringify(mutation.key)} at ${where}`
      : `${mutation.kind} at ${where}`;
  return { value: changed, what };
}

// ---- Raw bodies --------------------------------------------------------------------------------

const text = (value: string) => Buffer.from(value, 'utf8');

/** Bodies that are not a JSON document of the right shape, or not one at all. */
const RAW_BODIES: ReadonlyArray<readonly [string, () => Buffer]> = [
  ['empty', () => Buffer.alloc(0)],
  ['whitespace', () => text(' \n\t ')],
  ['truncated', () => text('{"properties":')],
  ['single quotes', () => text("{'properties':{}}")],
  ['trailing comma', () => text('{"properties":{},}')],
  ['two documents', () => text('{}{}')],
  ['NaN', () => text('NaN')],
  ['undefined', () => text('undefined')],
  ['1e999', () => text('1e999')],
  [
    'number overflow in a member',
    () => text('{"properties":{"eventRetentionInDays":1e999},"keyName":1e999}'),
  ],
  ['2^64', () => text('18446744073709551616')],
  ['byte order mark', () => text('\ufeff{}')],
  ['NUL', () => text('\u0000')],
  ['raw NUL in a string', () => text('{"properties":{"x":"a\u0000b"}}')],
  ['escaped NUL', () => text('{"properties":{"labels":["\\u0000"]},"eventId":"\\u0000"}')],
  ['escaped lone surrogate', () => text('{"properties":{"labels":["\\ud800"]},"eventId":"\\udfff"}')],
  ['null', () => text('null')],
  ['true', () => text('true')],
  ['0', () => text('0')],
  ['a string', () => text('"properties"')],
  ['an array', () => text('[]')],
  ['an array of objects', () => text('[{"properties":{}}]')],
  ['arrays 101 deep', () => text(`${'['.repeat(101)}${']'.repeat(101)}`)],
  ['arrays 30,000 deep', () => text(`${'['.repeat(30_000)}${']'.repeat(30_000)}`)],
  ['objects 10,000 deep', () => text(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)],
  ['arrays 100,000 deep', () => text(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
  ['a 300 KB string', () => text(`{"properties":{"x":"${HUGE['300 KB']}"}}`)],
  ['a 200 KB array', () => text(`[${'0,'.repeat(100_000)}0]`)],
  ['4,000 members', () => text(`{${Array.from({ length: 4_000 }, (_, i) => `"m${i}":${i}`).join(',')}}`)],
  ['a member twice', () => text('{"properties":{},"properties":[]}')],
  [
    '__proto__ members',
    () => text('{"__proto__":{"polluted":true},"properties":{"__proto__":{"x":1},"tags":{"__proto__":"x"}}}'),
  ],
  ['constructor member', () => text('{"constructor":{"prototype":{"polluted":true}},"properties":{}}')],
  ['invalid UTF-8', () => Buffer.from([0xff, 0xfe, 0xfd])],
  [
    'lone surrogate bytes',
    () => Buffer.concat([text('{"eventId":"'), Buffer.from([0xed, 0xa0, 0x80]), text('"}')]),
  ],
  ['overlong UTF-8', () => Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d])],
  ['UTF-16', () => Buffer.from('{"properties":{}}', 'utf16le')],
  ['form-encoded', () => text('properties=1&keyName=key1')],
  ['XML', () => text('<properties/>')],
];

let rawBodies: ReadonlyArray<{ what: string; body: Buffer }> | undefined;
/** The raw bodies, made on first use (some are hundreds of KB). */
const rawBodyList = () => {
  rawBodies ??= RAW_BODIES.map(([what, make]) => ({ what: `raw (${what})`, body: make() }));
  return rawBodies;
};

// ---- Path segments and queries -----------------------------------------------------------------

/**
 * `text` percent-encoded as a path segment or query value: UTF-8, and a lone surrogate as the
 * three bytes a careless encoder writes for it (not valid UTF-8, so a decoder must refuse it).
 */
export function percentEncode(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    const isHigh = code >= 0xd800 && code <= 0xdbff;
    const next = value.charCodeAt(i + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else out += encodeURIComponent(value[i] as string);
  }
  return out;
}

/** Segments as sent (already encoded): what has tripped routers and name checks. */
const ODD_SEGMENTS: readonly string[] = [
  '%2F',
  'a%2Fb',
  '..',
  '.',
  '%2e%2e',
  '%2E',
  'a%00b',
  '%00',
  '%ED%A0%80',
  '%FF',
  '%',
  '%zz',
  '%25',
  '%E2%80%AE',
  '%E2%80%8B',
  '%C3%A9t%C3%A9',
  '%F0%9F%98%80',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'a',
  'ab',
  '-ab',
  'ab-',
  'a--b',
  'fz-topic:publish',
  '*',
  '~',
  '$',
  'a%20b',
  'a%0Ab',
  'FZ-TOPIC',
  'fz.topic',
  'fz_topic',
];

const oddSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(percentEncode) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(percentEncode) },
  { weight: 1, arbitrary: fc.integer({ min: 51, max: 2_000 }).map((length) => 'a'.repeat(length)) },
);

/** The fixture a path parameter names, by the parameter and whether the route is a namespace's. */
function fixtureOf(name: string, namespaced: boolean): string {
  switch (name) {
    case 'topic':
      return namespaced ? FIXTURES.namespaceTopic : FIXTURES.topic;
    case 'namespace':
      return FIXTURES.namespace;
    case 'subscription':
      return FIXTURES.subscription;
    case 'eventType':
      return FIXTURES.eventType;
    case 'replayId':
      return namespaced ? NAMESPACE_REPLAY_ID : REPLAY_ID;
    default:
      return 'fz-unknown';
  }
}

const segmentFor = (name: string, namespaced: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    SHRINK_TO_FIRST,
    { weight: 12, arbitrary: fc.constant(fixtureOf(name, namespaced)) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_NAMES) },
    { weight: 3, arbitrary: oddSegment },
  );

/** Query values as sent (encoded), beside those made from the parameter's schema. */
const oddQueryValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: oddString.filter((value) => value.length <= 2_000).map(percentEncode) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('%', '%zz', '%ED%A0%80', '%00', '+', '&&', '=', '%26', '-1', '0', '1e999', ''),
  },
);

// ---- Routes ------------------------------------------------------------------------------------

interface QueryParameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

interface FuzzRoute {
  key: string;
  method: string;
  path: string;
  auth: 'admin' | 'validationCode';
  body?: JsonSchema;
  query: QueryParameter[];
}

interface OperationObject {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: JsonSchema }>;
}

/** The routes fuzzed: every admin route and the validation URL, with their body and query from the document. */
export function fuzzedRoutes(document: Record<string, unknown> = openApiDocument()): FuzzRoute[] {
  const documentPaths = document.paths as Record<string, Record<string, OperationObject>>;
  return ROUTES.filter((route) => route.auth === 'admin' || route.path === VALIDATION_PATH).map((route) => {
    const operation = documentPaths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    if (operation === undefined) throw new Error(`the OpenAPI document has no ${route.method} ${route.path}`);
    const body = operation.requestBody?.content?.['application/json']?.schema;
    return {
      key: `${route.method} ${route.path}`,
      method: route.method,
      path: route.path,
      auth: route.auth === 'admin' ? 'admin' : 'validationCode',
      ...(body === undefined ? {} : { body }),
      query: (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => ({
          name: parameter.name,
          required: parameter.required === true,
          schema: parameter.schema ?? true,
        })),
    };
  });
}

/** JSON Schemas a schema member may be given: ones that are invalid, recursive, remote, huge. */
const TRICKY_SCHEMAS: readonly unknown[] = [
  {},
  { type: 'object' },
  { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
  { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } },
  { $ref: '#' },
  { $ref: '#/$defs/missing' },
  { $ref: 'http://127.0.0.1:1/schema.json' },
  { $id: 'fz', type: 'object' },
  { $id: 'https://example.com/fz.json', $ref: '#/$defs/a', $defs: { a: { type: 'string' } } },
  { $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
  { $schema: 'http://json-schema.org/draft-04/schema#' },
  { $schema: 'nope' },
  { pattern: '(' },
  { type: 'string', pattern: '^(a+)+$' },
  { type: 'nope' },
  { format: 'nope' },
  { minLength: -1 },
  { required: 'a' },
  { properties: { a: { $ref: '#' } } },
  { $dynamicRef: '#x' },
  { enum: [] },
  { not: {} },
  { items: { $ref: '#' }, type: 'array' },
  { unevaluatedProperties: false, allOf: [{ properties: { a: {} } }] },
  withMember({ type: 'object' }, '__proto__', { type: 'string' }),
  { properties: withMember({}, 'constructor', { type: 'string' }) },
  nested(150, true),
];

/**
 * Values for members (and query parameters) by name, where a route checks more than its schema
 * says and values made from the schema alone would almost never get through: URLs (a webhook
 * that answers, or one that refuses at once: never a host elsewhere), times within the fixtures'
 * archive and log, the fixtures' event, signing secrets, dead-letter containers, and JSON Schemas
 * that are invalid, recursive or remote.
 */
function hints(sinkUrl: string, document: unknown) {
  const urls = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(`${sinkUrl}/hook`, `${sinkUrl}/other?a=1#f`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'http://127.0.0.1:1/refused',
        'https://127.0.0.1:1/tls',
        'ftp://127.0.0.1/',
        'not a url',
      ),
    },
  );
  const recent = fc
    .integer({ min: 60, max: 20 * 3_600 })
    .map((seconds) => new Date(Date.now() - seconds * 1_000).toISOString());
  const byName: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
    since: recent,
    until: recent,
    eventId: fc.constantFrom(FIXTURES.event, 'fz-missing'),
    key: fc.constantFrom('fz-missing', `${FIXTURES.topic}/${FIXTURES.subscription}/x.json`),
    secret: fc.constantFrom(
      `whsec_${Buffer.from('a fixed secret of the fuzz').toString('base64')}`,
      'whsec_',
      'whsk_x',
    ),
    blobContainerName: fc.constantFrom('fz-dead', 'fz-other'),
    // A header's name (delivery attribute mappings).
    name: fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/),
    resourceArn: fc.constantFrom(
      'arn:aws:sqs:us-east-1:000000000000:fz-queue',
      'arn:aws:sns:us-east-1:000000000000:fz-topic',
      'arn:aws:lambda:us-east-1:000000000000:function:fz',
    ),
    partitionKeyField: fc.constantFrom('data.tenant', 'subject', 'id'),
    roleArn: fc.constant('arn:aws:iam::000000000000:role/fz'),
    retrySchedule: fc.array(fc.constantFrom('PT1S', 'PT10S', 'PT1M', 'PT1H', 'P1D'), { maxLength: 4 }),
    eventTimeToLive: fc.constantFrom('PT1M', 'PT30M', 'P1D', 'P7D', 'P8D'),
    disableAfterFailingFor: fc.constantFrom('PT1H', 'P1D', 'P30D', null),
    schema: fc.constantFrom(...TRICKY_SCHEMAS),
  };
  return (member: string, schema: JsonSchema): fc.Arbitrary<unknown> | undefined => {
    if (/url$/i.test(member) || (typeof schema === 'object' && schema.format === 'uri')) return urls;
    const hinted = byName[member];
    if (hinted === undefined) return undefined;
    // Mostly the hint, sometimes what the schema alone makes.
    return fc.oneof(
      { weight: 3, arbitrary: hinted },
      { weight: 1, arbitrary: arbitraryAt(schema, { document }) },
    );
  };
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/cloudevents+json',
  'application/json; charset=utf-16',
  'application/merge-patch+json',
  '*/*',
  '',
] as const;

/** The content type (absent sometimes), mostly JSON. */
const contentTypes: fc.Arbitrary<string | undefined> = fc.oneof(
  SHRINK_TO_FIRST,
  { weight: 12, arbitrary: fc.constant('application/json') },
  { weight: 3, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) },
);

/** Headers a request may carry beside its own. */
const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  SHRINK_TO_FIRST,
  { weight: 12, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { 'content-encoding': 'gzip' },
      { 'x-http-method-override': 'DELETE' },
      { accept: 'text/html' },
      { 'x-forwarded-host': 'evil.example' },
      { 'x-forwarded-proto': 'https' },
      { 'ce-specversion': '1.0' },
      { 'aeg-sas-key': 'x' },
      { cookie: '__proto__=1' },
    ),
  },
);

/** Who sends: the admin token mostly, a session through the console's API, or nobody. */
function callers(route: FuzzRoute): fc.Arbitrary<Caller> {
  if (route.auth === 'validationCode') return fc.constant('none');
  const viaConsole = !route.path.startsWith('/admin/sessions');
  return fc.oneof(
    SHRINK_TO_FIRST,
    { weight: 10, arbitrary: fc.constant<Caller>('admin') },
    { weight: viaConsole ? 2 : 0, arbitrary: fc.constant<Caller>('operatorSession') },
    { weight: viaConsole ? 2 : 0, arbitrary: fc.constant<Caller>('portalSession') },
    { weight: 1, arbitrary: fc.constantFrom<Caller>('none', 'wrongToken') },
  );
}

interface BodyPlan {
  kind: string;
  body?: Buffer;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? '', 'utf8');

/** The bodies of a route: made from its schema, that mutated, raw, or none. */
function bodies(route: FuzzRoute, hint: ReturnType<typeof hints>, document: unknown): fc.Arbitrary<BodyPlan> {
  const none = fc.constant<BodyPlan>({ kind: 'none' });
  const raw = fc.constantFrom(...rawBodyList()).map((plan) => ({ kind: plan.what, body: plan.body }));
  const base =
    route.body === undefined
      ? fc.constantFrom<unknown>({}, { properties: {} })
      : arbitraryAt(route.body, { document, hint, optionalChance: 1 / 4 });
  const valid = base.map((value) => ({
    kind: route.body === undefined ? 'small JSON' : 'valid',
    body: json(value),
  }));
  const mutated = fc.tuple(base, mutations).map(([value, mutation]) => {
    const { value: changed, what } = mutate(value, mutation);
    return { kind: `mutated (${what})`, body: json(changed) };
  });
  const reads = route.body !== undefined;
  const safe = route.method === 'GET' || route.method === 'DELETE';
  return fc.oneof(
    SHRINK_TO_FIRST,
    { weight: reads ? 1 : safe ? 10 : 5, arbitrary: none },
    { weight: reads ? 4 : 1, arbitrary: valid },
    { weight: reads ? 5 : 1, arbitrary: mutated },
    { weight: reads ? 2 : 1, arbitrary: raw },
  );
}

/** `arbitrary`'s values, or null with probability `none`. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>, none: number): fc.Arbitrary<T | null> =>
  fc.oneof(
    SHRINK_TO_FIRST,
    { weight: Math.round(none * 40), arbitrary: fc.constant(null) },
    { weight: Math.round((1 - none) * 40), arbitrary },
  );

/** A query string (with its `?`) for the route: its parameters, valid-ish or odd, and strays. */
function queries(route: FuzzRoute, hint: ReturnType<typeof hints>, document: unknown): fc.Arbitrary<string> {
  const validation = route.auth === 'validationCode';
  const valueFor = (parameter: QueryParameter): fc.Arbitrary<string> => {
    const fixture =
      validation && parameter.name === 'topic'
        ? FIXTURES.topic
        : validation && parameter.name === 'subscription'
          ? FIXTURES.subscription
          : undefined;
    return fc.oneof(
      SHRINK_TO_FIRST,
      { weight: fixture === undefined ? 0 : 4, arbitrary: fc.constant(fixture ?? '') },
      {
        weight: 4,
        arbitrary: (
          hint(parameter.name, parameter.schema) ?? arbitraryAt(parameter.schema, { document })
        ).map((value) => percentEncode(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))),
      },
      { weight: 2, arbitrary: oddQueryValue },
    );
  };
  const members = route.query.map((parameter) =>
    maybe(valueFor(parameter), parameter.required ? 1 / 8 : 1 / 2).map((value) =>
      value === null ? [] : [`${percentEncode(parameter.name)}=${value}`],
    ),
  );
  const stray = maybe(
    fc.tuple(
      fc.oneof(oddKey.map(percentEncode), fc.constantFrom('top', 'since', 'key', 'api-version')),
      oddQueryValue,
    ),
    route.query.length > 0 ? 3 / 4 : 9 / 10,
  );
  return fc.tuple(fc.tuple(...members), stray, fc.boolean()).map(([parts, extra, twice]) => {
    const list = parts.flat();
    if (twice && list.length > 0) list.push(list[0] as string);
    if (extra !== null) list.push(`${extra[0]}=${extra[1]}`);
    return list.length === 0 ? '' : `?${list.join('&')}`;
  });
}

/**
 * How often each route is requested. The routes that answer only once the delivery workers'
 * cached health has expired (half a second in the local stack: `healthCacheMs`), pause, resume and
 * enable, do little else: they are sent a tenth as often as the others, which would otherwise
 * spend most of a run waiting. A delete of a resource, and revoking every session, undoes a fixture
 * when it succeeds, which then takes a few requests to make again: sent at two fifths.
 */
const WAITS_FOR_HEALTH_CACHE = /\/(pause|resume|enable)$/;

/**
 * Each fuzzed route's requests, with how often it is picked among the others.
 * `sinkUrl`: a webhook that answers 200, for endpoint URLs.
 */
export function routeRequests(
  sinkUrl: string,
): Array<{ route: string; weight: number; arbitrary: fc.Arbitrary<FuzzRequest> }> {
  const document = openApiDocument();
  const hint = hints(sinkUrl, document);
  const perRoute = fuzzedRoutes(document).map((route) => {
    const namespaced = route.path.startsWith('/admin/namespaces/');
    const parts = route.path.split('/').map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      return name === undefined ? fc.constant(part) : segmentFor(name, namespaced);
    });
    const arbitrary = fc
      .record({
        segments: fc.tuple(...parts),
        query: queries(route, hint, document),
        caller: callers(route),
        contentType: contentTypes,
        extra: extraHeaders,
        body: bodies(route, hint, document),
      })
      .map(({ segments, query, caller, contentType, extra, body }) => {
        const adminPath = segments.join('/');
        const path =
          caller === 'operatorSession' || caller === 'portalSession'
            ? `${CONSOLE_API_PATH}${adminPath.slice('/admin'.length)}`
            : adminPath;
        const headers = {
          ...(contentType === undefined || body.body === undefined ? {} : { 'content-type': contentType }),
          ...extra,
        };
        return new FuzzRequest(
          route.key,
          route.method,
          `${path}${query}`,
          caller,
          headers,
          body.kind,
          body.body,
        );
      });
    const weight = WAITS_FOR_HEALTH_CACHE.test(route.path)
      ? 1
      : DELETES[route.key] !== undefined || route.key === REVOKE_ALL
        ? 4
        : 10;
    return { route: route.key, weight, arbitrary };
  });
  return perRoute;
}

// ---- Sending and judging -----------------------------------------------------------------------

export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Statuses API Gateway itself answers with its own body (no route matched, a body over 10 MB, throttled). */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([404, 413, 429]);

/** What is wrong with `answer` to a request; undefined when nothing is. */
export function answerProblem(answer: FuzzAnswer): string | undefined {
  const { status, text: body } = answer;
  if (status >= 500) return `answered ${status}: ${excerpt(body, 500)}`;
  const type = String(answer.headers['content-type'] ?? '');
  const isJson = /^application\/([\w.+-]*\+)?json\b/i.test(type);
  let parsed: unknown;
  if (isJson && body !== '') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return `answered ${status} with a JSON content type and a body that is not JSON: ${excerpt(body, 300)}`;
    }
  }
  if (status >= 400) {
    if (!isJson)
      return `answered ${status} with content type '${type}', not the JSON error body: ${excerpt(body, 300)}`;
    if (errorBodySchema.safeParse(parsed).success) return undefined;
    if (GATEWAY_STATUSES.has(status) && gatewayErrorSchema.strict().safeParse(parsed).success)
      return undefined;
    return `answered ${status} without the API's error body: ${excerpt(body, 300)}`;
  }
  return undefined;
}

/** Whom the requests are sent as: the stack's admin token and the fixtures' session tokens. */
export interface Credentials {
  readonly adminToken: string;
  readonly operatorToken: string;
  readonly portalToken: string;
  /** The fixture subscriptions' replays (classic, namespace). */
  readonly replayId: string;
  readonly namespaceReplayId: string;
}

const authorizationOf = (caller: Caller, credentials: Credentials): string | undefined => {
  switch (caller) {
    case 'admin':
      return `Bearer ${credentials.adminToken}`;
    case 'operatorSession':
      return `Bearer ${credentials.operatorToken}`;
    case 'portalSession':
      return `Bearer ${credentials.portalToken}`;
    case 'wrongToken':
      return 'Bearer not-the-token';
    case 'none':
      return undefined;
  }
};

/** Sends a request over `agent`; rejects when nothing answers within {@link REQUEST_TIMEOUT_MS}. */
export function send(
  apiUrl: string,
  agent: Agent,
  request: FuzzRequest,
  credentials: Credentials,
): Promise<FuzzAnswer> {
  const url = new URL(apiUrl);
  const authorization = authorizationOf(request.caller, credentials);
  const headers: Record<string, string> = {
    ...request.headers,
    ...(authorization === undefined ? {} : { authorization }),
    ...(request.body === undefined ? {} : { 'content-length': String(request.body.length) }),
  };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path
          .replaceAll(NAMESPACE_REPLAY_ID, encodeURIComponent(credentials.namespaceReplayId))
          .replaceAll(REPLAY_ID, encodeURIComponent(credentials.replayId)),
        headers,
        agent,
        timeout: REQUEST_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)),
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

// ---- Fixtures ----------------------------------------------------------------------------------

/** A fixture, or the sessions: what is made again when a request has removed it. */
type FixturePart =
  | 'topic'
  | 'topicSubscription'
  | 'topicEventType'
  | 'namespace'
  | 'namespaceTopic'
  | 'namespaceSubscription'
  | 'namespaceEventType'
  | 'sessions';

/** The order they are made in: a topic before what is in it. */
const PART_ORDER: readonly FixturePart[] = [
  'topic',
  'topicSubscription',
  'topicEventType',
  'namespace',
  'namespaceTopic',
  'namespaceSubscription',
  'namespaceEventType',
  'sessions',
];
const ALL_PARTS: ReadonlySet<FixturePart> = new Set(PART_ORDER);
const NO_PARTS: ReadonlySet<FixturePart> = new Set();

const REVOKE_ALL = 'POST /admin/sessions/revokeAll';

/** What a delete of each route takes with it, should it delete a fixture (a replay's is only cancelled). */
const DELETES: Readonly<Record<string, readonly FixturePart[]>> = {
  'DELETE /admin/topics/{topic}': ['topic', 'topicSubscription', 'topicEventType'],
  'DELETE /admin/topics/{topic}/eventSubscriptions/{subscription}': ['topicSubscription'],
  'DELETE /admin/topics/{topic}/eventTypes/{eventType}': ['topicEventType'],
  'DELETE /admin/namespaces/{namespace}': [
    'namespace',
    'namespaceTopic',
    'namespaceSubscription',
    'namespaceEventType',
  ],
  'DELETE /admin/namespaces/{namespace}/topics/{topic}': [
    'namespaceTopic',
    'namespaceSubscription',
    'namespaceEventType',
  ],
  'DELETE /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}': [
    'namespaceSubscription',
  ],
  'DELETE /admin/namespaces/{namespace}/topics/{topic}/eventTypes/{eventType}': ['namespaceEventType'],
};

/** A webhook that takes everything: 200, the Event Grid validation code echoed, CloudEvents' handshake allowed. */
async function startSink(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'OPTIONS') {
        res.writeHead(200, { 'webhook-allowed-origin': '*', 'webhook-allowed-rate': '*' });
        res.end();
        return;
      }
      let code: unknown;
      try {
        code = (
          JSON.parse(Buffer.concat(chunks).toString('utf8')) as Array<{ data?: { validationCode?: unknown } }>
        )[0]?.data?.validationCode;
      } catch {
        code = undefined;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(typeof code === 'string' ? JSON.stringify({ validationResponse: code }) : '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The resources the requests name, the sessions they are sent with, and a webhook for them. */
export class FuzzFixtures {
  private credentials: Credentials;
  /** Requests made to make the fixtures (again), beside the fuzz's. */
  setupRequests = 0;

  private constructor(
    private readonly target: FuzzTarget,
    readonly sinkUrl: string,
    private readonly sink: Server,
  ) {
    this.credentials = {
      adminToken: target.adminToken,
      operatorToken: '',
      portalToken: '',
      replayId: 'fz-none',
      namespaceReplayId: 'fz-none',
    };
  }

  static async prepare(target: FuzzTarget): Promise<FuzzFixtures> {
    const { url, server } = await startSink();
    const fixtures = new FuzzFixtures(target, url, server);
    await fixtures.restore();
    return fixtures;
  }

  /**
   * Publishes {@link FIXTURES.event} to a fixture topic, so its subscription's log holds it (for
   * resends). Best effort: the requests may have set the topic to refuse it.
   */
  private async publish(which: 'classic' | 'namespace'): Promise<void> {
    const { topic, namespace, namespaceTopic, event: id } = FIXTURES;
    const keyOf = async (path: string) =>
      ((await this.call('POST', `${path}/listKeys`)).body as { key1: string }).key1;
    const time = new Date().toISOString();
    const [path, headers, body] =
      which === 'classic'
        ? [
            `/topics/${topic}/api/events?api-version=2018-01-01`,
            { 'aeg-sas-key': await keyOf(`/admin/topics/${topic}`), 'content-type': 'application/json' },
            [{ id, subject: 'fz', eventType: FIXTURES.eventType, eventTime: time, data: {} }],
          ]
        : [
            `/namespaces/${namespace}/topics/${namespaceTopic}:publish`,
            {
              authorization: `SharedAccessKey ${await keyOf(`/admin/namespaces/${namespace}`)}`,
              'content-type': 'application/cloudevents+json',
            },
            { specversion: '1.0', id, source: '/fz', type: FIXTURES.eventType, time, data: {} },
          ];
    this.setupRequests += 1;
    await fetch(`${this.target.apiUrl}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  }

  get current(): Credentials {
    return this.credentials;
  }

  /** An admin call; `expect`: the statuses it must answer (any below 300 by default). */
  private async call(
    method: string,
    path: string,
    body?: unknown,
    expect: (status: number) => boolean = (status) => status < 300,
  ): Promise<{ status: number; body: unknown }> {
    this.setupRequests += 1;
    const response = await fetch(`${this.target.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.target.adminToken}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!expect(response.status)) throw new Error(`fixture ${method} ${path}: ${response.status} ${text}`);
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  /**
   * Makes the fixtures of `parts` (all by default) that are not there, in order, and new sessions
   * when `parts` has them. One that is there is left as the requests changed it: making it again
   * as it was could be refused for what the requests did to what is in it.
   */
  async restore(parts: ReadonlySet<FixturePart> = ALL_PARTS): Promise<void> {
    const { topic, namespace, namespaceTopic, subscription, eventType } = FIXTURES;
    const hook = `${this.sinkUrl}/hook`;
    const archive = { archive: { retentionInDays: 1 } };
    const signing = { generate: true, scheme: 'v1' };
    // No schema: compiling one takes a tenth of a second, and the fixture is made again often.
    const catalogEntry = { description: 'A fixture.', example: {} };
    const topicPath = `/admin/topics/${topic}`;
    const namespacePath = `/admin/namespaces/${namespace}`;
    const namespaceTopicPath = `${namespacePath}/topics/${namespaceTopic}`;
    const puts: Record<Exclude<FixturePart, 'sessions'>, readonly [string, unknown]> = {
      topic: [topicPath, { properties: { inputSchema: 'EventGridSchema', ...archive } }],
      topicSubscription: [
        `${topicPath}/eventSubscriptions/${subscription}`,
        {
          properties: {
            destination: { endpointType: 'WebHook', properties: { endpointUrl: hook, signing } },
            deadLetterDestination: {
              endpointType: 'StorageBlob',
              properties: { blobContainerName: 'fz-dead' },
            },
            deliveryLog: 'All',
            labels: ['fz'],
          },
        },
      ],
      topicEventType: [`${topicPath}/eventTypes/${eventType}`, catalogEntry],
      namespace: [namespacePath, { properties: {} }],
      namespaceTopic: [namespaceTopicPath, { properties: { eventRetentionInDays: 1, ...archive } }],
      namespaceSubscription: [
        `${namespaceTopicPath}/eventSubscriptions/${subscription}`,
        {
          properties: {
            deliveryConfiguration: {
              deliveryMode: 'Push',
              push: {
                destination: { endpointType: 'WebHook', properties: { endpointUrl: hook, signing } },
                deadLetterDestinationWithResourceIdentity: {
                  deadLetterDestination: {
                    endpointType: 'StorageBlob',
                    properties: { blobContainerName: 'fz-dead' },
                  },
                },
              },
            },
            deliveryLog: 'All',
            labels: ['fz'],
          },
        },
      ],
      namespaceEventType: [`${namespaceTopicPath}/eventTypes/${eventType}`, catalogEntry],
    };
    const made = new Set<FixturePart>();
    for (const part of PART_ORDER) {
      if (part === 'sessions' || !parts.has(part)) continue;
      const [path, body] = puts[part];
      const found = await this.call('GET', path, undefined, (status) => status === 200 || status === 404);
      if (found.status === 404) {
        await this.call('PUT', path, body);
        made.add(part);
      }
    }
    let { replayId, namespaceReplayId, operatorToken, portalToken } = this.credentials;
    // A subscription made anew has an empty log and no replays: the event published again, a replay started.
    if (made.has('topicSubscription')) {
      await this.publish('classic');
      replayId = (await this.startReplay(`${topicPath}/eventSubscriptions/${subscription}`)) ?? replayId;
    }
    if (made.has('namespaceSubscription')) {
      await this.publish('namespace');
      namespaceReplayId =
        (await this.startReplay(`${namespaceTopicPath}/eventSubscriptions/${subscription}`)) ??
        namespaceReplayId;
    }
    if (parts.has('sessions')) {
      const token = async (scope: unknown) =>
        ((await this.call('POST', '/admin/sessions', { scope })).body as { token: string }).token;
      operatorToken = await token({ role: 'operator' });
      portalToken = await token({ role: 'portal', topic, labels: ['fz'] });
    }
    this.credentials = {
      adminToken: this.target.adminToken,
      operatorToken,
      portalToken,
      replayId,
      namespaceReplayId,
    };
  }

  /** Starts a replay of the subscription's last hour; its id, or undefined when it was refused. */
  private async startReplay(subscriptionPath: string): Promise<string | undefined> {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const replay = await this.call('POST', `${subscriptionPath}/replays`, { since }, () => true);
    return replay.status === 202 ? (replay.body as { id: string }).id : undefined;
  }

  async stop(): Promise<void> {
    this.sink.closeAllConnections();
    await new Promise<void>((resolve) => this.sink.close(() => resolve()));
  }
}

/** The fixtures a request answered `status` may have removed: what a delete deletes, or the sessions. */
function undoneBy(request: FuzzRequest, status: number): ReadonlySet<FixturePart> {
  if (status < 200 || status >= 300) return NO_PARTS;
  if (request.route === REVOKE_ALL) return new Set(['sessions']);
  // 204: there was nothing to delete.
  if (request.method !== 'DELETE' || status !== 200) return NO_PARTS;
  return new Set(DELETES[request.route] ?? []);
}

/** The stack still answers: the fixtures made again, a list, a topic, and a publish. */
export async function checkAlive(target: FuzzTarget, fixtures: FuzzFixtures): Promise<void> {
  await fixtures.restore();
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${target.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${target.adminToken}`,
        'content-type': 'application/json',
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status >= 300) {
      throw new Error(`after the fuzz, ${method} ${path} answered ${response.status}: ${excerpt(text, 500)}`);
    }
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  };
  await call('GET', '/admin/topics');
  await call('GET', `/admin/topics/${FIXTURES.topic}/eventSubscriptions/${FIXTURES.subscription}`);
  // A topic of its own: the requests may have changed the fixtures' settings.
  await call('PUT', '/admin/topics/fz-alive', { properties: { inputSchema: 'EventGridSchema' } });
  const { key1 } = (await call('POST', '/admin/topics/fz-alive/listKeys')) as { key1: string };
  const event = {
    id: 'fz-alive',
    subject: 'fz',
    eventType: 'Fz.Alive',
    eventTime: new Date().toISOString(),
    data: {},
  };
  await call('POST', '/topics/fz-alive/api/events?api-version=2018-01-01', [event], { 'aeg-sas-key': key1 });
}

// ---- The run -----------------------------------------------------------------------------------

export interface FuzzOptions {
  /**
   * Requests to send over all routes at random (fast-check's runs; shrinking a failure sends
   * more), after `perRoute` requests to each route (default 1).
   */
  runs: number;
  perRoute?: number;
  /**
   * `assert`: the first request that breaks a property fails the run, shrunk to a small one
   * (fast-check's error names the seed and path to replay it); `survey`: every request is sent
   * and the failures are counted and the first ones kept.
   */
  mode: 'assert' | 'survey';
  /** fast-check's seed; a random one by default (named in the report and in a failure). */
  seed?: number;
  /** Stop sending new requests after this long (the report says how many were sent). */
  timeLimitMs?: number;
}

export interface FuzzFailure {
  request: string;
  problem: string;
}

export interface FuzzReport {
  seed: number;
  sent: number;
  /** Answers by status class (`2xx`...) and by status. */
  byClass: Record<string, number>;
  byStatus: Record<string, number>;
  /** Requests that broke a property (survey mode: all of them are counted, the first 20 kept). */
  failureCount: number;
  failures: FuzzFailure[];
  /** Answers >= 500. */
  serverErrors: number;
  /** Route keys requested at least once; of them, those no request got a 2xx from. */
  routes: string[];
  routesWithout2xx: string[];
  /** The whole run; of it, making removed fixtures again. */
  seconds: number;
  restoreSeconds: number;
  /** The routes whose answers took longest, all told. */
  slowestRoutes: { route: string; requests: number; seconds: number }[];
  /** How long the answers took. */
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
}

/** Runs the fuzz against `target` with `fixtures` made; in `assert` mode it throws on the first failure, shrunk. */
export async function runFuzz(
  target: FuzzTarget,
  fixtures: FuzzFixtures,
  options: FuzzOptions,
): Promise<FuzzReport> {
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const report: FuzzReport = {
    seed,
    sent: 0,
    byClass: {},
    byStatus: {},
    failureCount: 0,
    failures: [],
    serverErrors: 0,
    routes: [],
    routesWithout2xx: [],
    seconds: 0,
    restoreSeconds: 0,
    slowestRoutes: [],
    latencyMs: { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 },
  };
  const routes = new Set<string>();
  const succeeded = new Set<string>();
  const latencies: number[] = [];
  const timeByRoute = new Map<string, { requests: number; ms: number }>();
  let restoring = 0;
  const started = performance.now();

  /** Sends one request; what was wrong, or undefined. */
  const exchange = async (request: FuzzRequest): Promise<string | undefined> => {
    routes.add(request.route);
    report.sent += 1;
    let answer: FuzzAnswer;
    const sentAt = performance.now();
    try {
      answer = await send(target.apiUrl, agent, request, fixtures.current);
    } catch (error) {
      return `no answer: ${(error as Error).message}`;
    } finally {
      const ms = performance.now() - sentAt;
      latencies.push(ms);
      const spent = timeByRoute.get(request.route) ?? { requests: 0, ms: 0 };
      timeByRoute.set(request.route, { requests: spent.requests + 1, ms: spent.ms + ms });
    }
    const restoredAt = performance.now();
    const status = String(answer.status);
    const statusClass = `${status[0]}xx`;
    report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
    report.byClass[statusClass] = (report.byClass[statusClass] ?? 0) + 1;
    if (answer.status >= 500) report.serverErrors += 1;
    if (answer.status < 300) succeeded.add(request.route);
    const undone = undoneBy(request, answer.status);
    // A path with dot segments reaches another route than it was made for (`.../eventSubscriptions/..`
    // is the topic): when making the route's fixtures again fails, all of them are made again.
    if (undone.size > 0) await fixtures.restore(undone).catch(() => fixtures.restore());
    restoring += performance.now() - restoredAt;
    return answerProblem(answer);
  };

  const assertive = async (request: FuzzRequest) => {
    const problem = await exchange(request);
    if (problem !== undefined) throw new Error(problem);
  };
  const surveying = async (request: FuzzRequest) => {
    const problem = await exchange(request);
    if (problem === undefined) return;
    report.failureCount += 1;
    if (report.failures.length < 20) report.failures.push({ request: describeRequest(request), problem });
  };
  const run = async (
    arbitrary: fc.Arbitrary<FuzzRequest>,
    numRuns: number,
    runSeed: number,
    part: string,
  ) => {
    // What is left of the time limit, for this part of the run.
    const left =
      options.timeLimitMs === undefined ? undefined : options.timeLimitMs - (performance.now() - started);
    if (left !== undefined && left <= 0) return;
    const plugins = left === undefined ? [] : [fc.interruptAfterTimeLimit(left)];
    // The problem in the message itself, not only as its cause, whatever prints it.
    const parameters = { numRuns, seed: runSeed, plugins, includeErrorInReport: true };
    if (options.mode === 'assert') {
      try {
        await fc.assert(fc.asyncProperty(arbitrary, assertive), parameters);
      } catch (error) {
        // fast-check names the seed of this part; the run's seed replays every part in order.
        throw new Error(
          `The management API fuzz failed (runFuzz seed ${seed}, ${part}):\n${(error as Error).message}`,
        );
      }
      return;
    }
    const details = await fc.check(fc.asyncProperty(arbitrary, surveying), parameters);
    // The property never fails here: a failure is the run's own (a request it could not send).
    if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? 'the fuzz run failed');
  };
  try {
    // Every route first, however rarely it is picked below: its own runs, seeded after the run's.
    const perRoute = routeRequests(fixtures.sinkUrl);
    for (const [index, { route, arbitrary }] of perRoute.entries()) {
      await run(arbitrary, options.perRoute ?? 1, (seed + index + 1) | 0, `the requests to ${route} first`);
    }
    await run(
      fc.oneof(...perRoute.map(({ weight, arbitrary }) => ({ weight, arbitrary }))),
      options.runs,
      seed,
      'the requests at random over every route',
    );
  } finally {
    agent.destroy();
    report.routes = [...routes].sort();
    report.routesWithout2xx = report.routes.filter((route) => !succeeded.has(route));
    report.seconds = (performance.now() - started) / 1000;
    report.restoreSeconds = restoring / 1000;
    report.slowestRoutes = [...timeByRoute]
      .sort(([, a], [, b]) => b.ms - a.ms)
      .slice(0, 5)
      .map(([route, { requests, ms }]) => ({ route, requests, seconds: ms / 1000 }));
    latencies.sort((a, b) => a - b);
    const at = (share: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))] ?? 0;
    report.latencyMs = {
      mean: latencies.reduce((sum, ms) => sum + ms, 0) / Math.max(1, latencies.length),
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: latencies.at(-1) ?? 0,
    };
  }
  return report;
}

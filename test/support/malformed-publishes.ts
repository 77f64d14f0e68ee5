/**
 * Malformed publish requests, one table for every input schema: what each is, the answer it gets
 * (status and the detail code of the error body) and what the message must name (the event index
 * and field, or the limit). The unit tests run it against the publisher with a recording queue,
 * the integration tests over HTTP against the local stack; both check that nothing was queued.
 */
import type { InputSchema, InputSchemaMapping } from '../../shared/domain/model';
import { MAX_JSON_DEPTH } from '../../shared/http/api-gateway';
import { PUBLISH_LIMITS } from '../../shared/publish/limits';

/** The topics the table publishes to, one per input schema. */
export const MALFORMED_TOPICS = {
  EventGridSchema: 'grid-in',
  CloudEventSchemaV1_0: 'cloud-in',
  CustomEventSchema: 'custom-in',
} as const satisfies Record<InputSchema, string>;

/** The custom topic's mapping: event type and time from the event, subject by default. */
export const MALFORMED_CUSTOM_MAPPING: InputSchemaMapping = {
  eventType: { sourceField: 'kind' },
  subject: { defaultValue: 'orders' },
  eventTime: { sourceField: 'at' },
  topic: { sourceField: 't' },
};

export interface MalformedPublish {
  what: string;
  schema: InputSchema;
  /** Sent as `Content-Type`; the default is the schema's usual type. */
  contentType?: string;
  /** The body (bytes where it is not UTF-8); a function for the large ones, built when the case runs. */
  body: string | Buffer | (() => string | Buffer);
  status: 400 | 413;
  /** `details[0].code` of the error body. */
  detail: string;
  /** What the message must say (the index and field it names, or the limit). */
  message: RegExp;
}

export const defaultContentType = (schema: InputSchema): string =>
  schema === 'CloudEventSchemaV1_0' ? 'application/cloudevents-batch+json' : 'application/json';

export const bodyOf = (publish: Pick<MalformedPublish, 'body'>): string | Buffer =>
  typeof publish.body === 'function' ? publish.body() : publish.body;

const grid = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'g-1',
    subject: 'orders/1',
    eventType: 'Order.Created',
    eventTime: '2026-11-23T10:00:00Z',
    data: { n: 1 },
    ...fields,
  });
const cloud = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ specversion: '1.0', id: 'c-1', source: '/shop', type: 'Order.Created', ...fields });
const custom = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ kind: 'Order.Created', n: 1, ...fields });

const many = (event: string) => () =>
  `[${Array.from({ length: PUBLISH_LIMITS.maxEventsPerRequest + 1 }, () => event).join(',')}]`;
const padded = (event: (fields: Record<string, unknown>) => string, field: string) => () =>
  `[${event({ [field]: 'x'.repeat(PUBLISH_LIMITS.maxEventBytes) })}]`;
const oversizedRequest = (event: string) => () => {
  const filler = event.replace('"n":1', `"pad":"${'y'.repeat(200_000)}"`);
  return `[${Array.from({ length: 6 }, () => filler).join(',')}]`;
};
const deep = `[${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}]`;
/** JSON nested `levels` deep: arrays in arrays. */
export const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** The nesting the issue was found with: far beyond the limit. */
export const VERY_DEEP = 100_000;
/** An event's text with a byte that is not UTF-8 (0xff) inside a string value. */
const notUtf8 = (event: string): Buffer => {
  const [before, after] = event.split('#') as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)]);
};
const DEPTH_MESSAGE = new RegExp(`nests more than ${MAX_JSON_DEPTH} levels deep`);
const UTF8_MESSAGE = /not valid UTF-8 \(the first invalid byte is at offset \d+\)/;

const G = 'EventGridSchema';
const C = 'CloudEventSchemaV1_0';
const X = 'CustomEventSchema';
const INVALID = 'InputJsonInvalid';

export const MALFORMED_PUBLISHES: readonly MalformedPublish[] = [
  // Whatever the schema: the body as a whole.
  {
    what: 'a body that is not JSON',
    schema: G,
    body: '[{"id": ',
    status: 400,
    detail: INVALID,
    message: /not valid JSON/,
  },
  { what: 'an empty body', schema: G, body: '', status: 400, detail: INVALID, message: /body is empty/ },
  {
    what: 'an empty array',
    schema: G,
    body: '[]',
    status: 400,
    detail: 'NoEvents',
    message: /holds no events/,
  },
  {
    what: 'JSON nested too deep',
    schema: G,
    body: deep,
    status: 400,
    detail: INVALID,
    message: new RegExp(`at most ${MAX_JSON_DEPTH} levels`),
  },
  {
    what: 'JSON nested 100,000 levels deep in the data of the second event',
    schema: G,
    body: () => `[${grid()},${grid({ data: 0 }).replace('"data":0', `"data":${nested(VERY_DEEP)}`)}]`,
    status: 400,
    detail: INVALID,
    message: /nests more than 100 levels deep \(in the event at index 1\); at most 100 levels/,
  },
  {
    what: 'bytes that are not UTF-8',
    schema: G,
    body: notUtf8(`[${grid({ subject: 'orders/#' })}]`),
    status: 400,
    detail: INVALID,
    message: UTF8_MESSAGE,
  },
  {
    what: 'eventType written twice (a filter and a receiver would read different ones)',
    schema: G,
    body: `[${grid()},${grid({ eventType: 'Evil' }).replace(/}$/, ',"eventType":"Safe"}')}]`,
    status: 400,
    detail: INVALID,
    message: /^Event at index 1: member 'eventType' appears more than once; a member may appear only once/,
  },
  {
    what: 'id written twice, once escaped',
    schema: G,
    body: `[${grid().replace(/}$/, ',"\\u0069d":"g-2"}')}]`,
    status: 400,
    detail: INVALID,
    message: /^Event at index 0: member 'id' appears more than once;/,
  },
  {
    what: 'a member written twice inside data',
    schema: G,
    body: `[${grid({ data: { items: [{ kind: 'a' }] } }).replace('"kind":"a"', '"kind":"a","kind":"b"')}]`,
    status: 400,
    detail: INVALID,
    message: /^Event at index 0: member 'kind' appears more than once in data\.items\[0\];/,
  },
  {
    what: 'more than 5,000 events',
    schema: G,
    body: many(grid()),
    status: 400,
    detail: 'TooManyEvents',
    message: /5001 events; at most 5000/,
  },
  {
    what: 'a request over 1 MiB',
    schema: G,
    body: oversizedRequest(grid()),
    status: 413,
    detail: 'PayloadTooLarge',
    message: /the limit is 1048576 bytes/,
  },
  {
    what: 'one event over the event limit',
    schema: G,
    body: padded(grid, 'data'),
    status: 413,
    detail: 'PayloadTooLarge',
    message: /^Event at index 0 is \d+ bytes as queued/,
  },
  {
    what: 'a CloudEvents content type',
    schema: G,
    contentType: 'application/cloudevents+json',
    body: `[${grid()}]`,
    status: 400,
    detail: 'InvalidContentType',
    message: /Content-Type 'application\/cloudevents\+json' carries CloudEvents/,
  },
  {
    what: 'an XML content type',
    schema: G,
    contentType: 'application/xml',
    body: `[${grid()}]`,
    status: 400,
    detail: 'InvalidContentType',
    message: /Content-Type 'application\/xml' is not accepted/,
  },
  // Event Grid schema.
  {
    what: 'an object instead of an array',
    schema: G,
    body: grid(),
    status: 400,
    detail: INVALID,
    message: /must be a JSON array of events/,
  },
  {
    what: 'a CloudEvent instead of an array',
    schema: G,
    body: cloud(),
    status: 400,
    detail: INVALID,
    message: /looks like a CloudEvent/,
  },
  {
    what: 'a number as an event',
    schema: G,
    body: '[1]',
    status: 400,
    detail: INVALID,
    message: /Event at index 0 must be a JSON object \(got a number\)/,
  },
  {
    what: 'null as the second event',
    schema: G,
    body: `[${grid()},null]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 1 must be a JSON object \(got null\)/,
  },
  {
    what: 'a missing id',
    schema: G,
    body: `[${grid({ id: undefined })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: id is required/,
  },
  {
    what: 'a numeric id',
    schema: G,
    body: `[${grid({ id: 7 })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: id must be a string/,
  },
  {
    what: 'an empty id',
    schema: G,
    body: `[${grid({ id: '' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: id must not be empty/,
  },
  {
    what: 'a missing subject',
    schema: G,
    body: `[${grid({ subject: undefined })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: subject is required/,
  },
  {
    what: 'a missing eventType',
    schema: G,
    body: `[${grid({ eventType: undefined })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: eventType is required/,
  },
  {
    what: 'an array as eventType',
    schema: G,
    body: `[${grid({ eventType: ['a'] })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: eventType must be a string/,
  },
  {
    what: 'a missing eventTime',
    schema: G,
    body: `[${grid({ eventTime: undefined })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: eventTime is required/,
  },
  {
    what: 'an eventTime that is no date',
    schema: G,
    body: `[${grid({ eventTime: 'next tuesday' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: eventTime must be an ISO 8601 date-time/,
  },
  {
    what: 'a numeric eventTime',
    schema: G,
    body: `[${grid({ eventTime: 1_700_000_000 })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: eventTime must be a string/,
  },
  {
    what: 'a numeric dataVersion',
    schema: G,
    body: `[${grid({ dataVersion: 2 })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: dataVersion must be a string/,
  },
  {
    what: 'metadataVersion 2',
    schema: G,
    body: `[${grid({ metadataVersion: '2' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: metadataVersion must be "1"/,
  },
  {
    what: 'another topic named in the event',
    schema: G,
    body: `[${grid({ topic: '/gridwire/topics/other' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: topic '\/gridwire\/topics\/other' does not match this topic/,
  },
  {
    what: 'a valid event then a broken one',
    schema: G,
    body: `[${grid()},${grid({ id: 'g-2', subject: 5 })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 1: subject must be a string/,
  },
  {
    what: 'a CloudEvent inside the array',
    schema: G,
    body: `[${cloud()}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: eventType is required: .*looks like a CloudEvent/,
  },
  // CloudEvents 1.0.
  {
    what: 'a text/plain content type',
    schema: C,
    contentType: 'text/plain',
    body: `[${cloud()}]`,
    status: 400,
    detail: 'InvalidContentType',
    message: /Content-Type 'text\/plain' is not accepted/,
  },
  {
    what: 'an array sent as one structured event',
    schema: C,
    contentType: 'application/cloudevents+json',
    body: `[${cloud()}]`,
    status: 400,
    detail: INVALID,
    message: /application\/cloudevents\+json carries one event/,
  },
  {
    what: 'an object sent as a batch',
    schema: C,
    body: cloud(),
    status: 400,
    detail: INVALID,
    message: /must be a JSON array of CloudEvents/,
  },
  {
    what: 'an empty batch',
    schema: C,
    body: '[]',
    status: 400,
    detail: 'NoEvents',
    message: /holds no events/,
  },
  {
    what: 'more than 5,000 CloudEvents',
    schema: C,
    body: many(cloud()),
    status: 400,
    detail: 'TooManyEvents',
    message: /5001 events; at most 5000/,
  },
  {
    what: 'a CloudEvent over the event limit',
    schema: C,
    body: padded(cloud, 'data'),
    status: 413,
    detail: 'PayloadTooLarge',
    message: /^Event at index 0 is \d+ bytes as queued/,
  },
  {
    what: 'a missing specversion',
    schema: C,
    body: `[${cloud({ specversion: undefined })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: specversion is required/,
  },
  {
    what: 'an Event Grid event',
    schema: C,
    body: `[${grid()}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: specversion is required: .*looks like the EventGridSchema schema/,
  },
  {
    what: 'specversion 0.3',
    schema: C,
    body: `[${cloud({ specversion: '0.3' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: specversion must be "1.0"/,
  },
  {
    what: 'a missing id attribute',
    schema: C,
    body: `[${cloud({ id: undefined })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: id is required/,
  },
  {
    what: 'a numeric source',
    schema: C,
    body: `[${cloud({ source: 5 })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: source must be a string \(got a number\)/,
  },
  {
    what: 'an empty type',
    schema: C,
    body: `[${cloud()},${cloud({ id: 'c-2', type: '' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 1: type must not be empty/,
  },
  {
    what: 'an extension name with upper case and _',
    schema: C,
    body: `[${cloud({ Tenant_Id: 't' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: attribute name 'Tenant_Id' is invalid/,
  },
  {
    what: 'an extension whose value is an object',
    schema: C,
    body: `[${cloud({ tenant: { id: 1 } })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: attribute 'tenant' must be a string, number or boolean \(got an object\)/,
  },
  {
    what: 'both data and data_base64',
    schema: C,
    body: `[${cloud({ data: 1, data_base64: 'AQ==' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: data and data_base64 must not both be present/,
  },
  {
    what: 'data_base64 that is not base64',
    schema: C,
    body: `[${cloud({ data_base64: 'not base64!' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: data_base64 must be base64-encoded/,
  },
  {
    what: 'a time that is no RFC 3339 date-time',
    schema: C,
    body: `[${cloud({ time: '2026-13-01T00:00:00Z' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: time must be an RFC 3339 date-time/,
  },
  {
    what: 'an attribute written twice',
    schema: C,
    body: '[{"specversion":"1.0","id":"c-1","id":"c-2","source":"/s","type":"t"}]',
    status: 400,
    detail: INVALID,
    message: /Event at index 0: member 'id' appears more than once/,
  },
  {
    what: 'a structured CloudEvent nested 100,000 levels deep',
    schema: C,
    contentType: 'application/cloudevents+json',
    body: () => cloud({ data: 0 }).replace('"data":0', `"data":${nested(VERY_DEEP)}`),
    status: 400,
    detail: INVALID,
    message: DEPTH_MESSAGE,
  },
  {
    what: 'a structured CloudEvent that is not UTF-8',
    schema: C,
    contentType: 'application/cloudevents+json',
    body: notUtf8(cloud({ subject: '#' })),
    status: 400,
    detail: INVALID,
    message: UTF8_MESSAGE,
  },
  {
    what: 'a batch that is not UTF-8',
    schema: C,
    body: notUtf8(`[${cloud()},${cloud({ id: 'c-2', data: 'caf#' })}]`),
    status: 400,
    detail: INVALID,
    message: UTF8_MESSAGE,
  },
  {
    what: 'data written twice in a structured CloudEvent',
    schema: C,
    contentType: 'application/cloudevents+json',
    body: cloud({ data: 1 }).replace(/}$/, ',"data":2}'),
    status: 400,
    detail: INVALID,
    message: /^Event at index 0: member 'data' appears more than once;/,
  },
  {
    what: 'type written twice in the third event of a batch',
    schema: C,
    body: `[${cloud()},${cloud({ id: 'c-2' })},${cloud({ id: 'c-3' }).replace(/}$/, ',"type":"Other"}')}]`,
    status: 400,
    detail: INVALID,
    message: /^Event at index 2: member 'type' appears more than once;/,
  },
  // Custom input schema (mapping: eventType from `kind`, eventTime from `at`, topic from `t`).
  {
    what: 'a string as the body',
    schema: X,
    body: '"hello"',
    status: 400,
    detail: INVALID,
    message: /must be a JSON object \(one event\) or an array of JSON objects \(got a string\)/,
  },
  {
    what: 'an empty array of custom events',
    schema: X,
    body: '[]',
    status: 400,
    detail: 'NoEvents',
    message: /holds no events/,
  },
  {
    what: 'an array holding a number',
    schema: X,
    body: `[${custom()},3]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 1 must be a JSON object \(got a number\)/,
  },
  {
    what: 'an event without its mapped eventType',
    schema: X,
    body: `[${custom({ kind: undefined })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: eventType has no value: member 'kind' is absent/,
  },
  {
    what: 'an object in the mapped eventType',
    schema: X,
    body: `[${custom({ kind: { a: 1 } })}]`,
    status: 400,
    detail: INVALID,
    message:
      /Event at index 0: member 'kind' \(mapped to eventType\) must be a string or a number \(got an object\)/,
  },
  {
    what: 'a mapped eventTime that is no date',
    schema: X,
    body: `[${custom({ at: 'soon' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: member 'at' \(mapped to eventTime\) must be an ISO 8601 date-time/,
  },
  {
    what: 'a mapped topic naming another topic',
    schema: X,
    body: `[${custom({ t: 'elsewhere' })}]`,
    status: 400,
    detail: INVALID,
    message: /Event at index 0: member 't' \(mapped to topic\) is 'elsewhere', which is not this topic/,
  },
  {
    what: 'a CloudEvents batch content type',
    schema: X,
    contentType: 'application/cloudevents-batch+json',
    body: `[${custom()}]`,
    status: 400,
    detail: 'InvalidContentType',
    message: /carries CloudEvents, but topic 'custom-in' takes events in the CustomEventSchema schema/,
  },
  {
    what: 'a custom event nested 100,000 levels deep',
    schema: X,
    body: () => custom({ n: 0 }).replace('"n":0', `"n":${nested(VERY_DEEP)}`),
    status: 400,
    detail: INVALID,
    message: DEPTH_MESSAGE,
  },
  {
    what: 'custom events that are not UTF-8',
    schema: X,
    body: notUtf8(`[${custom({ note: '#' })}]`),
    status: 400,
    detail: INVALID,
    message: UTF8_MESSAGE,
  },
  {
    what: 'the mapped eventType member written twice',
    schema: X,
    body: `[${custom()},${custom({ kind: 'Evil' }).replace(/}$/, ',"kind":"Safe"}')}]`,
    status: 400,
    detail: INVALID,
    message: /^Event at index 1: member 'kind' appears more than once;/,
  },
  {
    what: 'a member written twice deep inside a custom event',
    schema: X,
    body: custom({ order: { lines: [{}, { sku: 1 }] } }).replace('"sku":1', '"sku":1,"sku":2'),
    status: 400,
    detail: INVALID,
    message: /^Event at index 0: member 'sku' appears more than once in order\.lines\[1\];/,
  },
  {
    what: 'a custom event over the event limit',
    schema: X,
    body: padded(custom, 'pad'),
    status: 413,
    detail: 'PayloadTooLarge',
    message: /^Event at index 0 is \d+ bytes as queued/,
  },
];

/** A malformed publish to a namespace topic: its headers say the content mode. */
export interface MalformedNamespacePublish {
  what: string;
  /** `content-type` and, in binary mode, the `ce-*` attributes. */
  headers: Record<string, string>;
  body: string | Buffer | (() => string | Buffer);
  status: 400 | 413;
  detail: string;
  message: RegExp;
}

/** The required attributes of a binary-mode CloudEvent, and its JSON content type. */
export const BINARY_JSON = {
  'content-type': 'application/json',
  'ce-specversion': '1.0',
  'ce-id': 'b-1',
  'ce-source': '/shop',
  'ce-type': 'Order.Created',
} as const;
const STRUCTURED = { 'content-type': 'application/cloudevents+json; charset=utf-8' };
const BATCH = { 'content-type': 'application/cloudevents-batch+json; charset=utf-8' };

export const MALFORMED_NAMESPACE_PUBLISHES: readonly MalformedNamespacePublish[] = [
  {
    what: 'binary mode: a JSON body nested 100,000 levels deep',
    headers: BINARY_JSON,
    body: () => nested(VERY_DEEP),
    status: 400,
    detail: INVALID,
    message: /^The request body \(the event's data\) nests more than 100 levels deep; at most 100 levels/,
  },
  {
    what: 'binary mode: a JSON body nested 101 levels deep (+json type)',
    headers: { ...BINARY_JSON, 'content-type': 'application/vnd.shop+json' },
    body: `{"a":${nested(MAX_JSON_DEPTH)}}`,
    status: 400,
    detail: INVALID,
    message: DEPTH_MESSAGE,
  },
  {
    what: 'binary mode: a JSON body that is not UTF-8',
    headers: BINARY_JSON,
    body: notUtf8('{"note":"caf#"}'),
    status: 400,
    detail: INVALID,
    message: UTF8_MESSAGE,
  },
  {
    what: 'binary mode: a member written twice in the data',
    headers: BINARY_JSON,
    body: '{"kind":"Evil","kind":"Safe"}',
    status: 400,
    detail: INVALID,
    message: /^Event at index 0: member 'kind' appears more than once in data;/,
  },
  {
    what: 'binary mode: a body over 1 MiB',
    headers: { ...BINARY_JSON, 'content-type': 'application/octet-stream' },
    body: () => Buffer.alloc(PUBLISH_LIMITS.maxRequestBytes + 1, 0xff),
    status: 413,
    detail: 'PayloadTooLarge',
    message: /the limit is 1048576 bytes/,
  },
  {
    what: 'binary mode: data that is not JSON, over the event limit once in base64',
    headers: { ...BINARY_JSON, 'content-type': 'application/octet-stream' },
    body: () => Buffer.alloc(PUBLISH_LIMITS.maxRequestBytes, 0xff),
    status: 413,
    detail: 'PayloadTooLarge',
    message: /^Event at index 0 is \d+ bytes as queued/,
  },
  {
    what: 'structured mode: nested 100,000 levels deep',
    headers: STRUCTURED,
    body: () => cloud({ data: 0 }).replace('"data":0', `"data":${nested(VERY_DEEP)}`),
    status: 400,
    detail: INVALID,
    message: DEPTH_MESSAGE,
  },
  {
    what: 'structured mode: not UTF-8',
    headers: STRUCTURED,
    body: notUtf8(cloud({ subject: '#' })),
    status: 400,
    detail: INVALID,
    message: UTF8_MESSAGE,
  },
  {
    what: 'structured mode: type written twice',
    headers: STRUCTURED,
    body: cloud({ type: 'Evil' }).replace(/}$/, ',"type":"Safe"}'),
    status: 400,
    detail: INVALID,
    message: /^Event at index 0: member 'type' appears more than once;/,
  },
  {
    what: 'batch mode: id written twice in the second event',
    headers: BATCH,
    body: `[${cloud()},${cloud({ id: 'c-2' }).replace(/}$/, ',"id":"c-3"}')}]`,
    status: 400,
    detail: INVALID,
    message: /^Event at index 1: member 'id' appears more than once;/,
  },
  {
    what: 'batch mode: nested too deep in the second event',
    headers: BATCH,
    body: () =>
      `[${cloud()},${cloud({ id: 'c-2', data: 0 }).replace('"data":0', `"data":${nested(VERY_DEEP)}`)}]`,
    status: 400,
    detail: INVALID,
    message: /nests more than 100 levels deep \(in the event at index 1\)/,
  },
  {
    what: 'batch mode: not UTF-8',
    headers: BATCH,
    body: notUtf8(`[${cloud({ data: '#' })}]`),
    status: 400,
    detail: INVALID,
    message: UTF8_MESSAGE,
  },
  {
    what: 'batch mode: over 1 MiB',
    headers: BATCH,
    body: () => `[${cloud({ data: 'x'.repeat(PUBLISH_LIMITS.maxRequestBytes) })}]`,
    status: 413,
    detail: 'PayloadTooLarge',
    message: /the limit is 1048576 bytes/,
  },
];

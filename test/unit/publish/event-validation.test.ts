/**
 * Events checked against their topic's event catalog: which schemas are taken (valid draft
 * 2020-12, compiling) and which examples match, the refusals naming the event's index, its type,
 * the path in its data and what failed, unknown types let through or refused, and the publisher
 * compiling a topic's schemas once per catalog version (not per event, not per publish) on Event
 * Grid, CloudEvents, custom-schema and namespace topics.
 */

import type { CatalogSchema } from '../../../shared/domain/event-types';
import { EVENT_TYPE_LIMITS } from '../../../shared/domain/event-types';
import type { EventValidationSettings } from '../../../shared/domain/model';
import { silentLogger } from '../../../shared/observability/logging';
import { MetricBuffer } from '../../../shared/observability/metrics';
import {
  type CheckedEvent,
  CompiledCatalog,
  checkEventData,
  exampleProblem,
  schemaProblem,
} from '../../../shared/publish/event-validation';
import { Publisher } from '../../../shared/publish/publisher';
import { PublishRejection } from '../../../shared/publish/rejection';
import { publishingStore } from '../../../shared/storage/store';
import { RecordingQueue, VirtualClock } from '../../support/fakes';
import { MemoryAcceptedIds, memoryStores } from '../../support/memory-stores';

const ORDER_SCHEMA = {
  type: 'object',
  required: ['orderId', 'total'],
  properties: {
    orderId: { type: 'string' },
    total: { type: 'number', minimum: 0 },
    email: { type: 'string', format: 'email' },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
  },
  additionalProperties: false,
};

/** A schema that refers to itself without end for a value with a member `loop`, and only then. */
const LOOP_SCHEMA = {
  properties: { loop: { $ref: '#/$defs/l' } },
  $defs: { l: { allOf: [{ $ref: '#/$defs/l' }] } },
};

const catalogOf = (...schemas: CatalogSchema[]) => new CompiledCatalog(schemas);
const order = { name: 'Order.Created', schemaJson: JSON.stringify(ORDER_SCHEMA) };
const ON: EventValidationSettings = { validateEvents: true, unknownEventTypes: 'allow' };

/** The message a check refuses with (and that it is an invalid-input rejection with `code`). */
function refusal(events: CheckedEvent[], settings = ON, catalog = catalogOf(order), code?: string): string {
  try {
    checkEventData(events, settings, catalog);
  } catch (error) {
    expect(error).toBeInstanceOf(PublishRejection);
    if (code !== undefined) expect((error as PublishRejection).code).toBe(code);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('a schema for the catalog', () => {
  it.each([
    [ORDER_SCHEMA],
    [{ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }],
    [{ $schema: 'https://json-schema.org/draft/2020-12/schema#', const: 1 }],
    [{ $defs: { id: { type: 'string' } }, properties: { id: { $ref: '#/$defs/id' } } }],
    [{ type: 'object', title: 'Order', description: 'd', examples: [{}], $comment: 'c', deprecated: true }],
    [{}],
  ])('takes %j', (schema) => {
    expect(schemaProblem(schema)).toBeUndefined();
  });

  it.each([
    [[], /must be a JSON Schema \(draft 2020-12\) object/],
    [true, /must be a JSON Schema \(draft 2020-12\) object/],
    [
      { $schema: 'http://json-schema.org/draft-07/schema#' },
      /\$schema must be https:\/\/json-schema.org\/draft\/2020-12\/schema .*draft-07/,
    ],
    // $schema not a string, one with a `toString` member that is no function among them.
    [{ $schema: { toString: 'nope' } }, /\$schema must be .* \(got \{"toString":"nope"\}\)/],
    [{ $schema: 2020 }, /\$schema must be .* \(got 2020\)/],
    [{ type: 'objekt' }, /is not a valid draft 2020-12 schema: at \/type: /],
    [
      { properties: { a: { minimum: 'one' } } },
      /not a valid draft 2020-12 schema: at \/properties\/a\/minimum: must be number/,
    ],
    [{ propertise: {} }, /does not compile: strict mode: unknown keyword: "propertise"/],
    [{ type: 'string', format: 'no-such-format' }, /does not compile: unknown format "no-such-format"/],
    [{ $ref: '#/$defs/missing' }, /does not compile: can't resolve reference #\/\$defs\/missing/],
    [{ $ref: 'https://example.com/other.json' }, /does not compile: can't resolve reference/],
    // Checking anything against these never ends: Ajv's validator recursed until the stack overflowed.
    [{ $ref: '#' }, /refers to itself without end/],
    [
      { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
      /refers to itself without end/,
    ],
    [{ $dynamicRef: '#x' }, /refers to itself without end/],
    [
      { type: 'object', properties: { a: { $ref: '#' } }, allOf: [{ $ref: '#' }] },
      /refers to itself without end/,
    ],
  ])('refuses %j, saying why', (schema, message) => {
    expect(schemaProblem(schema)).toMatch(message);
  });

  it('takes a schema that refers to itself through a member, which ends with the data', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } };
    expect(schemaProblem(tree)).toBeUndefined();
    expect(exampleProblem(tree, { children: [{ children: [] }] })).toBeUndefined();
  });

  it('says an example cannot be checked, rather than failing, where the schema is endless for it alone', () => {
    // Endless only for a value with a member `loop`: the values a schema is tried on when it is put
    // cannot be every value.
    expect(schemaProblem(LOOP_SCHEMA)).toBeUndefined();
    expect(exampleProblem(LOOP_SCHEMA, {})).toBeUndefined();
    expect(exampleProblem(LOOP_SCHEMA, { loop: 1 })).toMatch(
      /^cannot be checked: the schema refers to itself without end/,
    );
  });

  it('checks an example against it, naming the path', () => {
    expect(exampleProblem(ORDER_SCHEMA, { orderId: 'o-1', total: 3 })).toBeUndefined();
    expect(exampleProblem(ORDER_SCHEMA, { orderId: 'o-1', total: -1 })).toBe(
      'does not match the schema: example/total must be >= 0',
    );
    expect(exampleProblem(ORDER_SCHEMA, { orderId: 'o-1', total: 1, extra: true })).toBe(
      "does not match the schema: example must NOT have additional properties ('extra')",
    );
  });
});

describe('the events of a publish', () => {
  it('pass when their data matches their type’s schema, or their type has none, or is not listed', () => {
    const catalog = catalogOf(order, { name: 'Order.Noted' });
    expect(() =>
      checkEventData(
        [
          { eventType: 'Order.Created', data: { orderId: 'o-1', total: 2, email: 'a@example.com' } },
          // Types match case-insensitively, as filters match them.
          { eventType: 'order.created', data: { orderId: 'o-2', total: 0 } },
          { eventType: 'Order.Noted', data: 'anything' },
          { eventType: 'Order.Shipped', data: 42 },
        ],
        ON,
        catalog,
      ),
    ).not.toThrow();
  });

  it('are refused naming the index, the type, the path in the data and what failed', () => {
    const good = { eventType: 'Order.Created', data: { orderId: 'o-1', total: 1 } };
    expect(
      refusal(
        [good, good, { eventType: 'Order.Created', data: { orderId: 'o-3', total: 1, items: [{ sku: 7 }] } }],
        ON,
        catalogOf(order),
        'EventDataInvalid',
      ),
    ).toBe(
      "Event at index 2 (type 'Order.Created'): data does not match the type's schema: data/items/0/sku must be string.",
    );
    expect(refusal([{ eventType: 'Order.Created', data: { total: 1 } }])).toBe(
      "Event at index 0 (type 'Order.Created'): data does not match the type's schema: data must have required property 'orderId'.",
    );
    expect(
      refusal([{ eventType: 'Order.Created', data: { orderId: 'o', total: 1, email: 'nope' } }]),
    ).toMatch(/data\/email must match format "email"\.$/);
    // No data is checked as null.
    expect(refusal([{ eventType: 'Order.Created', data: undefined }])).toMatch(/: data must be object\.$/);
    expect(refusal([{ eventType: 'Order.Created', data: undefined, binaryData: true }])).toMatch(
      /data_base64 carries binary data/,
    );
  });

  it('are refused, not failed on, when their type’s schema is endless for their data', () => {
    const looped = { name: 'Order.Looped', schemaJson: JSON.stringify(LOOP_SCHEMA) };
    const catalog = catalogOf(looped);
    expect(() => checkEventData([{ eventType: 'Order.Looped', data: {} }], ON, catalog)).not.toThrow();
    expect(
      refusal([{ eventType: 'Order.Looped', data: { loop: 1 } }], ON, catalog, 'EventDataInvalid'),
    ).toMatch(
      /^Event at index 0 \(type 'Order.Looped'\): data cannot be checked: the schema refers to itself without end/,
    );
  });

  it('of a type the catalog does not list are refused with unknownEventTypes reject, naming index and type', () => {
    const settings = { validateEvents: true, unknownEventTypes: 'reject' } as const;
    expect(
      refusal(
        [
          { eventType: 'Order.Created', data: { orderId: 'o', total: 1 } },
          { eventType: 'Order.Shipped', data: {} },
        ],
        settings,
        catalogOf(order),
        'UnknownEventType',
      ),
    ).toBe(
      "Event at index 1: event type 'Order.Shipped' is not in the topic's event catalog, and the topic rejects unknown event types (unknownEventTypes: reject).",
    );
  });

  it('are not checked at all on a topic that does not validate its events', () => {
    const catalog = catalogOf(order);
    checkEventData(
      [{ eventType: 'Order.Created', data: 'wrong' }],
      { validateEvents: false, unknownEventTypes: 'reject' },
      catalog,
    );
    expect(catalog.compiled).toBe(0);
  });

  it('compile each type’s schema once, on its first event', () => {
    const catalog = catalogOf(order, { name: 'Other', schemaJson: '{"type":"string"}' });
    const events = Array.from({ length: 50 }, (_, index) => ({
      eventType: 'Order.Created',
      data: { orderId: `o-${index}`, total: index },
    }));
    checkEventData(events, ON, catalog);
    checkEventData(events, ON, catalog);
    expect(catalog.compiled).toBe(1);
    checkEventData([{ eventType: 'Other', data: 's' }], ON, catalog);
    expect(catalog.compiled).toBe(2);
  });
});

describe('the publisher', () => {
  const NOW = Date.parse('2026-03-01T00:00:00Z');

  async function setup() {
    const clock = new VirtualClock(NOW);
    const stores = memoryStores();
    const reads = { schemas: 0 };
    const publisher = new Publisher({
      store: publishingStore(stores),
      queue: new RecordingQueue(clock),
      acceptedIds: new MemoryAcceptedIds(),
      fanOuts: new RecordingQueue(clock).fanOuts,
      clock,
      metrics: new MetricBuffer(),
      logger: silentLogger,
      newId: () => 'pub',
      topicCacheMs: 1_000,
      catalog: {
        schemas: (topicId) => {
          reads.schemas += 1;
          return stores.eventTypes.schemas(topicId);
        },
      },
    });
    const at = new Date(NOW).toISOString();
    const putType = (topic: string, name: string, schema?: object) =>
      stores.eventTypes.put({
        topic,
        name,
        ...(schema === undefined ? {} : { schemaJson: JSON.stringify(schema) }),
        createdAt: at,
        updatedAt: at,
      });
    return { clock, stores, publisher, reads, putType };
  }

  const eventGrid = (data: unknown, eventType = 'Order.Created') => ({
    id: 'e-1',
    subject: 's',
    eventType,
    eventTime: '2026-03-01T00:00:00Z',
    data,
  });

  it('reads and compiles a catalog once per catalog version, whatever the publishes', async () => {
    const { clock, stores, publisher, reads, putType } = await setup();
    const { resource } = await stores.topics.create(
      'orders',
      { inputSchema: 'EventGridSchema', tags: {}, validateEvents: true },
      new Date(NOW),
    );
    await putType('orders', 'Order.Created', ORDER_SCHEMA);
    const publish = (events: unknown[]) =>
      publisher.publish({
        topic: 'orders',
        credential: { kind: 'key', key: resource.keys.key1 },
        path: '/topics/orders/api/events',
        body: Buffer.from(JSON.stringify(events)),
      });
    const good = eventGrid({ orderId: 'o-1', total: 1 });
    for (let round = 0; round < 5; round++) {
      await expect(publish([good, good, good])).resolves.toMatchObject({ accepted: 3 });
      clock.advance(2_000); // past the topic cache: the topic is read again, its version unchanged
    }
    expect(reads.schemas).toBe(1);
    await expect(publish([good, eventGrid({ orderId: 1, total: 1 })])).rejects.toThrow(
      "Event at index 1 (type 'Order.Created'): data does not match the type's schema: data/orderId must be string.",
    );

    // A new version: read and compiled again, once the topic is read again.
    await putType('orders', 'Order.Created', { type: 'object', required: ['orderId'] });
    clock.advance(2_000);
    await expect(publish([eventGrid({ orderId: 1 })])).resolves.toMatchObject({ accepted: 1 });
    await expect(publish([eventGrid({ orderId: 2 })])).resolves.toMatchObject({ accepted: 1 });
    expect(reads.schemas).toBe(2);
  });

  it('checks CloudEvents, custom-schema events after their mapping, and namespace topics', async () => {
    const { stores, publisher, putType } = await setup();
    const schema = { type: 'object', required: ['orderId'] };
    const cloud = (
      await stores.topics.create(
        'cloud',
        { inputSchema: 'CloudEventSchemaV1_0', tags: {}, validateEvents: true },
        new Date(NOW),
      )
    ).resource;
    await putType('cloud', 'Order.Created', schema);
    const cloudEvent = (data: unknown) => ({
      specversion: '1.0',
      id: 'c-1',
      source: '/shop',
      type: 'Order.Created',
      data,
    });
    const publishCloud = (events: unknown[]) =>
      publisher.publish({
        topic: 'cloud',
        credential: { kind: 'key', key: cloud.keys.key1 },
        path: '/topics/cloud/api/events',
        body: Buffer.from(JSON.stringify(events)),
        contentType: 'application/cloudevents-batch+json',
      });
    await expect(publishCloud([cloudEvent({ orderId: 'o' })])).resolves.toMatchObject({ accepted: 1 });
    await expect(publishCloud([cloudEvent({ id: 'o' })])).rejects.toThrow(
      "Event at index 0 (type 'Order.Created'): data does not match the type's schema: data must have required property 'orderId'.",
    );

    const custom = (
      await stores.topics.create(
        'custom',
        {
          inputSchema: 'CustomEventSchema',
          inputSchemaMapping: { eventType: { sourceField: 'kind' }, subject: { defaultValue: 's' } },
          tags: {},
          validateEvents: true,
          unknownEventTypes: 'reject',
        },
        new Date(NOW),
      )
    ).resource;
    await putType('custom', 'Order.Created', { type: 'object', required: ['kind', 'orderId'] });
    const publishCustom = (events: unknown[]) =>
      publisher.publish({
        topic: 'custom',
        credential: { kind: 'key', key: custom.keys.key1 },
        path: '/topics/custom/api/events',
        body: Buffer.from(JSON.stringify(events)),
      });
    await expect(publishCustom([{ kind: 'Order.Created', orderId: 'o' }])).resolves.toMatchObject({
      accepted: 1,
    });
    await expect(publishCustom([{ kind: 'Order.Created' }])).rejects.toThrow(
      "Event at index 0 (type 'Order.Created'): data does not match the type's schema: data must have required property 'orderId'.",
    );
    await expect(publishCustom([{ kind: 'Order.Dropped', orderId: 'o' }])).rejects.toThrow(
      "Event at index 0: event type 'Order.Dropped' is not in the topic's event catalog",
    );

    const { resource: namespace } = await stores.namespaces.create('shop', { tags: {} }, new Date(NOW));
    await stores.namespaceTopics.put(
      {
        namespace: 'shop',
        name: 'carts',
        eventRetentionInDays: 1,
        subscriptionsVersion: 0,
        validateEvents: true,
        createdAt: new Date(NOW).toISOString(),
        updatedAt: new Date(NOW).toISOString(),
      },
      undefined,
    );
    await putType('shop/carts', 'Order.Created', schema);
    const publishNamespace = (event: unknown) =>
      publisher.publishToNamespace({
        namespace: 'shop',
        topic: 'carts',
        key: namespace.keys.key1,
        body: Buffer.from(JSON.stringify(event)),
        headers: { 'content-type': 'application/cloudevents+json' },
      });
    await expect(publishNamespace(cloudEvent({ orderId: 'o' }))).resolves.toMatchObject({ accepted: 1 });
    await expect(publishNamespace(cloudEvent([]))).rejects.toThrow(
      "Event at index 0 (type 'Order.Created'): data does not match the type's schema: data must be object.",
    );
  });

  it('names the limits it keeps', () => {
    expect(EVENT_TYPE_LIMITS).toMatchObject({ perTopic: 100, schemaBytes: 65_536, exampleBytes: 65_536 });
  });
});

/**
 * A topic's event catalog in the admin API, on classic and namespace topics: a type put (created
 * 201, replaced 200), listed without its schema and example, shown with them, and deleted; every
 * change moving the topic's catalog version and answered after the propagation wait; bodies
 * refused with a 400 naming the field and the limit or what failed; the topic properties
 * `validateEvents` and `unknownEventTypes`; the catalog's routes in the route list.
 */
import { ROUTES } from '../../../shared/config/routes';
import { EVENT_TYPE_LIMITS } from '../../../shared/domain/event-types';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import { handleManagement, type ManagementDeps } from '../../../shared/management/api';
import { applyDeclaredResource } from '../../../shared/management/declared-resources';
import {
  eventTypeBodySchema,
  eventTypeDocumentSchema,
  eventTypeListSchema,
} from '../../../shared/management/event-type-schema';
import { routeTestDeps } from '../../support/management-routes';
import { memoryStores } from '../../support/memory-stores';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const CLASSIC = '/admin/topics/{topic}';
const NAMESPACED = '/admin/namespaces/{namespace}/topics/{topic}';

const ORDER_SCHEMA = {
  type: 'object',
  required: ['orderId'],
  properties: { orderId: { type: 'string' }, total: { type: 'number' } },
};

async function setup() {
  const slept: number[] = [];
  const clock = { now: () => NOW, sleep: async (ms: number) => void slept.push(ms) };
  const stores = memoryStores();
  const deps: ManagementDeps = routeTestDeps(stores, { clock, propagationDelayMs: 1_000 });
  const call = async (routeKey: string, params: Record<string, string>, body?: unknown) => {
    try {
      const answer = await handleManagement(
        {
          routeKey,
          pathParameters: params,
          requestContext: {},
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        } as unknown as HttpEvent,
        deps,
      );
      const text = answer.body as string | undefined;
      return { status: answer.statusCode as number, body: text ? JSON.parse(text) : undefined };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.statusCode, body: error.toBody() };
    }
  };
  await call(`PUT ${CLASSIC}`, { topic: 'orders' }, {});
  await call('PUT /admin/namespaces/{namespace}', { namespace: 'shop' }, {});
  await call(`PUT ${NAMESPACED}`, { namespace: 'shop', topic: 'carts' }, {});
  slept.length = 0;
  return { stores, deps, call, slept };
}

describe.each([
  [
    'a classic topic',
    CLASSIC,
    { topic: 'orders' },
    'orders',
    '/gridwire/topics/orders',
    'Gridwire/topics/eventTypes',
  ],
  [
    'a namespace topic',
    NAMESPACED,
    { namespace: 'shop', topic: 'carts' },
    'shop/carts',
    '/gridwire/namespaces/shop/topics/carts',
    'Gridwire/namespaces/topics/eventTypes',
  ],
])('the event catalog of %s', (_label, base, params, topicId, resourceId, type) => {
  const typeParams = (eventType: string) => ({ ...params, eventType });

  it('puts, lists, shows and deletes types, moving the catalog version and waiting for publishers', async () => {
    const { call, stores, slept } = await setup();
    const version = async () =>
      topicId.includes('/')
        ? (await stores.namespaceTopics.get('shop', 'carts'))?.catalogVersion
        : (await stores.topics.get('orders'))?.catalogVersion;
    expect((await version()) ?? 0).toBe(0);

    const body = { description: 'An order was placed.', schema: ORDER_SCHEMA, example: { orderId: 'o-1' } };
    const made = await call(`PUT ${base}/eventTypes/{eventType}`, typeParams('Order.Created'), body);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: `${resourceId}/eventTypes/Order.Created`,
      name: 'Order.Created',
      type,
      properties: { description: 'An order was placed.', schema: ORDER_SCHEMA, example: { orderId: 'o-1' } },
      systemData: { createdAt: new Date(NOW).toISOString(), lastModifiedAt: new Date(NOW).toISOString() },
    });
    expect(eventTypeDocumentSchema.parse(made.body)).toEqual(made.body);
    expect(await version()).toBe(1);
    expect(slept).toEqual([1_000]);

    // Replaced whole, by any case of its name, which keeps the name first written.
    const replaced = await call(`PUT ${base}/eventTypes/{eventType}`, typeParams('order.created'), {
      example: null,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.name).toBe('Order.Created');
    expect(replaced.body.properties).toEqual({ description: null, schema: null, example: null });
    await call(`PUT ${base}/eventTypes/{eventType}`, typeParams('Order.Shipped'), {});
    expect(await version()).toBe(3);

    const list = await call(`GET ${base}/eventTypes`, params);
    expect(list.status).toBe(200);
    expect(eventTypeListSchema.parse(list.body)).toEqual(list.body);
    expect(
      list.body.value.map((entry: { name: string; properties: object }) => [entry.name, entry.properties]),
    ).toEqual([
      ['Order.Created', { description: null, hasSchema: false, hasExample: true }],
      ['Order.Shipped', { description: null, hasSchema: false, hasExample: false }],
    ]);

    const shown = await call(`GET ${base}/eventTypes/{eventType}`, typeParams('ORDER.SHIPPED'));
    expect(shown.body.properties).toEqual({ description: null, schema: null });

    slept.length = 0;
    expect((await call(`DELETE ${base}/eventTypes/{eventType}`, typeParams('Order.Shipped'))).status).toBe(
      200,
    );
    expect((await call(`DELETE ${base}/eventTypes/{eventType}`, typeParams('Order.Shipped'))).status).toBe(
      204,
    );
    expect(slept).toEqual([1_000]);
    expect(await version()).toBe(4);
    const gone = await call(`GET ${base}/eventTypes/{eventType}`, typeParams('Order.Shipped'));
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toMatch(
      /The event type 'Order.Shipped' is not in the event catalog of topic 'c?/,
    );
  });

  it('answers 404 for a topic that does not exist', async () => {
    const { call } = await setup();
    const missing = { ...params, topic: 'nope' };
    for (const [method, path] of [
      ['GET', '/eventTypes'],
      ['PUT', '/eventTypes/{eventType}'],
      ['GET', '/eventTypes/{eventType}'],
      ['DELETE', '/eventTypes/{eventType}'],
    ] as const) {
      const answer = await call(`${method} ${base}${path}`, { ...missing, eventType: 'A' }, {});
      expect([method, path, answer.status]).toEqual([method, path, 404]);
    }
  });

  it('is deleted with its topic', async () => {
    const { call, stores } = await setup();
    await call(`PUT ${base}/eventTypes/{eventType}`, typeParams('A'), {});
    await call(`DELETE ${base}`, params);
    expect(await stores.eventTypes.list(topicId)).toEqual([]);
  });
});

describe('a PUT body', () => {
  const put = async (body: unknown, eventType = 'Order.Created') => {
    const { call } = await setup();
    return call(`PUT ${CLASSIC}/eventTypes/{eventType}`, { topic: 'orders', eventType }, body);
  };

  it.each([
    [{ schema: [] }, /^schema: must be a JSON Schema \(draft 2020-12\) object\.$/],
    [{ schema: { type: 'objekt' } }, /^schema: is not a valid draft 2020-12 schema: at \/type: /],
    [
      { schema: { propertise: {} } },
      /^schema: does not compile: strict mode: unknown keyword: "propertise"\.$/,
    ],
    [{ schema: { $schema: 'http://json-schema.org/draft-07/schema#' } }, /^schema: \$schema must be https/],
    [
      { schema: ORDER_SCHEMA, example: { total: 1 } },
      /^example: does not match the schema: example must have required property 'orderId'\.$/,
    ],
    [
      { schema: ORDER_SCHEMA, example: { orderId: 'o', total: 'ten' } },
      /^example: does not match the schema: example\/total must be number\.$/,
    ],
    [{ description: 7 }, /^description: must be a string\.$/],
    [{ description: 'x'.repeat(1025) }, /^description: may be at most 1024 characters\.$/],
    [
      { schema: { description: 'x'.repeat(70_000) } },
      /^schema: is \d+ bytes as compact JSON; a schema may be at most 65536 bytes \(64 KiB\)\.$/,
    ],
    [
      { example: 'x'.repeat(70_000) },
      /^example: is \d+ bytes as compact JSON; an example may be at most 65536 bytes \(64 KiB\)\.$/,
    ],
    [{ other: 1 }, /^other: unknown field in the event type\.$/],
    [[], /^body: must be a JSON object/],
    [null, /^body: must be a JSON object/],
  ])('%j is refused naming the field', async (body, message) => {
    const answer = await put(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(message);
  });

  it.each([['a/b'], ['has space'], ['.dot-first'], ['x'.repeat(129)]])(
    'with the event type %j in its path is refused naming the rule',
    async (eventType) => {
      const answer = await put({}, eventType);
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toMatch(/^The event type '.*' is invalid: an event type's name/);
    },
  );

  it('is refused past the number of types a topic may list', async () => {
    const { call } = await setup();
    for (let index = 0; index < EVENT_TYPE_LIMITS.perTopic; index++) {
      const made = await call(
        `PUT ${CLASSIC}/eventTypes/{eventType}`,
        { topic: 'orders', eventType: `T${index}` },
        {},
      );
      expect(made.status).toBe(201);
    }
    const over = await call(
      `PUT ${CLASSIC}/eventTypes/{eventType}`,
      { topic: 'orders', eventType: 'One.More' },
      {},
    );
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe(
      "The event catalog of topic 'orders' already lists 100 event types; the limit is 100 per topic.",
    );
    // Replacing one that is there is no new type.
    expect(
      (await call(`PUT ${CLASSIC}/eventTypes/{eventType}`, { topic: 'orders', eventType: 'T0' }, {})).status,
    ).toBe(200);
  });

  it('is described by one exported zod schema, every member optional', () => {
    expect(eventTypeBodySchema.safeParse({}).success).toBe(true);
    expect(Object.keys(eventTypeBodySchema.shape).sort()).toEqual(['description', 'example', 'schema']);
  });
});

describe('the topic properties validateEvents and unknownEventTypes', () => {
  it('are taken by classic and namespace topics, shown in their documents, and refused when malformed', async () => {
    const { call } = await setup();
    const classic = await call(
      `PUT ${CLASSIC}`,
      { topic: 'orders' },
      {
        properties: { validateEvents: true, unknownEventTypes: 'reject' },
      },
    );
    expect(classic.body.properties).toMatchObject({ validateEvents: true, unknownEventTypes: 'reject' });
    // A PUT without them turns them back to their defaults, as for every topic setting.
    const reset = await call(`PUT ${CLASSIC}`, { topic: 'orders' }, {});
    expect(reset.body.properties).toMatchObject({ validateEvents: false, unknownEventTypes: 'allow' });

    const namespaced = await call(
      `PUT ${NAMESPACED}`,
      { namespace: 'shop', topic: 'carts' },
      {
        properties: { validateEvents: true },
      },
    );
    expect(namespaced.body.properties).toMatchObject({ validateEvents: true, unknownEventTypes: 'allow' });

    const wrong = await call(
      `PUT ${CLASSIC}`,
      { topic: 'orders' },
      { properties: { unknownEventTypes: 'deny' } },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toBe('properties.unknownEventTypes: must be one of allow, reject.');
    const notBoolean = await call(
      `PUT ${NAMESPACED}`,
      { namespace: 'shop', topic: 'carts' },
      {
        properties: { validateEvents: 'yes' },
      },
    );
    expect(notBoolean.body.error.message).toBe('properties.validateEvents: must be true or false.');
  });

  it('keep a namespace topic’s catalog version when the topic is put again', async () => {
    const { call, stores } = await setup();
    const params = { namespace: 'shop', topic: 'carts', eventType: 'A' };
    await call(`PUT ${NAMESPACED}/eventTypes/{eventType}`, params, {});
    await call(
      `PUT ${NAMESPACED}`,
      { namespace: 'shop', topic: 'carts' },
      { properties: { validateEvents: true } },
    );
    expect((await stores.namespaceTopics.get('shop', 'carts'))?.catalogVersion).toBe(1);
  });
});

it('lists the catalog routes of both kinds of topic', () => {
  const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
  for (const base of [CLASSIC, NAMESPACED]) {
    expect(keys).toEqual(
      expect.arrayContaining([
        `GET ${base}/eventTypes`,
        `PUT ${base}/eventTypes/{eventType}`,
        `GET ${base}/eventTypes/{eventType}`,
        `DELETE ${base}/eventTypes/{eventType}`,
      ]),
    );
  }
});

describe('an event type declared in a CDK app', () => {
  it('is put, replaced and deleted by the custom resource handler through the catalog routes', async () => {
    const { deps, stores } = await setup();
    const declaredDeps = { management: deps, clock: { now: () => NOW }, readSecret: async () => '' };
    const properties = (body: unknown) => ({
      Kind: 'NamespaceEventType',
      Namespace: 'shop',
      Topic: 'carts',
      EventType: 'Cart.Updated',
      Body: JSON.stringify(body),
    });
    const made = await applyDeclaredResource(
      { RequestType: 'Create', ResourceProperties: properties({ schema: { type: 'object' } }) },
      declaredDeps,
    );
    expect(made).toEqual({
      PhysicalResourceId: '/admin/namespaces/shop/topics/carts/eventTypes/Cart.Updated',
      Data: {
        Path: '/admin/namespaces/shop/topics/carts/eventTypes/Cart.Updated',
        Id: '/gridwire/namespaces/shop/topics/carts/eventTypes/Cart.Updated',
      },
    });
    await expect(
      applyDeclaredResource(
        { RequestType: 'Update', ResourceProperties: properties({ schema: { type: 'objekt' } }) },
        declaredDeps,
      ),
    ).rejects.toThrow(/answered 400 BadRequest: schema: is not a valid draft 2020-12 schema/);
    expect((await stores.eventTypes.list('shop/carts')).map((entry) => entry.schemaJson)).toEqual([
      '{"type":"object"}',
    ]);
    await applyDeclaredResource(
      {
        RequestType: 'Delete',
        ResourceProperties: { Kind: 'EventType', Topic: 'orders', EventType: 'Gone' },
        PhysicalResourceId: '/admin/topics/orders/eventTypes/Gone',
      },
      declaredDeps,
    );
    await applyDeclaredResource(
      {
        RequestType: 'Delete',
        ResourceProperties: properties({}),
        PhysicalResourceId: made.PhysicalResourceId,
      },
      declaredDeps,
    );
    expect(await stores.eventTypes.list('shop/carts')).toEqual([]);
  });
});

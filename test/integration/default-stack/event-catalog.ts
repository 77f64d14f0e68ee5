/**
 * Topics' event catalogs on the local stack: types put, listed, shown and deleted through the
 * admin API (and the CLI); a topic with validateEvents delivering the events whose data matches
 * their type's schema, refusing one that does not with a 400 naming its index, type and data
 * path, letting a type without a schema through, refusing unknown types with unknownEventTypes
 * reject, and checking the next publish against a changed schema; CloudEvents and namespace
 * topics alike.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGridwire } from '../../../cli/program';
import { event, type TestStack } from '../../support/local-stack';
import { sharedTestStack } from '../../support/shared-stack';
import { eventMarker, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

const ORDER_SCHEMA = {
  type: 'object',
  required: ['orderId', 'total'],
  properties: {
    orderId: { type: 'string' },
    total: { type: 'number', minimum: 0 },
    lines: {
      type: 'array',
      items: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' } } },
    },
  },
};

const order = (id: string, data: unknown, eventType = 'Order.Created') => event(id, eventType, data);

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  key = await api.createTopic('catalog-orders');
  await api.subscribe('catalog-orders', 'sink', webhook.url('/catalog'));
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

it('keeps a catalog: types put, listed, shown, refused when their schema or example is wrong, deleted', async () => {
  const path = '/admin/topics/catalog-orders/eventTypes';
  const made = await api.call('PUT', `${path}/Order.Created`, {
    description: 'An order was placed.',
    schema: ORDER_SCHEMA,
    example: { orderId: 'o-1', total: 10, lines: [{ sku: 'A' }] },
  });
  expect(made.status).toBe(201);
  expect(made.body.properties.schema).toEqual(ORDER_SCHEMA);
  expect((await api.call('PUT', `${path}/Order.Noted`, { description: 'No schema.' })).status).toBe(201);

  const badSchema = await api.call('PUT', `${path}/Order.Broken`, { schema: { type: 'objekt' } });
  expect(badSchema.status).toBe(400);
  expect(badSchema.body.error.message).toMatch(/^schema: is not a valid draft 2020-12 schema: at \/type: /);
  const badExample = await api.call('PUT', `${path}/Order.Broken`, {
    schema: ORDER_SCHEMA,
    example: { orderId: 'o-1', total: -1 },
  });
  expect(badExample.body.error.message).toBe(
    'example: does not match the schema: example/total must be >= 0.',
  );

  const list = await api.call('GET', path);
  expect(list.body.value.map((entry: { name: string }) => entry.name)).toEqual([
    'Order.Created',
    'Order.Noted',
  ]);
  const shown = await api.call('GET', `${path}/order.created`);
  expect(shown.body.properties.example).toEqual({ orderId: 'o-1', total: 10, lines: [{ sku: 'A' }] });

  expect((await api.call('PUT', `${path}/Order.Temporary`, {})).status).toBe(201);
  expect((await api.call('DELETE', `${path}/Order.Temporary`)).status).toBe(200);
  expect((await api.call('DELETE', `${path}/Order.Temporary`)).status).toBe(204);
  expect((await api.call('GET', `${path}/Order.Temporary`)).status).toBe(404);
});

it('checks published events once the topic validates them, naming index, type and path', async () => {
  const publish = (events: unknown[]) => api.publish('catalog-orders', key, events);
  // Not validating yet: anything goes.
  expect((await publish([order('cat-0', { wrong: true })])).status).toBe(200);

  const on = await api.call('PUT', '/admin/topics/catalog-orders', { properties: { validateEvents: true } });
  expect(on.body.properties).toMatchObject({ validateEvents: true, unknownEventTypes: 'allow' });

  const good = order('cat-1', { orderId: 'o-1', total: 3, lines: [{ sku: 'A' }] });
  expect((await publish([good])).status).toBe(200);
  await webhook.requestWith('/catalog', eventMarker('cat-1'));

  const refused = await publish([
    order('cat-2', { orderId: 'o-2', total: 1 }),
    order('cat-3', { orderId: 'o-3', total: 1, lines: [{ sku: 5 }] }),
  ]);
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toBe(
    "Event at index 1 (type 'Order.Created'): data does not match the type's schema: data/lines/0/sku must be string.",
  );
  expect(refused.body.error.details).toEqual([
    { code: 'EventDataInvalid', message: refused.body.error.message },
  ]);

  // A type the catalog lists without a schema, and one it does not list, pass.
  expect((await publish([order('cat-4', 'free text', 'Order.Noted')])).status).toBe(200);
  expect((await publish([order('cat-5', 42, 'Order.Unlisted')])).status).toBe(200);
  for (const id of ['cat-4', 'cat-5']) await webhook.requestWith('/catalog', eventMarker(id));
  // Nothing of the refused request went out.
  expect(webhook.requestsTo('/catalog').some((request) => request.body.includes('cat-2'))).toBe(false);

  // Unknown types refused.
  await api.call('PUT', '/admin/topics/catalog-orders', {
    properties: { validateEvents: true, unknownEventTypes: 'reject' },
  });
  const unknown = await publish([good, order('cat-6', {}, 'Order.Unlisted')]);
  expect(unknown.status).toBe(400);
  expect(unknown.body.error.message).toBe(
    "Event at index 1: event type 'Order.Unlisted' is not in the topic's event catalog, and the topic rejects unknown event types (unknownEventTypes: reject).",
  );
});

it('checks the next publish against a schema just changed', async () => {
  const publish = (events: unknown[]) => api.publish('catalog-orders', key, events);
  const loose = order('cat-7', { orderId: 'o-7' });
  expect((await publish([loose])).status).toBe(400);
  const changed = await api.call('PUT', '/admin/topics/catalog-orders/eventTypes/Order.Created', {
    schema: { type: 'object', required: ['orderId'] },
  });
  expect(changed.status).toBe(200);
  expect((await publish([loose])).status).toBe(200);
  await api.call('PUT', '/admin/topics/catalog-orders/eventTypes/Order.Created', {
    schema: { type: 'object', required: ['orderId', 'currency'] },
  });
  const now = await publish([order('cat-8', { orderId: 'o-8' })]);
  expect(now.body.error.message).toMatch(/data must have required property 'currency'\.$/);
  // Deleted from the catalog: an unknown type, refused by this topic.
  await api.call('DELETE', '/admin/topics/catalog-orders/eventTypes/Order.Created');
  expect((await publish([order('cat-9', { orderId: 'o-9' })])).body.error.details[0].code).toBe(
    'UnknownEventType',
  );
});

it('checks the events of a namespace topic and a CloudEvents topic', async () => {
  const nsKey = await api.createNamespaceTopic('catalog-shop', 'carts', 'sink', webhook.url('/catalog-ns'));
  await api.call('PUT', '/admin/namespaces/catalog-shop/topics/carts', {
    properties: { validateEvents: true },
  });
  const put = await api.call('PUT', '/admin/namespaces/catalog-shop/topics/carts/eventTypes/Cart.Updated', {
    schema: { type: 'object', required: ['cartId'], properties: { cartId: { type: 'string' } } },
  });
  expect(put.status).toBe(201);
  const send = (data: unknown, id: string) =>
    fetch(`${api.stack.apiUrl}/namespaces/catalog-shop/topics/carts:publish`, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json', authorization: `SharedAccessKey ${nsKey}` },
      body: JSON.stringify({ specversion: '1.0', id, source: '/shop', type: 'Cart.Updated', data }),
    });
  expect((await send({ cartId: 'c-1' }, 'cat-ns-1')).status).toBe(200);
  await webhook.requestWith('/catalog-ns', eventMarker('cat-ns-1'));
  const refused = await send({ cartId: 7 }, 'cat-ns-2');
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
    "Event at index 0 (type 'Cart.Updated'): data does not match the type's schema: data/cartId must be string.",
  );

  // A classic CloudEvents topic: `type` and `data`.
  const created = await api.call('PUT', '/admin/topics/catalog-cloud', {
    properties: { inputSchema: 'CloudEventSchemaV1_0', validateEvents: true },
  });
  expect(created.status).toBe(201);
  const cloudKey = (await api.call('POST', '/admin/topics/catalog-cloud/listKeys')).body.key1;
  await api.call('PUT', '/admin/topics/catalog-cloud/eventTypes/Cart.Updated', {
    schema: { type: 'object', required: ['cartId'] },
  });
  const cloud = await fetch(`${api.stack.apiUrl}/topics/catalog-cloud/api/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents-batch+json', 'aeg-sas-key': cloudKey },
    body: JSON.stringify([
      { specversion: '1.0', id: 'c-1', source: '/s', type: 'Cart.Updated', data: { cartId: 'x' } },
      { specversion: '1.0', id: 'c-2', source: '/s', type: 'Cart.Updated', data: {} },
    ]),
  });
  expect(cloud.status).toBe(400);
  expect(((await cloud.json()) as { error: { message: string } }).error.message).toBe(
    "Event at index 1 (type 'Cart.Updated'): data does not match the type's schema: data must have required property 'cartId'.",
  );
});

it('is kept with gridwire event-type, and topic update turns validation off', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'gridwire-catalog-'));
  const schema = join(dir, 'paid.json');
  await writeFile(schema, JSON.stringify({ type: 'object', required: ['paymentId'] }));
  const example = join(dir, 'example.json');
  await writeFile(example, JSON.stringify({ paymentId: 'p-1' }));
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  const target = ['--data-dir', api.stack.dataDir];
  try {
    const run = (...words: string[]) => runGridwire([...words, ...target]);
    await run(
      'event-type',
      'create',
      '--topic',
      'catalog-orders',
      '--name',
      'Order.Paid',
      '--schema',
      schema,
      '--example',
      example,
      '--description',
      'Paid.',
    );
    await run('event-type', 'list', '--topic', 'catalog-orders', '--json');
    await run('topic', 'update', 'catalog-orders', '--no-validate-events');
    await run('event-type', 'delete', '--topic', 'catalog-orders', '--name', 'Order.Paid');
  } finally {
    log.mockRestore();
  }
  expect(lines[0]).toMatch(/^Created event type Order.Paid in the event catalog of topic catalog-orders\./);
  expect(JSON.parse(lines[1] ?? '[]').map((entry: { name: string }) => entry.name)).toContain('Order.Paid');
  expect(lines[2]).toContain('validation:    off');
  expect(lines[3]).toBe('Deleted event type Order.Paid from the event catalog of topic catalog-orders.');
  // Validation off: anything goes again.
  expect((await api.publish('catalog-orders', key, [order('cat-10', 'x', 'Anything')])).status).toBe(200);
});

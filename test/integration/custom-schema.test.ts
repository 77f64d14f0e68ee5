/**
 * The custom input schema end to end on the local stack: a topic created with an input schema
 * mapping, events published with the official publisher client ("Custom" schema, key and SAS
 * credentials) and with plain HTTP, delivered to one subscription per delivery schema (Event Grid
 * through the mapping, parsed with the official deserializer; CloudEvents, parsed and validated by
 * the CloudEvents SDK; and as published), filtered by the mapped event type, and dead-lettered in
 * the Event Grid form with the published object as data.
 */
import {
  AzureKeyCredential,
  AzureSASCredential,
  EventGridDeserializer,
  EventGridPublisherClient,
  generateSharedAccessSignature,
} from '@azure/eventgrid';
import { CloudEvent, HTTP } from 'cloudevents';
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;
let topicUrl: string;

const mapping = {
  inputSchemaMappingType: 'Json',
  properties: {
    id: { sourceField: 'orderId' },
    eventTime: { sourceField: 'placedAt' },
    eventType: { sourceField: 'kind', defaultValue: 'Shop.Unknown' },
    subject: { sourceField: 'path', defaultValue: 'orders' },
    dataVersion: { defaultValue: '1.0' },
  },
};

const subscription = (path: string, extra: Record<string, unknown> = {}) => ({
  properties: {
    destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url(path) } },
    ...extra,
  },
});

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  // Time scale 60: the dead-letter step's 5-minute wait is 5 s.
  api = await startTestStack({ timeScale: 60 });
  const created = await api.call('PUT', '/admin/topics/shop', {
    properties: { inputSchema: 'CustomEventSchema', inputSchemaMapping: mapping },
  });
  expect(created.status).toBe(201);
  key = (await api.call('POST', '/admin/topics/shop/listKeys')).body.key1;
  topicUrl = `${api.stack.apiUrl}/topics/shop/api/events`;
  for (const [name, extra] of [
    ['grid', {}],
    ['cloud', { eventDeliverySchema: 'CloudEventSchemaV1_0' }],
    ['raw', { eventDeliverySchema: 'CustomInputSchema' }],
    ['paid', { eventDeliverySchema: 'CustomInputSchema', filter: { includedEventTypes: ['Shop.Paid'] } }],
  ] as const) {
    const put = await api.call(
      'PUT',
      `/admin/topics/shop/eventSubscriptions/${name}`,
      subscription(`/${name}`, extra),
    );
    expect(put.status).toBe(201);
  }
  const failing = await api.call('PUT', '/admin/topics/shop/eventSubscriptions/failing', {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: webhook.url('/failing', () => ({ status: 500 })) },
      },
      eventDeliverySchema: 'CustomInputSchema',
      filter: { includedEventTypes: ['Shop.Doomed'] },
      retryPolicy: { maxDeliveryAttempts: 1, eventTimeToLiveInMinutes: 1440 },
      deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
    },
  });
  expect(failing.status).toBe(201);
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const deliveredTo = (path: string, marker: string): Promise<ReceivedRequest> =>
  webhook.requestWith(path, marker);

it('shows the mapping and the default Event Grid delivery schema; refuses a changed mapping', async () => {
  const topic = await api.call('GET', '/admin/topics/shop');
  expect(topic.body.properties).toMatchObject({
    inputSchema: 'CustomEventSchema',
    inputSchemaMapping: mapping,
  });
  const grid = await api.call('GET', '/admin/topics/shop/eventSubscriptions/grid');
  expect(grid.body.properties.eventDeliverySchema).toBe('EventGridSchema');

  const changed = await api.call('PUT', '/admin/topics/shop', {
    properties: {
      inputSchema: 'CustomEventSchema',
      inputSchemaMapping: { ...mapping, properties: { ...mapping.properties, id: { sourceField: 'ref' } } },
    },
  });
  expect(changed.status).toBe(400);
  expect(changed.body.error.message).toMatch(/^properties\.inputSchemaMapping: .*cannot be changed/);
  const again = await api.call('PUT', '/admin/topics/shop', {
    properties: { inputSchema: 'CustomEventSchema', inputSchemaMapping: mapping },
  });
  expect(again.status).toBe(200);

  const invalid = await api.call('PUT', '/admin/topics/other-shop', {
    properties: {
      inputSchema: 'CustomEventSchema',
      inputSchemaMapping: {
        inputSchemaMappingType: 'Json',
        properties: { eventType: { sourceField: 'kind' } },
      },
    },
  });
  expect(invalid.status).toBe(400);
  expect(invalid.body.error.message).toMatch(
    /^properties\.inputSchemaMapping\.properties\.subject: is required/,
  );
  expect((await api.call('GET', '/admin/topics/other-shop')).status).toBe(404);
});

it('refuses CustomInputSchema delivery on an Event Grid topic, naming eventDeliverySchema', async () => {
  await api.createTopic('plain-shop');
  const refused = await api.call(
    'PUT',
    '/admin/topics/plain-shop/eventSubscriptions/raw',
    subscription('/unused', { eventDeliverySchema: 'CustomInputSchema' }),
  );
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toMatch(/^properties\.eventDeliverySchema: /);
});

it('maps events from the official client (key credential) and delivers them in each subscription schema', async () => {
  const client = new EventGridPublisherClient(topicUrl, 'Custom', new AzureKeyCredential(key), {
    allowInsecureConnection: true,
  });
  const published = {
    orderId: 'sdk-1',
    kind: 'Shop.Paid',
    placedAt: '2026-11-20T09:30:00.000Z',
    path: 'orders/sdk-1',
    total: 42.5,
    lines: [{ sku: 'A-1', qty: 2 }],
  };
  await client.send([published]);

  // Event Grid schema, through the mapping: the official deserializer reads it.
  const grid = await deliveredTo('/grid', '"sdk-1"');
  expect(grid.headers['content-type']).toBe('application/json; charset=utf-8');
  const [event, ...others] = await new EventGridDeserializer().deserializeEventGridEvents(grid.body);
  expect(others).toEqual([]);
  expect(event).toMatchObject({
    id: 'sdk-1',
    eventType: 'Shop.Paid',
    subject: 'orders/sdk-1',
    dataVersion: '1.0',
    topic: '/gridwire/topics/shop',
    data: published,
  });
  expect(event?.eventTime.toISOString()).toBe('2026-11-20T09:30:00.000Z');

  // CloudEvents 1.0, converted from the same queued event.
  const cloud = await deliveredTo('/cloud', '"sdk-1"');
  const headers = Object.fromEntries(
    Object.entries(cloud.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  const parsed = HTTP.toEvent({ headers, body: cloud.body });
  const [cloudEvent] = Array.isArray(parsed) ? parsed : [parsed];
  expect(cloudEvent).toBeInstanceOf(CloudEvent);
  expect((cloudEvent as CloudEvent<unknown>).validate()).toBe(true);
  expect(cloudEvent).toMatchObject({
    id: 'sdk-1',
    type: 'Shop.Paid',
    source: '/gridwire/topics/shop',
    subject: 'orders/sdk-1',
    dataversion: '1.0',
    data: published,
  });

  // The same client with a SAS credential it signed.
  const token = await generateSharedAccessSignature(
    topicUrl,
    new AzureKeyCredential(key),
    new Date(Date.now() + 600_000),
  );
  const sasClient = new EventGridPublisherClient(topicUrl, 'Custom', new AzureSASCredential(token), {
    allowInsecureConnection: true,
  });
  await sasClient.send([{ ...published, orderId: 'sdk-sas-1' }]);
  expect(JSON.parse((await deliveredTo('/paid', '"sdk-sas-1"')).body)).toEqual([
    { ...published, orderId: 'sdk-sas-1' },
  ]);

  // As published, to the unfiltered and the filtered (Shop.Paid) subscription alike.
  for (const path of ['/raw', '/paid']) {
    const raw = await deliveredTo(path, '"sdk-1"');
    expect(JSON.parse(raw.body)).toEqual([published]);
    expect(raw.headers['aeg-data-version']).toBe('1.0');
  }
});

it('takes a single object over plain HTTP with a SAS token, using defaults, a generated id and the publish time', async () => {
  const token = await generateSharedAccessSignature(
    topicUrl,
    new AzureKeyCredential(key),
    new Date(Date.now() + 600_000),
  );
  const text = '{"note":"curl-1","amount":9007199254740993,"price":1.50}';
  const before = Date.now();
  const response = await fetch(`${topicUrl}?api-version=2018-01-01`, {
    method: 'POST',
    // What `curl -d` sends.
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'aeg-sas-token': token },
    body: text,
  });
  expect(response.status).toBe(200);

  const raw = await deliveredTo('/raw', '"curl-1"');
  expect(raw.body).toBe(`[${text}]`);
  const grid = await deliveredTo('/grid', '"curl-1"');
  const [event] = await new EventGridDeserializer().deserializeEventGridEvents(grid.body);
  expect(event).toMatchObject({ eventType: 'Shop.Unknown', subject: 'orders', dataVersion: '1.0' });
  expect(event?.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(event?.eventTime.getTime()).toBeGreaterThanOrEqual(before - 1000);
  // The data is the published text, every digit kept.
  expect(grid.body).toContain(`"data":${text}`);
  // Not Shop.Paid: the filtered subscription never sees it.
  await deliveredTo('/raw', '"curl-1"');
  expect(webhook.requestsTo('/paid').some((request) => request.body.includes('curl-1'))).toBe(false);
});

it('dead-letters custom events in the Event Grid form, with the published object as data', async () => {
  const published = { orderId: 'doomed-1', kind: 'Shop.Doomed', path: 'orders/doomed-1', n: 1 };
  expect((await api.publish('shop', key, [published])).status).toBe(200);
  await deliveredTo('/failing', '"doomed-1"');
  const route = '/admin/topics/shop/eventSubscriptions/failing/deadLetters';
  const blob = await api.firstDeadLetterBlob('shop', 'failing');
  const [record] = blob.records;
  expect(record).toMatchObject({
    id: 'doomed-1',
    eventType: 'Shop.Doomed',
    subject: 'orders/doomed-1',
    dataVersion: '1.0',
    metadataVersion: '1',
    topic: '/gridwire/topics/shop',
    data: published,
    deadLetterReason: 'MaxDeliveryAttemptsExceeded',
    deliveryAttempts: 1,
    lastDeliveryOutcome: 'GenericError',
  });

  // Replayed, it goes out again as the subscription's schema has it: as published.
  const replay = await api.call('POST', `${route}/replay`, { keys: [blob.key] });
  expect(replay.status).toBe(200);
  expect(replay.body).toMatchObject({ eventsQueued: 1 });
  const again = await eventually(
    () => webhook.requestsTo('/failing').filter((request) => request.body.includes('"doomed-1"'))[1],
    10_000,
    'the replayed delivery',
  );
  expect(JSON.parse(again.body)).toEqual([published]);
  expect(again.headers['aeg-delivery-count']).toBe('0');
});

/**
 * CloudEvents 1.0 on a classic topic, end to end on the local stack: a topic created with the
 * CloudEvents input schema, a subscription delivering CloudEvents, events published with the
 * official Event Grid publisher client and as plain `application/cloudevents+json`, delivered as
 * published in a CloudEvents batch.
 */
import { AzureKeyCredential, EventGridPublisherClient } from '@azure/eventgrid';
import { CloudEvent, type CloudEventV1, HTTP } from 'cloudevents';
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventMarker, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;
let topicUrl: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack();
  const created = await api.call('PUT', '/admin/topics/clouds', {
    properties: { inputSchema: 'CloudEventSchemaV1_0' },
  });
  expect(created.status).toBe(201);
  expect(created.body.properties.inputSchema).toBe('CloudEventSchemaV1_0');
  key = (await api.call('POST', '/admin/topics/clouds/listKeys')).body.key1;
  await api.subscribe('clouds', 'sink', webhook.url('/clouds'));
  topicUrl = `${api.stack.apiUrl}/topics/clouds/api/events`;
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const deliveredOf = (id: string): Promise<ReceivedRequest> => webhook.requestWith('/clouds', eventMarker(id));

/** Parses the delivery with the CloudEvents SDK (which validates each event) and returns the events. */
function sdkEvents(request: ReceivedRequest) {
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  const parsed = HTTP.toEvent({ headers, body: request.body });
  const events: CloudEventV1<unknown>[] = Array.isArray(parsed) ? parsed : [parsed];
  for (const event of events) {
    expect(event).toBeInstanceOf(CloudEvent);
    expect((event as CloudEvent<unknown>).validate()).toBe(true);
  }
  return events;
}

it('gives subscriptions on a CloudEvents topic the CloudEvents delivery schema, and refuses Event Grid output', async () => {
  const sink = await api.call('GET', '/admin/topics/clouds/eventSubscriptions/sink');
  expect(sink.body.properties.eventDeliverySchema).toBe('CloudEventSchemaV1_0');
  const refused = await api.call('PUT', '/admin/topics/clouds/eventSubscriptions/grid', {
    properties: {
      destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/grid') } },
      eventDeliverySchema: 'EventGridSchema',
    },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toMatch(/^properties\.eventDeliverySchema: /);
});

it('delivers events from the official client as they were sent, in a CloudEvents batch', async () => {
  // What the client puts on the wire, to compare with what the webhook receives.
  const sent: Array<{ contentType: string | undefined; body: unknown }> = [];
  const client = new EventGridPublisherClient(topicUrl, 'CloudEvent', new AzureKeyCredential(key), {
    allowInsecureConnection: true,
    additionalPolicies: [
      {
        position: 'perCall',
        policy: {
          name: 'record-body',
          sendRequest: (request, next) => {
            sent.push({ contentType: request.headers.get('content-type'), body: request.body });
            return next(request);
          },
        },
      },
    ],
  });
  const time = new Date('2026-11-01T10:00:00.000Z');
  await client.send([
    {
      id: 'sdk-1',
      source: '/orders',
      type: 'Order.Created',
      time,
      subject: 'orders/1',
      data: { id: 1, price: 9.5 },
      extensionAttributes: { tenant: 'north' },
    },
  ]);
  expect(sent.map((request) => request.contentType)).toEqual([
    'application/cloudevents-batch+json; charset=utf-8',
  ]);
  const request = await deliveredOf('sdk-1');
  expect(request.headers['content-type']).toBe('application/cloudevents-batch+json; charset=utf-8');
  expect(request.headers).toMatchObject({
    'aeg-event-type': 'Notification',
    'aeg-subscription-name': 'SINK',
    'aeg-delivery-count': '0',
    'aeg-output-event-id': 'sdk-1',
  });
  expect(request.headers['aeg-data-version']).toBeUndefined();
  // Nothing is stamped on a CloudEvent: the webhook gets the client's own text.
  expect(typeof sent[0]?.body).toBe('string');
  expect(request.body).toBe(sent[0]?.body);
  expect(JSON.parse(request.body)).toEqual([
    expect.objectContaining({
      specversion: '1.0',
      id: 'sdk-1',
      source: '/orders',
      type: 'Order.Created',
      time: time.toISOString(),
      subject: 'orders/1',
      data: { id: 1, price: 9.5 },
      tenant: 'north',
    }),
  ]);
  const [event] = sdkEvents(request);
  expect([event?.id, event?.type, event?.source, event?.tenant]).toEqual([
    'sdk-1',
    'Order.Created',
    '/orders',
    'north',
  ]);
});

it('delivers one application/cloudevents+json event byte for byte', async () => {
  const text =
    '{"specversion":"1.0","id":"plain-1","source":"https://example.test/orders","type":"Order.Paid","time":"2026-11-01T10:00:00Z","datacontenttype":"application/json","dataversion":"2.0","data":{"amount":1.50,"big":9007199254740993,"note":"caf\\u00e9 ☕"}}';
  const response = await fetch(`${topicUrl}?api-version=2018-01-01`, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json; charset=utf-8', 'aeg-sas-key': key },
    body: text,
  });
  expect(response.status).toBe(200);
  const request = await deliveredOf('plain-1');
  expect(request.body).toBe(`[${text}]`);
  expect(request.headers['content-type']).toBe('application/cloudevents-batch+json; charset=utf-8');
  expect(request.headers['aeg-data-version']).toBe('2.0');
  const [event] = sdkEvents(request);
  expect([event?.id, event?.type, event?.dataversion]).toEqual(['plain-1', 'Order.Paid', '2.0']);
});

it('refuses a malformed CloudEvent and an Event Grid body with 400, naming what is wrong', async () => {
  const malformed = await fetch(topicUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents-batch+json', 'aeg-sas-key': key },
    body: JSON.stringify([{ specversion: '1.0', id: 'x', source: '/o', type: 't', Bad: 1 }]),
  });
  expect(malformed.status).toBe(400);
  expect(((await malformed.json()) as { error: { message: string } }).error.message).toMatch(
    /^Event at index 0: attribute name 'Bad' is invalid/,
  );
  const grid = await api.publish('clouds', key, [
    { id: 'g', subject: 's', eventType: 'T', eventTime: '2026-11-01T10:00:00Z', data: {} },
  ]);
  expect(grid.status).toBe(400);
  expect(grid.body.error.message).toMatch(/this topic takes events in the CloudEventSchemaV1_0 schema/);
});

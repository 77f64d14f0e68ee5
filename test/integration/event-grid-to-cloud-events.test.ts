/**
 * An Event Grid topic delivering to both schemas, end to end on the local stack: one publish, a
 * subscription delivering EventGridSchema gets the Event Grid text, one delivering
 * CloudEventSchemaV1_0 gets the same event converted to a CloudEvent at delivery time.
 */
import { EventGridDeserializer } from '@azure/eventgrid';
import { CloudEvent, type CloudEventV1, HTTP } from 'cloudevents';
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventMarker, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack();
  expect((await api.call('PUT', '/admin/topics/grids', {})).status).toBe(201);
  key = (await api.call('POST', '/admin/topics/grids/listKeys')).body.key1;
  await api.subscribe('grids', 'grid', webhook.url('/grid'), { eventDeliverySchema: 'EventGridSchema' });
  await api.subscribe('grids', 'cloud', webhook.url('/cloud'), {
    eventDeliverySchema: 'CloudEventSchemaV1_0',
  });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const deliveredTo = (path: string, id: string): Promise<ReceivedRequest> =>
  webhook.requestWith(path, eventMarker(id));

it('keeps the CloudEvents delivery schema a subscription of an Event Grid topic asks for', async () => {
  const cloud = await api.call('GET', '/admin/topics/grids/eventSubscriptions/cloud');
  expect(cloud.body.properties.eventDeliverySchema).toBe('CloudEventSchemaV1_0');
  const grid = await api.call('GET', '/admin/topics/grids/eventSubscriptions/grid');
  expect(grid.body.properties.eventDeliverySchema).toBe('EventGridSchema');
});

it('delivers one published event as Event Grid text to one subscription and as a CloudEvent to the other', async () => {
  const data = '{"amount":1.50,"big":9007199254740993,"note":"caf\\u00e9 ☕ 🚚","items":[1,null,"x"]}';
  const text = `[{"id":"both-1","subject":"orders/1","eventType":"Order.Paid","eventTime":"2026-11-01T10:00:00Z","dataVersion":"2.0","data":${data}}]`;
  const response = await fetch(`${api.stack.apiUrl}/topics/grids/api/events?api-version=2018-01-01`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'aeg-sas-key': key },
    body: text,
  });
  expect(response.status).toBe(200);

  const grid = await deliveredTo('/grid', 'both-1');
  expect(grid.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(grid.body).toBe(
    `[{"id":"both-1","subject":"orders/1","eventType":"Order.Paid","eventTime":"2026-11-01T10:00:00Z","dataVersion":"2.0","data":${data},"topic":"/gridwire/topics/grids","metadataVersion":"1"}]`,
  );

  // The official consumer reads it.
  const [gridEvent, ...moreGrid] = await new EventGridDeserializer().deserializeEventGridEvents(grid.body);
  expect(moreGrid).toEqual([]);
  expect(gridEvent).toMatchObject({
    id: 'both-1',
    subject: 'orders/1',
    eventType: 'Order.Paid',
    dataVersion: '2.0',
    metadataVersion: '1',
    topic: '/gridwire/topics/grids',
    data: { amount: 1.5, note: 'caf\u00e9 ☕ 🚚', items: [1, null, 'x'] },
  });
  expect(gridEvent?.eventTime.toISOString()).toBe('2026-11-01T10:00:00.000Z');

  const cloud = await deliveredTo('/cloud', 'both-1');
  // The official consumer reads the CloudEvents delivery too.
  const [sdkCloud] = await new EventGridDeserializer().deserializeCloudEvents(
    (await deliveredTo('/cloud', 'both-1')).body,
  );
  expect(sdkCloud).toMatchObject({ id: 'both-1', type: 'Order.Paid', source: '/gridwire/topics/grids' });
  expect(cloud.headers['content-type']).toBe('application/cloudevents-batch+json; charset=utf-8');
  expect(cloud.headers).toMatchObject({
    'aeg-event-type': 'Notification',
    'aeg-subscription-name': 'CLOUD',
    'aeg-delivery-count': '0',
    'aeg-output-event-id': 'both-1',
    'aeg-data-version': '2.0',
  });
  // The data is the published text, byte for byte.
  expect(cloud.body).toBe(
    `[{"specversion":"1.0","id":"both-1","source":"/gridwire/topics/grids","type":"Order.Paid","subject":"orders/1","time":"2026-11-01T10:00:00Z","dataversion":"2.0","datacontenttype":"application/json","data":${data}}]`,
  );

  const headers = Object.fromEntries(
    Object.entries(cloud.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  const parsed = HTTP.toEvent({ headers, body: cloud.body });
  const events: CloudEventV1<unknown>[] = Array.isArray(parsed) ? parsed : [parsed];
  expect(events).toHaveLength(1);
  const [event] = events;
  expect(event).toBeInstanceOf(CloudEvent);
  expect((event as CloudEvent<unknown>).validate()).toBe(true);
  expect({
    specversion: event?.specversion,
    id: event?.id,
    source: event?.source,
    type: event?.type,
    subject: event?.subject,
    time: new Date(event?.time ?? '').toISOString(),
    dataversion: event?.dataversion,
    datacontenttype: event?.datacontenttype,
  }).toEqual({
    specversion: '1.0',
    id: 'both-1',
    source: '/gridwire/topics/grids',
    type: 'Order.Paid',
    subject: 'orders/1',
    time: '2026-11-01T10:00:00.000Z',
    dataversion: '2.0',
    datacontenttype: 'application/json',
  });
  expect(event?.data).toEqual(JSON.parse(data));
});

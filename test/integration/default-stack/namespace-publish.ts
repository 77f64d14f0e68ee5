/**
 * Publishing to a namespace topic on the local stack: the official namespaces sender client
 * (structured single event and batch, key credential) and CloudEvents in binary mode over plain
 * HTTP, delivered to the topic's push subscription; keys, unknown topics and the 1,000-event limit.
 */
import { AzureKeyCredential, EventGridSenderClient } from '@azure/eventgrid-namespaces';
import { CloudEvent, HTTP } from 'cloudevents';
import type { TestStack } from '../../support/local-stack';
import { sharedTestStack } from '../../support/shared-stack';
import { eventMarker, type ReceivedRequest, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;
let endpoint: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  key = await api.createNamespaceTopic('shop', 'orders', 'sink', webhook.url('/ns'));
  endpoint = `${api.stack.apiUrl}/namespaces/shop`;
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

const deliveredOf = (id: string): Promise<ReceivedRequest> => webhook.requestWith('/ns', eventMarker(id));

/** The delivered events, read and validated by the CloudEvents SDK. */
function cloudEventsOf(request: ReceivedRequest) {
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  const parsed = HTTP.toEvent({ headers, body: request.body });
  const events = (Array.isArray(parsed) ? parsed : [parsed]) as CloudEvent<unknown>[];
  for (const event of events) expect(event.validate()).toBe(true);
  return events;
}

const sender = (secret: string) =>
  new EventGridSenderClient(endpoint, new AzureKeyCredential(secret), 'orders', {
    allowInsecureConnection: true,
  });

it('takes one event and a batch from the official sender client and pushes them to the subscription', async () => {
  const client = sender(key);
  await client.sendEvents({ id: 'ns-1', type: 'Shop.OrderCreated', source: '/shop', data: { total: 42 } });
  await client.sendEvents([
    { id: 'ns-2', type: 'Shop.OrderCreated', source: '/shop', data: { total: 1 } },
    { id: 'ns-3', type: 'Shop.OrderPaid', source: '/shop', data: { total: 2 } },
  ]);
  for (const [id, type] of [
    ['ns-1', 'Shop.OrderCreated'],
    ['ns-2', 'Shop.OrderCreated'],
    ['ns-3', 'Shop.OrderPaid'],
  ]) {
    const request = await deliveredOf(id as string);
    expect(request.headers['aeg-subscription-name']).toBe('SINK');
    const event = cloudEventsOf(request).find((candidate) => candidate.id === id);
    expect(event).toMatchObject({ id, type, source: '/shop' });
  }
});

it('takes a CloudEvent in binary mode (ce-* headers, the body as data)', async () => {
  const message = HTTP.binary(
    new CloudEvent({
      id: 'ns-bin',
      type: 'Shop.Shipped',
      source: '/shop',
      datacontenttype: 'application/json',
      data: { carrier: 'DHL' },
    }),
  );
  const response = await fetch(`${endpoint}/topics/orders:publish?api-version=2024-06-01`, {
    method: 'POST',
    headers: { ...(message.headers as Record<string, string>), authorization: `SharedAccessKey ${key}` },
    body: typeof message.body === 'string' ? message.body : JSON.stringify(message.body),
  });
  expect(response.status).toBe(200);
  const [event] = cloudEventsOf(await deliveredOf('ns-bin')).filter((candidate) => candidate.id === 'ns-bin');
  expect(event).toMatchObject({ type: 'Shop.Shipped', data: { carrier: 'DHL' } });
});

it('refuses a wrong key (401), an unknown topic (404) and more than 1,000 events (400), delivering nothing', async () => {
  await expect(
    sender('not-the-key').sendEvents({ id: 'ns-bad-key', type: 't', source: '/s' }),
  ).rejects.toMatchObject({
    statusCode: 401,
  });
  const unknown = new EventGridSenderClient(endpoint, new AzureKeyCredential(key), 'nothing', {
    allowInsecureConnection: true,
  });
  await expect(unknown.sendEvents({ id: 'ns-404', type: 't', source: '/s' })).rejects.toMatchObject({
    statusCode: 404,
  });
  const tooMany = Array.from({ length: 1001 }, (_, i) => ({ id: `ns-many-${i}`, type: 't', source: '/s' }));
  await expect(sender(key).sendEvents(tooMany)).rejects.toMatchObject({
    statusCode: 400,
    message: expect.stringMatching(/1001 events; at most 1000/),
  });
  await sender(key).sendEvents({ id: 'ns-after', type: 't', source: '/s' });
  await deliveredOf('ns-after');
  expect(webhook.requestsTo('/ns').some((request) => /ns-bad-key|ns-404|ns-many-/.test(request.body))).toBe(
    false,
  );
});

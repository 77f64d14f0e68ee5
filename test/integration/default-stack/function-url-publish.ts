/**
 * The local stack's second front door, the publish function's URL: the official Event Grid
 * publisher client (topic key and SAS token) and the namespaces sender client publish through it
 * with the same paths as through the API, and the events are delivered; the admin routes and IAM
 * publishing are not served there.
 */
import {
  AzureKeyCredential,
  AzureSASCredential,
  EventGridPublisherClient,
  generateSharedAccessSignature,
} from '@azure/eventgrid';
import {
  EventGridSenderClient,
  AzureKeyCredential as NamespaceKeyCredential,
} from '@azure/eventgrid-namespaces';
import type { Json, TestStack } from '../../support/local-stack';
import { sdkGridEvent } from '../../support/sdk-events';
import { sharedTestStack } from '../../support/shared-stack';
import { deliveredTo, eventMarker, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;
let namespaceKey: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  key = await api.createTopic('orders');
  await api.subscribe('orders', 'sink', webhook.url('/orders'));
  namespaceKey = await api.createNamespaceTopic('urlshop', 'carts', 'sink', webhook.url('/ns'));
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

const delivered = (id: string) => deliveredTo(webhook, '/orders', id);

it('listens on its own port beside the API', () => {
  expect(api.stack.functionUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(api.stack.functionUrl).not.toBe(api.stack.apiUrl);
});

it('takes events from the official client with a topic key', async () => {
  const client = new EventGridPublisherClient(
    `${api.stack.functionUrl}/topics/orders/api/events`,
    'EventGrid',
    new AzureKeyCredential(key),
    { allowInsecureConnection: true },
  );
  await client.send([sdkGridEvent('url-key')]);
  await delivered('url-key');
});

it('takes events from the official client with a SAS token signed for the function URL', async () => {
  const topicUrl = `${api.stack.functionUrl}/topics/orders/api/events`;
  const token = await generateSharedAccessSignature(
    topicUrl,
    new AzureKeyCredential(key),
    new Date(Date.now() + 3_600_000),
  );
  const client = new EventGridPublisherClient(topicUrl, 'EventGrid', new AzureSASCredential(token), {
    allowInsecureConnection: true,
  });
  await client.send([sdkGridEvent('url-sas')]);
  await delivered('url-sas');
});

it('takes a percent-encoded, differently cased topic name as the API does', async () => {
  const answers = await Promise.all(
    [api.stack.apiUrl, api.stack.functionUrl].map(async (base, index) => {
      const response = await fetch(`${base}/topics/%4Frders/api/events`, {
        method: 'POST',
        headers: { 'aeg-sas-key': key, 'content-type': 'application/json' },
        body: JSON.stringify([{ ...sdkGridEvent(`encoded-${index}`), eventTime: new Date().toISOString() }]),
      });
      return response.status;
    }),
  );
  expect(answers).toEqual([200, 200]);
  await delivered('encoded-0');
  await delivered('encoded-1');
});

it('takes events from the official namespaces sender client', async () => {
  const client = new EventGridSenderClient(
    `${api.stack.functionUrl}/namespaces/urlshop`,
    new NamespaceKeyCredential(namespaceKey),
    'carts',
    { allowInsecureConnection: true },
  );
  await client.sendEvents({ id: 'url-ns', type: 'Shop.CartUpdated', source: '/shop', data: { items: 2 } });
  const request = await webhook.requestWith('/ns', eventMarker('url-ns'));
  // Delivered as a CloudEvents batch.
  expect(JSON.parse(request.body)).toEqual([
    expect.objectContaining({ id: 'url-ns', type: 'Shop.CartUpdated', source: '/shop', data: { items: 2 } }),
  ]);
});

it('refuses a wrong key with the same 401 as the API', async () => {
  const send = (base: string) =>
    fetch(`${base}/topics/orders/api/events`, {
      method: 'POST',
      headers: { 'aeg-sas-key': 'wrong', 'content-type': 'application/json' },
      body: JSON.stringify([sdkGridEvent('never')]),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  const [viaApi, viaUrl] = await Promise.all([send(api.stack.apiUrl), send(api.stack.functionUrl)]);
  expect(viaUrl).toEqual(viaApi);
  expect(viaUrl.status).toBe(401);
});

it('serves no admin routes and no IAM publishing: 404 in the error body shape', async () => {
  const admin = await fetch(`${api.stack.functionUrl}/admin/topics`, {
    headers: { authorization: `Bearer ${api.stack.adminToken}` },
  });
  expect(admin.status).toBe(404);
  expect(((await admin.json()) as Json).error.code).toBe('NotFound');

  const iam = await fetch(`${api.stack.functionUrl}/iam/topics/orders/api/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.stack.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify([{ ...sdkGridEvent('iam-never'), eventTime: new Date().toISOString() }]),
  });
  expect(iam.status).toBe(404);
  expect(((await iam.json()) as Json).error.message).toMatch(/served by the HTTP API only/);
});

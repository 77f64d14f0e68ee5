/**
 * Publishing with the official Event Grid publisher client to the local stack, with a topic key
 * and with a shared access signature, and SAS tokens sent the other ways the original accepts.
 */
import {
  AzureKeyCredential,
  AzureSASCredential,
  EventGridPublisherClient,
  generateSharedAccessSignature,
} from '@azure/eventgrid';
import type { TestStack } from '../../support/local-stack';
import { sdkGridEvent } from '../../support/sdk-events';
import { sharedTestStack } from '../../support/shared-stack';
import { deliveredTo, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;
let topicUrl: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  key = await api.createTopic('signed');
  await api.subscribe('signed', 'sink', webhook.url('/signed'));
  topicUrl = `${api.stack.apiUrl}/topics/signed/api/events`;
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

const delivered = (id: string) => deliveredTo(webhook, '/signed', id);

it('takes events from the official client with a topic key', async () => {
  const client = new EventGridPublisherClient(topicUrl, 'EventGrid', new AzureKeyCredential(key), {
    allowInsecureConnection: true,
  });
  await client.send([sdkGridEvent('sdk-key')]);
  await delivered('sdk-key');
});

it('takes events from the official client with a SAS token it signed', async () => {
  const token = await generateSharedAccessSignature(
    topicUrl,
    new AzureKeyCredential(key),
    new Date(Date.now() + 3_600_000),
  );
  const client = new EventGridPublisherClient(topicUrl, 'EventGrid', new AzureSASCredential(token), {
    allowInsecureConnection: true,
  });
  await client.send([sdkGridEvent('sdk-sas')]);
  await delivered('sdk-sas');
});

it('takes a SAS token as Authorization: SharedAccessSignature, and refuses a stale one with 401 naming why', async () => {
  const token = await generateSharedAccessSignature(
    topicUrl,
    new AzureKeyCredential(key),
    new Date(Date.now() + 3_600_000),
  );
  const body = [{ ...sdkGridEvent('header-sas'), eventTime: new Date().toISOString() }];
  const ok = await api.call('POST', '/topics/signed/api/events', body, {
    auth: false,
    headers: { authorization: `SharedAccessSignature ${token}` },
  });
  expect(ok.status).toBe(200);
  await delivered('header-sas');

  const stale = await generateSharedAccessSignature(
    topicUrl,
    new AzureKeyCredential(key),
    new Date(Date.now() - 60_000),
  );
  const refused = await api.call('POST', '/topics/signed/api/events', body, {
    auth: false,
    headers: { 'aeg-sas-token': stale },
  });
  expect(refused.status).toBe(401);
  expect(refused.body.error.message).toMatch(/^The SAS token expired at /);
});

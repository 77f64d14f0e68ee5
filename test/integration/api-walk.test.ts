/**
 * The routes the other files reach only on classic topics (or not at all), called once each
 * through a stack's API on a namespace topic's subscription, and the API's own description: so
 * the contract check (`test/iam/api-contract.test.ts`) holds every route's answers to the
 * document. Each call's status is the one the route gives for what it is asked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;

const NS = '/admin/namespaces/walk';
const TOPIC = `${NS}/topics/orders`;
const SUBSCRIPTION = `${TOPIC}/eventSubscriptions/billing`;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack();
  expect((await api.call('PUT', NS, { properties: {} })).status).toBe(201);
  expect(
    (
      await api.call('PUT', TOPIC, {
        properties: { eventRetentionInDays: 1, archive: { retentionInDays: 1 } },
      })
    ).status,
  ).toBe(201);
  const created = await api.call('PUT', SUBSCRIPTION, {
    properties: {
      deliveryConfiguration: {
        deliveryMode: 'Push',
        push: {
          destination: {
            endpointType: 'WebHook',
            properties: { endpointUrl: webhook.url('/billing'), signing: { generate: true, scheme: 'v1' } },
          },
          deadLetterDestinationWithResourceIdentity: {
            deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'walk' } },
          },
        },
      },
      deliveryLog: 'All',
    },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const status = async (method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown) =>
  (await api.call(method, path, body)).status;

it('serves its OpenAPI document, the committed one with this stack as its server, without credentials', async () => {
  const response = await fetch(`${api.stack.apiUrl}/openapi.json`);
  expect(response.status).toBe(200);
  const served = (await response.json()) as { servers?: Array<{ url: string }> };
  expect(served.servers).toEqual([{ url: api.stack.apiUrl.replace(/\/+$/, '') }]);
  const { servers: _servers, ...rest } = served;
  const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));
  expect(rest).toEqual(committed);
  expect((await fetch(`${api.stack.apiUrl}/portal`)).status).toBe(200);
});

it("walks a namespace subscription's operations", async () => {
  const key = (await api.call('POST', `${NS}/listKeys`)).body.key1 as string;
  const published = await fetch(`${api.stack.apiUrl}/namespaces/walk/topics/orders:publish`, {
    method: 'POST',
    headers: { authorization: `SharedAccessKey ${key}`, 'content-type': 'application/cloudevents+json' },
    body: JSON.stringify({
      specversion: '1.0',
      id: 'walk-1',
      source: '/walk',
      type: 'Walk.Step',
      data: { n: 1 },
    }),
  });
  expect(published.status).toBe(200);
  await eventually(
    async () => webhook.requestsTo('/billing').some((request) => request.body.includes('walk-1')),
    20_000,
    'walk-1 delivered',
  );
  const since = new Date(Date.now() - 3_600_000).toISOString();

  expect(await status('POST', `${SUBSCRIPTION}/getFullUrl`)).toBe(200);
  expect(await status('POST', `${SUBSCRIPTION}/getSigningSecret`)).toBe(200);
  expect(await status('POST', `${SUBSCRIPTION}/rotateSigningSecret`)).toBe(200);
  expect(await status('POST', `${SUBSCRIPTION}/pause`)).toBe(200);
  expect(await status('POST', `${SUBSCRIPTION}/resume`)).toBe(200);
  expect(await status('POST', `${SUBSCRIPTION}/sendTestEvent`)).toBe(202);
  expect(await status('POST', `${SUBSCRIPTION}/validate`)).toBe(200);
  expect(await status('GET', `${SUBSCRIPTION}/deliveries?eventId=walk-1`)).toBe(200);
  expect(await status('POST', `${SUBSCRIPTION}/resend`, { eventId: 'walk-1' })).toBe(202);
  expect(await status('POST', `${SUBSCRIPTION}/recover`, { since, dryRun: true })).toBe(200);
  expect(await status('GET', `${SUBSCRIPTION}/deadLetters?since=${since}`)).toBe(200);
  // A key that is not one of this subscription's blobs.
  expect(await status('GET', `${SUBSCRIPTION}/deadLetters/blob?key=no-such-blob`)).toBe(400);
  expect(await status('POST', `${SUBSCRIPTION}/deadLetters/replay`, { since, dryRun: true })).toBe(200);

  const replay = await api.call('POST', `${SUBSCRIPTION}/replays`, { since });
  expect(replay.status).toBe(202);
  expect(await status('GET', `${SUBSCRIPTION}/replays`)).toBe(200);
  expect(await status('GET', `${SUBSCRIPTION}/replays/${replay.body.id}`)).toBe(200);
  expect([200, 204]).toContain(await status('DELETE', `${SUBSCRIPTION}/replays/${replay.body.id}`));
});

it("walks a namespace topic's event catalog", async () => {
  const type = `${TOPIC}/eventTypes/Walk.Step`;
  expect(
    await status('PUT', type, {
      description: 'A step.',
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
      example: { n: 1 },
    }),
  ).toBe(201);
  expect(await status('GET', `${TOPIC}/eventTypes`)).toBe(200);
  expect(await status('GET', type)).toBe(200);
  expect(await status('DELETE', type)).toBe(200);
});

it('regenerates a key, sends a classic test event, and revokes every session', async () => {
  await api.createTopic('walk-classic');
  await api.subscribe('walk-classic', 'audit', webhook.url('/audit'));
  expect(await status('POST', '/admin/topics/walk-classic/regenerateKey', { keyName: 'key2' })).toBe(200);
  const classic = '/admin/topics/walk-classic/eventSubscriptions/audit';
  expect(await status('POST', `${classic}/sendTestEvent`)).toBe(202);
  expect(await status('POST', `${classic}/validate`)).toBe(200);
  expect(await status('POST', '/admin/sessions/revokeAll')).toBe(200);
});

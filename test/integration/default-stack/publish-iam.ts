/**
 * Publishing on the IAM route (`/iam/topics/{topic}/api/events`) of the local stack, where the
 * admin token stands in for IAM: with it, events are delivered; without it they are refused by
 * the gateway, whatever topic key the request carries.
 */
import { event, type TestStack } from '../../support/local-stack';
import { sharedTestStack } from '../../support/shared-stack';
import { eventually, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  key = await api.createTopic('iam-orders');
  await api.subscribe('iam-orders', 'sink', webhook.url('/iam-orders'));
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

const IAM_PATH = '/iam/topics/iam-orders/api/events';

const arrived = (id: string) =>
  webhook.requestsTo('/iam-orders').some((request) => request.body.includes(`"id":"${id}"`));

const delivered = (id: string) => eventually(() => arrived(id), 10_000, `event ${id} at the webhook`);

it('delivers events published with the admin token (standing in for IAM), without a topic key', async () => {
  const published = await api.call('POST', IAM_PATH, [event('iam-1')], {
    auth: false,
    headers: { authorization: `Bearer ${api.stack.adminToken}` },
  });
  expect(published.status).toBe(200);
  await delivered('iam-1');
});

it('ignores a wrong topic key on the IAM route', async () => {
  const published = await api.call('POST', IAM_PATH, [event('iam-2')], {
    headers: { 'aeg-sas-key': 'not-a-key' },
  });
  expect(published.status).toBe(200);
  await delivered('iam-2');
});

it('refuses a request without the token, or with a topic key only, with 401, and delivers nothing', async () => {
  const none = await api.call('POST', IAM_PATH, [event('iam-refused-1')], { auth: false });
  expect(none.status).toBe(401);
  expect(none.body.error.code).toBe('Unauthorized');

  const keyOnly = await api.call('POST', IAM_PATH, [event('iam-refused-2')], {
    auth: false,
    headers: { 'aeg-sas-key': key },
  });
  expect(keyOnly.status).toBe(401);

  const wrongToken = await api.call('POST', IAM_PATH, [event('iam-refused-3')], {
    auth: false,
    headers: { authorization: 'Bearer not-the-token' },
  });
  expect(wrongToken.status).toBe(401);

  // An accepted event published afterwards arrives; the refused ones never do.
  expect((await api.call('POST', IAM_PATH, [event('iam-after')])).status).toBe(200);
  await delivered('iam-after');
  expect(['iam-refused-1', 'iam-refused-2', 'iam-refused-3'].filter(arrived)).toEqual([]);
});

it('takes only the exact spelling of the topic (IAM matches the path as written)', async () => {
  const upper = await api.call('POST', '/iam/topics/IAM-ORDERS/api/events', [event('iam-upper')]);
  expect(upper.status).toBe(400);
  expect(upper.body.error.message).toMatch(
    /exactly as it was created: \/iam\/topics\/iam-orders\/api\/events/,
  );
});

it('answers 404 for an unknown topic', async () => {
  const missing = await api.call('POST', '/iam/topics/no-such-topic/api/events', [event('iam-404')]);
  expect(missing.status).toBe(404);
});

it('leaves the key route as it was: a topic key still publishes there, the admin token alone does not', async () => {
  expect((await api.publish('iam-orders', key, [event('key-1')])).status).toBe(200);
  await delivered('key-1');
  expect((await api.call('POST', '/topics/iam-orders/api/events', [event('key-2')])).status).toBe(401);
});

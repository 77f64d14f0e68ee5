/**
 * Endpoint health through the admin API of the real local stack: a subscription starts healthy,
 * shows as disabled once its health item says so (as after a 410 Gone), is healthy again after
 * `enable`, and its health item goes when the subscription is deleted. `gridwire health` reads
 * the same documents.
 */
import { localApiTarget } from '../../cli/admin-api';
import { topicHealth } from '../../cli/health';
import { DynamoHealthStore } from '../../shared/storage/health';
import { HEALTHY_DOCUMENT } from '../support/fakes';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let store: DynamoHealthStore;
let key: string;

const HEALTH = '/admin/topics/vitals/eventSubscriptions/pulse/health';

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack();
  store = new DynamoHealthStore(api.stack.clients.dynamo, api.stack.resources.tableName);
  key = await api.createTopic('vitals');
  await api.subscribe('vitals', 'pulse', webhook.url('/pulse'));
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const healthy = HEALTHY_DOCUMENT;

it('shows a disabled endpoint, and enables it again', async () => {
  const endpointUrl = webhook.url('/pulse');
  expect(await api.call('GET', HEALTH)).toEqual({ status: 200, body: { ...healthy, endpointUrl } });

  const disabledAt = Date.now() - 1000;
  expect(
    await store.put(
      {
        topic: 'vitals',
        subscription: 'pulse',
        endpointUrl,
        consecutiveFailures: 1,
        probations: 0,
        lastOutcome: 'Disabled',
        lastFailureAt: disabledAt,
        disabledAt,
        rev: 1,
      },
      undefined,
    ),
  ).toBe(true);
  expect(await api.call('GET', HEALTH)).toEqual({
    status: 200,
    body: {
      ...healthy,
      state: 'Disabled',
      consecutiveFailures: 1,
      lastOutcome: 'Disabled',
      lastFailureAt: new Date(disabledAt).toISOString(),
      // A record written before the reason was kept reads as a 410's.
      disabledAt: new Date(disabledAt).toISOString(),
      disabledReason: 'Gone',
      endpointUrl,
    },
  });
  const listed = await topicHealth(await localApiTarget(api.stack.dataDir), { topic: 'vitals' });
  expect(listed).toEqual([expect.objectContaining({ subscription: 'pulse', state: 'Disabled' })]);

  const started = Date.now();
  const enabled = await api.call('POST', '/admin/topics/vitals/eventSubscriptions/pulse/enable');
  // Answered once workers have let their cached copy go.
  expect(Date.now() - started).toBeGreaterThanOrEqual(api.stack.config.healthCacheMs);
  expect(enabled).toEqual({ status: 200, body: { ...healthy, endpointUrl } });
  // A reset record: about no endpoint, one revision up, with the time of the reset.
  expect(await store.get('vitals', 'pulse', { consistent: true })).toMatchObject({
    endpointUrl: '',
    consecutiveFailures: 0,
    resetAt: expect.any(Number),
  });
  expect(await api.call('GET', HEALTH)).toEqual({ status: 200, body: { ...healthy, endpointUrl } });
});

it('takes deliveries again after enable when the endpoint had answered 410 Gone', async () => {
  let gone = true;
  const endpointUrl = webhook.url('/moved', () => ({ status: gone ? 410 : 200 }));
  await api.subscribe('vitals', 'moved', endpointUrl);
  const route = '/admin/topics/vitals/eventSubscriptions/moved';
  expect((await api.publish('vitals', key, [event('h-1')])).status).toBe(200);
  await eventually(
    async () => (await api.call('GET', `${route}/health`)).body.state === 'Disabled',
    10_000,
    'the endpoint disabled',
  );

  gone = false;
  expect((await api.call('POST', `${route}/enable`)).body).toMatchObject({ state: 'Healthy' });
  expect((await api.publish('vitals', key, [event('h-2')])).status).toBe(200);
  await eventually(
    () => webhook.requestsTo('/moved').some((request) => request.body.includes('"h-2"')),
    10_000,
    'the event published after enable',
  );
  expect((await api.call('GET', `${route}/health`)).body.state).toBe('Healthy');
});

it('answers 404 for a subscription that does not exist', async () => {
  const answer = await api.call('GET', '/admin/topics/vitals/eventSubscriptions/nobody/health');
  expect(answer.status).toBe(404);
  expect(answer.body.error).toMatchObject({ code: 'NotFound' });
  const enable = await api.call('POST', '/admin/topics/vitals/eventSubscriptions/nobody/enable');
  expect(enable.status).toBe(404);
});

it('resets the health item with the subscription', async () => {
  await api.subscribe('vitals', 'gone', webhook.url('/gone'));
  await store.put(
    {
      topic: 'vitals',
      subscription: 'gone',
      endpointUrl: webhook.url('/gone'),
      consecutiveFailures: 3,
      probations: 1,
      lastOutcome: 'Busy',
      rev: 1,
    },
    undefined,
  );
  expect((await api.call('DELETE', '/admin/topics/vitals/eventSubscriptions/gone')).status).toBe(200);
  expect(await store.get('vitals', 'gone', { consistent: true })).toMatchObject({
    endpointUrl: '',
    consecutiveFailures: 0,
    resetAt: expect.any(Number),
  });
});

it("serves a namespace subscription's health, keyed by <namespace>/<topic>, and enables it", async () => {
  expect((await api.call('PUT', '/admin/namespaces/clinic', {})).status).toBe(201);
  expect((await api.call('PUT', '/admin/namespaces/clinic/topics/vitals', { properties: {} })).status).toBe(
    201,
  );
  const endpointUrl = webhook.url('/clinic');
  const route = '/admin/namespaces/clinic/topics/vitals/eventSubscriptions/pulse';
  const subscribed = await api.call('PUT', route, {
    properties: {
      deliveryConfiguration: {
        deliveryMode: 'Push',
        push: { destination: { endpointType: 'WebHook', properties: { endpointUrl } } },
      },
    },
  });
  expect(subscribed.status).toBe(201);
  expect(await api.call('GET', `${route}/health`)).toEqual({
    status: 200,
    body: { ...healthy, endpointUrl },
  });

  const disabledAt = Date.now() - 1000;
  const record = {
    subscription: 'pulse',
    endpointUrl,
    consecutiveFailures: 1,
    probations: 0,
    lastOutcome: 'Disabled' as const,
    lastFailureAt: disabledAt,
    disabledAt,
    rev: 1,
  };
  expect(await store.put({ ...record, topic: 'clinic/vitals' }, undefined)).toBe(true);
  expect((await api.call('GET', `${route}/health`)).body).toMatchObject({ state: 'Disabled' });
  // The classic topic of the same name keeps its own record.
  expect((await api.call('GET', HEALTH)).body.state).not.toBe('Disabled');

  const target = await localApiTarget(api.stack.dataDir);
  expect(await topicHealth(target, { namespace: 'clinic', topic: 'vitals' })).toEqual([
    expect.objectContaining({ subscription: 'pulse', state: 'Disabled' }),
  ]);

  expect(await api.call('POST', `${route}/enable`)).toEqual({
    status: 200,
    body: { ...healthy, endpointUrl },
  });
  expect(await store.get('clinic/vitals', 'pulse', { consistent: true })).toMatchObject({
    endpointUrl: '',
    resetAt: expect.any(Number),
  });
  expect((await api.call('GET', `${route}/health`)).body.state).toBe('Healthy');
  expect((await api.call('GET', `${route.replace('pulse', 'nobody')}/health`)).status).toBe(404);
  expect((await api.call('POST', `${route.replace('pulse', 'nobody')}/enable`)).status).toBe(404);
});

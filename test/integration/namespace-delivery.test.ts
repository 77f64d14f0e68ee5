/**
 * Push delivery of a namespace topic on the local stack, at time scale 60: a failing endpoint sees
 * the namespace schedule (attempts at 0 s, 10 s, 30 s, 1 min and 5 min, divided by 60) until
 * `maxDeliveryCount`, and a 404 is never retried.
 */
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

const TIME_SCALE = 60;
let api: TestStack;
let webhook: WebhookServer;
let key: string;

const push = (url: string, maxDeliveryCount: number) => ({
  properties: {
    deliveryConfiguration: {
      deliveryMode: 'Push',
      push: { maxDeliveryCount, destination: { endpointType: 'WebHook', properties: { endpointUrl: url } } },
    },
  },
});

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE });
  await api.call('PUT', '/admin/namespaces/shop', { properties: {} });
  key = (await api.call('POST', '/admin/namespaces/shop/listKeys')).body.key1;
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

async function publish(topic: string, id: string): Promise<void> {
  const response = await fetch(
    `${api.stack.apiUrl}/namespaces/shop/topics/${topic}:publish?api-version=2024-06-01`,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/cloudevents+json; charset=utf-8',
        authorization: `SharedAccessKey ${key}`,
      },
      body: JSON.stringify({ specversion: '1.0', id, type: 'Shop.Test', source: '/shop' }),
    },
  );
  expect(response.status).toBe(200);
}

it('retries a failing endpoint on the namespace schedule until maxDeliveryCount', async () => {
  await api.call('PUT', '/admin/namespaces/shop/topics/failing', { properties: {} });
  const subscribed = await api.call(
    'PUT',
    '/admin/namespaces/shop/topics/failing/eventSubscriptions/sick',
    push(
      webhook.url('/sick', () => ({ status: 500 })),
      5,
    ),
  );
  expect(subscribed.status).toBe(201);
  await publish('failing', 'sched-1');

  const attempts = await eventually(
    () => (webhook.requestsTo('/sick').length >= 5 ? webhook.requestsTo('/sick') : undefined),
    20_000,
    'five attempts',
  );
  expect(attempts.map((request: ReceivedRequest) => request.headers['aeg-delivery-count'])).toEqual([
    '0',
    '1',
    '2',
    '3',
    '4',
  ]);
  // Attempt times 0 s, 10 s, 30 s, 1 min, 5 min at time scale 60: gaps of 1/6, 1/3, 1/2 and 4 s.
  const gaps = attempts.slice(1).map((request, index) => request.at - (attempts[index]?.at ?? 0));
  const expected = [10_000, 20_000, 30_000, 240_000].map((ms) => ms / TIME_SCALE);
  gaps.forEach((gap, index) => {
    expect(gap).toBeGreaterThanOrEqual((expected[index] ?? 0) * 0.8);
  });
  // maxDeliveryCount 5: the event ends at the fifth attempt (counted when that invocation ends)...
  await eventually(
    () =>
      api.stack.metrics.sum('DroppedEventCount', {
        Topic: 'shop/failing',
        EventSubscriptionName: 'SICK',
      }) === 1,
    10_000,
    'the event dropped',
  );
  // ...and no sixth attempt comes, even after the next 5-minute step would have.
  await new Promise((done) => setTimeout(done, (300_000 / TIME_SCALE) * 1.1 + 2000));
  expect(webhook.requestsTo('/sick')).toHaveLength(5);
}, 40_000);

it('never retries a 404', async () => {
  await api.call('PUT', '/admin/namespaces/shop/topics/gone', { properties: {} });
  await api.call(
    'PUT',
    '/admin/namespaces/shop/topics/gone/eventSubscriptions/missing',
    push(
      webhook.url('/missing', () => ({ status: 404 })),
      10,
    ),
  );
  await publish('gone', 'nf-1');
  await eventually(() => webhook.requestsTo('/missing')[0], 10_000, 'the first attempt');
  // The event ends at its first attempt (counted when that invocation ends)...
  await eventually(
    () =>
      api.stack.metrics.sum('DroppedEventCount', {
        Topic: 'shop/gone',
        EventSubscriptionName: 'MISSING',
      }) === 1,
    10_000,
    'the event dropped',
  );
  // ...and is not attempted again.
  await new Promise((done) => setTimeout(done, 1500));
  expect(webhook.requestsTo('/missing')).toHaveLength(1);
});

it('dead-letters in the namespace layout and format, and replays from there', async () => {
  await api.call('PUT', '/admin/namespaces/shop/topics/doomed', { properties: {} });
  const base = push(
    webhook.url('/doomed', () => ({ status: 500 })),
    1,
  );
  const subscribed = await api.call('PUT', '/admin/namespaces/shop/topics/doomed/eventSubscriptions/keeper', {
    properties: {
      deliveryConfiguration: {
        ...base.properties.deliveryConfiguration,
        push: {
          ...base.properties.deliveryConfiguration.push,
          destination: {
            endpointType: 'WebHook',
            properties: {
              endpointUrl: webhook.url('/doomed', () => ({ status: 500 })),
              deliveryAttributeMappings: [
                { name: 'X-Plain', type: 'Static', properties: { value: 'shown' } },
                { name: 'X-Secret', type: 'Static', properties: { value: 'never-written', isSecret: true } },
              ],
            },
          },
          deadLetterDestinationWithResourceIdentity: {
            deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
          },
        },
      },
    },
  });
  expect(subscribed.status).toBe(201);
  await publish('doomed', 'dl-1');

  const route = '/admin/namespaces/shop/topics/doomed/eventSubscriptions/keeper/deadLetters';
  const listed = await eventually(
    async () => {
      const list = await api.call('GET', route);
      return list.body.value?.[0]?.key as string | undefined;
    },
    20_000,
    'the namespace dead-letter blob',
  );
  expect(listed).toMatch(/^dead\/shop\/doomed\/keeper\/\d{4}\/\d{1,2}\/\d{1,2}\/\d{1,2}\/[\w-]+\.json$/);
  const blob = await api.call('GET', `${route}/blob?key=${encodeURIComponent(listed)}`);
  const [record] = blob.body.records;
  expect(record).toMatchObject({
    deadLetterProperties: {
      deadletterreason: 'Maximum delivery attempts was exceeded.',
      deliveryattempts: 1,
      deliveryresult: 'The destination answered with a failure.',
      publishutc: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$/),
      deliveryattemptutc: expect.stringMatching(/^\d{4}-/),
    },
    event: { specversion: '1.0', id: 'dl-1', type: 'Shop.Test', source: '/shop' },
    customDeliveryProperties: { 'X-Plain': 'shown' },
  });
  expect(JSON.stringify(blob.body)).not.toContain('never-written');

  const replay = await api.call('POST', `${route}/replay`, { keys: [listed] });
  expect(replay.status).toBe(200);
  expect(replay.body).toMatchObject({ eventsQueued: 1 });
  await eventually(
    () =>
      webhook.requestsTo('/doomed').filter((request) => request.body.includes('"dl-1"')).length >= 2
        ? true
        : undefined,
    10_000,
    'the replayed delivery',
  );
}, 40_000);

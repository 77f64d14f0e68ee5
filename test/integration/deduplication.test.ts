/**
 * A topic's de-duplication window on the local stack: an id published twice (in two requests, and
 * within one) is delivered once with the window on and every time without it; the answer's
 * `gridwire-duplicate-events` header counts the repeats; and while the store of accepted ids
 * fails, the publish is refused whole (503) and nothing of it is queued, so its retry is
 * delivered once.
 */
import { HttpFaultProxy } from '../../bench/fault-proxy';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let table: HttpFaultProxy;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({
    routeClients: async (endpoints) => {
      table = await new HttpFaultProxy(endpoints.dynamodb).start();
      return { ...endpoints, dynamodb: table.url };
    },
  });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await table?.stop();
  await webhook?.stop();
});

const idsAt = (path: string) =>
  webhook
    .requestsTo(path)
    .flatMap((request: ReceivedRequest) =>
      (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id),
    );

function countsOf(ids: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of ids) counts[id] = (counts[id] ?? 0) + 1;
  return counts;
}

async function topicWithWebhook(topic: string, window: number, path: string): Promise<string> {
  const created = await api.call('PUT', `/admin/topics/${topic}`, {
    properties: { deduplicationWindowInMinutes: window },
  });
  expect(created.status).toBe(201);
  expect(created.body.properties.deduplicationWindowInMinutes).toBe(window);
  await api.subscribe(topic, 'hook', webhook.url(path));
  return (await api.call('POST', `/admin/topics/${topic}/listKeys`)).body.key1;
}

async function publish(topic: string, key: string, events: unknown[]) {
  const response = await fetch(`${api.stack.apiUrl}/topics/${topic}/api/events?api-version=2018-01-01`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'aeg-sas-key': key },
    body: JSON.stringify(events),
  });
  return {
    status: response.status,
    duplicates: response.headers.get('gridwire-duplicate-events'),
    retryAfter: response.headers.get('retry-after'),
    text: await response.text(),
  };
}

it('delivers an id published twice once with the window on, and every time with it off', async () => {
  const onKey = await topicWithWebhook('dedup-on', 10, '/on');
  const offKey = await topicWithWebhook('dedup-off', 0, '/off');

  expect(await publish('dedup-on', onKey, [event('a'), event('b'), event('a')])).toMatchObject({
    status: 200,
    duplicates: '1',
  });
  expect(await publish('dedup-on', onKey, [event('b'), event('c')])).toMatchObject({
    status: 200,
    duplicates: '1',
  });
  expect(await publish('dedup-on', onKey, [event('d')])).toMatchObject({ status: 200, duplicates: '0' });

  expect(await publish('dedup-off', offKey, [event('a'), event('a')])).toMatchObject({
    status: 200,
    duplicates: null,
  });
  expect(await publish('dedup-off', offKey, [event('a')])).toMatchObject({ status: 200, duplicates: null });

  await eventually(() => idsAt('/off').length === 3, 20_000, 'three deliveries of a without a window');
  // Every request of the first topic has been delivered once its last event (d) has.
  await eventually(() => idsAt('/on').includes('d'), 20_000, 'the window topic’s deliveries');
  await eventually(() => idsAt('/on').length >= 4, 20_000, 'a, b, c and d');
  expect(countsOf(idsAt('/on'))).toEqual({ a: 1, b: 1, c: 1, d: 1 });
  expect(countsOf(idsAt('/off'))).toEqual({ a: 3 });
});

it('refuses the whole request (503) and queues nothing while the ids cannot be checked; its retry is delivered once', async () => {
  const key = await topicWithWebhook('dedup-outage', 60, '/outage');
  // The store of accepted ids fails (after the SDK's own retries): every claim is a 500.
  table.rule = (request) =>
    request.target === 'DynamoDB_20120810.PutItem' && request.body.includes('ACCEPTED#')
      ? { status: 500, type: 'InternalServerError' }
      : undefined;

  const refused = await publish('dedup-outage', key, [event('x1'), event('x2')]);
  expect(refused).toMatchObject({ status: 503, retryAfter: expect.any(String), duplicates: null });
  expect(refused.text).toContain('could not be checked for repeats');
  expect(table.failed.length).toBeGreaterThan(0);

  table.rule = undefined;
  expect(await publish('dedup-outage', key, [event('x1'), event('x2')])).toMatchObject({
    status: 200,
    duplicates: '0',
  });
  expect(await publish('dedup-outage', key, [event('x1'), event('x2')])).toMatchObject({
    status: 200,
    duplicates: '2',
  });
  expect(await publish('dedup-outage', key, [event('x3')])).toMatchObject({ status: 200, duplicates: '0' });

  await eventually(() => idsAt('/outage').includes('x3'), 20_000, 'the marker event');
  await eventually(() => idsAt('/outage').length >= 3, 20_000, 'x1, x2 and x3');
  expect(countsOf(idsAt('/outage'))).toEqual({ x1: 1, x2: 1, x3: 1 });
});

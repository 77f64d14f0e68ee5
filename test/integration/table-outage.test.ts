/**
 * DynamoDB unreachable for 60 s while events flow: a loopback proxy between the stack's clients
 * and the table emulator resets every connection for the length of the outage. Delivery goes on
 * with the subscriptions it read before (stale on error), failed attempts are retried though
 * their history can't be written, management calls and publish requests (which must read the
 * topic to check the key) answer 503 with Retry-After, and once the table is back every event
 * answered 200, before or after the outage, has been delivered.
 */
import { TcpProxy } from '../../bench/fault-proxy';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

const TIME_SCALE = 10;
const OUTAGE_MS = 60_000;
/** Events queued just before the outage; the slow receiver takes about 50 s for them. */
const BACKLOG = 200;
let api: TestStack;
let webhook: WebhookServer;
let table: TcpProxy;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({
    timeScale: TIME_SCALE,
    // A quarter of 4: one request at a time to each endpoint, so the backlog lasts into the outage.
    deliveryConcurrency: 4,
    routeClients: async (endpoints) => {
      table = await new TcpProxy(endpoints.dynamodb).start();
      return { ...endpoints, dynamodb: table.url };
    },
  });
}, 30_000);

afterAll(async () => {
  table?.up();
  await api?.close();
  await table?.stop();
  await webhook?.stop();
});

const ids = (requests: readonly ReceivedRequest[]) =>
  requests.flatMap((request) => (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id));

async function raw(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${api.stack.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), text };
}

it('delivers from cached subscriptions through a 60 s table outage, answers 503 with Retry-After, and loses nothing', async () => {
  const key = await api.createTopic('outage');
  await api.subscribe(
    'outage',
    'steady',
    webhook.url('/steady', () => ({ status: 200, delayMs: 250 })),
    { filter: { includedEventTypes: ['Steady'] } },
  );
  // Fails the first two attempts of each event: retries 1 s and 4 s (scaled) after the first.
  await api.subscribe(
    'outage',
    'flaky',
    webhook.url('/flaky', (request) => ({
      status: Number(request.headers['aeg-delivery-count']) < 2 ? 500 : 200,
    })),
    { filter: { includedEventTypes: ['Flaky'] } },
  );
  const publish = (events: unknown[]) =>
    raw('POST', '/topics/outage/api/events?api-version=2018-01-01', { 'aeg-sas-key': key }, events);
  const admin = { authorization: `Bearer ${api.stack.adminToken}` };

  // Both subscriptions are read (and cached) by the delivery workers before the outage.
  expect((await publish([event('warm-steady', 'Steady'), event('warm-flaky', 'Flaky')])).status).toBe(200);
  await eventually(
    () => webhook.requestsTo('/steady').length > 0 && webhook.requestsTo('/flaky').length === 3,
    30_000,
    'the warm-up deliveries',
  );

  const accepted = ['warm-steady'];
  const backlog = Array.from({ length: BACKLOG }, (_, i) => event(`before-${i}`, 'Steady'));
  expect((await publish([...backlog, event('flaky-1', 'Flaky')])).status).toBe(200);
  accepted.push(...backlog.map((e) => e.id));

  table.down();
  const outageStart = Date.now();
  const during: Array<{ what: string; status: number; retryAfter: string | null }> = [];
  let round = 0;
  while (Date.now() - outageStart < OUTAGE_MS) {
    round += 1;
    const published = await publish([event(`during-${round}`, 'Steady')]);
    during.push({ what: 'publish', ...published });
    const listed = await raw('GET', '/admin/topics/outage/eventSubscriptions', admin);
    during.push({ what: 'list subscriptions', ...listed });
    const created = await raw('PUT', `/admin/topics/during-${round}`, admin, {});
    during.push({ what: 'create topic', ...created });
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  const outageEnd = Date.now();
  table.up();

  // Every request that needed the table was refused with a 503 the caller can act on.
  expect(during.length).toBeGreaterThan(3);
  for (const [index, answer] of during.entries()) {
    expect({ index, ...answer }).toEqual({
      index,
      what: answer.what,
      status: 503,
      retryAfter: '5',
      text: expect.stringContaining('DependencyUnavailable'),
    });
  }
  expect(table.refused).toBeGreaterThan(0);

  // Delivery went on during the outage: the backlog, and the failing event's retries.
  const inOutage = (request: ReceivedRequest) => request.at > outageStart && request.at < outageEnd;
  expect(webhook.requestsTo('/steady').filter(inOutage).length).toBeGreaterThan(10);
  const flaky = webhook.requestsTo('/flaky').filter((request) => request.body.includes('"flaky-1"'));
  const delivered = flaky.find((request) => request.headers['aeg-delivery-count'] === '2');
  expect(delivered === undefined ? undefined : inOutage(delivered)).toBe(true);

  // The table is back: publish and management answer again.
  const after = await eventually(
    async () => {
      const answer = await publish([event('after', 'Steady')]);
      return answer.status === 200 && answer;
    },
    30_000,
    'publish to work again',
  );
  expect(after.status).toBe(200);
  accepted.push('after');
  const listed = await api.call('GET', '/admin/topics/outage/eventSubscriptions');
  expect(listed.status).toBe(200);

  // Nothing answered 200 is lost.
  await eventually(
    () => accepted.every((id) => ids(webhook.requestsTo('/steady')).includes(id)),
    120_000,
    'every accepted event',
  );
  expect(new Set(ids(webhook.requestsTo('/steady')))).toEqual(new Set(accepted));
}, 300_000);

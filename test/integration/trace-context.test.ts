/**
 * W3C Trace Context through the real local stack: the publish request's `traceparent` reaches
 * every delivery request of its events (its trace id and flags, a new parent id), retries
 * included; without one, each delivery request starts a trace of its own.
 */
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventMarker, eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 60 });
  key = await api.createTopic('traced');
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
  await api?.close();
});

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const event = (id: string) => ({
  id,
  eventType: 'A',
  subject: 's',
  eventTime: new Date().toISOString(),
  data: {},
  dataVersion: '1',
});

const requestsWith = (path: string, id: string, count: number) =>
  eventually(
    () => {
      const found = webhook.requestsTo(path).filter((request) => request.body.includes(eventMarker(id)));
      return found.length >= count && found;
    },
    15_000,
    `${count} request(s) with ${id} at ${path}`,
  );

it("continues the publish request's trace on every delivery request, retries included", async () => {
  let answered = 0;
  await api.subscribe(
    'traced',
    'hooks',
    webhook.url('/hooks', () => ({ status: answered++ === 0 ? 503 : 200 })),
  );
  const published = await api.call('POST', '/topics/traced/api/events', [event('traced-1')], {
    auth: false,
    headers: { 'aeg-sas-key': key, traceparent: PARENT },
  });
  expect(published.status).toBe(200);
  const [first, retry] = (await requestsWith('/hooks', 'traced-1', 2)) as [ReceivedRequest, ReceivedRequest];
  for (const request of [first, retry]) {
    const value = String(request.headers.traceparent);
    expect(value).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(value).not.toBe(PARENT);
  }
  expect(first.headers.traceparent).not.toBe(retry.headers.traceparent);
});

it('starts a trace of its own for an event published without one (or with an invalid one)', async () => {
  await api.subscribe('traced', 'fresh', webhook.url('/fresh'));
  await api.call('POST', '/topics/traced/api/events', [event('traced-2')], {
    auth: false,
    headers: { 'aeg-sas-key': key, traceparent: 'not-a-trace' },
  });
  const [request] = (await requestsWith('/fresh', 'traced-2', 1)) as [ReceivedRequest];
  expect(String(request.headers.traceparent)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
});

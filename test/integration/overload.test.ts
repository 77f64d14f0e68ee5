/**
 * Overload on the local stack: while fresh deliveries back up, publish requests are refused at
 * the door with 429 and Retry-After (as API Gateway throttles), and taken again once the backlog
 * drains; everything that was accepted is delivered.
 */
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  // A tiny high-water mark in jobs and none in seconds of work, so a slow webhook backs the
  // queue up within a few requests.
  api = await startTestStack({
    admission: { highWater: 3, lowWater: 0, highWaterSeconds: 0, lowWaterSeconds: 0, retryAfterSeconds: 1 },
  });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

it('refuses publishes with 429 and Retry-After while deliveries back up, then accepts again', async () => {
  let slow = true;
  const key = await api.createTopic('flood');
  await api.subscribe(
    'flood',
    'slow',
    webhook.url('/slow', () => ({ status: 200, ...(slow ? { delayMs: 400 } : {}) })),
  );
  const accepted: string[] = [];
  let refusal: { status: number; body: unknown } | undefined;
  let retryAfter: string | null = null;
  for (let request = 0; request < 60 && refusal === undefined; request += 1) {
    const events = [event(`flood-${request}`)];
    const response = await fetch(`${api.stack.apiUrl}/topics/flood/api/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'aeg-sas-key': key },
      body: JSON.stringify(events),
    });
    if (response.status === 200) accepted.push(events[0]?.id as string);
    else {
      refusal = { status: response.status, body: await response.json() };
      retryAfter = response.headers.get('retry-after');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(refusal).toEqual({ status: 429, body: { message: 'Too Many Requests' } });
  expect(retryAfter).toBe('1');

  slow = false;
  // Once the backlog is gone, publishing works again.
  await eventually(
    async () => (await api.publish('flood', key, [event('after-flood')])).status === 200,
    20_000,
    'a publish accepted again',
  );
  const delivered = () =>
    new Set(
      webhook
        .requestsTo('/slow')
        .flatMap((r) => (JSON.parse(r.body) as Array<{ id: string }>).map((e) => e.id)),
    );
  await eventually(
    () => [...accepted, 'after-flood'].every((id) => delivered().has(id)),
    30_000,
    'every accepted event',
  );
}, 60_000);

/**
 * Ordered delivery on the local stack: 50 events over 5 keys, published one request each, to an
 * endpoint that fails the first attempt of every third event. Per key, the first successful
 * deliveries come in publish order, and no event is attempted while an earlier one of its key is
 * still pending; a key whose events keep failing holds back only itself. The same with a
 * subscription that batches, published 10 events a request (two of each key: one batch).
 */
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

/** Retries 10 s, 30 s, ... after the first attempt, divided by this. */
const TIME_SCALE = 10;
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4'];
const EVENTS = 50;

let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const indexOf = (id: string) => Number(id.slice(1));
const keyOf = (index: number) => KEYS[index % KEYS.length] as string;

interface Attempt {
  ids: string[];
  ok: boolean;
  at: number;
}

/** Fails the first attempt of every request holding an event whose index is a multiple of 3, and every attempt of the dead key's. */
function responder(attempts: Attempt[]) {
  return (request: ReceivedRequest) => {
    const events = JSON.parse(request.body) as Array<{ id: string; subject: string }>;
    const first = request.headers['aeg-delivery-count'] === '0';
    const dead = events.some((event) => event.subject === 'dead');
    const failOnce = events.some((event) => event.id.startsWith('e') && indexOf(event.id) % 3 === 0);
    const ok = !dead && !(first && failOnce);
    attempts.push({ ids: events.map((event) => event.id), ok, at: request.arrivedAt });
    return { status: ok ? 200 : 500 };
  };
}

/**
 * Checks the order rules over the attempts as the endpoint saw them: per key, first successes in
 * publish order, and every attempt of an event made only after every earlier event of its key succeeded.
 */
function checkOrder(attempts: readonly Attempt[]) {
  const succeeded = new Set<string>();
  const firstSuccesses = new Map<string, number[]>();
  for (const attempt of [...attempts].sort((a, b) => a.at - b.at)) {
    for (const id of attempt.ids) {
      if (!id.startsWith('e')) continue;
      const index = indexOf(id);
      const earlier = Array.from({ length: index }, (_, i) => i).filter((i) => keyOf(i) === keyOf(index));
      // Events of a batch share the request: the ones before it in the same request count as in order.
      const pending = earlier.filter((i) => !succeeded.has(`e${i}`) && !attempt.ids.includes(`e${i}`));
      expect({ attempted: id, pendingBefore: pending }).toEqual({ attempted: id, pendingBefore: [] });
    }
    if (!attempt.ok) continue;
    for (const id of attempt.ids) {
      if (!id.startsWith('e') || succeeded.has(id)) continue;
      succeeded.add(id);
      const key = keyOf(indexOf(id));
      firstSuccesses.set(key, [...(firstSuccesses.get(key) ?? []), indexOf(id)]);
    }
  }
  for (const key of KEYS) {
    const expected = Array.from({ length: EVENTS }, (_, i) => i).filter((i) => keyOf(i) === key);
    expect({ key, delivered: firstSuccesses.get(key) }).toEqual({ key, delivered: expected });
  }
}

async function orderedRun(
  topic: string,
  path: string,
  destinationExtra: Record<string, unknown>,
  perRequest = 1,
) {
  const attempts: Attempt[] = [];
  const key = await api.createTopic(topic);
  const created = await api.call('PUT', `/admin/topics/${topic}/eventSubscriptions/in-order`, {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: webhook.url(path, responder(attempts)), ...destinationExtra },
      },
      orderedDelivery: { key: 'subject' },
    },
  });
  expect(created.status).toBe(201);
  expect(created.body.properties.orderedDelivery).toEqual({ key: 'subject' });

  // A key whose endpoint answers fail every time: its first event is retried, its second waits.
  for (const id of ['dead-1', 'dead-2']) {
    const published = await api.publish(topic, key, [
      { id, subject: 'dead', eventType: 'Order', eventTime: '2026-12-01T10:00:00Z', data: {} },
    ]);
    expect(published.status).toBe(200);
  }
  for (let first = 0; first < EVENTS; first += perRequest) {
    const events = Array.from({ length: perRequest }, (_, offset) => first + offset).map((index) => ({
      id: `e${index}`,
      subject: keyOf(index),
      eventType: 'Order',
      eventTime: '2026-12-01T10:00:00Z',
      data: {},
    }));
    const published = await api.publish(topic, key, events);
    expect(published.status).toBe(200);
  }
  await eventually(
    () => new Set(attempts.filter((a) => a.ok).flatMap((a) => a.ids)).size === EVENTS,
    60_000,
    'every event of the five keys delivered',
  );
  checkOrder(attempts);
  // The dead key's first event was retried; its second was never attempted behind it.
  const deadAttempts = attempts.filter((attempt) => attempt.ids.some((id) => id.startsWith('dead')));
  expect(deadAttempts.length).toBeGreaterThanOrEqual(2);
  expect(deadAttempts.flatMap((attempt) => attempt.ids).every((id) => id === 'dead-1')).toBe(true);
  return attempts;
}

it('delivers each key in publish order, one event at a time, a failing key holding back only itself', async () => {
  const attempts = await orderedRun('ordered-one', '/one', {});
  // Unbatched: one event per request.
  expect(attempts.every((attempt) => attempt.ids.length === 1)).toBe(true);
  // Every third event failed once: it was attempted twice.
  expect(attempts.filter((attempt) => attempt.ids[0] === 'e3')).toHaveLength(2);
}, 90_000);

it('keeps the order with batching on: a request carries the next events of one key, in order', async () => {
  // 10 events a request, so each key has 2 in each: they go in one batch request.
  const attempts = await orderedRun('ordered-batched', '/batched', { maxEventsPerBatch: 5 }, 10);
  const batches = attempts.filter((attempt) => attempt.ids.length > 1);
  expect(batches.length).toBeGreaterThan(0);
  for (const { ids } of batches) {
    expect(new Set(ids.map((id) => keyOf(indexOf(id)))).size).toBe(1);
    expect(ids.map(indexOf)).toEqual([...ids.map(indexOf)].sort((a, b) => a - b));
  }
}, 90_000);

/**
 * No number of sick neighbours delays a healthy subscription: one topic with a healthy webhook
 * beside 8 endpoints that never answer (past the 30 s timeout) and 8 answering 503. A backlog of
 * 500 events, then one event every half second for 20 s: the healthy webhook's p99 lateness stays
 * under 2 s. Time scale 60 for the schedule and probation; the 30 s request timeout is real.
 */
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

const TIME_SCALE = 60;
const NEIGHBOURS = 8;
const HEALTHY_P99_MS = 2000;

let api: TestStack;
let webhook: WebhookServer;
let sick: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  sick = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE });
}, 30_000);

afterAll(async () => {
  // The hanging answers end first, so the stack's deliveries in progress end with them.
  await sick?.stop();
  await api?.close();
  await webhook?.stop();
}, 60_000);

it('keeps a healthy subscription at its latency beside 8 hanging and 8 failing neighbours', async () => {
  const topic = 'crowd';
  const key = await api.createTopic(topic);
  for (let i = 0; i < NEIGHBOURS; i += 1) {
    await api.subscribe(
      topic,
      `hang${i}`,
      sick.url(`/hang${i}`, () => ({ status: 200, delayMs: 45_000 })),
    );
    await api.subscribe(
      topic,
      `fail${i}`,
      sick.url(`/fail${i}`, () => ({ status: 503 })),
    );
  }
  const healthyPath = `/${topic}/healthy`;
  await api.subscribe(topic, 'healthy', webhook.url(healthyPath));

  const published = new Map<string, number>();
  // As the official SDKs do, a publish refused with 429 (the local stack's admission gate) is sent
  // again after its Retry-After; lateness counts from the call that was accepted.
  const publish = async (ids: string[]) => {
    for (;;) {
      const at = Date.now();
      const answer = await api.publish(
        topic,
        key,
        ids.map((id) => event(id)),
      );
      if (answer.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      expect(answer.status).toBe(200);
      for (const id of ids) published.set(id, at);
      return;
    }
  };
  for (let batch = 0; batch < 5; batch += 1) {
    await publish(Array.from({ length: 100 }, (_, i) => `backlog-${batch * 100 + i}`));
  }
  for (let tick = 0; tick < 40; tick += 1) {
    await publish([`tick-${tick}`]);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  const lateness = () => {
    const late = new Map<string, number>();
    for (const request of webhook.requestsTo(healthyPath)) {
      for (const delivered of JSON.parse(request.body) as Array<{ id: string }>) {
        const at = published.get(delivered.id);
        if (at !== undefined && !late.has(delivered.id)) late.set(delivered.id, request.at - at);
      }
    }
    return late;
  };
  await eventually(() => lateness().size === published.size, 30_000, 'every event at the healthy endpoint');
  const sorted = [...lateness().values()].sort((a, b) => a - b);
  const p99 = sorted[Math.ceil(sorted.length * 0.99) - 1] as number;
  expect(sorted).toHaveLength(540);
  expect(p99).toBeLessThan(HEALTHY_P99_MS);
  // None of its events waited on the neighbours' trouble: never held, never retried.
  const healthy = { Topic: topic, EventSubscriptionName: 'HEALTHY' };
  expect(api.stack.metrics.sum('DeliveryHeldCount', healthy)).toBe(0);
  expect(api.stack.metrics.sum('DeliveryAttemptFailCount', healthy)).toBe(0);

  // The neighbours were really there: every one of them was tried.
  for (let i = 0; i < NEIGHBOURS; i += 1) {
    expect(sick.requestsTo(`/hang${i}`).length).toBeGreaterThan(0);
    expect(sick.requestsTo(`/fail${i}`).length).toBeGreaterThan(0);
  }
}, 120_000);

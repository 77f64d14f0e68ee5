/**
 * A sick endpoint never delays a healthy subscription: a topic with two subscriptions, one
 * endpoint failing (503, or hanging past the 30 s timeout) with a backlog of 2,000 events, the
 * other healthy. Every event must reach the healthy endpoint within 2 s of being published, while
 * the sick endpoint is held back rather than hammered. Time scale 60 for the schedule and the
 * probation lengths; the 30 s request timeout is real.
 *
 * What isolation means is checked where it does not depend on how busy the machine is: the
 * healthy subscription never has an event held or retried (its events never wait on its
 * neighbour's trouble). Its lateness is checked at the 99th percentile, which a machine busy with
 * other work moves far less than the single worst event.
 */
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

const TIME_SCALE = 60;
const BACKLOG = 2000;
const HEALTHY_WITHIN_MS = 2000;

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

/** Event id -> when its publish call was made. */
type Published = Map<string, number>;

async function publishAll(topic: string, key: string, ids: string[], published: Published): Promise<void> {
  const at = Date.now();
  for (const id of ids) published.set(id, at);
  const answer = await api.publish(
    topic,
    key,
    ids.map((id) => event(id)),
  );
  expect(answer.status).toBe(200);
}

/** How late each event reached `path` after it was published (ms), by event id. */
function lateness(path: string, published: Published): Map<string, number> {
  const late = new Map<string, number>();
  for (const request of webhook.requestsTo(path)) {
    for (const delivered of JSON.parse(request.body) as Array<{ id: string }>) {
      const at = published.get(delivered.id);
      if (at !== undefined && !late.has(delivered.id)) late.set(delivered.id, request.at - at);
    }
  }
  return late;
}

/** A backlog of 2,000 events, then one event a second for `seconds`; healthy lateness checked throughout. */
async function runScenario(topic: string, sickUrl: string, seconds: number) {
  const key = await api.createTopic(topic);
  const healthyPath = `/${topic}/healthy`;
  await api.subscribe(topic, 'sick', sickUrl);
  await api.subscribe(topic, 'healthy', webhook.url(healthyPath));
  const published: Published = new Map();
  for (let batch = 0; batch < BACKLOG / 100; batch += 1) {
    await publishAll(
      topic,
      key,
      Array.from({ length: 100 }, (_, i) => `${topic}-b${batch * 100 + i}`),
      published,
    );
  }
  for (let second = 0; second < seconds; second += 1) {
    await publishAll(topic, key, [`${topic}-t${second}`], published);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await eventually(
    () => lateness(healthyPath, published).size === published.size,
    30_000,
    'every event at the healthy endpoint',
  );
  const late = [...lateness(healthyPath, published).values()].sort((a, b) => a - b);
  const p99 = late[Math.ceil(late.length * 0.99) - 1] as number;
  const healthy = { Topic: topic, EventSubscriptionName: 'HEALTHY' };
  expect(api.stack.metrics.sum('DeliveryHeldCount', healthy)).toBe(0);
  expect(api.stack.metrics.sum('DeliveryAttemptFailCount', healthy)).toBe(0);
  expect(api.stack.metrics.sum('DeliverySuccessCount', healthy)).toBeGreaterThanOrEqual(published.size);
  return { p99, published };
}

it('an endpoint answering 503 with a backlog of 2,000 neither delays the healthy one nor gets hammered', async () => {
  const sickPath = '/busy/sick';

  const { p99, published } = await runScenario(
    'busy',
    webhook.url(sickPath, () => ({ status: 503 })),
    8,
  );

  expect(p99).toBeLessThanOrEqual(HEALTHY_WITHIN_MS);
  expect(published.size).toBe(BACKLOG + 8);
  // Without probation it received 8,000 requests in 8 s; held back, a few dozen.
  const sick = webhook.requestsTo(sickPath);
  expect(sick.length).toBeLessThan(200);
  // Unhealthy after ten failures in a row: what it gets is held probes, one at a time.
  const health = await api.call('GET', '/admin/topics/busy/eventSubscriptions/sick/health');
  expect(health.status).toBe(200);
  expect(health.body).toMatchObject({ state: 'Unhealthy', lastOutcome: 'Busy' });
}, 60_000);

it('an endpoint that never answers within 30 s, with a backlog of 2,000, does not delay the healthy one', async () => {
  const sickPath = '/hang/sick';

  const { p99 } = await runScenario(
    'hang',
    webhook.url(sickPath, () => ({ status: 200, delayMs: 45_000 })),
    36,
  );

  expect(p99).toBeLessThanOrEqual(HEALTHY_WITHIN_MS);
  // Its requests are capped (a quarter of a worker's slots) and the rest of its events held, not queued.
  expect(webhook.requestsTo(sickPath).length).toBeLessThanOrEqual(40);
  const health = await api.call('GET', '/admin/topics/hang/eventSubscriptions/sick/health');
  expect(health.body).toMatchObject({ state: 'Unhealthy', lastOutcome: 'TimedOut' });
}, 90_000);

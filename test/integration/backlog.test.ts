/**
 * Subscriptions' backlogs on the local stack, end to end: an unhealthy endpoint's events are
 * stored (segments in the backlog bucket, one timer for the subscription) instead of riding the
 * retry queue, only the backlog's probes reach the endpoint while it is down, and once it
 * answers again every event is delivered; a retry due further away than the threshold waits in
 * the backlog and is still attempted at its own due time.
 *
 * Time scale 60 for the outage: the unhealthy endpoint's first hold (1 min) is 1 s. Time scale
 * 600 for the long wait: the 20 min threshold is 2 s, the schedule's 30 min step 3 s.
 */
import type { AwsClients } from '../../shared/platform/aws';
import { DynamoBacklogStore } from '../../shared/storage/backlog';
import { DynamoHeldMarks } from '../../shared/storage/held-marks';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

const TIME_SCALE = 60;
let api: TestStack;
let webhook: WebhookServer;
/** The queue URL of every message the stack's functions sent, in order. */
const sentTo: string[] = [];

/** Notes where each SQS message the stack sends goes (a batch counts once per message). */
function countSends(clients: AwsClients): void {
  clients.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { QueueUrl?: string; Entries?: unknown[] };
      if (context.commandName === 'SendMessageCommand' || context.commandName === 'SendMessageBatchCommand') {
        for (let n = 0; n < (input.Entries?.length ?? 1); n += 1) sentTo.push(input.QueueUrl ?? '');
      }
      return next(args);
    },
    { step: 'initialize', name: 'countSends' },
  );
}

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE, instrumentClients: countSends });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const idsAt = (path: string): string[] =>
  webhook
    .requestsTo(path)
    .flatMap((request) => JSON.parse(request.body).map((one: { id: string }) => one.id));

/** The stack's backlogs, read directly (management shows only the current subscription's). */
const store = () =>
  new DynamoBacklogStore(
    api.stack.clients.dynamo,
    api.stack.config.tableName as string,
    api.stack.clients.s3,
    api.stack.config.backlogBucket as string,
  );

const healthOf = async (topic: string, name: string) =>
  (await api.call('GET', `/admin/topics/${topic}/eventSubscriptions/${name}/health`)).body;

describe('the backlog of an unhealthy endpoint', () => {
  it('holds the events while the endpoint is down, lets only probes through, and drains them all once it answers', async () => {
    const key = await api.createTopic('outage');
    const path = '/outage';
    let down = true;
    await api.subscribe(
      'outage',
      'hook',
      webhook.url(path, () => ({ status: down ? 500 : 200 })),
    );
    const ids = Array.from({ length: 40 }, (_, index) => `o-${index}`);
    expect(
      (
        await api.publish(
          'outage',
          key,
          ids.map((id) => event(id)),
        )
      ).status,
    ).toBe(200);

    // Ten failures in a row make the endpoint unhealthy; from then on its events are stored.
    const held = await eventually(
      async () => {
        const health = await healthOf('outage', 'hook');
        return health.state === 'Unhealthy' && health.held?.events === ids.length && health.held;
      },
      20_000,
      'every event held in the backlog',
    );
    expect(held).toMatchObject({ state: expect.stringMatching(/^(Holding|Waiting)$/) });
    // The storing invocation's metrics are published when it ends, which may be after the
    // segments it wrote are already visible.
    await eventually(
      () => api.stack.metrics.sum('DeliveryStoredCount', {}) >= 1,
      10_000,
      'the stored events counted',
    );

    // While it is down, only the backlog's probes reach it, one at each hold's end, each with the
    // earliest due event alone; the events stay held.
    const before = webhook.requestsTo(path).length;
    await eventually(() => webhook.requestsTo(path).length >= before + 2, 20_000, 'two probes');
    const probes = webhook.requestsTo(path).slice(before);
    for (const request of probes) expect(JSON.parse(request.body)).toHaveLength(1);
    const [first, second] = probes;
    // The second probe waits out the hold the first one's failure began (1 min, scaled).
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(60_000 / TIME_SCALE - 50);
    // Still all held. A probed event is stored back before its old line is marked done, so for a
    // moment it may be counted twice; never fewer.
    expect((await healthOf('outage', 'hook')).held?.events).toBeGreaterThanOrEqual(ids.length);

    // The backlog marked the subscription held when its first probe failed: a publish to it alone
    // now goes straight to the backlog queue, never through the delivery queue.
    const marks = new DynamoHeldMarks(api.stack.clients.dynamo, api.stack.config.tableName as string);
    expect([...(await marks.list('outage')).keys()]).toEqual(['hook']);
    const queues = api.stack.config.queueUrls;
    const sentSince = (from: number, queue: string | undefined) =>
      sentTo.slice(from).filter((url) => url === queue).length;
    const mark = sentTo.length;
    const late = ['late-1', 'late-2'];
    expect(
      (
        await api.publish(
          'outage',
          key,
          late.map((id) => event(id)),
        )
      ).status,
    ).toBe(200);
    expect(sentSince(mark, queues.delivery)).toBe(0);
    expect(sentSince(mark, queues.backlog)).toBeGreaterThanOrEqual(1);
    ids.push(...late);

    down = false;
    await eventually(
      () => ids.every((id) => idsAt(path).includes(id)),
      60_000,
      'every held event delivered after recovery',
    );
    const recovered = await eventually(
      async () => {
        const health = await healthOf('outage', 'hook');
        return health.held === null && health;
      },
      20_000,
      'the backlog empty',
    );
    expect(recovered.state).toBe('Healthy');
    // Emptied, the backlog no longer holds the subscription: publishes take the delivery queue.
    // The tick that finds its segments gone removes the mark; the health view (read from the
    // segments) can say "empty" a moment before that tick has run.
    await eventually(async () => (await marks.list('outage')).size === 0, 20_000, 'the held mark removed');
    expect(await marks.list('outage')).toEqual(new Map());
    // The history of a delivered event shows the failures before the outage and the delivery.
    const record = await api.historyWhen('outage', 'hook', ids[0] as string, 'Delivered');
    expect(record.attempts.at(-1)).toMatchObject({ outcome: 'Delivered' });
  }, 120_000);
});

/** Makes `name`'s endpoint (answering 500) unhealthy with `count` events, and waits until all are held. */
async function parkEvents(topic: string, name: string, path: string, count: number, extra = {}) {
  const key = await api.createTopic(topic);
  await api.subscribe(
    topic,
    name,
    webhook.url(path, () => ({ status: 500 })),
    extra,
  );
  const ids = Array.from({ length: count }, (_, index) => `${topic}-${index}`);
  expect(
    (
      await api.publish(
        topic,
        key,
        ids.map((id) => event(id)),
      )
    ).status,
  ).toBe(200);
  await eventually(
    async () => (await healthOf(topic, name)).held?.events === count,
    20_000,
    `${count} events of ${topic}/${name} held`,
  );
  return ids;
}

describe('a subscription changed while its events are held', () => {
  it('delivers them to the new endpoint URL at once', async () => {
    const ids = await parkEvents('moved', 'hook', '/moved-old', 30);

    const moved = await api.call('PUT', '/admin/topics/moved/eventSubscriptions/hook', {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/moved-new') } },
      },
    });
    expect(moved.status).toBe(200);

    await eventually(
      () => ids.every((id) => idsAt('/moved-new').includes(id)),
      20_000,
      'every held event at the new endpoint',
    );
    await eventually(
      async () => (await healthOf('moved', 'hook')).held === null,
      20_000,
      'the backlog empty',
    );
  }, 60_000);

  it('drops them as SubscriptionDeleted when it is deleted', async () => {
    const ids = await parkEvents('gone', 'hook', '/gone', 25);

    expect((await api.call('DELETE', '/admin/topics/gone/eventSubscriptions/hook')).status).toBe(200);

    await eventually(
      () =>
        api.stack.metrics.sum('DroppedEventCount', { Topic: 'gone', EventSubscriptionName: 'HOOK' }) ===
        ids.length,
      20_000,
      'every held event dropped',
    );
    // The reason is a series of its own: no other test here deletes a subscription.
    expect(api.stack.metrics.sum('DroppedEventCount', { DropReason: 'SubscriptionDeleted' })).toBe(
      ids.length,
    );
    await eventually(
      async () => (await store().listSegments('gone', 'hook')).length === 0,
      20_000,
      'no segment left',
    );
  }, 60_000);

  it('ends them when their time to live runs out while held, at their due time', async () => {
    // Time to live 2 min (2 s here): the holds of the unhealthy endpoint outlast it.
    const ids = await parkEvents('brief', 'hook', '/brief', 20, {
      retryPolicy: { maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 2 },
    });

    await eventually(
      () =>
        api.stack.metrics.sum('DroppedEventCount', { Topic: 'brief', EventSubscriptionName: 'HOOK' }) ===
        ids.length,
      20_000,
      'every held event ended',
    );
    expect(api.stack.metrics.sum('DroppedEventCount', { DropReason: 'TimeToLiveExceeded' })).toBe(ids.length);
    const record = await api.historyWhen('brief', 'hook', ids[0] as string, 'Dropped');
    expect(record).toMatchObject({ reason: 'TimeToLiveExceeded' });
    // Ended when due, past its time to live, never before.
    expect(Date.parse(record.attempts.at(-1).time) - Date.parse(record.publishTime)).toBeGreaterThanOrEqual(
      (2 * 60_000) / TIME_SCALE,
    );
  }, 60_000);
});

describe('a wait longer than the threshold', () => {
  const FAST = 600;
  let fast: TestStack;

  beforeAll(async () => {
    fast = await startTestStack({ timeScale: FAST });
  }, 30_000);

  afterAll(async () => {
    await fast?.close();
  });

  it('is kept in the backlog and the event is attempted at its own due time', async () => {
    // After the 6th failure the schedule's next step is 30 min, beyond the 20 min threshold.
    const key = await fast.createTopic('patient');
    const path = '/patient';
    let failures = 0;
    await fast.subscribe(
      'patient',
      'hook',
      webhook.url(path, () => {
        failures += 1;
        return { status: failures <= 6 ? 500 : 200 };
      }),
    );
    expect((await fast.publish('patient', key, [event('p-1')])).status).toBe(200);
    await eventually(() => webhook.requestsTo(path).length === 6, 30_000, 'six failed attempts');
    const sixthAt = webhook.requestsTo(path)[5]?.at ?? Number.NaN;

    const held = await eventually(
      async () => {
        const health = (await fast.call('GET', '/admin/topics/patient/eventSubscriptions/hook/health')).body;
        return health.held?.events === 1 && health.held;
      },
      20_000,
      'the event held in the backlog',
    );
    expect(held.state).toBe('Waiting');
    // Five waits rode the retry queue; only the one past the threshold was stored (counted when
    // the storing invocation ends).
    await eventually(
      () => fast.stack.metrics.sum('DeliveryStoredCount', { Topic: 'patient' }) >= 1,
      10_000,
      'the stored event counted',
    );

    await eventually(() => webhook.requestsTo(path).length === 7, 30_000, 'the seventh attempt');
    const seventhAt = webhook.requestsTo(path)[6]?.at ?? Number.NaN;
    // Not before its due time: 30 min after the sixth, scaled (jitter only adds).
    expect(seventhAt - sixthAt).toBeGreaterThanOrEqual((30 * 60_000) / FAST);
    const record = await fast.historyWhen('patient', 'hook', 'p-1', 'Delivered');
    expect(record.attempts).toHaveLength(7);
  }, 60_000);
});

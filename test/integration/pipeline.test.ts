/**
 * The local stack end to end: real emulators over HTTP through the AWS SDK, the real handlers,
 * and a real webhook server. Time scale 10: the schedule's 10 s / 30 s / 1 min become 1 s / 3 s / 6 s.
 */
import type { InvocationStats } from '../../local/lambda-context';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

const TIME_SCALE = 10;
let api: TestStack;
let webhook: WebhookServer;
const invocations: InvocationStats[] = [];

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE, onInvocation: (stats) => invocations.push(stats) });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

describe('management API', () => {
  it('refuses requests without the admin token', async () => {
    const response = await api.call('GET', '/admin/topics', undefined, { auth: false });
    expect(response.status).toBe(401);
    expect(response.body.error.message).toMatch(/Authorization: Bearer/);
  });

  it('creates a topic once, with its publish endpoint and two keys', async () => {
    const created = await api.call('PUT', '/admin/topics/catalog', {
      properties: { inputSchema: 'EventGridSchema' },
    });
    expect(created.status).toBe(201);
    expect(created.body.properties.endpoint).toBe(`${api.stack.apiUrl}/topics/catalog/api/events`);
    expect((await api.call('PUT', '/admin/topics/catalog', {})).status).toBe(200);
    const keys = (await api.call('POST', '/admin/topics/catalog/listKeys')).body;
    expect(keys.key1).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(keys.key2).not.toBe(keys.key1);
    const listed = await api.call('GET', '/admin/topics');
    expect(listed.body.value.map((topic: { name: string }) => topic.name)).toContain('catalog');
  });

  it('refuses a custom-schema topic without its mapping, naming the field', async () => {
    const response = await api.call('PUT', '/admin/topics/clouds', {
      properties: { inputSchema: 'CustomEventSchema' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/^properties\.inputSchemaMapping: is required/);
  });

  it('manages subscriptions: create, read, list, full URL, validate, delete', async () => {
    await api.createTopic('inventory');
    const url = webhook.url('/inventory?code=s3cret');
    await api.subscribe('inventory', 'stock', url, {
      retryPolicy: { maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 60 },
    });

    const read = await api.call('GET', '/admin/topics/inventory/eventSubscriptions/stock');
    expect(read.body.properties).toMatchObject({
      destination: {
        endpointType: 'WebHook',
        properties: { endpointBaseUrl: url.replace('?code=s3cret', '') },
      },
      retryPolicy: { maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 60 },
      filter: { includedEventTypes: null },
    });
    expect(JSON.stringify(read.body)).not.toContain('s3cret');
    expect(
      (await api.call('POST', '/admin/topics/inventory/eventSubscriptions/stock/getFullUrl')).body,
    ).toEqual({ endpointUrl: url });
    expect((await api.call('GET', '/admin/topics/inventory/eventSubscriptions')).body.value).toHaveLength(1);

    const invalid = await api.call('PUT', '/admin/topics/inventory/eventSubscriptions/bad', {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: url } },
        retryPolicy: { eventTimeToLiveInMinutes: 2000 },
      },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toBe(
      'properties.retryPolicy.eventTimeToLiveInMinutes: must be an integer between 1 and 1440 (got a larger value).',
    );

    expect((await api.call('DELETE', '/admin/topics/inventory/eventSubscriptions/stock')).status).toBe(200);
    expect((await api.call('DELETE', '/admin/topics/inventory/eventSubscriptions/stock')).status).toBe(204);
    expect((await api.call('GET', '/admin/topics/inventory/eventSubscriptions/stock')).status).toBe(404);
  });

  it('answers 404 for subscriptions of a missing topic and 400 for invalid names', async () => {
    expect((await api.call('PUT', '/admin/topics/nowhere/eventSubscriptions/sub', {})).status).toBe(404);
    const badName = await api.call('PUT', '/admin/topics/a_b', {});
    expect(badName.status).toBe(400);
    expect(badName.body.error.message).toMatch(/topic name 'a_b' is invalid/);
  });
});

describe('publishing', () => {
  let key: string;
  beforeAll(async () => {
    key = await api.createTopic('payments');
  });

  it('answers a wrong key and an unknown topic with the same 401, so topic names cannot be probed', async () => {
    const wrongKey = await api.publish('payments', 'wrong', [event('1')]);
    expect(wrongKey.status).toBe(401);
    const unknown = await api.publish('no-such-topic', key, [event('1')]);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({
      error: {
        ...wrongKey.body.error,
        message: wrongKey.body.error.message.replace('payments', 'no-such-topic'),
      },
    });
  });

  it('answers 400 naming the event index and the field', async () => {
    const response = await api.publish('payments', key, [
      event('1'),
      { ...event('2'), eventType: undefined },
    ]);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'BadRequest',
      message: 'Event at index 1: eventType is required.',
    });
  });

  it('also takes the key as the aeg-sas-key query parameter', async () => {
    const response = await api.call(
      'POST',
      `/topics/payments/api/events?aeg-sas-key=${encodeURIComponent(key)}`,
      [event('q')],
      {
        auth: false,
      },
    );
    expect(response.status).toBe(200);
  });
});

describe('delivery', () => {
  it('pushes each event to each matching webhook as a JSON array with the service headers', async () => {
    const key = await api.createTopic('orders');
    await api.subscribe('orders', 'all-orders', webhook.url('/orders/all'));
    await api.subscribe('orders', 'shipped-only', webhook.url('/orders/shipped'), {
      filter: { includedEventTypes: ['Order.Shipped'] },
    });

    const published = await api.publish('orders', key, [
      event('o-1', 'Order.Created'),
      event('o-2', 'Order.Shipped'),
    ]);
    expect(published.status).toBe(200);

    const all = await eventually(
      () => webhook.requestsTo('/orders/all').length === 2 && webhook.requestsTo('/orders/all'),
    );
    const shipped = await eventually(
      () => webhook.requestsTo('/orders/shipped').length === 1 && webhook.requestsTo('/orders/shipped'),
    );
    const first = all.find((request) => request.body.includes('"o-1"'));
    expect(first?.method).toBe('POST');
    expect(first?.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'aeg-delivery-count': '0',
      'aeg-subscription-name': 'ALL-ORDERS',
      'aeg-event-type': 'Notification',
    });
    expect(JSON.parse(first?.body ?? '')).toEqual([
      {
        ...event('o-1', 'Order.Created'),
        topic: '/gridwire/topics/orders',
        dataVersion: '',
        metadataVersion: '1',
      },
    ]);
    expect(JSON.parse(shipped[0]?.body ?? '')[0].id).toBe('o-2');
    // Every handler invocation is reported, as Lambda would bill it. The gateway reports a publish
    // before it answers; a delivery invocation is reported when it ends, which can be after the
    // webhook got its request, so that report is waited for.
    expect(
      invocations.some(
        (stats) => stats.function === 'publish' && stats.source === 'POST /topics/{topic}/api/events',
      ),
    ).toBe(true);
    await eventually(
      () => invocations.some((stats) => stats.function === 'delivery' && stats.records >= 1),
      20_000,
      'a delivery invocation to be reported as ended',
    );
  });

  it('retries a failing webhook on the schedule: delivery counts 0, 1, 2 spaced 10 s and 30 s (scaled)', async () => {
    const key = await api.createTopic('flaky');
    await api.subscribe(
      'flaky',
      'down',
      webhook.url('/flaky', () => ({ status: 500 })),
    );

    await api.publish('flaky', key, [event('f-1')]);
    const attempts = await eventually(
      () => webhook.requestsTo('/flaky').length >= 3 && webhook.requestsTo('/flaky'),
      15_000,
    );

    expect(attempts.slice(0, 3).map((request) => request.headers['aeg-delivery-count'])).toEqual([
      '0',
      '1',
      '2',
    ]);
    const steps = [10_000 / TIME_SCALE, 30_000 / TIME_SCALE];
    steps.forEach((step, index) => {
      const gap = (attempts[index + 1]?.at ?? 0) - (attempts[index]?.at ?? 0);
      expect(gap).toBeGreaterThanOrEqual(step);
      // Jitter adds under 10%; polling and processing add a little more.
      expect(gap).toBeLessThan(step * 1.1 + 500);
    });

    // The retry goes out before the failed attempt is recorded: wait for both outcomes.
    const record = await eventually(async () => {
      const history = await api.call(
        'GET',
        '/admin/topics/flaky/eventSubscriptions/down/deliveries?eventId=f-1',
      );
      const found = history.body.value?.[0];
      return found?.attempts?.length >= 2 && found;
    });
    expect(record).toMatchObject({ eventId: 'f-1', status: 'Retrying' });
    expect(record.attempts.slice(0, 2)).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'GenericError', httpStatus: 500 }),
      expect.objectContaining({ attempt: 2, outcome: 'GenericError', httpStatus: 500 }),
    ]);
  }, 30_000);

  it('makes exactly one attempt when the webhook answers 400, and records the drop', async () => {
    const key = await api.createTopic('strict');
    await api.subscribe(
      'strict',
      'rejects',
      webhook.url('/strict', () => ({ status: 400 })),
    );

    await api.publish('strict', key, [event('s-1')]);
    await eventually(() => webhook.requestsTo('/strict').length === 1);
    expect(await api.historyWhen('strict', 'rejects', 's-1', 'Dropped')).toMatchObject({
      status: 'Dropped',
      reason: 'NonRetriableOutcome',
    });
    // Metric points are written when the delivery invocation ends, after the history.
    await eventually(
      () => api.stack.metrics.sum('DroppedEventCount', { DropReason: 'NonRetriableOutcome' }) === 1,
      10_000,
      'the drop to be counted',
    );
    // The first retry would have come 1 s after the attempt at this time scale; wait well past it.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(webhook.requestsTo('/strict')).toHaveLength(1);
    expect(api.stack.metrics.sum('DroppedEventCount', { DropReason: 'NonRetriableOutcome' })).toBe(1);
  });

  it('writes no attempt history for an event delivered on the first attempt', async () => {
    const key = await api.createTopic('happy');
    await api.subscribe('happy', 'fine', webhook.url('/happy'));
    await api.publish('happy', key, [event('h-1')]);
    await eventually(() => webhook.requestsTo('/happy').length === 1);
    // The webhook has the event before the delivery ends; its metric points are written last, after
    // any history, so once they are counted an empty history means none was written.
    await eventually(
      () => api.stack.metrics.sum('DeliverySuccessCount', { Topic: 'happy' }) === 1,
      10_000,
      'the delivery to end',
    );
    const history = await api.call(
      'GET',
      '/admin/topics/happy/eventSubscriptions/fine/deliveries?eventId=h-1',
    );
    expect(history.body).toMatchObject({ value: [], truncated: false });
    // By default the last 24 hours are searched.
    const { since, until } = history.body.searched;
    expect(Date.parse(until) - Date.parse(since)).toBe(24 * 3_600_000);
    expect(Math.abs(Date.parse(until) - Date.now())).toBeLessThan(5000);

    const tooLong = await api.call(
      'GET',
      '/admin/topics/happy/eventSubscriptions/fine/deliveries?eventId=h-1&since=2026-01-01T00:00:00Z&until=2026-01-09T00:00:00Z',
    );
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(tooLong.body)).toContain('since: the window may span at most 7 days');
  });

  it('delivers events whose id cannot travel in a header, and keeps the history of a very long id', async () => {
    const key = await api.createTopic('unusual');
    let fail = true;
    await api.subscribe(
      'unusual',
      'hook',
      webhook.url('/unusual', () => ({ status: fail ? 500 : 200 })),
    );
    const cyrillic = 'заказ-1';
    const long = `long-${'x'.repeat(3000)}`;
    expect((await api.publish('unusual', key, [event(cyrillic), event(long)])).status).toBe(200);
    await eventually(() => webhook.requestsTo('/unusual').length >= 2);
    fail = false;
    const delivered = await eventually(
      () => webhook.requestsTo('/unusual').length >= 4 && webhook.requestsTo('/unusual'),
      10_000,
    );
    const ids = delivered.map((request) => JSON.parse(request.body)[0].id);
    expect(ids).toEqual(expect.arrayContaining([cyrillic, long]));
    for (const request of delivered) expect(request.headers['aeg-output-event-id']).toBeUndefined();

    const record = await api.historyWhen('unusual', 'hook', long, 'Delivered');
    expect(record).toMatchObject({ eventId: long, status: 'Delivered' });
    expect(record.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['GenericError', 'Delivered']);
  });
});

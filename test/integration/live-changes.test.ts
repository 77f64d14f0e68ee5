/**
 * What a user sees right after a call returns: any valid JSON publishes and arrives unchanged, and
 * subscription changes are obeyed by the very next publish, even while the delivery side holds a
 * warm cache (here 60 s, longer than on AWS).
 */
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 60, subscriptionCacheSeconds: 60 });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

/** Publishes `body` as it is, to a new topic with one subscription; resolves with what the webhook got. */
async function publishAndReceive(topic: string, body: string): Promise<string> {
  const key = await api.createTopic(topic);
  const path = `/${topic}`;
  await api.subscribe(topic, 'hook', webhook.url(path));
  const published = await api.call('POST', `/topics/${topic}/api/events?api-version=2018-01-01`, body, {
    auth: false,
    headers: { 'aeg-sas-key': key },
  });
  expect(published.status).toBe(200);
  const [received] = await eventually(() => {
    const requests = webhook.requestsTo(path);
    return requests.length > 0 && requests;
  });
  return received?.body ?? '';
}

describe('any valid JSON', () => {
  it('publishes an event with emoji and other characters beyond U+FFFF and delivers it byte for byte', async () => {
    const text = 'Party 🎉 in 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, 𠜎 and 👩‍👩‍👧 (\uFEFF BOM, \uFFFD)';
    const body = `[{"id":"🎉-1","subject":"s/🎉","eventType":"Party.Started","eventTime":"2026-11-01T10:00:00Z","data":{"text":"${text}","nested":{"${text}":["${text}"]}},"dataVersion":"1.0"}]`;

    const received = await publishAndReceive('party', body);

    // The publisher's event, byte for byte, followed only by the fields the service stamps.
    expect(received).toBe(`${body.slice(0, -2)},"topic":"/gridwire/topics/party","metadataVersion":"1"}]`);
  });

  it('delivers numbers beyond double precision, __proto__ keys and number formats exactly as published', async () => {
    const data =
      '{ "account": 9007199254740993, "huge": 1e400, "price": 1.50, "__proto__": {"admin": true} }';
    const body = `[{"id":"n-1","subject":"s","eventType":"Ledger.Posted","eventTime":"2026-11-01T10:00:00Z","data":${data}}]`;

    const received = await publishAndReceive('exact', body);

    expect(received).toContain(`"data":${data}`);
  });
});

describe('subscription changes are live when the call returns', () => {
  it('sends the very next event to the new endpoint after the endpoint URL changes', async () => {
    const key = await api.createTopic('moves');
    await api.subscribe('moves', 'hook', webhook.url('/old'));
    await api.publish('moves', key, [event('before')]);
    await eventually(() => webhook.requestsTo('/old').length === 1, 10_000, 'first delivery');

    const changed = await api.call('PUT', '/admin/topics/moves/eventSubscriptions/hook', {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/new') } },
      },
    });
    expect(changed.status).toBe(200);
    await api.publish('moves', key, [event('after')]);

    await eventually(() => webhook.requestsTo('/new').length === 1, 10_000, 'delivery to the new URL');
    expect(JSON.parse(webhook.requestsTo('/new')[0]?.body ?? '[]')[0].id).toBe('after');
    expect(webhook.requestsTo('/old')).toHaveLength(1);
  });

  it('obeys a lowered maxDeliveryAttempts on the very next event', async () => {
    const key = await api.createTopic('limits');
    const path = '/limits';
    const url = webhook.url(path, () => ({ status: 500 }));
    await api.subscribe('limits', 'hook', url);
    await api.publish('limits', key, [event('warm-up')]);
    await eventually(() => webhook.requestsTo(path).length >= 1, 10_000, 'first attempt');

    await api.call('PUT', '/admin/topics/limits/eventSubscriptions/hook', {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: url } },
        retryPolicy: { maxDeliveryAttempts: 1 },
      },
    });
    await api.publish('limits', key, [event('once')]);

    const attemptsOf = (id: string) =>
      webhook.requestsTo(path).filter((request) => JSON.parse(request.body)[0].id === id);
    await eventually(() => attemptsOf('once').length === 1, 10_000, 'the attempt');
    expect(await api.historyWhen('limits', 'hook', 'once', 'Dropped')).toMatchObject({
      status: 'Dropped',
      reason: 'MaxDeliveryAttemptsExceeded',
    });
    // At time scale 60 a second attempt would come after 10 s / 60 = 0.17 s (plus jitter).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(attemptsOf('once')).toHaveLength(1);
  });

  it('applies a new filter to the very next publish', async () => {
    const key = await api.createTopic('filtered');
    const path = '/filtered';
    await api.subscribe('filtered', 'hook', webhook.url(path));
    await api.publish('filtered', key, [event('any-type', 'Order.Shipped')]);
    await eventually(() => webhook.requestsTo(path).length === 1, 10_000, 'unfiltered delivery');

    await api.call('PUT', '/admin/topics/filtered/eventSubscriptions/hook', {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url(path) } },
        filter: { includedEventTypes: ['Order.Created'] },
      },
    });
    await api.publish('filtered', key, [event('skipped', 'Order.Shipped'), event('kept', 'Order.Created')]);

    await eventually(() => webhook.requestsTo(path).length === 2, 10_000, 'filtered delivery');
    // The skipped event was published with the kept one: had it been queued, it would be out by now.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(webhook.requestsTo(path).map((request) => JSON.parse(request.body)[0].id)).toEqual([
      'any-type',
      'kept',
    ]);
  });
  it('drops the pending retries of a deleted subscription, even when one is created again under its name', async () => {
    const key = await api.createTopic('reborn');
    // 408 asks for at least 2 min (2 s at time scale 60) before the next attempt.
    await api.subscribe(
      'reborn',
      'hook',
      webhook.url('/gone', () => ({ status: 408 })),
    );
    await api.publish('reborn', key, [event('pending')]);
    await eventually(() => webhook.requestsTo('/gone').length === 1, 10_000, 'first attempt');

    expect((await api.call('DELETE', '/admin/topics/reborn/eventSubscriptions/hook')).status).toBe(200);
    await api.subscribe('reborn', 'hook', webhook.url('/fresh'));
    await api.publish('reborn', key, [event('new')]);

    await eventually(() => webhook.requestsTo('/fresh').length === 1, 10_000, 'delivery of the new event');
    // Past the retry's due time (2 s and jitter): the old event went nowhere.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(webhook.requestsTo('/fresh').map((request) => JSON.parse(request.body)[0].id)).toEqual(['new']);
    expect(webhook.requestsTo('/gone')).toHaveLength(1);
  });
});

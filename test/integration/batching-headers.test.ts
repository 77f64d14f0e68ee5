/**
 * Output batching and custom delivery headers end to end on the local stack: batch bounds (events
 * and kilobytes), the oversized single event, all-or-none retry and individual dead letters, no
 * waiting at low rates, every header kind, and secrets that never leave.
 */
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  // Time scale 60: the dead-letter step's 5-minute wait is 5 s.
  api = await startTestStack({ timeScale: 60 });
  key = await api.createTopic('batches');
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

/** A WebHook destination; `url` comes from `webhook.url` (which also sets how the path answers). */
const destination = (url: string, properties: Record<string, unknown> = {}) => ({
  endpointType: 'WebHook',
  properties: { endpointUrl: url, ...properties },
});
const ids = (request: ReceivedRequest) =>
  (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id);
const delivered = (path: string) => webhook.requestsTo(path).flatMap(ids);
const allOf = async (path: string, count: number) =>
  eventually(
    () => (new Set(delivered(path)).size >= count ? webhook.requestsTo(path) : undefined),
    15_000,
    `${count} events at ${path}`,
  );

it('sends batches of at most maxEventsPerBatch, every event once', async () => {
  await api.subscribe('batches', 'three', '', {
    destination: destination(webhook.url('/three'), { maxEventsPerBatch: 3 }),
    filter: { includedEventTypes: ['Batch.Three'] },
  });
  const events = Array.from({ length: 10 }, (_, i) => event(`three-${i}`, 'Batch.Three'));
  expect((await api.publish('batches', key, events)).status).toBe(200);

  const requests = await allOf('/three', 10);
  expect(requests.map((request) => ids(request).length).sort()).toEqual([1, 3, 3, 3]);
  expect(delivered('/three').sort()).toEqual(events.map((e) => e.id).sort());
  // A batch carries no per-event headers.
  const batch = requests.find((request) => ids(request).length === 3);
  expect(batch?.headers['aeg-output-event-id']).toBeUndefined();
  expect(batch?.headers['aeg-delivery-count']).toBe('0');

  const doc = await api.call('GET', '/admin/topics/batches/eventSubscriptions/three');
  expect(doc.body.properties.destination.properties).toMatchObject({
    maxEventsPerBatch: 3,
    preferredBatchSizeInKilobytes: 64,
  });
});

it('keeps batches under the preferred size, and sends a larger event alone', async () => {
  await api.subscribe('batches', 'small', '', {
    destination: destination(webhook.url('/small'), {
      maxEventsPerBatch: 100,
      preferredBatchSizeInKilobytes: 1,
    }),
    filter: { includedEventTypes: ['Batch.Small'] },
  });
  const sized = (id: string, bytes: number) => event(id, 'Batch.Small', { pad: 'x'.repeat(bytes) });
  const events = [
    sized('s-0', 300),
    sized('s-1', 300),
    sized('big', 3000),
    sized('s-2', 300),
    sized('s-3', 300),
  ];
  expect((await api.publish('batches', key, events)).status).toBe(200);

  const requests = await allOf('/small', 5);
  for (const request of requests) {
    if (ids(request).length > 1) expect(Buffer.byteLength(request.body)).toBeLessThanOrEqual(1024);
  }
  const alone = requests.find((request) => ids(request).includes('big'));
  expect(alone && ids(alone)).toEqual(['big']);
  expect(Buffer.byteLength(alone?.body ?? '')).toBeGreaterThan(3000);
});

it('gives 10,000 events to a maxEventsPerBatch 1000 subscription in far fewer requests, none over 1000', async () => {
  await api.subscribe('batches', 'bulk', '', {
    destination: destination(webhook.url('/bulk'), {
      maxEventsPerBatch: 1000,
      preferredBatchSizeInKilobytes: 1024,
    }),
    filter: { includedEventTypes: ['Batch.Bulk'] },
  });
  for (let request = 0; request < 10; request += 1) {
    const events = Array.from({ length: 1000 }, (_, i) => event(`bulk-${request}-${i}`, 'Batch.Bulk', {}));
    expect((await api.publish('batches', key, events)).status).toBe(200);
  }
  const requests = await allOf('/bulk', 10_000);
  expect(requests.length).toBeLessThanOrEqual(20);
  expect(Math.max(...requests.map((request) => ids(request).length))).toBeLessThanOrEqual(1000);
}, 30_000);

it('does not wait to fill a batch: a lone event goes out by itself', async () => {
  await api.subscribe('batches', 'lone', '', {
    destination: destination(webhook.url('/lone'), { maxEventsPerBatch: 5000 }),
    filter: { includedEventTypes: ['Batch.Lone'] },
  });
  expect((await api.publish('batches', key, [event('lone-1', 'Batch.Lone')])).status).toBe(200);
  const [request] = await allOf('/lone', 1);
  expect(request && ids(request)).toEqual(['lone-1']);
  expect(request?.headers['aeg-output-event-id']).toBe('lone-1');
});

it('retries a failed batch whole, then dead-letters its events one by one', async () => {
  let answered = 0;
  await api.subscribe('batches', 'flaky', '', {
    destination: destination(
      webhook.url('/flaky', () => ({ status: answered++ === 0 ? 500 : 200 })),
      { maxEventsPerBatch: 10 },
    ),
    filter: { includedEventTypes: ['Batch.Flaky'] },
  });
  const events = Array.from({ length: 4 }, (_, i) => event(`flaky-${i}`, 'Batch.Flaky'));
  expect((await api.publish('batches', key, events)).status).toBe(200);
  const [first, second] = await eventually(
    () => (webhook.requestsTo('/flaky').length >= 2 ? webhook.requestsTo('/flaky') : undefined),
    15_000,
    'the retried batch',
  );
  expect(first && ids(first).sort()).toEqual(events.map((e) => e.id).sort());
  expect(second && ids(second).sort()).toEqual(events.map((e) => e.id).sort());
  expect([first?.headers['aeg-delivery-count'], second?.headers['aeg-delivery-count']]).toEqual(['0', '1']);

  // A batch that fails for good: each event gets its own dead-letter record.
  await api.subscribe('batches', 'doomed', '', {
    destination: destination(
      webhook.url('/doomed', () => ({ status: 500 })),
      { maxEventsPerBatch: 10 },
    ),
    filter: { includedEventTypes: ['Batch.Doomed'] },
    retryPolicy: { maxDeliveryAttempts: 1, eventTimeToLiveInMinutes: 1440 },
    deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
  });
  const doomed = Array.from({ length: 3 }, (_, i) => event(`doomed-${i}`, 'Batch.Doomed'));
  expect((await api.publish('batches', key, doomed)).status).toBe(200);
  const blob = await api.firstDeadLetterBlob('batches', 'doomed');
  expect(webhook.requestsTo('/doomed')).toHaveLength(1);
  expect(blob.records.map((record: { id: string }) => record.id).sort()).toEqual(doomed.map((e) => e.id));
  for (const record of blob.records) {
    expect(record).toMatchObject({ deadLetterReason: 'MaxDeliveryAttemptsExceeded', deliveryAttempts: 1 });
  }
}, 40_000);

describe('custom delivery headers', () => {
  const SECRET = 'Bearer do-not-leak-7f3a';
  const mappings = [
    { name: 'X-Static', type: 'Static', properties: { value: 'fixed-value', isSecret: false } },
    { name: 'Authorization', type: 'Static', properties: { value: SECRET, isSecret: true } },
    { name: 'X-Tenant', type: 'Dynamic', properties: { sourceField: 'data.tenant' } },
    { name: 'X-Amount', type: 'Dynamic', properties: { sourceField: 'data.amount' } },
    { name: 'X-Missing', type: 'Dynamic', properties: { sourceField: 'data.nothing.here' } },
  ];

  beforeAll(async () => {
    await api.subscribe('batches', 'headers', '', {
      destination: destination(webhook.url('/headers'), { deliveryAttributeMappings: mappings }),
      filter: { includedEventTypes: ['Batch.Headers'] },
      retryPolicy: { maxDeliveryAttempts: 1, eventTimeToLiveInMinutes: 1440 },
      deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
    });
  });

  it('sends static, secret and dynamic headers as configured; a missing field sends none', async () => {
    const published = event('hdr-1', 'Batch.Headers', { tenant: 'acme', amount: 42.5 });
    expect((await api.publish('batches', key, [published])).status).toBe(200);
    const [request] = await allOf('/headers', 1);
    expect(request?.headers).toMatchObject({
      'x-static': 'fixed-value',
      authorization: SECRET,
      'x-tenant': 'acme',
      'x-amount': '42.5',
    });
    expect(request?.headers['x-missing']).toBeUndefined();
  });

  it('never shows the secret: GET masks it, the dead letter leaves it out', async () => {
    const doc = await api.call('GET', '/admin/topics/batches/eventSubscriptions/headers');
    const text = JSON.stringify(doc.body);
    expect(text).not.toContain(SECRET);
    expect(doc.body.properties.destination.properties.deliveryAttributeMappings).toContainEqual({
      name: 'Authorization',
      type: 'Static',
      properties: { value: null, isSecret: true },
    });
    const list = await api.call('GET', '/admin/topics/batches/eventSubscriptions');
    expect(JSON.stringify(list.body)).not.toContain(SECRET);

    webhook.url('/headers', () => ({ status: 500 }));
    expect(
      (await api.publish('batches', key, [event('hdr-dead', 'Batch.Headers', { tenant: 't' })])).status,
    ).toBe(200);
    const blob = await api.firstDeadLetterBlob('batches', 'headers');
    expect(blob.records[0]).toMatchObject({ id: 'hdr-dead' });
    expect(JSON.stringify(blob.records)).not.toContain(SECRET);
  }, 30_000);

  it('refuses invalid mappings with a 400 naming the mapping', async () => {
    const refused = await api.call('PUT', '/admin/topics/batches/eventSubscriptions/bad', {
      properties: {
        destination: destination(webhook.url('/bad'), {
          deliveryAttributeMappings: [
            { name: 'X-One', type: 'Static', properties: { value: '1' } },
            { name: 'aeg-custom', type: 'Static', properties: { value: '2' } },
          ],
        }),
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /^properties\.destination\.properties\.deliveryAttributeMappings\.1\.name: /,
    );
  });
});

describe('dead-letter notices', () => {
  // The pages: subscribe to the dead-letter store to be told when an event is dead-lettered.
  it('tells the subscribers of the notices topic about each dead-letter blob, naming it', async () => {
    // The notices topic is made with its first subscription.
    await api.subscribe('gridwire-deadletters', 'ops', webhook.url('/notices'));
    const key = await api.createTopic('noticed');
    await api.subscribe(
      'noticed',
      'rejecting',
      webhook.url('/rejecting', () => ({ status: 400 })),
      {
        deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
      },
    );
    expect((await api.publish('noticed', key, [event('noticed-1', 'Order.Created')])).status).toBe(200);

    const blob = await api.firstDeadLetterBlob('noticed', 'rejecting');
    const request = await eventually(
      () => webhook.requestsTo('/notices')[0],
      20_000,
      'the dead-letter notice',
    );
    const notices = JSON.parse(request.body);
    expect(notices).toEqual([
      expect.objectContaining({
        id: `${blob.key}#NonRetriableOutcome`,
        eventType: 'Gridwire.DeadLettered',
        subject: '/topics/noticed/eventSubscriptions/rejecting',
        topic: '/gridwire/topics/gridwire-deadletters',
        data: expect.objectContaining({
          container: 'dead',
          blobKey: blob.key,
          topic: 'noticed',
          subscription: 'rejecting',
          reason: 'NonRetriableOutcome',
          count: 1,
        }),
      }),
    ]);
    expect(webhook.requestsTo('/notices')).toHaveLength(1);
  }, 60_000);
});

describe('events published one per request', () => {
  let windowed: TestStack;

  beforeAll(async () => {
    // The delivery queue's event source gathers for up to 3 s, as `deliveryBatchingWindow` sets it:
    // long enough that concurrent publishes meet in the same invocations on a busy machine.
    windowed = await startTestStack({ deliveryBatchingWindow: { seconds: 3, batchSize: 10 } });
  }, 30_000);

  afterAll(async () => {
    await windowed?.close();
  });

  it('reach a batching subscription together, in requests of several events, each event once', async () => {
    const topicKey = await windowed.createTopic('singles');
    await windowed.subscribe('singles', 'batched', '', {
      destination: destination(webhook.url('/singles'), { maxEventsPerBatch: 10 }),
    });
    const events = Array.from({ length: 50 }, (_, i) => event(`single-${i}`, 'Single.Published'));

    const answers = await Promise.all(events.map((one) => windowed.publish('singles', topicKey, [one])));

    expect(answers.map((answer) => answer.status)).toEqual(events.map(() => 200));
    const requests = await allOf('/singles', 50);
    expect(delivered('/singles').sort()).toEqual(events.map((one) => one.id).sort());
    // Merged across publishes: never more than the subscription's maximum, several on average.
    expect(Math.max(...requests.map((request) => ids(request).length))).toBeLessThanOrEqual(10);
    expect(requests.length).toBeLessThanOrEqual(17);
    for (const request of requests.filter((one) => ids(one).length > 1)) {
      expect(request.headers['aeg-delivery-count']).toBe('0');
      expect(request.headers['aeg-output-event-id']).toBeUndefined();
    }
  }, 60_000);
});

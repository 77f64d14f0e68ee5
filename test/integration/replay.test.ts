/**
 * Replays on the local stack: events a topic archived before a subscription existed reach it
 * through a replay, as fresh deliveries marked `gridwire-replay-of: archive`, through the
 * subscription's filter and the replay's event types; the replay's document counts what it found
 * and queued; and what a replay may ask is checked.
 */
import { ARCHIVE_BUCKET } from '../../shared/config/resources';
import { createAwsClients } from '../../shared/platform/aws';
import { ArchiveBucket, type ArchivedRecord } from '../../shared/storage/archive';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let archive: ArchiveBucket;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack();
  archive = new ArchiveBucket(createAwsClients(api.stack.endpoints).s3, ARCHIVE_BUCKET.localName);
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const HOUR = 3_600_000;
const subscriptionPath = (topic: string, name: string) => `/admin/topics/${topic}/eventSubscriptions/${name}`;

/** Waits until the topic's archive holds `count` events. */
async function archived(topic: string, count: number): Promise<ArchivedRecord[]> {
  const createdAt = (await api.call('GET', `/admin/topics/${topic}`)).body.systemData.createdAt;
  return eventually(
    async () => {
      const now = Date.now();
      const segments = await archive.listSegments({ topic, createdAt }, now - HOUR, now + HOUR);
      const records = (await Promise.all(segments.map(({ key }) => archive.readSegment(key)))).flat();
      return records.length >= count && records;
    },
    20_000,
    `${count} archived events of ${topic}`,
  );
}

const idsIn = (requests: readonly ReceivedRequest[]) =>
  requests.flatMap((request) => (JSON.parse(request.body) as Array<{ id: string }>).map(({ id }) => id));

/** Waits until the replay has ended, and answers its document. */
const ended = (topic: string, name: string, id: string) =>
  eventually(
    async () => {
      const replay = (await api.call('GET', `${subscriptionPath(topic, name)}/replays/${id}`)).body;
      return replay.state !== 'Running' && replay;
    },
    20_000,
    `the end of replay ${id}`,
  );

it('delivers to a subscription made afterwards the archived events its filter lets through, marked as replayed', async () => {
  expect(
    (await api.call('PUT', '/admin/topics/history', { properties: { archive: { retentionInDays: 7 } } }))
      .status,
  ).toBe(201);
  const key = (await api.call('POST', '/admin/topics/history/listKeys')).body.key1;
  expect((await api.publish('history', key, [event('h1'), event('h2', 'Order.Shipped')])).status).toBe(200);
  expect((await api.publish('history', key, [event('h3')])).status).toBe(200);
  await archived('history', 3);

  await api.subscribe('history', 'late', webhook.url('/late'), {
    filter: { includedEventTypes: ['Order.Created'] },
  });
  const since = new Date(Date.now() - HOUR).toISOString();
  const started = await api.call('POST', `${subscriptionPath('history', 'late')}/replays`, { since });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ state: 'Running', since, eventsFound: 0, eventsQueued: 0 });

  const requests = await eventually(
    () => {
      const received = webhook.requestsTo('/late');
      return idsIn(received).length >= 2 && received;
    },
    20_000,
    'the replayed events',
  );
  expect(idsIn(requests).sort()).toEqual(['h1', 'h3']);
  for (const request of requests) {
    expect(request.headers['gridwire-replay-of']).toBe('archive');
    expect(request.headers['aeg-delivery-count']).toBe('0');
  }
  expect(await ended('history', 'late', started.body.id)).toMatchObject({
    state: 'Completed',
    eventsFound: 3,
    eventsQueued: 2,
  });
  // Counted as delivered once their attempts succeed.
  await eventually(
    async () =>
      (await api.call('GET', `${subscriptionPath('history', 'late')}/replays/${started.body.id}`)).body
        .eventsDelivered === 2,
    10_000,
    'the delivered events counted',
  );
  const listed = await api.call('GET', `${subscriptionPath('history', 'late')}/replays`);
  expect(listed.body.value.map(({ id }: { id: string }) => id)).toEqual([started.body.id]);
  // Nothing more arrives: each event once.
  expect(idsIn(webhook.requestsTo('/late')).sort()).toEqual(['h1', 'h3']);
}, 60_000);

it("keeps to the replay's event types and time range", async () => {
  await api.subscribe('history', 'shipped', webhook.url('/shipped'));
  const since = new Date(Date.now() - HOUR).toISOString();
  const typed = await api.call('POST', `${subscriptionPath('history', 'shipped')}/replays`, {
    since,
    eventTypes: ['order.shipped'],
  });
  expect(typed.status).toBe(202);
  expect(await ended('history', 'shipped', typed.body.id)).toMatchObject({
    state: 'Completed',
    eventsQueued: 1,
  });
  expect(idsIn(webhook.requestsTo('/shipped'))).toEqual(['h2']);

  // A range that ends before the events were published finds nothing.
  const early = await api.call('POST', `${subscriptionPath('history', 'shipped')}/replays`, {
    since,
    until: new Date(Date.now() - HOUR / 2 - 60_000).toISOString(),
  });
  expect(await ended('history', 'shipped', early.body.id)).toMatchObject({
    state: 'Completed',
    eventsFound: 0,
    eventsQueued: 0,
  });
}, 60_000);

it('refuses a replay it cannot do, naming why', async () => {
  const key = await api.createTopic('unkept');
  expect(key).toBeDefined();
  await api.subscribe('unkept', 'hook', webhook.url('/unkept'));
  const now = Date.now();
  const noArchive = await api.call('POST', `${subscriptionPath('unkept', 'hook')}/replays`, {
    since: new Date(now - HOUR).toISOString(),
  });
  expect(noArchive.status).toBe(400);
  expect(JSON.stringify(noArchive.body)).toMatch(/keeps no archive/);

  const path = `${subscriptionPath('history', 'late')}/replays`;
  const tooOld = await api.call('POST', path, { since: new Date(now - 8 * 24 * HOUR).toISOString() });
  expect(tooOld.status).toBe(400);
  expect(JSON.stringify(tooOld.body)).toMatch(/retentionInDays 7/);
  const future = await api.call('POST', path, {
    since: new Date(now - HOUR).toISOString(),
    until: new Date(now + HOUR).toISOString(),
  });
  expect(future.status).toBe(400);
  expect(JSON.stringify(future.body)).toMatch(/until must not be in the future/);
  const backwards = await api.call('POST', path, {
    since: new Date(now - HOUR).toISOString(),
    until: new Date(now - 2 * HOUR).toISOString(),
  });
  expect(backwards.status).toBe(400);
  const malformed = await api.call('POST', path, { since: 'yesterday' });
  expect(malformed.status).toBe(400);
  expect(JSON.stringify(malformed.body)).toMatch(/since must be a date and time/);
  expect((await api.call('GET', `${path}/rp-none`)).status).toBe(404);
});

/**
 * Topics' archives on the local stack: every event a topic with `archive` accepts reaches its
 * archive segments, as it was sent, whether it matched a subscription (its copy rides on the
 * publish's message and is forwarded by the delivery function), matched none, or went only to
 * an ordered subscription (its copy is sent to the archive queue by the publish function); a
 * topic without an archive keeps nothing; the setting is validated, shown and turned off; and
 * the bucket's listing, expiry and deletion work on the emulator's S3.
 */
import { ARCHIVE_BUCKET, TABLE } from '../../shared/config/resources';
import type { Replay } from '../../shared/domain/replays';
import { createAwsClients } from '../../shared/platform/aws';
import { ArchiveBucket, type ArchivedRecord, type ArchivedTopic } from '../../shared/storage/archive';
import { DynamoReplayStore } from '../../shared/storage/replays';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

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

/** The archive of a topic as its document names it (its id and creation time). */
async function archiveOf(path: string, topic: string): Promise<ArchivedTopic> {
  const document = (await api.call('GET', path)).body;
  return { topic, createdAt: document.systemData.createdAt };
}

/** Every record the topic's archive holds from an hour ago on. */
async function recordsOf(topic: ArchivedTopic): Promise<ArchivedRecord[]> {
  const now = Date.now();
  const segments = await archive.listSegments(topic, now - HOUR, now + HOUR);
  const records = await Promise.all(segments.map(({ key }) => archive.readSegment(key)));
  return records.flat();
}

/** Waits until the archive holds `count` events, and answers them. */
const archivedEvents = (topic: ArchivedTopic, count: number) =>
  eventually(
    async () => {
      const records = await recordsOf(topic);
      return records.length >= count && records;
    },
    20_000,
    `${count} archived events of ${topic.topic}`,
  );

it('keeps every accepted event, matched or not, as it was sent', async () => {
  const created = await api.call('PUT', '/admin/topics/kept', {
    properties: { archive: { retentionInDays: 3 } },
  });
  expect(created.status).toBe(201);
  expect(created.body.properties.archive).toEqual({ retentionInDays: 3 });
  const key = (await api.call('POST', '/admin/topics/kept/listKeys')).body.key1;
  await api.subscribe('kept', 'created-only', webhook.url('/kept'), {
    filter: { includedEventTypes: ['Order.Created'] },
  });

  // One matched and one not in one publish; then a publish nothing matches.
  expect(
    (await api.publish('kept', key, [event('a'), event('b', 'Order.Shipped', { price: 1.5 })])).status,
  ).toBe(200);
  expect((await api.publish('kept', key, [event('c', 'Order.Shipped')])).status).toBe(200);

  const records = await archivedEvents(await archiveOf('/admin/topics/kept', 'kept'), 3);
  expect(records.map(({ eventId }) => eventId).sort()).toEqual(['a', 'b', 'c']);
  const [a, b] = ['a', 'b'].map((id) => records.find(({ eventId }) => eventId === id));
  // Both of the first publish: one publish id, their positions in it.
  expect(a?.publishId).toBe(b?.publishId);
  expect([a?.index, b?.index]).toEqual([0, 1]);
  // The event as its subscriptions are sent it (the topic stamped in), byte for byte.
  const delivered = await eventually(() => webhook.requestsTo('/kept')[0], 10_000, 'the delivery of a');
  expect(JSON.parse(delivered.body)).toEqual([JSON.parse(a?.event ?? 'null')]);
  expect(JSON.parse(b?.event ?? '{}')).toMatchObject({
    id: 'b',
    eventType: 'Order.Shipped',
    data: { price: 1.5 },
  });
  expect(JSON.parse(a?.event ?? '{}').topic).toMatch(/kept$/i);
}, 40_000);

it('keeps the events of a namespace topic and of a topic whose only subscription is ordered', async () => {
  const base = '/admin/namespaces/archived';
  expect((await api.call('PUT', base, { properties: {} })).status).toBe(201);
  const topic = await api.call('PUT', `${base}/topics/orders`, {
    properties: { eventRetentionInDays: 2, archive: {} },
  });
  expect(topic.status).toBe(201);
  // Without a retention of its own, a namespace topic's archive keeps its events as long as it does.
  expect(topic.body.properties.archive).toEqual({ retentionInDays: 2 });
  const nsKey = (await api.call('POST', `${base}/listKeys`)).body.key1;
  const cloudEvent = {
    specversion: '1.0',
    id: 'ce-1',
    source: '/shop',
    type: 'Order.Created',
    data: { n: 1 },
  };
  const published = await fetch(
    `${api.stack.apiUrl}/namespaces/archived/topics/orders:publish?api-version=2023-11-01`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json', authorization: `SharedAccessKey ${nsKey}` },
      body: JSON.stringify(cloudEvent),
    },
  );
  expect(published.status).toBe(200);

  expect(
    (await api.call('PUT', '/admin/topics/kept-ordered', { properties: { archive: { retentionInDays: 1 } } }))
      .status,
  ).toBe(201);
  const key = (await api.call('POST', '/admin/topics/kept-ordered/listKeys')).body.key1;
  await api.subscribe('kept-ordered', 'in-order', webhook.url('/ordered'), {
    orderedDelivery: { key: 'subject' },
  });
  expect((await api.publish('kept-ordered', key, [event('o1'), event('o2')])).status).toBe(200);

  const namespaced = await archivedEvents(await archiveOf(`${base}/topics/orders`, 'archived/orders'), 1);
  expect(namespaced.map(({ eventId }) => eventId)).toEqual(['ce-1']);
  expect(JSON.parse(namespaced[0]?.event ?? '{}')).toMatchObject({
    id: 'ce-1',
    source: '/shop',
    data: { n: 1 },
  });
  const ordered = await archivedEvents(await archiveOf('/admin/topics/kept-ordered', 'kept-ordered'), 2);
  expect(ordered.map(({ eventId }) => eventId).sort()).toEqual(['o1', 'o2']);
}, 40_000);

it('keeps nothing of a topic without an archive, and turns an archive off with a PUT without it', async () => {
  const key = await api.createTopic('not-kept');
  await api.subscribe('not-kept', 'hook', webhook.url('/not-kept'));
  expect((await api.publish('not-kept', key, [event('n1')])).status).toBe(200);
  await eventually(() => webhook.requestsTo('/not-kept')[0], 10_000, 'the delivery of n1');
  expect(await recordsOf(await archiveOf('/admin/topics/not-kept', 'not-kept'))).toEqual([]);

  expect(
    (await api.call('PUT', '/admin/topics/switched', { properties: { archive: { retentionInDays: 5 } } }))
      .status,
  ).toBe(201);
  const off = await api.call('PUT', '/admin/topics/switched', { properties: { archive: null } });
  expect(off.status).toBe(200);
  expect(off.body.properties.archive).toBeNull();
  expect((await api.call('GET', '/admin/topics/switched')).body.properties.archive).toBeNull();
});

it('refuses an archive outside its limits, naming the field and the range', async () => {
  for (const archiveSetting of [
    { retentionInDays: 0 },
    { retentionInDays: 366 },
    { retentionInDays: 1.5 },
    { days: 3 },
  ]) {
    const refused = await api.call('PUT', '/admin/topics/badly-kept', {
      properties: { archive: archiveSetting },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/archive/);
    expect(JSON.stringify(refused.body)).toMatch(/1 and 365|1\.\.365/);
  }
});

it("sweeps away, through the dead-letter function, the archive of a topic deleted or no longer archived, and keeps the others'", async () => {
  const archiveTopic = async (name: string) => {
    expect(
      (await api.call('PUT', `/admin/topics/${name}`, { properties: { archive: { retentionInDays: 2 } } }))
        .status,
    ).toBe(201);
    const key = (await api.call('POST', `/admin/topics/${name}/listKeys`)).body.key1;
    const archived = await archiveOf(`/admin/topics/${name}`, name);
    expect((await api.publish(name, key, [event(`${name}-1`, 'Order.Shipped')])).status).toBe(200);
    await archivedEvents(archived, 1);
    return archived;
  };
  const [kept, turnedOff, deleted] = [
    await archiveTopic('sweep-kept'),
    await archiveTopic('sweep-off'),
    await archiveTopic('sweep-deleted'),
  ];
  expect((await api.call('PUT', '/admin/topics/sweep-off', { properties: {} })).status).toBe(200);
  expect((await api.call('DELETE', '/admin/topics/sweep-deleted')).status).toBe(200);

  await api.stack.sweepArchives();

  expect((await recordsOf(kept)).map(({ eventId }) => eventId)).toEqual(['sweep-kept-1']);
  expect(await recordsOf(turnedOff)).toEqual([]);
  expect(await recordsOf(deleted)).toEqual([]);
}, 40_000);

describe('the archive bucket on the emulator', () => {
  const record = (at: number, id: string): ArchivedRecord => ({
    publishedAt: at,
    publishId: `p-${id}`,
    index: 0,
    eventId: id,
    dataVersion: '1',
    event: JSON.stringify({ id }),
  });
  const topic: ArchivedTopic = { topic: 'shelf/books', createdAt: '2026-01-01T00:00:00.000Z' };
  const day = (n: number) => Date.parse('2026-02-01T00:00:00.000Z') + n * 24 * HOUR;

  it("gives a replay's page the segments written at the same time whose events overlap", async () => {
    const shelf: ArchivedTopic = { topic: 'shelf/overlap', createdAt: '2026-01-01T00:00:00.000Z' };
    const at = day(5) + 3 * HOUR;
    await archive.putSegment(shelf, [record(at, 'a0'), record(at + 10, 'a10')]);
    await archive.putSegment(shelf, [record(at + 5, 'b5'), record(at + 20, 'b20')]);
    await archive.putSegment(shelf, [record(at + 15, 'c15')]);
    await archive.putSegment(shelf, [record(at + 30, 'd30')]);
    const first = await archive.nextSegments(shelf, undefined, day(5), day(6), 8);
    expect(first.map(({ first: from, last }) => `${from - at}-${last - at}`)).toEqual([
      '0-10',
      '5-20',
      '15-15',
    ]);
    const second = await archive.nextSegments(shelf, first.at(-1)?.key, day(5), day(6), 8);
    expect(second.map(({ first: from }) => from - at)).toEqual([30]);
    // At most `limit` of them.
    expect(await archive.nextSegments(shelf, undefined, day(5), day(6), 2)).toHaveLength(2);
  });

  it('lists a range oldest first, expires whole days, and deletes an archive', async () => {
    await archive.putSegment(topic, [record(day(0) + HOUR, 'd0')]);
    await archive.putSegment(topic, [record(day(1) + 2 * HOUR, 'd1b'), record(day(1) + 2 * HOUR + 5, 'd1c')]);
    await archive.putSegment(topic, [record(day(1) + HOUR, 'd1a')]);
    await archive.putSegment(topic, [record(day(2) + HOUR, 'd2')]);

    const range = await archive.listSegments(topic, day(1), day(2));
    expect(range.map(({ first }) => first)).toEqual([day(1) + HOUR, day(1) + 2 * HOUR]);
    expect((await archive.readSegment(range[1]?.key ?? '')).map(({ eventId }) => eventId)).toEqual([
      'd1b',
      'd1c',
    ]);
    expect(await archive.listTopics()).toEqual(expect.arrayContaining([topic]));

    // A replay's pages: one segment after another, from where the last left off.
    const pages: string[] = [];
    for (let after: string | undefined; ; ) {
      const [next, ...more] = await archive.nextSegments(topic, after, day(1) + HOUR, day(2) + 2 * HOUR, 8);
      if (next === undefined) break;
      // None of these segments overlaps another: a page each.
      expect(more).toEqual([]);
      pages.push(...(await archive.readSegment(next.key)).map(({ eventId }) => eventId));
      after = next.key;
    }
    expect(pages).toEqual(['d1a', 'd1b', 'd1c', 'd2']);
    expect(await archive.nextSegments(topic, undefined, day(3), day(4), 8)).toEqual([]);

    // Before day 2 at noon: day 0 ended before it, day 1 did not.
    expect(await archive.deleteBefore(topic, day(1) + 12 * HOUR)).toBe(1);
    expect((await archive.listSegments(topic, day(0), day(3))).length).toBe(3);
    expect(await archive.deleteTopic(topic)).toBe(3);
    expect(await archive.listSegments(topic, day(0), day(3))).toEqual([]);
  });
});

describe('replays in the table', () => {
  it('are kept per subscription, move their cursor one page at a time, and end once', async () => {
    const replays = new DynamoReplayStore(api.stack.clients.dynamo, TABLE.localName);
    const now = new Date('2026-12-01T10:00:00.000Z');
    const replay: Replay = {
      id: 'r1',
      topic: 'shop/orders',
      topicCreatedAt: now.toISOString(),
      subscription: 'Billing',
      since: now.getTime() - HOUR,
      until: now.getTime(),
      state: 'Running',
      found: 0,
      queued: 0,
      delivered: 0,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await replays.put(replay);
    await replays.put({ ...replay, id: 'r2', createdAt: new Date(now.getTime() + 1).toISOString() });

    expect(await replays.advance(replay, undefined, { cursor: 'seg-1', found: 5, queued: 3 }, now)).toBe(
      true,
    );
    // A page worked again from where it started moves nothing.
    expect(await replays.advance(replay, undefined, { cursor: 'seg-1', found: 5, queued: 3 }, now)).toBe(
      false,
    );
    expect(await replays.advance(replay, 'seg-1', { cursor: 'seg-2', found: 2, queued: 2 }, now)).toBe(true);
    await replays.addDelivered('shop/orders', 'billing', 'r1', 4);
    expect(await replays.get('shop/orders', 'billing', 'r1')).toMatchObject({
      cursor: 'seg-2',
      found: 7,
      queued: 5,
      delivered: 4,
      state: 'Running',
    });

    expect(await replays.end(replay, 'Cancelled', now, 'cancelled by a DELETE')).toBe(true);
    expect(await replays.end(replay, 'Completed', now)).toBe(false);
    // A page that was running as it was cancelled still counts what it queued; its next page stops.
    expect(await replays.advance(replay, 'seg-2', { cursor: 'seg-3', found: 1, queued: 1 }, now)).toBe(true);
    expect(await replays.advance(replay, 'seg-2', { cursor: 'seg-3', found: 1, queued: 1 }, now)).toBe(false);
    expect((await replays.list('shop/orders', 'billing')).map(({ id, state }) => `${id}:${state}`)).toEqual([
      'r2:Running',
      'r1:Cancelled',
    ]);
  });
});

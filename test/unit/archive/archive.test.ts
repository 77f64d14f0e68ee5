/**
 * The archive's pieces without a network: a publish's copy packed and read back, its jobs to the
 * archive queue, the writer's segments (one per topic and hour), the segment layout, and the sweep.
 */
import { gzipSync } from 'node:zlib';
import { type ArchiveCopy, packArchiveCopy, unpackArchiveCopy } from '../../../shared/archive/copy';
import {
  archiveJobsOf,
  MAX_ARCHIVE_MESSAGE_COPY_BYTES,
  MAX_PACKED_COPY_BYTES,
  packCopyParts,
} from '../../../shared/archive/forward';
import { sweepArchives } from '../../../shared/archive/sweep';
import { ArchiveWriter, MAX_SEGMENT_EVENTS } from '../../../shared/archive/writer';
import { JOB_FORMAT_VERSION } from '../../../shared/domain/delivery';
import { silentLogger } from '../../../shared/observability/logging';
import { METRIC, MetricBuffer } from '../../../shared/observability/metrics';
import { parseJob } from '../../../shared/queue/job-codec';
import {
  type ArchivedRecord,
  parseSegment,
  recordLine,
  segmentKey,
  segmentRange,
  topicPrefix,
} from '../../../shared/storage/archive';
import { MemoryArchive } from '../../support/memory-stores';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CREATED = '2026-01-01T00:00:00.000Z';
const T0 = Date.parse('2026-03-10T10:15:00.000Z');

const copyOf = (
  topic: string,
  publishId: string,
  publishedAt: number,
  ids: readonly string[],
): ArchiveCopy => ({
  topic,
  topicCreatedAt: CREATED,
  publishId,
  publishedAt,
  events: ids.map((id, index) => ({
    index,
    eventId: id,
    dataVersion: '1',
    json: JSON.stringify({ id, n: index }),
  })),
});

const jobOf = (copies: readonly ArchiveCopy[]) => {
  const [job] = archiveJobsOf(
    copies.map((copy) => ({ topic: { name: copy.topic }, copy: packArchiveCopy(copy).toString('base64') })),
  );
  if (job === undefined) throw new Error('no job');
  const parsed = parseJob(job.body);
  if (parsed.kind !== 'archive') throw new Error('not an archive job');
  return parsed;
};

describe('an archive copy', () => {
  it('is read back as it was packed', () => {
    const copy = {
      ...copyOf('orders', 'p1', T0, ['a', 'b']),
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    expect(unpackArchiveCopy(packArchiveCopy(copy))).toEqual(copy);
  });

  it('names what is wrong when it is not gzip or not a copy', () => {
    expect(() => unpackArchiveCopy(Buffer.from('plain'))).toThrow(/not gzipped JSON/);
    expect(() => unpackArchiveCopy(gzipSync(JSON.stringify({ topic: 'x' })))).toThrow(
      /malformed: .*publishId/,
    );
  });

  it('is cut by events into parts under the packed limit when it compresses badly', () => {
    // Random text compresses little: 6 events of 300 KiB each are about 2.4 MB packed.
    const random = () =>
      Buffer.from(Array.from({ length: 225 * 1024 }, () => Math.floor(Math.random() * 256))).toString(
        'base64',
      );
    const copy: ArchiveCopy = {
      ...copyOf('big', 'p1', T0, []),
      events: Array.from({ length: 6 }, (_, index) => ({
        index,
        eventId: `e${index}`,
        dataVersion: '1',
        json: JSON.stringify(random()),
      })),
    };
    const parts = packCopyParts(copy);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.byteLength).toBeLessThanOrEqual(MAX_PACKED_COPY_BYTES);
    const events = parts.flatMap((part) => unpackArchiveCopy(part).events.map(({ index }) => index));
    expect(events).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('archive jobs', () => {
  it('carry one topic each, as many copies as fit, in the topic group', () => {
    const big = 'x'.repeat(400 * 1024);
    const jobs = archiveJobsOf([
      { topic: { name: 'orders' }, copy: big },
      { topic: { namespace: 'shop', name: 'carts' }, copy: 'c1' },
      { topic: { name: 'Orders' }, copy: big },
      { topic: { name: 'orders' }, copy: big },
    ]);
    const read = jobs.map((job) => ({ group: job.groupId, job: parseJob(job.body) }));
    expect(read.map(({ job }) => (job.kind === 'archive' ? job.copies.length : 0))).toEqual([2, 1, 1]);
    expect(read.map(({ group }) => group)).toEqual(['orders/*', 'orders/*', 'shop/carts/*']);
    for (const job of jobs)
      expect(Buffer.byteLength(job.body)).toBeLessThanOrEqual(MAX_ARCHIVE_MESSAGE_COPY_BYTES + 200);
    expect(read[0]?.job).toMatchObject({ v: JOB_FORMAT_VERSION, kind: 'archive', topic: { name: 'orders' } });
  });
});

describe('the segment layout', () => {
  it('keys a segment by topic, creation, hour and time range, and reads its range back', () => {
    const key = segmentKey({ topic: 'Shop/Carts', createdAt: CREATED }, T0, T0 + 1000, 'id1');
    expect(key).toBe(
      `archive/shop%2Fcarts/${Date.parse(CREATED)}/2026/03/10/10/${T0}-${T0 + 1000}-id1.jsonl.gz`,
    );
    expect(segmentRange(key)).toEqual({ first: T0, last: T0 + 1000 });
    expect(key.startsWith(topicPrefix({ topic: 'shop/carts', createdAt: CREATED }))).toBe(true);
    expect(() => segmentKey({ topic: 't', createdAt: CREATED }, T0, T0 + HOUR)).toThrow(/one hour/);
  });

  it('keeps each event as sent, byte for byte', () => {
    const event = '{"id":"a","data":{"price":1.50,"name":"caf\\u00e9","nested":{"k":[1,2]}}}';
    const record: ArchivedRecord = {
      publishedAt: T0,
      publishId: 'p',
      index: 0,
      eventId: 'a',
      dataVersion: '1',
      event,
    };
    const [read] = parseSegment(`${recordLine(record)}\n`);
    expect(read).toEqual(record);
  });

  it('names the line that is not an archived event', () => {
    expect(() => parseSegment('{"publishedAt":1}\n', 'k')).toThrow(/line 1 of k is not an archived event/);
    expect(() => parseSegment('\n{', 'k')).toThrow(/line 2 of k is not JSON/);
  });
});

describe('the archive writer', () => {
  const setup = () => {
    const store = new MemoryArchive();
    const metrics = new MetricBuffer();
    return { store, metrics, writer: new ArchiveWriter({ store, metrics, logger: silentLogger }) };
  };

  it('writes the batch as one segment per topic and hour, in publish order', async () => {
    const { store, metrics, writer } = setup();
    const report = await writer.writeArchive([
      jobOf([copyOf('orders', 'p2', T0 + 500, ['c']), copyOf('orders', 'p1', T0, ['a', 'b'])]),
      jobOf([copyOf('orders', 'p3', T0 + HOUR, ['d'])]),
      jobOf([copyOf('carts', 'p4', T0, ['e'])]),
    ]);
    expect(report.outcomes.map(({ kind }) => kind)).toEqual(['done', 'done', 'done']);
    expect(report).toMatchObject({ events: 5, segments: 3 });
    const orders = await store.listSegments({ topic: 'orders', createdAt: CREATED }, T0, T0 + 2 * HOUR);
    expect(orders.map(({ first, last }) => [first, last])).toEqual([
      [T0, T0 + 500],
      [T0 + HOUR, T0 + HOUR],
    ]);
    const first = await store.readSegment(orders[0]?.key ?? '');
    expect(first.map(({ eventId, publishId, index }) => `${publishId}.${index}:${eventId}`)).toEqual([
      'p1.0:a',
      'p1.1:b',
      'p2.0:c',
    ]);
    const archived = metrics.drain().filter(({ name }) => name === METRIC.ArchivedEventCount);
    expect(archived.map(({ dimensions, values }) => [dimensions.Topic, values[0]])).toEqual(
      expect.arrayContaining([
        ['orders', 4],
        ['carts', 1],
      ]),
    );
  });

  it('cuts a group larger than a segment holds into several', async () => {
    const { store, writer } = setup();
    const ids = Array.from({ length: MAX_SEGMENT_EVENTS + 5 }, (_, index) => `e${index}`);
    const report = await writer.writeArchive([jobOf([copyOf('orders', 'p1', T0, ids)])]);
    expect(report).toMatchObject({ events: ids.length, segments: 2 });
    expect(store.segments.size).toBe(2);
  });

  it('gives back the jobs whose segment could not be written, and parks a copy that is not one', async () => {
    const { store, writer } = setup();
    store.failWrites = 'SlowDown';
    const broken = { ...jobOf([copyOf('orders', 'p1', T0, ['a'])]), copies: ['bm90IGd6aXA='] };
    const report = await writer.writeArchive([jobOf([copyOf('orders', 'p1', T0, ['a'])]), broken]);
    expect(report.outcomes[0]).toEqual({ kind: 'retryLater', reason: expect.stringMatching(/SlowDown/) });
    expect(report.outcomes[1]).toEqual({ kind: 'poison', reason: expect.stringMatching(/not gzipped JSON/) });
    expect(report.events).toBe(0);
  });
});

describe('the archive sweep', () => {
  const topics = new Map<string, { createdAt: string; archive?: { retentionInDays: number } }>();
  const deps = (store: MemoryArchive, now: number) => ({
    archive: store,
    getTopic: async (name: string) => topics.get(name.toLowerCase()),
    getNamespaceTopic: async (namespace: string, name: string) =>
      topics.get(`${namespace}/${name}`.toLowerCase()),
    now: () => now,
  });

  it('removes the days past retention, and the archives no topic keeps', async () => {
    const store = new MemoryArchive();
    topics.clear();
    topics.set('orders', { createdAt: CREATED, archive: { retentionInDays: 2 } });
    topics.set('shop/carts', { createdAt: CREATED, archive: { retentionInDays: 30 } });
    topics.set('quiet', { createdAt: CREATED }); // archive turned off
    topics.set('again', { createdAt: '2026-03-01T00:00:00.000Z', archive: { retentionInDays: 7 } }); // made again
    const record = (at: number): ArchivedRecord => ({
      publishedAt: at,
      publishId: 'p',
      index: 0,
      eventId: 'e',
      dataVersion: '1',
      event: '{}',
    });
    const day = (n: number) => Date.parse('2026-03-10T00:00:00.000Z') + n * DAY + HOUR;
    for (const n of [0, 1, 2, 3])
      await store.putSegment({ topic: 'orders', createdAt: CREATED }, [record(day(n))]);
    await store.putSegment({ topic: 'shop/carts', createdAt: CREATED }, [record(day(0))]);
    await store.putSegment({ topic: 'quiet', createdAt: CREATED }, [record(day(3))]);
    await store.putSegment({ topic: 'again', createdAt: CREATED }, [record(day(3))]);
    await store.putSegment({ topic: 'gone', createdAt: CREATED }, [record(day(3))]);

    // Day 4, 12:00: orders keeps 2 days, so days 0 and 1 (ended before day 2, 12:00) go.
    const report = await sweepArchives(deps(store, day(4) + 11 * HOUR));

    expect(report).toEqual({ archives: 5, expired: 2, orphaned: 3 });
    const left = [...store.segments.values()].map(
      ({ topic, records }) => `${topic.topic}@${(records[0]?.publishedAt ?? 0) - day(0)}`,
    );
    expect(left.sort()).toEqual([`orders@${2 * DAY}`, `orders@${3 * DAY}`, 'shop/carts@0'].sort());
  });
});

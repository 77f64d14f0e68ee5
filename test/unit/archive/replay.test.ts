/**
 * A replay's pages over the in-memory archive and replay store: one segment a page, in order,
 * each event once, through the replay's types and the subscription's filter; the cursor moves
 * only from where a page started, so a second copy of a page stops; a cancelled replay and one
 * whose subscription is gone stop; and a part queued twice is worked once by the delivery step.
 */
import { type ReplayPageReport, ReplayPages, type ReplayTarget } from '../../../shared/archive/replay';
import { runJobs } from '../../../shared/delivery/job-registry';
import { JOB_FORMAT_VERSION, type ReplayPageJob } from '../../../shared/domain/delivery';
import { type Replay, replayDeliveryId, replayIdOfDelivery } from '../../../shared/domain/replays';
import { silentLogger } from '../../../shared/observability/logging';
import { parseJob } from '../../../shared/queue/job-codec';
import type { ArchivedRecord } from '../../../shared/storage/archive';
import { deliveryTarget, RecordingQueue, VirtualClock } from '../../support/fakes';
import { MemoryArchive, MemoryReplaySends, MemoryReplayStore } from '../../support/memory-stores';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-12-01T08:00:00.000Z');
const CREATED = '2026-11-01T00:00:00.000Z';
const topic = { topic: 'orders', createdAt: CREATED };
const job: ReplayPageJob = {
  v: JOB_FORMAT_VERSION,
  kind: 'replay-page',
  topic: { name: 'orders' },
  subscription: 'audit',
  replayId: 'rp-1',
};

const record = (at: number, publishId: string, index: number, type = 'Order.Created'): ArchivedRecord => ({
  publishedAt: at,
  publishId,
  index,
  eventId: `${publishId}-${index}`,
  dataVersion: '1',
  event: JSON.stringify({ id: `${publishId}-${index}`, eventType: type, subject: `orders/${index}` }),
});

function setup(options: { target?: Partial<ReplayTarget>; replay?: Partial<Replay> } = {}) {
  const clock = new VirtualClock(T0 + 5 * HOUR);
  const archive = new MemoryArchive();
  const replays = new MemoryReplayStore();
  const queue = new RecordingQueue(clock);
  let gone = false;
  const target: ReplayTarget = {
    target: deliveryTarget({ uid: 'u-1' }),
    matches: () => true,
    ...options.target,
  };
  const pages = new ReplayPages({
    replays,
    archive,
    subscription: async () => (gone ? undefined : target),
    queue,
    clock,
    logger: silentLogger,
  });
  const replay: Replay = {
    id: 'rp-1',
    topic: 'orders',
    topicCreatedAt: CREATED,
    subscription: 'audit',
    subscriptionUid: 'u-1',
    since: T0,
    until: T0 + 3 * HOUR,
    state: 'Running',
    found: 0,
    queued: 0,
    delivered: 0,
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
    ...options.replay,
  };
  const goneNow = () => {
    gone = true;
  };
  return { clock, archive, replays, queue, pages, replay, goneNow };
}

/** Runs pages until one says the replay is over; answers each page's report. */
async function runAll(pages: ReplayPages): Promise<ReplayPageReport[]> {
  const reports: ReplayPageReport[] = [];
  for (let page = 0; page < 20; page++) {
    const report = await pages.runPage(job);
    reports.push(report);
    if (report.state !== 'Running') return reports;
  }
  throw new Error('the replay did not end');
}

const deliveredIds = (queue: RecordingQueue) =>
  queue.sent.flatMap(({ job: sent }) => {
    const parsed = parseJob(sent.body);
    return 'items' in parsed ? parsed.items.map(({ eventId }) => eventId) : [];
  });

describe('a replay’s pages', () => {
  it('go through the range a segment a page, each event once, and end the replay', async () => {
    const { archive, replays, queue, pages, replay } = setup();
    await replays.put(replay);
    await archive.putSegment(topic, [record(T0 - 1, 'p0', 0)]); // before the range
    await archive.putSegment(topic, [record(T0 + 10, 'p1', 0), record(T0 + 10, 'p1', 1, 'Order.Shipped')]);
    // The same copy forwarded twice is in the archive twice.
    await archive.putSegment(topic, [record(T0 + HOUR, 'p2', 0), record(T0 + HOUR, 'p2', 0)]);
    await archive.putSegment(topic, [record(T0 + 4 * HOUR, 'p3', 0)]); // after it

    const reports = await runAll(pages);

    expect(reports.map(({ state, queued }) => `${state}:${queued}`)).toEqual([
      'Running:2',
      'Running:1',
      'Completed:0',
    ]);
    expect(deliveredIds(queue)).toEqual(['p1-0', 'p1-1', 'p2-0']);
    expect(await replays.get('orders', 'audit', 'rp-1')).toMatchObject({
      state: 'Completed',
      found: 4,
      queued: 3,
    });
    const first = parseJob(queue.sent[0]?.job.body ?? '');
    expect(first).toMatchObject({ replayChunk: expect.stringMatching(/^rp-1:[\w-]{22}:0$/) });
    expect('items' in first && first.items[0]).toMatchObject({
      attempts: 0,
      replayOf: 'archive',
      publishedAt: T0 + 5 * HOUR,
    });
  });

  it("keep to the replay's event types and the subscription's filter", async () => {
    const { archive, replays, queue, pages, replay } = setup({
      target: { matches: (json) => !json.includes('orders/2') },
      replay: { eventTypes: ['order.created'] },
    });
    await replays.put(replay);
    await archive.putSegment(topic, [
      record(T0 + 1, 'p1', 0),
      record(T0 + 1, 'p1', 1, 'Order.Shipped'),
      record(T0 + 1, 'p1', 2),
    ]);
    await runAll(pages);
    expect(deliveredIds(queue)).toEqual(['p1-0']);
  });

  it('stop at a second copy of a page: the cursor moves once, and the parts it queued again are dropped when received', async () => {
    const { archive, replays, queue, pages, replay } = setup();
    await replays.put(replay);
    await archive.putSegment(topic, [record(T0 + 1, 'p1', 0)]);
    await archive.putSegment(topic, [record(T0 + HOUR, 'p2', 0)]);
    // A page that died after queueing its events, before moving the cursor: worked again.
    const moveOnce = replays.advance.bind(replays);
    let failed = false;
    replays.advance = async (...args) => {
      if (!failed) {
        failed = true;
        throw new Error('the table went away');
      }
      return moveOnce(...args);
    };
    await expect(pages.runPage(job)).rejects.toThrow(/went away/);
    await runAll(pages);
    const parts = queue.sent.filter(({ job: sent }) => parseJob(sent.body).kind !== 'replay-page');
    // p1's part was queued twice, under one name.
    expect(deliveredIds(queue)).toEqual(['p1-0', 'p1-0', 'p2-0']);
    const names = parts.map(({ job: sent }) => (parseJob(sent.body) as { replayChunk?: string }).replayChunk);
    expect(names[0]).toBe(names[1]);

    // Received in two messages, the part is worked once.
    const sends = new MemoryReplaySends();
    const worked: string[] = [];
    const worker = {
      firstCopies: async (jobs: readonly unknown[], ids: readonly string[]) =>
        Promise.all(
          jobs.map((one, index) =>
            sends.firstCopy((one as { replayChunk: string }).replayChunk, ids[index] ?? '', 0),
          ),
        ),
      deliverTogether: async (jobs: readonly { items: { eventId: string }[] }[]) => {
        worked.push(...jobs.flatMap(({ items }) => items.map(({ eventId }) => eventId)));
        return jobs.map(() => ({
          ok: true as const,
          report: {
            hopped: false,
            delivered: 1,
            retried: 0,
            ended: 0,
            deferred: 0,
            held: 0,
            queued: 0,
            stored: 0,
          },
        }));
      },
    };
    const twice = parts.slice(0, 2).map(({ job: sent }) => parseJob(sent.body));
    const outcomes = await runJobs('delivery', twice, {
      worker: worker as never,
      options: {
        attemptDeadline: Number.POSITIVE_INFINITY,
        listenUntil: Number.POSITIVE_INFINITY,
        listens: [],
      },
      messageIds: ['m-1', 'm-2'],
      received: [],
    });
    expect(worked).toEqual(['p1-0']);
    expect(outcomes.map(({ kind }) => kind)).toEqual(['done', 'done']);
    // The first message received again (its invocation failed) is worked again.
    expect(await sends.firstCopy(names[0] ?? '', 'm-1', 0)).toBe(true);
  });

  it('do nothing for a cancelled replay, and fail one whose subscription is gone', async () => {
    const cancelled = setup({ replay: { state: 'Cancelled' } });
    await cancelled.replays.put(cancelled.replay);
    await cancelled.archive.putSegment(topic, [record(T0 + 1, 'p1', 0)]);
    expect(await cancelled.pages.runPage(job)).toMatchObject({ state: 'Cancelled', queued: 0 });
    expect(cancelled.queue.sent).toEqual([]);

    const orphan = setup();
    await orphan.replays.put(orphan.replay);
    orphan.goneNow();
    expect(await orphan.pages.runPage(job)).toMatchObject({ state: 'Failed' });
    expect(await orphan.replays.get('orders', 'audit', 'rp-1')).toMatchObject({
      state: 'Failed',
      reason: 'the subscription was deleted',
    });
  });

  it("send an ordered subscription's events per key, in the archive's order", async () => {
    const { archive, replays, queue, pages, replay } = setup({
      target: { orderedKeyOf: (item) => JSON.parse(item.eventJson).subject },
    });
    await replays.put(replay);
    await archive.putSegment(topic, [
      record(T0 + 1, 'p1', 0),
      record(T0 + 1, 'p1', 1),
      record(T0 + 2, 'p2', 0),
    ]);
    await runAll(pages);
    const ordered = queue.sent
      .filter(({ queue: name }) => name === 'ordered')
      .map(({ job: sent }) => parseJob(sent.body));
    expect(
      ordered.map((one) =>
        one.kind === 'ordered' ? `${one.key}:${one.items.map(({ eventId }) => eventId).join(',')}` : '',
      ),
    ).toEqual(['orders/0:p1-0,p2-0', 'orders/1:p1-1']);
    expect(
      queue.sent
        .filter(({ queue: name }) => name === 'ordered')
        .every(({ job: sent }) => sent.deduplicationId !== undefined),
    ).toBe(true);
  });

  it('merge the segments two writers wrote at the same time, so an ordered key keeps its publish order', async () => {
    const { archive, replays, queue, pages, replay } = setup({
      target: { orderedKeyOf: (item) => JSON.parse(item.eventJson).subject },
    });
    await replays.put(replay);
    // Two writers' segments of the same minutes: p1 and p3 in one, p2 and p4 in the other.
    await archive.putSegment(topic, [record(T0 + 1, 'p1', 0), record(T0 + 3, 'p3', 0)]);
    await archive.putSegment(topic, [record(T0 + 2, 'p2', 0), record(T0 + 4, 'p4', 0)]);
    await archive.putSegment(topic, [record(T0 + HOUR, 'p5', 0)]);
    const reports = await runAll(pages);
    // One page for the two overlapping segments, one for the next, and the end.
    expect(reports.map(({ found }) => found)).toEqual([4, 1, 0]);
    const keyed = queue.sent
      .filter(({ queue: name }) => name === 'ordered')
      .map(({ job: sent }) => parseJob(sent.body))
      .flatMap((one) => (one.kind === 'ordered' ? one.items.map(({ eventId }) => eventId) : []));
    expect(keyed).toEqual(['p1-0', 'p2-0', 'p3-0', 'p4-0', 'p5-0']);
  });
});

describe("a replayed event's delivery id", () => {
  it.each([
    ['rp-1', 'pub-a', 0],
    ['rp-8f1c2e4a-0b1d-4c3e-9f00-1234567890ab', 'a.b.c', 17],
  ])('names its replay %s, whatever the publish id', (replayId, publishId, index) => {
    const deliveryId = replayDeliveryId(replayId, publishId, index);
    expect(deliveryId).toBe(`${replayId}.${publishId}.${index}`);
    expect(replayIdOfDelivery(deliveryId)).toBe(replayId);
  });
});

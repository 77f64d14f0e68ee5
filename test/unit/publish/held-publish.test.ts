/**
 * Publishing to a held subscription: while a subscription's backlog holds its unhealthy endpoint's
 * events (its held mark is set), a publish that goes to it alone is sent straight to the backlog
 * queue as a `store` job, due now, instead of taking the delivery queue only to be stored there.
 * The marks are read with the subscription list, once per subscription-list version.
 */
import { silentLogger } from '../../../shared/observability/logging';
import { MetricBuffer } from '../../../shared/observability/metrics';
import { Publisher } from '../../../shared/publish/publisher';
import { parseJob } from '../../../shared/queue/job-codec';
import type { HeldMarks } from '../../../shared/storage/held-marks';
import { publishingStore } from '../../../shared/storage/store';
import { publishedEvent as event, RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { MemoryAcceptedIds, memoryStores } from '../../support/memory-stores';

const TOPIC = 'orders';

async function setup(options: { diverts?: boolean } = {}) {
  const clock = new VirtualClock(Date.parse('2026-03-01T00:00:00Z'));
  const queue = new RecordingQueue(clock);
  const stores = memoryStores();
  const { resource } = await stores.topics.create(
    TOPIC,
    { inputSchema: 'EventGridSchema', tags: {} },
    new Date(clock.now()),
  );
  const listed = { held: 0 };
  const held: Pick<HeldMarks, 'list'> = {
    list: (topic) => {
      listed.held += 1;
      return stores.heldMarks.list(topic);
    },
  };
  let ids = 0;
  const publisher = new Publisher({
    store: publishingStore(stores),
    queue,
    acceptedIds: new MemoryAcceptedIds(),
    fanOuts: queue.fanOuts,
    clock,
    metrics: new MetricBuffer(),
    logger: silentLogger,
    newId: () => `pub-${++ids}`,
    topicCacheMs: 1_000,
    ...(options.diverts === false ? {} : { held }),
  });
  const publish = (events: unknown[]) =>
    publisher.publish({
      topic: TOPIC,
      credential: { kind: 'key', key: resource.keys.key1 },
      path: `/topics/${TOPIC}/api/events`,
      body: Buffer.from(JSON.stringify(events)),
    });
  const subscribe = (name: string, uid: string, filter = {}) =>
    stores.subscriptions.put(subscription({ topic: TOPIC, name, uid, filter }), undefined);
  /** The queue each message went to and what kind of job it carries; forgets them. */
  const sent = () =>
    queue.sent.splice(0).map((entry) => {
      const job = parseJob(entry.job.body);
      return { queue: entry.queue, job };
    });
  return { clock, stores, publish, subscribe, sent, listed };
}

describe('publishing to a held subscription', () => {
  it('sends a publish that goes to the held subscription alone to its backlog, due now, as it was published', async () => {
    const { clock, stores, publish, subscribe, sent } = await setup();
    await subscribe('audit', 'uid-1');
    await stores.heldMarks.set({ topic: TOPIC, subscription: 'audit', uid: 'uid-1' }, true, clock.now());

    const result = await publish([event('e1'), event('e2')]);

    expect(result).toEqual({ accepted: 2, matchedSubscriptions: 1, messages: 1 });
    const [only, ...rest] = sent();
    expect(rest).toEqual([]);
    expect(only?.queue).toBe('backlog');
    expect(only?.job).toMatchObject({
      kind: 'store',
      heldBy: 'probation',
      dueAt: clock.now(),
      target: { subscription: 'audit', uid: 'uid-1' },
    });
    const job = only?.job as { items: Array<{ eventId: string; attempts: number; publishedAt: number }> };
    expect(job.items.map(({ eventId, attempts, publishedAt }) => [eventId, attempts, publishedAt])).toEqual([
      ['e1', 0, clock.now()],
      ['e2', 0, clock.now()],
    ]);
  });

  it('keeps the delivery queue for a fan-out to several subscriptions, one of them held (its worker stores that part)', async () => {
    const { clock, stores, publish, subscribe, sent } = await setup();
    await subscribe('audit', 'uid-1');
    await subscribe('billing', 'uid-2');
    await stores.heldMarks.set({ topic: TOPIC, subscription: 'audit', uid: 'uid-1' }, true, clock.now());

    await publish([event('e1')]);

    expect(sent().map((entry) => [entry.queue, entry.job.kind ?? 'delivery'])).toEqual([
      ['delivery', 'fanout'],
    ]);
  });

  it('sends to the held subscription alone when the filters leave the others out of this publish', async () => {
    const { clock, stores, publish, subscribe, sent } = await setup();
    await subscribe('audit', 'uid-1', { includedEventTypes: ['Order.Created'] });
    await subscribe('billing', 'uid-2', { includedEventTypes: ['Order.Paid'] });
    await stores.heldMarks.set({ topic: TOPIC, subscription: 'audit', uid: 'uid-1' }, true, clock.now());

    await publish([event('e1', 'Order.Created')]);
    await publish([event('e2', 'Order.Paid')]);
    await publish([event('e3', 'Order.Created'), event('e4', 'Order.Paid')]);

    expect(sent().map((entry) => [entry.queue, entry.job.kind ?? 'delivery'])).toEqual([
      ['backlog', 'store'],
      ['delivery', 'delivery'],
      ['delivery', 'fanout'],
    ]);
  });

  it('ignores a mark left for an older subscription of the same name (another uid)', async () => {
    const { clock, stores, publish, subscribe, sent } = await setup();
    await stores.heldMarks.set({ topic: TOPIC, subscription: 'audit', uid: 'uid-old' }, true, clock.now());
    await subscribe('audit', 'uid-new');

    await publish([event('e1')]);

    expect(sent().map((entry) => entry.queue)).toEqual(['delivery']);
  });

  it('takes the delivery queue as before once the mark is removed, seen at the next read of the topic', async () => {
    const { clock, stores, publish, subscribe, sent, listed } = await setup();
    await subscribe('audit', 'uid-1');
    const mark = { topic: TOPIC, subscription: 'audit', uid: 'uid-1' };
    await stores.heldMarks.set(mark, true, clock.now());
    await publish([event('e1')]);
    await publish([event('e2')]);
    expect(listed.held).toBe(1);

    await stores.heldMarks.set(mark, false, clock.now());
    // The topic (and its subscription-list version) is trusted for a second without a read.
    await publish([event('e3')]);
    clock.advance(1_001);
    await publish([event('e4')]);

    expect(sent().map((entry) => entry.queue)).toEqual(['backlog', 'backlog', 'backlog', 'delivery']);
    expect(listed.held).toBe(2);
  });

  it('reads no marks and sends nothing to the backlog when events are not routed into backlogs', async () => {
    const { clock, stores, publish, subscribe, sent, listed } = await setup({ diverts: false });
    await subscribe('audit', 'uid-1');
    await stores.heldMarks.set({ topic: TOPIC, subscription: 'audit', uid: 'uid-1' }, true, clock.now());

    await publish([event('e1')]);

    expect(sent().map((entry) => entry.queue)).toEqual(['delivery']);
    expect(listed.held).toBe(0);
  });
});

/**
 * A publish to a topic with an archive: its copy of the accepted events rides on the publish's one
 * unordered message, or, when there is none or it does not fit, is sent to the archive queue after
 * it; repeats are not kept; a copy that cannot be sent is counted, and the publish still answers.
 */
import { randomBytes } from 'node:crypto';
import { unpackArchiveCopy } from '../../../shared/archive/copy';
import { SQS_LIMITS } from '../../../shared/config/resources';
import type { Subscription } from '../../../shared/domain/model';
import { silentLogger } from '../../../shared/observability/logging';
import { METRIC, MetricBuffer } from '../../../shared/observability/metrics';
import { Publisher } from '../../../shared/publish/publisher';
import { parseJob } from '../../../shared/queue/job-codec';
import { outgoingBytes } from '../../../shared/queue/sqs-job-queue';
import { RecordingQueue, subscription, topicFixture, VirtualClock } from '../../support/fakes';
import { MemoryAcceptedIds } from '../../support/memory-stores';

function setup(subscriptions: Subscription[], topic = topicFixture({ archive: { retentionInDays: 7 } })) {
  const clock = new VirtualClock(Date.parse('2026-12-01T10:00:00.000Z'));
  const queue = new RecordingQueue(clock);
  const metrics = new MetricBuffer();
  let ids = 0;
  const publisher = new Publisher({
    store: {
      getTopic: async () => topic,
      getNamespace: async () => undefined,
      getNamespaceTopic: async () => undefined,
      listSubscriptions: async () => subscriptions,
    },
    queue,
    acceptedIds: new MemoryAcceptedIds(),
    fanOuts: queue.fanOuts,
    clock,
    metrics,
    logger: silentLogger,
    newId: () => `pub-${++ids}`,
    topicCacheMs: 0,
  });
  const publish = (events: unknown[]) =>
    publisher.publish({
      topic: 'orders',
      credential: { kind: 'key', key: 'key-one' },
      path: '/topics/orders/api/events',
      body: Buffer.from(JSON.stringify(events)),
    });
  return { publish, queue, metrics, clock };
}

const event = (id: string, eventType = 'Order.Created', data: unknown = {}) => ({
  id,
  subject: `orders/${id}`,
  eventType,
  eventTime: '2026-12-01T10:00:00Z',
  data,
});

/** The copies the publish sent: on its messages and as archive jobs, read back. */
function copiesOf(queue: RecordingQueue) {
  return queue.sent.flatMap(({ queue: name, job }) => {
    if (job.archiveCopy !== undefined) return [{ via: name, copy: unpackArchiveCopy(job.archiveCopy) }];
    const parsed = parseJob(job.body);
    return parsed.kind === 'archive'
      ? parsed.copies.map((packed) => ({
          via: 'archive job',
          copy: unpackArchiveCopy(Buffer.from(packed, 'base64')),
        }))
      : [];
  });
}

const createdOnly = subscription({ filter: { includedEventTypes: ['Order.Created'] } });

describe('publishing to a topic with an archive', () => {
  it('carries the copy of every accepted event, matched or not, on the publish’s one message', async () => {
    const { publish, queue, clock } = setup([createdOnly]);
    await publish([event('a'), event('b', 'Order.Shipped')]);
    expect(queue.sent.map(({ queue: name }) => name)).toEqual(['delivery']);
    const [carried] = copiesOf(queue);
    expect(carried?.via).toBe('delivery');
    expect(carried?.copy).toMatchObject({
      topic: 'orders',
      topicCreatedAt: '2026-01-01T00:00:00.000Z',
      publishId: 'pub-1',
      publishedAt: clock.now(),
    });
    expect(carried?.copy.events.map(({ index, eventId }) => [index, eventId])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
    // The copy holds each event as it is sent (the topic stamped in).
    expect(JSON.parse(carried?.copy.events[1]?.json ?? '{}')).toMatchObject({
      id: 'b',
      topic: expect.stringMatching(/orders$/),
    });
  });

  it('sends the copy to the archive queue when nothing matched, or only ordered subscriptions did', async () => {
    const unmatched = setup([createdOnly]);
    await unmatched.publish([event('s', 'Order.Shipped')]);
    expect(unmatched.queue.sent.map(({ queue: name }) => name)).toEqual(['archive']);
    expect(
      copiesOf(unmatched.queue).map(({ via, copy }) => [via, copy.events.map(({ eventId }) => eventId)]),
    ).toEqual([['archive job', ['s']]]);

    const ordered = setup([subscription({ orderedDelivery: { key: 'subject' } })]);
    await ordered.publish([event('o1'), event('o2')]);
    // The ordered messages first, then the copy: none rides on a FIFO message.
    expect(ordered.queue.sent.map(({ queue: name }) => name)).toEqual(['ordered', 'ordered', 'archive']);
    expect(ordered.queue.sent.filter(({ job }) => job.archiveCopy !== undefined)).toEqual([]);
  });

  it('sends the copy apart when it does not fit beside the message', async () => {
    // Incompressible data of about 600 KB: the message and its copy would pass 1 MiB together.
    const noise = randomBytes(450 * 1024).toString('base64');
    const { publish, queue } = setup([subscription()]);
    await publish([event('big', 'Order.Created', { noise })]);
    const carriedOn = queue.sent.filter(({ job }) => job.archiveCopy !== undefined);
    const sizes = queue.sent.map(({ job }) => outgoingBytes(job));
    for (const size of sizes) expect(size).toBeLessThanOrEqual(SQS_LIMITS.maxMessageBytes);
    expect(carriedOn).toEqual([]);
    expect(copiesOf(queue).map(({ via, copy }) => [via, copy.events.length])).toEqual([['archive job', 1]]);
  });

  it('keeps no copy of the repeats a de-duplication window answered', async () => {
    const { publish, queue } = setup(
      [subscription()],
      topicFixture({ archive: { retentionInDays: 7 }, deduplicationWindowInMinutes: 10 }),
    );
    await publish([event('a'), event('a'), event('b')]);
    expect(
      copiesOf(queue).flatMap(({ copy }) => copy.events.map(({ index, eventId }) => `${index}:${eventId}`)),
    ).toEqual(['0:a', '2:b']);
  });

  it('answers the publish when the copy cannot be sent, counting its events as missed', async () => {
    const { publish, queue, metrics } = setup([createdOnly]);
    queue.failing.set('archive', new Error('the archive queue is throttling'));
    const result = await publish([event('x', 'Order.Shipped'), event('y', 'Order.Shipped')]);
    expect(result).toMatchObject({ accepted: 2 });
    const missed = metrics.drain().filter(({ name }) => name === METRIC.ArchiveMissedCount);
    expect(missed.map(({ dimensions, values }) => [dimensions.Topic, values[0]])).toEqual([
      [undefined, 2],
      ['orders', 2],
    ]);
  });

  it('keeps nothing of a topic without an archive', async () => {
    const { publish, queue } = setup([createdOnly], topicFixture());
    await publish([event('a'), event('b', 'Order.Shipped')]);
    expect(queue.sent.map(({ queue: name }) => name)).toEqual(['delivery']);
    expect(copiesOf(queue)).toEqual([]);
  });
});

import { silentLogger } from '../../../shared/observability/logging';
import { MetricBuffer } from '../../../shared/observability/metrics';
import { Publisher } from '../../../shared/publish/publisher';
import { orderedGroupId, parseJob } from '../../../shared/queue/job-codec';
import {
  deliveryTarget,
  RecordingQueue,
  subscription,
  topicFixture,
  VirtualClock,
} from '../../support/fakes';
import { MemoryAcceptedIds } from '../../support/memory-stores';

function setup(subscriptions = [subscription({ orderedDelivery: { key: 'subject' } })]) {
  const clock = new VirtualClock();
  const queue = new RecordingQueue(clock);
  const order: string[] = [];
  const send = queue.send.bind(queue);
  queue.send = async (name, jobs) => {
    if (jobs.length > 0) order.push(name);
    return send(name, jobs);
  };
  let ids = 0;
  const publisher = new Publisher({
    store: {
      getTopic: async () => topicFixture(),
      getNamespace: async () => undefined,
      getNamespaceTopic: async () => undefined,
      listSubscriptions: async () => subscriptions,
    },
    queue,
    acceptedIds: new MemoryAcceptedIds(),
    fanOuts: queue.fanOuts,
    clock,
    metrics: new MetricBuffer(),
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
  return { publish, queue, order };
}

const event = (id: string, subject?: string, data: unknown = {}) => ({
  id,
  eventType: 'Order.Created',
  ...(subject === undefined ? {} : { subject }),
  eventTime: '2026-12-01T10:00:00Z',
  data,
});

describe('publishing to an ordered subscription', () => {
  it("sends each key's events as one message in the key's group, in publish order", async () => {
    const { publish, queue } = setup();

    const result = await publish([event('a1', 'a'), event('b1', 'b'), event('a2', 'a'), event('a3', 'a')]);

    expect(result).toMatchObject({ accepted: 4, matchedSubscriptions: 1, messages: 2 });
    const sent = queue.sent.filter(({ queue: name }) => name === 'ordered');
    const target = deliveryTarget();
    expect(
      sent.map(({ job }) => {
        const parsed = parseJob(job.body);
        return [
          parsed.kind,
          'key' in parsed ? parsed.key : undefined,
          'items' in parsed ? parsed.items.map((item) => item.eventId) : [],
          job.groupId,
        ];
      }),
    ).toEqual([
      ['ordered', 'a', ['a1', 'a2', 'a3'], orderedGroupId(target, 'a')],
      ['ordered', 'b', ['b1'], orderedGroupId(target, 'b')],
    ]);
    const dedup = sent.map(({ job }) => job.deduplicationId);
    expect(new Set(dedup).size).toBe(2);
    expect(dedup.every((id) => typeof id === 'string' && /^[A-Za-z0-9_-]{43}$/.test(id))).toBe(true);
  });

  it('queues the ordered messages before the publish message of the other subscriptions', async () => {
    const { publish, queue, order } = setup([
      subscription({ name: 'ordered', orderedDelivery: { key: 'data.orderId' } }),
      subscription({ name: 'plain' }),
    ]);

    await publish([event('e1', 's', { orderId: 7 }), event('e2', 's', { orderId: 8 })]);

    expect(order).toEqual(['ordered', 'delivery']);
    const keys = queue.sent
      .filter(({ queue: name }) => name === 'ordered')
      .map(({ job }) => {
        const parsed = parseJob(job.body);
        return 'key' in parsed ? parsed.key : undefined;
      });
    expect(keys).toEqual(['7', '8']);
    const plain = queue.take().filter(({ job }) => job.target.subscription === 'plain');
    expect(plain.flatMap(({ job }) => job.items.map((item) => item.eventId))).toEqual(['e1', 'e2']);
  });

  it('gives an event without its key the empty key', async () => {
    const { publish, queue } = setup([subscription({ orderedDelivery: { key: 'data.missing' } })]);
    await publish([event('e1', 's'), event('e2', 's')]);
    const [only] = queue.sent
      .filter(({ queue: name }) => name === 'ordered')
      .map(({ job }) => parseJob(job.body));
    expect(only).toMatchObject({ key: '', items: [{ eventId: 'e1' }, { eventId: 'e2' }] });
  });
});

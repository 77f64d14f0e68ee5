import type { NamespaceTopic, Topic } from '../../../shared/domain/model';
import { ApiError } from '../../../shared/http/errors';
import { type LoggerLike, silentLogger } from '../../../shared/observability/logging';
import { METRIC, MetricBuffer } from '../../../shared/observability/metrics';
import { Publisher } from '../../../shared/publish/publisher';
import {
  publishedEvent as event,
  RecordingQueue,
  subscription,
  topicFixture,
  VirtualClock,
} from '../../support/fakes';
import { MemoryAcceptedIds } from '../../support/memory-stores';

const MINUTE = 60_000;

function setup(window: number, options: { logger?: LoggerLike } = {}) {
  const clock = new VirtualClock();
  const queue = new RecordingQueue(clock);
  const metrics = new MetricBuffer();
  const acceptedIds = new MemoryAcceptedIds();
  const state = { topic: topicFixture({ deduplicationWindowInMinutes: window }) as Topic };
  const nsTopic: NamespaceTopic = {
    namespace: 'shop',
    name: 'orders',
    eventRetentionInDays: 1,
    deduplicationWindowInMinutes: window,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    subscriptionsVersion: 1,
  };
  let ids = 0;
  const publisher = new Publisher({
    store: {
      getTopic: async () => state.topic,
      getNamespace: async () => ({
        name: 'shop',
        keys: { key1: 'ns-key', key2: 'ns-key-2' },
        tags: {},
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
      }),
      getNamespaceTopic: async () => nsTopic,
      listSubscriptions: async (topicId) => [
        topicId.includes('/')
          ? subscription({ topic: topicId, name: 'push', deliveryProfile: 'namespace' })
          : subscription(),
      ],
    },
    queue,
    acceptedIds,
    fanOuts: queue.fanOuts,
    clock,
    metrics,
    logger: options.logger ?? silentLogger,
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
  /** The event ids queued so far, in the order their messages were sent. */
  const queuedIds = () => queue.take().flatMap(({ job }) => job.items.map((item) => item.eventId));
  return { publisher, publish, queue, clock, metrics, acceptedIds, queuedIds, state };
}

const duplicateCount = (metrics: MetricBuffer) =>
  metrics
    .drain()
    .filter((point) => point.name === METRIC.PublishDuplicateCount && point.dimensions.Topic === 'orders')
    .reduce((sum, point) => sum + (point.values[0] ?? 0), 0);

describe('publishing with a de-duplication window', () => {
  it('delivers an id published twice once, across requests and within one, and counts the repeats', async () => {
    const { publish, queuedIds, metrics } = setup(10);

    expect(await publish([event('a'), event('b'), event('a')])).toEqual({
      accepted: 2,
      matchedSubscriptions: 1,
      messages: 1,
      duplicates: 1,
    });
    expect(queuedIds()).toEqual(['a', 'b']);

    const again = await publish([event('b'), event('c')]);
    expect(again).toMatchObject({ accepted: 1, duplicates: 1 });
    expect(queuedIds()).toEqual(['c']);
    expect(duplicateCount(metrics)).toBe(2);
  });

  it('queues the others of a request of 100 events with some repeats, in their order', async () => {
    const { publish, queuedIds } = setup(60);
    await publish(Array.from({ length: 10 }, (_, i) => event(`e${i * 10}`)));
    queuedIds();

    const result = await publish(Array.from({ length: 100 }, (_, i) => event(`e${i}`)));

    expect(result).toMatchObject({ accepted: 90, duplicates: 10, messages: 1 });
    expect(queuedIds()).toEqual(
      Array.from({ length: 100 }, (_, i) => `e${i}`).filter((_, i) => i % 10 !== 0),
    );
  });

  it('delivers both without a window, and says nothing of repeats', async () => {
    const { publish, queuedIds, acceptedIds, metrics } = setup(0);

    const first = await publish([event('a'), event('a')]);
    const second = await publish([event('a')]);

    expect(first).toEqual({ accepted: 2, matchedSubscriptions: 1, messages: 1 });
    expect(second).not.toHaveProperty('duplicates');
    expect(queuedIds()).toEqual(['a', 'a', 'a']);
    expect(acceptedIds.writes).toBe(0);
    expect(duplicateCount(metrics)).toBe(0);
  });

  it('takes an id again once the window has passed', async () => {
    const { publish, queuedIds, clock } = setup(5);
    await publish([event('a')]);
    clock.advance(5 * MINUTE - 1);
    expect(await publish([event('a')])).toMatchObject({ duplicates: 1 });
    clock.advance(1);
    expect(await publish([event('a')])).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(queuedIds()).toEqual(['a', 'a']);
  });

  it('writes one claim per distinct id of a request, none for a repeat within it', async () => {
    const { publish, acceptedIds } = setup(10);
    await publish(Array.from({ length: 100 }, (_, i) => event(`e${i % 50}`)));
    expect(acceptedIds.writes).toBe(50);
  });

  it('refuses the whole request (503) and queues nothing when the ids cannot be checked', async () => {
    const logged: unknown[] = [];
    const logger = {
      ...silentLogger,
      error: (message: string, extra?: unknown) => logged.push([message, extra]),
    };
    const { publish, queue, acceptedIds } = setup(10, { logger });
    acceptedIds.failing = new Error('ProvisionedThroughputExceededException');

    const refusal = await publish([event('a'), event('b')]).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).statusCode).toBe(503);
    expect((refusal as ApiError).message).toMatch(/could not be checked for repeats/);
    expect(queue.sent).toHaveLength(0);
    expect(logged).toEqual([
      ['could not check published event ids for repeats', expect.objectContaining({ topic: 'orders' })],
    ]);
  });

  it('gives the ids back when the request could not be queued, so its retry is delivered', async () => {
    const { publish, queue, queuedIds } = setup(10);
    queue.failWith = new Error('ServiceUnavailable');
    const refusal = await publish([event('a'), event('b')]).catch((error: unknown) => error);
    expect((refusal as ApiError).statusCode).toBe(503);

    queue.failWith = undefined;
    expect(await publish([event('a'), event('b')])).toMatchObject({ accepted: 2, duplicates: 0 });
    expect(queuedIds()).toEqual(['a', 'b']);
  });

  it('knows a CloudEvent by its source and id together', async () => {
    const { publisher, queuedIds } = setup(10);
    const cloudEvent = (source: string, id: string) => ({
      specversion: '1.0',
      id,
      source,
      type: 'Order.Created',
    });
    const publish = (events: object[]) =>
      publisher.publishToNamespace({
        namespace: 'shop',
        topic: 'orders',
        key: 'ns-key',
        body: Buffer.from(JSON.stringify(events)),
        headers: { 'content-type': 'application/cloudevents-batch+json' },
      });

    expect(await publish([cloudEvent('/a', '1'), cloudEvent('/b', '1')])).toMatchObject({ duplicates: 0 });
    expect(await publish([cloudEvent('/b', '1'), cloudEvent('/a', '2')])).toMatchObject({
      accepted: 1,
      duplicates: 1,
    });
    expect(queuedIds()).toEqual(['1', '1', '2']);
  });
});

/**
 * Publishing to namespace topics through the publisher: the namespace's keys, CloudEvents in
 * structured, batch and binary mode, the 1,000-event limit, and jobs for the topic's push
 * subscriptions under the `<namespace>/<topic>` identity.
 */
import type { Namespace, NamespaceTopic } from '../../../shared/domain/model';
import { silentLogger } from '../../../shared/observability/logging';
import { MetricBuffer } from '../../../shared/observability/metrics';
import { type NamespacePublishRequest, Publisher } from '../../../shared/publish/publisher';
import { RecordingQueue, subscription, VirtualClock } from '../../support/fakes';

const namespace: Namespace = {
  name: 'shop',
  keys: { key1: 'ns-key-one', key2: 'ns-key-two' },
  tags: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const topic: NamespaceTopic = {
  namespace: 'shop',
  name: 'orders',
  eventRetentionInDays: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  subscriptionsVersion: 1,
};

function setup() {
  const clock = new VirtualClock();
  const queue = new RecordingQueue(clock);
  const listed: string[] = [];
  const publisher = new Publisher({
    store: {
      getTopic: async () => undefined,
      getNamespace: async (name) => (name === 'shop' ? namespace : undefined),
      getNamespaceTopic: async (_ns, name) => (name === 'orders' ? topic : undefined),
      listSubscriptions: async (topicId) => {
        listed.push(topicId);
        return [subscription({ topic: 'shop/orders', name: 'push', deliveryProfile: 'namespace' })];
      },
    },
    queue,
    commits: { put: async () => {} },
    clock,
    metrics: new MetricBuffer(),
    logger: silentLogger,
    newId: () => 'pub-1',
    topicCacheMs: 1000,
  });
  const send = (request: Partial<NamespacePublishRequest>) =>
    publisher.publishToNamespace({
      namespace: 'shop',
      topic: 'orders',
      key: 'ns-key-one',
      body: Buffer.alloc(0),
      headers: {},
      ...request,
    });
  return { send, queue, listed };
}

const event = (id: string) => ({ specversion: '1.0', id, source: '/shop', type: 'Shop.OrderCreated' });
const structured = { 'content-type': 'application/cloudevents+json; charset=utf-8' };
const batch = { 'content-type': 'application/cloudevents-batch+json; charset=utf-8' };

describe('publishing to a namespace topic', () => {
  it('queues one job per push subscription under the namespace topic identity', async () => {
    const { send, queue, listed } = setup();
    await expect(
      send({ headers: structured, body: Buffer.from(JSON.stringify(event('e1'))) }),
    ).resolves.toMatchObject({ accepted: 1, jobs: 1, matchedSubscriptions: 1 });
    expect(listed).toEqual(['shop/orders']);
    const [job] = queue.take();
    expect(job?.job).toMatchObject({ topic: 'shop/orders', subscription: 'push' });
    expect(job?.job.items[0]?.eventJson).toBe(JSON.stringify(event('e1')));
  });

  it('takes a batch and a binary-mode event, and either key', async () => {
    const { send, queue } = setup();
    await send({
      headers: batch,
      body: Buffer.from(JSON.stringify([event('a'), event('b')])),
      key: 'ns-key-two',
    });
    await send({
      headers: {
        'ce-specversion': '1.0',
        'ce-id': 'bin',
        'ce-source': '/s',
        'ce-type': 't',
        'content-type': 'application/json',
      },
      body: Buffer.from('{"n":1}'),
    });
    expect(queue.take().flatMap(({ job }) => job.items.map((item) => item.eventId))).toEqual([
      'a',
      'b',
      'bin',
    ]);
  });

  it.each([
    ['no key', { key: undefined }, 401, /has no access key: send Authorization: SharedAccessKey/],
    ['a wrong key', { key: 'nope' }, 401, /not valid for namespace 'shop'/],
    ['an unknown topic', { topic: 'nothing' }, 404, /'nothing' does not exist in namespace 'shop'/],
    // The same answer as a wrong key: namespace names can't be probed.
    [
      'an unknown namespace',
      { namespace: 'other' },
      401,
      /^The access key is not valid for namespace 'other'\.$/,
    ],
    [
      'a plain JSON content type',
      { headers: { 'content-type': 'application/json' }, body: Buffer.from('[]') },
      400,
      /not accepted: a namespace topic takes CloudEvents/,
    ],
    [
      'more than 1,000 events',
      {
        headers: batch,
        body: Buffer.from(JSON.stringify(Array.from({ length: 1001 }, (_, i) => event(`e${i}`)))),
      },
      400,
      /1001 events; at most 1000/,
    ],
  ] as const)('refuses %s (%i), queueing nothing', async (_what, request, statusCode, message) => {
    const { send, queue } = setup();
    await expect(
      send({ headers: structured, body: Buffer.from(JSON.stringify(event('x'))), ...request }),
    ).rejects.toMatchObject({
      statusCode,
      message: expect.stringMatching(message),
    });
    expect(queue.sent).toEqual([]);
  });
});

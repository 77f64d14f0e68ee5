import { AzureKeyCredential, generateSharedAccessSignature } from '@azure/eventgrid';
import { SQS_LIMITS } from '../../../shared/config/resources';
import { DEAD_LETTER_NOTICES } from '../../../shared/delivery/rules/dead-letter-notice';
import type { Subscription, Topic } from '../../../shared/domain/model';
import { ApiError } from '../../../shared/http/errors';
import { silentLogger } from '../../../shared/observability/logging';
import { METRIC, MetricBuffer } from '../../../shared/observability/metrics';
import { isValidKey } from '../../../shared/publish/authentication';
import { Publisher } from '../../../shared/publish/publisher';
import { PublishRejection } from '../../../shared/publish/rejection';
import { parseJob } from '../../../shared/queue/job-codec';
import { QueueRejectedError } from '../../../shared/queue/sqs-job-queue';
import {
  deliveryTarget,
  publishedEvent as event,
  RecordingQueue,
  subscription,
  topicFixture,
  VirtualClock,
} from '../../support/fakes';
import { MemoryAcceptedIds } from '../../support/memory-stores';

const keyOne = { kind: 'key', key: 'key-one' } as const;
const ORDERS_PATH = '/topics/orders/api/events';

const topic = topicFixture();

function setup(subscriptions: Subscription[] = [subscription()]) {
  const clock = new VirtualClock();
  const queue = new RecordingQueue(clock);
  const metrics = new MetricBuffer();
  const reads = { topics: 0, subscriptions: 0 };
  const state = { topic: { ...topic } as Topic | undefined, subscriptions };
  const publisher = new Publisher({
    store: {
      getTopic: async () => {
        reads.topics += 1;
        return state.topic;
      },
      getNamespace: async () => undefined,
      getNamespaceTopic: async () => undefined,
      listSubscriptions: async () => {
        reads.subscriptions += 1;
        return state.subscriptions;
      },
    },
    queue,
    acceptedIds: new MemoryAcceptedIds(),
    fanOuts: queue.fanOuts,
    clock,
    metrics,
    logger: silentLogger,
    newId: () => 'pub-1',
    topicCacheMs: 1000,
  });
  /** `null` sends no key at all. */
  const publish = (events: unknown, accessKey: string | null = 'key-one', name = 'orders') =>
    publisher.publish({
      topic: name,
      credential: accessKey === null ? undefined : { kind: 'key', key: accessKey },
      path: `/topics/${name}/api/events`,
      body: Buffer.from(JSON.stringify(events)),
    });
  return { publisher, publish, queue, clock, metrics, reads, state };
}

async function status(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof ApiError) return error.statusCode;
    throw error;
  }
}

/** The rejection the publish rules refused a request with. */
async function rejection(promise: Promise<unknown>): Promise<PublishRejection> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof PublishRejection) return error;
  throw new Error(`expected a PublishRejection, got ${String(error)}`);
}

describe('publishing', () => {
  it('queues a job per matching subscription, the whole request in one message', async () => {
    const { publish, queue } = setup([subscription({ name: 'a' }), subscription({ name: 'b' })]);
    const result = await publish(Array.from({ length: 100 }, (_, i) => event(`e${i}`)));

    expect(result).toEqual({ accepted: 100, matchedSubscriptions: 2, messages: 1 });
    expect(queue.sent).toHaveLength(1);
    const fanOut = parseJob(queue.sent[0]?.job.body as string);
    expect(fanOut).toMatchObject({ kind: 'fanout' });
    expect('topic' in fanOut && fanOut.topic).toEqual({ name: 'orders' });
    const jobs = queue.take();
    expect(jobs.map((j) => [j.queue, j.job.target.subscription, j.job.items.length, j.delaySeconds])).toEqual(
      [
        ['delivery', 'a', 100, 0],
        ['delivery', 'b', 100, 0],
      ],
    );
    expect(jobs[0]?.job.items[7]).toMatchObject({
      deliveryId: 'pub-1.7',
      attempts: 0,
      eventId: 'e7',
      eventJson: expect.stringContaining('"topic":"/gridwire/topics/orders"'),
    });
  });

  it('sends each subscription only the event types it asked for', async () => {
    const { publish, queue, metrics } = setup([
      subscription({ name: 'created', filter: { includedEventTypes: ['order.created'] } }),
      subscription({ name: 'shipped', filter: { includedEventTypes: ['Order.Shipped'] } }),
    ]);
    await publish([event('1', 'Order.Created'), event('2', 'Order.Paid'), event('3', 'Order.Shipped')]);

    expect(queue.take().map((j) => [j.job.target.subscription, j.job.items.map((i) => i.eventId)])).toEqual([
      ['created', ['1']],
      ['shipped', ['3']],
    ]);
    const points = metrics.drain();
    expect(points.find((p) => p.name === METRIC.UnmatchedEventCount)?.values).toEqual([1]);
    expect(points.find((p) => p.name === METRIC.PublishSuccessCount)?.values).toEqual([3]);
  });

  it('applies subject and advanced filters, compiled once per subscription list', async () => {
    const { publish, queue, reads } = setup([
      subscription({
        name: 'big',
        filter: { advancedFilters: [{ operatorType: 'NumberGreaterThan', key: 'data.total', value: 100 }] },
      }),
      subscription({
        name: 'eu-tagged',
        filter: {
          subjectBeginsWith: 'ORDERS/',
          enableAdvancedFilteringOnArrays: true,
          advancedFilters: [
            { operatorType: 'StringIn', key: 'data.tags', values: ['EU'] },
            { operatorType: 'StringNotIn', key: 'data.channel', values: ['test'] },
          ],
        },
      }),
    ]);
    const withData = (id: string, data: unknown) => ({ ...event(id), data });
    await publish([
      withData('1', { total: 150, tags: ['us'] }),
      withData('2', { total: 50, tags: ['x', 'eu'] }),
      withData('3', { total: '500', tags: ['eu'], channel: 'TEST' }),
    ]);
    await publish([withData('4', { total: 101 })]);

    expect(queue.take().map((j) => [j.job.target.subscription, j.job.items.map((i) => i.eventId)])).toEqual([
      ['big', ['1']],
      ['eu-tagged', ['2']],
      ['big', ['4']],
    ]);
    expect(reads.subscriptions).toBe(1);
  });

  it('accepts key1 and key2 and nothing else', async () => {
    expect(isValidKey(topic, 'key-one')).toBe(true);
    expect(isValidKey(topic, 'key-two')).toBe(true);
    expect(isValidKey(topic, 'key-one ')).toBe(false);
    const { publish } = setup();
    expect(await status(publish([event('1')], 'key-two'))).toBe(200);
  });

  it.each([
    [null, 401],
    ['', 401],
    ['wrong', 401],
  ])('answers key %j with %i', async (key, expected) => {
    const { publish, queue } = setup();
    expect(await status(publish([event('1')], key))).toBe(expected);
    expect(queue.sent).toHaveLength(0);
  });

  describe('an unknown topic answers exactly as a wrong credential (401), so names cannot be probed', () => {
    const failure = async (promise: Promise<unknown>) => {
      const error = await promise.catch((e: unknown) => e);
      if (!(error instanceof ApiError)) throw new Error('expected an ApiError');
      return { statusCode: error.statusCode, body: error.toBody() };
    };
    const base = (name: string) => ({
      topic: name,
      path: `/topics/${name}/api/events`,
      body: Buffer.from(JSON.stringify([event('1')])),
    });
    const sas = (name: string) =>
      generateSharedAccessSignature(
        `https://h.example/topics/${name}/api/events`,
        new AzureKeyCredential(Buffer.alloc(32, 9).toString('base64')),
        new Date(new VirtualClock().now() + 3_600_000),
      );
    it.each([
      [
        'a key',
        async (p: Publisher, name: string) =>
          p.publish({ ...base(name), credential: { kind: 'key', key: 'guess' } }),
      ],
      [
        'no credential',
        async (p: Publisher, name: string) => p.publish({ ...base(name), credential: undefined }),
      ],
      [
        'a SAS token signed with another key',
        async (p: Publisher, name: string) =>
          p.publish({ ...base(name), credential: { kind: 'sas', token: await sas(name) } }),
      ],
    ])('with %s', async (_what, send) => {
      const known = setup();
      const unknown = setup();
      unknown.state.topic = undefined;
      const wrong = await failure(send(known.publisher, 'orders'));
      const missing = await failure(send(unknown.publisher, 'orders'));
      expect(wrong.statusCode).toBe(401);
      expect(missing).toEqual(wrong);
    });
  });

  describe('with an IAM credential (the gateway authorized the caller)', () => {
    const iam = { kind: 'iam', caller: 'arn:aws:iam::123456789012:user/publisher' } as const;
    const publishIam = (publisher: Publisher, name = 'orders') =>
      publisher.publish({
        topic: name,
        credential: iam,
        path: `/iam/topics/${name}/api/events`,
        body: Buffer.from(JSON.stringify([event('1')])),
      });

    it('accepts the events of an existing topic without a key and queues them', async () => {
      const { publisher, queue } = setup();
      expect(await publishIam(publisher)).toEqual({ accepted: 1, matchedSubscriptions: 1, messages: 1 });
      expect(queue.take().map((j) => j.job.items.map((i) => i.eventId))).toEqual([['1']]);
    });

    it('still answers 404 for an unknown topic', async () => {
      const { publisher, state, queue } = setup();
      state.topic = undefined;
      expect(await status(publishIam(publisher, 'missing'))).toBe(404);
      expect(queue.sent).toHaveLength(0);
    });

    it('still validates the events', async () => {
      const { publisher, queue } = setup();
      const malformed = publisher.publish({
        topic: 'orders',
        credential: iam,
        path: '/iam/topics/orders/api/events',
        body: Buffer.from(JSON.stringify([{ id: '1' }])),
      });
      expect(await rejection(malformed)).toMatchObject({
        kind: 'invalid',
        code: 'InputJsonInvalid',
        message: expect.stringMatching(/Event at index 0: subject is required/),
      });
      expect(queue.sent).toHaveLength(0);
    });

    it.each([
      ['another case', '/iam/topics/ORDERS/api/events', 'ORDERS'],
      ['percent-encoding', '/iam/topics/%6Frders/api/events', 'orders'],
      ['the key route', ORDERS_PATH, 'orders'],
    ])(
      'takes only the exact spelling of the topic (%s is refused: IAM matches the path as written)',
      async (_what, path, name) => {
        const { publisher, queue } = setup();
        const spelled = publisher.publish({
          topic: name,
          credential: iam,
          path,
          body: Buffer.from(JSON.stringify([event('1')])),
        });
        await expect(spelled).rejects.toMatchObject({
          statusCode: 400,
          message: expect.stringMatching(
            /must name the topic exactly as it was created: \/iam\/topics\/orders\/api\/events/,
          ),
        });
        expect(queue.sent).toHaveLength(0);
      },
    );
  });

  it('refuses malformed events as invalid input and queues nothing', async () => {
    const { publish, queue } = setup();
    const refused = await rejection(publish([event('1'), { ...event('2'), eventTime: 'never' }]));
    expect([refused.kind, refused.code]).toEqual(['invalid', 'InputJsonInvalid']);
    expect(queue.sent).toHaveLength(0);
  });

  it('refuses a body over 1 MiB as too large', async () => {
    const { publisher } = setup();
    const body = Buffer.alloc(1_048_577, 32);
    const refused = await rejection(
      publisher.publish({ topic: 'orders', credential: keyOne, path: ORDERS_PATH, body }),
    );
    expect([refused.kind, refused.code]).toEqual(['tooLarge', 'PayloadTooLarge']);
  });

  it('answers 503 (and may be retried) when the queue refuses the jobs', async () => {
    const { publish, queue } = setup();
    queue.failWith = new Error('throttled');
    expect(await status(publish([event('1')]))).toBe(503);
    await expect(publish([event('2')])).rejects.toMatchObject({ retryAfterSeconds: 5 });
  });

  it('answers 400, not a retryable 503, when the queue refuses the content for good', async () => {
    const { publish, queue } = setup();
    queue.failWith = new QueueRejectedError(
      'SQS refused 1 of 1 messages: InvalidMessageContents',
      'InvalidMessageContents',
    );
    const error = await publish([event('1')]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(400);
    expect((error as ApiError).message).toMatch(
      /refused their content \(InvalidMessageContents\).*will not help/,
    );
  });

  it('queues jobs that carry the subscription version they were made for', async () => {
    const { publish, queue } = setup([subscription({ version: 1_700_000_000_123 })]);
    await publish([event('1')]);
    const [taken] = queue.take();
    expect(taken?.job.target.version).toBe(1_700_000_000_123);
    // The whole target, as built from the subscription.
    expect(taken?.job.target).toEqual(deliveryTarget({ version: 1_700_000_000_123 }));
  });

  it('queues jobs whose target is the subscription’s as it was read: its uid, profile, schema and dead-letter place', async () => {
    const read = subscription({
      uid: 'u-1',
      version: 5,
      eventDeliverySchema: 'CloudEventSchemaV1_0',
      deadLetter: { container: 'dead' },
    });
    const { publish, queue } = setup([read, subscription({ name: 'plain' })]);
    await publish([event('1')]);
    expect(queue.take().map(({ job }) => job.target)).toEqual([
      {
        topic: { name: 'orders' },
        subscription: 'audit',
        uid: 'u-1',
        version: 5,
        profile: 'topic',
        schema: 'CloudEventSchemaV1_0',
        deadLetter: { container: 'dead', format: 'CloudEventSchemaV1_0' },
      },
      deliveryTarget({ name: 'plain' }),
    ]);
  });

  it('reads the topic at most once per cache period and the subscription list once per version', async () => {
    const { publish, clock, reads, state } = setup();
    await publish([event('1')]);
    await publish([event('2')]);
    expect(reads).toEqual({ topics: 1, subscriptions: 1 });

    clock.advance(1001);
    await publish([event('3')]);
    expect(reads).toEqual({ topics: 2, subscriptions: 1 });

    state.topic = { ...topic, subscriptionsVersion: 2 };
    state.subscriptions = [];
    clock.advance(1001);
    await publish([event('4')]);
    expect(reads).toEqual({ topics: 3, subscriptions: 2 });
  });

  it('queues nothing for a subscription from its expiration time on, though its list is cached (expirationTimeUtc)', async () => {
    const clockStart = new VirtualClock().now();
    const expiring = subscription({
      name: 'expiring',
      expirationTime: new Date(clockStart + 1000).toISOString(),
    });
    const { publish, queue, clock, reads } = setup([expiring, subscription({ name: 'kept' })]);
    await publish([event('1')]);
    expect(queue.take().map((j) => j.job.target.subscription)).toEqual(['expiring', 'kept']);

    clock.advance(1000);
    expect(await publish([event('2')])).toMatchObject({ matchedSubscriptions: 1 });
    expect(queue.take().map((j) => j.job.target.subscription)).toEqual(['kept']);
    // The same cached list served both: the time decides, not a change of the list.
    expect(reads.subscriptions).toBe(1);
  });

  it('does not serve a deleted and re-created topic the old subscription list', async () => {
    const { publish, queue, clock, state } = setup([subscription({ name: 'old' })]);
    await publish([event('1')]);
    expect(queue.take().map((j) => j.job.target.subscription)).toEqual(['old']);

    // Same name and the same subscriptionsVersion as before, but a new topic.
    state.topic = { ...topic, createdAt: '2026-02-01T00:00:00.000Z' };
    state.subscriptions = [subscription({ name: 'new' })];
    clock.advance(1001);
    await publish([event('2')]);
    expect(queue.take().map((j) => j.job.target.subscription)).toEqual(['new']);
  });

  it('remembers that a topic was missing as briefly as it keeps a topic (one read per name and period)', async () => {
    const { publish, reads, state, clock } = setup();
    state.topic = undefined;
    expect(await status(publish([event('1')]))).toBe(401);
    state.topic = { ...topic };
    expect(await status(publish([event('2')]))).toBe(401);
    expect(reads.topics).toBe(1);
    // Creating a topic is answered only after this long, so a created topic is found at once.
    clock.advance(1000);
    expect(await status(publish([event('3')]))).toBe(200);
    expect(reads.topics).toBe(2);
  });

  it('answers 401 for a name no topic can have, without a database read', async () => {
    const { publish, reads } = setup();
    expect(await status(publish([event('1')], 'key-one', 'x'.repeat(2000)))).toBe(401);
    expect(await status(publish([event('1')], 'key-one', 'bad_name'))).toBe(401);
    expect(reads.topics).toBe(0);
  });

  it('refuses a request whose fan-out is too large (naming the limit), queueing nothing', async () => {
    const many = Array.from({ length: 21 }, (_, i) => subscription({ name: `s${i}` }));
    const { publish, queue } = setup(many);
    const events = Array.from({ length: 5000 }, (_, i) => event(`e${i}`));
    expect(await rejection(publish(events))).toMatchObject({
      kind: 'tooLarge',
      code: 'TooManyDeliveries',
      message: expect.stringMatching(/would queue 105000 deliveries .* at most 100000 deliveries/),
    });
    expect(queue.sent).toHaveLength(0);
    // 20 subscriptions are within the limit.
    const { publish: publishTwenty } = setup(many.slice(0, 20));
    expect(await status(publishTwenty(events))).toBe(200);
  });

  it('refuses events nested too deeply as invalid input (not a crash)', async () => {
    const { publisher, queue } = setup();
    const deep = `[{"id":"1","subject":"s","eventType":"t","eventTime":"2026-01-01T00:00:00Z","data":${'['.repeat(10_000)}${']'.repeat(10_000)}}]`;
    const error = await rejection(
      publisher.publish({ topic: 'orders', credential: keyOne, path: ORDERS_PATH, body: Buffer.from(deep) }),
    );
    expect(error.kind).toBe('invalid');
    expect(error.message).toMatch(/nests more than 100 levels deep \(in the event at index 0\); at most 100/);
    expect(queue.sent).toHaveLength(0);
  });

  it('stores a fan-out too large for one message first, then sends one message naming it', async () => {
    const subscriptions = Array.from({ length: 12 }, (_, i) => subscription({ name: `sub-${i}` }));
    const { publish, queue, clock } = setup(subscriptions);
    // Quotes take 2 bytes in an event's text and 4 once that text is queued as a JSON string.
    const big = Array.from({ length: 7 }, (_, i) => ({ ...event(`e${i}`), data: 'x"'.repeat(45_000) }));
    const result = await publish(big);

    expect(result).toEqual({ accepted: 7, matchedSubscriptions: 12, messages: 1 });
    expect(queue.sent).toHaveLength(1);
    const message = parseJob(queue.sent[0]?.job.body as string);
    const key = `fanouts/${new Date(clock.now()).toISOString().slice(0, 10)}/pub-1.json`;
    expect(message).toMatchObject({ kind: 'stored-fanout', key });
    expect('topic' in message && message.topic).toEqual({ name: 'orders' });
    const stored = queue.fanOuts.bodies.get(key) as string;
    expect(Buffer.byteLength(stored)).toBeGreaterThan(SQS_LIMITS.maxMessageBytes);
    expect(message).toMatchObject({ bytes: Buffer.byteLength(stored) });
    // Each event is stored once, not once per subscription.
    expect(Buffer.byteLength(stored)).toBeLessThan(7 * 230_000);
    const events = new Map<string, number>();
    for (const { job } of queue.take())
      events.set(job.target.subscription, (events.get(job.target.subscription) ?? 0) + job.items.length);
    expect([...events.entries()]).toEqual(subscriptions.map((s) => [s.name, 7]));
  });

  it('queues events that need several jobs of one subscription as one message too', async () => {
    const { publish, queue } = setup([subscription({ name: 'only' })]);
    const result = await publish(
      Array.from({ length: 4 }, (_, i) => ({ ...event(`e${i}`), data: 'x'.repeat(100_000) })),
    );
    expect(result).toEqual({ accepted: 4, matchedSubscriptions: 1, messages: 1 });
    expect(queue.sent).toHaveLength(1);
    expect(parseJob(queue.sent[0]?.job.body as string)).toMatchObject({ kind: 'fanout' });
    expect(
      queue.take().map(({ job }) => [job.target.subscription, job.items.map((item) => item.eventId)]),
    ).toEqual([['only', ['e0', 'e1', 'e2', 'e3']]]);
  });

  it.each([
    ['the queue', 'queue'],
    ['the fan-out store', 'store'],
  ] as const)('answers 503 and queues nothing when %s fails', async (_what, failing) => {
    const subscriptions = Array.from({ length: 3 }, (_, i) => subscription({ name: `sub-${i}` }));
    const { publish, queue } = setup(subscriptions);
    const failure = Object.assign(new Error('service unavailable'), { $metadata: { httpStatusCode: 503 } });
    if (failing === 'queue') queue.failWith = failure;
    else queue.fanOuts.failWith = failure;
    // Large enough to be stored, so both dependencies are on the path.
    const big = Array.from({ length: 7 }, (_, i) => ({ ...event(`e${i}`), data: 'x"'.repeat(45_000) }));
    const error = await publish(big).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(503);
    expect((error as ApiError).message).toMatch(/None of the request's events were queued/);
    expect(queue.sent).toHaveLength(0);
  });
});

describe("Gridwire's own events (dead-letter notices)", () => {
  const notice = {
    id: 'dead/x.json#NonRetriableOutcome',
    eventType: 'Gridwire.DeadLettered',
    subject: '/topics/orders/eventSubscriptions/audit',
    eventTime: '2026-01-01T00:00:00.000Z',
    dataVersion: '1',
    data: { blobKey: 'dead/x.json', count: 1 },
  };
  const noticesTopic = { ...topic, name: DEAD_LETTER_NOTICES.topic };

  it('publishes nothing, and reads the topic once per cache period, while the notices topic does not exist', async () => {
    const { publisher, queue, state, reads } = setup();
    state.topic = undefined;
    expect(await publisher.publishOwn(DEAD_LETTER_NOTICES.topic, [notice])).toBeUndefined();
    expect(await publisher.publishOwn(DEAD_LETTER_NOTICES.topic, [notice])).toBeUndefined();
    expect(queue.sent).toEqual([]);
    expect(reads.topics).toBe(1);
  });

  it('queues them for the notices topic’s matching subscriptions, without a credential', async () => {
    const { publisher, queue, state } = setup([
      subscription({
        topic: DEAD_LETTER_NOTICES.topic,
        name: 'ops',
        filter: { subjectBeginsWith: '/topics/orders/' },
      }),
      subscription({
        topic: DEAD_LETTER_NOTICES.topic,
        name: 'other',
        filter: { subjectBeginsWith: '/topics/billing/' },
      }),
    ]);
    state.topic = noticesTopic;
    expect(await publisher.publishOwn(DEAD_LETTER_NOTICES.topic, [notice])).toMatchObject({
      accepted: 1,
      matchedSubscriptions: 1,
    });
    const jobs = queue.take();
    expect(jobs.map((job) => [job.job.target.subscription, job.job.items.map((i) => i.eventId)])).toEqual([
      ['ops', ['dead/x.json#NonRetriableOutcome']],
    ]);
    expect(JSON.parse(jobs[0]?.job.items[0]?.eventJson as string)).toMatchObject({
      eventType: 'Gridwire.DeadLettered',
      data: { blobKey: 'dead/x.json', count: 1 },
    });
  });

  it('refuses a publish from outside to the notices topic (403), even with its key', async () => {
    const { publisher, queue, state } = setup();
    state.topic = noticesTopic;
    const attempt = publisher.publish({
      topic: DEAD_LETTER_NOTICES.topic,
      credential: keyOne,
      path: `/topics/${DEAD_LETTER_NOTICES.topic}/api/events`,
      body: Buffer.from(JSON.stringify([notice])),
    });
    await expect(attempt).rejects.toMatchObject({
      statusCode: 403,
      message: `The topic '${DEAD_LETTER_NOTICES.topic}' carries Gridwire's own dead-letter notices; only Gridwire publishes to it.`,
    });
    expect(queue.sent).toEqual([]);
  });
});

import type { Subscription, Topic } from '../../../shared/domain/model';
import { silentLogger } from '../../../shared/observability/logging';
import { MetricBuffer } from '../../../shared/observability/metrics';
import { isRfc3339 } from '../../../shared/publish/cloud-events-schema';
import { PUBLISH_LIMITS } from '../../../shared/publish/limits';
import { Publisher } from '../../../shared/publish/publisher';
import { PublishRejection } from '../../../shared/publish/rejection';
import { RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { MemoryAcceptedIds } from '../../support/memory-stores';

const topicOf = (inputSchema: Topic['inputSchema']): Topic => ({
  name: 'orders',
  inputSchema,
  keys: { key1: 'key-one', key2: 'key-two' },
  tags: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  subscriptionsVersion: 1,
});

const cloudEvent = (id: string, extra: Record<string, unknown> = {}) => ({
  specversion: '1.0',
  id,
  source: '/orders',
  type: 'Order.Created',
  time: '2026-01-01T00:00:00Z',
  data: { id },
  ...extra,
});

const gridEvent = (id: string) => ({
  id,
  subject: 'orders/1',
  eventType: 'Order.Created',
  eventTime: '2026-01-01T00:00:00Z',
  data: {},
});

const SINGLE = 'application/cloudevents+json';
const BATCH = 'application/cloudevents-batch+json; charset=utf-8';

function setup(
  inputSchema: Topic['inputSchema'] = 'CloudEventSchemaV1_0',
  subscriptions: Subscription[] = [subscription({ eventDeliverySchema: 'CloudEventSchemaV1_0' })],
) {
  const clock = new VirtualClock();
  const queue = new RecordingQueue(clock);
  const publisher = new Publisher({
    store: {
      getTopic: async () => topicOf(inputSchema),
      listSubscriptions: async () => subscriptions,
      getNamespace: async () => undefined,
      getNamespaceTopic: async () => undefined,
    },
    queue,
    acceptedIds: new MemoryAcceptedIds(),
    fanOuts: queue.fanOuts,
    clock,
    metrics: new MetricBuffer(),
    logger: silentLogger,
    newId: () => 'pub-1',
    topicCacheMs: 1000,
  });
  /** `body` is sent as it is when it is a string. */
  const publish = (body: unknown, contentType: string | undefined = BATCH) =>
    publisher.publish({
      topic: 'orders',
      credential: { kind: 'key', key: 'key-one' },
      path: '/topics/orders/api/events',
      body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
      ...(contentType === undefined ? {} : { contentType }),
    });
  return { publish, queue };
}

async function rejection(promise: Promise<unknown>): Promise<PublishRejection> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PublishRejection) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('publishing CloudEvents', () => {
  it('queues each event as its own text, unchanged, with its id and the type filters match', async () => {
    const { publish, queue } = setup('CloudEventSchemaV1_0', [
      subscription({
        name: 'created',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        filter: { includedEventTypes: ['order.created'] },
      }),
      subscription({
        name: 'paid',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        filter: { includedEventTypes: ['Order.Paid'] },
      }),
    ]);
    const first =
      '{ "specversion" : "1.0", "id":"a", "source":"/o", "type":"Order.Created", "data": {"n": 9007199254740993, "p": 1.50} }';
    const second = JSON.stringify(cloudEvent('b', { type: 'Order.Paid', dataversion: '2.0', myext: 7 }));
    const result = await publish(`[${first},\n ${second}]`);

    expect(result).toEqual({ accepted: 2, matchedSubscriptions: 2, messages: 1 });
    const jobs = queue.take();
    expect(
      jobs.map((j) => [
        j.job.target.subscription,
        j.job.items.map((i) => [i.eventId, i.dataVersion, i.eventJson]),
      ]),
    ).toEqual([
      ['created', [['a', '', first]]],
      ['paid', [['b', '2.0', second]]],
    ]);
  });

  it.each([
    ['application/cloudevents+json', cloudEvent('one')],
    ['application/cloudevents+json; charset=utf-8', cloudEvent('one')],
    ['application/cloudevents-batch+json', [cloudEvent('one')]],
    ['application/json', [cloudEvent('one')]],
    [undefined, [cloudEvent('one')]],
  ])('takes %s', async (contentType, body) => {
    const { publish, queue } = setup();
    expect((await publish(body, contentType)).accepted).toBe(1);
    expect(queue.take()[0]?.job.items[0]?.eventJson).toBe(JSON.stringify(cloudEvent('one')));
  });

  it('refuses an empty batch; accepts extension attributes of 20 characters and valid data_base64', async () => {
    const { publish } = setup();
    await expect(publish([])).rejects.toMatchObject({
      kind: 'invalid',
      code: 'NoEvents',
      message: expect.stringMatching(/no events/),
    });
    const fine = cloudEvent('x', {
      data: undefined,
      data_base64: 'aGVsbG8=',
      abcdefghij0123456789: true,
      subject: 's',
    });
    expect((await publish([fine])).accepted).toBe(1);
  });

  // [what, the event, the attribute the message names]
  const malformed: Array<[string, unknown, string]> = [
    ['not an object', 'event', 'must be a JSON object'],
    ['no specversion', cloudEvent('x', { specversion: undefined }), 'specversion is required'],
    ['specversion 0.3', cloudEvent('x', { specversion: '0.3' }), 'specversion must be "1.0"'],
    ['specversion as a number', cloudEvent('x', { specversion: 1 }), 'specversion must be "1.0"'],
    ['no id', cloudEvent('x', { id: undefined }), 'id is required'],
    ['an empty id', cloudEvent(''), 'id must not be empty'],
    ['a numeric id', cloudEvent('x', { id: 7 }), 'id must be a string'],
    ['no source', cloudEvent('x', { source: undefined }), 'source is required'],
    ['an empty source', cloudEvent('x', { source: '' }), 'source must not be empty'],
    ['no type', cloudEvent('x', { type: undefined }), 'type is required'],
    ['an object type', cloudEvent('x', { type: {} }), 'type must be a string'],
    ['an upper-case extension name', cloudEvent('x', { myExt: 'v' }), "attribute name 'myExt' is invalid"],
    [
      'an extension name with a hyphen',
      cloudEvent('x', { 'my-ext': 'v' }),
      "attribute name 'my-ext' is invalid",
    ],
    [
      'an extension name of 21 characters',
      cloudEvent('x', { abcdefghij0123456789k: 'v' }),
      "attribute name 'abcdefghij0123456789k' is invalid",
    ],
    [
      'an object extension value',
      cloudEvent('x', { myext: { a: 1 } }),
      "attribute 'myext' must be a string, number or boolean",
    ],
    [
      'both data and data_base64',
      cloudEvent('x', { data_base64: 'aGk=' }),
      'data and data_base64 must not both be present',
    ],
    [
      'a numeric data_base64',
      cloudEvent('x', { data: undefined, data_base64: 5 }),
      'data_base64 must be a string',
    ],
    [
      'data_base64 that is not base64',
      cloudEvent('x', { data: undefined, data_base64: 'not base64!' }),
      'data_base64 must be base64-encoded',
    ],
    [
      'a time that is not RFC 3339',
      cloudEvent('x', { time: '2026-01-01 10:00' }),
      'time must be an RFC 3339 date-time',
    ],
    [
      'a time without an offset',
      cloudEvent('x', { time: '2026-01-01T10:00:00' }),
      'time must be an RFC 3339 date-time',
    ],
    ['a numeric time', cloudEvent('x', { time: 1700000000 }), 'time must be a string'],
    ['a numeric subject', cloudEvent('x', { subject: 1 }), 'subject must be a string'],
    [
      'a boolean datacontenttype',
      cloudEvent('x', { datacontenttype: true }),
      'datacontenttype must be a string',
    ],
    ['an array dataschema', cloudEvent('x', { dataschema: ['a'] }), 'dataschema must be a string'],
    ['an Event Grid event', gridEvent('x'), 'looks like the EventGridSchema schema'],
  ];

  it.each(malformed)(
    'refuses %s as invalid input naming the index and attribute, and queues nothing',
    async (_what, bad, named) => {
      const { publish, queue } = setup();
      const error = await rejection(publish([cloudEvent('ok'), bad]));
      expect([error.kind, error.code]).toEqual(['invalid', 'InputJsonInvalid']);
      expect(error.message).toContain('Event at index 1: ');
      expect(error.message).toContain(named);
      expect(queue.sent).toHaveLength(0);
    },
  );

  it('refuses a repeated attribute (the delivered text would carry both)', async () => {
    const { publish, queue } = setup();
    const error = await rejection(
      publish('[{"specversion":"1.0","id":"a","id":"b","source":"/o","type":"t"}]'),
    );
    expect([error.kind, error.message]).toEqual([
      'invalid',
      "Event at index 0: member 'id' appears more than once; a member may appear only once in an object (receivers would disagree on which one counts).",
    ]);
    expect(queue.sent).toHaveLength(0);
  });

  it.each([
    [
      'an array as application/cloudevents+json',
      [cloudEvent('a')],
      SINGLE,
      /send an array as application\/cloudevents-batch\+json/,
    ],
    ['one event as a batch', cloudEvent('a'), BATCH, /must be a JSON array of CloudEvents/],
    [
      'one event as application/json',
      cloudEvent('a'),
      'application/json',
      /must be a JSON array of CloudEvents/,
    ],
    [
      'binary mode',
      'data',
      'text/plain',
      /Content-Type 'text\/plain' is not accepted: topic 'orders' takes CloudEvents/,
    ],
    [
      'an Event Grid batch',
      [gridEvent('a')],
      'application/json',
      /index 0: specversion is required: this topic takes events in the CloudEventSchemaV1_0 schema/,
    ],
  ])('refuses %s as invalid input saying what the topic takes', async (_what, body, contentType, message) => {
    const { publish, queue } = setup();
    const error = await rejection(publish(body, contentType));
    expect(error.kind).toBe('invalid');
    expect(error.message).toMatch(message);
    expect(queue.sent).toHaveLength(0);
  });

  it.each([
    [
      'CloudEvents content types',
      [gridEvent('a')],
      BATCH,
      /carries CloudEvents, but topic 'orders' takes events in the EventGridSchema schema/,
    ],
    [
      'a CloudEvent as the body',
      cloudEvent('a'),
      'application/json',
      /This topic takes events in the EventGridSchema schema, and the request body looks like a CloudEvent/,
    ],
    [
      'a batch of CloudEvents',
      [gridEvent('a'), cloudEvent('b')],
      'application/json',
      /Event at index 1: eventType is required: this topic takes events in the EventGridSchema schema/,
    ],
  ])(
    'an Event Grid topic refuses %s, saying which schema it takes',
    async (_what, body, contentType, message) => {
      const { publish, queue } = setup('EventGridSchema', [subscription()]);
      const error = await rejection(publish(body, contentType));
      expect(error.kind).toBe('invalid');
      expect(error.message).toMatch(message);
      expect(queue.sent).toHaveLength(0);
    },
  );

  it('keeps the publish limits: events per request, request size and the queued size of one event', async () => {
    const { publish, queue } = setup();
    const many = Array.from({ length: PUBLISH_LIMITS.maxEventsPerRequest + 1 }, (_, i) => ({ id: `${i}` }));
    const tooMany = await rejection(publish(many));
    expect([tooMany.kind, tooMany.code]).toEqual(['invalid', 'TooManyEvents']);
    const big = await rejection(
      publish([cloudEvent('big', { data: 'x'.repeat(PUBLISH_LIMITS.maxRequestBytes) })]),
    );
    expect([big.kind, big.code]).toEqual(['tooLarge', 'PayloadTooLarge']);
    const quoted = await rejection(
      publish(cloudEvent('q', { data: '"'.repeat(Math.floor(PUBLISH_LIMITS.maxEventBytes / 2)) }), SINGLE),
    );
    expect([quoted.kind, quoted.message]).toEqual([
      'tooLarge',
      expect.stringMatching(/^Event at index 0 is \d+ bytes as queued/),
    ]);
    expect(queue.sent).toHaveLength(0);
  });
});

describe('RFC 3339 times', () => {
  it.each([
    '2026-01-01T10:00:00Z',
    '2026-01-01t10:00:00.123456+01:00',
    '2016-12-31T23:59:60Z',
    '2026-02-28T00:00:00-05:30',
  ])('takes %s', (time) => expect(isRfc3339(time)).toBe(true));
  it.each([
    '2026-01-01',
    '2026-13-01T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:00Z',
    'yesterday',
    '2026-01-01T10:00:00+0100',
  ])('refuses %s', (time) => expect(isRfc3339(time)).toBe(false));
});

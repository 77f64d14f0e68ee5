/**
 * Publishing to namespace topics through the publisher: the namespace's keys, CloudEvents in
 * structured, batch and binary mode, the 1,000-event limit, and jobs for the topic's push
 * subscriptions under the `<namespace>/<topic>` identity.
 */
import { namespacePublisher } from '../../support/fakes';

const setup = namespacePublisher;

const event = (id: string) => ({ specversion: '1.0', id, source: '/shop', type: 'Shop.OrderCreated' });
const structured = { 'content-type': 'application/cloudevents+json; charset=utf-8' };
const batch = { 'content-type': 'application/cloudevents-batch+json; charset=utf-8' };

describe('publishing to a namespace topic', () => {
  it('queues one job per push subscription under the namespace topic identity', async () => {
    const { send, queue, listed } = setup();
    await expect(
      send({ headers: structured, body: Buffer.from(JSON.stringify(event('e1'))) }),
    ).resolves.toMatchObject({ accepted: 1, matchedSubscriptions: 1, messages: 1 });
    expect(listed).toEqual(['shop/orders']);
    const [job] = queue.take();
    expect(job?.job.target).toMatchObject({
      topic: { namespace: 'shop', name: 'orders' },
      subscription: 'push',
    });
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

  // [what, the request, the refusal (an ApiError for the key or topic, a PublishRejection for the
  // events), what the message says]
  it.each([
    [
      'no key',
      { key: undefined },
      { statusCode: 401 },
      /has no access key: send Authorization: SharedAccessKey/,
    ],
    ['a wrong key', { key: 'nope' }, { statusCode: 401 }, /not valid for namespace 'shop'/],
    [
      'an unknown topic',
      { topic: 'nothing' },
      { statusCode: 404 },
      /'nothing' does not exist in namespace 'shop'/,
    ],
    // The same answer as a wrong key: namespace names can't be probed.
    [
      'an unknown namespace',
      { namespace: 'other' },
      { statusCode: 401 },
      /^The access key is not valid for namespace 'other'\.$/,
    ],
    [
      'a plain JSON content type',
      { headers: { 'content-type': 'application/json' }, body: Buffer.from('[]') },
      { kind: 'invalid', code: 'InvalidContentType' },
      /not accepted: a namespace topic takes CloudEvents/,
    ],
    [
      'more than 1,000 events',
      {
        headers: batch,
        body: Buffer.from(JSON.stringify(Array.from({ length: 1001 }, (_, i) => event(`e${i}`)))),
      },
      { kind: 'invalid', code: 'TooManyEvents' },
      /1001 events; at most 1000/,
    ],
  ] as const)('refuses %s (%o), queueing nothing', async (_what, request, refusal, message) => {
    const { send, queue } = setup();
    await expect(
      send({ headers: structured, body: Buffer.from(JSON.stringify(event('x'))), ...request }),
    ).rejects.toMatchObject({
      ...refusal,
      message: expect.stringMatching(message),
    });
    expect(queue.sent).toEqual([]);
  });
});

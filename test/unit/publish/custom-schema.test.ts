import type { InputSchemaMapping } from '../../../shared/domain/model';
import { readPublishBody } from '../../../shared/publish/body-reader';
import { parseCustomEvents } from '../../../shared/publish/custom-schema';
import { PUBLISH_LIMITS } from '../../../shared/publish/limits';
import { PublishRejection } from '../../../shared/publish/rejection';
import { queuedItemBytes } from '../../../shared/queue/job-codec';

const PUBLISHED_AT = Date.parse('2026-11-23T08:00:00.000Z');

const mapping: InputSchemaMapping = {
  id: { sourceField: 'orderId' },
  eventTime: { sourceField: 'at' },
  eventType: { sourceField: 'kind', defaultValue: 'Order.Unknown' },
  subject: { sourceField: 'path', defaultValue: 'orders' },
  dataVersion: { defaultValue: '1.0' },
};

function parse(body: unknown, options: { text?: string; mapping?: InputSchemaMapping } = {}) {
  let next = 0;
  return parseCustomEvents(readPublishBody(Buffer.from(options.text ?? JSON.stringify(body))), {
    topicName: 'shop',
    mapping: options.mapping ?? mapping,
    publishedAt: PUBLISHED_AT,
    newId: () => `generated-${++next}`,
  });
}

function refusal(body: unknown, options: { text?: string; mapping?: InputSchemaMapping } = {}) {
  try {
    parse(body, options);
  } catch (error) {
    expect(error).toBeInstanceOf(PublishRejection);
    const { kind, code, message } = error as PublishRejection;
    return { kind, code, message };
  }
  throw new Error('expected the events to be refused');
}

describe('custom input schema mapping', () => {
  it('maps fields from the event, keeps the published object as data byte for byte', () => {
    const text =
      '[{"orderId":"o-1","kind":"Created","at":"2026-11-22T10:00:00Z","path":"orders/1","total":1.50,"big":12345678901234567890}]';
    const [event] = parse(JSON.parse(text), { text });
    expect(event).toEqual({
      id: 'o-1',
      ownId: 'o-1',
      eventType: 'Created',
      dataVersion: '1.0',
      json: `{"id":"o-1","eventTime":"2026-11-22T10:00:00Z","eventType":"Created","dataVersion":"1.0","metadataVersion":"1","topic":"/gridwire/topics/shop","subject":"orders/1","data":${text.slice(1, -1)}}`,
      queuedBytes: expect.any(Number),
      // The published object, parsed: what a topic's event catalog checks.
      data: JSON.parse(text)[0],
    });
    // The size the publish limits counted, which the fan-out cap adds up.
    expect(event?.queuedBytes).toBe(
      queuedItemBytes({ eventId: 'o-1', dataVersion: '1.0', eventJson: event?.json ?? '' }),
    );
  });

  it('uses defaults for absent, null or empty members; generates the id; stamps the publish time', () => {
    const events = parse([{ kind: null }, { kind: '', path: '' }, {}]);
    for (const [index, event] of events.entries()) {
      expect(event.id).toBe(`generated-${index + 1}`);
      // A generated id is nobody's: de-duplication never counts such an event a repeat.
      expect(event.ownId).toBeUndefined();
      expect(event.eventType).toBe('Order.Unknown');
      const parsed = JSON.parse(event.json);
      expect(parsed.subject).toBe('orders');
      expect(parsed.eventTime).toBe('2026-11-23T08:00:00.000Z');
    }
  });

  it('takes numbers as written for mapped fields (ids beyond double precision keep every digit)', () => {
    const text = '{"orderId":90071992547409931,"kind":"Created","version":2}';
    const [event] = parse(JSON.parse(text), {
      text,
      mapping: { ...mapping, dataVersion: { sourceField: 'version' } },
    });
    expect(event?.id).toBe('90071992547409931');
    expect(event?.dataVersion).toBe('2');
  });

  it('takes one object as one event, and an array as many', () => {
    expect(parse({ kind: 'A' })).toHaveLength(1);
    expect(parse([{ kind: 'A' }, { kind: 'B' }]).map((event) => event.eventType)).toEqual(['A', 'B']);
  });

  it('leaves dataVersion empty when the mapping gives none', () => {
    const [event] = parse(
      { kind: 'A' },
      { mapping: { eventType: { sourceField: 'kind' }, subject: { defaultValue: 's' } } },
    );
    expect(event?.dataVersion).toBe('');
  });

  it('accepts a mapped topic naming this topic, in any case', () => {
    const [event] = parse(
      { kind: 'A', t: '/GRIDWIRE/topics/Shop' },
      { mapping: { ...mapping, topic: { sourceField: 't' } } },
    );
    expect(JSON.parse(event?.json ?? '').topic).toBe('/gridwire/topics/shop');
  });

  const noDefaults: InputSchemaMapping = {
    eventType: { sourceField: 'kind' },
    subject: { sourceField: 'path' },
    eventTime: { sourceField: 'at' },
    topic: { sourceField: 't' },
  };

  // [what, body, mapping, kind of refusal, message]
  it.each([
    [
      'a string body',
      '"hello"',
      mapping,
      'invalid',
      /must be a JSON object \(one event\) or an array of JSON objects \(got a string\)/,
    ],
    ['a number body', '42', mapping, 'invalid', /\(got a number\)/],
    ['null', 'null', mapping, 'invalid', /\(got null\)/],
    ['an empty array', '[]', mapping, 'invalid', /holds no events/],
    [
      'an array holding a string',
      '[{"kind":"A"},"x"]',
      mapping,
      'invalid',
      /Event at index 1 must be a JSON object \(got a string\)/,
    ],
    [
      'an array holding an array',
      '[[]]',
      mapping,
      'invalid',
      /Event at index 0 must be a JSON object \(got an array\)/,
    ],
    [
      'a missing eventType without default',
      '[{"path":"p"}]',
      noDefaults,
      'invalid',
      /Event at index 0: eventType has no value: member 'kind' is absent or empty/,
    ],
    [
      'an empty subject without default',
      '[{"kind":"A","path":""}]',
      noDefaults,
      'invalid',
      /Event at index 0: subject has no value/,
    ],
    [
      'an object as eventType',
      '[{"kind":{"a":1},"path":"p"}]',
      noDefaults,
      'invalid',
      /member 'kind' \(mapped to eventType\) must be a string or a number \(got an object\)/,
    ],
    [
      'a boolean as subject',
      '[{"kind":"A","path":true}]',
      noDefaults,
      'invalid',
      /member 'path' \(mapped to subject\) must be a string or a number \(got a boolean\)/,
    ],
    [
      'an invalid eventTime',
      '[{"kind":"A","path":"p","at":"yesterday"}]',
      noDefaults,
      'invalid',
      /member 'at' \(mapped to eventTime\) must be an ISO 8601 date-time/,
    ],
    [
      'another topic',
      '[{"kind":"A","path":"p","t":"/gridwire/topics/other"}]',
      noDefaults,
      'invalid',
      /mapped to topic\) is '\/gridwire\/topics\/other', which is not this topic/,
    ],
  ])('refuses %s', (_what, text, eventMapping, kind, message) => {
    const refused = refusal(JSON.parse(text), { text, mapping: eventMapping });
    expect(refused.kind).toBe(kind);
    expect(refused.message).toMatch(message);
  });

  it(`refuses more than ${PUBLISH_LIMITS.maxEventsPerRequest} events`, () => {
    const body = Array.from({ length: PUBLISH_LIMITS.maxEventsPerRequest + 1 }, () => ({ kind: 'A' }));
    expect(refusal(body)).toEqual({
      kind: 'invalid',
      code: 'TooManyEvents',
      message: expect.stringMatching(/5001 events; at most 5000/),
    });
  });

  it('refuses an event too large once mapped (too large, naming its index)', () => {
    const big = { kind: 'A', blob: 'x'.repeat(PUBLISH_LIMITS.maxEventBytes) };
    expect(refusal([{ kind: 'A' }, big])).toEqual({
      kind: 'tooLarge',
      code: 'PayloadTooLarge',
      message: expect.stringMatching(/^Event at index 1 is \d+ bytes as queued/),
    });
  });
});

import { eventGridToCloudEvent, eventInDeliverySchema } from '../../../../shared/delivery/rules/convert';

/** An Event Grid event as queued (stamped), with `data` written as `dataText` (or none). */
const stored = (dataText: string | undefined, dataVersion = '2.0') =>
  `{"id":"order-1","subject":"orders/1","eventType":"Shop.OrderCreated","eventTime":"2026-11-22T10:00:00.1234567Z"${
    dataText === undefined ? '' : `,"data":${dataText}`
  },"topic":"/gridwire/topics/orders","metadataVersion":"1","dataVersion":${JSON.stringify(dataVersion)}}`;

const head =
  '{"specversion":"1.0","id":"order-1","source":"/gridwire/topics/orders","type":"Shop.OrderCreated","subject":"orders/1","time":"2026-11-22T10:00:00.1234567Z"';

describe('Event Grid to CloudEvents 1.0', () => {
  it.each([
    ['an object', '{"carrier":"DHL","n":1.50}'],
    ['an array', '[1, "two", {"three": 3}]'],
    ['a number', '42'],
    ['a string', '"hello"'],
    ['null', 'null'],
    ['a big number and an exponent beyond double precision', '{"big":9007199254740993,"huge":1e400}'],
    ['unicode and escapes', '{"name":"Zoë 🚚 \\u00e9\\n","__proto__":{"x":1}}'],
  ])('maps the attributes and keeps data as %s byte for byte', (_what, dataText) => {
    expect(eventGridToCloudEvent(stored(dataText))).toBe(
      `${head},"dataversion":"2.0","datacontenttype":"application/json","data":${dataText}}`,
    );
  });

  it('leaves data out when the event has none', () => {
    expect(eventGridToCloudEvent(stored(undefined))).toBe(
      `${head},"dataversion":"2.0","datacontenttype":"application/json"}`,
    );
  });

  it('leaves dataversion out when dataVersion is empty', () => {
    const converted = eventGridToCloudEvent(stored('{}', ''));
    expect(converted).toBe(`${head},"datacontenttype":"application/json","data":{}}`);
    expect(JSON.parse(converted)).not.toHaveProperty('dataversion');
  });

  it('writes attribute values as JSON strings, escapes and all', () => {
    const text =
      '{"id":"a\\"b\\u00e9","subject":"s/\\u2028","eventType":"T","eventTime":"2026-01-01T00:00:00Z","topic":"/gridwire/topics/x","metadataVersion":"1","dataVersion":""}';
    const converted = JSON.parse(eventGridToCloudEvent(text));
    expect(converted).toEqual({
      specversion: '1.0',
      id: 'a"bé',
      source: '/gridwire/topics/x',
      type: 'T',
      subject: 's/\u2028',
      time: '2026-01-01T00:00:00Z',
      datacontenttype: 'application/json',
    });
  });

  it('drops Event Grid members the CloudEvent has no place for', () => {
    const converted = JSON.parse(eventGridToCloudEvent(stored('1')));
    expect(Object.keys(converted)).toEqual([
      'specversion',
      'id',
      'source',
      'type',
      'subject',
      'time',
      'dataversion',
      'datacontenttype',
      'data',
    ]);
  });

  it('leaves a text that is already a CloudEvent unchanged', () => {
    const cloudEvent = '{"specversion":"1.0","id":"ce-1","source":"/o","type":"t","data":{"n":1.50}}';
    expect(eventGridToCloudEvent(cloudEvent)).toBe(cloudEvent);
  });

  it('converts only for CloudEvents subscriptions', () => {
    const text = stored('{"n":1}');
    expect(eventInDeliverySchema('EventGridSchema', text)).toBe(text);
    expect(eventInDeliverySchema('CloudEventSchemaV1_0', text)).toBe(eventGridToCloudEvent(text));
  });
});

describe('custom input back out of its queued form', () => {
  const published = '{"kind":"Created","big":9007199254740993,"note":"Zoë \\u00e9","nested":{"a":[1,2]}}';
  const queued = `{"id":"e-1","eventTime":"2026-11-22T10:00:00.000Z","eventType":"Created","dataVersion":"1.0","metadataVersion":"1","topic":"/gridwire/topics/shop","subject":"s","data":${published}}`;

  it('delivers the published object, byte for byte, for CustomInputSchema subscriptions', () => {
    expect(eventInDeliverySchema('CustomInputSchema', queued)).toBe(published);
  });

  it('delivers the mapped Event Grid form as is, and converts it for CloudEvents subscriptions', () => {
    expect(eventInDeliverySchema('EventGridSchema', queued)).toBe(queued);
    expect(eventInDeliverySchema('CloudEventSchemaV1_0', queued)).toBe(
      `{"specversion":"1.0","id":"e-1","source":"/gridwire/topics/shop","type":"Created","subject":"s","time":"2026-11-22T10:00:00.000Z","dataversion":"1.0","datacontenttype":"application/json","data":${published}}`,
    );
  });

  it('leaves a text without an Event Grid envelope unchanged', () => {
    expect(eventInDeliverySchema('CustomInputSchema', published)).toBe(published);
  });
});

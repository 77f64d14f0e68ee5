/**
 * The publish body reader, which every content mode goes through: the request size, UTF-8, JSON,
 * nesting and unique-member rules, for bodies that hold events and for the data of a binary-mode
 * CloudEvent.
 */
import { readBinaryCloudEvent, readPublishBody } from '../../../shared/publish/body-reader';
import { PUBLISH_LIMITS } from '../../../shared/publish/limits';
import { PublishRejection } from '../../../shared/publish/rejection';
import { BINARY_JSON, nested, VERY_DEEP } from '../../support/malformed-publishes';

function refusal(read: () => unknown): PublishRejection {
  try {
    read();
  } catch (error) {
    if (error instanceof PublishRejection) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

describe('the publish body reader', () => {
  it('takes a body of exactly 1 MiB and refuses one byte more as too large, naming the limit', () => {
    const padding = PUBLISH_LIMITS.maxRequestBytes - '[{"a":""}]'.length;
    const exact = `[{"a":"${'x'.repeat(padding)}"}]`;
    expect(readPublishBody(Buffer.from(exact)).text).toBe(exact);
    const error = refusal(() => readPublishBody(Buffer.from(`${exact} `)));
    expect([error.kind, error.code, error.message]).toEqual([
      'tooLarge',
      'PayloadTooLarge',
      'The request body is 1048577 bytes; the limit is 1048576 bytes.',
    ]);
  });

  it('refuses an empty body and text that is not JSON', () => {
    expect(refusal(() => readPublishBody(Buffer.alloc(0))).message).toMatch(/body is empty/);
    expect(refusal(() => readPublishBody(Buffer.from('[{'))).message).toMatch(
      /^The request body is not valid JSON: /,
    );
  });

  describe('UTF-8', () => {
    it('takes any valid UTF-8, U+FFFD written by the publisher included', () => {
      const text = '[{"s":"café 🎉 \uFFFD \u2028"}]';
      expect(readPublishBody(Buffer.from(text)).value).toEqual([{ s: 'café 🎉 \uFFFD \u2028' }]);
    });

    it.each([
      ['a lone continuation byte', bytes('["', [0x80], '"]'), 2],
      ['a byte that never occurs (0xff)', bytes('["ab', [0xff], '"]'), 4],
      ['a sequence cut short', bytes('["', [0xe2, 0x82], '"]'), 2],
      ['an overlong encoding of "/"', bytes('["', [0xc0, 0xaf], '"]'), 2],
      ['an encoded surrogate', bytes('["', [0xed, 0xa0, 0x80], '"]'), 2],
      ['an invalid byte after a U+FFFD the publisher wrote', bytes('["\uFFFDé', [0xfe], '"]'), 7],
      ['Latin-1 text', Buffer.from('["café"]', 'latin1'), 5],
    ])('refuses %s as invalid input naming the offset (never replaced)', (_what, body, offset) => {
      const error = refusal(() => readPublishBody(body));
      expect([error.kind, error.code, error.message]).toEqual([
        'invalid',
        'InputJsonInvalid',
        `The request body is not valid UTF-8 (the first invalid byte is at offset ${offset}); JSON must be sent as UTF-8.`,
      ]);
    });
  });

  describe('nesting', () => {
    it('takes 100 levels and refuses 101, naming the event index in a batch', () => {
      expect(() => readPublishBody(Buffer.from(nested(100)))).not.toThrow();
      expect(refusal(() => readPublishBody(Buffer.from(nested(101)))).message).toBe(
        'The request body nests more than 100 levels deep (in the event at index 0); at most 100 levels of arrays and objects are allowed.',
      );
      expect(refusal(() => readPublishBody(Buffer.from(`{"a":${nested(100)}}`))).message).toBe(
        'The request body nests more than 100 levels deep; at most 100 levels of arrays and objects are allowed.',
      );
      expect(refusal(() => readPublishBody(Buffer.from(`[{},1,${nested(VERY_DEEP)}]`))).message).toMatch(
        /\(in the event at index 2\)/,
      );
    });

    it('does not count brackets inside strings', () => {
      const text = `[{"s":"${'[{'.repeat(500)}\\"]"}]`;
      expect(readPublishBody(Buffer.from(text)).text).toBe(text);
    });
  });

  describe('repeated members', () => {
    it.each([
      [
        'at the top of an event',
        '[{"a":1},{"eventType":"Evil","b":2,"eventType":"Safe"}]',
        1,
        "'eventType'",
        '',
      ],
      ['written once escaped', '{"id":"1","\\u0069d":"2"}', 0, "'id'", ''],
      ['inside data', '[{"data":{"x":[{"k":1,"k":2}]}}]', 0, "'k'", ' in data.x[0]'],
      ['under an odd name', '[{"a b":{"k":1,"k":1}}]', 0, "'k'", ' in ["a b"]'],
      [
        'in an object of many members',
        `[{${Array.from({ length: 40 }, (_, i) => `"m${i}":${i}`).join(',')},"m33":0}]`,
        0,
        "'m33'",
        '',
      ],
    ])('refuses a member repeated %s, naming it and the event index', (_what, text, index, name, where) => {
      const error = refusal(() => readPublishBody(Buffer.from(text)));
      expect([error.kind, error.code, error.message]).toEqual([
        'invalid',
        'InputJsonInvalid',
        `Event at index ${index}: member ${name} appears more than once${where}; a member may appear only once in an object (receivers would disagree on which one counts).`,
      ]);
    });

    it('takes one name in sibling objects, at different levels, and as a string value', () => {
      const text = '[{"k":{"k":[{"k":1},{"k":2}]},"v":"k"},{"k":"k"}]';
      expect(readPublishBody(Buffer.from(text)).value).toEqual(JSON.parse(text));
    });
  });
});

describe('the binary-mode reader', () => {
  it('reads a JSON body as the data, as written, and the value as its parse', () => {
    const body = `{"big":9007199254740993,"deep":${nested(99)}}`;
    const read = readBinaryCloudEvent(BINARY_JSON, Buffer.from(body));
    expect(read.text).toBe(
      `{"specversion":"1.0","id":"b-1","source":"/shop","type":"Order.Created","datacontenttype":"application/json","data":${body}}`,
    );
    expect(read.value).toEqual(JSON.parse(read.text));
  });

  it('applies the nesting, UTF-8 and unique-member rules to a JSON body', () => {
    expect(() => readBinaryCloudEvent(BINARY_JSON, Buffer.from(nested(100)))).not.toThrow();
    expect(refusal(() => readBinaryCloudEvent(BINARY_JSON, Buffer.from(nested(VERY_DEEP)))).message).toBe(
      "The request body (the event's data) nests more than 100 levels deep; at most 100 levels of arrays and objects are allowed.",
    );
    expect(refusal(() => readBinaryCloudEvent(BINARY_JSON, bytes('"', [0xc3], '"'))).message).toMatch(
      /not valid UTF-8 \(the first invalid byte is at offset 1\)/,
    );
    expect(
      refusal(() => readBinaryCloudEvent(BINARY_JSON, Buffer.from('[{"a":{"b":1,"b":2}}]'))).message,
    ).toMatch(/^Event at index 0: member 'b' appears more than once in data\[0\]\.a;/);
    expect(refusal(() => readBinaryCloudEvent(BINARY_JSON, Buffer.from('{"a":'))).message).toMatch(
      /^The body is not valid JSON, which its Content-Type 'application\/json' says it is: /,
    );
  });

  it('takes any bytes as data when the content type is not JSON, deep brackets and invalid UTF-8 included', () => {
    const body = Buffer.concat([Buffer.from(nested(VERY_DEEP)), Buffer.from([0xff, 0xfe, 0x80, 0])]);
    const headers = { ...BINARY_JSON, 'content-type': 'application/octet-stream' };
    const read = readBinaryCloudEvent(headers, body);
    const data = Buffer.from((read.value as { data_base64: string }).data_base64, 'base64');
    // Compared as bytes (a matcher comparing 200,000 elements one by one is slow).
    expect(data.equals(body)).toBe(true);
    expect(read.text).toBe(JSON.stringify(read.value));
  });

  it('refuses a body over 1 MiB in any content type as too large', () => {
    for (const contentType of ['application/json', 'text/plain']) {
      const body = Buffer.alloc(PUBLISH_LIMITS.maxRequestBytes + 1, 0x20);
      const error = refusal(() =>
        readBinaryCloudEvent({ ...BINARY_JSON, 'content-type': contentType }, body),
      );
      expect([error.kind, error.code, error.message]).toEqual([
        'tooLarge',
        'PayloadTooLarge',
        'The request body is 1048577 bytes; the limit is 1048576 bytes.',
      ]);
    }
  });
});

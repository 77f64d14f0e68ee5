import { CloudEvent, HTTP } from 'cloudevents';
import { readBinaryCloudEvent } from '../../../shared/publish/body-reader';
import { isBinaryCloudEvent } from '../../../shared/publish/cloud-events-binary';
import { parseCloudEvents } from '../../../shared/publish/cloud-events-schema';
import { PublishRejection } from '../../../shared/publish/rejection';

/** A binary-mode request as the CloudEvents SDK writes it, read back as one validated event. */
function roundTrip(event: CloudEvent<unknown>) {
  const message = HTTP.binary(event);
  const headers = message.headers as Record<string, string>;
  const body = Buffer.isBuffer(message.body)
    ? message.body
    : Buffer.from(typeof message.body === 'string' ? message.body : JSON.stringify(message.body ?? ''));
  expect(isBinaryCloudEvent(headers)).toBe(true);
  const read = readBinaryCloudEvent(headers, body);
  const { text } = read;
  const [parsed] = parseCloudEvents(read, false);
  return { text, parsed, json: JSON.parse(text) as Record<string, unknown> };
}

const binaryText = (headers: Record<string, string>, body: Buffer) =>
  readBinaryCloudEvent(headers, body).text;

/** The required attributes as binary-mode headers. */
const required = { 'ce-specversion': '1.0', 'ce-id': 'x', 'ce-source': '/s', 'ce-type': 't' };

describe('CloudEvents in binary mode', () => {
  it('turns ce-* headers and a JSON body into the structured event, data as written', () => {
    const { json, parsed } = roundTrip(
      new CloudEvent({
        id: 'bin-1',
        source: '/shop',
        type: 'Shop.Shipped',
        subject: 'orders/1',
        time: '2026-11-23T10:00:00.000Z',
        tenant: 'acme',
        datacontenttype: 'application/json',
        data: { carrier: 'DHL', n: 1.5 },
      }),
    );
    expect(json).toMatchObject({
      specversion: '1.0',
      id: 'bin-1',
      source: '/shop',
      type: 'Shop.Shipped',
      subject: 'orders/1',
      time: '2026-11-23T10:00:00.000Z',
      tenant: 'acme',
      datacontenttype: 'application/json',
      data: { carrier: 'DHL', n: 1.5 },
    });
    expect(parsed?.id).toBe('bin-1');
  });

  it('keeps a JSON body byte for byte (numbers beyond double precision too)', () => {
    const text = binaryText(
      { ...required, 'content-type': 'application/json' },
      Buffer.from('{"big":9007199254740993,"p":1.50}'),
    );
    expect(text).toContain('"data":{"big":9007199254740993,"p":1.50}');
  });

  it('carries a body of another type as data_base64', () => {
    const body = Buffer.from([0, 1, 2, 250, 255]);
    const read = readBinaryCloudEvent({ ...required, 'content-type': 'application/octet-stream' }, body);
    const json = JSON.parse(read.text);
    expect(json.datacontenttype).toBe('application/octet-stream');
    expect(Buffer.from(json.data_base64, 'base64')).toEqual(body);
    expect(parseCloudEvents(read, false)).toHaveLength(1);
  });

  it('percent-decodes header values', () => {
    const text = binaryText({ ...required, 'ce-subject': 'caf%C3%A9%20au%20lait' }, Buffer.alloc(0));
    expect(JSON.parse(text).subject).toBe('café au lait');
  });

  it('leaves data out for an empty body, and is not binary without ce-specversion', () => {
    expect(JSON.parse(binaryText({ 'ce-specversion': '1.0', 'ce-id': 'x' }, Buffer.alloc(0)))).toEqual({
      specversion: '1.0',
      id: 'x',
    });
    expect(isBinaryCloudEvent({ 'content-type': 'application/json', 'ce-id': 'x' })).toBe(false);
  });

  it.each([
    [{ 'ce-specversion': '1.0', 'content-type': 'application/json' }, '{not json', /body is not valid JSON/],
    [
      { 'ce-specversion': '1.0', 'ce-subject': '%E0%A4%A' },
      '',
      /Header ce-subject: the value is not valid percent-encoded UTF-8/,
    ],
    [
      { 'ce-specversion': '1.0', 'ce-datacontenttype': 'text/plain' },
      '',
      /Header ce-datacontenttype is not allowed in binary mode/,
    ],
  ])('refuses %j as invalid input naming the problem', (headers, body, message) => {
    try {
      binaryText(headers, Buffer.from(body));
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(PublishRejection);
      expect(error).toMatchObject({ kind: 'invalid', code: 'InputJsonInvalid' });
      expect((error as Error).message).toMatch(message);
    }
  });

  it('leaves attribute validation to the structured rules (a missing type is named there)', () => {
    const read = readBinaryCloudEvent(
      { 'ce-specversion': '1.0', 'ce-id': 'x', 'ce-source': '/s' },
      Buffer.alloc(0),
    );
    expect(() => parseCloudEvents(read, false)).toThrow(/Event at index 0: type is required/);
  });
});

import { SQS_LIMITS } from '../../../shared/config/resources';
import {
  JOB_TARGET_BYTES,
  MAX_QUEUED_EVENT_BYTES,
  packEndedJobs,
  packJobs,
  parseJob,
  queuedItemBytes,
  queuedStringBytes,
  sqsSafeJson,
} from '../../../shared/queue/job-codec';
import { item, parseDeliveryJob } from '../../support/fakes';

const envelope = { topic: 'orders', subscription: 'audit' };
const ITEM = item('e', 1);
const bytes = (body: string) => Buffer.byteLength(body, 'utf8');

describe('packing delivery jobs', () => {
  it('puts a hundred small events in one message', () => {
    const items = Array.from({ length: 100 }, (_, i) => item(`e${i}`, 1));
    const bodies = packJobs(envelope, items);
    expect(bodies).toHaveLength(1);
    expect(parseDeliveryJob(bodies[0] ?? '').items).toHaveLength(100);
  });

  it('splits at the target size and keeps every event, in order', () => {
    const big = 'x'.repeat(10_000);
    const items = Array.from({ length: 60 }, (_, i) => item(`e${i}`, 1, { event: { data: big } }));
    const bodies = packJobs(envelope, items);
    expect(bodies.length).toBeGreaterThan(2);
    for (const body of bodies) expect(bytes(body)).toBeLessThanOrEqual(JOB_TARGET_BYTES);
    expect(bodies.flatMap((body) => parseDeliveryJob(body).items.map((i) => i.eventId))).toEqual(
      items.map((i) => i.eventId),
    );
  });

  it('sends an event larger than the target alone, still under the SQS limit', () => {
    const huge = item('huge', 1, {
      event: { data: 'y'.repeat(MAX_QUEUED_EVENT_BYTES - 400) },
    });
    const bodies = packJobs(envelope, [item('a', 1), huge, item('b', 1)]);
    expect(bodies.map((body) => parseDeliveryJob(body).items.map((i) => i.eventId))).toEqual([
      ['a'],
      ['huge'],
      ['b'],
    ]);
    expect(bytes(bodies[1] ?? '')).toBeLessThanOrEqual(SQS_LIMITS.maxMessageBytes);
  });

  it('refuses an item that no SQS message can hold', () => {
    const tooBig = item('x', 1, {
      event: { data: 'z'.repeat(SQS_LIMITS.maxMessageBytes) },
    });
    expect(() => packJobs(envelope, [tooBig])).toThrow(/an SQS message holds at most 1048576/);
  });

  it('carries the due time and counts multi-byte characters as bytes', () => {
    const items = [item('e', 1, { event: { data: 'é'.repeat(200_000) } }), item('f', 1)];
    const bodies = packJobs({ ...envelope, dueAt: 1234.6 }, items);
    expect(bodies).toHaveLength(2);
    expect(parseDeliveryJob(bodies[0] ?? '').dueAt).toBe(1235);
  });
});

describe('reading delivery jobs', () => {
  it('round-trips a job', () => {
    const [body] = packJobs({ ...envelope, dueAt: 99 }, [
      item('e1', 5, { attempts: 2, lastOutcome: 'Busy', lastHttpStatus: 503 }),
    ]);
    expect(parseJob(body ?? '')).toEqual({
      v: 1,
      topic: 'orders',
      subscription: 'audit',
      dueAt: 99,
      items: [item('e1', 5, { attempts: 2, lastOutcome: 'Busy', lastHttpStatus: 503 })],
    });
  });

  it.each([
    ['not json', /not JSON/],
    ['{"v":2,"topic":"t","subscription":"s","items":[]}', /malformed at v/],
    ['{"v":1,"topic":"t","subscription":"s","items":[]}', /malformed at items/],
    [
      `{"v":1,"topic":"t","subscription":"s","items":[{"deliveryId":"d","eventId":"e","dataVersion":"1.0","eventJson":${JSON.stringify(ITEM.eventJson)},"attempts":-1,"publishedAt":1}]}`,
      /malformed at items.0.attempts/,
    ],
    [
      `{"v":1,"topic":"t","subscription":"s","items":[{"deliveryId":"d","eventId":"e","dataVersion":"1.0","eventJson":${JSON.stringify(ITEM.eventJson)},"attempts":0,"publishedAt":1,"lastOutcome":"Nope"}]}`,
      /items.0.lastOutcome/,
    ],
  ])('refuses %s', (body, message) => {
    expect(() => parseDeliveryJob(body)).toThrow(message);
  });
});

describe('characters SQS refuses', () => {
  const astral = '🎉 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𠜎 \uFFFE \uFFFF';

  it('writes them as escapes, so the message body holds only characters every SQS accepts', () => {
    const event = { subject: astral, data: { [astral]: [astral, { deep: astral }] } };
    const [body] = packJobs(envelope, [item('🎉', 1, { event })]);
    // The set real SQS allows: #x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF; the local
    // emulator (no `u` flag) also refuses the last range, so none of it may appear.
    const allowed = (code: number) =>
      code === 0x09 ||
      code === 0x0a ||
      code === 0x0d ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd);
    expect([...(body ?? '')].filter((char) => !allowed(char.charCodeAt(0)))).toEqual([]);
    expect(sqsSafeJson('"🎉"')).toBe('"\\ud83c\\udf89"');
  });

  it('gives back exactly the same strings when read', () => {
    const sent = item('🎉', 1, {
      event: { subject: astral, data: { [astral]: [astral, { deep: astral }] } },
    });
    const [body] = packJobs(envelope, [sent]);
    expect(parseDeliveryJob(body ?? '').items[0]?.eventJson).toBe(sent.eventJson);
  });
});

describe('the queued size of an event', () => {
  const longWay = (text: string) => bytes(sqsSafeJson(JSON.stringify(text)));

  it.each([
    ['empty', ''],
    ['printable ASCII', '{"id":"a-1","data":{"n":1.50}}'],
    ['quotes and backslashes', '{"path":"C:\\\\dir\\"x\\""}'],
    ['control characters', 'line\nbreak\ttab\u0001'],
    ['DEL and Latin-1', 'caf\u00e9 \u007f'],
    ['beyond U+FFFF and U+FFFE', '🎉 𠜎 \uFFFE \uFFFF'],
    ['a lone surrogate', 'x\ud800y'],
  ])('counts %s exactly as the text is written into a job', (_label, text) => {
    expect(queuedStringBytes(text)).toBe(longWay(text));
  });

  it('is the size of the item in its largest state, as packed', () => {
    const eventJson = '{"id":"a \\"quoted\\" 🎉","data":{"big":9007199254740993}}';
    const largest = {
      deliveryId: `${'f'.repeat(36)}.${Number.MAX_SAFE_INTEGER}`,
      eventId: 'a "quoted" 🎉',
      dataVersion: '2.0',
      eventJson,
      attempts: Number.MAX_SAFE_INTEGER,
      publishedAt: Number.MAX_SAFE_INTEGER,
      lastOutcome: 'InvalidAzureFunctionDestination',
      lastHttpStatus: 599,
      lastAttemptAt: Number.MAX_SAFE_INTEGER,
    };
    expect(queuedItemBytes({ eventId: 'a "quoted" 🎉', dataVersion: '2.0', eventJson })).toBe(
      bytes(sqsSafeJson(JSON.stringify(largest))),
    );
  });
});

describe('the job shape is defined once', () => {
  it('keeps every field of a delivery item and of the envelope across a hop', () => {
    const full = item('e1', 5, {
      attempts: 3,
      lastOutcome: 'TimedOut',
      lastHttpStatus: 408,
      lastAttemptAt: 77,
      event: { extension: { custom: true } },
    });
    const [body] = packJobs({ ...envelope, subscriptionVersion: 42, dueAt: 99 }, [full]);
    expect(parseJob(body ?? '')).toEqual({
      v: 1,
      topic: 'orders',
      subscription: 'audit',
      subscriptionVersion: 42,
      dueAt: 99,
      items: [full],
    });
  });

  it('round-trips ended deliveries for the dead-letter step', () => {
    const ended = [
      {
        item: item('e1', 5, { attempts: 30, lastOutcome: 'Busy' as const }),
        reason: 'MaxDeliveryAttemptsExceeded' as const,
        endedAt: 9,
      },
    ];
    const endedEnvelope = {
      ...envelope,
      subscriptionVersion: 3,
      deliveryProfile: 'topic' as const,
      deadLetter: { container: 'dead', format: 'EventGridSchema' as const },
    };
    const [body] = packEndedJobs(endedEnvelope, ended);
    expect(parseJob(body ?? '')).toEqual({ v: 1, kind: 'ended', ...endedEnvelope, ended });
    expect(() => parseDeliveryJob(body ?? '')).toThrow(/expected a delivery job/);
  });
});

import { SQS_LIMITS } from '../../../shared/config/resources';
import { deliveryTargetOf } from '../../../shared/delivery/target';
import {
  type DeadLetterTarget,
  type DeliveryItem,
  type DeliveryTarget,
  deadLetterTargetSchema,
  type EndedDelivery,
  JOB_FORMAT_VERSION,
  type QueuedJob,
} from '../../../shared/domain/delivery';
import { DEAD_LETTER_REASONS } from '../../../shared/domain/model';
import { topicRefOf } from '../../../shared/domain/names';
import {
  backlogTickBody,
  isLegacyJob,
  JOB_ENVELOPE_RESERVE_BYTES,
  JOB_TARGET_BYTES,
  MAX_QUEUED_EVENT_BYTES,
  packEndedJobs,
  packFanOut,
  packJobs,
  packOrderedJobs,
  packStoreJobs,
  parseJob,
  queuedItemBytes,
  queuedStringBytes,
  readJobMessage,
  sqsSafeJson,
  storedFanOutBody,
  validationJobBody,
} from '../../../shared/queue/job-codec';
import type { JobKind } from '../../../shared/queue/job-kinds';
import {
  archiveCopyText,
  archiveJobBody,
  deliveryTarget,
  item,
  parseDeliveryJob,
  replayPageJobBody,
  subscription,
} from '../../support/fakes';
import { formatOneDeliveryBody } from '../../support/job-format-1';

const target = deliveryTarget();
const envelope = { target };
/** The target of a subscription with a dead-letter destination. */
const deadLetterTarget = (overrides: Parameters<typeof deliveryTarget>[0] = {}): DeadLetterTarget =>
  deadLetterTargetSchema.parse(deliveryTarget({ deadLetter: { container: 'dead' }, ...overrides }));
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
      v: JOB_FORMAT_VERSION,
      target: {
        topic: { name: 'orders' },
        subscription: 'audit',
        version: 1,
        profile: 'topic',
        schema: 'EventGridSchema',
      },
      dueAt: 99,
      items: [item('e1', 5, { attempts: 2, lastOutcome: 'Busy', lastHttpStatus: 503 })],
    });
  });

  const targetJson = JSON.stringify(target);
  it.each([
    ['not json', /not JSON/],
    [`{"v":3,"target":${targetJson},"items":[]}`, /format version 3; this release reads versions 1 and 2/],
    [`{"target":${targetJson},"items":[]}`, /format version undefined/],
    [`{"v":2,"target":${targetJson},"items":[]}`, /malformed at items/],
    [`{"v":2,"target":{"topic":"orders","subscription":"audit"},"items":[]}`, /malformed at target.topic/],
    [
      `{"v":2,"target":${targetJson},"items":[{"deliveryId":"d","eventId":"e","dataVersion":"1.0","eventJson":${JSON.stringify(ITEM.eventJson)},"attempts":-1,"publishedAt":1}]}`,
      /malformed at items.0.attempts/,
    ],
    [
      `{"v":2,"target":${targetJson},"items":[{"deliveryId":"d","eventId":"e","dataVersion":"1.0","eventJson":${JSON.stringify(ITEM.eventJson)},"attempts":0,"publishedAt":1,"lastOutcome":"Nope"}]}`,
      /items.0.lastOutcome/,
    ],
  ])('refuses %s', (body, message) => {
    expect(() => parseDeliveryJob(body)).toThrow(message);
  });

  it('reads a message of the first format as a job to upgrade; parseJob, which takes the current format only, says so', () => {
    // What the builds before the delivery target queued: loose topic and subscription fields.
    const body = formatOneDeliveryBody({ topic: 'orders', subscription: 'audit', subscriptionVersion: 3 }, [
      item('e1', 5),
    ]);
    const read = readJobMessage(body);
    expect(isLegacyJob(read)).toBe(true);
    expect(read).toEqual({
      v: 1,
      topic: 'orders',
      subscription: 'audit',
      subscriptionVersion: 3,
      items: [item('e1', 5)],
    });
    expect(() => parseJob(body)).toThrow(/job message of format version 1, an earlier format: .*job-upgrade/);
    expect(isLegacyJob(readJobMessage(packJobs(envelope, [item('e1', 5)])[0] as string))).toBe(false);
  });

  it.each([
    ['{"v":1,"topic":"orders","subscription":"audit","items":[]}', /format version 1 is malformed at items/],
    ['{"v":1,"target":{"topic":{"name":"orders"}},"items":[]}', /format version 1 is malformed at topic/],
    [
      '{"v":1,"kind":"backlog-tick","topic":"orders","subscription":"audit","token":"t"}',
      /format version 1 claims kind 'backlog-tick', which that format never had/,
    ],
    [
      '{"v":1,"kind":"ended","topic":"orders","subscription":"audit","ended":[]}',
      /format version 1 is malformed at deliveryProfile/,
    ],
  ])('refuses %s, a message of the first format it never wrote', (body, message) => {
    expect(() => readJobMessage(body)).toThrow(message);
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
    const fullTarget = deliveryTarget({
      topic: 'shop/orders',
      uid: 'b7d3c1a2-0f4e-4c1b-9a7e-3d2f1e0c9b8a',
      version: 42,
      deliveryProfile: 'namespace',
      eventDeliverySchema: 'CloudEventSchemaV1_0',
      deadLetter: { container: 'dead' },
    });
    const [body] = packJobs({ target: fullTarget, dueAt: 99 }, [full]);
    expect(parseJob(body ?? '')).toEqual({
      v: JOB_FORMAT_VERSION,
      target: {
        topic: { namespace: 'shop', name: 'orders' },
        subscription: 'audit',
        uid: 'b7d3c1a2-0f4e-4c1b-9a7e-3d2f1e0c9b8a',
        version: 42,
        profile: 'namespace',
        schema: 'CloudEventSchemaV1_0',
        deadLetter: { container: 'dead', format: 'namespace' },
      },
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
    const endedTarget = deadLetterTarget({ version: 3 });
    expect(endedTarget).toMatchObject({
      version: 3,
      profile: 'topic',
      deadLetter: { container: 'dead', format: 'EventGridSchema' },
    });
    const [body] = packEndedJobs(endedTarget, ended);
    expect(parseJob(body ?? '')).toEqual({
      v: JOB_FORMAT_VERSION,
      kind: 'ended',
      target: endedTarget,
      ended,
    });
    expect(() => parseDeliveryJob(body ?? '')).toThrow(/expected a delivery job/);
  });

  it('gives back every kind of job as it was packed', () => {
    const namespaceTarget = deliveryTarget({
      topic: 'shop/orders',
      name: 'billing',
      uid: 'c1',
      version: 7,
      deliveryProfile: 'namespace',
      eventDeliverySchema: 'CloudEventSchemaV1_0',
      deadLetter: { container: 'dead' },
    });
    const items = [item('e1', 5), item('e2', 6, { attempts: 1, lastOutcome: 'Busy', lastHttpStatus: 503 })];
    const ended: EndedDelivery[] = [
      {
        item: item('e3', 5, { attempts: 30, lastOutcome: 'TimedOut' }),
        reason: 'MaxDeliveryAttemptsExceeded',
        endedAt: 9,
        customDeliveryProperties: { 'x-tenant': 'acme' },
        failedWrites: 2,
      },
    ];
    const { topic: _topic, ...namespaceFanOutTarget } = namespaceTarget;
    const { topic: _same, ...otherFanOutTarget } = deliveryTarget({ topic: 'shop/orders', name: 'audit' });
    // Each kind's job, and the body the codec makes of it; a kind missing here fails to compile.
    const packed: { [K in JobKind]: { job: QueuedJob; body: string } } = {
      deliver: {
        job: { v: JOB_FORMAT_VERSION, target: namespaceTarget, dueAt: 99, items },
        body: packJobs({ target: namespaceTarget, dueAt: 99 }, items)[0] ?? '',
      },
      validate: {
        job: {
          v: JOB_FORMAT_VERSION,
          kind: 'validate',
          target: namespaceTarget,
          code: 'code-1',
          validationUrl: 'https://gridwire.example.test/validate?code=code-1',
        },
        body: validationJobBody({
          target: namespaceTarget,
          code: 'code-1',
          validationUrl: 'https://gridwire.example.test/validate?code=code-1',
        }),
      },
      fanout: {
        job: {
          v: JOB_FORMAT_VERSION,
          kind: 'fanout',
          topic: { namespace: 'shop', name: 'orders' },
          items,
          targets: [
            { ...namespaceFanOutTarget, matched: [0, 1] },
            { ...otherFanOutTarget, matched: [1] },
          ],
        },
        body: packFanOut({ namespace: 'shop', name: 'orders' }, items, [
          { target: namespaceTarget, matched: [0, 1] },
          { target: deliveryTarget({ topic: 'shop/orders', name: 'audit' }), matched: [1] },
        ]),
      },
      'stored-fanout': {
        job: {
          v: JOB_FORMAT_VERSION,
          kind: 'stored-fanout',
          topic: { namespace: 'shop', name: 'orders' },
          key: 'fan-outs/1',
          bytes: 1234,
        },
        body: storedFanOutBody({ namespace: 'shop', name: 'orders' }, 'fan-outs/1', 1234),
      },
      ended: {
        job: {
          v: JOB_FORMAT_VERSION,
          kind: 'ended',
          target: deadLetterTargetSchema.parse(namespaceTarget),
          ended,
        },
        body: packEndedJobs(deadLetterTargetSchema.parse(namespaceTarget), ended)[0] ?? '',
      },
      store: {
        job: {
          v: JOB_FORMAT_VERSION,
          kind: 'store',
          target: namespaceTarget,
          dueAt: 99,
          heldBy: 'wait',
          items,
        },
        body: packStoreJobs({ target: namespaceTarget, dueAt: 99, heldBy: 'wait' }, items)[0] ?? '',
      },
      'backlog-tick': {
        job: { v: JOB_FORMAT_VERSION, kind: 'backlog-tick', target: namespaceTarget, token: 't-1' },
        body: backlogTickBody(namespaceTarget, 't-1'),
      },
      ordered: {
        job: { v: JOB_FORMAT_VERSION, kind: 'ordered', target: namespaceTarget, key: 'orders/1', items },
        body: packOrderedJobs({ target: namespaceTarget, key: 'orders/1' }, items)[0] ?? '',
      },
      archive: {
        job: {
          v: JOB_FORMAT_VERSION,
          kind: 'archive',
          topic: namespaceTarget.topic,
          copies: [archiveCopyText(namespaceTarget.topic)],
        },
        body: archiveJobBody(namespaceTarget.topic),
      },
      'replay-page': {
        job: {
          v: JOB_FORMAT_VERSION,
          kind: 'replay-page',
          topic: namespaceTarget.topic,
          subscription: 'audit',
          replayId: 'r-1',
        },
        body: replayPageJobBody(namespaceTarget.topic),
      },
    };
    for (const { job, body } of Object.values(packed)) {
      expect(parseJob(body)).toEqual(job);
      // Nothing was added on the way: the body is the job's own JSON, field for field.
      expect(JSON.parse(body)).toEqual(job);
    }
  });
});

describe('the envelope reserve', () => {
  /** A target at its largest: every name at its longest, every optional field present. */
  const largestTarget: DeadLetterTarget = deadLetterTargetSchema.parse(
    deliveryTargetOf(
      subscription({
        topic: `${'n'.repeat(50)}/${'t'.repeat(50)}`,
        name: 's'.repeat(64),
        uid: 'f'.repeat(36),
        version: Number.MAX_SAFE_INTEGER,
        deliveryProfile: 'namespace',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        deadLetter: { container: 'c'.repeat(63) },
      }),
    ),
  );
  const small: DeliveryItem = item('e', 1);
  const longestReason = DEAD_LETTER_REASONS.reduce((longest, reason) =>
    reason.length > longest.length ? reason : longest,
  );

  it('is a target at its largest', () => {
    expect(largestTarget).toEqual({
      topic: { namespace: 'n'.repeat(50), name: 't'.repeat(50) },
      subscription: 's'.repeat(64),
      uid: 'f'.repeat(36),
      version: Number.MAX_SAFE_INTEGER,
      profile: 'namespace',
      schema: 'CloudEventSchemaV1_0',
      deadLetter: { container: 'c'.repeat(63), format: 'namespace' },
    } satisfies DeliveryTarget);
    expect(topicRefOf(`${'n'.repeat(50)}/${'t'.repeat(50)}`)).toEqual(largestTarget.topic);
  });

  it('holds an ended job around one event: its head, the ended-delivery wrapper at its largest and "]}"', () => {
    // Custom delivery properties are left out: their size is the subscription's, and an entry
    // that does not fit with them is sent without them (`endedDeliveryFits`).
    const entry: EndedDelivery = {
      item: small,
      reason: longestReason,
      endedAt: Number.MAX_SAFE_INTEGER,
      failedWrites: Number.MAX_SAFE_INTEGER,
    };
    const [body = ''] = packEndedJobs(largestTarget, [entry]);
    const headAndClose = bytes(body) - bytes(JSON.stringify(entry));
    const aroundTheEvent = bytes(body) - bytes(JSON.stringify(small));
    expect(headAndClose).toBeLessThan(JOB_ENVELOPE_RESERVE_BYTES);
    expect(aroundTheEvent).toBeLessThan(JOB_ENVELOPE_RESERVE_BYTES);
    expect(parseJob(body)).toEqual({
      v: JOB_FORMAT_VERSION,
      kind: 'ended',
      target: largestTarget,
      ended: [entry],
    });
  });

  it('holds a delivery job around one event: its head with a due time and "]}"', () => {
    const [body = ''] = packJobs({ target: largestTarget, dueAt: Number.MAX_SAFE_INTEGER }, [small]);
    expect(bytes(body) - bytes(JSON.stringify(small))).toBeLessThan(JOB_ENVELOPE_RESERVE_BYTES);
    expect(parseJob(body)).toEqual({
      v: JOB_FORMAT_VERSION,
      target: largestTarget,
      dueAt: Number.MAX_SAFE_INTEGER,
      items: [small],
    });
  });
});

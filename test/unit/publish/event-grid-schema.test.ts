import { deadLetterTargetSchema } from '../../../shared/domain/delivery';
import { topicResourceId } from '../../../shared/domain/names';
import { readPublishBody } from '../../../shared/publish/body-reader';
import { parseEventGridEvents } from '../../../shared/publish/event-grid-schema';
import { PUBLISH_LIMITS } from '../../../shared/publish/limits';
import { PublishRejection } from '../../../shared/publish/rejection';
import { packEndedJobs } from '../../../shared/queue/job-codec';
import { deliveryTarget } from '../../support/fakes';

const valid = {
  id: '1',
  subject: 'orders/1',
  eventType: 'Order.Created',
  eventTime: '2026-01-01T00:00:00Z',
  data: { n: 1 },
};

/** Events through the body reader, as the publisher reads them; `text` is the body as sent. */
const parse = (body: unknown, text: string = JSON.stringify(body)) =>
  parseEventGridEvents(readPublishBody(Buffer.from(text)), 'orders');

function rejection(body: unknown): PublishRejection {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof PublishRejection) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('Event Grid schema input', () => {
  it('stamps topic and metadataVersion and defaults dataVersion, keeping everything else', () => {
    const [published] = parse([{ ...valid, extra: true }]);
    expect(published?.event).toEqual({
      ...valid,
      extra: true,
      topic: '/gridwire/topics/orders',
      dataVersion: '',
      metadataVersion: '1',
    });
  });

  it('accepts a topic field that names this topic (any case) and an explicit dataVersion', () => {
    const [event] = parse([{ ...valid, topic: topicResourceId('ORDERS'), dataVersion: '2.0' }]);
    expect(event?.event.dataVersion).toBe('2.0');
  });

  it('refuses an empty array (a request must hold an event)', () => {
    expect(() => parse([])).toThrow(/The request holds no events/);
  });

  it.each([
    [{ ...valid }, 'not an array', 'invalid', /must be a JSON array/],
    [[valid, 'x'], '', 'invalid', /Event at index 1 must be a JSON object/],
    [[{ ...valid, id: undefined }], '', 'invalid', /Event at index 0: id is required/],
    [[valid, { ...valid, id: '' }], '', 'invalid', /Event at index 1: id must not be empty/],
    [[{ ...valid, subject: 5 }], '', 'invalid', /subject must be a string/],
    [[{ ...valid, eventType: undefined }], '', 'invalid', /eventType is required/],
    [[{ ...valid, eventTime: 'yesterday' }], '', 'invalid', /eventTime must be an ISO 8601 date-time/],
    [[{ ...valid, dataVersion: 1 }], '', 'invalid', /dataVersion must be a string/],
    [[{ ...valid, metadataVersion: '2' }], '', 'invalid', /metadataVersion must be "1"/],
    [[{ ...valid, topic: '/other' }], '', 'invalid', /topic '\/other' does not match this topic/],
  ])('rejects %j %s as %s input naming the problem', (body, _label, kind, message) => {
    const error = rejection(body);
    expect([error.kind, error.code]).toEqual([kind, 'InputJsonInvalid']);
    expect(error.message).toMatch(message);
  });

  it('rejects more than 5,000 events, naming the limit', () => {
    const error = rejection(Array.from({ length: PUBLISH_LIMITS.maxEventsPerRequest + 1 }, () => valid));
    expect([error.kind, error.code]).toEqual(['invalid', 'TooManyEvents']);
    expect(error.message).toMatch(/5001 events; at most 5000/);
  });

  it('rejects an event over the size limit as too large, naming index and limit', () => {
    const error = rejection([valid, { ...valid, data: 'x'.repeat(PUBLISH_LIMITS.maxEventBytes) }]);
    expect([error.kind, error.code]).toEqual(['tooLarge', 'PayloadTooLarge']);
    expect(error.message).toMatch(
      new RegExp(
        `Event at index 1 is \\d+ bytes as queued; one event may be at most ${PUBLISH_LIMITS.maxEventBytes}`,
      ),
    );
  });

  it('counts characters beyond U+FFFF as queued (escaped), so an accepted event always fits a message', () => {
    // 200,000 emoji are 800,000 bytes of UTF-8 but 2,400,000 bytes once escaped for SQS.
    const error = rejection([{ ...valid, data: '🎉'.repeat(200_000) }]);
    expect(error.kind).toBe('tooLarge');
    expect(error.message).toMatch(/a character beyond U\+FFFF 12/);
  });
  it('keeps each event as the publisher wrote it: big numbers, __proto__ and number formats survive', () => {
    const text =
      '[{"id":"big","subject":"s","eventType":"T","eventTime":"2026-01-01T00:00:00Z",' +
      '"data":{"id":9007199254740993,"huge":1e400,"price":1.50,"__proto__":{"x":1}},"__proto__":"kept"}]';

    const [published] = parse(JSON.parse(text), text);

    expect(published?.json).toBe(
      '{"id":"big","subject":"s","eventType":"T","eventTime":"2026-01-01T00:00:00Z",' +
        '"data":{"id":9007199254740993,"huge":1e400,"price":1.50,"__proto__":{"x":1}},"__proto__":"kept",' +
        '"topic":"/gridwire/topics/orders","metadataVersion":"1","dataVersion":""}',
    );
  });

  it('stamps topic and metadataVersion where the publisher put them, and keeps its dataVersion', () => {
    const text =
      '[ {"topic": "/GRIDWIRE/TOPICS/ORDERS", "id": "1", "subject": "s", "eventType": "T",' +
      ' "eventTime": "2026-01-01T00:00:00Z", "dataVersion": "2.0", "metadataVersion": "1", "data": [1, 2] } ]';

    const [published] = parse(JSON.parse(text), text);

    expect(published?.json).toBe(
      '{"topic":"/gridwire/topics/orders","id":"1","subject":"s","eventType":"T",' +
        '"eventTime":"2026-01-01T00:00:00Z","dataVersion":"2.0","metadataVersion":"1","data":[1, 2]}',
    );
    expect(JSON.parse(published?.json ?? '')).toEqual(published?.event);
  });
  it('counts the id twice (it travels beside the event), so an accepted event always fits a message, also when it ends', () => {
    const id = 'i'.repeat(200_000);
    const near = { ...valid, id, data: 'x'.repeat(PUBLISH_LIMITS.maxEventBytes - 200_000 - 600) };
    const error = rejection([near]);
    expect(error.kind).toBe('tooLarge');
    expect(error.message).toMatch(/the id and dataVersion count twice/);

    const fitting = { ...valid, id, data: 'x'.repeat(PUBLISH_LIMITS.maxEventBytes - 400_000 - 1000) };
    const [published] = parse([fitting]);
    const item = {
      deliveryId: 'd',
      eventId: id,
      dataVersion: '',
      eventJson: published?.json ?? '',
      attempts: 30,
      publishedAt: Date.now(),
      lastOutcome: 'TimedOut' as const,
      lastHttpStatus: 408,
      lastAttemptAt: Date.now(),
    };
    // The target at its largest: every name at its longest, every optional field present.
    const target = deadLetterTargetSchema.parse(
      deliveryTarget({
        topic: `${'n'.repeat(50)}/${'t'.repeat(50)}`,
        name: 's'.repeat(64),
        uid: 'u'.repeat(36),
        version: Number.MAX_SAFE_INTEGER,
        deliveryProfile: 'namespace',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        deadLetter: { container: 'c'.repeat(63) },
      }),
    );
    const ended = packEndedJobs(target, [
      {
        item,
        reason: 'MaxDeliveryAttemptsExceeded',
        endedAt: Date.now(),
        failedWrites: Number.MAX_SAFE_INTEGER,
      },
    ]);
    expect(ended).toHaveLength(1);
  });
});

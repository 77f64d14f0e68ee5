/**
 * A resend goes only where a publish of the event would go now: the logged event must match the
 * subscription's filter as it is.
 */
import type { AttemptRecord } from '../../../shared/domain/attempts';
import { ApiError } from '../../../shared/http/errors';
import { checkResendFilter, loggedEventView } from '../../../shared/management/message-log-routes';

const eventGrid = JSON.stringify({
  id: 'card-1',
  eventType: 'Card.Charged',
  subject: 'cards/visa',
  data: { amount: 12 },
  dataVersion: '1',
});
const cloudEvent = JSON.stringify({
  specversion: '1.0',
  id: 'card-2',
  type: 'Card.Charged',
  source: '/cards',
  subject: 'cards/visa',
  data: { amount: 12 },
});

const logged = (eventJson: string): AttemptRecord => ({
  topic: 'cards',
  subscription: 'shared1',
  eventId: 'card-1',
  deliveryId: 'd1',
  publishedAt: 0,
  attempt: 1,
  at: 0,
  outcome: 'Delivered',
  eventJson,
  next: { action: 'none' },
});

describe('a logged event as filters read it', () => {
  it('reads the Event Grid form by eventType and a CloudEvent by type, with the subject', () => {
    expect(loggedEventView(eventGrid)).toMatchObject({
      eventType: 'Card.Charged',
      eventTypeKey: 'eventType',
      subject: 'cards/visa',
    });
    expect(loggedEventView(cloudEvent)).toMatchObject({
      eventType: 'Card.Charged',
      eventTypeKey: 'type',
      subject: 'cards/visa',
    });
    expect(loggedEventView('{"id":"x","type":"T"}').subject).toBeUndefined();
  });
});

describe('checkResendFilter', () => {
  it.each([
    ['no filter', {}],
    ['its type', { includedEventTypes: ['card.charged'] }],
    ['its subject', { subjectBeginsWith: 'cards/' }],
    [
      'an advanced filter on data',
      { advancedFilters: [{ operatorType: 'NumberGreaterThan', key: 'data.amount', value: 10 }] },
    ],
  ])('lets an event through that matches %s', (_name, filter) => {
    for (const text of [eventGrid, cloudEvent]) {
      expect(() => checkResendFilter({ filter } as never, logged(text))).not.toThrow();
    }
  });

  it.each([
    ['another type', { includedEventTypes: ['Card.Updated'] }],
    ['another subject', { subjectEndsWith: '/amex' }],
    [
      'an advanced filter on data',
      { advancedFilters: [{ operatorType: 'NumberLessThan', key: 'data.amount', value: 10 }] },
    ],
  ])('refuses with a 409 an event that fails %s', (_name, filter) => {
    for (const text of [eventGrid, cloudEvent]) {
      let refused: unknown;
      try {
        checkResendFilter({ filter } as never, logged(text));
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ statusCode: 409, code: 'Conflict' });
      expect((refused as Error).message).toMatch(
        /^Event 'card-1' does not match the subscription's filter as it is now/,
      );
    }
  });
});

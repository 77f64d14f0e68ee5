import { type EventHistory, formatEventHistory, formatLogPage, oneLine } from '../../../cli/events';

const ref = { topic: 'orders', subscription: 'billing' };
const searched = { since: '2026-11-27T10:00:00.000Z', until: '2026-11-28T10:00:00.000Z' };

describe('gridwire events show', () => {
  it('says plainly when there is no record, and why there may be none', () => {
    const text = formatEventHistory(ref, 'order-1', { value: [], searched, truncated: false });
    expect(text.split('\n')).toEqual([
      `No record of event 'order-1' at topic orders, subscription billing between ${searched.since} and ${searched.until}.`,
      'The history keeps failed attempts and what followed them: an event delivered at its first attempt',
      'leaves no record, and neither does one never published to this subscription.',
    ]);
  });

  it('prints each delivery with where it stands and its attempts, and says when the search stopped early', () => {
    const history: EventHistory = {
      value: [
        {
          eventId: 'order-2',
          deliveryId: 'pub-1.0',
          publishTime: '2026-11-28T09:00:00.000Z',
          status: 'Retrying',
          nextAttemptTime: '2026-11-28T09:01:10.000Z',
          attempts: [
            {
              attempt: 1,
              time: '2026-11-28T09:00:00.100Z',
              outcome: 'GenericError',
              httpStatus: 500,
              durationMs: 12,
            },
            { attempt: 2, time: '2026-11-28T09:00:10.200Z', outcome: 'TimedOut', error: 'no answer in 30 s' },
          ],
        },
        {
          eventId: 'order-2',
          deliveryId: 'replay-x.1',
          publishTime: '2026-11-28T09:30:00.000Z',
          status: 'Dropped',
          reason: 'NonRetriableOutcome',
          attempts: [
            { attempt: 1, time: '2026-11-28T09:30:00.100Z', outcome: 'BadRequest', httpStatus: 400 },
          ],
        },
      ],
      searched,
      truncated: true,
    };
    expect(formatEventHistory(ref, 'order-2', history).split('\n')).toEqual([
      "Event 'order-2', delivery pub-1.0, published 2026-11-28T09:00:00.000Z: Retrying, next attempt at 2026-11-28T09:01:10.000Z.",
      'ATTEMPT  TIME                      OUTCOME       STATUS  DURATION  ERROR              RESPONSE',
      '1        2026-11-28T09:00:00.100Z  GenericError  500     12 ms',
      '2        2026-11-28T09:00:10.200Z  TimedOut      -       -         no answer in 30 s',
      "Event 'order-2', delivery replay-x.1, published 2026-11-28T09:30:00.000Z: Dropped (NonRetriableOutcome).",
      'ATTEMPT  TIME                      OUTCOME     STATUS  DURATION  ERROR  RESPONSE',
      '1        2026-11-28T09:30:00.100Z  BadRequest  400     -',
      `The search stopped before the whole window: ask again with --until ${searched.since}.`,
    ]);
  });
});

describe('gridwire events list', () => {
  const delivery = {
    eventId: 'order-3',
    deliveryId: 'pub-3.0',
    publishTime: '2026-11-28T09:00:00.000Z',
    status: 'Delivered' as const,
    attempts: [
      {
        attempt: 1,
        time: '2026-11-28T09:00:00.100Z',
        outcome: 'Delivered',
        httpStatus: 200,
        durationMs: 4,
        response: '{"ok":\n true}',
      },
    ],
  };

  it('prints a line per delivery and how to get older ones', () => {
    const text = formatLogPage(ref, {
      deliveryLog: 'All',
      value: [delivery],
      searched,
      nextUntil: searched.since,
    });
    expect(text.split('\n')).toEqual([
      'LAST ATTEMPT              EVENT ID  DELIVERY  STATUS     ATTEMPTS  HTTP  RESPONSE',
      '2026-11-28T09:00:00.100Z  order-3   pub-3.0   Delivered         1   200  {"ok": true}',
      `Older deliveries: add --until ${searched.since}`,
    ]);
  });

  it('says when the log keeps failures only, and when it is empty', () => {
    const text = formatLogPage(ref, { deliveryLog: 'Failures', value: [], searched });
    expect(text.split('\n')).toEqual([
      `No deliveries in the log of topic orders, subscription billing between ${searched.since} and ${searched.until}.`,
      "The log keeps failures only (deliveryLog 'Failures'): deliveries that succeeded at the first attempt are not listed; 'gridwire subscription update --delivery-log All' logs every delivery.",
    ]);
  });

  it('prints an answer on one line, cut with an ellipsis', () => {
    expect(oneLine('a\n  b', 10)).toBe('a b');
    expect(oneLine('x'.repeat(20), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(oneLine(undefined)).toBe('');
  });
});

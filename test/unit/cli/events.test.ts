import { type EventHistory, formatEventHistory } from '../../../cli/events';

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
      'ATTEMPT  TIME                      OUTCOME       STATUS  DURATION  ERROR',
      '1        2026-11-28T09:00:00.100Z  GenericError  500     12 ms',
      '2        2026-11-28T09:00:10.200Z  TimedOut      -       -         no answer in 30 s',
      "Event 'order-2', delivery replay-x.1, published 2026-11-28T09:30:00.000Z: Dropped (NonRetriableOutcome).",
      'ATTEMPT  TIME                      OUTCOME     STATUS  DURATION  ERROR',
      '1        2026-11-28T09:30:00.100Z  BadRequest  400     -',
      `The search stopped before the whole window: ask again with --until ${searched.since}.`,
    ]);
  });
});

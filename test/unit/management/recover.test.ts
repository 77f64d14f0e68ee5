/**
 * Bulk recovery's log part (`recoverDropped`): only deliveries that ended dropped, each once; a
 * call reads at most `MAX_RECOVER_DELIVERIES` deliveries and says where the next goes on; marks
 * taken back when the send fails.
 */
import type { AttemptRecord } from '../../../shared/domain/attempts';
import { MAX_RECOVER_DELIVERIES, recoverDropped } from '../../../shared/management/recover-routes';
import type { HistoryPage, HistoryWindow } from '../../../shared/storage/attempt-history';
import { RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { MemoryRecoveryMarks } from '../../support/memory-stores';

const HOUR = 3_600_000;
const T = Date.parse('2026-12-03T12:00:00Z');

const record = (deliveryId: string, at: number, next: AttemptRecord['next']): AttemptRecord => ({
  topic: 'orders',
  subscription: 'sub',
  eventId: `e-${deliveryId}`,
  deliveryId,
  publishedAt: at - 1000,
  attempt: 1,
  at,
  outcome: 'BadRequest',
  eventJson: JSON.stringify({ id: `e-${deliveryId}`, eventType: 'Order.Created', subject: 's' }),
  next,
});

/** A log of `perHour` dropped deliveries in each of the `hours` hours before T, paged by hour like the real one. */
function hourlyLog(hours: number, perHour: number) {
  const records: AttemptRecord[] = [];
  for (let hour = 1; hour <= hours; hour += 1) {
    for (let n = 0; n < perHour; n += 1) {
      records.push(
        record(`h${hour}-${n}`, T - hour * HOUR + n, { action: 'dropped', reason: 'NonRetriableOutcome' }),
      );
    }
  }
  const calls: HistoryWindow[] = [];
  return {
    calls,
    retentionDays: 7,
    find: async () => ({ records: [], searched: { since: 0, until: 0 }, truncated: false }),
    // Whole hours, newest first, until `deliveries` are found (a page may hold more).
    list: async (_owner: unknown, window: HistoryWindow, deliveries: number): Promise<HistoryPage> => {
      calls.push(window);
      let since = window.until;
      let found: AttemptRecord[] = [];
      while (since > window.since && found.length < deliveries) {
        const hourStart = Math.max(window.since, Math.floor((since - 1) / HOUR) * HOUR);
        found = [...records.filter(({ at }) => at >= hourStart && at < since), ...found];
        since = hourStart;
      }
      return { records: found, searched: { since, until: window.until }, more: since > window.since };
    },
  };
}

const deps = (history: ReturnType<typeof hourlyLog>) => {
  const clock = new VirtualClock(T);
  return { history, recoveries: new MemoryRecoveryMarks(), queue: new RecordingQueue(clock), clock };
};

it('reads at most a thousand deliveries a call and says where the next goes on; none is sent twice', async () => {
  const perHour = 600;
  const history = hourlyLog(3, perHour);
  const d = deps(history);
  const sub = subscription({ topic: 'orders', name: 'sub' });
  const window = { since: T - 4 * HOUR, until: T };

  const first = await recoverDropped(d, sub, window, { recovery: 'recover-1', dryRun: false });
  // Two whole hours were read (1,200 deliveries >= 1,000): the oldest hour is left for the next call.
  expect(first.dropped).toMatchObject({
    deliveries: 2 * perHour,
    eventsQueued: 2 * perHour,
    alreadyRecovered: 0,
  });
  expect(first.nextUntil).toBe(Math.floor((T - 2 * HOUR) / HOUR) * HOUR);
  expect(2 * perHour).toBeGreaterThanOrEqual(MAX_RECOVER_DELIVERIES);

  const second = await recoverDropped(
    d,
    sub,
    { since: window.since, until: first.nextUntil as number },
    { recovery: 'recover-2', dryRun: false },
  );
  expect(second.dropped).toMatchObject({ deliveries: perHour, eventsQueued: perHour });
  expect(second.nextUntil).toBeUndefined();

  const resentOf = () =>
    d.queue.sent.flatMap(({ job }) =>
      (JSON.parse(job.body) as { items: Array<{ resendOf: string }> }).items.map((item) => item.resendOf),
    );
  expect(resentOf()).toHaveLength(3 * perHour);
  expect(new Set(resentOf()).size).toBe(3 * perHour);

  // The whole range again: everything was marked, nothing goes.
  const again = await recoverDropped(
    d,
    sub,
    { since: window.since, until: T },
    { recovery: 'recover-3', dryRun: false },
  );
  expect(again.dropped).toMatchObject({ eventsQueued: 0, alreadyRecovered: 2 * perHour });
  expect(resentOf()).toHaveLength(3 * perHour);
});

it('leaves deliveries that did not end dropped, and gives the marks back when the send fails', async () => {
  const clock = new VirtualClock(T);
  const queue = new RecordingQueue(clock);
  const recoveries = new MemoryRecoveryMarks();
  const records = [
    record('retrying', T - 10, { action: 'retry', dueAt: T + 1000 }),
    record('lettered', T - 9, { action: 'deadLetter', reason: 'MaxDeliveryAttemptsExceeded' }),
    record('dropped', T - 8, { action: 'dropped', reason: 'TimeToLiveExceeded' }),
    { ...record('large', T - 7, { action: 'dropped', reason: 'TimeToLiveExceeded' }), eventJson: undefined },
  ];
  const history = {
    retentionDays: 7,
    find: async () => ({ records: [], searched: { since: 0, until: 0 }, truncated: false }),
    list: async (_owner: unknown, window: HistoryWindow): Promise<HistoryPage> => ({
      records,
      searched: window,
      more: false,
    }),
  };
  const sub = subscription({ topic: 'orders', name: 'sub' });
  queue.failWith = new Error('the queue is down');
  await expect(
    recoverDropped(
      { history, recoveries, queue, clock },
      sub,
      { since: T - HOUR, until: T },
      {
        recovery: 'recover-1',
        dryRun: false,
      },
    ),
  ).rejects.toThrow('the queue is down');
  expect(recoveries.marks.size).toBe(0);

  queue.failWith = undefined;
  const done = await recoverDropped(
    { history, recoveries, queue, clock },
    sub,
    { since: T - HOUR, until: T },
    {
      recovery: 'recover-2',
      dryRun: false,
    },
  );
  expect(done.dropped).toEqual({
    deliveries: 2,
    matched: 1,
    eventsQueued: 1,
    alreadyRecovered: 0,
    withoutText: 1,
    filteredOut: 0,
  });
  expect([...recoveries.marks.keys()]).toEqual(['orders#sub#dropped']);
});

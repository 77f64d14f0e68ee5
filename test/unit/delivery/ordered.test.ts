import {
  HOLD_RECHECK_MS,
  hideSecondsUntil,
  MAX_HIDE_SECONDS,
  type OrderedMessage,
  remainingItems,
} from '../../../shared/delivery/ordered';
import { freshHealth } from '../../../shared/delivery/rules/health';
import type { DeliveryItem, OrderedJob } from '../../../shared/domain/delivery';
import { JOB_FORMAT_VERSION } from '../../../shared/domain/delivery';
import { parseJob } from '../../../shared/queue/job-codec';
import { deliveryTarget, engineHarness, item, subscription, VirtualClock } from '../../support/fakes';

const OPTIONS = { attemptDeadline: Number.MAX_SAFE_INTEGER };
const T0 = Date.parse('2026-12-01T10:00:00Z');

const orderedJob = (ids: string[], key = 'orders/1', target = deliveryTarget()): OrderedJob => ({
  v: JOB_FORMAT_VERSION,
  kind: 'ordered',
  target,
  key,
  items: ids.map((id) => item(id, T0)),
});

const message = (job: OrderedJob, handle: string, receiveCount = 1, groupId = job.key): OrderedMessage => ({
  job,
  receiptHandle: handle,
  receiveCount,
  groupId,
});

/** The event ids of the requests the sender got, in order, with their delivery counts. */
const sentIds = (h: ReturnType<typeof engineHarness>) =>
  h.sender.requests.flatMap(({ request }) =>
    (JSON.parse(request.body) as Array<{ id: string }>).map(
      (event) => `${event.id}#${request.headers['aeg-delivery-count']}`,
    ),
  );

function harness(failing: ReadonlySet<string> = new Set(), overrides = {}) {
  const h = engineHarness({ clock: new VirtualClock(T0) });
  h.subscriptions.set('orders/audit', subscription({ deadLetter: { container: 'dead' }, ...overrides }));
  const failedOnce = new Set<string>();
  h.sender.answerWith((request) => {
    const [first] = JSON.parse(request.body) as Array<{ id: string }>;
    const id = first?.id ?? '';
    if (failing.has(id) && !failedOnce.has(id)) {
      failedOnce.add(id);
      return { delivered: false, httpStatus: 500 };
    }
    return { delivered: true, httpStatus: 200 };
  });
  return h;
}

describe('ordered delivery', () => {
  it("delivers a message's events one request at a time, in order, and finishes it", async () => {
    const h = harness();
    const [outcome] = await h.engine.deliverOrdered([message(orderedJob(['e1', 'e2', 'e3']), 'h1')], OPTIONS);

    expect(outcome).toMatchObject({ kind: 'finished', report: { delivered: 3 } });
    expect(sentIds(h)).toEqual(['e1#0', 'e2#0', 'e3#0']);
    expect(h.sender.maxInFlight).toBe(1);
    // Nothing waited: no progress written or read, no visibility changed.
    expect(h.ordered.progress.reads + h.ordered.progress.writes).toBe(0);
    expect(h.ordered.visibility.changes).toEqual([]);
  });

  it('keeps a failed event and those behind it in the queue until its retry, then goes on from it', async () => {
    const h = harness(new Set(['e2']));
    const job = orderedJob(['e1', 'e2', 'e3']);

    const [first] = await h.engine.deliverOrdered([message(job, 'h1')], OPTIONS);

    // e1 delivered; e2 failed and waits for its first retry (10 s, plus jitter); e3 was not tried.
    expect(sentIds(h)).toEqual(['e1#0', 'e2#0']);
    expect(first).toMatchObject({ kind: 'waiting', report: { delivered: 1, retried: 1 } });
    const until = (first as { until: number }).until;
    expect(until - T0).toBeGreaterThanOrEqual(10_000);
    expect(until - T0).toBeLessThanOrEqual(12_000);
    expect(h.ordered.visibility.changes).toEqual([
      { receiptHandle: 'h1', seconds: hideSecondsUntil(until, T0), at: T0 },
    ]);
    expect([...h.ordered.progress.items.values()].map(({ progress }) => progress)).toEqual([
      {
        finished: ['d-e1'],
        dueAt: until,
        pending: [expect.objectContaining({ deliveryId: 'd-e2', attempts: 1, lastHttpStatus: 500 })],
      },
    ]);

    // Back before it is due (shown again early): hidden again, nothing attempted.
    h.clock.advanceTo(until - 4_000);
    const [early] = await h.engine.deliverOrdered([message(job, 'h2', 2)], OPTIONS);
    expect(early).toMatchObject({ kind: 'waiting', until });
    expect(h.ordered.visibility.changes.at(-1)).toMatchObject({ receiptHandle: 'h2', seconds: 4 });
    expect(sentIds(h)).toHaveLength(2);

    // Due: e2 again as its second attempt, then e3; the progress is gone.
    h.clock.advanceTo(until);
    const [again] = await h.engine.deliverOrdered([message(job, 'h3', 3)], OPTIONS);
    expect(again).toMatchObject({ kind: 'finished', report: { delivered: 2 } });
    expect(sentIds(h)).toEqual(['e1#0', 'e2#0', 'e2#1', 'e3#0']);
    expect(h.ordered.progress.items.size).toBe(0);
  });

  it('holds back only the failing key: later messages of its group wait untouched, other groups go on', async () => {
    const h = harness(new Set(['a1']));
    const a1 = message(orderedJob(['a1'], 'a'), 'ha1');
    const a2 = message(orderedJob(['a2'], 'a'), 'ha2');
    const b1 = message(orderedJob(['b1'], 'b'), 'hb1');
    const b2 = message(orderedJob(['b2'], 'b'), 'hb2');

    const outcomes = await h.engine.deliverOrdered([a1, b1, a2, b2], OPTIONS);

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['waiting', 'finished', 'waiting', 'finished']);
    expect(sentIds(h).sort()).toEqual(['a1#0', 'b1#0', 'b2#0']);
    // a2 goes back at once, behind a1, which is hidden until its retry.
    expect(
      h.ordered.visibility.changes.map(({ receiptHandle, seconds }) => [receiptHandle, seconds > 0]),
    ).toEqual([
      ['ha1', true],
      ['ha2', false],
    ]);
  });

  it('ends an event that used its attempts (dead-lettered) and goes on with the next of its key', async () => {
    const h = harness(new Set(['e1']), { retry: { maxAttempts: 1, ttlMs: 1440 * 60_000 } });

    const [outcome] = await h.engine.deliverOrdered([message(orderedJob(['e1', 'e2']), 'h1')], OPTIONS);

    expect(outcome).toMatchObject({ kind: 'finished', report: { delivered: 1, ended: 1 } });
    expect(sentIds(h)).toEqual(['e1#0', 'e2#0']);
    const ended = h.queue.sent.filter(({ queue }) => queue === 'endedDelivery');
    expect(ended.map(({ job }) => parseJob(job.body))).toEqual([
      expect.objectContaining({
        kind: 'ended',
        ended: [expect.objectContaining({ reason: 'MaxDeliveryAttemptsExceeded' })],
      }),
    ]);
  });

  it('sends a batching subscription its events in order, a request of the next events at a time', async () => {
    const h = harness(new Set(), {
      destination: {
        endpointType: 'WebHook',
        endpointUrl: 'https://hooks.example.test/in',
        maxEventsPerBatch: 2,
      },
    });

    await h.engine.deliverOrdered([message(orderedJob(['e1', 'e2', 'e3', 'e4', 'e5']), 'h1')], OPTIONS);

    expect(
      h.sender.requests.map(({ request }) =>
        (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id),
      ),
    ).toEqual([['e1', 'e2'], ['e3', 'e4'], ['e5']]);
    expect(h.sender.maxInFlight).toBe(1);
  });

  it('holds a paused key without an attempt, looking again every 5 minutes (so a resume reaches it)', async () => {
    const h = harness();
    await h.healthStore.put(
      { ...freshHealth('orders', 'audit', 'https://hooks.example.test/in'), pausedAt: T0 - 1, rev: 1 },
      undefined,
    );

    const [outcome] = await h.engine.deliverOrdered([message(orderedJob(['e1']), 'h1')], OPTIONS);

    // The hold's end plus its jitter (at most a tenth of it).
    expect(outcome).toMatchObject({ kind: 'waiting', report: { held: 1 } });
    const until = (outcome as { until: number }).until;
    expect(until - T0).toBeGreaterThanOrEqual(HOLD_RECHECK_MS);
    expect(until - T0).toBeLessThanOrEqual(HOLD_RECHECK_MS * 1.1);
    expect(h.ordered.visibility.changes).toEqual([
      { receiptHandle: 'h1', seconds: hideSecondsUntil(until, T0), at: T0 },
    ]);
    expect(h.sender.requests).toEqual([]);
  });

  it("drops a deleted subscription's events and finishes the message", async () => {
    const h = harness();
    h.subscriptions.delete('orders/audit');
    const [outcome] = await h.engine.deliverOrdered([message(orderedJob(['e1', 'e2']), 'h1')], OPTIONS);
    expect(outcome).toMatchObject({ kind: 'finished', report: { ended: 2 } });
    expect(h.sender.requests).toEqual([]);
  });

  it('goes back at once when the invocation has no time left, keeping what was done', async () => {
    const h = harness();
    const [outcome] = await h.engine.deliverOrdered([message(orderedJob(['e1']), 'h1')], {
      attemptDeadline: T0,
    });
    expect(outcome).toMatchObject({ kind: 'waiting', until: T0 });
    expect(h.ordered.visibility.changes).toEqual([{ receiptHandle: 'h1', seconds: 0, at: T0 }]);
    expect(h.sender.requests).toEqual([]);
  });
});

describe('ordered delivery rules', () => {
  it('hides a message until its due time, at most 12 hours at once', () => {
    expect(hideSecondsUntil(T0 + 10_001, T0)).toBe(11);
    expect(hideSecondsUntil(T0 - 5, T0)).toBe(0);
    expect(hideSecondsUntil(T0 + 24 * 3_600_000, T0)).toBe(MAX_HIDE_SECONDS);
  });

  it("reads a message's remaining events with the attempt state its progress kept", () => {
    const job = orderedJob(['e1', 'e2', 'e3']);
    const remaining = remainingItems(job, {
      finished: ['d-e1'],
      dueAt: T0,
      pending: [{ deliveryId: 'd-e2', attempts: 2, lastOutcome: 'TimedOut' }],
    });
    expect(
      remaining.map((entry: DeliveryItem) => [entry.eventId, entry.attempts, entry.lastOutcome]),
    ).toEqual([
      ['e2', 2, 'TimedOut'],
      ['e3', 0, undefined],
    ]);
    expect(remainingItems(job, undefined)).toEqual(job.items);
  });
});

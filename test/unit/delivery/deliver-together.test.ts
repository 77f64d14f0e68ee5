/**
 * Optimistic batching across publishes: the delivery jobs one invocation receives for the same
 * subscription are merged, so events published one per request share batch requests within the
 * subscription's limits, each event keeping its own attempt count, time to live and history, and
 * each message answered for on its own.
 */
import { deliveryTargetOf } from '../../../shared/delivery/target';
import type { DeliveryJob, TopicRef } from '../../../shared/domain/delivery';
import { packFanOut, parseJob } from '../../../shared/queue/job-codec';
import {
  type EngineHarness,
  engineHarness,
  engineWithDestination,
  item,
  job,
  subscription,
} from '../../support/fakes';

const farFuture = Number.MAX_SAFE_INTEGER;
const OPTIONS = { attemptDeadline: farFuture };
const ORDERS: TopicRef = { name: 'orders' };

const idsOf = (body: string) => (JSON.parse(body) as Array<{ id: string }>).map((event) => event.id);
const requestIds = (h: EngineHarness) => h.sender.requests.map(({ request }) => idsOf(request.body));

/** `count` 1-event jobs for `orders/audit`, published at `at`: `e0`, `e1`, ... */
const singleEventJobs = (count: number, at: number, from = 0): DeliveryJob[] =>
  Array.from({ length: count }, (_, i) => job([item(`e${from + i}`, at)]));

const delivered = (outcomes: readonly { kind: string; details?: Readonly<Record<string, unknown>> }[]) =>
  outcomes.reduce((sum, outcome) => sum + Number(outcome.details?.delivered ?? 0), 0);

describe('delivery jobs of one invocation, merged per subscription', () => {
  it('puts 1-event jobs of a batching subscription into requests of up to maxEventsPerBatch, in order', async () => {
    const h = engineWithDestination({ maxEventsPerBatch: 4 });
    const t0 = h.clock.now();

    const outcomes = await h.engine.processBatch(singleEventJobs(10, t0), OPTIONS);

    expect(requestIds(h)).toEqual([
      ['e0', 'e1', 'e2', 'e3'],
      ['e4', 'e5', 'e6', 'e7'],
      ['e8', 'e9'],
    ]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(10).fill('done'));
    // The merged job's report is told once, on its first message.
    expect(delivered(outcomes)).toBe(10);
    expect(h.queue.sent).toHaveLength(0);
  });

  it('still sends one event per request to a subscription without batching settings', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();

    await h.engine.processBatch(singleEventJobs(3, t0), OPTIONS);

    expect(requestIds(h)).toEqual([['e0'], ['e1'], ['e2']]);
  });

  it('keeps merged requests under the preferred size, an oversized event going alone', async () => {
    const h = engineWithDestination({ maxEventsPerBatch: 100, preferredBatchSizeInKilobytes: 1 });
    const t0 = h.clock.now();
    const big = item('big', t0, { event: { data: { pad: 'x'.repeat(2000) } } });
    const small = (id: string) => item(id, t0, { event: { data: { pad: 'y'.repeat(300) } } });

    await h.engine.processBatch(
      [job([small('a')]), job([small('b')]), job([big]), job([small('c')]), job([small('d')])],
      OPTIONS,
    );

    const bodies = h.sender.requests.map(({ request }) => request.body);
    expect(bodies.map(idsOf)).toEqual([['a', 'b'], ['big'], ['c', 'd']]);
    for (const [index, body] of bodies.entries()) {
      if (index !== 1) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024);
    }
    expect(Buffer.byteLength(bodies[1] ?? '')).toBeGreaterThan(1024);
  });

  it('puts together only events of the same attempt count, so each request’s delivery count is true of all of it', async () => {
    const h = engineWithDestination({ maxEventsPerBatch: 10 });
    const t0 = h.clock.now();
    const retried = (id: string) => item(id, t0 - 60_000, { attempts: 2, lastOutcome: 'GenericError' });

    await h.engine.processBatch(
      [job([item('a', t0)]), job([retried('r1')]), job([item('b', t0)]), job([retried('r2')])],
      OPTIONS,
    );

    expect(
      h.sender.requests.map(({ request }) => [request.headers['aeg-delivery-count'], idsOf(request.body)]),
    ).toEqual([
      ['0', ['a', 'b']],
      ['2', ['r1', 'r2']],
    ]);
  });

  it('retries each event of a failed merged request on its own schedule, with its own attempt count', async () => {
    const h = engineWithDestination({ maxEventsPerBatch: 10 });
    h.sender.answerWith({ delivered: false, httpStatus: 503, outcome: 'GenericError' });
    const t0 = h.clock.now();
    const retried = (id: string) => item(id, t0 - 60_000, { attempts: 3, lastOutcome: 'GenericError' });

    const outcomes = await h.engine.processBatch(
      [job([item('a', t0)]), job([retried('r1')]), job([item('b', t0)]), job([retried('r2')])],
      OPTIONS,
    );

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['done', 'done', 'done', 'done']);
    expect(h.sender.requests).toHaveLength(2);
    const retries = h.queue.take().map(({ job: sent }) => ({
      dueIn: (sent.dueAt ?? 0) - t0,
      items: sent.items.map((one) => [one.eventId, one.attempts]),
    }));
    // Two schedules: after a first failed attempt, and after a fourth.
    expect(retries.map(({ items }) => items)).toEqual([
      [
        ['a', 1],
        ['b', 1],
      ],
      [
        ['r1', 4],
        ['r2', 4],
      ],
    ]);
    const [afterFirst, afterFourth] = retries;
    expect(afterFirst?.dueIn).toBeGreaterThan(0);
    expect(afterFourth?.dueIn).toBeGreaterThan(afterFirst?.dueIn ?? 0);
  });

  it('ends an event whose time to live is over without sending it, and delivers the rest of the merged batch', async () => {
    const h = engineWithDestination({ maxEventsPerBatch: 10 });
    const t0 = h.clock.now();
    const hourAgo = t0 - 3_600_000;
    h.subscriptions.set(
      'orders/audit',
      subscription({
        deadLetter: { container: 'dead' },
        retry: { maxAttempts: 30, ttlMs: 30 * 60_000 },
        destination: {
          endpointType: 'WebHook',
          endpointUrl: 'https://hooks.example.test/in',
          maxEventsPerBatch: 10,
        },
      }),
    );

    await h.engine.processBatch(
      [
        job([item('a', t0)]),
        job([item('old', hourAgo, { attempts: 5, lastOutcome: 'GenericError' })]),
        job([item('b', t0)]),
      ],
      OPTIONS,
    );

    expect(requestIds(h)).toEqual([['a', 'b']]);
    const ended = h.queue.takeEnded().flatMap(({ job: sent }) => sent.ended);
    expect(ended.map((one) => [one.item.eventId, one.reason])).toEqual([['old', 'TimeToLiveExceeded']]);
  });

  it('merges only jobs that are due: one not due yet goes round again on its own', async () => {
    const h = engineWithDestination({ maxEventsPerBatch: 10 });
    const t0 = h.clock.now();
    const later = job([item('later', t0)], t0 + 60_000);

    await h.engine.processBatch([job([item('a', t0)]), later, job([item('b', t0)], t0 - 5)], OPTIONS);

    expect(requestIds(h)).toEqual([['a', 'b']]);
    const hopped = h.queue.take();
    expect(hopped.map(({ job: sent }) => [sent.dueAt, sent.items.map((one) => one.eventId)])).toEqual([
      [t0 + 60_000, ['later']],
    ]);
  });

  it('never merges jobs of different subscriptions, nor of a subscription deleted and created again', async () => {
    const h = engineWithDestination({ maxEventsPerBatch: 10 });
    const other = subscription({
      name: 'billing',
      destination: {
        endpointType: 'WebHook',
        endpointUrl: 'https://hooks.example.test/billing',
        maxEventsPerBatch: 10,
      },
    });
    h.subscriptions.set('orders/billing', other);
    const audit = { ...(h.subscriptions.get('orders/audit') ?? subscription()), uid: 'audit-2' };
    h.subscriptions.set('orders/audit', audit);
    const t0 = h.clock.now();
    const current = deliveryTargetOf(audit);
    const stale = { ...current, uid: 'audit-1' };

    await h.engine.processBatch(
      [
        job([item('a', t0)], undefined, current),
        job([item('x', t0)], undefined, deliveryTargetOf(other)),
        job([item('gone', t0)], undefined, stale),
        job([item('b', t0)], undefined, current),
      ],
      OPTIONS,
    );

    const byUrl = h.sender.requests.map(({ request }) => [request.url, idsOf(request.body)]);
    expect(byUrl).toEqual(
      expect.arrayContaining([
        ['https://hooks.example.test/in', ['a', 'b']],
        ['https://hooks.example.test/billing', ['x']],
      ]),
    );
    expect(byUrl).toHaveLength(2);
  });

  it('merges the jobs of small fan-outs with the invocation’s delivery jobs', async () => {
    const h = engineHarness();
    const batching = (name: string) =>
      subscription({
        name,
        destination: {
          endpointType: 'WebHook',
          endpointUrl: `https://hooks.example.test/${name}`,
          maxEventsPerBatch: 10,
        },
      });
    for (const name of ['left', 'right']) h.subscriptions.set(`orders/${name}`, batching(name));
    const left = deliveryTargetOf(batching('left'));
    const right = deliveryTargetOf(batching('right'));
    const t0 = h.clock.now();
    const fanOut = (id: string) =>
      parseJob(
        packFanOut(
          ORDERS,
          [item(id, t0)],
          [
            { target: left, matched: [0] },
            { target: right, matched: [0] },
          ],
        ),
      );

    const outcomes = await h.engine.processBatch(
      [fanOut('f1'), job([item('d1', t0)], undefined, left), fanOut('f2')],
      OPTIONS,
    );

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['done', 'done', 'done']);
    const byUrl = new Map(h.sender.requests.map(({ request }) => [request.url, idsOf(request.body)]));
    expect(byUrl).toEqual(
      new Map([
        ['https://hooks.example.test/left', ['f1', 'd1', 'f2']],
        ['https://hooks.example.test/right', ['f1', 'f2']],
      ]),
    );
    expect(h.sender.requests).toHaveLength(2);
  });

  it('when a merged job cannot be worked, brings its delivery messages back and queues a fan-out’s part on its own', async () => {
    const failing = new Set(['orders/broken']);
    const h = engineHarness({
      subscriptionSource: {
        get: async (topic, name) => {
          if (failing.has(`${topic}/${name}`)) throw new Error('the subscriptions table is unavailable');
          return h.subscriptions.get(`${topic}/${name}`);
        },
      },
    });
    const broken = subscription({
      name: 'broken',
      destination: { endpointType: 'WebHook', endpointUrl: 'https://hooks.example.test/broken' },
    });
    h.subscriptions.set('orders/broken', broken);
    const t0 = h.clock.now();
    const audit = deliveryTargetOf(h.subscriptions.get('orders/audit') ?? subscription());
    const fanOut = parseJob(
      packFanOut(
        ORDERS,
        [item('f1', t0)],
        [
          { target: deliveryTargetOf(broken), matched: [0] },
          { target: audit, matched: [0] },
        ],
      ),
    );

    const outcomes = await h.engine.processBatch(
      [job([item('b1', t0)], undefined, deliveryTargetOf(broken)), fanOut, job([item('a1', t0)])],
      OPTIONS,
    );

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['retryLater', 'done', 'done']);
    expect(outcomes[0]).toMatchObject({ reason: 'the subscriptions table is unavailable' });
    // The fan-out's part for the broken subscription was queued on its own; audit got both events.
    const queued = h.queue.take();
    expect(
      queued.map(({ queue, job: sent }) => [
        queue,
        sent.target.subscription,
        sent.items.map((one) => one.eventId),
      ]),
    ).toEqual([['delivery', 'broken', ['f1']]]);
    expect(h.sender.requests.flatMap(({ request }) => idsOf(request.body)).sort()).toEqual(['a1', 'f1']);
    expect(outcomes[1]).toMatchObject({ details: { queued: 1 } });
  });

  it('brings a fan-out back whole when its failed part cannot be queued either', async () => {
    const h = engineHarness({
      subscriptionSource: {
        get: async () => {
          throw new Error('the subscriptions table is unavailable');
        },
      },
    });
    h.queue.failing.set('delivery', new Error('the delivery queue refused the send'));
    const t0 = h.clock.now();
    const fanOut = parseJob(
      packFanOut(ORDERS, [item('f1', t0)], [{ target: deliveryTargetOf(subscription()), matched: [0] }]),
    );

    const outcomes = await h.engine.processBatch([fanOut], OPTIONS);

    expect(outcomes).toEqual([{ kind: 'retryLater', reason: 'the delivery queue refused the send' }]);
  });
});

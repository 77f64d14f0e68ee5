import { BUSY_HOLD_MS, STALL_MS } from '../../../shared/delivery/engine-attempts';
import { UNVALIDATED_ENDPOINT_HOLD_MS } from '../../../shared/delivery/rules/handshake';
import type { WebhookRequest, WebhookSender } from '../../../shared/delivery/webhook-sender';
import type { AttemptResult } from '../../../shared/domain/attempts';
import { METRIC } from '../../../shared/observability/metrics';
import { resetHealth } from '../../../shared/storage/health';
import { deliveryTarget, engineHarness, item, job, subscription, VirtualClock } from '../../support/fakes';
import { MemoryHealthStore } from '../../support/memory-stores';
import { M, S } from '../../support/time';

const farFuture = Number.MAX_SAFE_INTEGER;
const run = { attemptDeadline: farFuture };
const items = (prefix: string, n: number, at: number) =>
  Array.from({ length: n }, (_, i) => item(`${prefix}${i}`, at));

describe('delivery engine: endpoint health', () => {
  it('a 503 puts the subscription on probation: the rest of the job and new jobs are held without a request', async () => {
    const h = engineHarness({ concurrency: 1, randoms: [0, 0, 0, 0] });
    h.sender.answerWith({ httpStatus: 503, outcome: 'Busy' });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job(items('a', 4, t0)), run);

    expect(h.sender.requests).toHaveLength(1);
    expect(report).toMatchObject({ delivered: 0, retried: 1, held: 3, ended: 0 });
    const sent = h.queue.take();
    const held = sent.find((entry) => entry.job.dueAt === t0 + 10 * S);
    expect(held?.job.items.map((i) => [i.eventId, i.attempts, i.lastOutcome])).toEqual([
      ['a1', 0, 'Probation'],
      ['a2', 0, 'Probation'],
      ['a3', 0, 'Probation'],
    ]);
    // The failed one follows the schedule (503: at least 30 s).
    expect(sent.find((entry) => entry.job.items[0]?.eventId === 'a0')?.job.dueAt).toBe(t0 + 30 * S);
    expect(h.metrics.drain().find((p) => p.name === METRIC.DeliveryHeldCount)?.values).toEqual([3]);
    // One write: the probation began.
    expect(h.healthStore.writes).toBe(1);
    expect(await h.healthStore.get('orders', 'audit')).toMatchObject({
      probationUntil: t0 + 10 * S,
      probationOutcome: 'Busy',
      consecutiveFailures: 1,
    });

    // A job coming due inside the window is held whole: no request.
    h.clock.advance(5 * S);
    const during = await h.engine.processJob(job(items('b', 2, t0)), run);
    expect(during).toMatchObject({ held: 2, delivered: 0 });
    expect(h.sender.requests).toHaveLength(1);
    expect(h.queue.take().map((entry) => entry.job.dueAt)).toEqual([t0 + 10 * S]);
    expect(h.healthStore.writes).toBe(1);
  });

  it('after the probation, one request at a time finds out; a success recovers the endpoint for everyone', async () => {
    const h = engineHarness({ concurrency: 8, latencyMs: 2 });
    h.sender.answerWith({ httpStatus: 503, outcome: 'Busy' });
    const t0 = h.clock.now();
    await h.engine.processJob(job(items('a', 1, t0)), run);
    h.clock.advance(10 * S);
    h.sender.answerWith({ delivered: true, httpStatus: 200 });

    const report = await h.engine.processJob(job(items('b', 6, t0)), run);

    expect(report.delivered).toBe(6);
    // A job that came due while probing sends its requests one at a time.
    expect(h.sender.requests).toHaveLength(7);
    expect(h.sender.maxInFlight).toBe(1);
    expect(await h.healthStore.get('orders', 'audit')).toMatchObject({
      consecutiveFailures: 0,
      probations: 0,
      lastOutcome: 'Delivered',
    });
    expect((await h.healthStore.get('orders', 'audit'))?.probationUntil).toBeUndefined();
    expect(h.healthStore.writes).toBe(2);

    // Recovered: the next job's requests go side by side again.
    await h.engine.processJob(job(items('c', 6, t0)), run);
    expect(h.sender.maxInFlight).toBeGreaterThan(1);
  });

  it('ten failures in a row make the endpoint unhealthy: the rest of the job is held for a minute, then longer', async () => {
    const h = engineHarness({ concurrency: 1, randoms: Array(20).fill(0) });
    h.sender.answerWith({ httpStatus: 500, outcome: 'GenericError' });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job(items('a', 12, t0)), run);

    expect(h.sender.requests).toHaveLength(10);
    expect(report).toMatchObject({ retried: 10, held: 2 });
    const health = await h.healthStore.get('orders', 'audit');
    expect(health).toMatchObject({ consecutiveFailures: 10, unhealthySince: t0, probationUntil: t0 + 1 * M });

    // Forty minutes into the outage a failed probe holds it for twenty.
    h.clock.advanceTo(t0 + 40 * M);
    await h.engine.processJob(job(items('b', 3, t0)), run);
    expect(h.sender.requests).toHaveLength(11);
    const later = await h.healthStore.get('orders', 'audit');
    expect(later?.probationUntil).toBe(t0 + 40 * M + 20 * M);
  });

  it('410 Gone ends the job’s deliveries as EndpointDisabled and disables the endpoint until it is enabled', async () => {
    const h = engineHarness({ concurrency: 1 });
    h.sender.answerWith({ httpStatus: 410, outcome: 'Disabled' });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job(items('a', 3, t0)), run);

    expect(h.sender.requests).toHaveLength(1);
    expect(report).toMatchObject({ ended: 3, retried: 0, held: 0 });
    const ended = h.queue.takeEnded().flatMap((entry) => entry.job.ended);
    expect(ended.map((e) => [e.item.eventId, e.reason, e.item.attempts, e.item.lastOutcome])).toEqual([
      ['a0', 'EndpointDisabled', 1, 'Disabled'],
      ['a1', 'EndpointDisabled', 0, 'Probation'],
      ['a2', 'EndpointDisabled', 0, 'Probation'],
    ]);
    expect(h.history.records.map((r) => [r.eventId, r.outcome, r.next])).toEqual([
      ['a0', 'Disabled', { action: 'deadLetter', reason: 'EndpointDisabled' }],
      ['a1', 'Probation', { action: 'deadLetter', reason: 'EndpointDisabled' }],
      ['a2', 'Probation', { action: 'deadLetter', reason: 'EndpointDisabled' }],
    ]);

    // Hours later it is still disabled.
    h.clock.advance(5 * 60 * M);
    expect(await h.engine.processJob(job(items('b', 1, h.clock.now())), run)).toMatchObject({ ended: 1 });
    expect(h.sender.requests).toHaveLength(1);

    // An admin enables it (the health item is reset); workers see it once their copy expires.
    await resetHealth(h.healthStore, 'orders', 'audit', h.clock.now());
    h.clock.advance(1 * S);
    h.sender.answerWith({ delivered: true, httpStatus: 200 });
    expect(await h.engine.processJob(job(items('c', 1, h.clock.now())), run)).toMatchObject({ delivered: 1 });
  });

  // 003 (classic page), "LastDeliveryOutcome: Probation": "If an event subscription is in
  // probation, events may get dead-lettered or dropped without even trying delivery depending on
  // the error code due to which it's in probation." Gridwire's choice, per outcome: only a 410
  // (Disabled, above) ends events without a request; every probation a webhook can be put on
  // holds them, without using an attempt, and they are tried when it ends.
  it.each<[string, AttemptResult, number]>([
    ['Busy', { delivered: false, httpStatus: 503, outcome: 'Busy', durationMs: 1 }, 10 * S],
    ['TimedOut', { delivered: false, outcome: 'TimedOut', durationMs: 1 }, 10 * S],
    ['SocketError', { delivered: false, outcome: 'SocketError', durationMs: 1 }, 30 * S],
    ['NotFound', { delivered: false, httpStatus: 404, outcome: 'NotFound', durationMs: 1 }, 5 * M],
    [
      'ResolutionError',
      { delivered: false, outcome: 'ResolutionError', errorCode: 'ENOTFOUND', durationMs: 1 },
      5 * M,
    ],
    ['Unauthorized', { delivered: false, httpStatus: 401, outcome: 'Unauthorized', durationMs: 1 }, 5 * M],
    ['Forbidden', { delivered: false, httpStatus: 403, outcome: 'Forbidden', durationMs: 1 }, 5 * M],
  ])(
    'a %s probation holds new events without an attempt, and they are delivered after it',
    async (outcome, answer, probation) => {
      const h = engineHarness({ concurrency: 1, randoms: [0, 0, 0, 0] });
      h.sender.answerWith(answer);
      const t0 = h.clock.now();
      await h.engine.processJob(job(items('a', 1, t0)), run);
      h.queue.take();
      h.queue.takeEnded();
      expect(await h.healthStore.get('orders', 'audit')).toMatchObject({ probationOutcome: outcome });

      const during = await h.engine.processJob(job(items('b', 2, t0)), run);

      expect(during).toMatchObject({ held: 2, ended: 0, delivered: 0 });
      expect(h.sender.requests).toHaveLength(1);
      expect(h.queue.takeEnded()).toHaveLength(0);
      const held = h.queue.take();
      expect(held.map((entry) => entry.job.dueAt)).toEqual([t0 + probation]);
      expect(held[0]?.job.items.map((i) => [i.eventId, i.attempts, i.lastOutcome])).toEqual([
        ['b0', 0, 'Probation'],
        ['b1', 0, 'Probation'],
      ]);

      h.clock.advance(probation);
      h.sender.answerWith({ delivered: true, httpStatus: 200 });
      expect(await h.engine.processJob(held[0]?.job ?? job([]), run)).toMatchObject({ delivered: 2 });
    },
  );

  it('a probation one worker begins holds another worker’s jobs once its cached copy expires', async () => {
    const clock = new VirtualClock();
    const healthStore = new MemoryHealthStore();
    const one = engineHarness({ clock, healthStore, concurrency: 1, healthCacheMs: 2 * S });
    const two = engineHarness({ clock, healthStore, concurrency: 1, healthCacheMs: 2 * S });
    const t0 = clock.now();
    // Worker two has read the (healthy) endpoint just before.
    await two.engine.processJob(job(items('w', 1, t0)), run);
    one.sender.answerWith({ httpStatus: 503, outcome: 'Busy' });
    await one.engine.processJob(job(items('a', 1, t0)), run);

    clock.advance(2 * S);
    const report = await two.engine.processJob(job(items('b', 3, t0)), run);

    expect(report).toMatchObject({ held: 3, delivered: 0 });
    expect(two.sender.requests).toHaveLength(1);
  });

  it('a job whose endpoint already failed with a different URL starts healthy: health follows the endpoint', async () => {
    const h = engineHarness({ concurrency: 1 });
    h.sender.answerWith({ httpStatus: 503, outcome: 'Busy' });
    const t0 = h.clock.now();
    await h.engine.processJob(job(items('a', 1, t0)), run);
    h.subscriptions.set(
      'orders/audit',
      subscription({
        version: 2,
        deadLetter: { container: 'dead' },
        destination: { endpointType: 'WebHook', endpointUrl: 'https://new.example.test/in' },
      }),
    );
    h.clock.advance(2 * S);
    h.sender.answerWith({ delivered: true, httpStatus: 200 });

    const report = await h.engine.processJob(
      job(items('b', 2, t0), undefined, deliveryTarget({ version: 2 })),
      run,
    );

    expect(report).toMatchObject({ delivered: 2, held: 0 });
  });

  it('a stalled endpoint holds its further events instead of queueing them; other subscriptions go on', async () => {
    const pending: Array<(result: AttemptResult) => void> = [];
    const requests: string[] = [];
    const hanging: WebhookSender = {
      send: (request: WebhookRequest) => {
        requests.push(request.url);
        if (request.url.includes('slow')) return new Promise((resolve) => pending.push(resolve));
        return Promise.resolve({ delivered: true, httpStatus: 200, durationMs: 1 });
      },
    };
    const h = engineHarness({ concurrency: 4, subscriptionConcurrency: 2, sendVia: hanging });
    h.subscriptions.set(
      'orders/audit',
      subscription({ destination: { endpointType: 'WebHook', endpointUrl: 'https://slow.example.test/' } }),
    );
    h.subscriptions.set('orders/fast', subscription({ name: 'fast' }));
    const t0 = h.clock.now();

    const slowJob = h.engine.processJob(job(items('s', 5, t0)), run);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(2);

    h.clock.advance(STALL_MS);
    // Another subscription's request finishing is when the stalled one's waiters give up.
    const fast = await h.engine.processJob(
      job(items('f', 1, t0), undefined, deliveryTarget({ name: 'fast' })),
      run,
    );
    expect(fast.delivered).toBe(1);
    // A new job for the stalled endpoint is held at once.
    const later = await h.engine.processJob(job(items('l', 3, t0)), run);
    expect(later).toMatchObject({ held: 3, delivered: 0 });

    for (const resolve of pending.splice(0))
      resolve({ delivered: true, httpStatus: 200, durationMs: 30_000 });
    const report = await slowJob;

    expect(report).toMatchObject({ delivered: 2, held: 3 });
    expect(requests.filter((url) => url.includes('slow'))).toHaveLength(2);
    const heldDue = h.queue
      .take()
      .filter((entry) => entry.job.target.subscription === 'audit')
      .map((entry) => entry.job.dueAt);
    // Held for BUSY_HOLD_MS (plus jitter) from when they were refused, not attempted.
    for (const dueAt of heldDue) expect(dueAt).toBeGreaterThanOrEqual(t0 + STALL_MS + BUSY_HOLD_MS);
  });
});

describe('delivery engine: an endpoint that has not agreed yet', () => {
  it('holds the job a minute without a request or an attempt, then delivers once it agreed', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();
    const waiting = subscription({
      validation: {
        endpointUrl: 'https://example.test/hook',
        code: 'c',
        startedAt: t0,
        expiresAt: t0 + 5 * M,
      },
    });
    h.subscriptions.set('orders/audit', waiting);

    const report = await h.engine.processJob(job(items('v', 2, t0)), run);

    expect(h.sender.requests).toHaveLength(0);
    expect(report).toMatchObject({ delivered: 0, held: 2, retried: 0, ended: 0 });
    const [held] = h.queue.take();
    // A minute, with the usual spread so held jobs don't all come back at once.
    expect(held?.job.dueAt).toBeGreaterThanOrEqual(t0 + UNVALIDATED_ENDPOINT_HOLD_MS);
    expect(held?.job.dueAt).toBeLessThanOrEqual(t0 + 1.1 * UNVALIDATED_ENDPOINT_HOLD_MS);
    expect(held?.job.items.map((i) => [i.eventId, i.attempts])).toEqual([
      ['v0', 0],
      ['v1', 0],
    ]);

    h.subscriptions.set('orders/audit', {
      ...waiting,
      validation: { ...(waiting.validation as NonNullable<typeof waiting.validation>), validatedAt: t0 + 1 },
    });
    h.clock.advanceTo(held?.job.dueAt ?? 0);
    expect(await h.engine.processJob(held?.job ?? job([]), run)).toMatchObject({ delivered: 2 });
  });
});

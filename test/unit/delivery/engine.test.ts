import { scaleProfiles } from '../../../shared/delivery/rules/profiles';
import { cachedSubscriptions } from '../../../shared/lambda/wiring';
import { METRIC } from '../../../shared/observability/metrics';
import type { SubscriptionStore } from '../../../shared/storage/subscriptions';
import {
  deliveryTarget,
  engineHarness,
  eventOf,
  item,
  job,
  subscription,
  VirtualClock,
} from '../../support/fakes';
import { H, M, S } from '../../support/time';

const farFuture = Number.MAX_SAFE_INTEGER;

describe('delivery engine', () => {
  it('delivers a due job with the service headers and writes nothing else on success', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e1', t0), item('e2', t0)]), {
      attemptDeadline: farFuture,
    });

    expect(report).toEqual({
      hopped: false,
      delivered: 2,
      retried: 0,
      ended: 0,
      deferred: 0,
      held: 0,
      queued: 0,
      stored: 0,
    });
    expect(h.sender.requests).toHaveLength(2);
    const first = h.sender.requests[0]?.request;
    expect(first?.url).toBe('https://hooks.example.test/in');
    expect(first?.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'aeg-delivery-count': '0',
      'aeg-subscription-name': 'AUDIT',
      'aeg-event-type': 'Notification',
    });
    expect(JSON.parse(first?.body ?? '')).toEqual([eventOf('e1', t0)]);
    expect(h.queue.sent).toHaveLength(0);
    expect(h.history.records).toHaveLength(0);
    expect(h.metrics.drain().find((p) => p.name === METRIC.DeliverySuccessCount)?.values).toEqual([2]);
  });

  // 003 (classic page), the introduction: "Event Grid doesn't guarantee order for event delivery,
  // so subscribers may receive them out of order."
  it('does not keep order: an event published later arrives before an earlier one that is retried', async () => {
    const h = engineHarness({ concurrency: 1, randoms: [0] });
    let first = true;
    h.sender.answerWith(() => {
      const answer = first
        ? { delivered: false, httpStatus: 500, outcome: 'GenericError' as const }
        : { delivered: true, httpStatus: 200 };
      first = false;
      return answer;
    });
    const t0 = h.clock.now();

    await h.engine.processJob(job([item('early', t0), item('late', t0 + 1)]), { attemptDeadline: farFuture });
    const [retry] = h.queue.take();
    h.clock.advance(10 * S);
    await h.engine.processJob(retry?.job ?? job([]), { attemptDeadline: farFuture });

    const received = h.sender.requests.map(({ request }) => JSON.parse(request.body)[0].id);
    // The later event was acknowledged before the earlier one's retry brought it in.
    expect(received).toEqual(['early', 'late', 'early']);
  });

  it('schedules a failed event on the retry queue with its state, due after the schedule plus jitter', async () => {
    const h = engineHarness({ randoms: [0.5] });
    h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError' });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e1', t0)]), { attemptDeadline: farFuture });

    expect(report.retried).toBe(1);
    const [sent] = h.queue.take();
    expect(sent?.queue).toBe('retry');
    expect(sent?.job.dueAt).toBe(t0 + 10 * S + 0.5 * S);
    // Real time: SQS delays are whole seconds, rounded up so it never surfaces early.
    expect(sent?.delaySeconds).toBe(11);
    expect(sent?.job.items[0]).toMatchObject({
      attempts: 1,
      lastOutcome: 'GenericError',
      lastHttpStatus: 500,
      lastAttemptAt: t0,
      publishedAt: t0,
    });
    expect(h.history.records).toEqual([
      expect.objectContaining({
        eventId: 'e1',
        attempt: 1,
        outcome: 'GenericError',
        httpStatus: 500,
        next: { action: 'retry', dueAt: t0 + 10.5 * S },
      }),
    ]);
  });

  it('packs events that failed alike into one retry message with one jitter draw', async () => {
    const h = engineHarness({ randoms: [0.2, 0.9] });
    h.sender.answerWith((request) =>
      request.headers['aeg-output-event-id'] === 'slow'
        ? { delivered: false, httpStatus: 503, outcome: 'Busy' }
        : { delivered: false, httpStatus: 500, outcome: 'GenericError' },
    );
    const t0 = h.clock.now();
    const items = ['a', 'b', 'c', 'slow'].map((id) => item(id, t0));

    await h.engine.processJob(job(items), { attemptDeadline: farFuture });

    const sent = h.queue.take();
    expect(sent.map((s) => s.job.items.map((i) => i.eventId))).toEqual([['a', 'b', 'c'], ['slow']]);
    expect(sent[0]?.job.dueAt).toBe(t0 + 10 * S + 0.2 * S);
    expect(sent[1]?.job.dueAt).toBe(t0 + 30 * S + 0.9 * 3 * S);
    expect(h.draws).toEqual([0.2, 0.9]);
  });

  it.each([400, 401, 403, 413])(
    'ends delivery at once on %i and hands the event to the dead-letter step with its reason',
    async (status) => {
      const h = engineHarness();
      h.sender.answerWith({ delivered: false, httpStatus: status, outcome: 'BadRequest' });

      const report = await h.engine.processJob(job([item('e1', h.clock.now())]), {
        attemptDeadline: farFuture,
      });

      expect(report).toMatchObject({ ended: 1, retried: 0 });
      expect(h.sender.requests).toHaveLength(1);
      expect(h.queue.take()).toEqual([]);
      const [handedOff] = h.queue.takeEnded();
      expect(handedOff?.queue).toBe('endedDelivery');
      expect(handedOff?.job.ended).toEqual([
        expect.objectContaining({
          reason: 'NonRetriableOutcome',
          item: expect.objectContaining({ attempts: 1, lastHttpStatus: status }),
        }),
      ]);
      expect(h.history.records[0]?.next).toEqual({ action: 'deadLetter', reason: 'NonRetriableOutcome' });
    },
  );

  it('hops a job that is not due yet without attempting it', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e1', t0, { attempts: 8 })], t0 + 3 * H), {
      attemptDeadline: farFuture,
    });

    expect(report.hopped).toBe(true);
    expect(h.sender.requests).toHaveLength(0);
    const [sent] = h.queue.take();
    expect(sent?.delaySeconds).toBe(900);
    expect(sent?.job.dueAt).toBe(t0 + 3 * H);
    expect(sent?.job.items[0]?.attempts).toBe(8);
  });

  it('at real time, sends a job due in under a second round once more (1 s) instead of waiting in the invocation', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e1', t0, { attempts: 1 })], t0 + 400), {
      attemptDeadline: farFuture,
    });

    expect(report.hopped).toBe(true);
    expect(h.clock.now()).toBe(t0);
    expect(h.sender.requests).toHaveLength(0);
    expect(h.queue.take().map((sent) => sent.delaySeconds)).toEqual([1]);
  });

  it('time-scaled, sleeps away the last sub-second instead of hopping, then attempts exactly at the due time', async () => {
    const h = engineHarness({ profiles: scaleProfiles(60) });
    const t0 = h.clock.now();

    await h.engine.processJob(job([item('e1', t0, { attempts: 1 })], t0 + 400), {
      attemptDeadline: farFuture,
    });

    expect(h.sender.requests.map((r) => r.at)).toEqual([t0 + 400]);
    expect(h.sender.requests[0]?.request.headers['aeg-delivery-count']).toBe('1');
  });

  it('checks the TTL when a job comes due and ends expired events without an attempt', async () => {
    const h = engineHarness();
    h.subscriptions.set(
      'orders/audit',
      subscription({ retry: { maxAttempts: 30, ttlMs: 60_000 }, deadLetter: { container: 'dead' } }),
    );
    const publishedAt = h.clock.now();
    h.clock.advance(100 * S);

    const report = await h.engine.processJob(
      job([item('old', publishedAt, { attempts: 3, lastOutcome: 'GenericError' })], h.clock.now()),
      { attemptDeadline: farFuture },
    );

    expect(report.ended).toBe(1);
    expect(h.sender.requests).toHaveLength(0);
    expect(h.queue.takeEnded()[0]?.job.ended[0]).toMatchObject({ reason: 'TimeToLiveExceeded' });
    expect(h.history.records).toEqual([
      expect.objectContaining({
        attempt: 4,
        outcome: 'NotAttempted',
        next: { action: 'deadLetter', reason: 'TimeToLiveExceeded' },
      }),
    ]);
  });

  it('drops pending events of a deleted subscription', async () => {
    const h = engineHarness();
    h.subscriptions.clear();

    const report = await h.engine.processJob(job([item('e1', h.clock.now())]), {
      attemptDeadline: farFuture,
    });

    expect(report.ended).toBe(1);
    expect(h.sender.requests).toHaveLength(0);
    expect(
      h.metrics
        .drain()
        .find((p) => p.name === METRIC.DroppedEventCount && p.dimensions.DropReason !== undefined)
        ?.dimensions,
    ).toMatchObject({
      DropReason: 'SubscriptionDeleted',
    });
  });

  it('re-queues untouched what it cannot start before the deadline', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e1', t0), item('e2', t0)]), { attemptDeadline: t0 });

    expect(report.deferred).toBe(2);
    expect(h.sender.requests).toHaveLength(0);
    const [sent] = h.queue.take();
    expect(sent?.delaySeconds).toBe(0);
    expect(sent?.job.dueAt).toBeUndefined();
    expect(sent?.job.items.map((i) => i.attempts)).toEqual([0, 0]);
  });

  it('fails the job (so SQS gives it back) when follow-up work cannot be queued', async () => {
    const h = engineHarness();
    h.sender.answerWith({ delivered: false, httpStatus: 500 });
    h.queue.failWith = new Error('SQS is down');

    await expect(
      h.engine.processJob(job([item('e1', h.clock.now())]), { attemptDeadline: farFuture }),
    ).rejects.toThrow('SQS is down');
  });

  it('does not fail the job when only the attempt history cannot be written', async () => {
    const h = engineHarness();
    h.sender.answerWith({ delivered: false, httpStatus: 500 });
    h.history.failWith = new Error('table throttled');

    const report = await h.engine.processJob(job([item('e1', h.clock.now())]), {
      attemptDeadline: farFuture,
    });

    expect(report.retried).toBe(1);
  });

  it('records a success that follows failures, so the history shows how it ended', async () => {
    const h = engineHarness();
    await h.engine.processJob(job([item('e1', h.clock.now(), { attempts: 2 })]), {
      attemptDeadline: farFuture,
    });
    expect(h.history.records).toEqual([
      expect.objectContaining({ attempt: 3, outcome: 'Delivered', next: { action: 'none' } }),
    ]);
  });

  it('keeps at most `concurrency` webhook requests in flight across jobs', async () => {
    const h = engineHarness({ concurrency: 3, subscriptionConcurrency: 3, latencyMs: 5 });
    const t0 = h.clock.now();
    const many = Array.from({ length: 20 }, (_, i) => item(`e${i}`, t0));

    await Promise.all([
      h.engine.processJob(job(many.slice(0, 10)), { attemptDeadline: farFuture }),
      h.engine.processJob(job(many.slice(10)), { attemptDeadline: farFuture }),
    ]);

    expect(h.sender.requests).toHaveLength(20);
    expect(h.sender.maxInFlight).toBe(3);
  });

  it('runs a day of retries in virtual time: every attempt on schedule within jitter bounds, then TTL', async () => {
    const h = engineHarness({ randoms: Array.from({ length: 50 }, (_, i) => (i * 0.37) % 1) });
    h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError' });
    const t0 = h.clock.now();
    let pending = [{ job: job([item('e1', t0)]), delaySeconds: 0 }];
    let hops = 0;
    while (pending.length > 0) {
      const [next] = pending;
      if (next === undefined) break;
      h.clock.advance(next.delaySeconds * S);
      const report = await h.engine.processJob(next.job, { attemptDeadline: farFuture });
      if (report.hopped) hops += 1;
      pending = h.queue.take();
    }

    const times = h.sender.requests.map((r) => r.at - t0);
    const counts = h.sender.requests.map((r) => r.request.headers['aeg-delivery-count']);
    expect(counts).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    const schedule = [10 * S, 30 * S, 1 * M, 5 * M, 10 * M, 30 * M, 1 * H, 3 * H, 6 * H, 12 * H];
    schedule.forEach((step, index) => {
      const gap = (times[index + 1] ?? 0) - (times[index] ?? 0);
      expect(gap).toBeGreaterThanOrEqual(step);
      expect(gap).toBeLessThan(step + Math.min(step * 0.1, 60 * S));
    });
    expect(h.history.records.at(-1)).toMatchObject({
      outcome: 'NotAttempted',
      next: { action: 'deadLetter', reason: 'TimeToLiveExceeded' },
    });
    // 12 h waits take 48 hops of 900 s; shorter ones fewer.
    expect(hops).toBeGreaterThan(48);
  });
  it('stamps each attempt with its own start time, not the end of the job', async () => {
    const h = engineHarness({ concurrency: 1 });
    // Every attempt takes 30 s of the virtual clock and fails with a 500 (which begins no
    // probation, so every event is attempted).
    h.sender.answerWith(() => {
      h.clock.advance(30 * S);
      return { delivered: false, httpStatus: 500, outcome: 'GenericError' };
    });
    const t0 = h.clock.now();

    await h.engine.processJob(job([item('e1', t0), item('e2', t0), item('e3', t0)]), {
      attemptDeadline: farFuture,
    });

    expect(h.history.records.map((r) => [r.eventId, r.at - t0])).toEqual([
      ['e1', 0],
      ['e2', 30 * S],
      ['e3', 60 * S],
    ]);
    const retried = h.queue.take().flatMap((sent) => sent.job.items);
    expect(retried.map((i) => [i.eventId, (i.lastAttemptAt ?? 0) - t0])).toEqual([
      ['e1', 0],
      ['e2', 30 * S],
      ['e3', 60 * S],
    ]);
  });

  it('keeps one retry chain and never re-delivers when the dead-letter hand-off fails', async () => {
    const h = engineHarness();
    h.sender.answerWith((request) => {
      const id = request.headers['aeg-output-event-id'];
      if (id === 'ok') return { delivered: true, httpStatus: 200 };
      if (id === 'retry') return { delivered: false, httpStatus: 500, outcome: 'GenericError' };
      return { delivered: false, httpStatus: 400, outcome: 'BadRequest' };
    });
    h.queue.failing.set('endedDelivery', new Error('ended-delivery queue unavailable'));
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('ok', t0), item('retry', t0), item('ends', t0)]), {
      attemptDeadline: farFuture,
    });

    // The job succeeds, so SQS does not give the source message back: no second POST of 'ok',
    // no second retry chain for 'retry'.
    expect(report).toMatchObject({ delivered: 1, retried: 1, ended: 1 });
    expect(h.sender.requests).toHaveLength(3);
    expect(h.queue.take().map((sent) => [sent.queue, sent.job.items.map((i) => i.eventId)])).toEqual([
      ['retry', ['retry']],
    ]);
    // The ended event waits on the retry queue, then goes to the dead-letter step once it works.
    const [parked] = h.queue.takeEnded();
    expect(parked).toMatchObject({ queue: 'retry', delaySeconds: 60 });
    h.queue.failing.clear();
    await h.engine.processJob(parked?.job as NonNullable<typeof parked>['job'], {
      attemptDeadline: farFuture,
    });
    const [handedOff] = h.queue.takeEnded();
    expect(handedOff?.queue).toBe('endedDelivery');
    expect(handedOff?.job.ended.map((e) => [e.item.eventId, e.reason])).toEqual([
      ['ends', 'NonRetriableOutcome'],
    ]);
    expect(h.sender.requests).toHaveLength(3);
  });

  it('fails the job only when the retry queue itself refuses', async () => {
    const h = engineHarness();
    h.sender.answerWith({ delivered: false, httpStatus: 500 });
    h.queue.failing.set('retry', new Error('retry queue unavailable'));

    await expect(
      h.engine.processJob(job([item('e1', h.clock.now())]), { attemptDeadline: farFuture }),
    ).rejects.toThrow('retry queue unavailable');
  });

  it('asks for the subscription at the version the job was made for, and carries it on', async () => {
    const h = engineHarness();
    h.subscriptions.set('orders/audit', subscription({ version: 7 }));
    h.sender.answerWith({ delivered: false, httpStatus: 500 });

    await h.engine.processJob(job([item('e1', h.clock.now())], undefined, deliveryTarget({ version: 9 })), {
      attemptDeadline: farFuture,
    });

    expect(h.subscriptionReads).toEqual([{ topic: 'orders', name: 'audit', minVersion: 9 }]);
    expect(h.queue.take()[0]?.job.target.version).toBe(9);
  });

  it("follows the subscription's own retry limits and profile, read when the job runs", async () => {
    const h = engineHarness();
    h.sender.answerWith({ delivered: false, httpStatus: 500 });
    h.subscriptions.set(
      'orders/audit',
      subscription({ retry: { maxAttempts: 1, ttlMs: 60_000 }, deadLetter: { container: 'dead' } }),
    );

    const report = await h.engine.processJob(job([item('e1', h.clock.now())]), {
      attemptDeadline: farFuture,
    });

    expect(report).toMatchObject({ retried: 0, ended: 1 });
    expect(h.queue.takeEnded()[0]?.job.ended[0]?.reason).toBe('MaxDeliveryAttemptsExceeded');
  });

  it("drops a deleted subscription's job on a hop instead of sending it round again", async () => {
    const h = engineHarness();
    h.subscriptions.clear();
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e1', t0, { attempts: 8 })], t0 + 3 * H), {
      attemptDeadline: farFuture,
    });

    expect(report).toMatchObject({ hopped: false, ended: 1 });
    expect(h.queue.sent).toHaveLength(0);
    expect(
      h.metrics
        .drain()
        .find((p) => p.name === METRIC.DroppedEventCount && p.dimensions.DropReason !== undefined)
        ?.dimensions,
    ).toMatchObject({
      DropReason: 'SubscriptionDeleted',
    });
  });
  it('delivers, not drops, a job whose first (eventually consistent) subscription read misses', async () => {
    const clock = new VirtualClock();
    const reads: string[] = [];
    const store: Pick<SubscriptionStore, 'get'> = {
      get: async (_topic: string, _name: string, options: { consistent?: boolean } = {}) => {
        reads.push(options.consistent === true ? 'consistent' : 'eventual');
        // A subscription created a moment ago: only a strongly consistent read sees it yet.
        return options.consistent === true ? subscription() : undefined;
      },
    };
    const h = engineHarness({ subscriptionSource: cachedSubscriptions(store, 10_000, clock) });

    const report = await h.engine.processJob(job([item('e1', h.clock.now())]), {
      attemptDeadline: farFuture,
    });

    expect(report).toMatchObject({ delivered: 1, ended: 0 });
    expect(h.sender.requests).toHaveLength(1);
    expect(reads).toEqual(['eventual', 'consistent']);
  });
  it('drops, not delivers, the pending events of a subscription deleted and created again under its name', async () => {
    const h = engineHarness();
    h.subscriptions.set(
      'orders/audit',
      subscription({
        uid: 'second',
        version: 9,
        destination: { endpointType: 'WebHook', endpointUrl: 'https://new.example.test/' },
      }),
    );

    const report = await h.engine.processJob(
      job(
        [item('e1', h.clock.now(), { attempts: 2 })],
        undefined,
        deliveryTarget({ uid: 'first', version: 3 }),
      ),
      { attemptDeadline: farFuture },
    );

    expect(report).toMatchObject({ delivered: 0, ended: 1 });
    expect(h.sender.requests).toHaveLength(0);
    expect(
      h.metrics
        .drain()
        .find((p) => p.name === METRIC.DroppedEventCount && p.dimensions.DropReason !== undefined)
        ?.dimensions,
    ).toMatchObject({
      DropReason: 'SubscriptionDeleted',
    });
  });
  it('drops and counts ended events of a subscription without a dead-letter destination', async () => {
    const h = engineHarness();
    h.subscriptions.set('orders/audit', subscription());
    h.sender.answerWith({ delivered: false, httpStatus: 400, outcome: 'BadRequest' });

    const report = await h.engine.processJob(job([item('e1', h.clock.now())]), {
      attemptDeadline: farFuture,
    });

    expect(report.ended).toBe(1);
    expect(h.queue.sent).toHaveLength(0);
    expect(h.history.records[0]?.next).toEqual({ action: 'dropped', reason: 'NonRetriableOutcome' });
    const dropped = h.metrics
      .drain()
      .find((p) => p.name === METRIC.DroppedEventCount && p.dimensions.DropReason !== undefined);
    expect(dropped?.dimensions).toMatchObject({ DropReason: 'NonRetriableOutcome' });
    expect(dropped?.values).toEqual([1]);
  });

  it('hands ended events over with the write delay and what the dead-letter step needs', async () => {
    const h = engineHarness();
    h.sender.answerWith({ delivered: false, httpStatus: 400, outcome: 'BadRequest' });

    await h.engine.processJob(job([item('e1', h.clock.now())]), { attemptDeadline: farFuture });

    const [handedOff] = h.queue.takeEnded();
    expect(handedOff).toMatchObject({
      queue: 'endedDelivery',
      delaySeconds: 300,
      job: { target: { profile: 'topic', deadLetter: { container: 'dead', format: 'EventGridSchema' } } },
    });
  });
});

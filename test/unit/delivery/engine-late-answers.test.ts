/**
 * Late answers through the delivery engine, in virtual time with a sender whose timed-out
 * requests are answered when the test says: a success that comes after the timeout drops the
 * event's pending retry, and nothing else does.
 *
 * 003 (classic page), "Retry schedule": "If the endpoint responds within 3 minutes, Event Grid
 * attempts to remove the event from the retry queue on a best effort basis, but duplicates may
 * still be received."
 */

import { createDeliveryHandler, FINISHING_MARGIN_MS, INVOCATION_TIMES } from '../../../functions/delivery';
import { FUNCTIONS } from '../../../shared/config/resources';
import type { JobOptions } from '../../../shared/delivery/ports';
import {
  invocationLimits,
  LATE_ANSWER_WINDOW_MS,
  lateListenUntil,
} from '../../../shared/delivery/rules/late-answer';
import { NAMESPACE_PROFILE, TOPIC_PROFILE } from '../../../shared/delivery/rules/profiles';
import { deliveryTargetOf } from '../../../shared/delivery/target';
import type { LateListen, WebhookRequest, WebhookSender } from '../../../shared/delivery/webhook-sender';
import { DELIVERY_TIMEOUT_MS } from '../../../shared/delivery/webhook-sender';
import type { AttemptResult } from '../../../shared/domain/attempts';
import type { QueuedJob } from '../../../shared/domain/delivery';
import type { Subscription } from '../../../shared/domain/model';
import { METRIC } from '../../../shared/observability/metrics';
import { packJobs } from '../../../shared/queue/job-codec';
import { deliveryTarget, engineHarness, item, job, subscription } from '../../support/fakes';
import { MemoryLateAnswers } from '../../support/memory-stores';
import { lambdaContext, quietObservability, sqsEvent } from '../../support/sqs-events';
import { S } from '../../support/time';

const farFuture = Number.MAX_SAFE_INTEGER;

/**
 * A webhook that never answers within the timeout: each request comes back `TimedOut` at once
 * (listened to when the engine asks), and `answer` later gives a listened request its answer.
 */
class HangingSender implements WebhookSender {
  readonly requests: Array<{ request: WebhookRequest; late: LateListen | undefined }> = [];

  async send(request: WebhookRequest, late?: LateListen): Promise<AttemptResult> {
    this.requests.push({ request, late });
    // As the real sender: a stop ends the listen as if its window had closed.
    late?.stop?.addEventListener('abort', () => late.ended(), { once: true });
    return {
      delivered: false,
      outcome: 'TimedOut',
      durationMs: DELIVERY_TIMEOUT_MS,
      ...(late === undefined ? {} : { listeningUntil: late.until }),
    };
  }

  /** Request `index` answered late: with a success's status, or with nothing (the listen ended). */
  answer(index: number, answer?: { httpStatus: number; at: number }): void {
    const late = this.requests[index]?.late;
    if (late === undefined) throw new Error(`request ${index} is not listened to`);
    late.ended(answer);
  }
}

function harness(sub?: Subscription) {
  const lateAnswers = new MemoryLateAnswers();
  const sender = new HangingSender();
  const h = engineHarness({ sendVia: sender, lateAnswers, randoms: [0] });
  if (sub !== undefined) h.subscriptions.set(`${sub.topic}/${sub.name}`, sub);
  /** The late listens the jobs open, as one invocation collects them. */
  const listens: Promise<void>[] = [];
  return {
    ...h,
    hanging: sender,
    lateAnswers,
    processJob: (queued: QueuedJob, options: JobOptions) =>
      h.engine.processJob(queued, { ...options, listens }),
    /** Resolves once every listen opened so far (and any opened meanwhile) is over. */
    settled: async () => {
      while (listens.length > 0) await Promise.all(listens.splice(0));
    },
  };
}

describe('late answers', () => {
  it('asks the sender to listen until 3 minutes after the request started, when its job may listen that long', async () => {
    const h = harness();
    const t0 = h.clock.now();

    await h.processJob(job([item('e1', t0)]), { attemptDeadline: farFuture, listenUntil: farFuture });

    expect(h.hanging.requests[0]?.late?.until).toBe(t0 + LATE_ANSWER_WINDOW_MS);
    const [retry] = h.queue.take();
    expect(retry?.job.items[0]).toMatchObject({
      attempts: 1,
      lastOutcome: 'TimedOut',
      lateUntil: t0 + LATE_ANSWER_WINDOW_MS,
    });
  });

  it('drops the pending retry of an event whose timed-out request was answered with a success later', async () => {
    const h = harness();
    const t0 = h.clock.now();
    await h.processJob(job([item('e1', t0)]), { attemptDeadline: farFuture, listenUntil: farFuture });
    const [retry] = h.queue.take();
    h.metrics.drain();

    // 45 s after the request started (15 s after its timeout), the endpoint says 202.
    h.hanging.answer(0, { httpStatus: 202, at: t0 + 45 * S });
    await h.settled();

    // Counted as delivered then, and the history says which attempt it was and how long it took.
    const points = h.metrics.drain();
    const total = (name: string) =>
      points.filter((point) => point.name === name && point.dimensions.Topic === undefined)[0]?.values;
    expect(total(METRIC.DeliverySuccessCount)).toEqual([1]);
    expect(total(METRIC.DeliveryLateAnswerCount)).toEqual([1]);
    expect(h.history.records.at(-1)).toMatchObject({
      eventId: 'e1',
      attempt: 1,
      at: t0 + 45 * S,
      outcome: 'Delivered',
      httpStatus: 202,
      durationMs: 45 * S,
      next: { action: 'none' },
    });

    // The retry comes due: no request, nothing queued, reported as delivered.
    h.clock.advance((retry?.delaySeconds ?? 0) * S);
    const report = await h.processJob(retry?.job ?? job([]), {
      attemptDeadline: farFuture,
      listenUntil: farFuture,
    });

    expect(h.hanging.requests).toHaveLength(1);
    expect(h.queue.sent).toEqual([]);
    expect(report).toMatchObject({ delivered: 1, retried: 0, ended: 0, held: 0 });
    // The history ends with the retry not made, and nothing after it.
    expect(h.history.records.at(-1)).toMatchObject({
      eventId: 'e1',
      attempt: 2,
      at: h.clock.now(),
      outcome: 'NotAttempted',
      next: { action: 'none' },
    });
  });

  it('drops a later retry too when the late answer came after the first retry was already sent', async () => {
    const h = harness();
    const t0 = h.clock.now();
    await h.processJob(job([item('e1', t0)]), { attemptDeadline: farFuture, listenUntil: farFuture });
    let [retry] = h.queue.take();
    h.clock.advance((retry?.delaySeconds ?? 0) * S);
    await h.processJob(retry?.job ?? job([]), { attemptDeadline: farFuture, listenUntil: farFuture });
    [retry] = h.queue.take();

    // The first request's answer comes while the second is out: the second is a duplicate the
    // receiver gets (best effort), but the third attempt is not made.
    h.hanging.answer(0, { httpStatus: 200, at: h.clock.now() });
    h.hanging.answer(1);
    await h.settled();
    h.clock.advance((retry?.delaySeconds ?? 0) * S);
    await h.processJob(retry?.job ?? job([]), { attemptDeadline: farFuture, listenUntil: farFuture });

    expect(h.hanging.requests).toHaveLength(2);
    expect(h.queue.sent).toEqual([]);
  });

  it('sends the retry when the listen ended without a success, and looks up only events that were listened to', async () => {
    const h = harness();
    const t0 = h.clock.now();
    await h.processJob(job([item('e1', t0)]), { attemptDeadline: farFuture, listenUntil: farFuture });
    const [retry] = h.queue.take();
    h.hanging.answer(0);
    await h.settled();
    expect(h.lateAnswers.lookups).toBe(0);

    h.clock.advance((retry?.delaySeconds ?? 0) * S);
    await h.processJob(retry?.job ?? job([]), { attemptDeadline: farFuture, listenUntil: farFuture });

    expect(h.lateAnswers.lookups).toBe(1);
    expect(h.hanging.requests).toHaveLength(2);
    expect(h.hanging.requests[1]?.request.headers['aeg-delivery-count']).toBe('1');
  });

  it('sends the retry when the late answers cannot be looked up (at least once either way)', async () => {
    const h = harness();
    const t0 = h.clock.now();
    await h.processJob(job([item('e1', t0)]), { attemptDeadline: farFuture, listenUntil: farFuture });
    const [retry] = h.queue.take();
    h.hanging.answer(0, { httpStatus: 200, at: t0 + 40 * S });
    await h.settled();
    h.lateAnswers.failWith = new Error('DynamoDB is down');

    h.clock.advance((retry?.delaySeconds ?? 0) * S);
    await h.processJob(retry?.job ?? job([]), { attemptDeadline: farFuture, listenUntil: farFuture });

    expect(h.hanging.requests).toHaveLength(2);
  });

  it('does not listen without a time to stop by, under the namespace profile, or after the last attempt allowed', async () => {
    const namespaced = subscription({
      topic: 'shop/orders',
      deliveryProfile: 'namespace',
      deadLetter: { container: 'dead' },
    });
    const cases = [
      { sub: undefined, job: (t0: number) => job([item('e1', t0)]), listenUntil: undefined },
      {
        sub: namespaced,
        job: (t0: number) => job([item('e2', t0)], undefined, deliveryTargetOf(namespaced)),
        listenUntil: farFuture,
      },
      {
        sub: undefined,
        job: (t0: number) => job([item('e3', t0, { attempts: 29 })]),
        listenUntil: farFuture,
      },
    ];
    const retried: Array<[string, number | undefined]> = [];
    for (const one of cases) {
      const h = harness(one.sub);
      await h.processJob(one.job(h.clock.now()), {
        attemptDeadline: farFuture,
        ...(one.listenUntil === undefined ? {} : { listenUntil: one.listenUntil }),
      });
      expect(h.hanging.requests).toHaveLength(1);
      expect(h.hanging.requests[0]?.late).toBeUndefined();
      for (const { queue, job: queued } of h.queue.take()) {
        if (queue === 'retry')
          retried.push(...queued.items.map((i): [string, number | undefined] => [i.eventId, i.lateUntil]));
      }
      await h.settled();
    }

    // Only the first is retried (the others end), and without a late window to look up.
    expect(retried).toEqual([['e1', undefined]]);
  });

  it('is settled only once every listen has ended', async () => {
    const h = harness();
    const t0 = h.clock.now();
    await h.processJob(job([item('e1', t0), item('e2', t0)]), {
      attemptDeadline: farFuture,
      listenUntil: farFuture,
    });
    let settled = false;
    const settling = h.settled().then(() => {
      settled = true;
    });

    h.hanging.answer(0);
    await Promise.resolve();
    expect(settled).toBe(false);
    h.hanging.answer(1, { httpStatus: 200, at: t0 + 31 * S });
    await settling;

    expect(settled).toBe(true);
    expect(h.lateAnswers.items.size).toBe(1);
  });
});

// 003 (classic page), "Retry schedule": "If the endpoint responds within 3 minutes, Event Grid
// attempts to remove the event from the retry queue on a best effort basis, but duplicates may
// still be received." Three minutes from the request's start, whenever in its invocation it began.
describe('an invocation of the delivery function', () => {
  const timeoutMs = FUNCTIONS.delivery.timeoutSeconds * 1000;
  /** The last moment of an invocation a request may start in: later, its job is deferred. */
  const lastStart = timeoutMs - LATE_ANSWER_WINDOW_MS - FINISHING_MARGIN_MS;

  it.each([
    ['as it begins', 0],
    ['after 30 s', 30 * S],
    ['after 84.999 s, the last moment a request starts', lastStart - 1],
  ])(
    'listens to a request that timed out until 3 minutes after it started, when it started %s',
    async (_, ranForMs) => {
      const h = harness();
      const handler = createDeliveryHandler({
        worker: h.engine,
        observability: quietObservability(),
        clock: h.clock,
      });
      const startedAt = h.clock.now();
      const body = packJobs({ target: deliveryTarget() }, [item('e1', startedAt)])[0] as string;

      // The invocation has run `ranForMs` when the job's request starts (the clock stands still).
      const answering = handler(sqsEvent([body]), lambdaContext(timeoutMs - ranForMs));
      // Condition waits, not timers: until the request was made and timed out.
      while (h.hanging.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));

      const until = h.hanging.requests[0]?.late?.until;
      expect(until).toBe(startedAt + LATE_ANSWER_WINDOW_MS);
      // Inside the invocation, before its finishing margin.
      expect(until).toBeLessThanOrEqual(startedAt - ranForMs + timeoutMs - FINISHING_MARGIN_MS);
      // A success 2 min 59 s after the request started: the event's retry is not made.
      h.hanging.answer(0, { httpStatus: 200, at: startedAt + LATE_ANSWER_WINDOW_MS - S });
      expect(await answering).toEqual({ batchItemFailures: [] });
      const [retry] = h.queue.take();
      h.clock.advance((retry?.delaySeconds ?? 0) * S);
      await h.processJob(retry?.job ?? job([]), { attemptDeadline: farFuture, listenUntil: farFuture });
      expect(h.hanging.requests).toHaveLength(1);
      expect(h.history.records.at(-1)).toMatchObject({ eventId: 'e1', attempt: 2, outcome: 'NotAttempted' });
    },
  );

  it('starts no request later than that: the job is queued again for an invocation with the time', async () => {
    const h = harness();
    const handler = createDeliveryHandler({
      worker: h.engine,
      observability: quietObservability(),
      clock: h.clock,
    });
    const body = packJobs({ target: deliveryTarget() }, [item('e1', h.clock.now())])[0] as string;

    expect(await handler(sqsEvent([body]), lambdaContext(timeoutMs - lastStart))).toEqual({
      batchItemFailures: [],
    });

    expect(h.hanging.requests).toEqual([]);
    expect(h.queue.take().map(({ queue, job: queued }) => [queue, queued.items[0]?.attempts])).toEqual([
      ['retry', 0],
    ]);
  });

  it('plans every request start so that its whole window ends before the finishing margin', () => {
    const invocationStart = Date.parse('2026-11-25T10:00:00Z');
    const limits = invocationLimits(invocationStart + timeoutMs, INVOCATION_TIMES);
    expect(limits).toEqual({
      attemptDeadline: invocationStart + 85 * S,
      listenUntil: invocationStart + timeoutMs - FINISHING_MARGIN_MS,
    });
    for (let startedAt = invocationStart; startedAt < limits.attemptDeadline; startedAt += 5 * S) {
      const until = lateListenUntil({
        profile: TOPIC_PROFILE,
        limits: { maxAttempts: 30 },
        attemptsBefore: 0,
        startedAt,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        stopBy: limits.listenUntil,
      });
      expect([startedAt - invocationStart, until]).toEqual([
        startedAt - invocationStart,
        startedAt + LATE_ANSWER_WINDOW_MS,
      ]);
    }
  });
});

describe('a sender that throws', () => {
  it('leaves no listen open, so the invocation still ends', async () => {
    const lateAnswers = new MemoryLateAnswers();
    const throwing: WebhookSender = {
      send: async () => {
        throw new Error('worker crashed');
      },
    };
    const h = engineHarness({ sendVia: throwing, lateAnswers });
    const listens: Promise<void>[] = [];

    await expect(
      h.engine.processJob(job([item('e1', h.clock.now())]), {
        attemptDeadline: farFuture,
        listenUntil: farFuture,
        listens,
      }),
    ).rejects.toThrow('worker crashed');

    // Resolves: were the listen left open, this would never settle and the test would time out.
    expect(listens).toHaveLength(1);
    await Promise.all(listens);
    expect(lateAnswers.items.size).toBe(0);
  });
});

describe('a worker stopping', () => {
  it('ends its listens at once, and listens to no request it sends after that', async () => {
    const h = harness();
    const t0 = h.clock.now();
    await h.processJob(job([item('e1', t0)]), { attemptDeadline: farFuture, listenUntil: farFuture });

    h.engine.stopListening();
    await h.settled();
    // After the probation the timeout began.
    h.clock.advance(60 * S);
    await h.processJob(job([item('e2', t0)]), { attemptDeadline: farFuture, listenUntil: farFuture });

    expect(h.hanging.requests.map(({ late }) => late !== undefined)).toEqual([true, false]);
    expect(h.lateAnswers.items.size).toBe(0);
  });
});

describe('the late window (rules)', () => {
  const t0 = Date.parse('2026-11-25T10:00:00Z');
  const input = {
    profile: TOPIC_PROFILE,
    limits: { maxAttempts: 30 },
    attemptsBefore: 0,
    startedAt: t0,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    stopBy: farFuture,
  };

  it('lasts until 3 minutes after the request started, or until the worker must stop, whichever is first', () => {
    expect(lateListenUntil(input)).toBe(t0 + 3 * 60 * S);
    expect(lateListenUntil({ ...input, stopBy: t0 + 100 * S })).toBe(t0 + 100 * S);
  });

  it('is as long as the window it is given (the local stack shrinks it with the timeout for tests)', () => {
    expect(lateListenUntil({ ...input, timeoutMs: 2 * S, windowMs: 12 * S })).toBe(t0 + 12 * S);
    expect(lateListenUntil({ ...input, timeoutMs: 12 * S, windowMs: 12 * S })).toBeUndefined();
  });

  it('is none when the worker must stop before the timeout, when no retry can follow, or for the namespace profile', () => {
    expect(lateListenUntil({ ...input, stopBy: t0 + 30 * S })).toBeUndefined();
    expect(lateListenUntil({ ...input, attemptsBefore: 29 })).toBeUndefined();
    expect(lateListenUntil({ ...input, attemptsBefore: 28 })).toBe(t0 + 3 * 60 * S);
    expect(lateListenUntil({ ...input, profile: NAMESPACE_PROFILE })).toBeUndefined();
  });
});

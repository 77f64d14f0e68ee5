/**
 * The per-subscription limits on resend and dead-letter replay calls: the rule (windows,
 * Retry-After, the refusal's words), and the routes answering 429 once a subscription's calls
 * for the minute are taken, counted in one store however many management instances share it.
 */
import type { AttemptRecord } from '../../../shared/domain/attempts';
import { errorResult, type HttpEvent, type HttpResult } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import { handleManagement } from '../../../shared/management/api';
import {
  admitCall,
  callLimitRefusal,
  callWindowOf,
  REPLAY_LIMIT,
  RESEND_LIMIT,
  retryAfterSecondsOf,
} from '../../../shared/management/call-limits';
import { InProcessRateBudget, type RateBudgetStore } from '../../../shared/storage/rate-budget';
import { RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { emptyHistory, routeTestDeps } from '../../support/management-routes';
import { MemoryDeadLetterBucket } from '../../support/memory-dead-letter-bucket';
import { memoryStores } from '../../support/memory-stores';

/** A minute's start, and 45 s into it. */
const MINUTE = Date.parse('2026-11-23T12:00:00.000Z');
const T0 = MINUTE + 45_000;
const SUB = subscription({ topic: 'orders', name: 'audit', deadLetter: { container: 'dead' } });

/** What a call answered: its result, or its ApiError answered as the API would. */
async function answerOf(call: Promise<HttpResult>): Promise<HttpResult> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError) return errorResult(error);
    throw error;
  }
}

/** Takes `count` calls of `limit` on `sub` at `now`: how many were let through. */
async function admitted(budget: RateBudgetStore, limit: typeof RESEND_LIMIT, count: number, now: number) {
  let through = 0;
  for (let call = 0; call < count; call++) {
    try {
      await admitCall(budget, limit, SUB, now);
      through++;
    } catch (error) {
      if (!(error instanceof ApiError) || error.statusCode !== 429) throw error;
    }
  }
  return through;
}

describe('the call limits', () => {
  it('are 60 resends and 60 replays a minute per subscription', () => {
    expect(RESEND_LIMIT).toMatchObject({ perWindow: 60, windowMs: 60_000 });
    expect(REPLAY_LIMIT).toMatchObject({ perWindow: 60, windowMs: 60_000 });
  });

  it('count in whole minutes, and ask the refused to wait until the next one (at least a second)', () => {
    expect(callWindowOf(RESEND_LIMIT, MINUTE)).toBe(callWindowOf(RESEND_LIMIT, MINUTE + 59_999));
    expect(callWindowOf(RESEND_LIMIT, MINUTE + 60_000)).toBe(callWindowOf(RESEND_LIMIT, MINUTE) + 1);
    expect(retryAfterSecondsOf(RESEND_LIMIT, MINUTE)).toBe(60);
    expect(retryAfterSecondsOf(RESEND_LIMIT, T0)).toBe(15);
    expect(retryAfterSecondsOf(RESEND_LIMIT, T0 + 500)).toBe(15);
    expect(retryAfterSecondsOf(RESEND_LIMIT, MINUTE + 59_999)).toBe(1);
  });

  it('refuse with 429, TooManyRequests and a detail naming the call, the limit and the subscription', () => {
    const refusal = callLimitRefusal(RESEND_LIMIT, SUB, T0);
    expect(refusal.statusCode).toBe(429);
    expect(refusal.retryAfterSeconds).toBe(15);
    expect(refusal.toBody()).toEqual({
      error: {
        code: 'TooManyRequests',
        message: expect.stringMatching(
          /^Too many resend calls: at most 60 per minute per event subscription, and subscription 'audit' of topic 'orders' has had them\. Try again in 15 seconds/,
        ),
        details: [{ code: 'ResendRateLimitExceeded', message: refusal.message }],
      },
    });
    expect(callLimitRefusal(REPLAY_LIMIT, SUB, T0).message).toMatch(
      /^Too many replay calls: at most 60 per minute/,
    );
  });

  it('let the limit through in a minute, refuse the rest, and let the limit through again the next minute', async () => {
    const budget = new InProcessRateBudget();
    expect(await admitted(budget, RESEND_LIMIT, 75, T0)).toBe(60);
    expect(await admitted(budget, RESEND_LIMIT, 5, MINUTE + 59_999)).toBe(0);
    expect(await admitted(budget, RESEND_LIMIT, 75, MINUTE + 60_000)).toBe(60);
  });

  it('count each subscription and each call apart, and leave the delivery rate’s window alone', async () => {
    const budget = new InProcessRateBudget();
    expect(await admitted(budget, REPLAY_LIMIT, 61, T0)).toBe(60);
    await expect(admitCall(budget, REPLAY_LIMIT, SUB, T0)).rejects.toMatchObject({ statusCode: 429 });
    // Resends of the same subscription, and replays of another, have counts of their own.
    await expect(admitCall(budget, RESEND_LIMIT, SUB, T0)).resolves.toBeUndefined();
    await expect(admitCall(budget, REPLAY_LIMIT, { ...SUB, name: 'billing' }, T0)).resolves.toBeUndefined();
    // The delivery rate's window of the same number is another item.
    const window = callWindowOf(REPLAY_LIMIT, T0);
    expect(await budget.take('orders', 'audit', window, 1, 10)).toEqual({ first: 0, count: 1 });
  });
});

const PATH = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const EVENT =
  '{"id":"order-1","subject":"s","eventType":"T","eventTime":"2026-11-23T11:00:00Z","data":{},"dataVersion":"1.0"}';
const LOGGED: AttemptRecord = {
  topic: 'orders',
  subscription: 'audit',
  eventId: 'order-1',
  deliveryId: 'd1',
  publishedAt: T0 - 3_600_000,
  attempt: 1,
  at: T0 - 3_600_000,
  outcome: 'Busy',
  httpStatus: 503,
  eventJson: EVENT,
  next: { action: 'none' },
};

/**
 * A management instance over `stores`, counting calls in `budget` (one store, as the table is to
 * every instance on AWS), at `clock`'s time.
 */
function instance(stores: ReturnType<typeof memoryStores>, budget: RateBudgetStore, clock: VirtualClock) {
  const queue = new RecordingQueue(clock);
  let ids = 0;
  const deps = routeTestDeps(stores, {
    clock,
    newId: () => `id-${++ids}`,
    queue,
    callBudget: budget,
    deadLetterBucket: new MemoryDeadLetterBucket(),
    history: {
      ...emptyHistory(7),
      find: async () => ({ records: [LOGGED], searched: { since: 0, until: clock.now() }, truncated: false }),
    },
  });
  const call = (suffix: string, body: unknown, name = 'audit') =>
    answerOf(
      handleManagement(
        {
          routeKey: `POST ${PATH}${suffix}`,
          pathParameters: { topic: 'orders', subscription: name },
          body: JSON.stringify(body),
        } as unknown as HttpEvent,
        deps,
      ),
    );
  return { queue, call };
}

async function setup() {
  const stores = memoryStores();
  await stores.subscriptions.put(SUB, undefined);
  await stores.subscriptions.put({ ...SUB, name: 'billing' }, undefined);
  const budget = new InProcessRateBudget();
  const clock = new VirtualClock(T0);
  return { clock, first: instance(stores, budget, clock), second: instance(stores, budget, clock) };
}

const statuses = (answers: HttpResult[]) => answers.map((answer) => answer.statusCode);

describe('POST .../resend past its limit', () => {
  it('is answered 429 with Retry-After and the error body naming the limit, across instances, and queues nothing', async () => {
    const { clock, first, second } = await setup();
    const answers: HttpResult[] = [];
    for (let call = 0; call < 30; call++) {
      answers.push(await first.call('/resend', { eventId: 'order-1' }));
      answers.push(await second.call('/resend', { eventId: 'order-1' }));
    }
    expect(new Set(statuses(answers))).toEqual(new Set([202]));
    const queued = first.queue.sent.length + second.queue.sent.length;
    expect(queued).toBe(60);

    const refused = await second.call('/resend', { eventId: 'order-1' });

    expect(refused.statusCode).toBe(429);
    expect(refused.headers).toMatchObject({ 'retry-after': '15' });
    expect(JSON.parse(refused.body as string)).toEqual({
      error: {
        code: 'TooManyRequests',
        message: expect.stringContaining('at most 60 per minute per event subscription'),
        details: [
          { code: 'ResendRateLimitExceeded', message: expect.stringContaining("subscription 'audit'") },
        ],
      },
    });
    expect(first.queue.sent.length + second.queue.sent.length).toBe(queued);
    // Another subscription's resends are not held back, and the next minute lets them through again.
    expect((await first.call('/resend', { eventId: 'order-1' }, 'billing')).statusCode).toBe(202);
    clock.advance(15_000);
    expect((await first.call('/resend', { eventId: 'order-1' })).statusCode).toBe(202);
  });

  it('counts only valid calls on subscriptions that exist', async () => {
    const { first } = await setup();
    for (let call = 0; call < 70; call++) {
      expect((await first.call('/resend', { eventid: 'order-1' })).statusCode).toBe(400);
      expect((await first.call('/resend', { eventId: 'order-1' }, 'missing')).statusCode).toBe(404);
    }
    expect((await first.call('/resend', { eventId: 'order-1' })).statusCode).toBe(202);
  });
});

describe('POST .../deadLetters/replay past its limit', () => {
  it('is answered 429 with Retry-After and the error body naming the limit, across instances', async () => {
    const { clock, first, second } = await setup();
    const answers: HttpResult[] = [];
    for (let call = 0; call < 30; call++) {
      answers.push(await first.call('/deadLetters/replay', {}));
      answers.push(await second.call('/deadLetters/replay', { dryRun: true }));
    }
    expect(statuses(answers)).toEqual(Array.from({ length: 60 }, () => 200));

    const refused = await first.call('/deadLetters/replay', {});

    expect(refused.statusCode).toBe(429);
    expect(refused.headers).toMatchObject({ 'retry-after': '15' });
    expect(JSON.parse(refused.body as string)).toEqual({
      error: {
        code: 'TooManyRequests',
        message: expect.stringContaining(
          'Too many replay calls: at most 60 per minute per event subscription',
        ),
        details: [{ code: 'ReplayRateLimitExceeded', message: expect.stringContaining("topic 'orders'") }],
      },
    });
    expect((await second.call('/deadLetters/replay', {}, 'billing')).statusCode).toBe(200);
    clock.advance(15_000);
    expect((await second.call('/deadLetters/replay', {})).statusCode).toBe(200);
  });
});

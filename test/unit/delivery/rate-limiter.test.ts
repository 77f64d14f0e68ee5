import { BUDGET_UNREADABLE_HOLD_MS, RateLimiter } from '../../../shared/delivery/rate-limiter';
import { RATE_WINDOW_GUARD_MS, rateWindowOf } from '../../../shared/delivery/rules/rate-limit';
import { silentLogger } from '../../../shared/observability/logging';
import { VirtualClock } from '../../../shared/platform/clock';
import { InProcessRateBudget, type RateBudgetStore } from '../../../shared/storage/rate-budget';

const T = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A budget that counts its calls. */
class CountingBudget implements RateBudgetStore {
  readonly calls: Array<{ window: number; want: number; first: number; count: number }> = [];
  constructor(private readonly inner: RateBudgetStore = new InProcessRateBudget()) {}
  async take(topic: string, subscription: string, window: number, want: number, limit: number) {
    const slice = await this.inner.take(topic, subscription, window, want, limit);
    this.calls.push({ window, want, ...slice });
    return slice;
  }
}

/** How many permits each second saw. */
const perWindow = (times: readonly number[]) => {
  const counts = new Map<number, number>();
  for (const time of times) counts.set(rateWindowOf(time), (counts.get(rateWindowOf(time)) ?? 0) + 1);
  return counts;
};

describe('the rate limiter', () => {
  it('lets at most the limit start in any second, in the order asked, waiting for the next second', async () => {
    const clock = new VirtualClock(T);
    const budget = new CountingBudget();
    const limiter = new RateLimiter({ clock, budget, logger: silentLogger });
    const started: Array<{ index: number; at: number }> = [];
    // 15 requests at 5/s: within the 2 s a request may wait, 10 wait and 5 are held.
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, index) =>
        limiter.take('orders', 'audit', 5).then((answer) => {
          if (answer.kind === 'go') started.push({ index, at: clock.now() });
          return answer;
        }),
      ),
    );
    expect(answers.filter((answer) => answer.kind === 'go')).toHaveLength(10);
    expect(started.map((start) => start.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...perWindow(started.map((start) => start.at)).values()]).toEqual([5, 5]);
    // A slice for what is waiting when the lane asks (at least a tenth of the limit): here the
    // first request alone, then the rest of the second; the next second in one.
    expect(budget.calls).toEqual([
      { window: T / 1000, want: 1, first: 0, count: 1 },
      { window: T / 1000, want: 5, first: 1, count: 4 },
      { window: T / 1000 + 1, want: 5, first: 0, count: 5 },
    ]);
  });

  it.each([
    ['at the start of a second', 0],
    ['in the middle of one (the places already past are not used at once)', 300],
    ['near its end', 900],
  ])(
    'spreads the requests of a burst beginning %s: no 1,000 ms holds more than the limit',
    async (_when, offset) => {
      const clock = new VirtualClock(T + offset);
      const limiter = new RateLimiter({ clock, budget: new InProcessRateBudget(), logger: silentLogger });
      const started: number[] = [];
      await Promise.all(
        Array.from({ length: 10 }, () =>
          limiter.take('orders', 'audit', 5).then((answer) => {
            if (answer.kind === 'go') started.push(clock.now());
          }),
        ),
      );
      expect(started).toHaveLength(10);
      const sorted = [...started].sort((a, b) => a - b);
      for (let i = 0; i + 5 < sorted.length; i += 1) {
        expect((sorted[i + 5] as number) - (sorted[i] as number)).toBeGreaterThanOrEqual(1000);
      }
      for (const count of perWindow(started).values()) expect(count).toBeLessThanOrEqual(5);
    },
  );

  it('holds requests beyond the longest wait, spread at the limit’s pace from after the waiters', async () => {
    const clock = new VirtualClock(T);
    const limiter = new RateLimiter({ clock, budget: new InProcessRateBudget(), logger: silentLogger });
    const answers = await Promise.all(Array.from({ length: 30 }, () => limiter.take('orders', 'audit', 5)));
    const holds = answers.flatMap((answer) => (answer.kind === 'hold' ? [answer.until] : []));
    expect(holds).toHaveLength(20);
    // Placed 200 ms apart from 2 s on, due on whole seconds: 5 per second, none before the waiters are done.
    expect([...perWindow(holds.map((until) => until - 1)).values()]).toEqual([5, 5, 5, 5]);
    expect(Math.min(...holds)).toBe(T + 3000);
  });

  it('shares one budget between workers: together they never exceed the limit in a second', async () => {
    const clock = new VirtualClock(T);
    const budget = new CountingBudget();
    const workers = [1, 2, 3].map(() => new RateLimiter({ clock, budget, logger: silentLogger }));
    const started: number[] = [];
    await Promise.all(
      workers.flatMap((worker) =>
        Array.from({ length: 12 }, () =>
          worker.take('orders', 'audit', 10).then((answer) => {
            if (answer.kind === 'go') started.push(clock.now());
          }),
        ),
      ),
    );
    expect(started).toHaveLength(36);
    for (const count of perWindow(started).values()) expect(count).toBeLessThanOrEqual(10);
    expect(budget.calls.length).toBeLessThan(started.length);
  });

  it('says a permit no longer holds once its second is (almost) over', async () => {
    const clock = new VirtualClock(T + 100);
    const limiter = new RateLimiter({ clock, budget: new InProcessRateBudget(), logger: silentLogger });
    const permit = await limiter.take('orders', 'audit', 5);
    expect(permit.kind === 'go' && limiter.valid(permit)).toBe(true);
    clock.advanceTo(T + 1000 - RATE_WINDOW_GUARD_MS);
    expect(permit.kind === 'go' && limiter.valid(permit)).toBe(false);
  });

  it('waits for the next second rather than start in the last moments of one', async () => {
    const clock = new VirtualClock(T + 1000 - RATE_WINDOW_GUARD_MS + 1);
    const limiter = new RateLimiter({ clock, budget: new InProcessRateBudget(), logger: silentLogger });
    const permit = await limiter.take('orders', 'audit', 5);
    expect(permit).toEqual({ kind: 'go', window: T / 1000 + 1 });
    expect(clock.now()).toBe(T + 1000);
  });

  it('holds the waiting requests when the budget cannot be read, sending nothing', async () => {
    const clock = new VirtualClock(T);
    const failing: RateBudgetStore = {
      take: async () => {
        throw new Error('table unavailable');
      },
    };
    const limiter = new RateLimiter({ clock, budget: failing, logger: silentLogger });
    const answers = await Promise.all([
      limiter.take('orders', 'audit', 5),
      limiter.take('orders', 'audit', 5),
    ]);
    expect(answers).toEqual([
      { kind: 'hold', until: T + BUDGET_UNREADABLE_HOLD_MS },
      { kind: 'hold', until: T + BUDGET_UNREADABLE_HOLD_MS },
    ]);
  });

  it('keeps separate budgets per subscription, names compared without case', async () => {
    const clock = new VirtualClock(T);
    const budget = new CountingBudget();
    const limiter = new RateLimiter({ clock, budget, logger: silentLogger });
    const one = await Promise.all([limiter.take('orders', 'audit', 1), limiter.take('ORDERS', 'Audit', 1)]);
    const other = await limiter.take('orders', 'billing', 1);
    expect(one.map((answer) => answer.kind === 'go' && answer.window)).toEqual([T / 1000, T / 1000 + 1]);
    expect(other.kind).toBe('go');
  });
});

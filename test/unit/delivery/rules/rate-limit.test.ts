import {
  holdsRequest,
  MAX_RATE_WAIT_MS,
  nextWindowAt,
  placeHeld,
  RATE_WINDOW_GUARD_MS,
  rateSliceOf,
  rateWindowOf,
  slotStartOf,
  startsInWindow,
} from '../../../../shared/delivery/rules/rate-limit';
import { sliceOf } from '../../../../shared/storage/rate-budget';

const T = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('rate limit rules', () => {
  it('counts the budget in whole seconds of the clock', () => {
    expect(rateWindowOf(T)).toBe(T / 1000);
    expect(rateWindowOf(T + 999)).toBe(T / 1000);
    expect(rateWindowOf(T + 1000)).toBe(T / 1000 + 1);
    expect(nextWindowAt(T + 1)).toBe(T + 1000);
    expect(nextWindowAt(T)).toBe(T + 1000);
  });

  it('starts no request in the last moments of its second, nor in another second', () => {
    const window = T / 1000;
    expect(startsInWindow(window, T)).toBe(true);
    expect(startsInWindow(window, T + 1000 - RATE_WINDOW_GUARD_MS - 1)).toBe(true);
    expect(startsInWindow(window, T + 1000 - RATE_WINDOW_GUARD_MS)).toBe(false);
    expect(startsInWindow(window, T + 1000)).toBe(false);
    expect(startsInWindow(window, T - 1)).toBe(false);
  });

  it.each([
    // limit, waiting, slice
    [50, 0, 5],
    [50, 3, 5],
    [50, 20, 20],
    [50, 500, 50],
    [1, 0, 1],
    [1, 9, 1],
    [10_000, 0, 1000],
    [10_000, 4000, 4000],
  ])('asks for a slice of the budget: limit %d, %d waiting -> %d', (limit, waiting, slice) => {
    expect(rateSliceOf(limit, waiting)).toBe(slice);
  });

  it('holds a request once the ones waiting ahead would take longer than the longest wait', () => {
    const seconds = MAX_RATE_WAIT_MS / 1000;
    expect(holdsRequest(50, 50 * seconds - 1)).toBe(false);
    expect(holdsRequest(50, 50 * seconds)).toBe(true);
    // Even at 1 per second, one request may wait.
    expect(holdsRequest(1, 0)).toBe(false);
    expect(holdsRequest(1, seconds)).toBe(true);
  });

  it('places held requests one after another at the limit’s pace, due on whole seconds', () => {
    const first = placeHeld(50, T + 300, 100, 0);
    // 100 waiting at 50/s: 2 s of waiters, then one request's share (20 ms).
    expect(first.horizon).toBe(T + 300 + 2000 + 20);
    expect(first.until).toBe(T + 3000);
    const second = placeHeld(50, T + 300, 100, first.horizon);
    expect(second.horizon).toBe(first.horizon + 20);
    expect(second.until).toBe(T + 3000);
    // A horizon long past counts for nothing.
    expect(placeHeld(50, T, 0, T - 60_000).horizon).toBe(T + 20);
    // 50 more held requests fill the next second.
    let horizon = first.horizon;
    for (let i = 0; i < 50; i += 1) horizon = placeHeld(50, T + 300, 100, horizon).horizon;
    expect(horizon).toBe(first.horizon + 50 * 20);
  });

  it.each([
    // taken after this slice, want, limit, first, granted
    [5, 5, 50, 0, 5],
    [50, 5, 50, 45, 5],
    [52, 5, 50, 47, 3],
    [55, 5, 50, 50, 0],
    [90, 5, 50, 85, 0],
    [1, 1, 1, 0, 1],
    [2, 1, 1, 1, 0],
  ])(
    'grants what the slice leaves under the limit: %d taken, %d wanted, limit %d -> from %d, %d',
    (after, want, limit, first, count) => {
      expect(sliceOf(after, want, limit)).toEqual({ first, count });
    },
  );

  it("spreads a second's requests evenly over it, the last before the guard", () => {
    const window = T / 1000;
    expect(slotStartOf(window, 0, 50)).toBe(T);
    expect(slotStartOf(window, 25, 50)).toBe(T + 475);
    expect(slotStartOf(window, 49, 50)).toBeLessThan(T + 1000 - RATE_WINDOW_GUARD_MS);
    expect(slotStartOf(window, 0, 1)).toBe(T);
  });
});

/**
 * The per-endpoint rate limit's rules (`destination.properties.maxDeliveriesPerSecond`), as pure
 * functions. The budget is counted in windows of one second of the stack's clock: every worker
 * takes slices of the current window's budget from one shared counter (`storage/rate-budget.ts`),
 * so the requests started in any one second, across all workers, never exceed the limit; each
 * request has a place in its second's order, and starts no earlier than its share of the second
 * (`slotStartOf`), so they are spread over the second rather than sent at its start. A slice
 * costs one write, however many requests it covers. A batch is one request.
 *
 * Requests the current window has no budget for wait for the next one, as long as the requests
 * waiting ahead of them on this worker would be sent within {@link MAX_RATE_WAIT_MS}; later ones
 * are held (not attempted, no attempt used) until about when the budget should reach them.
 */
import { RATE_WINDOW_MS } from '../../domain/destination';

/** `maxDeliveriesPerSecond`: requests per second to one subscription's endpoint. */
export const RATE_LIMITS = { min: 1, max: 10_000 } as const;

/**
 * No request is started in the last this many ms of a window: one started so close to its end
 * could reach the endpoint in the next second and count there too.
 */
export const RATE_WINDOW_GUARD_MS = 50;

/**
 * Longest a request waits on its worker for budget: the requests ahead of it, at the limit, must
 * be sent within this. Further requests are held, so an invocation never idles long on budget.
 */
export const MAX_RATE_WAIT_MS = 2000;

/** The window (epoch seconds) that `now` falls in. */
export const rateWindowOf = (now: number): number => Math.floor(now / RATE_WINDOW_MS);

/** Whether a request may still start at `now` in `window` (before the window's guard). */
export const startsInWindow = (window: number, now: number): boolean =>
  rateWindowOf(now) === window && now < (window + 1) * RATE_WINDOW_MS - RATE_WINDOW_GUARD_MS;

/**
 * The earliest a second's `index`-th request (0-based, across all workers) may start: the
 * second's requests are spread evenly over it (before its guard), so an endpoint that counts over
 * any 1,000 ms, not only whole seconds, sees no more than the limit either.
 */
export const slotStartOf = (window: number, index: number, limit: number): number =>
  window * RATE_WINDOW_MS + (index * (RATE_WINDOW_MS - RATE_WINDOW_GUARD_MS)) / limit;

/** When the window after the one `now` falls in opens. */
export const nextWindowAt = (now: number): number => (rateWindowOf(now) + 1) * RATE_WINDOW_MS;

/**
 * How much of a window's budget a worker asks for at once: what it has waiting, but at least a
 * tenth of the limit (so a steady trickle costs a write per tenth of a second, not per request),
 * and never more than the limit.
 */
export function rateSliceOf(limit: number, waiting: number): number {
  return Math.max(1, Math.min(limit, Math.max(waiting, Math.ceil(limit / 10))));
}

/** Whether a request with `waiting` requests ahead of it on this worker must be held rather than wait. */
export const holdsRequest = (limit: number, waiting: number): boolean =>
  waiting >= Math.max(1, Math.floor((limit * MAX_RATE_WAIT_MS) / RATE_WINDOW_MS));

/**
 * Where a held request is placed: after the worker's current waiters and the requests it has
 * already held (`horizon`, epoch ms, where the last held one was placed), one request's share of a
 * second further on. Held requests are so spread at the limit's pace instead of all coming back
 * at once; with several workers they may come back early, and are then held again. `until` is
 * rounded up to the second, so the requests held for the same second go back in one message.
 */
export function placeHeld(
  limit: number,
  now: number,
  waiting: number,
  horizon: number,
): { until: number; horizon: number } {
  const afterWaiters = now + (waiting * RATE_WINDOW_MS) / limit;
  const placed = Math.max(horizon, afterWaiters) + RATE_WINDOW_MS / limit;
  return { until: Math.ceil(placed / RATE_WINDOW_MS) * RATE_WINDOW_MS, horizon: placed };
}

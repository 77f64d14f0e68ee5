/**
 * The per-endpoint rate limit in the engine: requests to a rate-limited subscription never start
 * more than its limit in a second, a batch counts as one request, and requests with no budget
 * soon enough are held (back on the retry queue, no attempt used), never failed.
 */

import { rateWindowOf } from '../../../shared/delivery/rules/rate-limit';
import type { WebhookDestination } from '../../../shared/domain/model';
import { engineWithDestination, item, job } from '../../support/fakes';

const farFuture = Number.MAX_SAFE_INTEGER;

const harness = (destination: Partial<WebhookDestination>) =>
  engineWithDestination(destination, { concurrency: 16 });

const perSecond = (times: readonly number[]) => {
  const counts = new Map<number, number>();
  for (const at of times) counts.set(rateWindowOf(at), (counts.get(rateWindowOf(at)) ?? 0) + 1);
  return [...counts.values()];
};

describe('the rate limit in the engine', () => {
  it('starts at most the limit in a second and holds the rest without an attempt', async () => {
    const h = harness({ maxDeliveriesPerSecond: 5 });
    const t0 = h.clock.now();
    const items = Array.from({ length: 20 }, (_, i) => item(`e${i}`, t0));

    const report = await h.engine.processJob(job(items), { attemptDeadline: farFuture });

    // Two seconds of budget are waited for; the other ten events are held.
    expect(perSecond(h.sender.requests.map((request) => request.at))).toEqual([5, 5]);
    expect(report.delivered).toBe(10);
    expect(report.held).toBe(10);
    expect(report.retried).toBe(0);
    const held = h.queue.take();
    const heldItems = held.flatMap((sent) => sent.job.items);
    expect(heldItems).toHaveLength(10);
    // Held, not failed: no attempt counted, nothing in the history.
    expect(heldItems.every((heldItem) => heldItem.attempts === 0)).toBe(true);
    expect(h.history.records).toHaveLength(0);
    // Due after the waiters, spread at the limit's pace: two seconds' worth.
    expect(new Set(held.map((sent) => sent.delaySeconds)).size).toBeGreaterThanOrEqual(2);
    expect(Math.min(...held.map((sent) => sent.delaySeconds))).toBeGreaterThanOrEqual(1);
  });

  it('counts a batch as one request', async () => {
    const h = harness({ maxDeliveriesPerSecond: 2, maxEventsPerBatch: 10 });
    const t0 = h.clock.now();
    const items = Array.from({ length: 40 }, (_, i) => item(`e${i}`, t0));

    const report = await h.engine.processJob(job(items), { attemptDeadline: farFuture });

    expect(h.sender.requests).toHaveLength(4);
    expect(perSecond(h.sender.requests.map((request) => request.at))).toEqual([2, 2]);
    expect(report.delivered).toBe(40);
  });

  it('leaves a subscription without a limit as it was: every request at once', async () => {
    const h = harness({});
    const t0 = h.clock.now();

    await h.engine.processJob(job(Array.from({ length: 20 }, (_, i) => item(`e${i}`, t0))), {
      attemptDeadline: farFuture,
    });

    expect(h.sender.requests).toHaveLength(20);
    expect(h.clock.now()).toBe(t0);
  });
});

import { deliveryTargetOf } from '../../../shared/delivery/target';
import type { Subscription } from '../../../shared/domain/model';
import { METRIC } from '../../../shared/observability/metrics';
import { engineHarness, item, job, subscription } from '../../support/fakes';
import { M, S } from '../../support/time';

const farFuture = Number.MAX_SAFE_INTEGER;

/** Puts the subscription in the harness and returns it. */
function withSubscription(h: ReturnType<typeof engineHarness>, subscription: Subscription): Subscription {
  h.subscriptions.set(`${subscription.topic}/${subscription.name}`, subscription);
  return subscription;
}

describe('delivery engine with the namespace profile', () => {
  it("runs the original's example: retention 20 minutes, 10 attempts -> 7 attempts, dead-lettered at 20 minutes", async () => {
    const h = engineHarness({ randoms: Array.from({ length: 20 }, () => 0) });
    const audit = withSubscription(
      h,
      subscription({
        topic: 'shop/orders',
        deliveryProfile: 'namespace',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        retry: { maxAttempts: 10, ttlMs: 20 * M },
        deadLetter: { container: 'dead' },
      }),
    );
    h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError' });
    const t0 = h.clock.now();
    let pending = [{ job: job([item('e1', t0)], undefined, deliveryTargetOf(audit)), delaySeconds: 0 }];
    while (pending.length > 0) {
      const [next] = pending;
      if (next === undefined) break;
      h.clock.advance(next.delaySeconds * S);
      await h.engine.processJob(next.job, { attemptDeadline: farFuture });
      pending = h.queue.take();
    }

    expect(h.sender.requests.map((r) => r.at - t0)).toEqual([
      0,
      10 * S,
      30 * S,
      1 * M,
      5 * M,
      10 * M,
      15 * M,
    ]);
    expect(h.history.records.at(-1)).toMatchObject({
      attempt: 8,
      at: t0 + 20 * M,
      outcome: 'NotAttempted',
      next: { action: 'deadLetter', reason: 'TimeToLiveExceeded' },
    });
    const handedOff = h.queue.takeEnded();
    expect(handedOff).toHaveLength(1);
    expect(handedOff[0]).toMatchObject({ queue: 'endedDelivery', job: { target: { profile: 'namespace' } } });
    expect(h.metrics.drain().find((p) => p.name === METRIC.DeliveryAttemptFailCount)?.values).toEqual([7]);
  });

  it('never retries a 404 under the namespace profile (the topic profile does)', async () => {
    const h = engineHarness();
    const audit = withSubscription(
      h,
      subscription({ topic: 'shop/orders', deliveryProfile: 'namespace', deadLetter: { container: 'dead' } }),
    );
    h.sender.answerWith({ delivered: false, httpStatus: 404, outcome: 'NotFound' });
    await h.engine.processJob(job([item('e1', h.clock.now())], undefined, deliveryTargetOf(audit)), {
      attemptDeadline: farFuture,
    });
    expect(h.history.records.at(-1)).toMatchObject({
      attempt: 1,
      next: { action: 'deadLetter', reason: 'NonRetriableOutcome' },
    });
  });

  it('hands ended deliveries over in the namespace format, with the non-secret custom delivery properties', async () => {
    const opened: string[] = [];
    const h = engineHarness({
      sealer: {
        open: async (sealed: string) => {
          opened.push(sealed);
          return sealed.replace(/^sealed:/, '');
        },
      },
    });
    const base = subscription();
    const audit = withSubscription(
      h,
      subscription({
        topic: 'shop/orders',
        deliveryProfile: 'namespace',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        deadLetter: { container: 'dead' },
        destination: {
          ...base.destination,
          deliveryAttributeMappings: [
            { name: 'x-static', type: 'Static', isSecret: false, value: 'fixed' },
            { name: 'Authorization', type: 'Static', isSecret: true, sealedValue: 'sealed:Bearer s3cret' },
            { name: 'x-tenant', type: 'Dynamic', sourceField: 'data.tenant' },
          ],
        },
      }),
    );
    h.sender.answerWith({ delivered: false, httpStatus: 404, outcome: 'NotFound' });
    const event = {
      ...item('e1', h.clock.now()),
      eventJson: '{"specversion":"1.0","id":"e1","source":"/shop","type":"t","data":{"tenant":"acme"}}',
    };
    await h.engine.processJob(job([event], undefined, deliveryTargetOf(audit)), {
      attemptDeadline: farFuture,
    });

    // The request carried the secret header (opened to send it) ...
    expect(h.sender.requests[0]?.request.headers).toMatchObject({
      Authorization: 'Bearer s3cret',
      'x-tenant': 'acme',
    });
    const [handedOff] = h.queue.takeEnded();
    expect(handedOff).toMatchObject({
      queue: 'endedDelivery',
      delaySeconds: 300,
      job: {
        target: {
          topic: { namespace: 'shop', name: 'orders' },
          profile: 'namespace',
          deadLetter: { container: 'dead', format: 'namespace' },
        },
      },
    });
    // ... the dead letter carries only the non-secret values.
    expect(handedOff?.job.ended.map((entry) => entry.customDeliveryProperties)).toEqual([
      { 'x-static': 'fixed', 'x-tenant': 'acme' },
    ]);
    expect(JSON.stringify(handedOff?.job)).not.toContain('s3cret');
    expect(opened).toEqual(['sealed:Bearer s3cret']);
  });

  it('keeps the delivery schema as the format for a classic subscription, with no custom properties', async () => {
    const h = engineHarness();
    const base = subscription();
    h.subscriptions.set(
      'orders/audit',
      subscription({
        deadLetter: { container: 'dead' },
        destination: {
          ...base.destination,
          deliveryAttributeMappings: [{ name: 'x-static', type: 'Static', isSecret: false, value: 'fixed' }],
        },
      }),
    );
    h.sender.answerWith({ delivered: false, httpStatus: 400, outcome: 'BadRequest' });
    await h.engine.processJob(job([item('e1', h.clock.now())]), { attemptDeadline: farFuture });
    const [handedOff] = h.queue.takeEnded();
    expect(handedOff?.job.target.deadLetter).toEqual({ container: 'dead', format: 'EventGridSchema' });
    expect(handedOff?.job.ended[0]).not.toHaveProperty('customDeliveryProperties');
  });
});

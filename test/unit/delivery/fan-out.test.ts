/**
 * A publish's fan-out (one message standing for several delivery jobs): worked in place when it
 * is no more than one batch of messages, passed on as its jobs when larger or stored, and a job
 * of it that fails is queued on its own so the others are not repeated.
 */
import { FAN_OUT_IN_PLACE_JOBS } from '../../../shared/delivery/fan-out';
import { deliveryTargetOf } from '../../../shared/delivery/target';
import type { DeliveryItem, TopicRef } from '../../../shared/domain/delivery';
import {
  type FanOutDestination,
  packFanOut,
  parseJob,
  storedFanOutBody,
} from '../../../shared/queue/job-codec';
import { deliveryTarget, engineHarness, item, subscription } from '../../support/fakes';

const farFuture = Number.MAX_SAFE_INTEGER;
const ORDERS: TopicRef = { name: 'orders' };

/** `count` subscriptions of topic `orders`, each with its own endpoint, in the harness. */
function withSubscriptions(h: ReturnType<typeof engineHarness>, count: number): FanOutDestination[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `sub-${i}`;
    const one = subscription({
      name,
      destination: { endpointType: 'WebHook', endpointUrl: `https://hooks.example.test/${name}` },
    });
    h.subscriptions.set(`orders/${name}`, one);
    return { target: deliveryTargetOf(one), matched: i % 2 === 0 ? [0, 1] : [1] };
  });
}

const fanOutOf = (items: DeliveryItem[], targets: FanOutDestination[]) =>
  parseJob(packFanOut(ORDERS, items, targets));

/** The endpoints each event was posted to, by event id. */
function postsByEvent(h: ReturnType<typeof engineHarness>): Map<string, string[]> {
  const posts = new Map<string, string[]>();
  for (const { request } of h.sender.requests) {
    for (const event of JSON.parse(request.body) as Array<{ id: string }>) {
      posts.set(event.id, [...(posts.get(event.id) ?? []), request.url].sort());
    }
  }
  return posts;
}

describe('fan-out jobs', () => {
  it('delivers a small fan-out in place: each subscription gets the events it matched', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();
    const targets = withSubscriptions(h, 3);
    const report = await h.engine.processJob(fanOutOf([item('e1', t0), item('e2', t0)], targets), {
      attemptDeadline: farFuture,
    });

    expect(report).toMatchObject({ delivered: 5, retried: 0, queued: 0 });
    expect(postsByEvent(h)).toEqual(
      new Map([
        ['e1', ['https://hooks.example.test/sub-0', 'https://hooks.example.test/sub-2']],
        [
          'e2',
          [
            'https://hooks.example.test/sub-0',
            'https://hooks.example.test/sub-1',
            'https://hooks.example.test/sub-2',
          ],
        ],
      ]),
    );
    expect(h.queue.sent).toHaveLength(0);
  });

  it('passes a fan-out of more jobs than a batch on as its delivery jobs, without an attempt', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();
    const targets = withSubscriptions(h, FAN_OUT_IN_PLACE_JOBS + 1);
    const report = await h.engine.processJob(fanOutOf([item('e1', t0), item('e2', t0)], targets), {
      attemptDeadline: farFuture,
    });

    expect(h.sender.requests).toHaveLength(0);
    const passedOn = h.queue.take();
    expect(passedOn.map(({ queue, job, delaySeconds }) => [queue, job.target, delaySeconds])).toEqual(
      targets.map(({ target }) => ['delivery', target, 0]),
    );
    expect(passedOn[1]?.job.items.map((one) => one.eventId)).toEqual(['e2']);
    expect(report).toMatchObject({ delivered: 0, queued: 17 });
  });

  it('reads a stored fan-out and passes it on as its delivery jobs', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();
    const targets = withSubscriptions(h, 2);
    await h.queue.fanOuts.put(
      'fanouts/2026-01-01/p.json',
      packFanOut(ORDERS, [item('e1', t0), item('e2', t0)], targets),
    );
    const report = await h.engine.processJob(
      parseJob(storedFanOutBody(ORDERS, 'fanouts/2026-01-01/p.json', 10)),
      {
        attemptDeadline: farFuture,
      },
    );

    expect(h.sender.requests).toHaveLength(0);
    expect(
      h.queue.take().map(({ job }) => [job.target.subscription, job.items.map((one) => one.eventId)]),
    ).toEqual([
      ['sub-0', ['e1', 'e2']],
      ['sub-1', ['e2']],
    ]);
    expect(report).toMatchObject({ queued: 3 });
  });

  it('queues a job of the fan-out that fails on its own; the others are not repeated', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();
    const targets = withSubscriptions(h, 3);
    // The subscription of sub-1 can't be read (its table is down and nothing is cached).
    const { get } = { get: h.subscriptions.get.bind(h.subscriptions) };
    h.subscriptions.get = (key: string) => {
      if (key === 'orders/sub-1') throw new Error('table unavailable');
      return get(key);
    };
    const report = await h.engine.processJob(fanOutOf([item('e1', t0), item('e2', t0)], targets), {
      attemptDeadline: farFuture,
    });

    expect(report).toMatchObject({ delivered: 4, queued: 1 });
    expect(
      h.queue
        .take()
        .map(({ queue, job }) => [queue, job.target.subscription, job.items.map((one) => one.eventId)]),
    ).toEqual([['delivery', 'sub-1', ['e2']]]);
  });

  it('fails the whole fan-out (it comes back) only when the failed job cannot be queued either', async () => {
    const h = engineHarness();
    const t0 = h.clock.now();
    const targets = withSubscriptions(h, 2);
    h.subscriptions.get = () => {
      throw new Error('table unavailable');
    };
    h.queue.failing.set('delivery', new Error('queue unavailable'));
    await expect(
      h.engine.processJob(
        fanOutOf(
          [item('e1', t0)],
          targets.map((t) => ({ ...t, matched: [0] })),
        ),
        {
          attemptDeadline: farFuture,
        },
      ),
    ).rejects.toThrow('queue unavailable');
  });

  it('refuses a fan-out whose targets name events it does not carry', () => {
    const body = packFanOut(
      ORDERS,
      [item('e1', 0)],
      [{ target: deliveryTarget({ name: 'a' }), matched: [0, 1] }],
    );
    expect(() => parseJob(body)).toThrow('targets.0.matched: index 1 is beyond the 1 items');
  });
});

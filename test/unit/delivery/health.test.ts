import { HealthTracker } from '../../../shared/delivery/health';
import { gateOf } from '../../../shared/delivery/rules/health';
import { TOPIC_PROFILE } from '../../../shared/delivery/rules/profiles';
import { silentLogger } from '../../../shared/observability/logging';
import { resetHealth } from '../../../shared/storage/health';
import { subscription, VirtualClock } from '../../support/fakes';
import { MemoryHealthStore } from '../../support/memory-stores';

const tracker = (store: MemoryHealthStore, clock: VirtualClock, flushIntervalMs = 1000) =>
  new HealthTracker({ store, clock, logger: silentLogger, cacheMs: 2000, flushIntervalMs });

describe('HealthTracker', () => {
  it('loses no worker’s failures when two write at once: the loser reads again and folds its own in', async () => {
    const clock = new VirtualClock();
    const store = new MemoryHealthStore();
    const sub = subscription();
    const one = tracker(store, clock, 0);
    const two = tracker(store, clock, 0);
    await Promise.all([one.current(sub, TOPIC_PROFILE), two.current(sub, TOPIC_PROFILE)]);
    const t0 = clock.now();
    one.observe(sub, TOPIC_PROFILE, { at: t0, outcome: 'GenericError' });
    two.observe(sub, TOPIC_PROFILE, { at: t0 + 1, outcome: 'GenericError' });
    two.observe(sub, TOPIC_PROFILE, { at: t0 + 2, outcome: 'GenericError' });

    await Promise.all([one.settle(sub), two.settle(sub)]);

    expect(store.conflicts).toBe(1);
    expect(await store.get('orders', 'audit')).toMatchObject({ consecutiveFailures: 3, rev: 2 });
  });

  it('writes counters at most once per interval, a probation at once, and nothing for a healthy endpoint', async () => {
    const clock = new VirtualClock();
    const store = new MemoryHealthStore();
    const sub = subscription();
    const worker = tracker(store, clock, 1000);
    await worker.current(sub, TOPIC_PROFILE);
    for (let i = 0; i < 100; i += 1) {
      worker.observe(sub, TOPIC_PROFILE, { at: clock.now(), outcome: 'Delivered' });
      await worker.settle(sub);
    }
    expect(store.writes).toBe(0);

    for (let i = 0; i < 5; i += 1) {
      worker.observe(sub, TOPIC_PROFILE, { at: clock.now(), outcome: 'GenericError' });
      await worker.settle(sub);
      clock.advance(100);
    }
    // The first failure is written; the next four wait for the interval.
    expect(store.writes).toBe(1);
    clock.advance(1000);
    await worker.settle(sub);
    expect(store.writes).toBe(2);
    expect((await store.get('orders', 'audit'))?.consecutiveFailures).toBe(5);

    worker.observe(sub, TOPIC_PROFILE, { at: clock.now(), outcome: 'Busy' });
    await worker.settle(sub);
    expect(store.writes).toBe(3);
    expect((await store.get('orders', 'audit'))?.probationUntil).toBe(clock.now() + 10_000);
  });

  it('treats the endpoint as healthy when health can’t be read, and keeps outcomes when it can’t be written', async () => {
    const clock = new VirtualClock();
    const store = new MemoryHealthStore();
    const sub = subscription();
    const worker = tracker(store, clock, 0);
    store.get = async () => {
      throw new Error('table unavailable');
    };
    expect((await worker.current(sub, TOPIC_PROFILE)).consecutiveFailures).toBe(0);
    const put = store.put.bind(store);
    store.put = async () => {
      throw new Error('table unavailable');
    };
    worker.observe(sub, TOPIC_PROFILE, { at: clock.now(), outcome: 'Busy' });
    await worker.settle(sub);
    expect(worker.peek(sub)?.probationUntil).toBe(clock.now() + 10_000);
    store.put = put;
    await worker.settle(sub);
    expect(store.writes).toBe(1);
  });
});

describe('HealthTracker and resets', () => {
  it('an admin’s reset is not undone by outcomes a worker saw before it and had not written', async () => {
    const clock = new VirtualClock();
    const store = new MemoryHealthStore();
    const sub = subscription();
    const worker = tracker(store, clock, 1000);
    await worker.current(sub, TOPIC_PROFILE);
    const t0 = clock.now();
    // Four requests in flight all get 410: the first disables (written at once), the rest wait.
    for (let i = 0; i < 4; i += 1) worker.observe(sub, TOPIC_PROFILE, { at: t0 + i, outcome: 'Disabled' });
    await worker.settle(sub);
    expect((await store.get('orders', 'audit'))?.disabledAt).toBe(t0);

    clock.advance(10);
    await resetHealth(store, 'orders', 'audit', clock.now());
    clock.advance(2000);
    const view = await worker.current(sub, TOPIC_PROFILE);
    expect(gateOf(view, clock.now()).kind).toBe('open');
    clock.advance(2000);
    await worker.settle(sub);
    expect(await store.get('orders', 'audit')).toMatchObject({ consecutiveFailures: 0, resetAt: t0 + 10 });
    expect((await store.get('orders', 'audit'))?.disabledAt).toBeUndefined();
  });

  it('a read that was in flight while this worker wrote a probation does not erase it', async () => {
    const clock = new VirtualClock();
    const store = new MemoryHealthStore();
    const sub = subscription();
    let answerRead: (value: undefined) => void = () => {};
    const slowStore = {
      get: (topic: string, name: string, options?: { consistent?: boolean }) =>
        options?.consistent === true
          ? store.get(topic, name)
          : new Promise<undefined>((resolve) => {
              answerRead = resolve;
            }),
      put: store.put.bind(store),
    };
    const worker = new HealthTracker({
      store: slowStore,
      clock,
      logger: silentLogger,
      cacheMs: 2000,
      flushIntervalMs: 1000,
      ioTimeoutMs: 60_000,
    });
    const reading = worker.current(sub, TOPIC_PROFILE);
    worker.observe(sub, TOPIC_PROFILE, { at: clock.now(), outcome: 'Busy', retryAfterMs: 5000 });
    await worker.settle(sub);
    expect(store.writes).toBe(1);
    answerRead(undefined);
    const view = await reading;
    expect(gateOf(view, clock.now()).kind).toBe('hold');
  });
});

import { KeyedSlots, mapWithConcurrency, Semaphore } from '../../../shared/platform/concurrency';

interface Deferred {
  promise: Promise<void>;
  open(): void;
}

const deferred = (): Deferred => {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};

/** Lets `count` turns of the microtask queue pass. */
const microtasks = async (count: number) => {
  for (let i = 0; i < count; i += 1) await Promise.resolve();
};

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A semaphore with a probe counting the callers inside `run` at once. */
const probed = (limit: number) => {
  const semaphore = new Semaphore(limit);
  const probe = { inside: 0, peak: 0, completed: 0 };
  const run = <R>(work: () => Promise<R>): Promise<R> =>
    semaphore.run(async () => {
      probe.inside += 1;
      probe.peak = Math.max(probe.peak, probe.inside);
      try {
        return await work();
      } finally {
        probe.inside -= 1;
        probe.completed += 1;
      }
    });
  return { run, probe };
};

describe('mapWithConcurrency', () => {
  it('keeps order and the limit', async () => {
    let active = 0;
    let peak = 0;
    const result = await mapWithConcurrency([5, 1, 3, 2, 4], 2, async (n) => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, n));
      active -= 1;
      return n * 10;
    });
    expect(result).toEqual([50, 10, 30, 20, 40]);
    expect(peak).toBe(2);
  });
});

describe('Semaphore', () => {
  it('refuses a limit below 1', () => {
    expect(() => new Semaphore(0)).toThrow(/limit must be >= 1/);
  });

  it('never lets more than the limit in, even callers arriving just as a slot is released', async () => {
    const { run, probe } = probed(2);
    const gates = Array.from({ length: 12 }, deferred);
    const runs: Promise<unknown>[] = [];
    const arrivals: Promise<void>[] = [];
    // Long-running holders, each released by its own gate; most of them start out waiting.
    for (const gate of gates) runs.push(run(() => gate.promise));
    // Newcomers arriving 0 to 5 microtasks after each release, with short work of varied length.
    gates.forEach((gate, i) => {
      for (let offset = 0; offset <= 5; offset += 1) {
        arrivals.push(
          gate.promise
            .then(() => microtasks(offset))
            .then(() => {
              runs.push(run(() => microtasks((i + offset) % 3)));
            }),
        );
      }
    });
    for (const gate of gates) {
      gate.open();
      await nextMacrotask();
    }
    await Promise.all(arrivals);
    await Promise.all(runs);

    expect(probe.peak).toBe(2);
    expect(probe.completed).toBe(gates.length * 7);
    expect(probe.inside).toBe(0);
  });

  it('stays within the limit under timers of varied length', async () => {
    const { run, probe } = probed(2);
    const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    const results = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        await sleep(i % 4);
        return run(async () => {
          await sleep((i * 7) % 5);
          await microtasks(i % 3);
          return i;
        });
      }),
    );
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(probe.peak).toBe(2);
    expect(probe.completed).toBe(40);
  });

  it('lets waiting callers in first come, first served, ahead of later arrivals', async () => {
    const semaphore = new Semaphore(1);
    const order: string[] = [];
    const gate = deferred();
    const holder = semaphore.run(async () => {
      order.push('holder');
      await gate.promise;
    });
    const waiters = ['a', 'b', 'c', 'd'].map((name) =>
      semaphore.run(async () => {
        order.push(name);
      }),
    );
    // Newcomers arriving 0 to 5 microtasks after the holder lets go queue up behind the waiters.
    const late = Array.from({ length: 6 }, (_, offset) =>
      gate.promise
        .then(() => microtasks(offset))
        .then(() =>
          semaphore.run(async () => {
            order.push(`late${offset}`);
          }),
        ),
    );
    gate.open();
    await Promise.all([holder, ...waiters, ...late]);
    expect(order.slice(0, 5)).toEqual(['holder', 'a', 'b', 'c', 'd']);
    expect(order.slice(5).sort()).toEqual(['late0', 'late1', 'late2', 'late3', 'late4', 'late5']);
  });

  it('releases the slot of a task that throws', async () => {
    const { run, probe } = probed(1);
    const gate = deferred();
    const failing = run(async () => {
      await gate.promise;
      throw new Error('boom');
    });
    const waiting = run(async () => 'next');
    gate.open();
    await expect(failing).rejects.toThrow('boom');
    await expect(waiting).resolves.toBe('next');
    await expect(
      run(() => {
        throw new Error('sync boom');
      }),
    ).rejects.toThrow('sync boom');
    await expect(run(async () => 'after')).resolves.toBe('after');
    expect(probe.inside).toBe(0);
    expect(probe.peak).toBe(1);
  });
});

describe('KeyedSlots', () => {
  it('queues callers of a moving key first come, first served, and keys do not share slots', async () => {
    let now = 0;
    const slots = new KeyedSlots(() => now);
    const a1 = await slots.acquire('a', 1, 1000);
    const b1 = await slots.acquire('b', 1, 1000);
    expect(a1).toBeDefined();
    expect(b1).toBeDefined();
    const order: string[] = [];
    const a2 = slots.acquire('a', 1, 1000).then((release) => {
      order.push('a2');
      return release;
    });
    const a3 = slots.acquire('a', 1, 1000).then((release) => {
      order.push('a3');
      return release;
    });
    now = 500;
    a1?.();
    (await a2)?.();
    (await a3)?.();
    expect(order).toEqual(['a2', 'a3']);
    expect(slots.inUse('a')).toBe(0);
    b1?.();
  });

  it('refuses new callers of a stalled key at once, and its waiters when any slot is released', async () => {
    let now = 0;
    const slots = new KeyedSlots(() => now);
    const hung = await slots.acquire('slow', 1, 1000);
    const waiter = slots.acquire('slow', 1, 1000);
    now = 1000;
    expect(await slots.acquire('slow', 1, 1000)).toBeUndefined();
    const other = await slots.acquire('fast', 1, 1000);
    other?.();
    expect(await waiter).toBeUndefined();
    expect(slots.inUse('slow')).toBe(1);
    hung?.();
    expect(slots.inUse('slow')).toBe(0);
    expect(await slots.acquire('slow', 1, 1000)).toBeDefined();
  });
});

describe('KeyedSlots without any other activity', () => {
  it('refuses a stalled key’s waiters once it has made no progress for stallMs, and lets a moving key’s wait', async () => {
    const slots = new KeyedSlots(Date.now);
    const hung = await slots.acquire('slow', 1, 50);
    const started = Date.now();
    expect(await slots.acquire('slow', 1, 50)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);

    const moving = await slots.acquire('busy', 1, 50);
    const waiter = slots.acquire('busy', 1, 50);
    await new Promise((resolve) => setTimeout(resolve, 30));
    moving?.();
    const granted = await waiter;
    expect(granted).toBeDefined();
    granted?.();
    hung?.();
  });
});

describe('KeyedSlots limits', () => {
  it('hands slots to waiters at once when a caller raises the limit', async () => {
    const slots = new KeyedSlots(Date.now);
    const probe = await slots.acquire('endpoint', 1, 60_000);
    const waiting = slots.acquire('endpoint', 1, 60_000);
    const raised = await slots.acquire('endpoint', 4, 60_000);
    const granted = await waiting;
    expect(raised).toBeDefined();
    expect(granted).toBeDefined();
    expect(slots.inUse('endpoint')).toBe(3);
    for (const release of [probe, raised, granted]) release?.();
    expect(slots.inUse('endpoint')).toBe(0);
  });
});

import { FairSlots, mapWithConcurrency, Semaphore } from '../../../shared/platform/concurrency';

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

/** Slots on a clock the test moves. */
const fair = (capacity: number, stallMs = 1000, maxLingering?: number) => {
  const clock = { now: 0 };
  const slots = new FairSlots({
    capacity,
    stallMs,
    now: () => clock.now,
    ...(maxLingering === undefined ? {} : { maxLingering }),
  });
  return { slots, clock };
};

describe('FairSlots per key', () => {
  it('queues callers of a moving key first come, first served, and keys do not share slots', async () => {
    const { slots, clock } = fair(10);
    const a1 = await slots.acquire('a', 1);
    const b1 = await slots.acquire('b', 1);
    expect(a1).toBeDefined();
    expect(b1).toBeDefined();
    const order: string[] = [];
    const a2 = slots.acquire('a', 1).then((release) => {
      order.push('a2');
      return release;
    });
    const a3 = slots.acquire('a', 1).then((release) => {
      order.push('a3');
      return release;
    });
    clock.now = 500;
    a1?.();
    (await a2)?.();
    (await a3)?.();
    expect(order).toEqual(['a2', 'a3']);
    expect(slots.inUse('a')).toBe(0);
    b1?.();
  });

  it('refuses new callers of a stalled key at once, and its waiters when any slot is released', async () => {
    const { slots, clock } = fair(10);
    const hung = await slots.acquire('slow', 1);
    const waiter = slots.acquire('slow', 1);
    clock.now = 1000;
    expect(await slots.acquire('slow', 1)).toBeUndefined();
    const other = await slots.acquire('fast', 1);
    other?.();
    expect(await waiter).toBeUndefined();
    expect(slots.inUse('slow')).toBe(1);
    hung?.();
    expect(slots.inUse('slow')).toBe(0);
    expect(await slots.acquire('slow', 1)).toBeDefined();
  });

  it('hands slots to waiters at once when a caller raises the limit', async () => {
    const { slots } = fair(10, 60_000);
    const probe = await slots.acquire('endpoint', 1);
    const waiting = slots.acquire('endpoint', 1);
    // Raised to 12: the window (2 before any answer) lets the waiter in at once.
    const raised = slots.acquire('endpoint', 12);
    const granted = await waiting;
    expect(granted).toBeDefined();
    expect(slots.inUse('endpoint')).toBe(2);
    // An answer grows the window: the caller that raised the limit gets in.
    probe?.();
    const third = await raised;
    expect(third).toBeDefined();
    expect(slots.inUse('endpoint')).toBe(2);
    for (const release of [granted, third]) release?.();
    expect(slots.inUse('endpoint')).toBe(0);
  });
});

describe('FairSlots without any other activity', () => {
  it('refuses a stalled key’s waiters once it has made no progress for stallMs, and lets a moving key’s wait', async () => {
    const slots = new FairSlots({ capacity: 10, stallMs: 50, now: Date.now });
    const hung = await slots.acquire('slow', 1);
    const started = Date.now();
    expect(await slots.acquire('slow', 1)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);

    const moving = await slots.acquire('busy', 1);
    const waiter = slots.acquire('busy', 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    moving?.();
    const granted = await waiter;
    expect(granted).toBeDefined();
    granted?.();
    hung?.();
  });

  it('stops counting a slot held for stallMs against the capacity, by its own timer', async () => {
    const slots = new FairSlots({ capacity: 1, stallMs: 30, now: Date.now });
    const hung = await slots.acquire('hang', 4);
    // Nothing else happens: the waiter gets the slot once the hanging one lingers.
    const granted = await slots.acquire('ok', 4);
    expect(granted).toBeDefined();
    expect(slots.usage()).toEqual({ counting: 1, lingering: 1 });
    granted?.();
    hung?.();
    expect(slots.usage()).toEqual({ counting: 0, lingering: 0 });
  });
});

describe('FairSlots across keys', () => {
  it('never counts waiting for a worker slot as the waiting key’s stall', async () => {
    // One worker slot, and nothing lingers: the healthy key waits for the busy one.
    const { slots, clock } = fair(1, 1000, 0);
    const busy = await slots.acquire('busy', 1);
    const waiting = slots.acquire('healthy', 1);
    clock.now = 5000;
    // Its waiters' watches have looked again meanwhile; it holds nothing, so it is not stalled.
    await new Promise((resolve) => setTimeout(resolve, 20));
    busy?.();
    const granted = await waiting;
    expect(granted).toBeDefined();
    expect(slots.inUse('healthy')).toBe(1);
    granted?.();
  });

  it('gives free worker slots to the waiting keys in turn, however many callers each has', async () => {
    const { slots } = fair(1);
    const first = await slots.acquire('noisy', 8);
    const granted: Array<{ label: string; release: (() => void) | undefined }> = [];
    const wait = (label: string, key: string) =>
      void slots.acquire(key, 8).then((release) => granted.push({ label, release }));
    for (const label of ['n1', 'n2', 'n3', 'n4']) wait(label, 'noisy');
    for (const label of ['q1', 'q2']) wait(label, 'quiet');
    first?.();
    for (let i = 0; i < 6; i += 1) {
      await nextMacrotask();
      // One at a time holds the only slot, until it gives it back.
      expect(granted).toHaveLength(i + 1);
      granted[i]?.release?.();
    }
    expect(granted.map((grant) => grant.label)).toEqual(['n1', 'q1', 'n2', 'q2', 'n3', 'n4']);
  });

  it('leaves the capacity to answering keys beside any number of hanging ones', async () => {
    const { slots, clock } = fair(4, 1000, 64);
    const now = () => Promise.race([Promise.resolve('waiting' as const)]);
    const hanging: Array<() => void> = [];
    // 50 endpoints that never answer, a new one every 250 ms: each gets a slot at once, and
    // after a second unanswered it no longer counts against the 4 of the worker.
    for (let i = 0; i < 50; i += 1) {
      clock.now += 250;
      const release = await Promise.race([slots.acquire(`hang${i}`, 2), now()]);
      expect(release).not.toBe('waiting');
      if (release !== 'waiting' && release !== undefined) hanging.push(release);
    }
    expect(slots.usage().lingering).toBeGreaterThanOrEqual(46);
    // Once the newest of them has been unanswered for a second, a healthy key gets a slot at once, every time.
    clock.now += 1000;
    for (let i = 0; i < 10; i += 1) {
      const release = await Promise.race([slots.acquire('healthy', 2), now()]);
      expect(release).not.toBe('waiting');
      if (release !== 'waiting') release?.();
      clock.now += 10;
    }
    for (const release of hanging) release();
    expect(slots.usage()).toEqual({ counting: 0, lingering: 0 });
  });

  it('starts a key at a window of 2, growing by one with each answer', async () => {
    const { slots, clock } = fair(100);
    const taken = await Promise.all(
      Array.from({ length: 8 }, () =>
        Promise.race([slots.acquire('new', 16), Promise.resolve('waiting' as const)]),
      ),
    );
    // Two at once; the other six wait for answers, not for a stall.
    expect(taken.filter((release) => release !== 'waiting')).toHaveLength(2);
    expect(slots.inUse('new')).toBe(2);
    clock.now = 100;
    const first = taken[0];
    if (first !== 'waiting') first?.();
    // One answer: the window is 3, so two of the waiters get in.
    await nextMacrotask();
    expect(slots.inUse('new')).toBe(3);
    clock.now = 2000;
    // Holding its whole window with nothing given back for a second: stalled.
    expect(await slots.acquire('new', 16)).toBeUndefined();
  });

  it('halves a key’s window when its endpoint pushes back, and lets it grow again with answers', async () => {
    const { slots } = fair(100);
    // 30 answers: the window is 32 (2 + 30).
    for (let i = 0; i < 30; i += 1) ((await slots.acquire('slow', 64)) as () => void)();
    expect(slots.windowOf('slow')).toBe(32);

    slots.pushBack('slow');
    expect(slots.windowOf('slow')).toBe(16);
    slots.pushBack('slow');
    slots.pushBack('slow');
    slots.pushBack('slow');
    slots.pushBack('slow');
    // Never below the window a new key starts with.
    expect(slots.windowOf('slow')).toBe(2);

    ((await slots.acquire('slow', 64)) as () => void)();
    expect(slots.windowOf('slow')).toBe(3);
    // Other keys and unknown keys are not touched.
    slots.pushBack('never-seen');
    expect(slots.windowOf('never-seen')).toBe(2);
  });

  it('holds new callers of a pushed-back key until it is under its smaller window', async () => {
    const { slots } = fair(100);
    for (let i = 0; i < 6; i += 1) ((await slots.acquire('busy', 64)) as () => void)();
    const held = await Promise.all(Array.from({ length: 8 }, () => slots.acquire('busy', 64)));
    expect(slots.inUse('busy')).toBe(8);
    slots.pushBack('busy');
    expect(slots.windowOf('busy')).toBe(4);
    const next = slots.acquire('busy', 64);
    const state = await Promise.race([next, nextMacrotask().then(() => 'waiting' as const)]);
    expect(state).toBe('waiting');
    // Five answers: 3 in flight, under the window (which grew to 9 meanwhile): the waiter gets in.
    for (const release of held.slice(0, 5)) release?.();
    await expect(next).resolves.toEqual(expect.any(Function));
  });

  it('keeps an idle key’s window for a minute after its last answer', async () => {
    const { slots, clock } = fair(100);
    const grantedAtOnce = async (count: number) => {
      const taken = await Promise.all(
        Array.from({ length: count }, () =>
          Promise.race([slots.acquire('slow', 16), Promise.resolve('waiting' as const)]),
        ),
      );
      const granted = taken.filter((release) => release !== 'waiting');
      for (const release of granted) release?.();
      return granted.length;
    };
    for (let i = 0; i < 6; i += 1) (await slots.acquire('slow', 16))?.();
    // Six answers: a window of 8, kept while idle (8 more answers now: 14).
    clock.now = 59_000;
    expect(await grantedAtOnce(8)).toBe(8);
    // A minute after its last answer, idle: forgotten at the next look, back to 2.
    clock.now = 120_000;
    (await slots.acquire('other', 1))?.();
    expect(await grantedAtOnce(4)).toBe(2);
  });

  it('never holds more than the window for a key that has not answered, so 8 hanging keys leave room', async () => {
    const { slots } = fair(32);
    const refused: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      for (let n = 0; n < 8; n += 1) {
        void slots.acquire(`hang${i}`, 8).then((release) => {
          if (release === undefined) refused.push(i);
        });
      }
    }
    await nextMacrotask();
    // Each holds its first window of 2: 16 of the 32 worker slots are left for the others at once.
    expect(slots.usage().counting).toBe(16);
    const healthy = await Promise.race([slots.acquire('healthy', 8), Promise.resolve('waiting' as const)]);
    expect(healthy).not.toBe('waiting');
  });

  it('keeps lingering slots within maxLingering', async () => {
    const { slots, clock } = fair(2, 1000, 2);
    const held = [await slots.acquire('a', 4), await slots.acquire('b', 4)];
    clock.now = 1000;
    held.push(await slots.acquire('c', 4), await slots.acquire('d', 4));
    expect(slots.usage()).toEqual({ counting: 2, lingering: 2 });
    clock.now = 2000;
    const waiting = Promise.race([slots.acquire('e', 4), Promise.resolve('waiting' as const)]);
    expect(await waiting).toBe('waiting');
    held[0]?.();
    for (const release of held.slice(1)) release?.();
  });
});

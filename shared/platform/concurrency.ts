/**
 * `work`'s result, or `'timed out'` after `ms` of real time (the work itself goes on). The timer
 * never keeps the process alive.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | 'timed out'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` over `items` with at most `limit` in flight, preserving result order.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!(limit >= 1)) throw new RangeError(`limit must be >= 1 (got ${limit})`);
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * A counting semaphore: at most `limit` callers inside `run` at once, across every caller.
 * Waiters get in first come, first served: a finishing caller hands its slot straight to the
 * longest waiter (`active` stays the same), so a caller arriving in between can't slip in.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`limit must be >= 1 (got ${limit})`);
  }

  /** Waits for a slot; the function it resolves with gives it back (once). */
  async acquire(): Promise<() => void> {
    if (this.active < this.limit) this.active += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next === undefined) this.active -= 1;
      else next();
    };
  }

  async run<R>(work: () => Promise<R>): Promise<R> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}

type Release = () => void;

interface Waiter {
  settle(release: Release | undefined): void;
  timer?: ReturnType<typeof setTimeout>;
}

interface SlotKey {
  limit: number;
  stallMs: number;
  held: number;
  /** When a slot of this key was last taken or given back. */
  lastProgressAt: number;
  waiting: Waiter[];
}

/**
 * Slots per key (a subscription's endpoint): at most `limit` holders per key, first come, first
 * served. A key whose slots are all taken and none has been given back (or made `progress`) for `stallMs` is stalled
 * (a hanging endpoint): new callers are refused at once rather than queued behind it, and callers
 * already waiting are refused as soon as it has made no progress for `stallMs` (checked by a
 * timer, and whenever any slot is given back). A key that keeps moving is never stalled, so a
 * busy but healthy key just queues.
 */
export class KeyedSlots {
  private readonly keys = new Map<string, SlotKey>();

  constructor(private readonly now: () => number) {}

  /** Resolves with a release function, or `undefined` when the key is stalled. */
  acquire(key: string, limit: number, stallMs: number): Promise<Release | undefined> {
    if (!(limit >= 1)) throw new RangeError(`limit must be >= 1 (got ${limit})`);
    let slots = this.keys.get(key);
    if (slots === undefined) {
      slots = { limit, stallMs, held: 0, lastProgressAt: this.now(), waiting: [] };
      this.keys.set(key, slots);
    }
    slots.stallMs = stallMs;
    if (limit !== slots.limit) {
      slots.limit = limit;
      // A raised limit frees slots for those already waiting.
      this.handOut(key, slots);
    }
    if (slots.held < slots.limit && slots.waiting.length === 0) {
      return Promise.resolve(this.grant(key, slots));
    }
    if (this.stalled(slots)) return Promise.resolve(undefined);
    const queued = slots;
    return new Promise((resolve) => {
      const waiter: Waiter = { settle: resolve };
      queued.waiting.push(waiter);
      this.watch(key, queued, waiter);
    });
  }

  /**
   * Notes progress on `key` (a holder got on with its work, e.g. its request started after waiting
   * for something else): time spent waiting elsewhere does not make the key look stalled.
   */
  progress(key: string): void {
    const slots = this.keys.get(key);
    if (slots !== undefined) slots.lastProgressAt = this.now();
  }

  /** Slots held for `key` now. */
  inUse(key: string): number {
    return this.keys.get(key)?.held ?? 0;
  }

  private grant(key: string, slots: SlotKey): Release {
    slots.held += 1;
    slots.lastProgressAt = this.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      slots.held -= 1;
      slots.lastProgressAt = this.now();
      this.afterRelease(key, slots);
    };
  }

  private stalled(slots: SlotKey): boolean {
    return slots.held >= slots.limit && this.now() - slots.lastProgressAt >= slots.stallMs;
  }

  /** Refuses `waiter` once its key has made no progress for `stallMs`. */
  private watch(key: string, slots: SlotKey, waiter: Waiter): void {
    const delay = Math.max(1, slots.lastProgressAt + slots.stallMs - this.now());
    waiter.timer = setTimeout(() => {
      if (!slots.waiting.includes(waiter)) return;
      if (slots.held < slots.limit) {
        this.handOut(key, slots);
        return;
      }
      if (!this.stalled(slots)) {
        this.watch(key, slots, waiter);
        return;
      }
      slots.waiting.splice(slots.waiting.indexOf(waiter), 1);
      waiter.settle(undefined);
    }, delay);
    // A waiter's watch never keeps the process alive on its own.
    waiter.timer.unref?.();
  }

  /** Free slots go to this key's waiters, oldest first. */
  private handOut(key: string, slots: SlotKey): void {
    while (slots.held < slots.limit && slots.waiting.length > 0) {
      const next = slots.waiting.shift() as Waiter;
      clearTimeout(next.timer);
      next.settle(this.grant(key, slots));
    }
  }

  private afterRelease(key: string, slots: SlotKey): void {
    this.handOut(key, slots);
    // Any release is also a moment to look at the other keys: waiters of a stalled key give up.
    for (const other of this.keys.values()) {
      if (other.waiting.length > 0 && this.stalled(other)) {
        for (const waiter of other.waiting.splice(0)) {
          clearTimeout(waiter.timer);
          waiter.settle(undefined);
        }
      }
    }
    if (slots.held === 0 && slots.waiting.length === 0) this.keys.delete(key);
  }
}

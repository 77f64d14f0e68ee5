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

  async run<R>(work: () => Promise<R>): Promise<R> {
    if (this.active < this.limit) this.active += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.active -= 1;
      else next();
    }
  }
}

type Release = () => void;

interface SlotKey {
  limit: number;
  stallMs: number;
  /** Start times of the slots held, by token. */
  held: Map<number, number>;
  waiting: Array<(release: Release | undefined) => void>;
}

/**
 * Slots per key (a subscription's endpoint): at most `limit` holders per key, first come, first
 * served. A key whose oldest holder has been in for `stallMs` or more is stalled: new callers are
 * refused at once rather than queued behind it, and callers already waiting are refused the next
 * time any slot of any key is released. A key that keeps moving is never stalled, so a busy but
 * healthy key just queues; a hanging one can't collect a queue of callers that hold up theirs.
 */
export class KeyedSlots {
  private readonly keys = new Map<string, SlotKey>();
  private nextToken = 0;

  constructor(private readonly now: () => number) {}

  /** Resolves with a release function, or `undefined` when the key is stalled. */
  acquire(key: string, limit: number, stallMs: number): Promise<Release | undefined> {
    if (!(limit >= 1)) throw new RangeError(`limit must be >= 1 (got ${limit})`);
    let slots = this.keys.get(key);
    if (slots === undefined) {
      slots = { limit, stallMs, held: new Map(), waiting: [] };
      this.keys.set(key, slots);
    }
    slots.limit = limit;
    slots.stallMs = stallMs;
    if (slots.held.size < slots.limit && slots.waiting.length === 0) {
      return Promise.resolve(this.grant(key, slots));
    }
    if (this.stalled(slots)) return Promise.resolve(undefined);
    const queue = slots.waiting;
    return new Promise((resolve) => queue.push(resolve));
  }

  /** Slots held for `key` now. */
  inUse(key: string): number {
    return this.keys.get(key)?.held.size ?? 0;
  }

  private grant(key: string, slots: SlotKey): Release {
    const token = this.nextToken++;
    slots.held.set(token, this.now());
    let released = false;
    return () => {
      if (released) return;
      released = true;
      slots.held.delete(token);
      this.afterRelease(key, slots);
    };
  }

  private stalled(slots: SlotKey): boolean {
    const now = this.now();
    for (const startedAt of slots.held.values()) if (now - startedAt >= slots.stallMs) return true;
    return false;
  }

  private afterRelease(key: string, slots: SlotKey): void {
    // Freed slots go to this key's waiters, oldest first.
    while (slots.held.size < slots.limit && slots.waiting.length > 0) {
      const next = slots.waiting.shift() as (release: Release | undefined) => void;
      next(this.grant(key, slots));
    }
    // Any release is a moment to look at the other keys: waiters of a stalled key give up.
    for (const other of this.keys.values()) {
      if (other.waiting.length > 0 && this.stalled(other)) {
        for (const waiter of other.waiting.splice(0)) waiter(undefined);
      }
    }
    if (slots.held.size === 0 && slots.waiting.length === 0) this.keys.delete(key);
  }
}

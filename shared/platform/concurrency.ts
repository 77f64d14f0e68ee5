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

interface KeyState {
  name: string;
  limit: number;
  /** Requests of this key answered (slots given back): its window grows with them. */
  answered: number;
  /** Slots granted to this key and not given back yet (lingering ones included), oldest first. */
  grants: Set<Grant>;
  /** When a slot of this key was last given back. */
  lastReleaseAt: number;
  waiting: Waiter[];
  /** In the round-robin ring of keys waiting for a worker slot. */
  queued: boolean;
}

interface Grant {
  grantedAt: number;
  /** Counts against the worker's capacity (false once it lingers). */
  active: boolean;
}

/** How long an idle key keeps its window. */
const KEEP_IDLE_MS = 60_000;

/**
 * Slots a key may hold: its limit, within a window that starts at 2 and grows by one with every
 * answer (so it doubles with each round trip), so an endpoint that has never answered holds 2.
 */
const allowance = (state: KeyState) => Math.min(state.limit, INITIAL_WINDOW + state.answered);

/** The window of a key that has had no answer yet. */
const INITIAL_WINDOW = 2;

export interface FairSlotsOptions {
  /** Slots of the worker: requests that may be starting or answering at once. */
  capacity: number;
  /**
   * A key with all the slots it may hold, none of them given back for this long, is stalled; a
   * slot held this long stops counting against `capacity` (it lingers).
   */
  stallMs: number;
  /** Lingering slots at most (beyond that, an old slot goes on counting); default 8 x capacity. */
  maxLingering?: number;
  now: () => number;
}

/**
 * Request slots of one worker, shared fairly by keys (a subscription's endpoint):
 *
 * - **Per key**, at most `limit` slots (given on each `acquire`), and at first only a window of a
 *   window of 2 that grows by one with each answer (a slow start: it doubles every round trip),
 *   so an endpoint
 *   that never answers holds few. A key that holds all the slots it may and has had none given
 *   back for `stallMs` (nor taken one for that long) is **stalled** (a hanging endpoint): its new
 *   callers are refused at once, and those waiting are refused as soon as it stalls. Waiting for
 *   a worker slot is never a key's stall: only slots a key holds, and so requests it has sent,
 *   count.
 * - **Across keys**, at most `capacity` slots count at once, and when they are all taken the next
 *   free one goes round robin to the keys waiting, one slot per key in turn, so a key with many
 *   waiters can't crowd out a key with few.
 * - **Lingering**: a slot held for `stallMs` (a request its endpoint has not answered within a
 *   second) stops counting against `capacity`, while still counting for its key. Any number of
 *   hanging endpoints then hold only their own slots, never the worker's: the capacity stays with
 *   the endpoints that answer. Up to `maxLingering` slots linger at once (sockets are not free).
 *
 * Time is `now`; timers (unref'd) only look again when something may have changed.
 */
export class FairSlots {
  private readonly keys = new Map<string, KeyState>();
  /** Keys that have had waiters since they were last looked at (cleared lazily). */
  private readonly withWaiters = new Set<KeyState>();
  /** When idle keys were last looked for (at most once per {@link KEEP_IDLE_MS}). */
  private lastSweepAt = Number.NEGATIVE_INFINITY;
  /** Keys with waiters that have room under their own limit, in turn order. */
  private readonly ring: KeyState[] = [];
  /** Granted slots that count against capacity, oldest first. */
  private readonly counting = new Set<Grant>();
  private lingering = 0;
  private readonly maxLingering: number;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: FairSlotsOptions) {
    if (!(options.capacity >= 1)) throw new RangeError(`capacity must be >= 1 (got ${options.capacity})`);
    this.maxLingering = options.maxLingering ?? options.capacity * 8;
  }

  /** Resolves with a release function, or `undefined` when the key is stalled. */
  acquire(key: string, limit: number): Promise<Release | undefined> {
    if (!(limit >= 1)) throw new RangeError(`limit must be >= 1 (got ${limit})`);
    this.linger();
    let state = this.keys.get(key);
    if (state === undefined) {
      state = {
        name: key,
        limit,
        answered: 0,
        grants: new Set(),
        lastReleaseAt: Number.NEGATIVE_INFINITY,
        waiting: [],
        queued: false,
      };
      this.keys.set(key, state);
    }
    if (limit !== state.limit) {
      const raised = limit > state.limit;
      state.limit = limit;
      // A raised limit lets those already waiting take worker slots.
      if (raised) {
        this.enqueue(state);
        this.dispatch();
      }
    }
    if (
      state.waiting.length === 0 &&
      state.grants.size < allowance(state) &&
      this.counting.size < this.options.capacity
    ) {
      return Promise.resolve(this.grant(state));
    }
    if (this.stalled(state)) return Promise.resolve(undefined);
    const queued = state;
    return new Promise((resolve) => {
      const waiter: Waiter = { settle: resolve };
      queued.waiting.push(waiter);
      this.withWaiters.add(queued);
      this.enqueue(queued);
      this.watch(queued, waiter);
    });
  }

  /**
   * The key's endpoint pushed back (it answered "busy" or did not answer in time): its window
   * halves (never below the starting 2), and grows again by one with each answer. Slots already
   * held are not taken back; new ones wait until the key is under its smaller window.
   */
  pushBack(key: string): void {
    const state = this.keys.get(key);
    if (state === undefined) return;
    state.answered = Math.max(0, Math.floor(allowance(state) / 2) - INITIAL_WINDOW);
  }

  /** The slots a key may hold now (its window within its limit); 2 for a key never seen. */
  windowOf(key: string): number {
    const state = this.keys.get(key);
    return state === undefined ? INITIAL_WINDOW : allowance(state);
  }

  /** Slots held for `key` now (lingering ones included). */
  inUse(key: string): number {
    return this.keys.get(key)?.grants.size ?? 0;
  }

  /** Slots counting against capacity now, and slots lingering. */
  usage(): { counting: number; lingering: number } {
    return { counting: this.counting.size, lingering: this.lingering };
  }

  private grant(state: KeyState): Release {
    const grant: Grant = { grantedAt: this.options.now(), active: true };
    state.grants.add(grant);
    this.counting.add(grant);
    this.scheduleLinger();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (grant.active) this.counting.delete(grant);
      else this.lingering -= 1;
      state.grants.delete(grant);
      state.answered += 1;
      state.lastReleaseAt = this.options.now();
      this.afterRelease(state);
    };
  }

  /** Since when the key has held slots without any given back. */
  private stuckSince(state: KeyState): number {
    const oldest = state.grants.values().next();
    return Math.max(state.lastReleaseAt, oldest.done ? Number.POSITIVE_INFINITY : oldest.value.grantedAt);
  }

  private stalled(state: KeyState): boolean {
    return (
      state.grants.size >= allowance(state) &&
      this.options.now() - this.stuckSince(state) >= this.options.stallMs
    );
  }

  /** Puts a key with waiters and room under its allowance in the ring (once). */
  private enqueue(state: KeyState): void {
    if (state.queued || state.waiting.length === 0 || state.grants.size >= allowance(state)) return;
    state.queued = true;
    this.ring.push(state);
  }

  /** Free worker slots go to the waiting keys in turn, one each. */
  private dispatch(): void {
    while (this.counting.size < this.options.capacity && this.ring.length > 0) {
      const state = this.ring.shift() as KeyState;
      state.queued = false;
      if (state.waiting.length === 0 || state.grants.size >= allowance(state)) continue;
      const waiter = state.waiting.shift() as Waiter;
      clearTimeout(waiter.timer);
      waiter.settle(this.grant(state));
      this.enqueue(state);
    }
  }

  /** Refuses `waiter` once its key has made no progress for `stallMs`. */
  private watch(state: KeyState, waiter: Waiter): void {
    // Only a key holding all its slots can stall; one waiting for a worker slot looks again later.
    const delay =
      state.grants.size >= allowance(state)
        ? Math.max(1, this.stuckSince(state) + this.options.stallMs - this.options.now())
        : this.options.stallMs;
    waiter.timer = setTimeout(() => {
      if (!state.waiting.includes(waiter)) return;
      this.linger();
      if (!state.waiting.includes(waiter)) return;
      if (!this.stalled(state)) {
        this.watch(state, waiter);
        return;
      }
      state.waiting.splice(state.waiting.indexOf(waiter), 1);
      waiter.settle(undefined);
      this.forget(state);
    }, delay);
    // A waiter's watch never keeps the process alive on its own.
    waiter.timer.unref?.();
  }

  /** Slots held for `stallMs` stop counting against capacity (up to `maxLingering`). */
  private linger(): void {
    const now = this.options.now();
    let freed = false;
    for (const grant of this.counting) {
      if (now - grant.grantedAt < this.options.stallMs || this.lingering >= this.maxLingering) break;
      this.counting.delete(grant);
      grant.active = false;
      this.lingering += 1;
      freed = true;
    }
    if (freed) this.dispatch();
    this.scheduleLinger();
  }

  /** Looks again when the oldest counting slot will have been held for `stallMs`. */
  private scheduleLinger(): void {
    if (this.lingerTimer !== undefined || this.lingering >= this.maxLingering) return;
    const oldest = this.counting.values().next();
    if (oldest.done) return;
    const delay = Math.max(1, oldest.value.grantedAt + this.options.stallMs - this.options.now());
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      this.linger();
    }, delay);
    this.lingerTimer.unref?.();
  }

  private afterRelease(state: KeyState): void {
    this.enqueue(state);
    this.dispatch();
    // Any release is also a moment to look at the keys with waiters: those of a stalled key give up.
    for (const other of this.withWaiters) {
      if (other.waiting.length > 0 && this.stalled(other)) {
        for (const waiter of other.waiting.splice(0)) {
          clearTimeout(waiter.timer);
          waiter.settle(undefined);
        }
      }
      if (other.waiting.length === 0) this.withWaiters.delete(other);
    }
    // Idle keys are forgotten a minute after their last answer, looked for once a minute.
    const now = this.options.now();
    if (now - this.lastSweepAt >= KEEP_IDLE_MS) {
      this.lastSweepAt = now;
      for (const other of this.keys.values()) this.forget(other);
    }
    if (this.counting.size === 0) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
    }
  }

  /**
   * A key with nothing held and nobody waiting is forgotten once its last answer is a minute old:
   * until then it keeps its window, so an endpoint that answers slowly starts its next burst
   * where the last one left off.
   */
  private forget(state: KeyState): void {
    if (
      state.grants.size === 0 &&
      state.waiting.length === 0 &&
      this.options.now() - state.lastReleaseAt >= KEEP_IDLE_MS &&
      this.keys.get(state.name) === state
    ) {
      this.keys.delete(state.name);
    }
  }
}

/**
 * Time and randomness, injected everywhere a rule or a handler needs them, so tests can run a
 * day of retries in virtual time and pin every jitter draw.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

/** A uniform draw in [0, 1). */
export type Random = () => number;

export const systemRandom: Random = Math.random;

/**
 * A clock that moves only when told to, or when something sleeps on it: simulations and tests
 * run a day of retries in milliseconds with it.
 */
export class VirtualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now = (): number => this.current;

  sleep = async (ms: number): Promise<void> => {
    this.current += Math.max(0, ms);
  };

  advance(ms: number): void {
    this.current += Math.max(0, ms);
  }

  /** Moves to `time` if it is later than now. */
  advanceTo(time: number): void {
    this.current = Math.max(this.current, time);
  }
}

/** A seeded uniform random source in [0, 1) (mulberry32): the same seed gives the same draws. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

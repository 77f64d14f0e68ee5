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

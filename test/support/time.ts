/** Durations in milliseconds, as the tests of schedules, holds and waits write them. */
export const S = 1000;
export const M = 60 * S;
export const H = 60 * M;

import { failsAttempt, MAX_FAILED_ATTEMPTS } from '../../bench/failure-pattern';

describe('benchmark failure pattern', () => {
  const ids = Array.from({ length: 10_000 }, (_, i) => `failures-${i}`);

  it('fails about the configured share of first attempts, the same ones every time', () => {
    const failing = ids.filter((id) => failsAttempt(id, 0, 0.3));
    expect(failing.length / ids.length).toBeGreaterThan(0.28);
    expect(failing.length / ids.length).toBeLessThan(0.32);
    expect(ids.filter((id) => failsAttempt(id, 0, 0.3))).toEqual(failing);
  });

  it('draws each attempt afresh, and never fails from the cap on', () => {
    const bothFirstTwo = ids.filter((id) => failsAttempt(id, 0, 0.3) && failsAttempt(id, 1, 0.3));
    expect(bothFirstTwo.length / ids.length).toBeGreaterThan(0.07);
    expect(bothFirstTwo.length / ids.length).toBeLessThan(0.11);
    expect(ids.some((id) => failsAttempt(id, MAX_FAILED_ATTEMPTS, 1))).toBe(false);
    expect(ids.every((id) => failsAttempt(id, MAX_FAILED_ATTEMPTS - 1, 1))).toBe(true);
    expect(ids.some((id) => failsAttempt(id, 0, 0))).toBe(false);
  });
});

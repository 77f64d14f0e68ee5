import { peakPerSecond, percentile } from '../../bench/load';

describe('load helpers', () => {
  it('finds the busiest wall-clock second', () => {
    expect(peakPerSecond([])).toBe(0);
    expect(peakPerSecond([1000, 1999, 2000, 5500, 5600, 5700])).toBe(3);
    expect(peakPerSecond([999, 1000])).toBe(1);
  });

  it('takes percentiles by rank', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 99)).toBe(5);
  });
});

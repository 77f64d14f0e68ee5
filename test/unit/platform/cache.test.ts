import { TtlCache } from '../../../shared/platform/cache';

describe('TtlCache', () => {
  it('serves from memory until the TTL passes, shares concurrent loads and forgets failures', async () => {
    let now = 0;
    let loads = 0;
    const cache = new TtlCache<number>(100, () => now);
    const load = async () => {
      loads += 1;
      return loads;
    };
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([1, 1]);
    now = 99;
    expect(await cache.get('k', load)).toBe(1);
    now = 100;
    expect(await cache.get('k', load)).toBe(2);
    await expect(cache.get('bad', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.get('bad', load)).toBe(3);
  });

  it('with staleOnError, answers every caller sharing a failed load with the last value, and a fresh caller with the error', async () => {
    let now = 0;
    let failing = false;
    const stale: string[] = [];
    const cache = new TtlCache<number>(100, () => now, {
      staleOnError: true,
      onStale: (key) => stale.push(key),
    });
    const load = async () => {
      if (failing) throw new Error('down');
      return 7;
    };
    expect(await cache.get('k', load)).toBe(7);
    failing = true;
    now = 100;
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([7, 7]);
    expect(stale).toEqual(['k']);
    await expect(cache.get('k', load, { fresh: true })).rejects.toThrow('down');
    expect(await cache.get('k', load)).toBe(7);
    await expect(cache.get('other', load)).rejects.toThrow('down');
  });
});

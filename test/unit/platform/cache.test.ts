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
});

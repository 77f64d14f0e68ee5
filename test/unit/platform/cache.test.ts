import { LoadedOnce, TtlCache } from '../../../shared/platform/cache';

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

describe('values loaded once', () => {
  it('share one load between concurrent asks, and keep its value', async () => {
    const cache = new LoadedOnce<string>();
    let loads = 0;
    const load = async () => {
      loads += 1;
      return `value ${loads}`;
    };
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual(['value 1', 'value 1']);
    expect(await cache.get('a', load)).toBe('value 1');
    expect(await cache.get('b', load)).toBe('value 2');
    expect(loads).toBe(2);
  });

  it('forget a failed load, so the next ask loads again', async () => {
    const cache = new LoadedOnce<string>();
    await expect(cache.get('a', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('a', async () => 'up')).toBe('up');
  });

  it('drop what they keep past their bound', async () => {
    const cache = new LoadedOnce<string>(2);
    await cache.get('a', async () => 'a1');
    await cache.get('b', async () => 'b1');
    await cache.get('c', async () => 'c1');
    expect(await cache.get('a', async () => 'a2')).toBe('a2');
    expect(await cache.get('c', async () => 'c2')).toBe('c1');
  });
});

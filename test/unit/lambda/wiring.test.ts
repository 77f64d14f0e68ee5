import type { Subscription } from '../../../shared/domain/model';
import { cachedSubscriptions } from '../../../shared/lambda/wiring';
import { TtlCache } from '../../../shared/platform/cache';
import type { SubscriptionStore } from '../../../shared/storage/subscriptions';
import { subscription, VirtualClock } from '../../support/fakes';

describe('caches in front of the store', () => {
  it('hands out values it is told not to keep without keeping them', async () => {
    let loads = 0;
    const cache = new TtlCache<number | undefined>(1000, () => 0, { keep: (value) => value !== undefined });
    const load = async () => {
      loads += 1;
      return loads < 3 ? undefined : loads;
    };
    expect(await cache.get('k', load)).toBeUndefined();
    expect(await cache.get('k', load)).toBeUndefined();
    expect(await cache.get('k', load)).toBe(3);
    expect(await cache.get('k', load)).toBe(3);
    expect(loads).toBe(3);
  });

  /** A store whose eventually consistent reads may lag behind its strongly consistent ones. */
  const lagging = () => {
    const state: {
      current: Subscription | undefined;
      lagged: Subscription | undefined;
      reads: Array<'eventual' | 'consistent'>;
    } = { current: undefined, lagged: undefined, reads: [] };
    const store: Pick<SubscriptionStore, 'get'> = {
      get: async (_topic: string, _name: string, options: { consistent?: boolean } = {}) => {
        state.reads.push(options.consistent === true ? 'consistent' : 'eventual');
        return options.consistent === true ? state.current : state.lagged;
      },
    };
    return { state, source: cachedSubscriptions(store, 10_000, new VirtualClock()) };
  };

  it('sees a subscription re-created right after it was found missing', async () => {
    const { state, source } = lagging();
    expect(await source.get('orders', 'hook')).toBeUndefined();
    state.current = subscription({ name: 'hook' });
    state.lagged = state.current;
    expect(await source.get('orders', 'hook')).toEqual(state.current);
    expect(await source.get('ORDERS', 'HOOK')).toEqual(state.current);
    // The miss was confirmed once (eventual + consistent); the hit was read once and then cached.
    expect(state.reads).toEqual(['eventual', 'consistent', 'eventual']);
  });

  it('confirms a miss with a strongly consistent read before reporting the subscription gone', async () => {
    const { state, source } = lagging();
    state.current = subscription({ name: 'hook' });
    state.lagged = undefined; // the eventually consistent read has not seen the write yet

    expect(await source.get('orders', 'hook')).toEqual(state.current);
    expect(state.reads).toEqual(['eventual', 'consistent']);
  });

  it('re-reads a cached subscription older than the version a job was made for', async () => {
    const { state, source } = lagging();
    const v1 = subscription({ name: 'hook', version: 1 });
    state.current = v1;
    state.lagged = v1;
    expect(await source.get('orders', 'hook', 1)).toEqual(v1);

    const v2 = subscription({
      name: 'hook',
      version: 2,
      destination: { endpointType: 'WebHook', endpointUrl: 'https://new.example.test/' },
    });
    state.current = v2;
    // A job made for version 1 may use the cached definition; one made for version 2 may not.
    expect(await source.get('orders', 'hook', 1)).toEqual(v1);
    expect(await source.get('orders', 'hook', 2)).toEqual(v2);
    // And from then on the newer definition is the cached one.
    expect(await source.get('orders', 'hook')).toEqual(v2);
    expect(state.reads).toEqual(['eventual', 'consistent']);
  });
});

describe('an expired subscription (expirationTimeUtc)', () => {
  it('is read as none from its expiration time on, cached or not, so its queued events are dropped', async () => {
    const clock = new VirtualClock();
    const expiring = subscription({
      name: 'hook',
      expirationTime: new Date(clock.now() + 5000).toISOString(),
    });
    let reads = 0;
    const store: Pick<SubscriptionStore, 'get'> = {
      get: async () => {
        reads += 1;
        return expiring;
      },
    };
    const source = cachedSubscriptions(store, 60_000, clock);
    expect(await source.get('orders', 'hook')).toEqual(expiring);
    clock.advance(4999);
    expect(await source.get('orders', 'hook')).toEqual(expiring);
    clock.advance(1);
    expect(await source.get('orders', 'hook')).toBeUndefined();
    // Still within the cache's life: the time decided, not a fresh read.
    expect(reads).toBe(1);
  });
});

describe('subscriptions while the table is down', () => {
  const flaky = () => {
    const state: { current: Subscription | undefined; down: boolean; reads: number } = {
      current: subscription({ name: 'hook', version: 1 }),
      down: false,
      reads: 0,
    };
    const store: Pick<SubscriptionStore, 'get'> = {
      get: async () => {
        state.reads += 1;
        if (state.down)
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
        return state.current;
      },
    };
    const clock = new VirtualClock();
    const stale: string[] = [];
    return { state, clock, stale, source: cachedSubscriptions(store, 2000, clock, (key) => stale.push(key)) };
  };

  it('delivers with the last subscription read for as long as reads fail, trying again once a TTL', async () => {
    const { state, clock, stale, source } = flaky();
    const v1 = state.current;
    expect(await source.get('orders', 'hook', 1)).toEqual(v1);
    state.down = true;
    for (let second = 0; second < 60; second += 1) {
      clock.advance(1000);
      expect(await source.get('orders', 'hook', 1)).toEqual(v1);
    }
    // One read when the cached value expired, then one per TTL (2 s) of the 60 s outage.
    expect(state.reads).toBe(31);
    expect(stale).toHaveLength(30);
    state.down = false;
    state.current = subscription({ name: 'hook', version: 2 });
    clock.advance(2000);
    expect((await source.get('orders', 'hook'))?.version).toBe(2);
  });

  it('fails a job made for a newer version than the one it could read, and keeps the stale one for others', async () => {
    const { state, clock, source } = flaky();
    await source.get('orders', 'hook');
    state.down = true;
    clock.advance(5000);
    await expect(source.get('orders', 'hook', 2)).rejects.toThrow('ECONNREFUSED');
    expect((await source.get('orders', 'hook', 1))?.version).toBe(1);
  });

  it('fails when there is nothing read before, and forgets a subscription confirmed deleted', async () => {
    const { state, clock, source } = flaky();
    state.down = true;
    await expect(source.get('orders', 'hook')).rejects.toThrow('ECONNREFUSED');
    state.down = false;
    await source.get('orders', 'hook');
    state.current = undefined;
    clock.advance(5000);
    expect(await source.get('orders', 'hook')).toBeUndefined();
    state.down = true;
    await expect(source.get('orders', 'hook')).rejects.toThrow('ECONNREFUSED');
  });
});

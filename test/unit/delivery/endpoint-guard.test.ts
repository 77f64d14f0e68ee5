import type { LookupAddress } from 'node:dns';
import {
  blockedHost,
  checkEndpointUrl,
  EndpointBlockedError,
  guardedLookup,
  type Resolver,
} from '../../../shared/delivery/endpoint-guard';

/** A resolver answering from a table (no network): a missing name fails as DNS does. */
const fakeResolver = (table: Record<string, string[]>): Resolver & { asked: string[] } => {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    asked.push(host);
    const addresses = table[host];
    if (addresses === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
};

const resolver = fakeResolver({
  'hooks.example': ['93.184.216.34', '2606:2800:220:1::1'],
  'internal.example': ['10.0.0.5'],
  'mixed.example': ['93.184.216.34', '127.0.0.1'],
  'mapped.example': ['::ffff:169.254.169.254'],
  'empty.example': [],
});

describe('checkEndpointUrl', () => {
  it.each(['https://hooks.example/events', 'https://8.8.8.8/hook', 'https://[2606:4700::1]:8443/hook'])(
    'allows %s',
    async (url) => {
      await expect(checkEndpointUrl(url, { resolve: resolver })).resolves.toEqual({ allowed: true });
    },
  );

  it.each([
    ['http://127.0.0.1:1/', 'the host is 127.0.0.1, a loopback address'],
    ['http://2130706433/', 'the host is 127.0.0.1, a loopback address'],
    ['http://[::ffff:127.0.0.1]/', 'the host is ::ffff:7f00:1 (IPv4-mapped 127.0.0.1), a loopback address'],
    ['http://localhost:8080/', 'localhost is a loopback name'],
    ['http://169.254.169.254/latest/meta-data', 'the host is 169.254.169.254, the cloud metadata address'],
    ['https://internal.example/', 'internal.example resolves to 10.0.0.5, a private address'],
    ['https://mixed.example/', 'mixed.example resolves to 127.0.0.1, a loopback address'],
    [
      'https://mapped.example/',
      'mapped.example resolves to ::ffff:a9fe:a9fe (IPv4-mapped 169.254.169.254), the cloud metadata address',
    ],
    [
      'https://nowhere.example/',
      "nowhere.example can't be resolved (ENOTFOUND), so it can't be checked for private addresses",
    ],
    ['https://empty.example/', "empty.example resolves to no address, so it can't be checked"],
  ])('refuses %s: %s', async (url, reason) => {
    await expect(checkEndpointUrl(url, { resolve: resolver })).resolves.toEqual({ allowed: false, reason });
  });

  it('does not resolve IP literals or loopback names', async () => {
    const resolve = fakeResolver({});
    await checkEndpointUrl('http://10.0.0.1/', { resolve });
    await checkEndpointUrl('http://a.localhost/', { resolve });
    await checkEndpointUrl('https://8.8.8.8/', { resolve });
    expect(resolve.asked).toEqual([]);
  });

  it('resolves a name without its trailing dot', async () => {
    const resolve = fakeResolver({ 'hooks.example': ['93.184.216.34'] });
    await expect(checkEndpointUrl('https://hooks.example./x', { resolve })).resolves.toEqual({
      allowed: true,
    });
    expect(resolve.asked).toEqual(['hooks.example']);
  });
});

describe('blockedHost (IP literals at connect time)', () => {
  it.each(['127.0.0.1', '10.0.0.5', '::1', '[::1]', '::ffff:7f00:1', 'localhost', '0x7f.1'])(
    'refuses %s',
    (host) => {
      const blocked = blockedHost(host);
      expect(blocked).toBeInstanceOf(EndpointBlockedError);
      expect(blocked?.code).toBe('EndpointBlocked');
      expect(blocked?.message).toMatch(/; private endpoints are not allowed$/);
    },
  );

  it.each(['8.8.8.8', '2606:4700::1', 'hooks.example'])(
    'lets %s through (names are checked by the lookup)',
    (host) => {
      expect(blockedHost(host)).toBeUndefined();
    },
  );
});

/** Calls a lookup the way `net.connect` does and collects the callback's arguments. */
const lookupWith = (
  lookup: ReturnType<typeof guardedLookup>,
  host: string,
  options: { all?: boolean; family?: number } = {},
) =>
  new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => {
    // biome-ignore lint/suspicious/noExplicitAny: the lookup's overloads are called as net calls them.
    (lookup as any)(host, options, (error: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
      resolve({ error, address, ...(family === undefined ? {} : { family }) }),
    );
  });

describe('guardedLookup', () => {
  const guarded = guardedLookup({ blockPrivate: true, resolve: resolver });

  it('answers the first address of a public name', async () => {
    expect(await lookupWith(guarded, 'hooks.example')).toEqual({
      error: null,
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('answers every address with all: true, and only the family asked for', async () => {
    expect((await lookupWith(guarded, 'hooks.example', { all: true })).address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    expect(await lookupWith(guarded, 'hooks.example', { family: 6 })).toEqual({
      error: null,
      address: '2606:2800:220:1::1',
      family: 6,
    });
  });

  it('refuses a name when any address it resolves to is non-public', async () => {
    const { error } = await lookupWith(guarded, 'mixed.example', { all: true });
    expect(error).toBeInstanceOf(EndpointBlockedError);
    expect(error?.message).toBe(
      'mixed.example resolves to 127.0.0.1, a loopback address; private endpoints are not allowed',
    );
  });

  it('refuses loopback names without resolving them', async () => {
    const resolve = fakeResolver({ localhost: ['93.184.216.34'] });
    const { error } = await lookupWith(guardedLookup({ blockPrivate: true, resolve }), 'localhost');
    expect(error).toBeInstanceOf(EndpointBlockedError);
    expect(resolve.asked).toEqual([]);
  });

  it('passes resolution errors on', async () => {
    expect((await lookupWith(guarded, 'nowhere.example')).error?.code).toBe('ENOTFOUND');
  });

  it('only resolves when blocking is off', async () => {
    const open = guardedLookup({ blockPrivate: false, resolve: resolver });
    expect(await lookupWith(open, 'internal.example')).toEqual({
      error: null,
      address: '10.0.0.5',
      family: 4,
    });
  });
});

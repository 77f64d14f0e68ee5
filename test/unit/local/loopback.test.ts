import { createServer, type Server } from 'node:net';
import { isLoopbackHost, nonLoopbackAddresses, reachableBeyondLoopback } from '../../../local/loopback';
import { LocalStackError, refuseBeyondLoopback } from '../../../local/stack';

const servers: Server[] = [];

async function listening(host: string): Promise<number> {
  const server = createServer((socket) => socket.destroy());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as { port: number }).port;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('loopback hosts', () => {
  it.each([['127.0.0.1'], ['127.4.5.6'], ['::1'], ['[::1]'], ['localhost'], ['::ffff:127.0.0.1']])(
    '%s is loopback',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );

  it.each([['0.0.0.0'], ['::'], ['192.0.2.7'], ['fe80::1'], ['example.test'], ['']])('%s is not', (host) =>
    expect(isLoopbackHost(host)).toBe(false),
  );

  it("lists this machine's other addresses, link-local ones with their interface", () => {
    expect(
      nonLoopbackAddresses({
        lo: [
          { address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '', mac: '', cidr: null },
          { address: '::1', family: 'IPv6', internal: true, netmask: '', mac: '', cidr: null, scopeid: 0 },
        ],
        eth0: [
          { address: '192.0.2.2', family: 'IPv4', internal: false, netmask: '', mac: '', cidr: null },
          {
            address: 'fe80::1',
            family: 'IPv6',
            internal: false,
            netmask: '',
            mac: '',
            cidr: null,
            scopeid: 2,
          },
        ],
      }),
    ).toEqual(['192.0.2.2', 'fe80::1%eth0']);
  });
});

// Connection attempts to this machine's own addresses only: they prove what listens where.
describe('the refusal to start with an emulator reachable beyond loopback', () => {
  const addresses = nonLoopbackAddresses();
  const withAddresses = addresses.length > 0 ? it : it.skip;
  if (addresses.length === 0) console.warn('skipped: this machine has no address outside loopback');

  withAddresses('refuses a port something listens on at every address (0.0.0.0)', async () => {
    const port = await listening('0.0.0.0');
    const loopbackOnly = await listening('127.0.0.1');
    const ipv4 = addresses.filter((address) => !address.includes(':'));
    const error = await refuseBeyondLoopback('127.0.0.1', [loopbackOnly, port], addresses).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LocalStackError);
    expect((error as Error).message).toMatch(
      /^The emulators answer on .*, not only on 127\.0\.0\.1: .*Not starting\./,
    );
    for (const address of ipv4) expect((error as Error).message).toContain(`${address}:${port}`);
    expect((error as Error).message).not.toContain(`:${loopbackOnly}`);
  });

  withAddresses('accepts ports that listen on loopback only', async () => {
    const ports = [await listening('127.0.0.1'), await listening('127.0.0.1')];
    expect(await reachableBeyondLoopback(ports, addresses)).toEqual([]);
    await expect(refuseBeyondLoopback('127.0.0.1', ports, addresses)).resolves.toBeUndefined();
  });

  it('checks nothing when the stack was told to listen beyond loopback', async () => {
    const port = await listening('0.0.0.0');
    await expect(refuseBeyondLoopback('0.0.0.0', [port], addresses)).resolves.toBeUndefined();
  });
});

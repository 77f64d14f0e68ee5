import { type AddressInfo, createServer, Server } from 'node:net';
import { listeningOn } from '../../../local/listening-on';

const servers: Server[] = [];

function listen(...args: unknown[]): Promise<AddressInfo> {
  const server = createServer();
  servers.push(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => resolve(server.address() as AddressInfo));
    (server.listen as (...a: unknown[]) => Server)(...args);
  });
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('servers started inside listeningOn', () => {
  it.each([
    ['{ port, host: 0.0.0.0 } (as Fastify asks)', [{ port: 0, host: '0.0.0.0' }]],
    ['{ port, host: :: }', [{ port: 0, host: '::' }]],
    ['{ port } without a host', [{ port: 0 }]],
    ['(port, 0.0.0.0)', [0, '0.0.0.0']],
    ['(port) alone', [0]],
  ])('listen on the given host when asked for every interface: %s', async (_, args) => {
    const address = await listeningOn('127.0.0.1', () => listen(...args));
    expect(address.address).toBe('127.0.0.1');
  });

  it('keep a specific host they were given', async () => {
    expect((await listeningOn('127.0.0.1', () => listen({ port: 0, host: '127.0.0.2' }))).address).toBe(
      '127.0.0.2',
    );
  });

  it('are the only ones: listen is restored afterwards, also after a failure', async () => {
    const original = Server.prototype.listen;
    await listeningOn('127.0.0.1', async () => undefined);
    expect(Server.prototype.listen).toBe(original);
    await expect(
      listeningOn('127.0.0.1', async () => {
        throw new Error('fauxqs failed');
      }),
    ).rejects.toThrow('fauxqs failed');
    expect(Server.prototype.listen).toBe(original);
  });
});

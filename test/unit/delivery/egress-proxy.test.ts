/**
 * The sender through an egress proxy, against a CONNECT proxy and a webhook on 127.0.0.1: every
 * connection is a tunnel to the endpoint's host and port, with the proxy URL's credentials as
 * `Proxy-Authorization`; the private-endpoint guard judges the endpoint itself before the proxy is
 * asked (a name resolving to loopback never reaches it); a tunnel the proxy refuses fails the
 * attempt as a socket error naming the proxy's answer. Names are resolved by a fake resolver.
 */
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { proxyAuthorization } from '../../../shared/delivery/egress-proxy';
import type { Resolver } from '../../../shared/delivery/endpoint-guard';
import { UndiciWebhookSender } from '../../../shared/delivery/webhook-sender';
import { systemClock } from '../../../shared/platform/clock';

let webhook: Server;
let webhookPort: number;
let proxy: Server;
let proxyPort: number;
const connects: { target: string; authorization: string | undefined }[] = [];
/** The proxy's answer to the next CONNECT: 200 opens the tunnel. */
let proxyAnswer = 200;

beforeAll(async () => {
  webhook = createServer((_request, response) => response.writeHead(200).end());
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  webhookPort = (webhook.address() as AddressInfo).port;
  proxy = createServer((_request, response) => response.writeHead(405).end());
  proxy.on('connect', (request: IncomingMessage, socket: Socket) => {
    connects.push({ target: request.url ?? '', authorization: request.headers['proxy-authorization'] });
    if (proxyAnswer !== 200) {
      socket.end(`HTTP/1.1 ${proxyAnswer} Forbidden\r\n\r\n`);
      return;
    }
    const [host, port] = (request.url ?? '').split(':');
    const upstream = connect(Number(port), host === 'hooks.example' ? '127.0.0.1' : host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  proxy.closeAllConnections();
  webhook.closeAllConnections();
  await Promise.all([
    new Promise((resolve) => proxy.close(resolve)),
    new Promise((resolve) => webhook.close(resolve)),
  ]);
});

beforeEach(() => {
  connects.length = 0;
  proxyAnswer = 200;
});

/** `hooks.example` is public; `rebind.example` resolves to loopback. */
const resolver: Resolver = async (host): Promise<LookupAddress[]> => {
  if (host === 'hooks.example') return [{ address: '93.184.215.14', family: 4 }];
  if (host === 'rebind.example') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

async function sendThrough(url: string, options: { blockPrivate: boolean; proxyUrl?: string }) {
  const sender = new UndiciWebhookSender({
    clock: systemClock,
    blockPrivateEndpoints: options.blockPrivate,
    resolve: resolver,
    proxyUrl: options.proxyUrl ?? `http://127.0.0.1:${proxyPort}`,
  });
  try {
    return await sender.send({ url, headers: {}, body: '[]' });
  } finally {
    await sender.close();
  }
}

it('tunnels to the endpoint by name, with the credentials of the proxy URL', async () => {
  const result = await sendThrough(`http://hooks.example:${webhookPort}/hook`, {
    blockPrivate: true,
    proxyUrl: `http://gridwire:p%40ss@127.0.0.1:${proxyPort}`,
  });
  expect(result).toMatchObject({ delivered: true, httpStatus: 200 });
  expect(connects).toEqual([
    {
      target: `hooks.example:${webhookPort}`,
      authorization: `Basic ${Buffer.from('gridwire:p@ss').toString('base64')}`,
    },
  ]);
});

it.each([
  ['a name resolving to loopback', 'http://rebind.example/hook', /rebind\.example resolves to 127\.0\.0\.1/],
  ['a loopback address', 'http://127.0.0.1:9/hook', /127\.0\.0\.1, a loopback address/],
])('refuses %s before the proxy is asked', async (_, url, reason) => {
  const result = await sendThrough(url, { blockPrivate: true });
  expect(result).toMatchObject({ delivered: false, outcome: 'Forbidden', errorCode: 'EndpointBlocked' });
  expect(result.error).toMatch(reason);
  expect(connects).toHaveLength(0);
});

it('fails the attempt as a socket error when the proxy refuses the tunnel', async () => {
  proxyAnswer = 403;
  const result = await sendThrough(`http://127.0.0.1:${webhookPort}/hook`, { blockPrivate: false });
  expect(result).toMatchObject({ delivered: false, outcome: 'SocketError', errorCode: 'EgressProxyRefused' });
  expect(result.error).toMatch(/the egress proxy 127\.0\.0\.1:\d+ refused a tunnel to 127\.0\.0\.1:\d+: 403/);
});

it('fails the attempt as a socket error when the proxy cannot be reached', async () => {
  const result = await sendThrough(`http://127.0.0.1:${webhookPort}/hook`, {
    blockPrivate: false,
    proxyUrl: 'http://127.0.0.1:9',
  });
  expect(result).toMatchObject({ delivered: false, outcome: 'SocketError', errorCode: 'ECONNREFUSED' });
  expect(result.error).toMatch(/the egress proxy 127\.0\.0\.1:9 could not be reached/);
});

it('sends no Proxy-Authorization for a proxy URL without credentials', () => {
  expect(proxyAuthorization(new URL('http://proxy.corp:3128'))).toBeUndefined();
});

/**
 * The sender's connect-time check against a real server on 127.0.0.1: a name that resolves to a
 * non-public address (DNS rebinding after the subscription was saved) is refused before any
 * connection is made. Names are resolved by a fake resolver, so nothing leaves the machine.
 */
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Resolver } from '../../../shared/delivery/endpoint-guard';
import { DELIVERY_TIMEOUT_MS, UndiciWebhookSender } from '../../../shared/delivery/webhook-sender';
import { systemClock } from '../../../shared/platform/clock';

let server: Server;
let port: number;
let connections = 0;
let requests = 0;

beforeAll(async () => {
  server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200).end();
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  connections = 0;
  requests = 0;
});

/** `rebind.example` resolves to loopback. */
const rebinding: Resolver = async (host): Promise<LookupAddress[]> => {
  if (host === 'rebind.example') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'no-answer.example') {
    throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: 'EAI_AGAIN' });
  }
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

const webhook = (url: string) => ({ url, headers: { 'content-type': 'application/json' }, body: '[]' });

async function sendWith(blockPrivateEndpoints: boolean, url: string) {
  const sender = new UndiciWebhookSender({ clock: systemClock, blockPrivateEndpoints, resolve: rebinding });
  try {
    return await sender.send(webhook(url));
  } finally {
    await sender.close();
  }
}

describe('connect-time check (blockPrivateEndpoints)', () => {
  it('refuses a name resolving to loopback: Forbidden, and nothing reaches the server', async () => {
    const result = await sendWith(true, `http://rebind.example:${port}/hook`);
    expect(result).toMatchObject({
      delivered: false,
      outcome: 'Forbidden',
      error:
        'EndpointBlocked: rebind.example resolves to 127.0.0.1, a loopback address; private endpoints are not allowed',
    });
    expect(result).not.toHaveProperty('httpStatus');
    expect(connections).toBe(0);
    expect(requests).toBe(0);
  });

  it.each([
    `http://127.0.0.1:PORT/hook`,
    `http://[::ffff:127.0.0.1]:PORT/hook`,
    `http://2130706433:PORT/hook`,
    `http://localhost:PORT/hook`,
  ])('refuses the literal host of %s without connecting', async (template) => {
    const result = await sendWith(true, template.replace('PORT', String(port)));
    expect(result).toMatchObject({ delivered: false, outcome: 'Forbidden' });
    expect(result.delivered ? '' : result.error).toMatch(/^EndpointBlocked: /);
    expect(connections).toBe(0);
    expect(requests).toBe(0);
  });

  it('delivers to the same name when the check is off (the fake resolver still answers)', async () => {
    const result = await sendWith(false, `http://rebind.example:${port}/hook`);
    expect(result).toMatchObject({ delivered: true, httpStatus: 200 });
    expect(requests).toBe(1);
  });

  it('a resolution failure stays a ResolutionError, with the code the retry rules decide by', async () => {
    const result = await sendWith(true, `http://nowhere.example:${port}/hook`);
    expect(result).toMatchObject({ delivered: false, outcome: 'ResolutionError', errorCode: 'ENOTFOUND' });
    expect(requests).toBe(0);
  });

  it.each([true, false])(
    'tells a name that does not exist from a name server that did not answer (check on: %s)',
    async (blockPrivate) => {
      expect(await sendWith(blockPrivate, `http://nowhere.example:${port}/hook`)).toMatchObject({
        outcome: 'ResolutionError',
        errorCode: 'ENOTFOUND',
      });
      expect(await sendWith(blockPrivate, `http://no-answer.example:${port}/hook`)).toMatchObject({
        outcome: 'ResolutionError',
        errorCode: 'EAI_AGAIN',
      });
    },
  );
});

// 003 (classic page), "Retry schedule": "Event Grid waits 30 seconds for a response after
// delivering a message." The limit's effect is checked with a short one in
// test/integration/failure-classes.test.ts ("counts a webhook that does not answer in time").
it('waits 30 seconds for an answer by default', () => {
  expect(DELIVERY_TIMEOUT_MS).toBe(30_000);
});

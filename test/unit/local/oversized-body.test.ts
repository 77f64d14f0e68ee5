/**
 * A body over a front door's limit, sent on a kept-alive connection: the 413 is answered, and the
 * connection is then closed (or, were the rest drained, the next request on it answered); it
 * must never hang. Raw sockets, so what is checked is the connection itself, not a client's
 * handling of it.
 */
import { connect, type Socket } from 'node:net';
import type { Context } from 'aws-lambda';
import { MAX_FUNCTION_URL_BODY_BYTES, startFunctionUrl } from '../../../local/function-url';
import {
  type HttpHandler,
  type Listener,
  MAX_GATEWAY_BODY_BYTES,
  startGateway,
} from '../../../local/gateway';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import type { LoggerLike } from '../../../shared/observability/logging';

const logger: LoggerLike = { debug() {}, info() {}, warn() {}, error() {} } as unknown as LoggerLike;
const TOKEN = 'oversized-body-test-token';
/** How long the connection may take to close or answer again before the test fails. */
const DEADLINE_MS = 10_000;

const handler: HttpHandler = async (_event: HttpEvent, _context: Context) => ({
  statusCode: 200,
  body: 'ok',
});

const listeners: Listener[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(listeners.splice(0).map((listener) => listener.stop()));
});

/** What the client saw on its connection: the bytes answered, and whether it closed. */
interface Seen {
  text: string;
  closed: boolean;
}

/** Resolves once `done(seen)` holds; rejects (failing the test) if it does not within the deadline. */
function waitFor(socket: Socket, seen: Seen, done: (seen: Seen) => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!done(seen)) return;
      clearTimeout(timer);
      socket.off('data', check);
      socket.off('close', check);
      resolve();
    };
    const timer = setTimeout(() => {
      socket.off('data', check);
      socket.off('close', check);
      reject(new Error(`${what} within ${DEADLINE_MS} ms; the connection saw: ${JSON.stringify(seen)}`));
    }, DEADLINE_MS);
    socket.on('data', check);
    socket.on('close', check);
    check();
  });
}

const answers = (text: string) => text.match(/HTTP\/1\.1 \d{3}/g) ?? [];

/**
 * Sends `bytes` of body to `path` with keep-alive, waits for the 413, sends a second request on
 * the same connection, and waits until the connection closed or the second request was answered.
 */
async function oversizedThenAnother(port: number, path: string, bytes: number): Promise<Seen> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const seen: Seen = { text: '', closed: false };
  socket.on('data', (chunk: Buffer) => {
    seen.text += chunk.toString('latin1');
  });
  socket.on('close', () => {
    seen.closed = true;
  });
  // Writing into a connection the server closes fails (EPIPE, ECONNRESET): expected here.
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nConnection: keep-alive\r\nContent-Length: ${bytes}\r\n\r\n`,
  );
  socket.write(Buffer.alloc(bytes, 'a'));
  await waitFor(
    socket,
    seen,
    (s) => answers(s.text).length > 0 || s.closed,
    'no answer to the oversized body',
  );
  expect(answers(seen.text)[0]).toBe('HTTP/1.1 413');
  if (!seen.closed) socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  await waitFor(
    socket,
    seen,
    (s) => s.closed || answers(s.text).length > 1,
    'the connection neither closed nor answered the next request',
  );
  return seen;
}

describe('a body over the limit on a kept-alive connection', () => {
  it('the HTTP API answers 413, says Connection: close, and closes the connection', async () => {
    const gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      adminToken: TOKEN,
      handlers: { publish: handler, management: handler },
      logger,
    });
    listeners.push(gateway);
    const seen = await oversizedThenAnother(
      gateway.port,
      '/topics/orders/api/events',
      MAX_GATEWAY_BODY_BYTES + 1024 * 1024,
    );
    expect(seen.text).toMatch(/^connection: close\r$/im);
    expect(seen.text).toContain('Request Entity Too Large');
    expect(seen.closed).toBe(true);
  });

  it('the function URL answers 413, says Connection: close, and closes the connection', async () => {
    const functionUrl = await startFunctionUrl({ host: '127.0.0.1', port: 0, handler, logger });
    listeners.push(functionUrl);
    const seen = await oversizedThenAnother(
      functionUrl.port,
      '/topics/orders/api/events',
      MAX_FUNCTION_URL_BODY_BYTES + 1024 * 1024,
    );
    expect(seen.text).toMatch(/^connection: close\r$/im);
    expect(seen.text).toContain(`Request must be smaller than ${MAX_FUNCTION_URL_BODY_BYTES} bytes.`);
    expect(seen.closed).toBe(true);
  });

  it('a body within the limit keeps the connection: the next request on it is answered', async () => {
    const functionUrl = await startFunctionUrl({ host: '127.0.0.1', port: 0, handler, logger });
    listeners.push(functionUrl);
    const socket = connect(functionUrl.port, '127.0.0.1');
    sockets.push(socket);
    const seen: Seen = { text: '', closed: false };
    socket.on('data', (chunk: Buffer) => {
      seen.text += chunk.toString('latin1');
    });
    socket.on('close', () => {
      seen.closed = true;
    });
    const request = 'POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}';
    socket.write(request + request);
    await waitFor(socket, seen, (s) => answers(s.text).length === 2 || s.closed, 'two answers');
    expect(answers(seen.text)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(seen.closed).toBe(false);
  });
});

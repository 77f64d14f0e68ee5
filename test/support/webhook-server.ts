/**
 * A real HTTP webhook on 127.0.0.1 for integration tests: answers are scripted per path, and
 * every request is kept with the time it arrived.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

/**
 * An https webhook: its certificate and key, and with `clientCa` it asks every client for a
 * certificate that CA signed and refuses the connection without one.
 */
export interface WebhookTls {
  cert: string;
  key: string;
  clientCa?: string;
}

export interface ReceivedRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the whole request was in. */
  at: number;
  /** When its headers came (the request reached the server). */
  arrivedAt: number;
  /** When the connection it came on was opened (a sender's requests after a point in time are told apart by it). */
  connectedAt: number;
  /** An https webhook's: the common name of the client certificate the request came with, if any. */
  clientCertificate?: string;
}

export type Responder = (request: ReceivedRequest) => {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
};

export class WebhookServer {
  readonly received: ReceivedRequest[] = [];
  private readonly responders = new Map<string, Responder>();
  /** Answers still waiting for their delay: cleared on stop, so a hanging answer can't keep the process alive. */
  private readonly delayed = new Set<NodeJS.Timeout>();
  private server: Server | undefined;
  private base = '';
  /** When each open connection was accepted. */
  private readonly connected = new WeakMap<object, number>();
  /** TLS connections refused (an https webhook's handshake failed: no client certificate, a wrong one). */
  readonly tlsFailures: string[] = [];

  constructor(private readonly tls?: WebhookTls) {}

  async start(): Promise<this> {
    const handle = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      const arrivedAt = Date.now();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const peer =
          this.tls === undefined ? undefined : (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
        const request: ReceivedRequest = {
          path: req.url ?? '/',
          method: req.method ?? 'GET',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
          arrivedAt,
          connectedAt: this.connected.get(req.socket) ?? arrivedAt,
          ...(typeof peer === 'string' ? { clientCertificate: peer } : {}),
        };
        this.received.push(request);
        const responder: Responder = this.responders.get(request.path) ?? (() => ({ status: 200 }));
        const answer = responder(request);
        const reply = () => {
          if (res.destroyed) return;
          res.writeHead(answer.status, answer.headers ?? {});
          res.end(answer.body);
        };
        if (answer.delayMs === undefined) reply();
        else {
          const timer = setTimeout(() => {
            this.delayed.delete(timer);
            reply();
          }, answer.delayMs);
          this.delayed.add(timer);
        }
      });
    };
    const { tls } = this;
    this.server =
      tls === undefined
        ? createServer(handle)
        : createHttpsServer(
            {
              cert: tls.cert,
              key: tls.key,
              ...(tls.clientCa === undefined
                ? {}
                : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true }),
            },
            handle,
          ).on('tlsClientError', (error) => this.tlsFailures.push(error.message));
    this.server.on(tls === undefined ? 'connection' : 'secureConnection', (socket) =>
      this.connected.set(socket, Date.now()),
    );
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.base = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A URL on this server whose requests get `responder`'s answers. */
  url(path: string, responder: Responder = () => ({ status: 200 })): string {
    this.responders.set(path, responder);
    return `${this.base}${path}`;
  }

  requestsTo(path: string): ReceivedRequest[] {
    return this.received.filter((request) => request.path === path);
  }

  /**
   * The first request to `path` whose body contains `marker` (an event id is matched as
   * `"id":"<id>"` with {@link eventMarker}), waiting up to 10 s for it.
   */
  requestWith(path: string, marker: string): Promise<ReceivedRequest> {
    return eventually(
      () => this.requestsTo(path).find((request) => request.body.includes(marker)),
      10_000,
      `${marker} at ${path}`,
    );
  }

  async stop(): Promise<void> {
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** How an event's id appears in a delivered body, for {@link WebhookServer.requestWith}. */
/**
 * A webhook's answer to the CloudEvents handshake: a 200 to every request, and to the OPTIONS
 * request `WebHook-Allowed-Origin` with what `allow` makes of the origin asked for (none when
 * undefined).
 */
export const allowingOrigin =
  (allow: (origin: string) => string | undefined) =>
  (request: ReceivedRequest): ReturnType<Responder> => {
    if (request.method !== 'OPTIONS') return { status: 200 };
    const allowed = allow(String(request.headers['webhook-request-origin']));
    return { status: 200, headers: allowed === undefined ? {} : { 'WebHook-Allowed-Origin': allowed } };
  };

export const eventMarker = (id: string): string => `"id":"${id}"`;

/** The requests to `path` carrying event `id`, once there are at least `count` of them (waiting up to 15 s). */
export const requestsCarrying = (webhook: WebhookServer, path: string, id: string, count: number) =>
  eventually(
    () => {
      const found = webhook.requestsTo(path).filter((request) => request.body.includes(eventMarker(id)));
      return found.length >= count && found;
    },
    15_000,
    `${count} request(s) with ${id} at ${path}`,
  );

/** Waits until a request to `path` carried the event `id`; fails naming it after `timeoutMs`. */
export const deliveredTo = (webhook: WebhookServer, path: string, id: string, timeoutMs = 10_000) =>
  eventually(
    () => webhook.requestsTo(path).some((request) => request.body.includes(eventMarker(id))),
    timeoutMs,
    `event ${id} at the webhook`,
  );

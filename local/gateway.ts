/**
 * The local stand-in for API Gateway (HTTP API): matches the routes of `shared/config/routes.ts`,
 * enforces the admin bearer token where AWS would enforce IAM, and invokes the same handlers
 * with API Gateway payload format 2.0 events.
 */

import { isUtf8 } from 'node:buffer';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { FUNCTIONS, type FunctionKey } from '../shared/config/resources';
import { ROUTES } from '../shared/config/routes';
import { type HttpEvent, type HttpResult, jsonResult } from '../shared/http/api-gateway';
import { compileRoute, matchRoute, type RouteMatch } from '../shared/http/routes';
import type { LoggerLike } from '../shared/observability/logging';
import type { Admission } from './admission';
import { type InvocationStats, lambdaContext } from './lambda-context';

export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

/** API Gateway HTTP APIs accept bodies up to 10 MB. */
export const MAX_GATEWAY_BODY_BYTES = 10 * 1024 * 1024;

export interface GatewayOptions {
  host: string;
  port: number;
  adminToken: string;
  handlers: Readonly<Partial<Record<FunctionKey, HttpHandler>>>;
  logger: LoggerLike;
  onInvocation?: (stats: InvocationStats) => void;
  /**
   * Routes of the local stack itself (not of the AWS API), by `METHOD /path`, each behind the
   * admin token or an operator session: `GET /local/status`, `POST /local/eventbridge/<name>`.
   * Each is given the request's body as text (at most {@link LOCAL_ROUTE_MAX_BODY_BYTES}).
   */
  localRoutes?: Readonly<Record<string, (request: { body: string }) => Promise<LocalAnswer>>>;
  /** Whether an `Authorization` header carries an operator session's token (the console's). */
  isOperatorSession?: (authorization: string | undefined) => Promise<boolean>;
  /** Whether a publish request may come in now (throttling); every request is let in without one. */
  admission?: Admission;
  /**
   * Called with every request a route took and the answer it got, from its function or from the
   * gateway itself (a refusal), e.g. to hold them to the API's description.
   */
  onExchange?: (exchange: HttpExchange) => void;
}

/** A routed request and its answer. */
export interface HttpExchange {
  /** The route's key (`PUT /admin/topics/{topic}`). */
  routeKey: string;
  method: string;
  /** The path as sent, and the query string (without `?`). */
  path: string;
  query: string;
  requestContentType: string | undefined;
  /** Whether the request carried CloudEvents attributes as headers (binary mode: the body is the data). */
  cloudEventHeaders: boolean;
  requestBody: Buffer;
  /** The answer; `gateway`: the gateway answered (a refusal), no function ran. */
  result: HttpResult;
  gateway: boolean;
}

/** The answer of a local route. */
export interface LocalAnswer {
  status: number;
  body: string;
  contentType?: string;
  /** Headers of the answer (`content-type` among them overrides `contentType`). */
  headers?: Readonly<Record<string, string>>;
}

/** The listening gateway. */
export type Gateway = Listener;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `host:port` for a URL, an IPv6 address in brackets. */
export const hostPort = (host: string, port: number): string =>
  `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;

export function isAdminAuthorized(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (match?.[1] === undefined) return false;
  return timingSafeEqual(digest(match[1].trim()), digest(token));
}

export function send(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body);
}

/**
 * Answers a request whose body was refused part-way (a 413: `readBody` stopped at the limit) and
 * closes its connection: `Connection: close`, and Node ends and destroys the socket once the
 * answer is flushed. The alternative, reading and dropping the rest so the connection can be
 * kept, is a read as long as the client chooses (any `Content-Length`, or a chunked body that
 * never ends) for a request already refused; left as it was, unread and kept alive, the
 * connection hung, the next request on it waiting behind a body nobody would read. A client that
 * sent too much pays one new connection.
 */
export function refuseUnreadBody(res: ServerResponse, status: number, body: string): void {
  send(res, status, body, { connection: 'close' });
}

/**
 * The request body, or `too-large` as soon as it passes `maxBytes` (the rest is left unread:
 * answer with `refuseUnreadBody`, which closes the connection).
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** How the front door routed a request: the route key and path parameters the function is given. */
export interface EventRouting {
  /** `POST /topics/{topic}/api/events` from the HTTP API, `$default` from a function URL. */
  routeKey: string;
  /** The matched route's parameters (the HTTP API only: a function URL matches no route). */
  pathParameters?: Readonly<Record<string, string>>;
}

/** A payload format 2.0 event of a request, as API Gateway or a function URL shapes it. */
export function toHttpEvent(
  req: IncomingMessage,
  url: URL,
  routing: EventRouting,
  body: Buffer,
  /** The front door's own `host:port` (as AWS gives its own domain, never the `Host` header). */
  domainName: string,
): HttpEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  headers['x-forwarded-proto'] = 'http';
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const now = Date.now();
  const { routeKey, pathParameters } = routing;
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(pathParameters !== undefined && Object.keys(pathParameters).length > 0
      ? { pathParameters: { ...pathParameters } }
      : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName,
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    // Text as text; other bytes base64-encoded, as AWS passes binary bodies, so a body that is
    // not UTF-8 reaches the handler unchanged (decoding it would replace bytes).
    ...(isUtf8(body)
      ? { body: body.toString('utf8'), isBase64Encoded: false }
      : { body: body.toString('base64'), isBase64Encoded: true }),
  };
}

/** Writes a handler's result as the HTTP answer. */
export function sendResult(res: ServerResponse, result: HttpResult): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const payload = result.body === undefined ? '' : result.body;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(result.isBase64Encoded === true ? Buffer.from(payload, 'base64') : payload);
}

/** A listening server of the local stack: its URL, port and how to stop it. */
export interface Listener {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves `handle` on `host:port` (0: a free port); a failure of `handle` is logged and answered
 * with a 500. `handle` is given the server's own `host:port` once it listens.
 */
export async function listen(
  host: string,
  port: number,
  logger: LoggerLike,
  handle: (req: IncomingMessage, res: ServerResponse, ownAddress: string) => Promise<void>,
): Promise<Listener> {
  let ownAddress = hostPort(host, port);
  const server: Server = createServer((req, res) => {
    handle(req, res, ownAddress).catch((error: Error) => {
      logger.error('local front door failed to handle a request', {
        error: error.message,
        stack: error.stack,
      });
      if (!res.headersSent) send(res, 500, JSON.stringify({ message: 'Internal Server Error' }));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const boundPort = (server.address() as AddressInfo).port;
  ownAddress = hostPort(host, boundPort);
  return {
    url: `http://${ownAddress}`,
    port: boundPort,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** API Gateway's answer to a throttled request. */
const TOO_MANY_REQUESTS = { message: 'Too Many Requests' };

const ADMIN_TOKEN_REQUIRED = {
  error: {
    code: 'Unauthorized',
    message:
      'This route needs IAM, for which the local stack takes the admin token: send "Authorization: Bearer <token>" (the token is in the data directory).',
  },
};

/** The largest body a local route reads (an EventBridge `PutEvents` request's limit). */
export const LOCAL_ROUTE_MAX_BODY_BYTES = 256 * 1024;

/** A local route's request body as text; `undefined` (the rest left unread) when it is too large. */
async function readLocalBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > LOCAL_ROUTE_MAX_BODY_BYTES) {
      req.resume();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const routes = ROUTES.filter((route) => options.handlers[route.function] !== undefined).map(compileRoute);

  const handle = async (req: IncomingMessage, res: ServerResponse, ownAddress: string) => {
    // The path and query only: the `Host` header is the client's to choose and is never used.
    const url = new URL(req.url ?? '/', 'http://localhost');
    const found: RouteMatch | undefined = matchRoute(routes, req.method ?? '', url.pathname);
    const routeKey = `${req.method} ${url.pathname}`;
    const local = options.localRoutes?.[routeKey];
    if (found === undefined && local !== undefined) {
      const { authorization } = req.headers;
      if (
        !isAdminAuthorized(authorization, options.adminToken) &&
        !(await options.isOperatorSession?.(authorization))
      ) {
        req.resume();
        send(res, 401, JSON.stringify(ADMIN_TOKEN_REQUIRED));
        return;
      }
      const body = await readLocalBody(req);
      if (body === undefined) {
        send(
          res,
          413,
          JSON.stringify({
            error: {
              code: 'PayloadTooLarge',
              message: `The body is over ${LOCAL_ROUTE_MAX_BODY_BYTES} bytes.`,
            },
          }),
        );
        return;
      }
      const answer = await local({ body });
      send(res, answer.status, answer.body, {
        ...(answer.contentType === undefined ? {} : { 'content-type': answer.contentType }),
        ...answer.headers,
      });
      return;
    }
    if (found === undefined) {
      req.resume();
      send(res, 404, JSON.stringify({ message: 'Not Found' }));
      return;
    }
    const exchanged = (requestBody: Buffer, result: HttpResult, gateway: boolean) =>
      options.onExchange?.({
        routeKey: found.route.routeKey,
        method: req.method ?? '',
        path: url.pathname,
        query: url.search.slice(1),
        requestContentType: req.headers['content-type'],
        cloudEventHeaders: req.headers['ce-specversion'] !== undefined,
        requestBody,
        result,
        gateway,
      });
    const refused = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      exchanged(Buffer.alloc(0), jsonResult(status, body, headers), true);
    // Where AWS would require IAM (admin API, IAM publishing), the admin token stands in for it.
    const { auth } = found.route.route;
    if (
      (auth === 'admin' || auth === 'iam') &&
      !isAdminAuthorized(req.headers.authorization, options.adminToken)
    ) {
      req.resume();
      send(res, 401, JSON.stringify(ADMIN_TOKEN_REQUIRED));
      refused(401, ADMIN_TOKEN_REQUIRED);
      return;
    }
    // Throttled as API Gateway would: refused before the body is read, 429 with Retry-After.
    const refusal = found.route.route.function === 'publish' ? options.admission?.admit() : undefined;
    if (refusal !== undefined) {
      req.resume();
      const retryAfter = { 'retry-after': String(refusal.retryAfterSeconds) };
      send(res, 429, JSON.stringify(TOO_MANY_REQUESTS), retryAfter);
      refused(429, TOO_MANY_REQUESTS, retryAfter);
      return;
    }
    const body = await readBody(req, MAX_GATEWAY_BODY_BYTES);
    if (body === 'too-large') {
      refuseUnreadBody(res, 413, JSON.stringify({ message: 'Request Entity Too Large' }));
      refused(413, { message: 'Request Entity Too Large' });
      return;
    }
    const fnKey = found.route.route.function;
    const handler = options.handlers[fnKey] as HttpHandler;
    const started = performance.now();
    const routing = { routeKey: found.route.routeKey, pathParameters: found.pathParameters };
    const result = await handler(
      toHttpEvent(req, url, routing, body, ownAddress),
      lambdaContext(FUNCTIONS[fnKey]),
    );
    options.onInvocation?.({
      function: fnKey,
      source: found.route.routeKey,
      records: 1,
      failed: (result.statusCode ?? 200) >= 500 ? 1 : 0,
      durationMs: performance.now() - started,
    });
    sendResult(res, result);
    exchanged(body, result, false);
  };

  return listen(options.host, options.port, options.logger, handle);
}

/**
 * The local stand-in for API Gateway (HTTP API): matches the routes of `shared/config/resources.ts`,
 * enforces the admin bearer token where AWS would enforce IAM, and invokes the same handlers
 * with API Gateway payload format 2.0 events.
 */

import { isUtf8 } from 'node:buffer';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { FUNCTIONS, type FunctionKey, ROUTES, type RouteDefinition } from '../shared/config/resources';
import type { HttpEvent, HttpResult } from '../shared/http/api-gateway';
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
   * admin token: `GET /local/status`.
   */
  localRoutes?: Readonly<Record<string, () => Promise<LocalAnswer>>>;
  /** Whether a publish request may come in now (throttling); every request is let in without one. */
  admission?: Admission;
}

/** The answer of a local route. */
export interface LocalAnswer {
  status: number;
  body: string;
  contentType?: string;
}

export interface Gateway {
  url: string;
  port: number;
  stop(): Promise<void>;
}

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  params: string[];
}

function compile(route: RouteDefinition): CompiledRoute {
  const params: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)\}$/.exec(segment);
      if (match?.[1] === undefined) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(match[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}/?$`), params };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `host:port` for a URL, an IPv6 address in brackets. */
export const hostPort = (host: string, port: number): string =>
  `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;

export function isAdminAuthorized(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (match?.[1] === undefined) return false;
  return timingSafeEqual(digest(match[1].trim()), digest(token));
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_GATEWAY_BODY_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function toHttpEvent(
  req: IncomingMessage,
  url: URL,
  route: CompiledRoute,
  match: RegExpExecArray,
  body: Buffer,
  /** The gateway's own `host:port` (as API Gateway gives its own domain, never the `Host` header). */
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
  const pathParameters: Record<string, string> = {};
  route.params.forEach((name, index) => {
    pathParameters[name] = match[index + 1] ?? '';
  });
  const now = Date.now();
  const routeKey = `${route.route.method} ${route.route.path}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(route.params.length > 0 ? { pathParameters } : {}),
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
    // Text as text; other bytes base64-encoded, as API Gateway passes binary bodies, so a body
    // that is not UTF-8 reaches the handler unchanged (decoding it would replace bytes).
    ...(isUtf8(body)
      ? { body: body.toString('utf8'), isBase64Encoded: false }
      : { body: body.toString('base64'), isBase64Encoded: true }),
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

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const routes = ROUTES.filter((route) => options.handlers[route.function] !== undefined).map(compile);
  /** `host:port` once listening (requests come only then). */
  let ownAddress = hostPort(options.host, options.port);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // The path and query only: the `Host` header is the client's to choose and is never used.
    const url = new URL(req.url ?? '/', 'http://localhost');
    let found: { route: CompiledRoute; match: RegExpExecArray } | undefined;
    for (const route of routes) {
      if (route.route.method !== req.method) continue;
      const match = route.pattern.exec(url.pathname);
      if (match !== null) {
        found = { route, match };
        break;
      }
    }
    const local = options.localRoutes?.[`${req.method} ${url.pathname}`];
    if (found === undefined && local !== undefined) {
      req.resume();
      if (!isAdminAuthorized(req.headers.authorization, options.adminToken)) {
        send(res, 401, JSON.stringify(ADMIN_TOKEN_REQUIRED));
        return;
      }
      const answer = await local();
      send(
        res,
        answer.status,
        answer.body,
        answer.contentType === undefined ? {} : { 'content-type': answer.contentType },
      );
      return;
    }
    if (found === undefined) {
      req.resume();
      send(res, 404, JSON.stringify({ message: 'Not Found' }));
      return;
    }
    // Where AWS would require IAM (admin API, IAM publishing), the admin token stands in for it.
    const { auth } = found.route.route;
    if (
      (auth === 'admin' || auth === 'iam') &&
      !isAdminAuthorized(req.headers.authorization, options.adminToken)
    ) {
      req.resume();
      send(res, 401, JSON.stringify(ADMIN_TOKEN_REQUIRED));
      return;
    }
    // Throttled as API Gateway would: refused before the body is read, 429 with Retry-After.
    const refusal = found.route.route.function === 'publish' ? options.admission?.admit() : undefined;
    if (refusal !== undefined) {
      req.resume();
      send(res, 429, JSON.stringify(TOO_MANY_REQUESTS), { 'retry-after': String(refusal.retryAfterSeconds) });
      return;
    }
    const body = await readBody(req);
    if (body === 'too-large') {
      send(res, 413, JSON.stringify({ message: 'Request Entity Too Large' }));
      return;
    }
    const fnKey = found.route.route.function;
    const handler = options.handlers[fnKey] as HttpHandler;
    const started = performance.now();
    const result = await handler(
      toHttpEvent(req, url, found.route, found.match, body, ownAddress),
      lambdaContext(FUNCTIONS[fnKey]),
    );
    options.onInvocation?.({
      function: fnKey,
      source: `${found.route.route.method} ${found.route.route.path}`,
      records: 1,
      failed: (result.statusCode ?? 200) >= 500 ? 1 : 0,
      durationMs: performance.now() - started,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
    const payload = result.body === undefined ? '' : result.body;
    res.writeHead(result.statusCode ?? 200, headers);
    res.end(result.isBase64Encoded === true ? Buffer.from(payload, 'base64') : payload);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      options.logger.error('local gateway failed to handle a request', {
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
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  ownAddress = hostPort(options.host, port);
  return {
    url: `http://${ownAddress}`,
    port,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

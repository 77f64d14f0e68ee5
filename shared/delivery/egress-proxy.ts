/**
 * Requests to endpoints through an HTTP proxy (the corporate pattern for outbound inspection):
 * each connection is a CONNECT tunnel to the endpoint's host and port, and TLS to the endpoint runs
 * inside it (the proxy sees the host name, never the request). The SSRF guard still judges the
 * endpoint, before the proxy is asked: its host must be public, and so must every address its name
 * resolves to here. The proxy resolves the name again on its side; a proxy that should refuse
 * private addresses too is configured to (this side can't see which address it connects to).
 */
import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { blockedHost, checkEndpointUrl, EndpointBlockedError, type Resolver } from './endpoint-guard';

/** Why the proxy did not open a tunnel; `code` names it in the attempt's error text. */
export class EgressProxyError extends Error {
  override readonly name = 'EgressProxyError';
  readonly code = 'EgressProxyRefused';
}

export interface ProxyOptions {
  /** `http://[user:pass@]host:port` (checked at start-up: `checkProxyUrl`). */
  proxyUrl: string;
  /** Refuse endpoints on non-public addresses (as direct connections do). */
  blockPrivate: boolean;
  resolve?: Resolver | undefined;
  /** How long opening the tunnel may take. */
  timeoutMs: number;
}

/** The `Proxy-Authorization` value for a proxy URL's credentials, if it has any. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === '' && proxy.password === '') return undefined;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/**
 * A connector that tunnels through the proxy, then hands the tunnel to `direct` for TLS (an https
 * endpoint) or uses it as it is (http, local mode only).
 */
export function proxiedConnector(
  options: ProxyOptions,
  direct: buildConnector.connector,
): buildConnector.connector {
  const proxy = new URL(options.proxyUrl);
  const authorization = proxyAuthorization(proxy);
  return (connectOptions, callback) => {
    const { hostname, protocol } = connectOptions;
    const port = connectOptions.port === '' ? (protocol === 'https:' ? '443' : '80') : connectOptions.port;
    guard(hostname, protocol, port, options)
      .then(() => openTunnel(proxy, authorization, hostname, port, options.timeoutMs))
      .then(
        (socket) => {
          if (protocol !== 'https:') {
            callback(null, socket);
            return;
          }
          direct({ ...connectOptions, httpSocket: socket }, (error, tls) => {
            if (error === null) {
              callback(null, tls);
              return;
            }
            socket.destroy();
            callback(error, null);
          });
        },
        (error: Error) => callback(error, null),
      );
  };
}

/** Refuses (an {@link EndpointBlockedError}) an endpoint on a non-public address, when asked to. */
async function guard(hostname: string, protocol: string, port: string, options: ProxyOptions): Promise<void> {
  if (!options.blockPrivate) return;
  const blocked = blockedHost(hostname);
  if (blocked !== undefined) throw blocked;
  const check = await checkEndpointUrl(`${protocol}//${hostname}:${port}/`, { resolve: options.resolve });
  if (!check.allowed) {
    throw new EndpointBlockedError(
      hostname,
      { public: false, address: hostname, range: 'reserved' },
      check.reason,
    );
  }
}

/** A CONNECT tunnel to `host:port` through the proxy. */
function openTunnel(
  proxy: URL,
  authorization: string | undefined,
  host: string,
  port: string,
  timeoutMs: number,
): Promise<Socket> {
  // An IPv6 literal is bracketed in the authority, as the URL had it.
  const authority = `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) => {
    const connect = httpRequest({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port === '' ? 80 : Number(proxy.port),
      method: 'CONNECT',
      path: authority,
      headers: {
        host: authority,
        ...(authorization === undefined ? {} : { 'proxy-authorization': authorization }),
      },
      timeout: timeoutMs,
      agent: false,
    });
    connect.once('connect', (response, socket) => {
      if (response.statusCode === 200) {
        resolve(socket);
        return;
      }
      socket.destroy();
      reject(
        new EgressProxyError(
          `the egress proxy ${proxy.host} refused a tunnel to ${authority}: ${response.statusCode} ${response.statusMessage ?? ''}`.trim(),
        ),
      );
    });
    connect.once('timeout', () => {
      connect.destroy(
        Object.assign(
          new Error(`the egress proxy ${proxy.host} did not open a tunnel within ${timeoutMs / 1000} s`),
          {
            code: 'ETIMEDOUT',
          },
        ),
      );
    });
    connect.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        Object.assign(new Error(`the egress proxy ${proxy.host} could not be reached: ${error.message}`), {
          code: error.code,
          cause: error,
        }),
      );
    });
    connect.end();
  });
}

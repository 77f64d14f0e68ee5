/**
 * Keeps webhooks off non-public addresses (SSRF protection), in two places that share one rule
 * (`rules/endpoint-address.ts`):
 * - {@link checkEndpointUrl}: when a subscription is saved, the URL's host, or every address its
 *   name resolves to, must be public; a name that can't be resolved can't be checked and is refused;
 * - {@link guardedLookup} and {@link blockedHost}: when the sender connects, on every delivery, so a
 *   DNS answer that changed since (DNS rebinding) is caught before any packet is sent.
 */
import {
  lookup as dnsLookup,
  type LookupAddress,
  type LookupAllOptions,
  type LookupOneOptions,
} from 'node:dns';
import type { LookupFunction } from 'node:net';
import { type AddressClass, classifyAddress, classifyHost, describeAddress } from './rules/endpoint-address';

/** Every address a name resolves to (as `dns.lookup(host, {all: true})` answers). */
export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

/** The system resolver, as connections use it (`/etc/hosts`, then DNS). */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/** Why a connection was refused; `code` names it in the attempt's error text. */
export class EndpointBlockedError extends Error {
  override readonly name = 'EndpointBlockedError';
  readonly code = 'EndpointBlocked';

  constructor(
    readonly host: string,
    readonly address: AddressClass,
    reason: string,
  ) {
    super(`${reason}; private endpoints are not allowed`);
  }
}

/** The reason text for a host that is, or resolves to, a non-public address. */
const reasonFor = (host: string, address: AddressClass, resolved: boolean): string =>
  resolved ? `${host} resolves to ${describeAddress(address)}` : `the host is ${describeAddress(address)}`;

/** The first non-public address among `addresses`, if any. */
function firstBlocked(addresses: readonly LookupAddress[]): AddressClass | undefined {
  for (const { address } of addresses) {
    const verdict = classifyAddress(address);
    // An answer that is not an address at all is not something to connect to either.
    if (verdict === undefined) return { public: false, address, range: 'reserved' };
    if (!verdict.public) return verdict;
  }
  return undefined;
}

export type EndpointCheck = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/**
 * Whether a webhook URL may be used: its host is a public address, or a name every address of
 * which is public. A name that does not resolve is refused (it can't be checked). The URL must
 * parse (the schema has checked that).
 */
export async function checkEndpointUrl(
  endpointUrl: string,
  options: { resolve?: Resolver | undefined } = {},
): Promise<EndpointCheck> {
  const { hostname } = new URL(endpointUrl);
  const host = classifyHost(hostname);
  if (host.kind === 'loopback-name') return { allowed: false, reason: `${hostname} is a loopback name` };
  if (host.kind === 'address') {
    return host.address.public
      ? { allowed: true }
      : { allowed: false, reason: reasonFor(hostname, host.address, false) };
  }
  let addresses: readonly LookupAddress[];
  try {
    addresses = await (options.resolve ?? systemResolver)(host.name);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = typeof code === 'string' ? ` (${code})` : '';
    return {
      allowed: false,
      reason: `${hostname} can't be resolved${why}, so it can't be checked for private addresses`,
    };
  }
  if (addresses.length === 0) {
    return { allowed: false, reason: `${hostname} resolves to no address, so it can't be checked` };
  }
  const blocked = firstBlocked(addresses);
  return blocked === undefined
    ? { allowed: true }
    : { allowed: false, reason: reasonFor(hostname, blocked, true) };
}

/**
 * The refusal for connecting to `host` when it is an IP literal (or a loopback name), which a
 * connection reaches without a lookup; `undefined` when it is public or a name to look up.
 */
export function blockedHost(host: string): EndpointBlockedError | undefined {
  const verdict = classifyHost(host);
  if (verdict.kind === 'name') return undefined;
  if (verdict.kind === 'loopback-name') {
    return new EndpointBlockedError(
      host,
      { public: false, address: verdict.name, range: 'loopback' },
      `${host} is a loopback name`,
    );
  }
  return verdict.address.public
    ? undefined
    : new EndpointBlockedError(host, verdict.address, reasonFor(host, verdict.address, false));
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `net.connect`/`tls.connect`: resolves the name, and with `blockPrivate` refuses
 * (an {@link EndpointBlockedError}) when any address it resolves to is non-public, so no
 * connection to it is attempted. Honours `family` and `all` as `dns.lookup` does.
 */
export function guardedLookup(options: {
  blockPrivate: boolean;
  resolve?: Resolver | undefined;
}): LookupFunction {
  const resolve = options.resolve ?? systemResolver;
  const lookup = (
    host: string,
    lookupOptions: LookupOneOptions | LookupAllOptions,
    callback: LookupCallback,
  ) => {
    const blockedHere = options.blockPrivate ? blockedHost(host) : undefined;
    if (blockedHere !== undefined) {
      process.nextTick(callback, blockedHere, '');
      return;
    }
    resolve(host).then(
      (answers) => {
        if (options.blockPrivate) {
          const blocked = firstBlocked(answers);
          if (blocked !== undefined) {
            return callback(new EndpointBlockedError(host, blocked, reasonFor(host, blocked, true)), '');
          }
        }
        const family =
          lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : lookupOptions.family;
        const usable =
          family === 4 || family === 6 ? answers.filter((answer) => answer.family === family) : answers;
        const first = usable[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${host}`);
          error.code = 'ENOTFOUND';
          return callback(error, '');
        }
        if (lookupOptions.all === true) return callback(null, [...usable]);
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
  return lookup as LookupFunction;
}

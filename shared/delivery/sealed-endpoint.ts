/**
 * Endpoint URLs at rest: a query string often carries a secret (`?code=`, `?token=`), so a
 * subscription stores its endpoint URL without its query string and fragment (`endpointUrl`, in
 * the clear: what the API shows, health records name and the SSRF guard checks) and those sealed
 * with the key that seals secret delivery headers (`sealedQuery`). Delivery, the handshake and
 * `getFullUrl` open them again. A subscription stored before this (or whose URL has no query
 * string) has the whole URL in `endpointUrl` and no `sealedQuery`; both read the same.
 *
 * An OAuth 2.0 token URL is kept the same way (`tokenUrl` and `sealedTokenQuery`): its query
 * string may carry a secret just as well.
 */
import type { DeliveryAuth, WebhookDestination } from '../domain/model';
import type { SecretOpener, SecretSealer } from '../platform/sealing';

/** An endpoint URL as stored: in the clear up to its path, the rest sealed (when there is a rest). */
export type StoredEndpoint = Pick<WebhookDestination, 'endpointUrl' | 'sealedQuery'>;

/**
 * A parsed URL (`URL.href`) split into what is kept in the clear (scheme, host, port and path)
 * and its query string and fragment (`''` when it has neither).
 */
export function splitEndpointUrl(href: string): { base: string; rest: string } {
  const url = new URL(href);
  const rest = `${url.search}${url.hash}`;
  return { base: url.href.slice(0, url.href.length - rest.length), rest };
}

/** Thrown when a sealed query string must be sealed or opened and there is no key. */
export class NoSealingKeyError extends Error {}

/**
 * The endpoint URL `href` as stored, its query string and fragment sealed. `existing` is the
 * subscription's endpoint as stored before: when the URL is the same, its sealed part is kept
 * (sealing twice gives two texts), so an unchanged endpoint stays equal to itself.
 */
export async function sealEndpointUrl(
  href: string,
  sealer: SecretSealer | undefined,
  existing?: StoredEndpoint,
): Promise<StoredEndpoint> {
  const { base, rest } = splitEndpointUrl(href);
  if (rest === '') return { endpointUrl: href };
  if (sealer === undefined) throw new NoSealingKeyError('there is no key to seal the query string with');
  if (existing?.sealedQuery !== undefined && existing.endpointUrl === base) {
    const before = await sealer.open(existing.sealedQuery).catch(() => undefined);
    if (before === rest) return { endpointUrl: base, sealedQuery: existing.sealedQuery };
  }
  return { endpointUrl: base, sealedQuery: await sealer.seal(rest) };
}

/** The whole endpoint URL, its sealed part opened. Rejects when it cannot be opened. */
export async function openEndpointUrl(
  stored: StoredEndpoint,
  opener: SecretOpener | undefined,
): Promise<string> {
  if (stored.sealedQuery === undefined) return stored.endpointUrl;
  if (opener === undefined)
    throw new NoSealingKeyError('there is no key to open the sealed query string with');
  return `${stored.endpointUrl}${await opener.open(stored.sealedQuery)}`;
}

/** Whether two stored endpoints are the same URL (a kept seal makes equal URLs equal here). */
export const sameStoredEndpoint = (a: StoredEndpoint, b: StoredEndpoint): boolean =>
  a.endpointUrl === b.endpointUrl && a.sealedQuery === b.sealedQuery;

/** An OAuth 2.0 client's token URL as a stored endpoint: its base in the clear, the rest sealed. */
export const storedTokenUrlOf = (
  auth: Pick<Extract<DeliveryAuth, { type: 'OAuth2ClientCredentials' }>, 'tokenUrl' | 'sealedTokenQuery'>,
): StoredEndpoint => ({
  endpointUrl: auth.tokenUrl,
  ...(auth.sealedTokenQuery === undefined ? {} : { sealedQuery: auth.sealedTokenQuery }),
});

/**
 * Whether a stored URL is `href`, its sealed part opened to compare (a stored URL whose seal
 * can't be opened is another URL: nothing is kept on a guess).
 */
export async function storedUrlIs(
  stored: StoredEndpoint,
  href: string,
  opener: SecretOpener | undefined,
): Promise<boolean> {
  if (stored.sealedQuery === undefined) return stored.endpointUrl === href;
  if (opener === undefined) return false;
  return (await openEndpointUrl(stored, opener).catch(() => undefined)) === href;
}

/**
 * Shared access signatures (SAS) for publishing, checked exactly as the original service's SDKs
 * make them: `r=<url-encoded resource>&e=<url-encoded expiry>&s=<url-encoded signature>`, where the
 * signature is the base64 HMAC-SHA256 of `r=...&e=...` (as sent) keyed by the base64-decoded topic
 * key, and the expiry is a UTC time written `M/D/YYYY h:mm:ss AM|PM` (ISO 8601 is accepted too).
 *
 * The resource is compared by path: the request's path must start with the resource's path
 * (ignoring case and a trailing slash). The host is not compared, because one topic is reachable
 * under several names (the API's own URL, a custom domain, localhost behind a tunnel).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TopicKeys } from '../domain/model';

/** The signature of a token's `r=...&e=...` text: HMAC-SHA256 keyed by the base64-decoded topic key. */
const signatureOf = (signed: string, key: string): Buffer =>
  createHmac('sha256', Buffer.from(key, 'base64')).update(signed, 'utf8').digest();

export type SasVerdict = { readonly valid: true } | { readonly valid: false; readonly reason: string };

/** `M/D/YYYY h:mm:ss AM|PM` (UTC), as the SDKs write it, or an ISO 8601 time; `undefined` if neither. */
export function parseSasExpiry(text: string): number | undefined {
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2}):(\d{2}) (AM|PM)$/i.exec(text.trim());
  if (us !== null) {
    const [, month, day, year, hour, minute, second, half] = us as unknown as string[];
    const h12 = Number(hour);
    if (h12 < 1 || h12 > 12) return undefined;
    const h24 = (h12 % 12) + ((half as string).toUpperCase() === 'PM' ? 12 : 0);
    const at = Date.UTC(Number(year), Number(month) - 1, Number(day), h24, Number(minute), Number(second));
    const check = new Date(at);
    // Reject dates that roll over (13/40/2026).
    if (check.getUTCMonth() !== Number(month) - 1 || check.getUTCDate() !== Number(day)) return undefined;
    return at;
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text.trim())) {
    const at = Date.parse(text);
    return Number.isNaN(at) ? undefined : at;
  }
  return undefined;
}

interface ParsedToken {
  resource: string;
  expiry: string;
  signature: string;
  /** `r=...&e=...` exactly as the token carries it: what was signed. */
  signed: string;
}

function parseToken(token: string): ParsedToken | string {
  const parts = token.trim().split('&');
  const fields = new Map<string, string>();
  for (const part of parts) {
    const at = part.indexOf('=');
    if (at <= 0) return `'${part}' is not a name=value pair`;
    fields.set(part.slice(0, at), part.slice(at + 1));
  }
  const raw = { r: fields.get('r'), e: fields.get('e'), s: fields.get('s') };
  for (const name of ['r', 'e', 's'] as const) {
    if (raw[name] === undefined || raw[name] === '')
      return `it has no '${name}' field (r=resource&e=expiry&s=signature)`;
  }
  try {
    return {
      resource: decodeURIComponent(raw.r as string),
      expiry: decodeURIComponent(raw.e as string),
      signature: decodeURIComponent(raw.s as string),
      signed: `r=${raw.r}&e=${raw.e}`,
    };
  } catch {
    return 'a field is not valid URL encoding';
  }
}

const pathOf = (url: string): string | undefined => {
  try {
    return new URL(url).pathname.replace(/\/+$/, '').toLowerCase();
  } catch {
    return url.startsWith('/') ? url.split('?')[0]?.replace(/\/+$/, '').toLowerCase() : undefined;
  }
};

/**
 * Checks a SAS token for a publish to `requestPath` at `now`: well formed, not expired, for this
 * resource, and signed with key1 or key2 (both always computed and compared in constant time).
 */
export function verifySasToken(token: string, keys: TopicKeys, requestPath: string, now: number): SasVerdict {
  const parsed = parseToken(token);
  if (typeof parsed === 'string') return { valid: false, reason: `The SAS token is malformed: ${parsed}.` };
  const expiresAt = parseSasExpiry(parsed.expiry);
  if (expiresAt === undefined) {
    return {
      valid: false,
      reason: `The SAS token's expiry 'e' (${parsed.expiry}) is not a time (M/D/YYYY h:mm:ss AM|PM, UTC).`,
    };
  }
  if (expiresAt <= now) {
    return { valid: false, reason: `The SAS token expired at ${new Date(expiresAt).toISOString()}.` };
  }
  const resourcePath = pathOf(parsed.resource);
  const requested = requestPath.replace(/\/+$/, '').toLowerCase();
  if (resourcePath === undefined || resourcePath === '' || !requested.startsWith(resourcePath)) {
    return {
      valid: false,
      reason: `The SAS token is for another resource (${parsed.resource}), not ${requestPath}.`,
    };
  }
  const presented = Buffer.from(parsed.signature, 'base64');
  const matches = [keys.key1, keys.key2].map((key) => {
    const expected = signatureOf(parsed.signed, key);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
  if (!matches.some(Boolean)) {
    return { valid: false, reason: "The SAS token's signature does not match either key of the topic." };
  }
  return { valid: true };
}

/** A UTC time as SAS tokens write it: `M/D/YYYY h:mm:ss AM|PM`. */
export function formatSasExpiry(at: Date): string {
  const hours = at.getUTCHours();
  const two = (value: number) => String(value).padStart(2, '0');
  return `${at.getUTCMonth() + 1}/${at.getUTCDate()}/${at.getUTCFullYear()} ${hours % 12 === 0 ? 12 : hours % 12}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
}

/** The API version the original service's SDKs put in a token's resource (ignored when checked). */
const SAS_API_VERSION = '2018-01-01';

/**
 * A SAS token a publisher sends (header `aeg-sas-token`) instead of a topic key: for the topic's
 * publish URL `publishUrl`, signed with `key` (key1 or key2, base64 as the API lists them), valid
 * until `expiresAt`. Byte for byte the token the original service's SDKs make (the resource
 * carries their `?apiVersion=`), and one {@link verifySasToken} accepts.
 */
export function createSasToken(publishUrl: string, key: string, expiresAt: Date): string {
  const resource = `${publishUrl}?apiVersion=${SAS_API_VERSION}`;
  const signed = `r=${encodeURIComponent(resource)}&e=${encodeURIComponent(formatSasExpiry(expiresAt))}`;
  const signature = signatureOf(signed, key).toString('base64');
  return `${signed}&s=${encodeURIComponent(signature)}`;
}

/**
 * Mapping HTTP answers and network errors onto the delivery outcome names operators know.
 */
import type { DeliveryOutcome } from '../../domain/model';

/** Only these statuses acknowledge a delivery; everything else, redirects included, is a failure. */
export const isSuccessStatus = (status: number): boolean => status >= 200 && status <= 204;

const STATUS_OUTCOMES: Readonly<Record<number, DeliveryOutcome>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  408: 'TimedOut',
  /** Gone: the endpoint says it will never take deliveries again. */
  410: 'Disabled',
  413: 'PayloadTooLarge',
  429: 'Busy',
  503: 'Busy',
  504: 'TimedOut',
};

/** The outcome name for a failed HTTP answer. */
export const outcomeForStatus = (status: number): DeliveryOutcome =>
  STATUS_OUTCOMES[status] ?? 'GenericError';

/** Outcomes of errors thrown while sending, by their `code` or `name`. */
export const ERROR_CODE_OUTCOMES: Readonly<Record<string, DeliveryOutcome>> = {
  ECONNREFUSED: 'SocketError',
  ECONNRESET: 'SocketError',
  EPIPE: 'SocketError',
  EHOSTUNREACH: 'SocketError',
  ENETUNREACH: 'SocketError',
  ECONNABORTED: 'SocketError',
  UND_ERR_SOCKET: 'SocketError',
  UND_ERR_CLOSED: 'SocketError',
  ENOTFOUND: 'ResolutionError',
  EAI_AGAIN: 'ResolutionError',
  EAI_NONAME: 'ResolutionError',
  ETIMEDOUT: 'TimedOut',
  UND_ERR_CONNECT_TIMEOUT: 'TimedOut',
  UND_ERR_HEADERS_TIMEOUT: 'TimedOut',
  UND_ERR_BODY_TIMEOUT: 'TimedOut',
  TimeoutError: 'TimedOut',
  AbortError: 'Canceled',
  // The request could not be built (a bad header value): not the network's fault.
  UND_ERR_INVALID_ARG: 'GenericError',
  // The egress proxy would not open a tunnel to the endpoint.
  EgressProxyRefused: 'SocketError',
};

/**
 * Certificate checks OpenSSL reports by name (a server certificate no trusted CA signed, expired,
 * for another host...): the connection failed in its TLS handshake.
 */
const TLS_VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
]);

/**
 * Whether an error code is a TLS handshake's failure: a certificate check (`TLS_VERIFY_CODES`,
 * `ERR_TLS_CERT_ALTNAME_INVALID`) or an alert or error of OpenSSL's (`ERR_SSL_*`: the endpoint
 * refused the client certificate, or wanted one and got none). Retried as a socket error, the code
 * kept so the message log says which.
 */
export const isTlsErrorCode = (code: string): boolean =>
  TLS_VERIFY_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_');

/** An error thrown while sending, as the retry rules see it: its outcome and the code behind it. */
export interface ErrorOutcome {
  readonly outcome: DeliveryOutcome;
  /** The `code` or `name` that decided the outcome (`ENOTFOUND`, `ECONNREFUSED`...), when one did. */
  readonly errorCode?: string;
}

/**
 * The outcome for an error thrown while sending, and the code it was known by. Looks at `code`,
 * then `name`, then the same on `cause` (fetch-style errors wrap the socket error).
 */
export function classifyError(error: unknown): ErrorOutcome {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    const { code, name } = current as { code?: unknown; name?: unknown };
    for (const key of [code, name]) {
      const outcome = typeof key === 'string' ? ERROR_CODE_OUTCOMES[key] : undefined;
      if (outcome !== undefined) return { outcome, errorCode: key as string };
    }
    if (typeof code === 'string' && isTlsErrorCode(code)) return { outcome: 'SocketError', errorCode: code };
    current = (current as { cause?: unknown }).cause;
  }
  return { outcome: 'SocketError' };
}

/**
 * Parses a `Retry-After` header (delta-seconds or an HTTP date) into whole seconds from `now`.
 * Returns `undefined` for a missing or unreadable value.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // An HTTP date names a weekday and a month; anything else (`-3`, `soon`) is unreadable.
  if (!/^[A-Za-z]{3},/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Outcomes by which an endpoint says it has too much to do: busy (429, 503) or too slow to answer
 * (408, 504, a timeout). A worker then halves the requests it keeps in flight to it, and lets the
 * number grow again with each answer.
 */
export const pushesBack = (outcome: DeliveryOutcome | undefined): boolean =>
  outcome === 'Busy' || outcome === 'TimedOut';

/**
 * A webhook's own TLS settings (`destination.properties.tls`): a client certificate presented to
 * an endpoint that asks for one (mutual TLS), and CA certificates trusted for that endpoint beside
 * (or instead of) the public ones. What is checked when they are given, what is shown of them,
 * and when a client certificate's end is near enough to warn about.
 */
import { createHash, createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { EndpointTls } from '../../domain/model';

/** A client certificate is warned about (health, a metric) from this many days before it expires. */
export const CERTIFICATE_WARNING_DAYS = 30;

export const DAY_MS = 24 * 3600 * 1000;

/** Sizes of what the API takes, so a subscription stays a small item. */
export const TLS_LIMITS = {
  /** A client certificate with its chain, as PEM text. */
  clientCertificateBytes: 16 * 1024,
  clientKeyBytes: 16 * 1024,
  /** The CA bundle, as PEM text. */
  caCertificatesBytes: 64 * 1024,
  /** Certificates in the CA bundle. */
  caCertificates: 20,
} as const;

/**
 * The TLS options a connection to the endpoint is made with: `id` tells option sets apart (one
 * connection pool each); `ca` absent: the public CAs only.
 */
export interface EndpointTlsOptions {
  readonly id: string;
  readonly cert?: string;
  readonly key?: string;
  readonly ca?: readonly string[];
  /** When the client certificate expires (epoch ms), for the warnings. */
  readonly certificateExpiresAt?: number;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM text, in order, or why it holds none that parse. */
export function parseCertificates(pem: string): { certificates: X509Certificate[] } | { problem: string } {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    return {
      problem:
        'holds no PEM certificate (a block from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----)',
    };
  }
  const certificates: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      certificates.push(new X509Certificate(block));
    } catch (error) {
      return {
        problem: `certificate ${index + 1} of ${blocks.length} does not parse (${(error as Error).message})`,
      };
    }
  }
  return { certificates };
}

/** A private key given as PEM, or why it can't be used (not a key, or encrypted). */
export function parsePrivateKey(pem: string): { key: KeyObject } | { problem: string } {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    return {
      problem: 'is not a PEM private key (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA/EC PRIVATE KEY-----)',
    };
  }
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(pem)) {
    return { problem: 'is encrypted: give it without a passphrase (it is sealed at rest, never shown)' };
  }
  try {
    return { key: createPrivateKey({ key: pem, format: 'pem' }) };
  } catch (error) {
    return { problem: `does not parse as a private key (${(error as Error).message})` };
  }
}

/** What is shown of a certificate: never the certificate itself. */
export interface CertificateSummary {
  /** SHA-256 of the DER certificate, as `AB:CD:...` (what `openssl x509 -fingerprint -sha256` prints). */
  sha256Fingerprint: string;
  subject: string;
  issuer: string;
  validFromTime: string;
  expiresTime: string;
}

/** When a certificate stops being valid (`validTo` as a date: Node 20 has no `validToDate`). */
export const expiryOf = (certificate: X509Certificate): Date => new Date(certificate.validTo);
/** From when a certificate is valid. */
export const validFromOf = (certificate: X509Certificate): Date => new Date(certificate.validFrom);

const oneLine = (name: string): string => name.split('\n').filter(Boolean).join(', ');

export const certificateSummary = (certificate: X509Certificate): CertificateSummary => ({
  sha256Fingerprint: certificate.fingerprint256,
  subject: oneLine(certificate.subject),
  issuer: oneLine(certificate.issuer),
  validFromTime: validFromOf(certificate).toISOString(),
  expiresTime: expiryOf(certificate).toISOString(),
});

/** Why a certificate can't be used at `nowMs` (expired, or not valid yet), or `undefined`. */
export function validityProblem(certificate: X509Certificate, nowMs: number): string | undefined {
  if (expiryOf(certificate).getTime() <= nowMs) {
    return `expired on ${expiryOf(certificate).toISOString()} (${oneLine(certificate.subject)})`;
  }
  if (validFromOf(certificate).getTime() > nowMs) {
    return `is not valid before ${validFromOf(certificate).toISOString()} (${oneLine(certificate.subject)})`;
  }
  return undefined;
}

/** The first certificate of a PEM text already checked (the leaf of a client certificate's chain). */
export function leafOf(pem: string): X509Certificate {
  const parsed = parseCertificates(pem);
  if ('problem' in parsed) throw new Error(`a stored certificate ${parsed.problem}`);
  return parsed.certificates[0] as X509Certificate;
}

/** The summaries of a stored CA bundle, in order. */
export function caSummaries(pem: string): CertificateSummary[] {
  const parsed = parseCertificates(pem);
  return 'problem' in parsed ? [] : parsed.certificates.map(certificateSummary);
}

/** When the client certificate expires (epoch ms); `undefined` without one. */
export function clientCertificateExpiry(tls: EndpointTls | undefined): number | undefined {
  if (tls?.clientCertificate === undefined) return undefined;
  return expiryOf(leafOf(tls.clientCertificate)).getTime();
}

/**
 * Whole days left until a client certificate expiring at `expiresAt` does (negative once it has),
 * when that is within {@link CERTIFICATE_WARNING_DAYS}; else `undefined`: what the
 * `ClientCertificateDaysLeft` metric records.
 */
export function daysLeftToWarn(expiresAt: number | undefined, nowMs: number): number | undefined {
  if (expiresAt === undefined || expiresAt - nowMs > CERTIFICATE_WARNING_DAYS * DAY_MS) return undefined;
  return Math.floor((expiresAt - nowMs) / DAY_MS);
}

/** What a subscription's health says of its client certificate at `nowMs`. */
export interface CertificateWarning {
  code: 'ClientCertificateExpiring' | 'ClientCertificateExpired';
  message: string;
  expiresTime: string;
  daysLeft: number;
}

/**
 * A warning when the client certificate expires within {@link CERTIFICATE_WARNING_DAYS} (or has),
 * else `undefined`.
 */
export function certificateWarning(
  tls: EndpointTls | undefined,
  nowMs: number,
): CertificateWarning | undefined {
  const expiresAt = clientCertificateExpiry(tls);
  const daysLeft = daysLeftToWarn(expiresAt, nowMs);
  if (expiresAt === undefined || daysLeft === undefined) return undefined;
  const expiresTime = new Date(expiresAt).toISOString();
  return expiresAt <= nowMs
    ? {
        code: 'ClientCertificateExpired',
        message: `The client certificate expired on ${expiresTime}: endpoints that check it refuse the connection. Give a new one (destination.properties.tls.clientCertificate and clientKey).`,
        expiresTime,
        daysLeft,
      }
    : {
        code: 'ClientCertificateExpiring',
        message: `The client certificate expires on ${expiresTime} (in ${daysLeft} days). Give a new one before then (destination.properties.tls.clientCertificate and clientKey).`,
        expiresTime,
        daysLeft,
      };
}

/**
 * The options connections to the endpoint are made with, from its stored settings and its client
 * key opened (`undefined` when it has no client certificate); `undefined` without settings. The
 * `id` is a digest of what the options are made of (the key as sealed), so subscriptions with the
 * same settings share a pool and a changed setting gets a new one.
 */
export function endpointTlsOptionsOf(
  tls: EndpointTls | undefined,
  clientKey: string | undefined,
  publicCas: readonly string[],
): EndpointTlsOptions | undefined {
  if (tls === undefined) return undefined;
  const id = createHash('sha256')
    .update(
      JSON.stringify([tls.clientCertificate, tls.sealedClientKey, tls.caCertificates, tls.trustPublicCas]),
    )
    .digest('base64url');
  const own = tls.caCertificates === undefined ? [] : [tls.caCertificates];
  return {
    id,
    ...(tls.clientCertificate === undefined || clientKey === undefined
      ? {}
      : {
          cert: tls.clientCertificate,
          key: clientKey,
          certificateExpiresAt: expiryOf(leafOf(tls.clientCertificate)).getTime(),
        }),
    ...(own.length === 0 && tls.trustPublicCas !== false
      ? {}
      : { ca: tls.trustPublicCas === false ? own : [...publicCas, ...own] }),
  };
}

/**
 * A webhook's TLS settings as stored (`destination.properties.tls`): the client certificate and
 * CAs checked against the stack's clock, the key sealed, and the summaries documents show taken as
 * "keep what is stored". Part of storing a destination (`stored-destination.ts`).
 */
import type { X509Certificate } from 'node:crypto';
import {
  caSummaries,
  leafOf,
  parseCertificates,
  parsePrivateKey,
  TLS_LIMITS,
  validityProblem,
} from '../delivery/rules/endpoint-tls';
import type { EndpointTls } from '../domain/model';
import { badRequest } from '../http/errors';
import type { SecretSealer } from '../platform/sealing';
import type { ClockDeps } from './deps';
import type { DestinationInput } from './destination-schema';

/**
 * The endpoint's TLS settings as stored. A client certificate given as PEM needs its key; both
 * must parse, the key must be the certificate's (unencrypted), and the certificate valid now; the
 * key is sealed (503 without a sealing key). Given as the summary documents show, the stored
 * certificate and key are kept (its fingerprint must be theirs); a key given beside it replaces
 * the stored one. CA certificates likewise: a PEM bundle, every certificate valid now, at most
 * {@link TLS_LIMITS}`.caCertificates`; or the summaries, keeping the stored bundle. Only an https
 * endpoint has TLS; `trustPublicCas: false` needs CAs of its own. Every refusal is a 400 naming
 * the field.
 */
export async function tlsOf(
  input: Pick<DestinationInput, 'tls' | 'endpointUrl'>,
  deps: ClockDeps,
  existing: EndpointTls | undefined,
  field: string,
  /** The stack's sealer, or the 503 naming the field when it has no key. */
  sealer: () => SecretSealer,
): Promise<EndpointTls | undefined> {
  const { tls } = input;
  if (tls === undefined) return undefined;
  if (!input.endpointUrl.startsWith('https:')) {
    throw badRequest(`${field}: is for https endpoints; ${input.endpointUrl} is not one.`);
  }
  const now = deps.clock.now();
  const stored: { -readonly [K in keyof EndpointTls]: EndpointTls[K] } = {};
  const { clientCertificate, clientKey } = tls;
  if (clientCertificate === undefined) {
    if (clientKey !== undefined) {
      throw badRequest(`${field}.clientKey: is the client certificate's key; give clientCertificate too.`);
    }
  } else {
    let certificatePem: string;
    if (typeof clientCertificate === 'string') {
      if (clientKey === undefined) {
        throw badRequest(`${field}.clientKey: is required with clientCertificate (its private key, PEM).`);
      }
      const parsed = parseCertificates(clientCertificate);
      if ('problem' in parsed) throw badRequest(`${field}.clientCertificate: ${parsed.problem}.`);
      const problem = validityProblem(parsed.certificates[0] as X509Certificate, now);
      if (problem !== undefined) throw badRequest(`${field}.clientCertificate: ${problem}.`);
      certificatePem = parsed.certificates.map((certificate) => certificate.toString()).join('');
    } else {
      const kept = existing?.clientCertificate;
      const keptFingerprint = kept === undefined ? undefined : leafOf(kept).fingerprint256;
      if (kept === undefined || keptFingerprint !== clientCertificate.keep) {
        throw badRequest(
          `${field}.clientCertificate: ${kept === undefined ? 'the subscription has no client certificate' : `the subscription's client certificate is ${keptFingerprint}`}, not ${clientCertificate.keep}: give the certificate as PEM, with clientKey, to set one.`,
        );
      }
      certificatePem = kept;
    }
    stored.clientCertificate = certificatePem;
    if (clientKey === undefined) {
      stored.sealedClientKey = existing?.sealedClientKey;
    } else {
      const key = parsePrivateKey(clientKey);
      if ('problem' in key) throw badRequest(`${field}.clientKey: ${key.problem}.`);
      if (!leafOf(certificatePem).checkPrivateKey(key.key)) {
        throw badRequest(
          `${field}.clientKey: is not the private key of the client certificate (${leafOf(certificatePem).fingerprint256}).`,
        );
      }
      stored.sealedClientKey = await sealer().seal(clientKey);
    }
  }
  const { caCertificates } = tls;
  if (typeof caCertificates === 'string') {
    const parsed = parseCertificates(caCertificates);
    if ('problem' in parsed) throw badRequest(`${field}.caCertificates: ${parsed.problem}.`);
    if (parsed.certificates.length > TLS_LIMITS.caCertificates) {
      throw badRequest(
        `${field}.caCertificates: holds at most ${TLS_LIMITS.caCertificates} certificates (got ${parsed.certificates.length}).`,
      );
    }
    for (const [index, certificate] of parsed.certificates.entries()) {
      const problem = validityProblem(certificate, now);
      if (problem !== undefined)
        throw badRequest(`${field}.caCertificates: certificate ${index + 1} ${problem}.`);
    }
    stored.caCertificates = parsed.certificates.map((certificate) => certificate.toString()).join('');
  } else if (caCertificates !== undefined) {
    const kept = existing?.caCertificates === undefined ? [] : caSummaries(existing.caCertificates);
    const keptFingerprints = kept.map((summary) => summary.sha256Fingerprint);
    if (keptFingerprints.join(',') !== caCertificates.keep.join(',') || kept.length === 0) {
      throw badRequest(
        `${field}.caCertificates: ${kept.length === 0 ? 'the subscription has no CA certificates' : `the subscription's CA certificates are ${keptFingerprints.join(', ')}`}, not the ones given: give a PEM bundle to set them.`,
      );
    }
    stored.caCertificates = existing?.caCertificates;
  }
  if (tls.trustPublicCas === false) {
    if (stored.caCertificates === undefined) {
      throw badRequest(
        `${field}.trustPublicCas: false trusts only this endpoint's own CAs; give caCertificates too.`,
      );
    }
    stored.trustPublicCas = false;
  }
  const settings = Object.fromEntries(
    Object.entries(stored).filter(([, value]) => value !== undefined),
  ) as EndpointTls;
  return Object.keys(settings).length === 0 ? undefined : settings;
}

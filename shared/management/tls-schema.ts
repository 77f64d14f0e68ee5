/**
 * `destination.properties.tls` as the API takes it: PEM texts, or the summaries documents show
 * (which keep what is stored), turned into the input `stored-tls.ts` checks and stores.
 */
import { z } from 'zod';
import { TLS_LIMITS } from '../delivery/rules/endpoint-tls';

/** PEM text of at most `maxBytes` (its contents are checked when it is stored: `stored-destination.ts`). */
const pemText = (maxBytes: number) =>
  z
    .string({ error: 'must be PEM text' })
    .min(1, { error: 'must not be empty' })
    .refine((value) => Buffer.byteLength(value) <= maxBytes, {
      error: `is at most ${maxBytes / 1024} KB of PEM text`,
    });

/** A certificate as documents show it, sent back: keeps the stored one with that fingerprint. */
const keptCertificateSchema = z.looseObject({
  sha256Fingerprint: z.string({ error: 'is required to keep a certificate and must be a string' }),
});

/**
 * `destination.properties.tls`: a client certificate (`clientCertificate` and `clientKey` as PEM)
 * presented when the endpoint asks for one, CA certificates (`caCertificates`, a PEM bundle)
 * trusted for this endpoint, and `trustPublicCas: false` to trust only those. A document sent back
 * keeps what it shows: `clientCertificate` as its summary (`{"sha256Fingerprint"}`) keeps the
 * stored certificate and key, `caCertificates` as its summaries keeps the stored bundle.
 */
export const tlsInputSchema = z
  .strictObject(
    {
      clientCertificate: z
        .union([pemText(TLS_LIMITS.clientCertificateBytes), keptCertificateSchema], {
          error:
            'must be a PEM certificate, or {"sha256Fingerprint": ...} to keep the one the subscription has',
        })
        .optional(),
      clientKey: pemText(TLS_LIMITS.clientKeyBytes).nullable().optional(),
      caCertificates: z
        .union(
          [
            pemText(TLS_LIMITS.caCertificatesBytes),
            z.array(keptCertificateSchema).max(TLS_LIMITS.caCertificates, {
              error: `holds at most ${TLS_LIMITS.caCertificates} certificates`,
            }),
          ],
          {
            error:
              'must be a PEM bundle of CA certificates, or the summaries documents show to keep the ones the subscription has',
          },
        )
        .optional(),
      trustPublicCas: z.boolean({ error: 'must be true or false' }).optional(),
    },
    { error: 'must be an object' },
  )
  .nullable()
  .optional();

/** `tls` as asked: PEM texts, or the stored ones kept (by fingerprint). */
export interface TlsInput {
  clientCertificate?: string | { keep: string };
  clientKey?: string;
  caCertificates?: string | { keep: string[] };
  trustPublicCas?: boolean;
}

/** A parsed `tls` as input: kept certificates by their fingerprints, a `null` key as none given. */
export function tlsInputOf(tls: NonNullable<z.infer<typeof tlsInputSchema>>): TlsInput {
  const { clientCertificate, clientKey, caCertificates, trustPublicCas } = tls;
  return {
    ...(clientCertificate === undefined
      ? {}
      : {
          clientCertificate:
            typeof clientCertificate === 'string'
              ? clientCertificate
              : { keep: clientCertificate.sha256Fingerprint },
        }),
    ...(clientKey === undefined || clientKey === null ? {} : { clientKey }),
    ...(caCertificates === undefined
      ? {}
      : {
          caCertificates:
            typeof caCertificates === 'string'
              ? caCertificates
              : { keep: caCertificates.map((certificate) => certificate.sha256Fingerprint) },
        }),
    ...(trustPublicCas === undefined ? {} : { trustPublicCas }),
  };
}

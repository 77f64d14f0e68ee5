/**
 * What a declared webhook subscription authenticates with, as its props take it and as the admin
 * API's body names it: endpoint auth (an OAuth 2.0 client, SigV4) and its own TLS settings. The
 * secrets (a client secret, a client certificate's key) stay in Secrets Manager: the body never
 * carries them; the management function reads them by ARN when the subscription is put.
 */
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';

/** How a declared subscription's requests authenticate to its endpoint. */
export type DeclaredEndpointAuth =
  | {
      readonly type: 'OAuth2ClientCredentials';
      readonly tokenUrl: string;
      readonly clientId: string;
      /** The client secret's text; the management function is granted to read it. */
      readonly clientSecret: ISecret;
      readonly scope?: string;
    }
  | { readonly type: 'AwsSigV4'; readonly service: 'execute-api' | 'lambda'; readonly region?: string };

/** A declared webhook's client certificate and CAs (`destination.properties.tls`). */
export interface DeclaredEndpointTls {
  /** The client certificate and its chain, PEM; given with `clientKey`. */
  readonly clientCertificate?: string;
  /** A secret whose text is the client certificate's private key (PEM, unencrypted). */
  readonly clientKey?: ISecret;
  /** CA certificates (a PEM bundle) trusted for the endpoint. */
  readonly caCertificates?: string;
  /** `false`: only `caCertificates` are trusted. Default true. */
  readonly trustPublicCas?: boolean;
}

/** The TLS settings as the admin API's body names them, without the key (set from its ARN on deploy). */
export const tlsBody = (tls: DeclaredEndpointTls) => ({
  ...(tls.clientCertificate === undefined ? {} : { clientCertificate: tls.clientCertificate }),
  ...(tls.caCertificates === undefined ? {} : { caCertificates: tls.caCertificates }),
  ...(tls.trustPublicCas === undefined ? {} : { trustPublicCas: tls.trustPublicCas }),
});

/** The auth as the admin API's body names it, without the client secret (set from its ARN on deploy). */
export const authBody = (auth: DeclaredEndpointAuth) =>
  auth.type === 'AwsSigV4'
    ? { ...auth }
    : {
        type: auth.type,
        tokenUrl: auth.tokenUrl,
        clientId: auth.clientId,
        ...(auth.scope === undefined ? {} : { scope: auth.scope }),
      };

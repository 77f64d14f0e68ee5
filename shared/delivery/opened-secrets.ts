/**
 * A subscription's secrets as the delivery function sends them: custom header values, the
 * endpoint URL's query string, signing secrets and an OAuth 2.0 client secret and token URL's query string, sealed at rest, opened once per subscription version and kept.
 * Opening rejects when a secret cannot be opened (no key, or the key store is down): the job's
 * message then comes back and is tried again, as when any dependency fails.
 */
import { rootCertificates } from 'node:tls';
import {
  type Destination,
  isWebhook,
  type Subscription,
  webhookAuthOf,
  webhookSigningOf,
  webhookTlsOf,
} from '../domain/model';
import { LoadedOnce } from '../platform/cache';
import type { SecretOpener } from '../platform/sealing';
import type { ClientOpener } from './endpoint-auth';
import { type EndpointTlsOptions, endpointTlsOptionsOf } from './rules/endpoint-tls';
import { type CustomHeader, customHeadersOf } from './rules/headers';
import { queryValuesOf } from './rules/redact';
import { openEndpointUrl, storedTokenUrlOf } from './sealed-endpoint';
import { MAX_PREVIOUS_SIGNING_SECRETS } from './signing';

/** Subscription versions whose opened secrets a worker keeps (a bound, not a tuning knob). */
const MAX_OPENED_VERSIONS = 1000;

/** Opened values by subscription version; a failed opening is forgotten, so it is tried again. */
class OpenedByVersion<T> {
  private readonly opened = new LoadedOnce<T>(MAX_OPENED_VERSIONS);

  get(subscription: Subscription, open: () => Promise<T>): Promise<T> {
    const key = `${subscription.topic.toLowerCase()}/${subscription.name.toLowerCase()}#${subscription.version}`;
    return this.opened.get(key, open);
  }
}

/**
 * Whether a subscription's requests carry a secret: a secret custom header, a sealed query
 * string, signing or auth. Without one, nothing of an attempt needs redacting.
 */
export function carriesSecrets(subscription: Subscription): boolean {
  const { destination } = subscription;
  if (!isWebhook(destination)) return false;
  return (
    destination.sealedQuery !== undefined ||
    destination.signing !== undefined ||
    destination.auth !== undefined ||
    (destination.deliveryAttributeMappings ?? []).some(
      (mapping) => mapping.type === 'Static' && mapping.isSecret,
    )
  );
}

/** A signing secret opened, with when it stops being honoured (absent: the current one). */
export interface OpenedSigningSecret {
  secret: string;
  expiresAt?: number;
}

/**
 * The TLS options a destination's connections are made with, its client key opened; `undefined`
 * without TLS settings of its own. Rejects when the key can't be opened.
 */
export async function openEndpointTls(
  destination: Destination,
  opener: SecretOpener | undefined,
): Promise<EndpointTlsOptions | undefined> {
  const tls = webhookTlsOf(destination);
  if (tls === undefined) return undefined;
  if (tls.sealedClientKey === undefined) return endpointTlsOptionsOf(tls, undefined, rootCertificates);
  if (opener === undefined) {
    throw new Error("a client certificate's key cannot be opened: this function has no sealing key");
  }
  return endpointTlsOptionsOf(tls, await opener.open(tls.sealedClientKey), rootCertificates);
}

export class OpenedSecrets {
  private readonly headers = new OpenedByVersion<readonly CustomHeader[]>();
  private readonly urls = new OpenedByVersion<string>();
  private readonly signing = new OpenedByVersion<readonly OpenedSigningSecret[]>();
  private readonly clients = new OpenedByVersion<string>();
  private readonly tokenUrls = new OpenedByVersion<string>();
  private readonly tls = new OpenedByVersion<EndpointTlsOptions | undefined>();

  /** Without a sealer, nothing sealed can be opened (subscriptions without secrets still work). */
  constructor(private readonly sealer: SecretOpener | undefined) {}

  /** The subscription's custom headers with secret values opened. */
  customHeaders(subscription: Subscription): Promise<readonly CustomHeader[]> {
    const mappings = subscription.destination.deliveryAttributeMappings ?? [];
    if (mappings.length === 0) return Promise.resolve([]);
    return this.headers.get(subscription, () =>
      customHeadersOf(mappings, (sealed) => {
        if (this.sealer === undefined) {
          throw new Error('a secret delivery header cannot be opened: this function has no sealing key');
        }
        return this.sealer.open(sealed);
      }),
    );
  }

  /**
   * The secrets the subscription's requests are signed with at `nowMs`: the current one and the
   * earlier ones not yet expired, the newest {@link MAX_PREVIOUS_SIGNING_SECRETS} of them (a
   * subscription rotated before that limit may hold more: the oldest sign no more); none when it
   * does not sign.
   */
  async signingSecrets(subscription: Subscription, nowMs: number): Promise<string[]> {
    const { destination } = subscription;
    const signing = webhookSigningOf(destination);
    if (signing === undefined) return [];
    const opened = await this.signing.get(subscription, async () => {
      const sealer = this.sealer;
      if (sealer === undefined) {
        throw new Error('a signing secret cannot be opened: this function has no sealing key');
      }
      return Promise.all(
        signing.secrets.map(async ({ sealed, expiresAt }) => ({
          secret: await sealer.open(sealed),
          ...(expiresAt === undefined ? {} : { expiresAt }),
        })),
      );
    });
    return opened
      .filter((entry) => entry.expiresAt === undefined || entry.expiresAt > nowMs)
      .slice(0, 1 + MAX_PREVIOUS_SIGNING_SECRETS)
      .map((entry) => entry.secret);
  }

  /** The subscription's OAuth 2.0 client secret, opened. */
  clientSecret(subscription: Subscription): Promise<string> {
    const { destination } = subscription;
    const auth = webhookAuthOf(destination);
    if (auth?.type !== 'OAuth2ClientCredentials') {
      return Promise.reject(new Error('the subscription has no OAuth 2.0 client'));
    }
    return this.clients.get(subscription, () =>
      this.sealer === undefined
        ? Promise.reject(new Error('a client secret cannot be opened: this function has no sealing key'))
        : this.sealer.open(auth.sealedClientSecret),
    );
  }

  /** The subscription's OAuth 2.0 client as token requests need it: its secret and token URL, opened. */
  client(subscription: Subscription): ClientOpener {
    return {
      secret: () => this.clientSecret(subscription),
      tokenUrl: () => this.tokenUrl(subscription),
    };
  }

  /** The subscription's whole OAuth 2.0 token URL, its sealed query string opened. */
  tokenUrl(subscription: Subscription): Promise<string> {
    const auth = webhookAuthOf(subscription.destination);
    if (auth?.type !== 'OAuth2ClientCredentials') {
      return Promise.reject(new Error('the subscription has no OAuth 2.0 client'));
    }
    if (auth.sealedTokenQuery === undefined) return Promise.resolve(auth.tokenUrl);
    return this.tokenUrls.get(subscription, () =>
      this.sealer === undefined
        ? Promise.reject(
            new Error('a sealed token URL query string cannot be opened: this function has no sealing key'),
          )
        : openEndpointUrl(storedTokenUrlOf(auth), this.sealer),
    );
  }

  /**
   * The subscription's secrets its requests were made with, opened, for the message log to leave
   * out (`rules/redact.ts`): its secret header values, the values of its endpoint URL's and token
   * URL's sealed query strings, its signing secrets (each one kept, their key alone too) and its
   * OAuth 2.0 client secret. Each was opened when the request was made, so this takes what is kept.
   * The credentials made per request (a token, a signature) are read from the request itself.
   */
  async known(subscription: Subscription): Promise<string[]> {
    const { destination } = subscription;
    if (!isWebhook(destination) || !carriesSecrets(subscription)) return [];
    const mappings = destination.deliveryAttributeMappings ?? [];
    const known: string[] = [];
    if (mappings.some((mapping) => mapping.type === 'Static' && mapping.isSecret)) {
      const headers = await this.customHeaders(subscription);
      mappings.forEach((mapping, index) => {
        const header = headers[index];
        if (mapping.type === 'Static' && mapping.isSecret && header?.kind === 'static')
          known.push(header.value);
      });
    }
    if (destination.sealedQuery !== undefined)
      known.push(...queryValuesOf(await this.endpointUrl(subscription)));
    if (destination.signing !== undefined) {
      // Every one opened, expired or not: a secret that no longer signs is a secret still.
      for (const secret of await this.signingSecrets(subscription, Number.NEGATIVE_INFINITY)) {
        known.push(secret, secret.replace(/^whsec_/, ''));
      }
    }
    const auth = webhookAuthOf(destination);
    if (auth?.type === 'OAuth2ClientCredentials') {
      known.push(await this.clientSecret(subscription));
      if (auth.sealedTokenQuery !== undefined)
        known.push(...queryValuesOf(await this.tokenUrl(subscription)));
    }
    return known;
  }

  /** The subscription's TLS options, its client key opened; `undefined` without settings of its own. */
  tlsOptions(subscription: Subscription): Promise<EndpointTlsOptions | undefined> {
    if (webhookTlsOf(subscription.destination) === undefined) return Promise.resolve(undefined);
    return this.tls.get(subscription, () => openEndpointTls(subscription.destination, this.sealer));
  }

  /** The subscription's whole endpoint URL, its sealed query string opened. */
  endpointUrl(subscription: Subscription): Promise<string> {
    const { destination } = subscription;
    if (!isWebhook(destination)) return Promise.resolve(destination.resourceArn);
    if (destination.sealedQuery === undefined) return Promise.resolve(destination.endpointUrl);
    return this.urls.get(subscription, () =>
      this.sealer === undefined
        ? Promise.reject(
            new Error('a sealed endpoint query string cannot be opened: this function has no sealing key'),
          )
        : openEndpointUrl(destination, this.sealer),
    );
  }
}

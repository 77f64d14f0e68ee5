/**
 * Runs the endpoint validation handshake for a validation job: asks the subscription's endpoint
 * for its consent (the rules in `rules/handshake.ts`) and records the answer on the subscription.
 * Consent makes the subscription `Succeeded`, so publishers start matching events to it; without
 * it the subscription waits for a GET of its validation URL until the window closes.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ValidationJob } from '../domain/delivery';
import {
  type EndpointValidation,
  endpointIdOf,
  isWebhook,
  nextSubscriptionVersion,
  type Subscription,
  webhookAuthOf,
} from '../domain/model';
import { topicIdOf, topicResourceId } from '../domain/names';
import type { LoggerLike } from '../observability/logging';
import type { Clock } from '../platform/clock';
import type { SecretOpener } from '../platform/sealing';
import type { SubscriptionStore } from '../storage/subscriptions';
import { ConcurrentChangeError } from '../storage/table';
import { type EndpointAuth, EndpointAuthError } from './endpoint-auth';
import { openEndpointTls } from './opened-secrets';
import {
  type HandshakeAnswer,
  type HandshakeRequest,
  handshakeKindOf,
  handshakeRequest,
  judgeAnswer,
} from './rules/handshake';
import { NoSealingKeyError, openEndpointUrl, storedTokenUrlOf } from './sealed-endpoint';

export interface HandshakeExchange {
  exchange(request: HandshakeRequest): Promise<HandshakeAnswer | { error: string }>;
}

export interface EndpointHandshakeDeps {
  subscriptions: Pick<SubscriptionStore, 'get' | 'put'>;
  exchange: HandshakeExchange;
  clock: Clock;
  logger: LoggerLike;
  newId: () => string;
  /**
   * Opens an endpoint URL's sealed query string. Without one (or when it fails), the handshake of
   * such an endpoint fails and its job comes back, as when a dependency is down.
   */
  opener?: SecretOpener;
  /**
   * Puts the subscription's credentials (`destination.auth`) on the handshake, as on its
   * deliveries: an endpoint behind auth is asked as it will be sent to.
   */
  auth?: EndpointAuth;
}

/** What a validation job came to. */
export type HandshakeReport = 'validated' | 'refused' | 'stale';

/** Writes of the result tried when another change raced them. */
const MAX_WRITE_TRIES = 3;

export class EndpointHandshake {
  constructor(private readonly deps: EndpointHandshakeDeps) {}

  async run(job: ValidationJob): Promise<HandshakeReport> {
    const key = validationKeyOf(job);
    const subscription = await waitingSubscription(this.deps.subscriptions, key);
    if (subscription === undefined) return 'stale';
    const validation = subscription.validation as EndpointValidation;
    const nowMs = this.deps.clock.now();
    // A job that waited past the window asks too late: the subscription has failed.
    if (nowMs > validation.expiresAt) return 'stale';
    // Only a webhook is validated (an AWS resource never waits for a handshake).
    const { destination } = subscription;
    if (!isWebhook(destination)) return 'stale';
    const input = {
      kind: handshakeKindOf(subscription.eventDeliverySchema),
      // The validation is of the subscription's current endpoint (`waitingSubscription`): its
      // whole URL, the sealed query string opened.
      endpointUrl: await openEndpointUrl(destination, this.deps.opener),
      subscriptionName: subscription.name,
      topicId: topicResourceId(subscription.topic),
      code: validation.code,
      validationUrl: job.validationUrl,
      origin: new URL(job.validationUrl).host,
      eventId: this.deps.newId(),
      nowMs,
    };
    const answer = await this.ask(subscription, handshakeRequest(input));
    const verdict =
      'error' in answer
        ? { agreed: false as const, reason: `The endpoint could not be reached: ${answer.error}` }
        : judgeAnswer(input, answer);
    const recorded =
      (await updateValidation(
        this.deps.subscriptions,
        key,
        (current) =>
          verdict.agreed
            ? { ...current, validatedAt: this.deps.clock.now() }
            : { ...current, handshakeError: verdict.reason },
        () => this.deps.clock.now(),
      )) !== undefined;
    this.deps.logger.info('endpoint handshake answered', {
      topic: key.topic,
      subscription: key.subscription,
      kind: input.kind,
      agreed: verdict.agreed,
      ...(verdict.agreed ? {} : { reason: verdict.reason }),
      recorded,
    });
    if (!recorded) return 'stale';
    return verdict.agreed ? 'validated' : 'refused';
  }

  /** The handshake request, with the subscription's credentials when it has `auth`. */
  private async ask(
    subscription: Subscription,
    request: HandshakeRequest,
  ): Promise<HandshakeAnswer | { error: string }> {
    const { auth, opener, exchange } = this.deps;
    // Through the same client certificate and CAs deliveries use.
    const tls = await openEndpointTls(subscription.destination, opener).catch((error: unknown) => ({
      error: `the client certificate's key could not be opened: ${(error as Error).message}`,
    }));
    if (tls !== undefined && 'error' in tls) return tls;
    if (tls !== undefined) request = { ...request, tls };
    const endpointAuth = webhookAuthOf(subscription.destination);
    if (endpointAuth === undefined) return exchange.exchange(request);
    if (auth === undefined) return { error: 'this worker cannot put credentials on requests' };
    try {
      const authorized = await auth.authorize(subscription, request, {
        secret: () => {
          if (endpointAuth.type !== 'OAuth2ClientCredentials' || opener === undefined) {
            return Promise.reject(new EndpointAuthError('a client secret cannot be opened: no sealing key'));
          }
          return opener.open(endpointAuth.sealedClientSecret);
        },
        tokenUrl: () => {
          if (endpointAuth.type !== 'OAuth2ClientCredentials') {
            return Promise.reject(new EndpointAuthError('the subscription has no OAuth 2.0 client'));
          }
          return openEndpointUrl(storedTokenUrlOf(endpointAuth), opener).catch((error: unknown) => {
            throw error instanceof NoSealingKeyError
              ? new EndpointAuthError("the token URL's query string cannot be opened: no sealing key")
              : error;
          });
        },
      });
      return await exchange.exchange(authorized);
    } catch (error) {
      if (!(error instanceof EndpointAuthError)) throw error;
      return { error: error.message };
    }
  }
}

/** Which validation a handshake answer or a validation URL is about. */
export interface ValidationKey {
  /** The topic as storage names it (`topicIdOf`). */
  topic: string;
  subscription: string;
  /** Set when the key is a job's: a subscription with another uid is another subscription. */
  uid?: string;
  code: string;
}

/** The validation a job is about. */
export const validationKeyOf = ({ target, code }: ValidationJob): ValidationKey => ({
  topic: topicIdOf(target.topic),
  subscription: target.subscription,
  ...(target.uid === undefined ? {} : { uid: target.uid }),
  code,
});

/**
 * The subscription whose validation still waits for `key.code`: `undefined` once it was deleted,
 * re-created, aimed elsewhere, validated, or given a newer validation.
 */
export async function waitingSubscription(
  subscriptions: Pick<SubscriptionStore, 'get'>,
  key: ValidationKey,
): Promise<Subscription | undefined> {
  const subscription = await subscriptions.get(key.topic, key.subscription, { consistent: true });
  if (subscription === undefined) return undefined;
  if (key.uid !== undefined && subscription.uid !== key.uid) return undefined;
  const validation = subscription.validation;
  if (validation === undefined || validation.validatedAt !== undefined) return undefined;
  if (!sameSecret(validation.code, key.code)) return undefined;
  if (validation.endpointUrl !== endpointIdOf(subscription.destination)) return undefined;
  return subscription;
}

/**
 * Writes `change` over the validation waiting for `key.code`, as a new subscription version (so
 * publishers and workers read it again). `undefined` when that validation is no longer waiting.
 */
export async function updateValidation(
  subscriptions: Pick<SubscriptionStore, 'get' | 'put'>,
  key: ValidationKey,
  change: (validation: EndpointValidation) => EndpointValidation,
  now: () => number,
): Promise<Subscription | undefined> {
  for (let tries = 1; ; tries++) {
    const subscription = await waitingSubscription(subscriptions, key);
    if (subscription === undefined) return undefined;
    const updated = withValidation(
      subscription,
      change(subscription.validation as EndpointValidation),
      now(),
    );
    try {
      await subscriptions.put(updated, subscription.version);
      return updated;
    } catch (error) {
      if (!(error instanceof ConcurrentChangeError) || tries >= MAX_WRITE_TRIES) throw error;
    }
  }
}

/** Compares codes in constant time. */
function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The subscription with another validation state, as a new version. */
export const withValidation = (
  subscription: Subscription,
  validation: EndpointValidation,
  nowMs: number,
): Subscription => ({
  ...subscription,
  validation,
  version: nextSubscriptionVersion(subscription, nowMs),
  updatedAt: new Date(nowMs).toISOString(),
});

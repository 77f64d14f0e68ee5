/**
 * A subscription's signing secrets (Standard Webhooks, `shared/delivery/signing.ts`):
 * `POST <subscription>/getSigningSecret` shows them, `POST <subscription>/rotateSigningSecret`
 * makes a new one current and keeps honouring the old one for a while (earlier ones at most as
 * long, and at most {@link MAX_PREVIOUS_SIGNING_SECRETS} of them), so receivers can switch without
 * losing a delivery. Classic and namespace subscriptions share them.
 */

import { z } from 'zod';
import {
  generateSigningSecret,
  MAX_PREVIOUS_SIGNING_SECRETS,
  SIGNING_SCHEMES,
  type SigningScheme,
  schemeOf,
  signingSecretProblem,
} from '../delivery/signing';
import { type Signing, type Subscription, webhookSigningOf } from '../domain/model';
import { jsonResult, publicBaseUrl } from '../http/api-gateway';
import { badRequest, conflict } from '../http/errors';
import type { SealingDeps, UrlDeps } from './deps';
import { optionalBody } from './http-helpers';
import type { Operations, SubscriptionFinder } from './operation';
import { invalidBody } from './request-body';
import { sealerFor, signingSecretEntry } from './stored-destination';
import { type SubscriptionOpsDeps, saveSubscription } from './subscription-store-ops';

/**
 * What the signing-secret routes use: the sealing key, saving the subscription (a rotation is a
 * change of it), and the public URL a save's handshake would name.
 */
export type SigningRouteDeps = SealingDeps & SubscriptionOpsDeps & UrlDeps;

/** How long an earlier secret is honoured after a rotation unless the request says: 24 hours. */
export const DEFAULT_KEEP_PREVIOUS_MINUTES = 24 * 60;
/** The longest an earlier secret may be honoured after a rotation: 7 days. */
export const MAX_KEEP_PREVIOUS_MINUTES = 7 * 24 * 60;

const iso = (ms: number) => new Date(ms).toISOString();

/** The subscription's signing, or the 409 saying it does not sign. */
function signingOf(subscription: Subscription): Signing {
  const { destination } = subscription;
  const signing = webhookSigningOf(destination);
  if (signing === undefined) {
    throw conflict(
      `The event subscription '${subscription.name}' does not sign its deliveries; set destination.properties.signing to {"generate": true} first.`,
    );
  }
  return signing;
}

/**
 * The rotate request: `{"secret"?: "whsec_..." | "whsk_...", "scheme"?: "v1" | "v1a",
 * "keepPreviousForMinutes"?: 0..10080}` (or no body). Without a secret one is made, in `scheme`
 * (default: the current secret's).
 */
export const rotateBodySchema = z.strictObject({
  scheme: z.enum(SIGNING_SCHEMES, { error: "must be 'v1' (HMAC-SHA256) or 'v1a' (Ed25519)" }).optional(),
  secret: z
    .string({ error: 'must be a string' })
    .superRefine((secret, ctx) => {
      const problem = signingSecretProblem(secret);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  keepPreviousForMinutes: z
    .number({ error: `must be a whole number from 0 to ${MAX_KEEP_PREVIOUS_MINUTES}` })
    .int({ error: `must be a whole number from 0 to ${MAX_KEEP_PREVIOUS_MINUTES}` })
    .min(0, { error: `must be a whole number from 0 to ${MAX_KEEP_PREVIOUS_MINUTES}` })
    .max(MAX_KEEP_PREVIOUS_MINUTES, {
      error: `must be a whole number from 0 to ${MAX_KEEP_PREVIOUS_MINUTES}`,
    })
    .default(DEFAULT_KEEP_PREVIOUS_MINUTES),
});

function parseRotateBody(body: unknown): {
  secret?: string | undefined;
  scheme?: SigningScheme | undefined;
  keepPreviousForMinutes: number;
} {
  const parsed = rotateBodySchema.safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error, 'rotation request');
  return parsed.data;
}

/**
 * What a receiver verifies with, for each secret in force at `nowMs`: a v1 secret opened
 * (`secret`), a v1a key's public key (`publicKey`; its private key is never shown):
 * `{"scheme", "secret" | "publicKey", "createdTime", "previousSecrets": [{..., "validUntil"}]}`.
 */
async function secretsDocument(deps: SealingDeps, signing: Signing, nowMs: number) {
  const sealer = sealerFor(deps, 'secret', 'signing secrets');
  const verifyWith = async (entry: Signing['secrets'][number]) =>
    entry.publicKey === undefined
      ? { scheme: 'v1', secret: await sealer.open(entry.sealed) }
      : { scheme: 'v1a', publicKey: entry.publicKey };
  const [current, ...previous] = signing.secrets as [Signing['secrets'][number], ...Signing['secrets']];
  return {
    ...(await verifyWith(current)),
    createdTime: iso(current.createdAt),
    previousSecrets: await Promise.all(
      previous
        .filter((entry) => (entry.expiresAt ?? 0) > nowMs)
        .map(async (entry) => ({ ...(await verifyWith(entry)), validUntil: iso(entry.expiresAt ?? 0) })),
    ),
  };
}

/**
 * Refuses a rotation that would leave more than {@link MAX_PREVIOUS_SIGNING_SECRETS} earlier
 * secrets honoured (`kept`, each with its end): a 409 saying when enough of them will have
 * expired, or that `keepPreviousForMinutes: 0` ends them all now. None is dropped early: a
 * receiver may still be verifying with the oldest, and only its admin knows when it stops.
 */
function checkPreviousLimit(kept: readonly { expiresAt: number }[], nowMs: number): void {
  if (kept.length <= MAX_PREVIOUS_SIGNING_SECRETS) return;
  const ends = kept.map((entry) => entry.expiresAt).sort((a, b) => a - b);
  const until = ends[kept.length - MAX_PREVIOUS_SIGNING_SECRETS - 1] as number;
  const waitMinutes = Math.ceil((until - nowMs) / 60_000);
  throw conflict(
    `keepPreviousForMinutes: this rotation would leave ${kept.length} earlier signing secrets honoured, and at most ${MAX_PREVIOUS_SIGNING_SECRETS} are (every request carries a signature by each, which receivers try in turn). Rotate again after ${iso(until)} (in ${waitMinutes} minute${waitMinutes === 1 ? '' : 's'}), when the oldest has expired, or now with keepPreviousForMinutes 0, which ends every earlier secret at once.`,
  );
}

/** The signing-secret routes on the subscriptions under `subscriptionPath`. */
export function signingOperations<D>(
  subscriptionPath: string,
  find: SubscriptionFinder<D>,
): Operations<D & SigningRouteDeps> {
  return {
    [`POST ${subscriptionPath}/getSigningSecret`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      return jsonResult(200, await secretsDocument(deps, signingOf(subscription), deps.clock.now()));
    },

    [`POST ${subscriptionPath}/rotateSigningSecret`]: async (event, deps) => {
      const found = await find(event, deps, { consistent: true });
      signingOf(found);
      const request = parseRotateBody(optionalBody(event));
      if (
        request.secret !== undefined &&
        request.scheme !== undefined &&
        schemeOf(request.secret) !== request.scheme
      ) {
        throw badRequest(
          `scheme: the secret given is a ${schemeOf(request.secret)} secret, not ${request.scheme}; leave scheme out or give a secret of it.`,
        );
      }
      const sealer = sealerFor(deps, 'secret', 'signing secrets');
      const { subscription } = await saveSubscription(
        deps,
        found.topic,
        found.name,
        async (existing) => {
          if (existing === undefined)
            throw conflict(`The event subscription '${found.name}' was deleted meanwhile.`);
          const now = deps.clock.now();
          const [current, ...earlier] = signingOf(existing).secrets;
          // Every earlier secret is honoured at most `keepPreviousForMinutes` more (0: none).
          const until = now + request.keepPreviousForMinutes * 60_000;
          const kept = [{ ...(current as Signing['secrets'][number]), expiresAt: until }, ...earlier]
            .map((entry) => ({ ...entry, expiresAt: Math.min(entry.expiresAt ?? until, until) }))
            .filter((entry) => entry.expiresAt > now);
          checkPreviousLimit(kept, now);
          const scheme =
            request.scheme ??
            ((current as Signing['secrets'][number]).publicKey === undefined ? 'v1' : 'v1a');
          const entry = await signingSecretEntry(
            sealer,
            request.secret ?? generateSigningSecret(scheme),
            now,
          );
          const {
            uid: _uid,
            version: _version,
            createdAt: _createdAt,
            updatedAt: _updatedAt,
            ...defined
          } = existing;
          return {
            ...defined,
            destination: {
              ...existing.destination,
              signing: { secrets: [entry, ...kept] },
            },
          };
        },
        publicBaseUrl(deps.publicUrl()),
      );
      return jsonResult(200, await secretsDocument(deps, signingOf(subscription), deps.clock.now()));
    },
  };
}

/**
 * Signed deliveries, as the Standard Webhooks specification has them: every request of a
 * subscription with a signing secret carries `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per secret
 * in force, space-separated), made by the `standardwebhooks` library itself so any of its
 * verifiers agrees. `webhook-id` is the delivery id, the same on every retry of the event, so a
 * receiver can deduplicate on it; a batch's is made from its events' delivery ids.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { DeliveryItem } from '../domain/delivery';

/** The prefix of a secret as Standard Webhooks writes it. */
export const SECRET_PREFIX = 'whsec_';
/** Key bytes of a generated secret. */
export const GENERATED_SECRET_BYTES = 32;
/** The key sizes a secret may have, in bytes (the specification asks for 24 to 64). */
export const SECRET_BYTES = { min: 24, max: 64 } as const;

/** A new secret: `whsec_` and 32 random bytes in base64. */
export const generateSigningSecret = (): string =>
  `${SECRET_PREFIX}${randomBytes(GENERATED_SECRET_BYTES).toString('base64')}`;

/**
 * Why `secret` is not a signing secret (`whsec_` and base64 of 24 to 64 bytes), or `undefined`
 * when it is one.
 */
export function signingSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return `must start with ${SECRET_PREFIX}`;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    return `must be ${SECRET_PREFIX} followed by base64`;
  }
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < SECRET_BYTES.min || bytes > SECRET_BYTES.max) {
    return `must hold ${SECRET_BYTES.min} to ${SECRET_BYTES.max} bytes of key (got ${bytes})`;
  }
  return undefined;
}

/**
 * The `webhook-id` of a request: its event's delivery id, or for a batch `batch_` and a hash of
 * its events' delivery ids (a retry of the same batch has the same id).
 */
export function webhookIdOf(items: readonly Pick<DeliveryItem, 'deliveryId'>[]): string {
  if (items.length === 1) return (items[0] as Pick<DeliveryItem, 'deliveryId'>).deliveryId;
  const hash = createHash('sha256');
  for (const item of items) hash.update(`${item.deliveryId}\n`);
  return `batch_${hash.digest('base64url').slice(0, 32)}`;
}

/**
 * The signature headers of a request with `body`, sent at `nowMs`: one `v1` signature per secret
 * (the current one first).
 */
export function signatureHeaders(
  secrets: readonly string[],
  id: string,
  nowMs: number,
  body: string,
): Record<string, string> {
  const at = new Date(Math.floor(nowMs / 1000) * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(at.getTime() / 1000),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}

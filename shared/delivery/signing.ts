/**
 * Signed deliveries, as the Standard Webhooks specification has them: every request of a
 * subscription with a signing secret carries `webhook-id`, `webhook-timestamp` and
 * `webhook-signature`, one signature per secret in force, space-separated:
 *
 * - `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` for a symmetric secret (`whsec_`), made
 *   by the `standardwebhooks` library itself so any of its verifiers agrees;
 * - `v1a,<base64 Ed25519 signature of the same>` for an asymmetric key (`whsk_` and the 32-byte
 *   seed; receivers verify with its public key, `whpk_`), the specification's optional scheme.
 *
 * `webhook-id` is the delivery id, the same on every retry of the event, so a receiver can
 * deduplicate on it; a batch's is made from its events' delivery ids.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  randomBytes,
  sign,
} from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { DeliveryItem } from '../domain/delivery';

/** The prefix of a secret as Standard Webhooks writes it. */
export const SECRET_PREFIX = 'whsec_';
/** Key bytes of a generated secret. */
export const GENERATED_SECRET_BYTES = 32;
/** The key sizes a secret may have, in bytes (the specification asks for 24 to 64). */
export const SECRET_BYTES = { min: 24, max: 64 } as const;

/**
 * Earlier signing secrets a subscription honours at most beside its current one. Every secret in
 * force adds a signature to every request (a `v1a` one about 90 characters), and Standard
 * Webhooks receivers try each signature in turn: hundreds of them make a header servers refuse
 * (431) and a check that costs as many HMACs or Ed25519 verifications. Three cover a rotation
 * begun while two others are still overlapping; a rotation that would keep more is refused.
 */
export const MAX_PREVIOUS_SIGNING_SECRETS = 3;

/** The prefixes of an asymmetric (Ed25519) key: the private key's seed, and the public key. */
export const PRIVATE_KEY_PREFIX = 'whsk_';
export const PUBLIC_KEY_PREFIX = 'whpk_';
/** Bytes of an Ed25519 seed and of its public key. */
const ED25519_KEY_BYTES = 32;
/** The signature schemes: `v1` (HMAC-SHA256, a shared secret) and `v1a` (Ed25519, a key pair). */
export const SIGNING_SCHEMES = ['v1', 'v1a'] as const;
export type SigningScheme = (typeof SIGNING_SCHEMES)[number];

/** A new secret of `scheme`: `whsec_` and 32 random bytes, or `whsk_` and an Ed25519 seed, in base64. */
export const generateSigningSecret = (scheme: SigningScheme = 'v1'): string =>
  scheme === 'v1a'
    ? `${PRIVATE_KEY_PREFIX}${randomBytes(ED25519_KEY_BYTES).toString('base64')}`
    : `${SECRET_PREFIX}${randomBytes(GENERATED_SECRET_BYTES).toString('base64')}`;

/** The scheme a secret signs with, by its prefix. */
export const schemeOf = (secret: string): SigningScheme =>
  secret.startsWith(PRIVATE_KEY_PREFIX) ? 'v1a' : 'v1';

/** DER of a PKCS #8 Ed25519 private key, before its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** Private keys made from seeds, by secret (a bound, not a tuning knob). */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 1000;

function privateKeyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    const seed = Buffer.from(secret.slice(PRIVATE_KEY_PREFIX.length), 'base64');
    key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** The public key (`whpk_`) of an Ed25519 private key (`whsk_`): what receivers verify with. */
export function publicKeyOf(secret: string): string {
  const der = createPublicKey(privateKeyOf(secret)).export({ format: 'der', type: 'spki' });
  return `${PUBLIC_KEY_PREFIX}${der.subarray(der.length - ED25519_KEY_BYTES).toString('base64')}`;
}

/**
 * Why `secret` is not a signing secret (`whsec_` and base64 of 24 to 64 bytes, or `whsk_` and
 * base64 of a 32-byte Ed25519 seed), or `undefined` when it is one.
 */
export function signingSecretProblem(secret: string): string | undefined {
  if (secret.startsWith(PRIVATE_KEY_PREFIX)) {
    const encoded = secret.slice(PRIVATE_KEY_PREFIX.length);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
      return `must be ${PRIVATE_KEY_PREFIX} followed by base64`;
    }
    const bytes = Buffer.from(encoded, 'base64').length;
    return bytes === ED25519_KEY_BYTES
      ? undefined
      : `must hold a ${ED25519_KEY_BYTES}-byte Ed25519 seed after ${PRIVATE_KEY_PREFIX} (got ${bytes} bytes)`;
  }
  if (!secret.startsWith(SECRET_PREFIX)) return `must start with ${SECRET_PREFIX} (or ${PRIVATE_KEY_PREFIX})`;
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

/** One signature of `id.timestamp.body`: `v1,` by the library for a `whsec_` secret, `v1a,` for a `whsk_` key. */
function signatureOf(secret: string, id: string, at: Date, body: string): string {
  if (schemeOf(secret) === 'v1') return new Webhook(secret).sign(id, at, body);
  const signed = sign(
    null,
    Buffer.from(`${id}.${at.getTime() / 1000}.${body}`, 'utf8'),
    privateKeyOf(secret),
  );
  return `v1a,${signed.toString('base64')}`;
}

/**
 * The signature headers of a request with `body`, sent at `nowMs`: one signature per secret
 * (the current one first), each in its secret's scheme.
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
    'webhook-signature': secrets.map((secret) => signatureOf(secret, id, at, body)).join(' '),
  };
}

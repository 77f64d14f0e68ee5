import { createHmac, createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  generateSigningSecret,
  publicKeyOf,
  schemeOf,
  signatureHeaders,
  signingSecretProblem,
  webhookIdOf,
} from '../../../shared/delivery/signing';

/** The Standard Webhooks specification's own example. */
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signed deliveries', () => {
  it("give the specification's example its signature", () => {
    expect(signatureHeaders([SPEC.secret], SPEC.id, SPEC.timestamp * 1000 + 999, SPEC.body)).toEqual({
      'webhook-id': SPEC.id,
      'webhook-timestamp': String(SPEC.timestamp),
      'webhook-signature': SPEC.signature,
    });
    // The same HMAC computed here, without the library.
    const key = Buffer.from(SPEC.secret.slice('whsec_'.length), 'base64');
    const hmac = createHmac('sha256', key)
      .update(`${SPEC.id}.${SPEC.timestamp}.${SPEC.body}`)
      .digest('base64');
    expect(`v1,${hmac}`).toBe(SPEC.signature);
  });

  it("pass the standardwebhooks library's verifier, and a tampered body or an old timestamp fails it", () => {
    const secret = generateSigningSecret();
    const body = '[{"id":"order-1","data":{"total":42}}]';
    const headers = signatureHeaders([secret], 'pub-1.0', Date.now(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual([{ id: 'order-1', data: { total: 42 } }]);

    expect(() => new Webhook(secret).verify(body.replace('42', '43'), headers)).toThrow(
      /No matching signature/,
    );
    const old = signatureHeaders([secret], 'pub-1.0', Date.now() - 10 * 60_000, body);
    expect(() => new Webhook(secret).verify(body, old)).toThrow(/too old/);
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow(/No matching signature/);
  });

  it('carry one signature per secret in force, each verifying with its own secret', () => {
    const [current, earlier] = [generateSigningSecret(), generateSigningSecret()];
    const headers = signatureHeaders([current, earlier], 'pub-2.0', Date.now(), '[]');
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify('[]', headers)).not.toThrow();
    expect(() => new Webhook(earlier).verify('[]', headers)).not.toThrow();
  });

  it("use the delivery id as webhook-id, and a batch's ids for a batch", () => {
    expect(webhookIdOf([{ deliveryId: 'pub-1.0' }])).toBe('pub-1.0');
    const batch = webhookIdOf([{ deliveryId: 'a' }, { deliveryId: 'b' }]);
    expect(batch).toMatch(/^batch_[A-Za-z0-9_-]{32}$/);
    expect(webhookIdOf([{ deliveryId: 'a' }, { deliveryId: 'b' }])).toBe(batch);
    expect(webhookIdOf([{ deliveryId: 'a' }, { deliveryId: 'c' }])).not.toBe(batch);
  });
});

describe('signing secrets', () => {
  it('are generated as whsec_ and 32 bytes of base64', () => {
    const secret = generateSigningSecret();
    expect(signingSecretProblem(secret)).toBeUndefined();
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it.each([
    ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', /must start with whsec_/],
    ['whsec_not base64!', /must be whsec_ followed by base64/],
    [`whsec_${Buffer.alloc(16).toString('base64')}`, /must hold 24 to 64 bytes of key \(got 16\)/],
    [`whsec_${Buffer.alloc(65).toString('base64')}`, /got 65/],
  ])('refuse %s, saying why', (secret, why) => {
    expect(signingSecretProblem(secret)).toMatch(why);
  });

  it("take the specification's example", () => {
    expect(signingSecretProblem(SPEC.secret)).toBeUndefined();
  });
});

/** RFC 8032's first Ed25519 test vector: a seed and its public key. */
const RFC8032 = {
  seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
  publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
};

/** Verifies a `v1a` signature as a receiver does: Ed25519 with the `whpk_` public key, here with Node's own crypto. */
function verifiesV1a(publicKey: string, headers: Record<string, string>, body: string): boolean {
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  // SPKI DER of an Ed25519 public key: its fixed header, then the 32 bytes.
  const key = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]),
    format: 'der',
    type: 'spki',
  });
  const signed = Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`);
  return (headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((signature) => signature.startsWith('v1a,'))
    .some((signature) => verify(null, signed, key, Buffer.from(signature.slice(4), 'base64')));
}

describe('asymmetric signatures (v1a, Ed25519)', () => {
  const secret = `whsk_${Buffer.from(RFC8032.seed, 'hex').toString('base64')}`;

  it("derive the public key of RFC 8032's test vector", () => {
    expect(publicKeyOf(secret)).toBe(`whpk_${Buffer.from(RFC8032.publicKey, 'hex').toString('base64')}`);
    expect(schemeOf(secret)).toBe('v1a');
    expect(schemeOf(SPEC.secret)).toBe('v1');
  });

  it('sign so the public key verifies the request, and a tampered body or another key does not', () => {
    const headers = signatureHeaders([secret], 'msg_1', 1_767_225_600_000, '[{"id":"1"}]');
    expect(headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifiesV1a(publicKeyOf(secret), headers, '[{"id":"1"}]')).toBe(true);
    expect(verifiesV1a(publicKeyOf(secret), headers, '[{"id":"2"}]')).toBe(false);
    expect(verifiesV1a(publicKeyOf(generateSigningSecret('v1a')), headers, '[{"id":"1"}]')).toBe(false);
  });

  it('sign beside a v1 secret during a rotation, each in its own scheme', () => {
    const headers = signatureHeaders([secret, SPEC.secret], SPEC.id, SPEC.timestamp * 1000, SPEC.body);
    const [v1a, v1] = (headers['webhook-signature'] as string).split(' ');
    expect(v1a).toMatch(/^v1a,/);
    expect(v1).toBe(SPEC.signature);
    // The library's verifier finds its v1 signature among them (signed now, within its tolerance).
    const now = signatureHeaders([secret, SPEC.secret], SPEC.id, Date.now(), SPEC.body);
    expect(new Webhook(SPEC.secret).verify(SPEC.body, now)).toEqual(JSON.parse(SPEC.body));
  });

  it.each([
    [`whsk_${Buffer.alloc(16).toString('base64')}`, /32-byte Ed25519 seed after whsk_ \(got 16 bytes\)/],
    ['whsk_not base64!', /must be whsk_ followed by base64/],
  ])('refuse %s as a key, saying why', (key, why) => {
    expect(signingSecretProblem(key)).toMatch(why);
  });

  it('are generated as whsk_ and a 32-byte seed', () => {
    const generated = generateSigningSecret('v1a');
    expect(signingSecretProblem(generated)).toBeUndefined();
    expect(Buffer.from(generated.slice('whsk_'.length), 'base64')).toHaveLength(32);
  });
});

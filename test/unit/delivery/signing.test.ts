import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  generateSigningSecret,
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

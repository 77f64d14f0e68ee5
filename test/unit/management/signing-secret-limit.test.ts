/**
 * Rotating a subscription's signing secret keeps at most `MAX_PREVIOUS_SIGNING_SECRETS` earlier
 * secrets honoured: every secret in force is another signature on every request, which receivers
 * try in turn (hundreds made a header the receiver refused with 431). A rotation that would keep
 * more is a 409 naming the limit and saying when to rotate again; none is dropped early, and
 * `keepPreviousForMinutes: 0` still rotates at once.
 */
import { MAX_PREVIOUS_SIGNING_SECRETS } from '../../../shared/delivery/signing';
import { isWebhook } from '../../../shared/domain/model';
import { VirtualClock } from '../../../shared/platform/clock';
import { AesGcmSealer, keyText } from '../../../shared/platform/sealing';
import { callRoute, routeTestDeps } from '../../support/management-routes';
import { memoryStores, seedTopic } from '../../support/memory-stores';

const SUB = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const PARAMS = { topic: 'orders', subscription: 'audit' };
const WEEK_MINUTES = 7 * 24 * 60;

async function api() {
  const stores = memoryStores();
  const clock = new VirtualClock();
  const deps = routeTestDeps(stores, {
    clock,
    sealing: { kind: 'sealed', sealer: new AesGcmSealer(keyText('test key')) },
  });
  await seedTopic(stores, 'orders');
  const call = (routeKey: string, body: unknown) => callRoute(deps, routeKey, PARAMS, body);
  const created = await call(`PUT ${SUB}`, {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: 'https://hooks.example.test/in', signing: { generate: true } },
      },
    },
  });
  expect(created.status).toBe(201);
  return {
    clock,
    rotate: (body: Record<string, unknown>) => call(`POST ${SUB}/rotateSigningSecret`, body),
    storedSecrets: async () => {
      const stored = await stores.subscriptions.get('orders', 'audit');
      const destination = stored?.destination;
      if (destination === undefined || !isWebhook(destination)) throw new Error('no webhook stored');
      return destination.signing?.secrets ?? [];
    },
  };
}

describe('rotating a signing secret', () => {
  it('keeps at most three earlier secrets, answering 409 with when to rotate again', async () => {
    expect(MAX_PREVIOUS_SIGNING_SECRETS).toBe(3);
    const { clock, rotate, storedSecrets } = await api();
    const started = clock.now();
    for (let n = 1; n <= MAX_PREVIOUS_SIGNING_SECRETS; n += 1) {
      clock.advance(60_000);
      const rotated = await rotate({ keepPreviousForMinutes: WEEK_MINUTES });
      expect(rotated.status).toBe(200);
      expect(rotated.body.previousSecrets).toHaveLength(n);
    }
    const before = await storedSecrets();
    expect(before).toHaveLength(1 + MAX_PREVIOUS_SIGNING_SECRETS);

    clock.advance(60_000);
    const refused = await rotate({ keepPreviousForMinutes: WEEK_MINUTES });
    expect(refused.status).toBe(409);
    // The oldest earlier secret (the first one, replaced a minute in) ends a week after that.
    const oldestEnds = new Date(started + 60_000 + WEEK_MINUTES * 60_000).toISOString();
    expect(refused.body.error.message).toBe(
      `keepPreviousForMinutes: this rotation would leave 4 earlier signing secrets honoured, and at most 3 are (every request carries a signature by each, which receivers try in turn). Rotate again after ${oldestEnds} (in 10077 minutes), when the oldest has expired, or now with keepPreviousForMinutes 0, which ends every earlier secret at once.`,
    );
    // Nothing changed: the same secrets, none dropped early.
    expect(await storedSecrets()).toEqual(before);

    // Once the oldest has expired, a rotation keeps the three others.
    clock.advanceTo(Date.parse(oldestEnds) + 1);
    const later = await rotate({ keepPreviousForMinutes: WEEK_MINUTES });
    expect(later.status).toBe(200);
    expect(later.body.previousSecrets).toHaveLength(MAX_PREVIOUS_SIGNING_SECRETS);
  });

  it('rotates at once with keepPreviousForMinutes 0, ending every earlier secret', async () => {
    const { clock, rotate, storedSecrets } = await api();
    for (let n = 1; n <= MAX_PREVIOUS_SIGNING_SECRETS; n += 1) {
      clock.advance(60_000);
      expect((await rotate({ keepPreviousForMinutes: WEEK_MINUTES })).status).toBe(200);
    }
    const rotated = await rotate({ keepPreviousForMinutes: 0 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.previousSecrets).toEqual([]);
    expect(await storedSecrets()).toHaveLength(1);
  });

  it('refuses the fourth rotation with the default day of overlap too', async () => {
    const { clock, rotate } = await api();
    for (let n = 1; n <= MAX_PREVIOUS_SIGNING_SECRETS; n += 1) {
      clock.advance(60_000);
      expect((await rotate({})).status).toBe(200);
    }
    const refused = await rotate({});
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('at most 3 are');
  });
});

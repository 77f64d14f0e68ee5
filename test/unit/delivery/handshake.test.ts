import { EndpointHandshake, type HandshakeExchange } from '../../../shared/delivery/handshake';
import type { HandshakeAnswer, HandshakeRequest } from '../../../shared/delivery/rules/handshake';
import { newValidation } from '../../../shared/delivery/rules/handshake';
import type { ValidationJob } from '../../../shared/domain/delivery';
import type { Subscription } from '../../../shared/domain/model';
import { ConcurrentChangeError } from '../../../shared/storage/store';
import { subscription as subscriptionOf, VirtualClock } from '../../support/fakes';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const URL_A = 'https://a.example/hook';

function harness(options: { answer?: HandshakeAnswer | { error: string }; conflicts?: number } = {}) {
  const clock = new VirtualClock(T0);
  let stored: Subscription | undefined = subscriptionOf({
    topic: 'orders',
    name: 'audit',
    uid: 'uid-1',
    version: 1,
    destination: { endpointType: 'WebHook', endpointUrl: URL_A },
    validation: newValidation(URL_A, 'code-1', T0, 300_000),
  });
  let conflicts = options.conflicts ?? 0;
  const sent: HandshakeRequest[] = [];
  const exchange: HandshakeExchange = {
    exchange: async (request) => {
      sent.push(request);
      return options.answer ?? { status: 200, headers: {}, body: '{"validationResponse":"code-1"}' };
    },
  };
  const handshake = new EndpointHandshake({
    store: {
      getSubscription: async () => stored,
      putSubscription: async (written, replaces) => {
        if (conflicts > 0) {
          conflicts -= 1;
          throw new ConcurrentChangeError('raced');
        }
        if (replaces !== stored?.version) throw new ConcurrentChangeError('stale');
        stored = written;
      },
    },
    exchange,
    clock,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    newId: () => 'evt-1',
  });
  const job = (overrides: Partial<ValidationJob> = {}): ValidationJob => ({
    v: 1,
    kind: 'validate',
    topic: 'orders',
    subscription: 'audit',
    subscriptionUid: 'uid-1',
    code: 'code-1',
    validationUrl: 'https://api.example/eventSubscriptions/validate?code=code-1',
    ...overrides,
  });
  return { handshake, sent, job, clock, stored: () => stored, replace: (s: Subscription) => (stored = s) };
}

it('records consent as a new version, and the endpoint is then agreed', async () => {
  const h = harness();
  expect(await h.handshake.run(h.job())).toBe('validated');
  expect(h.sent).toHaveLength(1);
  expect(h.sent[0]?.headers['webhook-request-origin']).toBeUndefined();
  expect(h.stored()?.validation?.validatedAt).toBe(T0);
  expect(h.stored()?.version).toBeGreaterThan(1);
});

it('records why an answer is not consent, and the validation keeps waiting', async () => {
  const h = harness({ answer: { status: 500, headers: {}, body: '' } });
  expect(await h.handshake.run(h.job())).toBe('refused');
  expect(h.stored()?.validation).toMatchObject({ handshakeError: expect.stringMatching(/HTTP 500/) });
  expect(h.stored()?.validation?.validatedAt).toBeUndefined();
});

it('records an endpoint that cannot be reached', async () => {
  const h = harness({ answer: { error: 'ECONNREFUSED: connect ECONNREFUSED' } });
  expect(await h.handshake.run(h.job())).toBe('refused');
  expect(h.stored()?.validation?.handshakeError).toMatch(/could not be reached: ECONNREFUSED/);
});

it('writes again over a change that raced it', async () => {
  const h = harness({ conflicts: 1 });
  expect(await h.handshake.run(h.job())).toBe('validated');
});

it.each([
  ['another code', { code: 'code-0' }],
  ['another subscription uid (deleted and created again)', { subscriptionUid: 'uid-0' }],
])('does nothing for a job with %s', async (_what, overrides) => {
  const h = harness();
  expect(await h.handshake.run(h.job(overrides))).toBe('stale');
  expect(h.sent).toHaveLength(0);
});

it('does nothing once the subscription points elsewhere or already agreed', async () => {
  const moved = harness();
  const current = moved.stored() as Subscription;
  moved.replace({
    ...current,
    destination: { endpointType: 'WebHook', endpointUrl: 'https://b.example/hook' },
  });
  expect(await moved.handshake.run(moved.job())).toBe('stale');

  const agreed = harness();
  await agreed.handshake.run(agreed.job());
  expect(await agreed.handshake.run(agreed.job())).toBe('stale');
  expect(agreed.sent).toHaveLength(1);
});

it('does not ask after the window closed', async () => {
  const h = harness();
  h.clock.advanceTo(T0 + 300_001);
  expect(await h.handshake.run(h.job())).toBe('stale');
  expect(h.sent).toHaveLength(0);
});

it('uses the CloudEvents handshake for CloudEvents deliveries, with the API host as origin', async () => {
  const h = harness({
    answer: { status: 200, headers: { 'webhook-allowed-origin': 'api.example' }, body: '' },
  });
  h.replace({ ...(h.stored() as Subscription), eventDeliverySchema: 'CloudEventSchemaV1_0' });
  expect(await h.handshake.run(h.job())).toBe('validated');
  expect(h.sent[0]).toMatchObject({
    method: 'OPTIONS',
    headers: { 'webhook-request-origin': 'api.example' },
  });
});

it('asks the whole endpoint URL, its sealed query string opened', async () => {
  const h = harness();
  const waiting = h.stored() as Subscription;
  h.replace({ ...waiting, destination: { ...waiting.destination, sealedQuery: 'sealed:?code=fn-key' } });
  const opening = new EndpointHandshake({
    store: { getSubscription: async () => h.stored(), putSubscription: async () => {} },
    exchange: {
      exchange: async (request) => {
        h.sent.push(request);
        return { status: 200, headers: {}, body: '{"validationResponse":"code-1"}' };
      },
    },
    clock: h.clock,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    newId: () => 'evt-1',
    opener: { open: async (sealed) => sealed.replace(/^sealed:/, '') },
  });
  expect(await opening.run(h.job())).toBe('validated');
  expect(h.sent.map((request) => request.url)).toEqual([`${URL_A}?code=fn-key`]);
  // Without a key it cannot ask: the job fails and comes back.
  await expect(h.handshake.run(h.job())).rejects.toThrow(/no key/);
});

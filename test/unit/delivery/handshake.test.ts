import { EndpointHandshake, type HandshakeExchange } from '../../../shared/delivery/handshake';
import type { HandshakeAnswer, HandshakeRequest } from '../../../shared/delivery/rules/handshake';
import { newValidation } from '../../../shared/delivery/rules/handshake';
import { deliveryTargetOf } from '../../../shared/delivery/target';
import { JOB_FORMAT_VERSION, type ValidationJob } from '../../../shared/domain/delivery';
import type { Subscription, WebhookDestination } from '../../../shared/domain/model';
import { ConcurrentChangeError } from '../../../shared/storage/table';
import { deliveryTarget, subscription as subscriptionOf, VirtualClock } from '../../support/fakes';
import { memoryStores } from '../../support/memory-stores';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const URL_A = 'https://a.example/hook';

async function harness(options: { answer?: HandshakeAnswer | { error: string }; conflicts?: number } = {}) {
  const clock = new VirtualClock(T0);
  const { subscriptions } = memoryStores();
  const waiting = subscriptionOf({
    topic: 'orders',
    name: 'audit',
    uid: 'uid-1',
    version: 1,
    destination: { endpointType: 'WebHook', endpointUrl: URL_A },
    validation: newValidation(URL_A, 'code-1', T0, 300_000),
  });
  await subscriptions.put(waiting, undefined);
  let conflicts = options.conflicts ?? 0;
  const sent: HandshakeRequest[] = [];
  const exchange: HandshakeExchange = {
    exchange: async (request) => {
      sent.push(request);
      return options.answer ?? { status: 200, headers: {}, body: '{"validationResponse":"code-1"}' };
    },
  };
  const handshake = new EndpointHandshake({
    subscriptions: {
      get: (topic, name, read) => subscriptions.get(topic, name, read),
      // Another change wins the first `conflicts` writes.
      put: async (written, replaces) => {
        if (conflicts > 0) {
          conflicts -= 1;
          throw new ConcurrentChangeError('raced');
        }
        return subscriptions.put(written, replaces);
      },
    },
    exchange,
    clock,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    newId: () => 'evt-1',
  });
  const job = (overrides: Partial<ValidationJob> = {}): ValidationJob => ({
    v: JOB_FORMAT_VERSION,
    kind: 'validate',
    target: deliveryTargetOf(waiting),
    code: 'code-1',
    validationUrl: 'https://api.example/eventSubscriptions/validate?code=code-1',
    ...overrides,
  });
  const stored = () => subscriptions.get('orders', 'audit');
  /** Another change of the subscription. */
  const replace = async (changed: Subscription) => subscriptions.put(changed, (await stored())?.version);
  return { handshake, sent, job, clock, subscriptions, stored, replace };
}

it('records consent as a new version, and the endpoint is then agreed', async () => {
  const h = await harness();
  expect(await h.handshake.run(h.job())).toBe('validated');
  expect(h.sent).toHaveLength(1);
  expect(h.sent[0]?.headers['webhook-request-origin']).toBeUndefined();
  expect((await h.stored())?.validation?.validatedAt).toBe(T0);
  expect((await h.stored())?.version).toBeGreaterThan(1);
});

it('records why an answer is not consent, and the validation keeps waiting', async () => {
  const h = await harness({ answer: { status: 500, headers: {}, body: '' } });
  expect(await h.handshake.run(h.job())).toBe('refused');
  expect((await h.stored())?.validation).toMatchObject({ handshakeError: expect.stringMatching(/HTTP 500/) });
  expect((await h.stored())?.validation?.validatedAt).toBeUndefined();
});

it('records an endpoint that cannot be reached', async () => {
  const h = await harness({ answer: { error: 'ECONNREFUSED: connect ECONNREFUSED' } });
  expect(await h.handshake.run(h.job())).toBe('refused');
  expect((await h.stored())?.validation?.handshakeError).toMatch(/could not be reached: ECONNREFUSED/);
});

it('writes again over a change that raced it', async () => {
  const h = await harness({ conflicts: 1 });
  expect(await h.handshake.run(h.job())).toBe('validated');
});

it.each([
  ['another code', { code: 'code-0' }],
  ['another subscription uid (deleted and created again)', { target: deliveryTarget({ uid: 'uid-0' }) }],
])('does nothing for a job with %s', async (_what, overrides) => {
  const h = await harness();
  expect(await h.handshake.run(h.job(overrides))).toBe('stale');
  expect(h.sent).toHaveLength(0);
});

it('does nothing once the subscription points elsewhere or already agreed', async () => {
  const moved = await harness();
  const current = (await moved.stored()) as Subscription;
  await moved.replace({
    ...current,
    destination: { endpointType: 'WebHook', endpointUrl: 'https://b.example/hook' },
  });
  expect(await moved.handshake.run(moved.job())).toBe('stale');

  const agreed = await harness();
  await agreed.handshake.run(agreed.job());
  expect(await agreed.handshake.run(agreed.job())).toBe('stale');
  expect(agreed.sent).toHaveLength(1);
});

it('does not ask after the window closed', async () => {
  const h = await harness();
  h.clock.advanceTo(T0 + 300_001);
  expect(await h.handshake.run(h.job())).toBe('stale');
  expect(h.sent).toHaveLength(0);
});

it('uses the CloudEvents handshake for CloudEvents deliveries, with the API host as origin', async () => {
  const h = await harness({
    answer: { status: 200, headers: { 'webhook-allowed-origin': 'api.example' }, body: '' },
  });
  await h.replace({ ...((await h.stored()) as Subscription), eventDeliverySchema: 'CloudEventSchemaV1_0' });
  expect(await h.handshake.run(h.job())).toBe('validated');
  expect(h.sent[0]).toMatchObject({
    method: 'OPTIONS',
    headers: { 'webhook-request-origin': 'api.example' },
  });
});

it('asks the whole endpoint URL, its sealed query string opened', async () => {
  const h = await harness();
  const waiting = (await h.stored()) as Subscription;
  await h.replace({
    ...waiting,
    destination: { ...(waiting.destination as WebhookDestination), sealedQuery: 'sealed:?code=fn-key' },
  });
  const opening = new EndpointHandshake({
    // Records nothing, so the validation still waits for the run without a key below.
    subscriptions: {
      get: (topic, name, read) => h.subscriptions.get(topic, name, read),
      put: async () => {},
    },
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

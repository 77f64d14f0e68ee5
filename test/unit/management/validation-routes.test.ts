/**
 * The endpoint validation routes: `POST .../validate` starts a new validation of a subscription
 * still waiting (new code, new window, a new handshake queued) and leaves an agreed one alone;
 * the validation URL validates by hand while its code is the waiting one and its window is open.
 */
import { newValidation } from '../../../shared/delivery/rules/handshake';
import { JOB_FORMAT_VERSION } from '../../../shared/domain/delivery';
import type { Subscription } from '../../../shared/domain/model';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import type { SubscriptionStoreDeps } from '../../../shared/management/deps';
import type { SubscriptionFinder } from '../../../shared/management/operation';
import {
  type ValidationRouteDeps,
  type ValidationUrlDeps,
  validationOperations,
  validationUrlOperations,
} from '../../../shared/management/validation-routes';
import { parseJob } from '../../../shared/queue/job-codec';
import { ConcurrentChangeError } from '../../../shared/storage/table';
import { RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { memoryStores } from '../../support/memory-stores';

const PATH = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const NOW = Date.parse('2026-11-22T10:00:00Z');
const WINDOW_MS = 300_000;
const ENDPOINT = 'https://hooks.example.test/in';

const waiting = (overrides: Partial<Subscription> = {}): Subscription =>
  subscription({
    uid: 'uid-1',
    version: 5,
    destination: { endpointType: 'WebHook', endpointUrl: ENDPOINT },
    validation: newValidation(ENDPOINT, 'code-old', NOW - 1000, WINDOW_MS),
    ...overrides,
  });

async function setup(stored: Subscription) {
  const clock = new VirtualClock(NOW);
  const stores = memoryStores();
  await stores.subscriptions.put(stored, undefined);
  const queue = new RecordingQueue(clock);
  let ids = 0;
  const publicUrl = () => 'https://events.example.test/';
  const deps: ValidationRouteDeps & ValidationUrlDeps = {
    subscriptions: stores.subscriptions,
    queue,
    clock,
    newId: () => `code-${++ids}`,
    validateEndpoints: true,
    validationWindowMs: WINDOW_MS,
    propagationDelayMs: 1000,
    publicUrl,
    publishUrl: publicUrl,
  };
  const find: SubscriptionFinder<SubscriptionStoreDeps> = async (_event, given, options) =>
    (await given.subscriptions.get('orders', 'audit', options)) as Subscription;
  const document = (current: Subscription) => ({ version: current.version, code: current.validation?.code });
  const operations = { ...validationOperations(PATH, find, document), ...validationUrlOperations };
  const call = async (routeKey: string, query?: Record<string, string>) => {
    const operation = operations[routeKey];
    if (operation === undefined) throw new Error(`no route ${routeKey}`);
    const answer = await operation(
      { routeKey, ...(query === undefined ? {} : { queryStringParameters: query }) } as HttpEvent,
      deps,
    );
    return { statusCode: answer.statusCode, body: JSON.parse(answer.body as string) };
  };
  return { clock, queue, deps, stores, call };
}

const refusal = async (answer: Promise<unknown>) => {
  const error = await answer.catch((caught: unknown) => caught);
  if (!(error instanceof ApiError)) throw error;
  return error;
};

describe('POST .../validate', () => {
  it('starts a new validation of a waiting subscription and queues its handshake', async () => {
    const { call, queue, stores } = await setup(waiting());

    const answer = await call(`POST ${PATH}/validate`);

    const stored = await stores.subscriptions.get('orders', 'audit');
    expect(stored?.validation).toEqual({
      endpointUrl: ENDPOINT,
      code: 'code-1',
      startedAt: NOW,
      expiresAt: NOW + WINDOW_MS,
    });
    expect(answer).toEqual({ statusCode: 200, body: { version: stored?.version, code: 'code-1' } });
    expect(stored?.version).toBeGreaterThan(5);
    const sent = queue.sent.map((entry) => ({ queue: entry.queue, job: parseJob(entry.job.body) }));
    expect(sent).toEqual([
      {
        queue: 'delivery',
        job: {
          v: JOB_FORMAT_VERSION,
          kind: 'validate',
          target: {
            topic: { name: 'orders' },
            subscription: 'audit',
            uid: 'uid-1',
            version: stored?.version,
            profile: 'topic',
            schema: 'EventGridSchema',
          },
          code: 'code-1',
          validationUrl:
            'https://events.example.test/eventSubscriptions/validate?topic=orders&subscription=audit&code=code-1',
        },
      },
    ]);
  });

  it('leaves a subscription whose endpoint agreed as it is', async () => {
    const agreed = waiting({
      validation: { ...newValidation(ENDPOINT, 'code-old', NOW, WINDOW_MS), validatedAt: NOW },
    });
    const { call, queue, stores } = await setup(agreed);

    const answer = await call(`POST ${PATH}/validate`);

    expect(answer).toEqual({ statusCode: 200, body: { version: 5, code: 'code-old' } });
    expect(await stores.subscriptions.get('orders', 'audit')).toEqual(agreed);
    expect(queue.sent).toEqual([]);
  });

  it('answers 409 when another request changed the subscription at the same time', async () => {
    const { call, stores, queue } = await setup(waiting());
    stores.subscriptions.put = async () => {
      throw new ConcurrentChangeError('subscription orders/audit');
    };

    const error = await refusal(call(`POST ${PATH}/validate`));

    expect(error.statusCode).toBe(409);
    expect(error.message).toMatch(/changed by another request at the same time; try again/);
    expect(queue.sent).toEqual([]);
  });
});

describe('GET /eventSubscriptions/validate', () => {
  const route = 'GET /eventSubscriptions/validate';
  const query = (code: string) => ({ topic: 'orders', subscription: 'audit', code });

  it('validates the endpoint with the waiting code, answered once publishers see it', async () => {
    const { call, stores, clock } = await setup(waiting());

    const answer = await call(route, query('code-old'));

    expect(answer.statusCode).toBe(200);
    expect(answer.body.message).toMatch(/^The endpoint of event subscription 'audit' is validated/);
    expect((await stores.subscriptions.get('orders', 'audit'))?.validation?.validatedAt).toBe(NOW);
    expect(clock.now()).toBe(NOW + 1000);
  });

  it.each(['topic', 'subscription', 'code'])('requires the %s query parameter', async (name) => {
    const { call } = await setup(waiting());
    const partial: Record<string, string> = query('code-old');
    delete partial[name];
    const error = await refusal(call(route, partial));
    expect(error.statusCode).toBe(400);
    expect(error.message).toBe(`${name}: the query parameter is required.`);
  });

  it('refuses a code that is not the waiting one with a 404, and an expired one with a 400', async () => {
    const { call, clock } = await setup(waiting());

    expect((await refusal(call(route, query('code-other')))).statusCode).toBe(404);
    clock.advance(WINDOW_MS);
    const expired = await refusal(call(route, query('code-old')));
    expect(expired).toMatchObject({ statusCode: 400, code: 'ValidationExpired' });
  });
});

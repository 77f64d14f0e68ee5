/**
 * A PUT whose conditional write loses to Gridwire's own write of the item (the handshake recording
 * its answer on a subscription, a subscription change bumping its namespace topic) is made again
 * over a fresh read, as if it had arrived just after; one that loses to a change of the definition,
 * or keeps losing, is a 409. The races are made by slipping a write in between the PUT's read and
 * its write.
 */
import { updateValidation } from '../../../shared/delivery/handshake';
import { endpointIdOf, type NamespaceTopic, type Subscription } from '../../../shared/domain/model';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import { handleManagement } from '../../../shared/management/api';
import { changeOverRead, MAX_CHANGE_TRIES } from '../../../shared/management/change-over-read';
import { parseJob } from '../../../shared/queue/job-codec';
import type { NamespaceTopicStore } from '../../../shared/storage/namespaces';
import type { SubscriptionStore } from '../../../shared/storage/subscriptions';
import { ConcurrentChangeError } from '../../../shared/storage/table';
import { RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { routeTestDeps } from '../../support/management-routes';
import { memoryStores } from '../../support/memory-stores';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const SUB = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const NS_TOPIC = '/admin/namespaces/{namespace}/topics/{topic}';
const ENDPOINT_A = 'https://hooks.example.test/a';
const ENDPOINT_B = 'https://hooks.example.test/b';

type Race = () => Promise<void>;

/**
 * The memory stores behind a management API, where each write of a subscription or namespace
 * topic first runs the next race queued (a write of the same item by someone else), and counts.
 */
async function racingApi() {
  const stores = memoryStores();
  const clock = new VirtualClock(NOW);
  const queue = new RecordingQueue(clock);
  const races: Race[] = [];
  const writes = { subscriptions: 0, namespaceTopics: 0 };
  const subscriptions: SubscriptionStore = {
    get: (topic, name, options) => stores.subscriptions.get(topic, name, options),
    list: (topic) => stores.subscriptions.list(topic),
    delete: (topic, name, now, version) => stores.subscriptions.delete(topic, name, now, version),
    put: async (written, replaces) => {
      writes.subscriptions += 1;
      await races.shift()?.();
      return stores.subscriptions.put(written, replaces);
    },
  };
  const namespaceTopics: NamespaceTopicStore = {
    get: (namespace, name, options) => stores.namespaceTopics.get(namespace, name, options),
    list: (namespace) => stores.namespaceTopics.list(namespace),
    delete: (namespace, name) => stores.namespaceTopics.delete(namespace, name),
    put: async (written, replaces) => {
      writes.namespaceTopics += 1;
      await races.shift()?.();
      return stores.namespaceTopics.put(written, replaces);
    },
  };
  let ids = 0;
  const deps = routeTestDeps(stores, {
    subscriptions,
    namespaceTopics,
    queue,
    clock,
    newId: () => `id-${++ids}`,
    validateEndpoints: true,
    validationWindowMs: 300_000,
  });
  await stores.topics.create('orders', { inputSchema: 'EventGridSchema', tags: {} }, new Date(0));

  const call = async (routeKey: string, pathParameters: Record<string, string>, body: unknown) => {
    const answer = await handleManagement(
      { routeKey, pathParameters, requestContext: {}, body: JSON.stringify(body) } as unknown as HttpEvent,
      deps,
    );
    return { statusCode: answer.statusCode, body: JSON.parse(answer.body as string) };
  };
  const putSubscription = (endpointUrl: string, labels: string[] = []) =>
    call(
      `PUT ${SUB}`,
      { topic: 'orders', subscription: 'audit' },
      { properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl } }, labels } },
    );
  const stored = async () => (await stores.subscriptions.get('orders', 'audit')) as Subscription;
  /** Codes of the handshakes queued so far. */
  const handshakes = () =>
    queue.sent.flatMap(({ job }) => {
      const parsed = parseJob(job.body);
      return parsed.kind === 'validate' ? [parsed.code] : [];
    });
  /** What the handshake writes once the endpoint answered (agreed, or refused with `error`). */
  const handshakeAnswers =
    (error?: string): Race =>
    async () => {
      const waiting = await stored();
      clock.advance(1000);
      await updateValidation(
        stores.subscriptions,
        { topic: 'orders', subscription: 'audit', code: waiting.validation?.code as string },
        (validation) =>
          error === undefined
            ? { ...validation, validatedAt: clock.now() }
            : { ...validation, handshakeError: error },
        () => clock.now(),
      );
    };
  return {
    stores,
    clock,
    races,
    writes,
    call,
    putSubscription,
    stored,
    handshakes,
    handshakeAnswers,
  };
}

const refusal = async (answer: Promise<unknown>): Promise<ApiError> => {
  const error = await answer.catch((caught: unknown) => caught);
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
};

describe('a subscription PUT that loses to the handshake recording its answer', () => {
  it('is made again over it: 200, the validation recorded kept, no new handshake', async () => {
    const api = await racingApi();
    expect((await api.putSubscription(ENDPOINT_A)).statusCode).toBe(201);
    const created = await api.stored();
    api.races.push(api.handshakeAnswers());

    const answer = await api.putSubscription(ENDPOINT_A, ['x']);

    expect(answer.statusCode).toBe(200);
    expect(answer.body.properties.provisioningState).toBe('Succeeded');
    expect(api.writes.subscriptions).toBe(3);
    const stored = await api.stored();
    expect(stored).toMatchObject({ uid: created.uid, createdAt: created.createdAt, labels: ['x'] });
    expect(stored.validation).toEqual({ ...created.validation, validatedAt: NOW + 1000 });
    expect(api.handshakes()).toEqual([created.validation?.code]);
  });

  it('ends as the same PUT made after the handshake would', async () => {
    const raced = await racingApi();
    await raced.putSubscription(ENDPOINT_A);
    raced.races.push(raced.handshakeAnswers());
    await raced.putSubscription(ENDPOINT_A, ['x']);

    const after = await racingApi();
    await after.putSubscription(ENDPOINT_A);
    await after.handshakeAnswers()();
    await after.putSubscription(ENDPOINT_A, ['x']);

    expect(await raced.stored()).toEqual(await after.stored());
  });

  it('with a new endpoint, starts that endpoint validation and queues its handshake, as a fresh PUT', async () => {
    const api = await racingApi();
    await api.putSubscription(ENDPOINT_A);
    const created = await api.stored();
    api.races.push(api.handshakeAnswers());

    const answer = await api.putSubscription(ENDPOINT_B);

    expect(answer.statusCode).toBe(200);
    expect(answer.body.properties.provisioningState).toBe('AwaitingManualAction');
    const stored = await api.stored();
    expect(endpointIdOf(stored.destination)).toBe(ENDPOINT_B);
    expect(stored.validation).toEqual({
      endpointUrl: ENDPOINT_B,
      code: expect.any(String),
      startedAt: NOW + 1000,
      expiresAt: NOW + 1000 + 300_000,
    });
    expect(stored.validation?.code).not.toBe(created.validation?.code);
    // The code of the write that lost was never stored, and its handshake never queued.
    expect(api.handshakes()).toEqual([created.validation?.code, stored.validation?.code]);
  });

  it(`is a 409 when such writes keep coming, after ${MAX_CHANGE_TRIES} writes`, async () => {
    const api = await racingApi();
    await api.putSubscription(ENDPOINT_A);
    api.writes.subscriptions = 0;
    for (let n = 1; n <= MAX_CHANGE_TRIES; n++) api.races.push(api.handshakeAnswers(`refused ${n}`));

    const error = await refusal(api.putSubscription(ENDPOINT_A, ['x']));

    expect(error.statusCode).toBe(409);
    expect(api.writes.subscriptions).toBe(MAX_CHANGE_TRIES);
    const stored = await api.stored();
    expect(stored.labels).toEqual([]);
    expect(stored.validation?.handshakeError).toBe(`refused ${MAX_CHANGE_TRIES}`);
  });
});

describe('a subscription PUT that loses to another change of the subscription', () => {
  it('is a 409 when the definition changed, and leaves the other change in place', async () => {
    const api = await racingApi();
    await api.putSubscription(ENDPOINT_A);
    api.writes.subscriptions = 0;
    api.races.push(async () => {
      const current = await api.stored();
      await api.stores.subscriptions.put(
        { ...current, labels: ['theirs'], version: current.version + 1 },
        current.version,
      );
    });

    const error = await refusal(api.putSubscription(ENDPOINT_A, ['mine']));

    expect(error.statusCode).toBe(409);
    expect(api.writes.subscriptions).toBe(1);
    expect((await api.stored()).labels).toEqual(['theirs']);
  });

  it('is a 409 when it was created meanwhile', async () => {
    const api = await racingApi();
    api.races.push(() =>
      api.stores.subscriptions.put(subscription({ labels: ['theirs'], version: NOW }), undefined),
    );

    const error = await refusal(api.putSubscription(ENDPOINT_A, ['mine']));

    expect(error.statusCode).toBe(409);
    expect((await api.stored()).labels).toEqual(['theirs']);
  });

  it('is a 409 when it was deleted meanwhile', async () => {
    const api = await racingApi();
    await api.putSubscription(ENDPOINT_A);
    api.races.push(async () => {
      await api.stores.subscriptions.delete('orders', 'audit', new Date(NOW));
    });

    const error = await refusal(api.putSubscription(ENDPOINT_A, ['mine']));

    expect(error.statusCode).toBe(409);
    expect(await api.stores.subscriptions.get('orders', 'audit')).toBeUndefined();
  });
});

describe('a namespace topic PUT that loses to a subscription change bumping the topic', () => {
  async function withNamespaceTopic() {
    const api = await racingApi();
    await api.stores.namespaces.create('shop', { tags: {} }, new Date(0));
    const put = (eventRetentionInDays: number) =>
      api.call(
        `PUT ${NS_TOPIC}`,
        { namespace: 'shop', topic: 'orders' },
        { properties: { eventRetentionInDays } },
      );
    expect((await put(7)).statusCode).toBe(201);
    const stored = async () => (await api.stores.namespaceTopics.get('shop', 'orders')) as NamespaceTopic;
    /** A namespace subscription of the topic written meanwhile, keeping events `ttlDays`. */
    const subscribed =
      (ttlDays: number): Race =>
      async () => {
        await api.stores.subscriptions.put(
          subscription({
            topic: 'shop/orders',
            deliveryProfile: 'namespace',
            eventDeliverySchema: 'CloudEventSchemaV1_0',
            retry: { maxAttempts: 30, ttlMs: ttlDays * 86_400_000 },
          }),
          undefined,
        );
      };
    return { api, put, stored, subscribed };
  }

  it('is made again over it: 200, the new retention and the subscriptions version kept', async () => {
    const { api, put, stored, subscribed } = await withNamespaceTopic();
    const created = await stored();
    api.races.push(subscribed(1));

    const answer = await put(3);

    expect(answer.statusCode).toBe(200);
    expect(api.writes.namespaceTopics).toBe(3);
    expect(await stored()).toMatchObject({
      eventRetentionInDays: 3,
      createdAt: created.createdAt,
      subscriptionsVersion: created.subscriptionsVersion + 1,
    });
  });

  it('checks again over the fresh read: a subscription keeping events longer refuses the shorter retention', async () => {
    const { api, put, stored, subscribed } = await withNamespaceTopic();
    api.races.push(subscribed(5));

    const error = await refusal(put(3));

    expect(error.statusCode).toBe(400);
    expect(error.message).toMatch(/^properties\.eventRetentionInDays: event subscription 'audit'/);
    expect((await stored()).eventRetentionInDays).toBe(7);
  });
});

describe('changeOverRead', () => {
  it('passes other failures of the write on as they are, without writing again', async () => {
    const failure = new Error('table unreachable');
    let writes = 0;
    const made = changeOverRead({
      read: async () => ({ n: 1 }),
      write: async () => {
        writes += 1;
        throw failure;
      },
      sameDefinition: () => true,
      conflictMessage: 'raced',
    });
    await expect(made).rejects.toBe(failure);
    expect(writes).toBe(1);
  });

  it('answers with the item it replaced last', async () => {
    const reads = [{ n: 1 }, { n: 2 }];
    let writes = 0;
    const made = await changeOverRead({
      read: async () => reads.shift(),
      write: async (existing) => {
        writes += 1;
        if (writes === 1) throw new ConcurrentChangeError('item');
        return { over: existing };
      },
      sameDefinition: () => true,
      conflictMessage: 'raced',
    });
    expect(made).toEqual({ written: { over: { n: 2 } }, replaced: { n: 2 } });
  });
});

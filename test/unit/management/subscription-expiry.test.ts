/**
 * Subscription expiry (`expirationTimeUtc`), as the original's management API has it: "after the
 * time, the subscription stops receiving events and is deleted". The management API takes the
 * time on classic and namespace subscriptions, shows it, refuses a time already past (naming the
 * field), and deletes an expired subscription the first time it meets it: reads answer 404, lists
 * leave it out, a PUT under its name creates a new one, and its health and backlog are cleaned up
 * as a delete request would.
 */
import { subscriptionExpired } from '../../../shared/domain/model';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import { handleManagement, type ManagementDeps } from '../../../shared/management/api';
import { parseJob } from '../../../shared/queue/job-codec';
import { RecordingQueue, VirtualClock } from '../../support/fakes';
import { routeTestDeps } from '../../support/management-routes';
import { MemoryHealthStore, memoryStores, seedTopic } from '../../support/memory-stores';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const MINUTE = 60_000;
const SUB = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const NS_SUB = '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}';
const classic = { topic: 'orders', subscription: 'audit' };
const inNamespace = { namespace: 'shop', topic: 'orders', subscription: 'audit' };

async function api() {
  const stores = memoryStores();
  const clock = new VirtualClock(NOW);
  const queue = new RecordingQueue(clock);
  const health = new MemoryHealthStore();
  let ids = 0;
  const backlogHolds = new Set<string>();
  const deps = routeTestDeps(stores, {
    healthStore: health,
    queue,
    clock,
    newId: () => `id-${++ids}`,
    validationWindowMs: 300_000,
    // A backlog holding events, for the subscriptions named in `backlogHolds`.
    backlog: {
      getMeta: async (_topic: string, subscription: string) =>
        backlogHolds.has(subscription) ? { state: 'holding', token: 't-1' } : undefined,
    } as unknown as ManagementDeps['backlog'],
  });
  await seedTopic(stores, 'orders');
  await seedTopic(stores, 'shop/orders');

  /** The answer to one request: its status, and its body parsed (or the error's message). */
  const call = async (
    routeKey: string,
    pathParameters: Record<string, string>,
    body?: unknown,
  ): Promise<{ statusCode: number; body: Record<string, unknown> }> => {
    try {
      const answer = await handleManagement(
        {
          routeKey,
          pathParameters,
          requestContext: {},
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        } as unknown as HttpEvent,
        deps,
      );
      return {
        statusCode: answer.statusCode as number,
        body: answer.body === undefined || answer.body === '' ? {} : JSON.parse(answer.body as string),
      };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { statusCode: error.statusCode, body: { code: error.code, message: error.message } };
    }
  };
  const destination = {
    endpointType: 'WebHook',
    properties: { endpointUrl: 'https://hooks.example.test/in' },
  };
  const putClassic = (expirationTimeUtc?: unknown, name = 'audit') =>
    call(
      `PUT ${SUB}`,
      { topic: 'orders', subscription: name },
      { properties: { destination, ...(expirationTimeUtc === undefined ? {} : { expirationTimeUtc }) } },
    );
  const putNamespaced = (expirationTimeUtc?: unknown) =>
    call(`PUT ${NS_SUB}`, inNamespace, {
      properties: {
        deliveryConfiguration: { deliveryMode: 'Push', push: { destination } },
        ...(expirationTimeUtc === undefined ? {} : { expirationTimeUtc }),
      },
    });
  /** Backlog ticks sent now: the subscription and version each names. */
  const ticks = () =>
    queue.sent.flatMap(({ job }) => {
      const parsed = parseJob(job.body);
      return parsed.kind === 'backlog-tick'
        ? [{ subscription: parsed.target.subscription, version: parsed.target.version }]
        : [];
    });
  return { stores, clock, health, backlogHolds, call, putClassic, putNamespaced, ticks };
}

const at = (ms: number) => new Date(ms).toISOString();

describe('subscription expiry (expirationTimeUtc): the rule', () => {
  it('a subscription has expired from its expiration time on, and one without never expires', () => {
    const time = at(NOW);
    expect(subscriptionExpired({ expirationTime: time }, NOW - 1)).toBe(false);
    expect(subscriptionExpired({ expirationTime: time }, NOW)).toBe(true);
    expect(subscriptionExpired({}, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('subscription expiry (expirationTimeUtc): the management API', () => {
  it('takes the time on a classic subscription, in UTC, and shows it; null or nothing clears it', async () => {
    const { call, putClassic, stores } = await api();
    const created = await putClassic('2026-11-23T14:30:00+01:00');
    expect(created.statusCode).toBe(201);
    expect(created.body.properties).toMatchObject({ expirationTimeUtc: '2026-11-23T13:30:00.000Z' });
    expect((await stores.subscriptions.get('orders', 'audit'))?.expirationTime).toBe(
      '2026-11-23T13:30:00.000Z',
    );
    // A time without an offset is UTC, as the original reads it; a date alone is its midnight.
    expect((await putClassic('2026-11-24T08:00:00')).body.properties).toMatchObject({
      expirationTimeUtc: '2026-11-24T08:00:00.000Z',
    });
    expect((await putClassic('2026-12-01')).body.properties).toMatchObject({
      expirationTimeUtc: '2026-12-01T00:00:00.000Z',
    });
    expect((await call(`GET ${SUB}`, classic)).body.properties).toMatchObject({
      expirationTimeUtc: '2026-12-01T00:00:00.000Z',
    });
    const cleared = await putClassic(null);
    expect(cleared.statusCode).toBe(200);
    expect(cleared.body.properties).not.toHaveProperty('expirationTimeUtc');
    expect((await stores.subscriptions.get('orders', 'audit'))?.expirationTime).toBeUndefined();
  });

  it('refuses a time that is not in the future, or not a time, with a 400 naming the field, and stores nothing', async () => {
    const { putClassic, stores } = await api();
    const now = await putClassic(at(NOW));
    expect(now.statusCode).toBe(400);
    expect(now.body.message).toBe(
      'properties.expirationTimeUtc: must be in the future (got 2026-11-23T12:00:00.000Z; it is now 2026-11-23T12:00:00.000Z).',
    );
    for (const bad of ['tomorrow', '2026-02-30', '2026-11-30T24:00:00Z', 1_800_000_000_000]) {
      const refused = await putClassic(bad);
      expect(refused.statusCode).toBe(400);
      expect(refused.body.message).toMatch(
        /^properties\.expirationTimeUtc: must be an ISO 8601 date or date-time/,
      );
    }
    expect(await stores.subscriptions.list('orders')).toEqual([]);
  });

  it('from the expiration time on, the subscription is gone: GET answers 404, the list leaves it out, and it is deleted', async () => {
    const { call, putClassic, clock, stores } = await api();
    await putClassic(at(NOW + 10 * MINUTE));
    await putClassic(undefined, 'keeper');
    clock.advance(10 * MINUTE - 1);
    expect((await call(`GET ${SUB}`, classic)).statusCode).toBe(200);

    clock.advance(1);
    const list = await call('GET /admin/topics/{topic}/eventSubscriptions', { topic: 'orders' });
    expect((list.body.value as Array<{ name: string }>).map((item) => item.name)).toEqual(['keeper']);
    // Listing met it expired, and deleted it.
    expect(await stores.subscriptions.get('orders', 'audit')).toBeUndefined();
    const read = await call(`GET ${SUB}`, classic);
    expect(read.statusCode).toBe(404);
    expect(read.body.message).toBe("The event subscription 'audit' does not exist on topic 'orders'.");
  });

  it('a read that meets it expired deletes it as a delete request would: health reset, its backlog ticked now', async () => {
    const { call, putClassic, clock, stores, health, backlogHolds, ticks } = await api();
    await putClassic(at(NOW + MINUTE));
    const version = (await stores.subscriptions.get('orders', 'audit'))?.version as number;
    await health.put(
      {
        topic: 'orders',
        subscription: 'audit',
        endpointUrl: 'https://hooks.example.test/in',
        consecutiveFailures: 12,
        probations: 3,
        rev: 0,
      },
      undefined,
    );
    backlogHolds.add('audit');
    clock.advance(MINUTE);

    expect((await call(`GET ${SUB}`, classic)).statusCode).toBe(404);
    expect(await stores.subscriptions.get('orders', 'audit')).toBeUndefined();
    expect(await health.get('orders', 'audit')).toMatchObject({ consecutiveFailures: 0, probations: 0 });
    // The tick names a version above the one deleted, so workers read the subscription again.
    expect(ticks()).toEqual([{ subscription: 'audit', version: expect.any(Number) }]);
    expect(ticks()[0]?.version).toBeGreaterThan(version);
  });

  it('a PUT under an expired name creates a new subscription (201, a new uid), not a conflict', async () => {
    const { putClassic, clock, stores } = await api();
    await putClassic(at(NOW + MINUTE));
    const old = await stores.subscriptions.get('orders', 'audit');
    clock.advance(2 * MINUTE);
    const again = await putClassic();
    expect(again.statusCode).toBe(201);
    const current = await stores.subscriptions.get('orders', 'audit');
    expect(current?.uid).not.toBe(old?.uid);
    expect(current?.expirationTime).toBeUndefined();
    expect(current?.createdAt).toBe(at(NOW + 2 * MINUTE));
  });

  it('a DELETE of an expired subscription deletes it and answers as for none (204)', async () => {
    const { call, putClassic, clock, stores } = await api();
    await putClassic(at(NOW + MINUTE));
    clock.advance(MINUTE);
    expect((await call(`DELETE ${SUB}`, classic)).statusCode).toBe(204);
    expect(await stores.subscriptions.get('orders', 'audit')).toBeUndefined();
  });

  it("an expired subscription does not count against the topic's 500", async () => {
    const { putClassic, clock, stores } = await api();
    await putClassic(at(NOW + MINUTE));
    clock.advance(MINUTE);
    // The quota check lists the topic's subscriptions, which deletes the expired one.
    expect((await putClassic(undefined, 'other')).statusCode).toBe(201);
    expect((await stores.subscriptions.list('orders')).map((item) => item.name)).toEqual(['other']);
  });

  it('a namespace subscription takes the time too, shows it, and is gone once it has come', async () => {
    const { call, putNamespaced, clock, stores } = await api();
    const created = await putNamespaced('2026-11-23T12:05:00Z');
    expect(created.statusCode).toBe(201);
    expect(created.body.properties).toMatchObject({ expirationTimeUtc: '2026-11-23T12:05:00.000Z' });
    expect((await putNamespaced('2026-11-23T11:00:00Z')).body.message).toMatch(
      /^properties\.expirationTimeUtc: must be in the future/,
    );
    clock.advance(5 * MINUTE);
    expect((await call(`GET ${NS_SUB}`, inNamespace)).statusCode).toBe(404);
    const list = await call('GET /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions', {
      namespace: 'shop',
      topic: 'orders',
    });
    expect(list.body.value).toEqual([]);
    expect(await stores.subscriptions.list('shop/orders')).toEqual([]);
  });
});

describe('subscription expiry: deleting only the version read', () => {
  it('leaves a subscription changed since it was read (a new one under the name) in place', async () => {
    const { putClassic, clock, stores } = await api();
    await putClassic(at(NOW + MINUTE));
    const expired = await stores.subscriptions.get('orders', 'audit');
    clock.advance(MINUTE);
    await putClassic(); // meets the expired one, deletes it and creates a new one
    const current = await stores.subscriptions.get('orders', 'audit');
    expect(
      await stores.subscriptions.delete('orders', 'audit', new Date(clock.now()), expired?.version),
    ).toBe(false);
    expect(await stores.subscriptions.get('orders', 'audit')).toEqual(current);
  });
});

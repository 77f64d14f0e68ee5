import { MANAGEMENT_FUNCTION_ROUTE_KEYS } from '../../../functions/management';
import { ROUTES } from '../../../shared/config/routes';
import type { EndpointHealth } from '../../../shared/domain/health';
import type { HttpEvent, HttpResult } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import { handleManagement, MANAGEMENT_ROUTE_KEYS } from '../../../shared/management/api';
import type { SubscriptionStore } from '../../../shared/storage/subscriptions';
import {
  HEALTHY_DOCUMENT,
  RecordingQueue,
  subscription as subscriptionOf,
  VirtualClock,
} from '../../support/fakes';
import { routeTestDeps } from '../../support/management-routes';
import { MemoryBacklogStore, MemoryHealthStore, memoryStores } from '../../support/memory-stores';

const SUBSCRIPTION = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const HEALTH = `GET ${SUBSCRIPTION}/health`;
const ENABLE = `POST ${SUBSCRIPTION}/enable`;
const DELETE = `DELETE ${SUBSCRIPTION}`;
const URL_NOW = 'https://hooks.example.test/in?code=secret';

/** Subscriptions in memory, with every read written down. */
function watchedSubscriptions() {
  const { subscriptions } = memoryStores();
  const reads: Array<{ consistent: boolean }> = [];
  const watched: SubscriptionStore = {
    get: (topic, name, options = {}) => {
      reads.push({ consistent: options.consistent === true });
      return subscriptions.get(topic, name, options);
    },
    list: (topic) => subscriptions.list(topic),
    put: (subscription, replaces) => subscriptions.put(subscription, replaces),
    delete: (topic, name, now, version) => subscriptions.delete(topic, name, now, version),
  };
  return { store: watched, reads };
}

/** The health store, with every call written down (and the clock's time at each). */
class WatchedHealthStore extends MemoryHealthStore {
  readonly calls: string[] = [];
  putFails = false;
  constructor(private readonly clock: VirtualClock) {
    super();
  }
  override async get(topic: string, subscription: string, options?: { consistent?: boolean }) {
    this.calls.push(`get ${options?.consistent === true ? 'consistent' : 'eventual'} @${this.clock.now()}`);
    return super.get(topic, subscription);
  }
  override async put(health: EndpointHealth, expectedRev: number | undefined) {
    this.calls.push(`put rev ${health.rev} @${this.clock.now()}`);
    if (this.putFails) throw new Error('table unavailable');
    return super.put(health, expectedRev);
  }
}

async function harness() {
  const clock = new VirtualClock(Date.UTC(2026, 5, 1, 12));
  const subscriptions = watchedSubscriptions();
  const health = new WatchedHealthStore(clock);
  await subscriptions.store.put(
    subscriptionOf({ destination: { endpointType: 'WebHook', endpointUrl: URL_NOW } }),
    undefined,
  );
  const deps = routeTestDeps(memoryStores(), {
    subscriptions: subscriptions.store,
    clock,
    healthStore: health,
    healthCacheMs: 2000,
    propagationDelayMs: 1000,
    backlog: new MemoryBacklogStore(),
    queue: new RecordingQueue(clock),
  });
  const call = (routeKey: string, params: Record<string, string> = {}): Promise<HttpResult> =>
    handleManagement(
      {
        routeKey,
        pathParameters: { topic: 'orders', subscription: 'audit', ...params },
      } as unknown as HttpEvent,
      deps,
    );
  const record = (fields: Partial<EndpointHealth>): EndpointHealth => ({
    topic: 'orders',
    subscription: 'audit',
    endpointUrl: URL_NOW,
    consecutiveFailures: 0,
    probations: 0,
    rev: 1,
    ...fields,
  });
  return { clock, subscriptions, health, call, record };
}

const bodyOf = (result: HttpResult) => JSON.parse(result.body as string);

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('GET .../health', () => {
  it('shows an endpoint with nothing on file as healthy', async () => {
    const h = await harness();
    const result = await h.call(HEALTH);
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ ...HEALTHY_DOCUMENT, endpointUrl: 'https://hooks.example.test/in' });
  });

  it('reads the subscription and the health record strongly consistently', async () => {
    const h = await harness();
    await h.call(HEALTH);
    expect(h.subscriptions.reads).toEqual([{ consistent: true }]);
    expect(h.health.calls).toEqual([`get consistent @${h.clock.now()}`]);
  });

  it('shows a probation with its end, the failures and the last outcome', async () => {
    const h = await harness();
    const now = h.clock.now();
    await h.health.put(
      h.record({
        consecutiveFailures: 3,
        probations: 1,
        probationUntil: now + 30_000,
        probationOutcome: 'Busy',
        lastOutcome: 'Busy',
        lastFailureAt: now - 1000,
        lastSuccessAt: now - 60_000,
      }),
      undefined,
    );
    expect(bodyOf(await h.call(HEALTH))).toEqual({
      state: 'Probation',
      probationUntil: new Date(now + 30_000).toISOString(),
      consecutiveFailures: 3,
      lastOutcome: 'Busy',
      lastFailureAt: new Date(now - 1000).toISOString(),
      lastSuccessAt: new Date(now - 60_000).toISOString(),
      endpointUrl: 'https://hooks.example.test/in',
      failingSince: null,
      disabledAt: null,
      disabledReason: null,
      pausedAt: null,
      held: null,
      provisioningState: 'Succeeded',
    });
  });

  it('leaves out a probation that has ended', async () => {
    const h = await harness();
    const now = h.clock.now();
    await h.health.put(
      h.record({ consecutiveFailures: 1, probations: 1, probationUntil: now - 1, lastOutcome: 'Busy' }),
      undefined,
    );
    expect(bodyOf(await h.call(HEALTH))).toMatchObject({ state: 'Healthy', probationUntil: null });
  });

  it('tells unhealthy and disabled endpoints apart', async () => {
    const h = await harness();
    const now = h.clock.now();
    await h.health.put(
      h.record({
        consecutiveFailures: 12,
        probations: 3,
        unhealthySince: now - 600_000,
        lastOutcome: 'TimedOut',
      }),
      undefined,
    );
    expect(bodyOf(await h.call(HEALTH))).toMatchObject({ state: 'Unhealthy', consecutiveFailures: 12 });
    await h.health.put(
      h.record({ consecutiveFailures: 1, disabledAt: now - 5000, lastOutcome: 'Disabled', rev: 2 }),
      1,
    );
    expect(bodyOf(await h.call(HEALTH))).toMatchObject({ state: 'Disabled', lastOutcome: 'Disabled' });
  });

  it('shows a record about the endpoint the subscription had before as fresh', async () => {
    const h = await harness();
    await h.health.put(
      h.record({
        endpointUrl: 'https://old.example.test/hook',
        consecutiveFailures: 4,
        disabledAt: h.clock.now(),
        lastOutcome: 'Disabled',
      }),
      undefined,
    );
    expect(bodyOf(await h.call(HEALTH))).toEqual({
      ...HEALTHY_DOCUMENT,
      endpointUrl: 'https://hooks.example.test/in',
    });
  });

  it('answers 404 for a subscription that does not exist', async () => {
    const h = await harness();
    const error = await apiError(h.call(HEALTH, { subscription: 'missing' }));
    expect(error.statusCode).toBe(404);
    expect(error.message).toBe("The event subscription 'missing' does not exist on topic 'orders'.");
    expect(h.health.calls).toEqual([]);
  });
});

describe('POST .../enable', () => {
  it('resets the record (one revision up), waits until workers let their cached copy go, then answers healthy', async () => {
    const h = await harness();
    const start = h.clock.now();
    await h.health.put(
      h.record({ consecutiveFailures: 2, disabledAt: start - 1000, lastOutcome: 'Disabled', rev: 1 }),
      undefined,
    );
    h.health.calls.length = 0;
    const result = await h.call(ENABLE);
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toMatchObject({ state: 'Healthy', consecutiveFailures: 0, lastOutcome: null });
    expect([...h.health.items.values()]).toEqual([
      expect.objectContaining({ rev: 2, resetAt: start, consecutiveFailures: 0, endpointUrl: '' }),
    ]);
    expect(h.health.calls).toEqual([
      `get consistent @${start}`,
      `put rev 2 @${start}`,
      `get consistent @${start + 2000}`,
    ]);
    expect(h.clock.now()).toBe(start + 2000);
  });

  it('answers 404 for a subscription that does not exist, and removes nothing', async () => {
    const h = await harness();
    const error = await apiError(h.call(ENABLE, { subscription: 'missing' }));
    expect(error.statusCode).toBe(404);
    expect(h.health.calls).toEqual([]);
  });
});

describe('DELETE .../{subscription}', () => {
  it('resets the health record after the delete', async () => {
    const h = await harness();
    await h.health.put(h.record({ consecutiveFailures: 5, lastOutcome: 'Busy', rev: 3 }), undefined);
    const result = await h.call(DELETE);
    expect(result.statusCode).toBe(200);
    expect(await h.subscriptions.store.list('orders')).toEqual([]);
    expect([...h.health.items.values()]).toEqual([
      expect.objectContaining({ rev: 4, consecutiveFailures: 0, endpointUrl: '' }),
    ]);
  });

  it('still answers 200 when the record cannot be reset (best effort)', async () => {
    const h = await harness();
    h.health.putFails = true;
    expect((await h.call(DELETE)).statusCode).toBe(200);
    expect(h.health.calls).toEqual([expect.stringMatching(/^get /), expect.stringMatching(/^put /)]);
  });

  it('touches no health record when there was nothing to delete', async () => {
    const h = await harness();
    expect((await h.call(DELETE, { subscription: 'missing' })).statusCode).toBe(204);
    expect(h.health.calls).toEqual([]);
  });
});

describe('management routes', () => {
  it('are exactly the admin routes of the shared route list', () => {
    const shared = ROUTES.filter((route) => route.function === 'management').map(
      (route) => `${route.method} ${route.path}`,
    );
    expect([...MANAGEMENT_FUNCTION_ROUTE_KEYS].sort()).toEqual([...shared].sort());
    expect(MANAGEMENT_ROUTE_KEYS.length).toBe(MANAGEMENT_FUNCTION_ROUTE_KEYS.length - 1);
    expect(shared).toEqual(expect.arrayContaining([HEALTH, ENABLE]));
  });
});

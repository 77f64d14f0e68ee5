/**
 * A subscription's endpoint-health routes, built from a path and a finder: `health` shows the
 * stored record (a record about another endpoint URL as fresh), `enable` resets it and answers
 * only once workers' cached copies have expired.
 */
import type { EndpointHealth } from '../../../shared/domain/health';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { type HealthRouteDeps, healthOperations } from '../../../shared/management/health-routes';
import type { SubscriptionFinder } from '../../../shared/management/operation';
import { silentLogger } from '../../../shared/observability/logging';
import type { ReadOptions } from '../../../shared/storage/table';
import { HEALTHY_DOCUMENT, RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { MemoryBacklogStore, MemoryHealthStore } from '../../support/memory-stores';

const PATH = '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}';
const NOW = Date.parse('2026-11-22T10:00:00Z');
const ENDPOINT = 'https://hooks.example.test/in';
const SUB = subscription({
  topic: 'shop/orders',
  name: 'push',
  deliveryProfile: 'namespace',
  destination: { endpointType: 'WebHook', endpointUrl: ENDPOINT },
});
const HEALTH_CACHE_MS = 5000;

const unhealthy = (endpointUrl = ENDPOINT): EndpointHealth => ({
  topic: 'shop/orders',
  subscription: 'push',
  endpointUrl,
  consecutiveFailures: 12,
  probations: 3,
  probationUntil: NOW + 60_000,
  probationOutcome: 'Busy',
  lastOutcome: 'Busy',
  lastFailureAt: NOW - 1000,
  unhealthySince: NOW - 600_000,
  rev: 4,
});

function setup() {
  const clock = new VirtualClock(NOW);
  const healthStore = new MemoryHealthStore();
  const lookups: Array<ReadOptions | undefined> = [];
  const find: SubscriptionFinder<HealthRouteDeps> = async (_event, _deps, options) => {
    lookups.push(options);
    return SUB;
  };
  const backlog = new MemoryBacklogStore();
  const queue = new RecordingQueue(clock);
  const deps: HealthRouteDeps = {
    healthStore,
    clock,
    healthCacheMs: HEALTH_CACHE_MS,
    backlog,
    queue,
    logger: silentLogger,
  };
  const operations = healthOperations(PATH, find);
  const call = async (method: string, suffix: string) => {
    const operation = operations[`${method} ${PATH}${suffix}`];
    if (operation === undefined) throw new Error(`no route ${method} ${suffix}`);
    const answer = await operation({ routeKey: `${method} ${PATH}${suffix}` } as HttpEvent, deps);
    return { statusCode: answer.statusCode, document: JSON.parse(answer.body as string) };
  };
  return { clock, healthStore, backlog, queue, lookups, call };
}

describe('health routes', () => {
  it('shows the stored health of the subscription’s endpoint, read strongly consistently', async () => {
    const { healthStore, lookups, call } = setup();
    await healthStore.put(unhealthy(), undefined);

    const answer = await call('GET', '/health');

    expect(answer.statusCode).toBe(200);
    expect(answer.document).toEqual({
      state: 'Unhealthy',
      probationUntil: new Date(NOW + 60_000).toISOString(),
      consecutiveFailures: 12,
      lastOutcome: 'Busy',
      lastFailureAt: new Date(NOW - 1000).toISOString(),
      lastSuccessAt: null,
      endpointUrl: ENDPOINT,
      failingSince: null,
      disabledAt: null,
      disabledReason: null,
      pausedAt: null,
      held: null,
      provisioningState: 'Succeeded',
    });
    expect(lookups).toEqual([{ consistent: true }]);
  });

  it('shows a record about another endpoint URL as a healthy endpoint', async () => {
    const { healthStore, call } = setup();
    await healthStore.put(unhealthy('https://old.example.test/in'), undefined);

    expect((await call('GET', '/health')).document).toEqual({ ...HEALTHY_DOCUMENT, endpointUrl: ENDPOINT });
  });

  it('enables the endpoint: a reset record, answered once workers’ cached copies have expired', async () => {
    const { clock, healthStore, call } = setup();
    await healthStore.put(unhealthy(), undefined);

    const answer = await call('POST', '/enable');

    expect(answer).toEqual({ statusCode: 200, document: { ...HEALTHY_DOCUMENT, endpointUrl: ENDPOINT } });
    expect(await healthStore.get('shop/orders', 'push')).toMatchObject({
      consecutiveFailures: 0,
      resetAt: NOW,
    });
    expect(clock.now()).toBe(NOW + HEALTH_CACHE_MS);
  });

  it('pauses: the failures on file stay, the state says Paused, answered once workers let their copies go', async () => {
    const { clock, healthStore, call } = setup();
    await healthStore.put(unhealthy(), undefined);

    const paused = await call('POST', '/pause');

    expect(paused.statusCode).toBe(200);
    expect(paused.document).toMatchObject({
      state: 'Paused',
      pausedAt: new Date(NOW).toISOString(),
      consecutiveFailures: 12,
    });
    expect(clock.now()).toBe(NOW + HEALTH_CACHE_MS);
    expect(await healthStore.get('shop/orders', 'push')).toMatchObject({ pausedAt: NOW, rev: 5 });

    // Pausing again changes nothing (no write: the pause keeps its time).
    await call('POST', '/pause');
    expect(await healthStore.get('shop/orders', 'push')).toMatchObject({ pausedAt: NOW, rev: 5 });
  });

  it('resumes: the pause is gone, the rest stays (the backlog wake: backlog.test.ts)', async () => {
    const { healthStore, call } = setup();
    await healthStore.put({ ...unhealthy(), pausedAt: NOW - 60_000 }, undefined);

    const resumed = await call('POST', '/resume');

    expect(resumed.document).toMatchObject({ state: 'Unhealthy', pausedAt: null, consecutiveFailures: 12 });
    const stored = await healthStore.get('shop/orders', 'push');
    expect(stored?.pausedAt).toBeUndefined();
    expect(stored).toMatchObject({ unhealthySince: NOW - 600_000, rev: 5 });
  });

  it('pauses a subscription with no record yet, about its current endpoint', async () => {
    const { healthStore, call } = setup();
    expect((await call('POST', '/pause')).document).toEqual({
      ...HEALTHY_DOCUMENT,
      state: 'Paused',
      endpointUrl: ENDPOINT,
      pausedAt: new Date(NOW).toISOString(),
    });
    expect(await healthStore.get('shop/orders', 'push')).toMatchObject({
      endpointUrl: ENDPOINT,
      pausedAt: NOW,
      rev: 1,
    });
  });
});

/**
 * A subscription's backlog as management sees and moves it: the health document's `held` (from
 * the backlog's index, only the current uid's events), and the tick sent at once, with META's
 * token, when the endpoint is enabled, the endpoint URL changes or the subscription is deleted.
 */
import type { BacklogMeta } from '../../../shared/domain/backlog';
import { backlogTickJobSchema } from '../../../shared/domain/delivery';
import type { Subscription } from '../../../shared/domain/model';
import { namespaceTopicId } from '../../../shared/domain/names';
import type { HttpEvent, HttpResult } from '../../../shared/http/api-gateway';
import { handleManagement } from '../../../shared/management/api';
import { wakeBacklog } from '../../../shared/management/backlog-wake';
import { type LoggerLike, silentLogger } from '../../../shared/observability/logging';
import { BACKLOG_TICK_QUEUE } from '../../../shared/queue/job-codec';
import {
  deliveryTarget,
  item,
  RecordingQueue,
  subscription as subscriptionOf,
  VirtualClock,
} from '../../support/fakes';
import { routeTestDeps } from '../../support/management-routes';
import { MemoryBacklogStore, MemoryHealthStore, memoryStores, seedTopic } from '../../support/memory-stores';

const NOW = Date.UTC(2026, 5, 1, 12);
const HOUR = 3_600_000;
const ENDPOINT = 'https://hooks.example.test/in';
const CLASSIC = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const NAMESPACED = '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}';

interface Setup {
  topic?: string;
  uid?: string;
}

async function harness({ topic = 'orders', uid = 'uid-1' }: Setup = {}) {
  const clock = new VirtualClock(NOW);
  const stores = memoryStores();
  await seedTopic(stores, topic);
  const current = subscriptionOf({
    topic,
    uid,
    version: NOW - HOUR,
    ...(topic.includes('/') ? { deliveryProfile: 'namespace' as const } : {}),
    destination: { endpointType: 'WebHook', endpointUrl: ENDPOINT },
  });
  await stores.subscriptions.put(current, undefined);
  const backlog = new MemoryBacklogStore();
  const queue = new RecordingQueue(clock);
  const warnings: Array<Record<string, unknown>> = [];
  const logger: LoggerLike = {
    debug: () => {},
    info: () => {},
    warn: (_message, ...extra) => warnings.push(Object.assign({}, ...extra)),
    error: () => {},
  };
  const deps = routeTestDeps(stores, {
    clock,
    newId: () => 'new-id',
    healthStore: new MemoryHealthStore(),
    healthCacheMs: 2000,
    propagationDelayMs: 1000,
    backlog,
    queue,
    logger,
  });

  /** Stores `count` events for the subscription (or for another uid), published `ago` ms before now. */
  const store = (count: number, ago: number, forUid = uid) =>
    backlog.putSegment({
      target: deliveryTarget({ topic, uid: forUid }),
      segmentId: `seg-${forUid}-${count}-${ago}`,
      lines: Array.from({ length: count }, (_, index) => ({
        dueAt: NOW + HOUR,
        heldBy: 'probation' as const,
        item: item(`${forUid}-${ago}-${index}`, NOW - ago),
      })),
      createdAt: NOW,
    });
  const meta = (fields: Partial<BacklogMeta> = {}): Promise<boolean> =>
    backlog.putMeta(
      {
        topic,
        subscription: 'audit',
        uid,
        endpointUrl: ENDPOINT,
        token: 'token-1',
        wakeAt: NOW + 30 * 60_000,
        state: 'holding',
        summary: { events: 0 },
        updatedAt: NOW,
        ...fields,
      },
      undefined,
    );
  const path = topic.includes('/') ? NAMESPACED : CLASSIC;
  const params = topic.includes('/')
    ? { namespace: topic.split('/')[0], topic: topic.split('/')[1], subscription: 'audit' }
    : { topic, subscription: 'audit' };
  const call = (method: string, suffix = '', body?: unknown): Promise<HttpResult> =>
    handleManagement(
      {
        routeKey: `${method} ${path}${suffix}`,
        pathParameters: params,
        requestContext: {},
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      } as unknown as HttpEvent,
      deps,
    );
  const held = async () => JSON.parse((await call('GET', '/health')).body as string).held;
  /** The backlog ticks sent, parsed, with their delay. */
  const ticks = () =>
    queue.sent.map(({ queue: key, job }) => ({
      queue: key,
      delaySeconds: job.delaySeconds,
      job: backlogTickJobSchema.parse(JSON.parse(job.body)),
    }));
  return { clock, stores, current, backlog, queue, warnings, store, meta, call, held, ticks };
}

const putBody = (endpointUrl: string) => ({
  properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl } } },
});

describe('the health document’s held events', () => {
  it('shows the events, the oldest publish time, the next wake and the state', async () => {
    const h = await harness();
    await h.meta();
    await h.store(3, 2 * HOUR);
    await h.store(2, HOUR);

    expect(await h.held()).toEqual({
      events: 5,
      oldestPublishedAt: new Date(NOW - 2 * HOUR).toISOString(),
      until: new Date(NOW + 30 * 60_000).toISOString(),
      state: 'Holding',
    });
  });

  it.each([
    ['draining', 'Draining'],
    ['waiting', 'Waiting'],
  ] as const)('names the state %s as %s, and leaves out a wake it does not have', async (state, shown) => {
    const h = await harness();
    await h.meta({ state, wakeAt: undefined });
    await h.store(1, HOUR);

    expect(await h.held()).toEqual({
      events: 1,
      oldestPublishedAt: new Date(NOW - HOUR).toISOString(),
      state: shown,
    });
  });

  it('counts only the events of the subscription as it is now, not those of a deleted one of the same name', async () => {
    const h = await harness();
    await h.meta();
    await h.store(4, 3 * HOUR, 'uid-old');
    await h.store(1, HOUR);

    expect(await h.held()).toMatchObject({
      events: 1,
      oldestPublishedAt: new Date(NOW - HOUR).toISOString(),
    });
  });

  it('is null with no META, with an idle one, or with no events of the subscription', async () => {
    const h = await harness();
    expect(await h.held()).toBeNull();

    await h.store(2, HOUR, 'uid-old');
    await h.meta();
    expect(await h.held()).toBeNull();

    await h.store(2, HOUR);
    await h.backlog.putMeta(
      { ...((await h.backlog.getMeta('orders', 'audit')) as BacklogMeta), token: 'token-2', state: 'idle' },
      'token-1',
    );
    expect(await h.held()).toBeNull();
  });

  it('works for a namespace topic’s subscription, whose backlog is under <namespace>/<topic>', async () => {
    const h = await harness({ topic: namespaceTopicId('shop', 'orders') });
    await h.meta({ state: 'waiting' });
    await h.store(2, HOUR);

    expect(await h.held()).toMatchObject({ events: 2, state: 'Waiting' });
  });
});

describe('a backlog’s tick sent at once', () => {
  it('goes on enable, with META’s token and no delay, once workers have let their cached health go', async () => {
    const h = await harness();
    await h.meta();
    await h.store(1, HOUR);

    const answer = await h.call('POST', '/enable');

    expect(answer.statusCode).toBe(200);
    expect(h.ticks()).toEqual([
      {
        queue: BACKLOG_TICK_QUEUE,
        delaySeconds: 0,
        job: expect.objectContaining({ kind: 'backlog-tick', token: 'token-1' }),
      },
    ]);
    expect(h.ticks()[0]?.job.target).toMatchObject({ subscription: 'audit', uid: 'uid-1' });
    expect(h.queue.sent[0]?.at).toBe(NOW + 2000);
  });

  it('goes on resume, with META’s token and no delay, once workers have let their cached health go', async () => {
    const h = await harness();
    await h.meta();
    await h.store(1, HOUR);

    expect((await h.call('POST', '/pause')).statusCode).toBe(200);
    expect(h.ticks()).toEqual([]);
    const answer = await h.call('POST', '/resume');

    expect(answer.statusCode).toBe(200);
    expect(h.ticks()).toEqual([
      {
        queue: BACKLOG_TICK_QUEUE,
        delaySeconds: 0,
        job: expect.objectContaining({ kind: 'backlog-tick', token: 'token-1' }),
      },
    ]);
  });

  it('goes for a namespace topic’s subscription too', async () => {
    const h = await harness({ topic: namespaceTopicId('shop', 'orders') });
    await h.meta();

    await h.call('POST', '/enable');

    expect(h.ticks().map((tick) => tick.job.target.topic)).toEqual([{ namespace: 'shop', name: 'orders' }]);
  });

  it('is not sent without a backlog: no META, or an idle one', async () => {
    const h = await harness();
    await h.call('POST', '/enable');
    await h.meta({ state: 'idle', wakeAt: undefined });
    await h.call('POST', '/enable');

    expect(h.queue.sent).toEqual([]);
  });

  it('is not sent while a tick holds the lease, and is once the lease has run out', async () => {
    const h = await harness();
    await h.meta({ state: 'draining', lease: { until: NOW + 60_000 } });

    await h.call('POST', '/enable');
    expect(h.queue.sent).toEqual([]);

    h.clock.advance(60_000);
    await h.call('POST', '/enable');
    expect(h.ticks()).toHaveLength(1);
  });

  it('is best effort: a queue that refuses is logged, and the request still answers', async () => {
    const h = await harness();
    await h.meta();
    h.queue.failing.set(BACKLOG_TICK_QUEUE, new Error('queue unavailable'));

    expect((await h.call('POST', '/enable')).statusCode).toBe(200);
    expect(h.warnings).toEqual([
      expect.objectContaining({ subscription: 'audit', reason: 'enabled', error: 'queue unavailable' }),
    ]);
  });

  it('goes when a PUT changes the endpoint URL, for the new version, and not for any other change', async () => {
    const h = await harness();
    await h.meta();

    expect((await h.call('PUT', '', putBody(ENDPOINT))).statusCode).toBe(200);
    expect(h.queue.sent).toEqual([]);

    expect((await h.call('PUT', '', putBody('https://hooks.example.test/v2'))).statusCode).toBe(200);
    const saved = (await h.stores.subscriptions.get('orders', 'audit')) as Subscription;
    expect(h.ticks()).toEqual([
      { queue: BACKLOG_TICK_QUEUE, delaySeconds: 0, job: expect.objectContaining({ token: 'token-1' }) },
    ]);
    expect(h.ticks()[0]?.job.target.version).toBe(saved.version);
  });

  it('goes when the subscription is deleted, for a version newer than the deleted one', async () => {
    const h = await harness();
    await h.meta();

    expect((await h.call('DELETE')).statusCode).toBe(200);

    const [tick] = h.ticks();
    expect(tick).toMatchObject({ queue: BACKLOG_TICK_QUEUE, delaySeconds: 0, job: { token: 'token-1' } });
    // A delivery worker's cached definition is older, so the tick reads it again and finds it gone.
    expect(tick?.job.target.version).toBeGreaterThan(h.current.version);
    expect(tick?.job.target).toMatchObject({ subscription: 'audit', uid: 'uid-1' });
  });

  it('goes when a namespace topic’s subscription is deleted', async () => {
    const h = await harness({ topic: namespaceTopicId('shop', 'orders') });
    await h.meta();

    expect((await h.call('DELETE')).statusCode).toBe(200);
    expect(h.ticks()).toHaveLength(1);
  });

  it('is not sent for a delete that found nothing to delete', async () => {
    const h = await harness();
    await h.meta();
    await h.call('DELETE');
    h.queue.sent.length = 0;

    expect((await h.call('DELETE')).statusCode).toBe(204);
    expect(h.queue.sent).toEqual([]);
  });

  it('reports what it did', async () => {
    const h = await harness();
    const target = deliveryTarget({ uid: 'uid-1' });
    const deps = { backlog: h.backlog, queue: h.queue, clock: h.clock, logger: silentLogger };
    expect(await wakeBacklog(deps, target, 'enabled')).toBe('nothingHeld');
    await h.meta({ lease: { until: NOW + 1 } });
    expect(await wakeBacklog(deps, target, 'enabled')).toBe('leased');
    h.clock.advance(1);
    expect(await wakeBacklog(deps, target, 'enabled')).toBe('sent');
    h.queue.failWith = new Error('down');
    expect(await wakeBacklog(deps, target, 'enabled')).toBe('failed');
  });
});

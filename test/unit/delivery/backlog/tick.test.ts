/**
 * The backlog tick and sweeper in virtual time, over the in-memory backlog store, a recording
 * queue and a real delivery engine sending to a scripted webhook: only the current token acts,
 * the continuation is sent before META is taken, wakes and releases are never early and at most
 * a second late, TTL ends only due events, deleted and re-created subscriptions, disabled and
 * held endpoints, a crash at every write resumed by the continuation without losing an event;
 * the probe (one request), the drain (due order, its concurrency window, batches across stored
 * jobs, stopping on probation, the deadline) and its checkpoints.
 */

import { TICK_LEASE_MS } from '../../../../shared/delivery/backlog/drain';
import {
  BACKLOG_MEASURE_EVERY_MINUTES,
  OVERDUE_GRACE_MS,
  oldestOverdue,
  readOldestOverdue,
  WAKE_LATE_MS,
} from '../../../../shared/delivery/backlog/sweep';
import { BacklogTick, type BacklogTickDeps } from '../../../../shared/delivery/backlog/tick';
import { DropRecorder } from '../../../../shared/delivery/dead-letter';
import { EngineAttempts } from '../../../../shared/delivery/engine-attempts';
import { HealthTracker } from '../../../../shared/delivery/health';
import { UNVALIDATED_ENDPOINT_HOLD_MS } from '../../../../shared/delivery/rules/handshake';
import { freshHealth } from '../../../../shared/delivery/rules/health';
import { DELIVERY_PROFILES } from '../../../../shared/delivery/rules/profiles';
import { deliveryTargetOf } from '../../../../shared/delivery/target';
import type { BacklogLine, BacklogMeta, BacklogSegmentRef } from '../../../../shared/domain/backlog';
import {
  type BacklogTickJob,
  backlogTickJobSchema,
  type DeliveryJob,
  type DeliveryTarget,
  type EndedJob,
  JOB_FORMAT_VERSION,
} from '../../../../shared/domain/delivery';
import type { EndpointHealth } from '../../../../shared/domain/health';
import type { Subscription } from '../../../../shared/domain/model';
import { silentLogger } from '../../../../shared/observability/logging';
import { METRIC, MetricBuffer } from '../../../../shared/observability/metrics';
import { parseJob } from '../../../../shared/queue/job-codec';
import {
  item,
  MemoryHistory,
  NO_RESOURCES,
  RecordingQueue,
  ScriptedSender,
  subscription,
  VirtualClock,
} from '../../../support/fakes';
import { MemoryBacklogStore, MemoryHealthStore, memoryStores } from '../../../support/memory-stores';
import { H, M, S } from '../../../support/time';

const T0 = Date.UTC(2026, 2, 1);
const run = { attemptDeadline: Number.MAX_SAFE_INTEGER };
const WITH_DEAD_LETTERS = { uid: 'u1', deadLetter: { container: 'dead' } };

/** A message the tick sent, read back by its kind. */
type Sent = { queue: string; at: number; delaySeconds: number } & (
  | { kind: 'tick'; job: BacklogTickJob }
  | { kind: 'deliver'; job: DeliveryJob }
  | { kind: 'ended'; job: EndedJob }
);

function sentOf(queue: Pick<RecordingQueue, 'sent'>): Sent[] {
  return queue.sent.map(({ queue: name, job, at }) => {
    const head = { queue: name, at, delaySeconds: job.delaySeconds };
    const json = JSON.parse(job.body) as { kind?: string };
    if (json.kind === 'backlog-tick') return { ...head, kind: 'tick', job: backlogTickJobSchema.parse(json) };
    const parsed = parseJob(job.body);
    if (parsed.kind === 'ended') return { ...head, kind: 'ended', job: parsed };
    if (parsed.kind !== undefined && parsed.kind !== 'deliver') throw new Error(`unexpected ${parsed.kind}`);
    return { ...head, kind: 'deliver', job: parsed };
  });
}

const ticksOf = (sent: readonly Sent[]) =>
  sent.flatMap((entry) => (entry.kind === 'tick' ? [{ ...entry, job: entry.job }] : []));
const deliveriesOf = (sent: readonly Sent[]) =>
  sent.flatMap((entry) => (entry.kind === 'deliver' ? [{ ...entry, job: entry.job }] : []));
const endedOf = (sent: readonly Sent[]) =>
  sent.flatMap((entry) => (entry.kind === 'ended' ? entry.job.ended : []));

/**
 * A tick over memory twins, with a real delivery engine (and its health tracker) sending to a
 * scripted webhook: by default every request is answered 200 at once.
 */
function harness(
  overrides: Partial<Subscription> = WITH_DEAD_LETTERS,
  options: { drainConcurrency?: number; latencyMs?: number; concurrency?: number } = {},
) {
  const clock = new VirtualClock(T0);
  const queue = new RecordingQueue(clock);
  const store = new MemoryBacklogStore();
  const healthStore = new MemoryHealthStore();
  const metrics = new MetricBuffer();
  const history = new MemoryHistory();
  const sender = new ScriptedSender(clock, { delivered: true, httpStatus: 200 }, options.latencyMs ?? 0);
  const subscriptions = new Map<string, Subscription>([['orders/audit', subscription(overrides)]]);
  const source = { get: async (topic: string, name: string) => subscriptions.get(`${topic}/${name}`) };
  const drops = new DropRecorder(metrics, silentLogger);
  const tracker = new HealthTracker({
    store: healthStore,
    clock,
    logger: silentLogger,
    cacheMs: 0,
    flushIntervalMs: 1000,
    metrics,
  });
  const attempts = new EngineAttempts({
    clock,
    sender,
    history,
    metrics,
    logger: silentLogger,
    concurrency: options.concurrency ?? 64,
    health: tracker,
    sealer: 'none',
    resources: NO_RESOURCES,
    lateAnswers: 'none',
  });
  let tokens = 0;
  const deps: BacklogTickDeps = {
    store,
    queue,
    subscriptions: source,
    healthStore,
    drops,
    history,
    clock,
    random: () => 0.5,
    profiles: DELIVERY_PROFILES,
    logger: silentLogger,
    metrics,
    attempts,
    health: tracker,
    drainConcurrency: options.drainConcurrency ?? 8,
    newToken: () => `t${++tokens}`,
  };
  // The held marks of a table where topic `orders` exists (their writes move its version).
  const tables = memoryStores();
  return { clock, queue, store, healthStore, metrics, history, subscriptions, sender, tracker, deps, tables };
}

type Harness = ReturnType<typeof harness>;

const tickOf = (h: Harness) => new BacklogTick(h.deps);

const targetOf = (h: Harness): DeliveryTarget =>
  deliveryTargetOf(h.subscriptions.get('orders/audit') as Subscription);

const line = (id: string, dueAt: number, publishedAt = T0 - H): BacklogLine => ({
  dueAt,
  heldBy: 'wait',
  item: item(id, publishedAt, { attempts: 3, lastOutcome: 'GenericError', lastHttpStatus: 500 }),
});

/** Stores a segment for the target (default: the subscription's) and returns its index entry. */
const store = (h: Harness, segmentId: string, lines: BacklogLine[], target = targetOf(h)) =>
  h.store.putSegment({ target, segmentId, lines, createdAt: T0 - H });

/** A META whose current token is `t0`, waking at `wakeAt`. */
async function armed(h: Harness, wakeAt: number, extra: Partial<BacklogMeta> = {}): Promise<BacklogMeta> {
  const meta: BacklogMeta = {
    topic: 'orders',
    subscription: 'audit',
    uid: 'u1',
    endpointUrl: 'https://hooks.example.test/in',
    token: 't0',
    wakeAt,
    armedToken: 't0',
    state: 'waiting',
    summary: await h.store.summary('orders', 'audit'),
    updatedAt: T0 - H,
    ...extra,
  };
  expect(await h.store.putMeta(meta, undefined)).toBe(true);
  return meta;
}

const tickJob = (h: Harness, token: string, target = targetOf(h)): BacklogTickJob => ({
  v: JOB_FORMAT_VERSION,
  kind: 'backlog-tick',
  target,
  token,
});

const setHealth = (h: Harness, overrides: Partial<EndpointHealth>) =>
  h.healthStore.put(
    { ...freshHealth('orders', 'audit', 'https://hooks.example.test/in'), ...overrides },
    undefined,
  );

/** The ids of events still waiting in a live line of some segment. */
async function liveIds(h: Harness): Promise<string[]> {
  const ids: string[] = [];
  for (const ref of await h.store.listSegments('orders', 'audit')) {
    const { lines } = await h.store.readSegment(ref);
    lines.forEach((entry, index) => {
      const done = index < ref.doneThrough || ref.doneAfter.includes(index);
      if (!done) ids.push(entry.item.eventId);
    });
  }
  return ids.sort();
}

/** The ids of the events the webhook received, request by request. */
const requestedIds = (sender: ScriptedSender): string[][] =>
  sender.requests.map(({ request }) => (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id));

const droppedBy = (metrics: MetricBuffer, reason: string) =>
  metrics
    .drain()
    .filter((point) => point.name === METRIC.DroppedEventCount && point.dimensions.DropReason === reason)
    .reduce((sum, point) => sum + point.values.reduce((a, b) => a + b, 0), 0);

describe('backlog tick: claim', () => {
  it('does nothing for a tick whose token is not the backlog’s', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 - M)]);
    const meta = await armed(h, T0 - M);

    const report = await tick.tick(tickJob(h, 'old-token'), run);

    expect(report.outcome).toBe('stale');
    expect(h.queue.sent).toEqual([]);
    expect(await h.store.getMeta('orders', 'audit')).toEqual(meta);
    expect(await liveIds(h)).toEqual(['a']);
  });

  it('does nothing when the backlog has no META', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 - M)]);

    expect((await tick.tick(tickJob(h, 't0'), run)).outcome).toBe('stale');
    expect(h.queue.sent).toEqual([]);
  });

  it('takes META with a lease and its wake at the lease end, sending nothing for it', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 + 2 * H)]);
    await armed(h, T0);
    const metaWrites: Array<{ meta: BacklogMeta; sentBefore: Sent[] }> = [];
    const putMeta = h.store.putMeta.bind(h.store);
    h.store.putMeta = async (meta, expected) => {
      metaWrites.push({ meta, sentBefore: sentOf(h.queue) });
      return putMeta(meta, expected);
    };

    await tick.tick(tickJob(h, 't0'), run);

    const [claim] = metaWrites;
    expect(claim?.sentBefore).toEqual([]);
    expect(claim?.meta).toMatchObject({ wakeAt: T0 + TICK_LEASE_MS, lease: { until: T0 + TICK_LEASE_MS } });
    expect(claim?.meta.armedToken).toBeUndefined();
  });

  it('is resumed by the sweeper when it dies after the claim: the claimed wake is not marked armed', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 - M)]);
    await armed(h, T0 - M);
    // The tick dies at its first segment read, after the claim.
    const readSegment = h.store.readSegment.bind(h.store);
    h.store.readSegment = async () => {
      throw new Error('the invocation was cut off');
    };
    await expect(tick.tick(tickJob(h, 't0'), run)).rejects.toThrow('cut off');
    h.store.readSegment = readSegment;
    const claimed = await h.store.getMeta('orders', 'audit');
    expect(ticksOf(sentOf(h.queue))).toEqual([]);

    h.clock.advance(TICK_LEASE_MS);
    expect(await tick.sweep()).toMatchObject({ sent: 1 });
    const [resume] = ticksOf(sentOf(h.queue));
    expect(resume?.job.token).toBe(claimed?.token);

    expect(await tick.tick(resume?.job as BacklogTickJob, run)).toMatchObject({
      outcome: 'ticked',
      delivered: 1,
    });
    expect(await liveIds(h)).toEqual([]);
  });

  it('leaves META to the token it had when the claim cannot be written', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 - M)]);
    const meta = await armed(h, T0 - M);
    h.store.putMeta = async () => {
      throw new Error('DynamoDB is down');
    };

    await expect(tick.tick(tickJob(h, 't0'), run)).rejects.toThrow('DynamoDB is down');

    expect(await h.store.getMeta('orders', 'audit')).toEqual(meta);
    expect(await liveIds(h)).toEqual(['a']);
  });
});

describe('backlog tick: release ahead and re-arm', () => {
  it('sends events due within 15 min but not yet due to the retry queue, one job per due second, none early, none a second late', async () => {
    const h = harness();
    const tick = tickOf(h);
    const dues = {
      overdue: T0 - 3 * M,
      now: T0,
      a: T0 + 10 * S + 200,
      b: T0 + 10 * S + 700.5,
      c: T0 + 11 * S + 500,
      d: T0 + 14 * M + 59 * S,
      later: T0 + 15 * M + 1,
    };
    await store(
      h,
      'seg-a',
      Object.entries(dues).map(([id, dueAt]) => line(id, dueAt)),
    );
    await armed(h, T0 - 3 * M);

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({
      outcome: 'ticked',
      released: 4,
      delivered: 2,
      ended: 0,
      wakeAt: dues.later,
    });
    // The due ones are drained from the backlog itself.
    expect(requestedIds(h.sender).flat().sort()).toEqual(['now', 'overdue']);
    const jobs = deliveriesOf(sentOf(h.queue));
    expect(jobs.map((entry) => [entry.delaySeconds, entry.job.items.map((i) => i.eventId)])).toEqual([
      [11, ['a', 'b']],
      [12, ['c']],
      [899, ['d']],
    ]);
    for (const { job, delaySeconds, at } of jobs) {
      const arrives = at + delaySeconds * S;
      expect(job.target).toEqual(targetOf(h));
      expect(job.dueAt ?? 0).toBeLessThanOrEqual(arrives);
      for (const released of job.items) {
        const dueAt = dues[released.eventId as keyof typeof dues];
        expect(arrives).toBeGreaterThanOrEqual(Math.min(dueAt, at));
        expect(arrives - Math.max(dueAt, at)).toBeLessThan(S);
        // Released on time: nothing held them, so nothing is stamped and no attempt is counted.
        expect(released).toMatchObject({ attempts: 3, lastOutcome: 'GenericError' });
      }
    }
    // The rest stays; the segment's first six lines are done.
    expect(await liveIds(h)).toEqual(['later']);
    const [ref] = await h.store.listSegments('orders', 'audit');
    expect(ref).toMatchObject({ doneThrough: 6, doneAfter: [] });
  });

  it('wakes at the earliest event not yet done, not at a segment’s released first line', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a1', T0), line('a2', T0 + 3 * H)]);
    await store(h, 'seg-b', [line('b1', T0 + 2 * H), line('b2', T0 + 4 * H)]);
    await armed(h, T0);

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report.wakeAt).toBe(T0 + 2 * H);
    const meta = await h.store.getMeta('orders', 'audit');
    expect(meta).toMatchObject({ wakeAt: T0 + 2 * H, state: 'waiting', summary: { events: 3 } });
    expect(meta?.lease).toBeUndefined();
    // Beyond 15 min: the sweeper sends its tick, so none is in flight for the new token.
    expect(meta?.armedToken).toBeUndefined();
    expect(ticksOf(sentOf(h.queue))).toEqual([]);
  });

  it('sends the next tick itself when the wake is within 15 min, with its exact delay', async () => {
    const h = harness();
    const tick = tickOf(h);
    const until = T0 + 10 * M + 300;
    await setHealth(h, { probationUntil: until, probations: 1, consecutiveFailures: 1 });
    await store(h, 'seg-a', [line('a1', T0 - M)]);
    await armed(h, T0 - M);

    await tick.tick(tickJob(h, 't0'), run);

    const meta = await h.store.getMeta('orders', 'audit');
    const next = ticksOf(sentOf(h.queue)).find((entry) => entry.job.token === meta?.token);
    expect(meta).toMatchObject({ wakeAt: until, armedToken: meta?.token, state: 'holding' });
    expect(next?.delaySeconds).toBe(10 * 60 + 1);
  });

  it('arms an earlier wake for a segment stored while the tick was at work', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a1', T0 + 3 * H)]);
    await armed(h, T0 + 3 * H);
    h.clock.advanceTo(T0 + 3 * H - 16 * M);
    // A store writes its segment after the tick listed the index, and reads META before the
    // tick re-arms it: only the tick's second look at the index can see it.
    const putMeta = h.store.putMeta.bind(h.store);
    let writes = 0;
    h.store.putMeta = async (meta, expected) => {
      writes += 1;
      if (writes === 2) await store(h, 'seg-new', [line('n1', T0 + 3 * H - 15 * M)]);
      return putMeta(meta, expected);
    };

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report.wakeAt).toBe(T0 + 3 * H - 15 * M);
    const meta = await h.store.getMeta('orders', 'audit');
    expect(meta).toMatchObject({ wakeAt: T0 + 3 * H - 15 * M, summary: { events: 2 } });
    const next = ticksOf(sentOf(h.queue)).find((entry) => entry.job.token === meta?.token);
    expect(next?.delaySeconds).toBe(60);
  });

  it('goes idle when nothing is left: no wake, no tick', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a1', T0 - M)]);
    await armed(h, T0 - M);

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ delivered: 1, wakeAt: undefined });
    expect(await h.store.listSegments('orders', 'audit')).toEqual([]);
    const meta = await h.store.getMeta('orders', 'audit');
    expect(meta).toMatchObject({ state: 'idle', summary: { events: 0 } });
    expect(meta?.wakeAt).toBeUndefined();
    expect(ticksOf(sentOf(h.queue))).toEqual([]);
  });

  it('hands the rest to a tick sent at once when the invocation runs out of time', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a1', T0 - M)]);
    await store(h, 'seg-b', [line('b1', T0 - 30 * S)]);
    await armed(h, T0 - M);

    const report = await tick.tick(tickJob(h, 't0'), { attemptDeadline: T0 + 10 * S });

    expect(report.released).toBe(0);
    expect(report.wakeAt).toBeLessThanOrEqual(T0);
    const meta = await h.store.getMeta('orders', 'audit');
    expect(ticksOf(sentOf(h.queue)).find((entry) => entry.job.token === meta?.token)?.delaySeconds).toBe(0);
    expect(await liveIds(h)).toEqual(['a1', 'b1']);
  });
});

describe('backlog tick: time to live', () => {
  const ttl = { retry: { maxAttempts: 30, ttlMs: 24 * H } };

  it.each<[string, Partial<Subscription>]>([
    ['dead-lettered when the subscription has a destination', WITH_DEAD_LETTERS],
    ['dropped when it has none', { uid: 'u1' }],
  ])(
    'ends a due event past its TTL: %s; one past its TTL but not due waits for its due tick',
    async (_name, overrides) => {
      const h = harness({ ...overrides, ...ttl });
      const tick = tickOf(h);
      const old = T0 - 25 * H;
      await store(h, 'seg-a', [line('due-old', T0 - M, old), line('later-old', T0 + 2 * H, old)]);
      await armed(h, T0 - M);
      const deadLetters = overrides.deadLetter !== undefined;

      const first = await tick.tick(tickJob(h, 't0'), run);

      expect(first).toMatchObject({ ended: 1, released: 0, wakeAt: T0 + 2 * H });
      expect(await liveIds(h)).toEqual(['later-old']);
      const ended = endedOf(sentOf(h.queue));
      expect(ended.map((entry) => [entry.item.eventId, entry.reason])).toEqual(
        deadLetters ? [['due-old', 'TimeToLiveExceeded']] : [],
      );
      expect(droppedBy(h.metrics, 'TimeToLiveExceeded')).toBe(deadLetters ? 0 : 1);
      expect(h.history.records).toEqual([
        expect.objectContaining({
          eventId: 'due-old',
          attempt: 4,
          outcome: 'NotAttempted',
          next: { action: deadLetters ? 'deadLetter' : 'dropped', reason: 'TimeToLiveExceeded' },
        }),
      ]);

      h.clock.advanceTo(T0 + 2 * H);
      const meta = await h.store.getMeta('orders', 'audit');
      const second = await tick.tick(tickJob(h, meta?.token ?? ''), run);

      expect(second).toMatchObject({ ended: 1, wakeAt: undefined });
      expect(await liveIds(h)).toEqual([]);
      expect(endedOf(sentOf(h.queue)).map((entry) => entry.item.eventId)).toEqual(
        deadLetters ? ['due-old', 'later-old'] : [],
      );
    },
  );

  it('stamps Probation on an event the endpoint held past its due time', async () => {
    const h = harness({ ...WITH_DEAD_LETTERS, ...ttl });
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('held', T0 - 10 * M, T0 - 25 * H), line('kept', T0 + 5 * M)]);
    await armed(h, T0, { heldUntil: T0 });

    await tick.tick(tickJob(h, 't0'), run);

    const [ended] = endedOf(sentOf(h.queue));
    expect(ended).toMatchObject({
      reason: 'TimeToLiveExceeded',
      item: { lastOutcome: 'Probation', attempts: 3 },
    });
    // Due later than the hold: leaves as it was stored.
    const [released] = deliveriesOf(sentOf(h.queue));
    expect(released?.job.items[0]).toMatchObject({ eventId: 'kept', lastOutcome: 'GenericError' });
  });
});

describe('backlog tick: deleted and re-created subscriptions', () => {
  it('drops every segment of a deleted subscription as SubscriptionDeleted and removes them and META', async () => {
    const h = harness();
    const tick = tickOf(h);
    const target = targetOf(h);
    await store(h, 'seg-a', [line('a1', T0 - M), line('a2', T0 + 5 * H)]);
    await store(h, 'seg-b', [line('b1', T0 + 9 * H)]);
    await armed(h, T0 - M);
    h.subscriptions.delete('orders/audit');

    const report = await tick.tick(tickJob(h, 't0', target), run);

    expect(report).toMatchObject({ outcome: 'deleted', dropped: 3, wakeAt: undefined });
    expect(droppedBy(h.metrics, 'SubscriptionDeleted')).toBe(3);
    expect(await h.store.listSegments('orders', 'audit')).toEqual([]);
    expect(h.store.objects.size).toBe(0);
    expect(await h.store.getMeta('orders', 'audit')).toBeUndefined();
    expect(deliveriesOf(sentOf(h.queue))).toEqual([]);
    expect(endedOf(sentOf(h.queue))).toEqual([]);
  });

  it('gives a segment stored while the deleted backlog was dropped a new META and a tick at once', async () => {
    const h = harness();
    const tick = tickOf(h);
    const target = targetOf(h);
    await store(h, 'seg-a', [line('a1', T0 - M)]);
    await armed(h, T0 - M);
    h.subscriptions.delete('orders/audit');
    // A store that saw the tick's lease leaves the wake to it: its segment lands mid-tick.
    const deleteMeta = h.store.deleteMeta.bind(h.store);
    h.store.deleteMeta = async (...args) => {
      h.store.deleteMeta = deleteMeta;
      await h.store.putSegment({ target, segmentId: 'seg-late', lines: [line('late', T0)], createdAt: T0 });
      return deleteMeta(...args);
    };

    const report = await tick.tick(tickJob(h, 't0', target), run);

    expect(report).toMatchObject({ outcome: 'deleted', dropped: 1, wakeAt: T0 });
    const meta = await h.store.getMeta('orders', 'audit');
    expect(meta).toMatchObject({ wakeAt: T0, state: 'waiting', summary: { events: 1 } });
    const next = ticksOf(sentOf(h.queue)).find((entry) => entry.job.token === meta?.token);
    expect(next?.delaySeconds).toBe(0);
    expect((await tick.tick(next?.job as BacklogTickJob, run)).dropped).toBe(1);
    expect(await h.store.getMeta('orders', 'audit')).toBeUndefined();
  });

  it('drops only the old uid’s segments of a re-created subscription and keeps the new one’s', async () => {
    const h = harness();
    const tick = tickOf(h);
    const oldTarget = targetOf(h);
    await store(h, 'seg-old', [line('old1', T0 + H), line('old2', T0 + 2 * H)], oldTarget);
    h.subscriptions.set('orders/audit', subscription({ ...WITH_DEAD_LETTERS, uid: 'u2', version: 2 }));
    await store(h, 'seg-new', [line('new1', T0 + 3 * H)]);
    await armed(h, T0 + H);

    const report = await tick.tick(tickJob(h, 't0', oldTarget), run);

    expect(report).toMatchObject({ outcome: 'ticked', dropped: 2, wakeAt: T0 + 3 * H });
    expect(droppedBy(h.metrics, 'SubscriptionDeleted')).toBe(2);
    expect(await liveIds(h)).toEqual(['new1']);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ uid: 'u2', wakeAt: T0 + 3 * H });
  });
});

describe('backlog tick: the endpoint’s gate', () => {
  it('ends due events of a disabled endpoint as EndpointDisabled; events not due wait', async () => {
    const h = harness();
    const tick = tickOf(h);
    await setHealth(h, { disabledAt: T0 - H });
    await store(h, 'seg-a', [line('due', T0 - M), line('soon', T0 + 5 * M)]);
    await armed(h, T0 - M);

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ ended: 1, released: 0, wakeAt: T0 + 5 * M });
    expect(endedOf(sentOf(h.queue))).toEqual([
      expect.objectContaining({
        reason: 'EndpointDisabled',
        item: expect.objectContaining({ eventId: 'due', lastOutcome: 'Probation', attempts: 3 }),
      }),
    ]);
    expect(deliveriesOf(sentOf(h.queue))).toEqual([]);
    expect(await liveIds(h)).toEqual(['soon']);
  });

  it('releases nothing while the endpoint is held, and wakes when the hold ends', async () => {
    const h = harness();
    const tick = tickOf(h);
    const until = T0 + 40 * M;
    await setHealth(h, {
      probationUntil: until,
      probations: 3,
      consecutiveFailures: 12,
      unhealthySince: T0 - H,
    });
    await store(h, 'seg-a', [line('due', T0 - M), line('soon', T0 + 5 * M)]);
    await armed(h, T0 - M);

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ released: 0, ended: 0, wakeAt: until });
    expect(deliveriesOf(sentOf(h.queue))).toEqual([]);
    expect(endedOf(sentOf(h.queue))).toEqual([]);
    expect(await liveIds(h)).toEqual(['due', 'soon']);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({
      state: 'holding',
      heldUntil: until,
      wakeAt: until,
    });
  });

  it('probes with a due event once the hold is over (stamped Probation, held past due) and keeps the later one for the next wake', async () => {
    const h = harness();
    const tick = tickOf(h);
    await setHealth(h, { probationUntil: T0 - S, probations: 3, consecutiveFailures: 12 });
    await store(h, 'seg-a', [line('held', T0 - 10 * M), line('after', T0 + M)]);
    await armed(h, T0, { heldUntil: T0 - S, state: 'holding' });

    const report = await tick.tick(tickJob(h, 't0'), run);

    // Released while probing, it would be held and stored again when due: it waits here instead.
    expect(report).toMatchObject({ released: 0, delivered: 1, wakeAt: T0 + M });
    expect(requestedIds(h.sender)).toEqual([['held']]);
    expect(h.sender.requests[0]?.request.headers['aeg-delivery-count']).toBe('3');
    expect(deliveriesOf(sentOf(h.queue))).toEqual([]);
    expect(await liveIds(h)).toEqual(['after']);
  });
});

describe('backlog tick: the held mark', () => {
  /** A tick that keeps held marks in the harness's table, and what publishers would read. */
  async function marked(h: Harness) {
    await h.tables.topics.create('orders', { inputSchema: 'EventGridSchema', tags: {} }, new Date(T0 - H));
    const tick = new BacklogTick({ ...h.deps, heldMarks: h.tables.heldMarks });
    const marks = () => h.tables.heldMarks.list('orders');
    const version = async () => (await h.tables.topics.get('orders'))?.subscriptionsVersion;
    return { tick, marks, version };
  }
  const UNHEALTHY = { probations: 3, consecutiveFailures: 12, unhealthySince: T0 - H };

  it('is set while the backlog holds an unhealthy endpoint, once, and removed when the drain after the probe empties it', async () => {
    const h = harness();
    const { tick, marks, version } = await marked(h);
    await setHealth(h, { ...UNHEALTHY, probationUntil: T0 + 10 * M });
    await store(h, 'seg-a', [line('due', T0 - M)]);
    await armed(h, T0 - M);

    await tick.tick(tickJob(h, 't0'), run);
    expect(await marks()).toEqual(new Map([['audit', 'u1']]));
    expect(await version()).toBe(1);
    const holding = await h.store.getMeta('orders', 'audit');
    expect(holding).toMatchObject({ state: 'holding', held: true, wakeAt: T0 + 10 * M });

    // Woken early (a tick sent on a change), still held: nothing is written again.
    await tick.tick(tickJob(h, holding?.token as string), run);
    expect(await version()).toBe(1);

    h.clock.advanceTo(T0 + 10 * M);
    const report = await tick.tick(
      tickJob(h, (await h.store.getMeta('orders', 'audit'))?.token as string),
      run,
    );
    expect(report).toMatchObject({ delivered: 1, wakeAt: undefined });
    expect(await marks()).toEqual(new Map());
    expect(await version()).toBe(2);
    const idle = await h.store.getMeta('orders', 'audit');
    expect(idle?.state).toBe('idle');
    expect(idle?.held).toBeUndefined();
  });

  it('stays set when the probe fails and the endpoint is held again', async () => {
    const h = harness();
    const { tick, marks, version } = await marked(h);
    await setHealth(h, { ...UNHEALTHY, probationUntil: T0 - S });
    await store(h, 'seg-a', [line('due', T0 - M), line('next', T0 - M + S)]);
    await armed(h, T0, { state: 'holding', held: true, heldUntil: T0 - S });
    await h.tables.heldMarks.set({ topic: 'orders', subscription: 'audit', uid: 'u1' }, true, T0 - M);
    h.sender.answerWith({ delivered: false, httpStatus: 503 });

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ delivered: 0, storedBack: 1 });
    expect(requestedIds(h.sender)).toEqual([['due']]);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ state: 'holding', held: true });
    expect(await marks()).toEqual(new Map([['audit', 'u1']]));
    expect(await version()).toBe(1);
  });

  it('is not set for a short probation of an endpoint that is not unhealthy', async () => {
    const h = harness();
    const { tick, marks } = await marked(h);
    await setHealth(h, { probations: 1, consecutiveFailures: 1, probationUntil: T0 + 30 * S });
    await store(h, 'seg-a', [line('due', T0 - M)]);
    await armed(h, T0 - M);

    await tick.tick(tickJob(h, 't0'), run);

    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ state: 'holding' });
    expect((await h.store.getMeta('orders', 'audit'))?.held).toBeUndefined();
    expect(await marks()).toEqual(new Map());
  });

  it('is removed with the backlog of a deleted subscription', async () => {
    const h = harness();
    const { tick, marks } = await marked(h);
    const target = targetOf(h);
    await store(h, 'seg-a', [line('a1', T0 - M)]);
    await armed(h, T0 - M, { state: 'holding', held: true });
    await h.tables.heldMarks.set({ topic: 'orders', subscription: 'audit', uid: 'u1' }, true, T0 - M);
    h.subscriptions.delete('orders/audit');

    await tick.tick(tickJob(h, 't0', target), run);

    expect(await marks()).toEqual(new Map());
    expect(await h.store.getMeta('orders', 'audit')).toBeUndefined();
  });

  it('is set again by the next tick when a write of it failed (META keeps what it said)', async () => {
    const h = harness();
    const { marks } = await marked(h);
    let failures = 1;
    const tick = new BacklogTick({
      ...h.deps,
      heldMarks: {
        set: async (mark, held, now) => {
          if (failures-- > 0) throw new Error('throttled');
          return h.tables.heldMarks.set(mark, held, now);
        },
      },
    });
    await setHealth(h, { ...UNHEALTHY, probationUntil: T0 + 10 * M });
    await store(h, 'seg-a', [line('due', T0 - M)]);
    await armed(h, T0 - M);

    await tick.tick(tickJob(h, 't0'), run);
    const first = await h.store.getMeta('orders', 'audit');
    expect(first).toMatchObject({ state: 'holding' });
    expect(first?.held).toBeUndefined();
    expect(await marks()).toEqual(new Map());

    await tick.tick(tickJob(h, first?.token as string), run);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ state: 'holding', held: true });
    expect(await marks()).toEqual(new Map([['audit', 'u1']]));
  });
});

describe('backlog tick: a changed endpoint', () => {
  it('drains to a new endpoint URL: the old one’s hold does not apply to it', async () => {
    const h = harness({
      ...WITH_DEAD_LETTERS,
      destination: { endpointType: 'WebHook', endpointUrl: 'https://new.example.test/in' },
    });
    const tick = tickOf(h);
    // The hold on file is the old URL's.
    await setHealth(h, {
      probationUntil: T0 + H,
      probations: 5,
      consecutiveFailures: 20,
      unhealthySince: T0 - H,
    });
    await store(h, 'seg-a', [line('due', T0 - M)]);
    await armed(h, T0 - M);

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ delivered: 1, wakeAt: undefined });
    expect(h.sender.requests.map(({ request }) => request.url)).toEqual(['https://new.example.test/in']);
    expect(requestedIds(h.sender)).toEqual([['due']]);
  });

  it('releases nothing to an endpoint that has not agreed yet, ends what expired, and waits for it', async () => {
    const h = harness({
      ...WITH_DEAD_LETTERS,
      retry: { maxAttempts: 30, ttlMs: 24 * H },
      validation: {
        endpointUrl: 'https://hooks.example.test/in',
        code: 'c',
        startedAt: T0 - M,
        expiresAt: T0 + 4 * M,
      },
    });
    const tick = tickOf(h);
    await store(h, 'seg-a', [
      line('expired', T0 - M, T0 - 25 * H),
      line('due', T0 - M),
      line('soon', T0 + 5 * M),
    ]);
    await armed(h, T0 - M);

    const report = await tick.tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ released: 0, ended: 1, wakeAt: T0 + UNVALIDATED_ENDPOINT_HOLD_MS });
    expect(deliveriesOf(sentOf(h.queue))).toEqual([]);
    expect(endedOf(sentOf(h.queue)).map((entry) => [entry.item.eventId, entry.reason])).toEqual([
      ['expired', 'TimeToLiveExceeded'],
    ]);
    expect(await liveIds(h)).toEqual(['due', 'soon']);
  });
});

describe('backlog sweep', () => {
  it('sends the tick of each wake within 15 min once, with its exact delay, and not again', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 + 10 * M + 400)]);
    await armed(h, T0 + 10 * M + 400, { armedToken: undefined });

    expect(await tick.sweep()).toEqual({ sent: 1, rearmed: 0, failed: 0 });
    expect(await tick.sweep(T0 + M)).toEqual({ sent: 0, rearmed: 0, failed: 0 });

    const ticks = ticksOf(sentOf(h.queue));
    expect(ticks.map((entry) => [entry.job.token, entry.delaySeconds])).toEqual([['t0', 601]]);
    expect(ticks[0]?.job.target).toEqual(targetOf(h));
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ token: 't0', armedToken: 't0' });
  });

  it('leaves wakes further than 15 min to a later sweep', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 + 16 * M)]);
    await armed(h, T0 + 16 * M, { armedToken: undefined });

    expect(await tick.sweep()).toEqual({ sent: 0, rearmed: 0, failed: 0 });
    expect(await tick.sweep(T0 + M)).toEqual({ sent: 1, rearmed: 0, failed: 0 });
    expect(ticksOf(sentOf(h.queue)).map((entry) => entry.delaySeconds)).toEqual([15 * 60]);
  });

  it('arms a wake more than 5 min late again with a new token, which the old tick cannot use', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 - 10 * M)]);
    await armed(h, T0 - WAKE_LATE_MS - S);

    expect(await tick.sweep()).toEqual({ sent: 1, rearmed: 1, failed: 0 });
    const meta = await h.store.getMeta('orders', 'audit');
    expect(meta).toMatchObject({ token: 't1', armedToken: 't1', wakeAt: T0 });
    expect(ticksOf(sentOf(h.queue)).map((entry) => [entry.job.token, entry.delaySeconds])).toEqual([
      ['t1', 0],
    ]);
    // Not taken for lost again a minute later.
    expect(await tick.sweep(T0 + M)).toEqual({ sent: 0, rearmed: 0, failed: 0 });
    expect((await tick.tick(tickJob(h, 't0'), run)).outcome).toBe('stale');
    expect((await tick.tick(tickJob(h, 't1'), run)).delivered).toBe(1);
  });

  it('gives a deleted subscription’s backlog a tick with the target its segments were stored for', async () => {
    const h = harness();
    const tick = tickOf(h);
    const target = targetOf(h);
    await store(h, 'seg-a', [line('a', T0 + M)]);
    await armed(h, T0 + M, { armedToken: undefined });
    h.subscriptions.delete('orders/audit');

    await tick.sweep();

    const [sent] = ticksOf(sentOf(h.queue));
    expect(sent?.job.target).toEqual(target);
    expect((await tick.tick(sent?.job as BacklogTickJob, run)).outcome).toBe('deleted');
  });
});

describe('backlog sweep: metrics', () => {
  const BACKLOG_METRICS: readonly string[] = [
    METRIC.BacklogHeldEvents,
    METRIC.BacklogOldestEventAgeSeconds,
    METRIC.BacklogWakeLateCount,
  ];
  /** The backlog metrics the sweep wrote, by name: unit and values of the stack-wide series. */
  const backlogMetricsOf = (metrics: MetricBuffer) =>
    Object.fromEntries(
      metrics
        .drain()
        .filter((point) => BACKLOG_METRICS.includes(point.name))
        .map((point) => [
          point.name,
          { dimensions: point.dimensions, unit: point.unit, values: point.values },
        ]),
    );
  const measuredTickOf = (h: Harness) => new BacklogTick({ ...h.deps, metrics: h.metrics });

  /** A META for another subscription of `orders`, with the summary given (no segment behind it). */
  const otherMeta = (name: string, extra: Partial<BacklogMeta>): BacklogMeta => ({
    topic: 'orders',
    subscription: name,
    endpointUrl: `https://hooks.example.test/${name}`,
    token: `${name}-t0`,
    armedToken: `${name}-t0`,
    state: 'holding',
    summary: { events: 0 },
    updatedAt: T0 - H,
    ...extra,
  });

  it('counts the late wakes it arms again, stack-wide', async () => {
    const h = harness();
    const tick = measuredTickOf(h);
    await store(h, 'seg-a', [line('a', T0 - 10 * M)]);
    await armed(h, T0 - WAKE_LATE_MS - S);

    expect(await tick.sweep(T0 + M)).toMatchObject({ rearmed: 1 });

    expect(backlogMetricsOf(h.metrics)).toEqual({
      [METRIC.BacklogWakeLateCount]: { dimensions: {}, unit: 'Count', values: [1] },
    });
  });

  it(`every ${BACKLOG_MEASURE_EVERY_MINUTES} minutes writes the events every listed backlog holds and the age of the oldest, a far wake included`, async () => {
    const h = harness();
    const tick = measuredTickOf(h);
    // Near: its tick is sent. Two events published an hour ago.
    await store(h, 'seg-a', [line('a', T0 + 10 * M), line('b', T0 + 11 * M)]);
    await armed(h, T0 + 10 * M, { armedToken: undefined });
    // Held for six hours: listed, not armed.
    const held = otherMeta('held', {
      wakeAt: T0 + 6 * H,
      summary: { events: 5, oldestPublishedAt: T0 - 3 * H },
    });
    expect(await h.store.putMeta(held, undefined)).toBe(true);
    // Idle: not in the timer index, holds nothing.
    const idle = otherMeta('idle', { state: 'idle', summary: { events: 0 } });
    expect(await h.store.putMeta(idle, undefined)).toBe(true);

    expect(await tick.sweep(T0)).toEqual({ sent: 1, rearmed: 0, failed: 0 });

    expect(ticksOf(sentOf(h.queue)).map((entry) => entry.job.target.subscription)).toEqual(['audit']);
    expect(backlogMetricsOf(h.metrics)).toEqual({
      [METRIC.BacklogHeldEvents]: { dimensions: {}, unit: 'Count', values: [2 + 5] },
      [METRIC.BacklogOldestEventAgeSeconds]: { dimensions: {}, unit: 'Seconds', values: [3 * 3600] },
    });
  });

  it('measures nothing at the other minutes, and reads only the wakes within 15 min then', async () => {
    const h = harness();
    const tick = measuredTickOf(h);
    const held = otherMeta('held', {
      wakeAt: T0 + 6 * H,
      summary: { events: 5, oldestPublishedAt: T0 - 3 * H },
    });
    expect(await h.store.putMeta(held, undefined)).toBe(true);
    const untils: number[] = [];
    const wakesBy = h.store.wakesBy.bind(h.store);
    h.store.wakesBy = async (until) => {
      untils.push(until);
      return wakesBy(until);
    };

    for (let minute = 1; minute < BACKLOG_MEASURE_EVERY_MINUTES; minute += 1) {
      await tick.sweep(T0 + minute * M + 30 * S);
    }

    expect(backlogMetricsOf(h.metrics)).toEqual({});
    expect(untils).toEqual([1, 2, 3, 4].map((minute) => T0 + minute * M + 30 * S + 15 * M));
  });

  it('writes zero held events and a zero age when no backlog holds anything', async () => {
    const h = harness();
    const tick = measuredTickOf(h);

    await tick.sweep(T0 + BACKLOG_MEASURE_EVERY_MINUTES * M + 59 * S);

    expect(backlogMetricsOf(h.metrics)).toEqual({
      [METRIC.BacklogHeldEvents]: { dimensions: {}, unit: 'Count', values: [0] },
      [METRIC.BacklogOldestEventAgeSeconds]: { dimensions: {}, unit: 'Seconds', values: [0] },
    });
  });
});

describe('backlog sweep: overdue wakes', () => {
  /** A META waking at `wakeAt` (another subscription of `orders` for each name). */
  const wakeOf = (
    name: string,
    wakeAt: number | undefined,
    extra: Partial<BacklogMeta> = {},
  ): BacklogMeta => ({
    topic: 'orders',
    subscription: name,
    endpointUrl: `https://hooks.example.test/${name}`,
    token: `${name}-t0`,
    armedToken: `${name}-t0`,
    ...(wakeAt === undefined ? {} : { wakeAt }),
    state: 'waiting',
    summary: { events: 1, oldestPublishedAt: T0 - H },
    updatedAt: T0 - H,
    ...extra,
  });

  /** The values of `OldestOverdueSeconds` the sweeps since the last call wrote, and forgets them. */
  const overdueWritten = (metrics: MetricBuffer): number[] =>
    metrics
      .drain()
      .filter((point) => point.name === METRIC.OldestOverdueSeconds)
      .map((point) => {
        expect([point.unit, point.dimensions]).toEqual(['Seconds', {}]);
        return point.values.at(-1) as number;
      });

  it(`counts a wake overdue only past the ${OVERDUE_GRACE_MS / M}-minute grace, from its due time, in whole seconds`, () => {
    const metas = [wakeOf('audit', T0)];
    expect(oldestOverdue(metas, T0 - S)).toBeUndefined();
    expect(oldestOverdue(metas, T0)).toBeUndefined();
    // The tick may still be on its way: not overdue up to the grace, included.
    expect(oldestOverdue(metas, T0 + OVERDUE_GRACE_MS)).toBeUndefined();
    expect(oldestOverdue(metas, T0 + OVERDUE_GRACE_MS + 1)).toEqual({
      topic: 'orders',
      subscription: 'audit',
      dueSince: T0,
      seconds: OVERDUE_GRACE_MS / 1000,
    });
    expect(oldestOverdue(metas, T0 + 10 * M + 999)?.seconds).toBe(600);
    expect(oldestOverdue([], T0)).toBeUndefined();
  });

  it('reports the oldest of several; idle backlogs and wakes to come are not overdue', () => {
    const now = T0 + H;
    const metas = [
      wakeOf('soon', now + M),
      wakeOf('late', now - 10 * M),
      wakeOf('idle', undefined, { state: 'idle' }),
      // Idle with a wake left in META: not in the timer index, not overdue.
      wakeOf('stopped', now - 50 * M, { state: 'idle' }),
      wakeOf('later', now - 20 * M),
      wakeOf('in-grace', now - M),
    ];
    expect(oldestOverdue(metas, now)).toMatchObject({ subscription: 'later', seconds: 20 * 60 });
    expect(oldestOverdue([wakeOf('in-grace', now - M), wakeOf('soon', now + M)], now)).toBeUndefined();
  });

  it('counts a wake the sweeper armed again from when it was first due, even before its new tick is late', () => {
    const now = T0 + 6 * M;
    // Armed again at T0 + 5 min (its wake moved there), first due at T0.
    const rearmed = wakeOf('audit', T0 + 5 * M, { overdueSince: T0 });
    expect(oldestOverdue([rearmed], now)).toMatchObject({ dueSince: T0, seconds: 6 * 60 });
    expect(oldestOverdue([rearmed, wakeOf('other', T0 - M)], now)).toMatchObject({ subscription: 'other' });
    // Armed again this very moment: still overdue, since no tick has taken it.
    expect(oldestOverdue([wakeOf('audit', now, { overdueSince: T0 })], now)?.seconds).toBe(6 * 60);
  });

  it('reads the due wakes of the timer index when asked (the local status)', async () => {
    const h = harness();
    expect(await h.store.putMeta(wakeOf('late', T0 - 3 * M), undefined)).toBe(true);
    expect(await h.store.putMeta(wakeOf('far', T0 + 6 * H), undefined)).toBe(true);
    const untils: number[] = [];
    const wakesBy = h.store.wakesBy.bind(h.store);
    h.store.wakesBy = async (until) => {
      untils.push(until);
      return wakesBy(until);
    };

    expect(await readOldestOverdue(h.store, T0)).toMatchObject({ subscription: 'late', seconds: 180 });
    expect(untils).toEqual([T0]);
  });

  it('is written by every sweep, measuring or not, and is 0 with nothing overdue', async () => {
    const h = harness();
    const tick = new BacklogTick({ ...h.deps, metrics: h.metrics });
    await store(h, 'seg-a', [line('a', T0 + H)]);
    await armed(h, T0 + H);

    // A gauge keeps its last value in the buffer: each sweep's is read before the next.
    const written: number[] = [];
    for (let minute = 0; minute <= BACKLOG_MEASURE_EVERY_MINUTES; minute += 1) {
      h.clock.advanceTo(T0 + minute * M);
      await tick.sweep();
      written.push(...overdueWritten(h.metrics));
    }

    expect(written).toEqual(Array(BACKLOG_MEASURE_EVERY_MINUTES + 1).fill(0));
  });

  it('follows a lost tick: overdue past the grace, armed again when 5 min late and counted from its first due time until a tick takes it, then 0', async () => {
    const h = harness();
    const tick = new BacklogTick({ ...h.deps, metrics: h.metrics });
    await store(h, 'seg-a', [line('a', T0 - H)]);
    // Its tick (t0) was sent and is lost: it never reaches `tick.tick`.
    await armed(h, T0);
    const sweepAt = async (time: number) => {
      h.clock.advanceTo(time);
      const report = await tick.sweep();
      return { report, overdue: overdueWritten(h.metrics) };
    };

    expect(await sweepAt(T0 + M)).toMatchObject({ report: { sent: 0 }, overdue: [0] });
    expect(await sweepAt(T0 + OVERDUE_GRACE_MS + S)).toMatchObject({
      report: { sent: 0 },
      overdue: [OVERDUE_GRACE_MS / 1000 + 1],
    });
    // The reconciler: 5 min late, armed again with a new token (its tick sent at once); the
    // sweep reports the wake as it found it.
    expect(await sweepAt(T0 + WAKE_LATE_MS + S)).toEqual({
      report: { sent: 1, rearmed: 1, failed: 0 },
      overdue: [WAKE_LATE_MS / 1000 + 1],
    });
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({
      token: 't1',
      armedToken: 't1',
      wakeAt: T0 + WAKE_LATE_MS + S,
      overdueSince: T0,
    });
    // That tick is lost too: still overdue since T0, not since it was armed again.
    expect(await sweepAt(T0 + 7 * M)).toMatchObject({ report: { sent: 0 }, overdue: [7 * 60] });
    // 5 min after the re-arm: armed again, first due time kept.
    expect(await sweepAt(T0 + 2 * WAKE_LATE_MS + 2 * S)).toEqual({
      report: { sent: 1, rearmed: 1, failed: 0 },
      overdue: [2 * (WAKE_LATE_MS / 1000) + 2],
    });
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ token: 't2', overdueSince: T0 });
    expect(ticksOf(sentOf(h.queue)).map((entry) => [entry.job.token, entry.delaySeconds])).toEqual([
      ['t1', 0],
      ['t2', 0],
    ]);

    // This tick arrives: its claim takes the wake, the event is delivered, nothing is overdue.
    expect((await tick.tick(tickJob(h, 't2'), run)).delivered).toBe(1);
    const after = await h.store.getMeta('orders', 'audit');
    expect(after?.overdueSince).toBeUndefined();
    expect(after?.state).toBe('idle');
    h.metrics.drain();
    expect(await sweepAt(T0 + 11 * M)).toMatchObject({ report: { sent: 0 }, overdue: [0] });
  });

  it('forgets the first due time once a tick claims the backlog, whatever its next wake', async () => {
    const h = harness();
    const tick = tickOf(h);
    await store(h, 'seg-a', [line('a', T0 + H)]);
    await armed(h, T0, { overdueSince: T0 - 10 * M });

    await tick.tick(tickJob(h, 't0'), run);

    const meta = await h.store.getMeta('orders', 'audit');
    expect(meta).toMatchObject({ wakeAt: T0 + H, state: 'waiting' });
    expect(meta?.overdueSince).toBeUndefined();
    expect(oldestOverdue([meta as BacklogMeta], T0 + M)).toBeUndefined();
  });

  it('keeps growing past the alarm’s 10 minutes when the sweep cannot arm the wake again', async () => {
    const h = harness();
    const tick = new BacklogTick({ ...h.deps, metrics: h.metrics });
    // A backlog whose subscription is gone and whose segments are too: no target to send a tick for.
    h.subscriptions.delete('orders/audit');
    await armed(h, T0);
    const written: number[] = [];
    for (let minute = 1; minute <= 12; minute += 1) {
      h.clock.advanceTo(T0 + minute * M);
      expect(await tick.sweep()).toMatchObject({ sent: 0, rearmed: 0, ...(minute > 5 ? { failed: 1 } : {}) });
      written.push(...overdueWritten(h.metrics));
    }
    expect(written).toEqual([0, 0, 180, 240, 300, 360, 420, 480, 540, 600, 660, 720]);
  });
});

describe('backlog tick and sweep in virtual time', () => {
  it('delivers every stored event at its due time (drained, or released to the retry queue), never early and at most 1 s late', async () => {
    const h = harness();
    const tick = tickOf(h);
    // Due times over six hours, with jitter fractions, in three segments that overlap.
    const dues = Array.from(
      { length: 60 },
      (_, i) => T0 + ((i * 7919) % 360) * M + ((i * 104729) % 1000) + 0.25,
    );
    const lines = dues.map((dueAt, i) => line(`e${i}`, dueAt));
    for (const [index, part] of [lines.slice(0, 20), lines.slice(20, 40), lines.slice(40)].entries()) {
      await store(h, `seg-${index}`, part);
    }
    const first = Math.min(...dues);
    await armed(h, first, { armedToken: undefined });

    const arrived = new Map<string, number>();
    const handled = new Set<(typeof h.queue.sent)[number]>();
    let nextSweep = T0;
    while (h.clock.now() < T0 + 7 * H) {
      // The next message to arrive (in the order sent, among those arriving together), or a sweep.
      const next = h.queue.sent
        .filter((raw) => !handled.has(raw))
        .map((raw) => ({ raw, arrives: raw.at + raw.job.delaySeconds * S }))
        .reduce<{ raw: (typeof h.queue.sent)[number]; arrives: number } | undefined>(
          (min, entry) => (min === undefined || entry.arrives < min.arrives ? entry : min),
          undefined,
        );
      if (next === undefined || next.arrives >= nextSweep) {
        h.clock.advanceTo(nextSweep);
        await tick.sweep();
        nextSweep += M;
        continue;
      }
      handled.add(next.raw);
      h.clock.advanceTo(next.arrives);
      const [message] = sentOf({ sent: [next.raw] });
      if (message?.kind === 'tick') {
        const seen = h.sender.requests.length;
        await tick.tick(message.job, run);
        for (const { request, at } of h.sender.requests.slice(seen)) {
          for (const event of JSON.parse(request.body) as Array<{ id: string }>) {
            expect(arrived.has(event.id)).toBe(false);
            arrived.set(event.id, at);
          }
        }
      }
      if (message?.kind === 'deliver') {
        for (const delivered of message.job.items) {
          expect(arrived.has(delivered.eventId)).toBe(false);
          arrived.set(delivered.eventId, next.arrives);
        }
      }
    }

    expect(arrived.size).toBe(dues.length);
    dues.forEach((dueAt, i) => {
      const at = arrived.get(`e${i}`) as number;
      expect(at).toBeGreaterThanOrEqual(dueAt);
      expect(at - dueAt).toBeLessThanOrEqual(S);
    });
    expect(await h.store.listSegments('orders', 'audit')).toEqual([]);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ state: 'idle' });
  });
});

describe('backlog tick: a crash at any write', () => {
  /** Counts the tick's writes (store writes and non-empty queue sends) and fails one of them. */
  function withFaults(h: Harness) {
    const faults = { writes: 0, failAt: 0, afterWrite: false, names: [] as string[] };
    const guard =
      <A extends unknown[], R>(name: string, write: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        faults.writes += 1;
        faults.names.push(name);
        if (faults.writes !== faults.failAt) return write(...args);
        // Failing after the write stands for a write that happened and whose answer was lost.
        if (faults.afterWrite) await write(...args);
        throw new Error(`${name} failed`);
      };
    const { store, queue } = h;
    store.putMeta = guard('putMeta', store.putMeta.bind(store));
    store.updateCheckpoint = guard('updateCheckpoint', store.updateCheckpoint.bind(store));
    store.deleteSegment = guard('deleteSegment', store.deleteSegment.bind(store));
    store.putSegment = guard('putSegment', store.putSegment.bind(store));
    const send = guard('send', queue.send.bind(queue));
    queue.send = async (name, jobs) => (jobs.length === 0 ? undefined : send(name, jobs));
    return faults;
  }

  const EVENTS = ['expired', 'due', 'soon-a', 'overdue', 'later-b', 'soon-c', 'later-d'];

  async function scenario() {
    const h = harness({ ...WITH_DEAD_LETTERS, retry: { maxAttempts: 30, ttlMs: 24 * H } });
    await store(h, 'seg-a', [
      line('expired', T0 - M, T0 - 25 * H),
      line('due', T0),
      line('soon-a', T0 + 5 * M),
    ]);
    await store(h, 'seg-b', [line('overdue', T0 - 30 * S), line('later-b', T0 + 2 * H)]);
    await store(h, 'seg-c', [line('soon-c', T0 + 10 * M)]);
    await store(h, 'seg-d', [line('later-d', T0 + 3 * H)]);
    await armed(h, T0 - M);
    return h;
  }

  /**
   * Every event still waiting in a segment or sent on (delivered by the drain, released, or
   * handed to the dead-letter step).
   */
  async function accounted(h: Harness): Promise<string[]> {
    const sent = sentOf(h.queue);
    const sentOn = [
      ...requestedIds(h.sender).flat(),
      ...deliveriesOf(sent).flatMap((entry) => entry.job.items.map((i) => i.eventId)),
      ...endedOf(sent).map((entry) => entry.item.eventId),
    ];
    return [...new Set([...(await liveIds(h)), ...sentOn])].sort();
  }

  it('runs through without faults: every event accounted for once', async () => {
    const h = await scenario();
    const faults = withFaults(h);

    await tickOf(h).tick(tickJob(h, 't0'), run);

    expect(await accounted(h)).toEqual([...EVENTS].sort());
    expect(await liveIds(h)).toEqual(['later-b', 'later-d']);
    expect(faults.names).toEqual([
      'putMeta', // claim
      'send', // released events
      'send', // the expired event, to the ended-delivery queue
      'updateCheckpoint', // seg-a: expired and released lines
      'deleteSegment', // seg-c
      'putMeta', // draining
      'deleteSegment', // seg-a, its due event drained
      'updateCheckpoint', // seg-b, its overdue event drained
      'putMeta', // re-arm (its wake is hours away: the sweeper sends the tick)
    ]);
    expect(requestedIds(h.sender).flat().sort()).toEqual(['due', 'overdue']);
  });

  const writes = 9;
  it.each(
    Array.from({ length: writes }, (_, i) => [
      [i + 1, false],
      [i + 1, true],
    ]).flat() as Array<[number, boolean]>,
  )(
    'write %i fails (after it was made: %s): the tick that resumes loses no event',
    async (failAt, afterWrite) => {
      const h = await scenario();
      const tick = tickOf(h);
      const faults = withFaults(h);
      faults.failAt = failAt;
      faults.afterWrite = afterWrite;

      const first = await tick.tick(tickJob(h, 't0'), run).then(
        () => 'finished',
        () => 'failed',
      );
      expect(await accounted(h)).toEqual([...EVENTS].sort());
      if (first === 'finished') {
        // Only the ended-delivery queue refused: the ended deliveries were parked on the retry queue.
        expect(faults.names[failAt - 1]).toBe('send');
        expect(sentOf(h.queue).flatMap((entry) => (entry.kind === 'ended' ? [entry.queue] : []))).toContain(
          'retry',
        );
      }

      // What comes next: the tick's own message again (META not taken); else, once the lease is
      // over, the sweeper's tick for the claimed wake; or, when the re-arm was written and its
      // wake is far, nothing until the sweeper reaches it.
      const meta = await h.store.getMeta('orders', 'audit');
      let resume = meta?.token === 't0' ? tickJob(h, 't0') : undefined;
      if (resume === undefined && meta?.lease !== undefined) {
        h.clock.advance(TICK_LEASE_MS);
        await tick.sweep();
        resume = ticksOf(sentOf(h.queue)).find((entry) => entry.job.token === meta.token)?.job;
        expect(resume).toBeDefined();
      }
      if (resume === undefined) {
        expect(meta).toMatchObject({ wakeAt: T0 + 2 * H, state: 'waiting' });
        expect(meta?.armedToken).toBeUndefined();
      } else {
        expect((await tick.tick(resume, run)).outcome).toBe('ticked');
      }

      expect(await accounted(h)).toEqual([...EVENTS].sort());
      expect(await liveIds(h)).toEqual(['later-b', 'later-d']);
      const after = await h.store.getMeta('orders', 'audit');
      expect(after).toMatchObject({ wakeAt: T0 + 2 * H, state: 'waiting', summary: { events: 2 } });
      expect(after?.lease).toBeUndefined();
    },
  );
});

describe('backlog tick: probe', () => {
  /** An endpoint whose probation just ended after many failures: the next tick probes. */
  const probing = (h: Harness) =>
    setHealth(h, { probationUntil: T0 - S, probations: 3, consecutiveFailures: 12, unhealthySince: T0 - H });

  it.each<[string, Partial<Subscription>, string[]]>([
    ['one event', WITH_DEAD_LETTERS, ['e0']],
    [
      'one batch when the subscription batches',
      {
        ...WITH_DEAD_LETTERS,
        destination: {
          endpointType: 'WebHook',
          endpointUrl: 'https://hooks.example.test/in',
          maxEventsPerBatch: 3,
        },
      },
      ['e0', 'e1', 'e2'],
    ],
  ])('sends exactly one request, the earliest due: %s', async (_name, overrides, probed) => {
    const h = harness(overrides);
    await probing(h);
    h.sender.answerWith({ httpStatus: 503, outcome: 'Busy' });
    await store(
      h,
      'seg-b',
      [3, 4, 5].map((i) => line(`e${i}`, T0 - 10 * M + i * S)),
    );
    await store(
      h,
      'seg-a',
      [0, 1, 2].map((i) => line(`e${i}`, T0 - 10 * M + i * S)),
    );
    await armed(h, T0 - 10 * M, { heldUntil: T0 - S, state: 'holding' });

    await tickOf(h).tick(tickJob(h, 't0'), run);

    expect(requestedIds(h.sender)).toEqual([probed]);
  });

  it('stores the probed events back with their attempts raised, and sleeps until the new hold ends', async () => {
    const h = harness();
    await probing(h);
    h.sender.answerWith({ httpStatus: 503, outcome: 'Busy' });
    await store(h, 'seg-a', [line('first', T0 - 10 * M), line('second', T0 - 5 * M)]);
    await armed(h, T0 - 10 * M, { heldUntil: T0 - S, state: 'holding' });

    const report = await tickOf(h).tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ delivered: 0, storedBack: 1, released: 0 });
    expect(requestedIds(h.sender)).toEqual([['first']]);
    // The tracker saw the failure and began the next probation; the health item has it too.
    const health = await h.healthStore.get('orders', 'audit');
    const until = health?.probationUntil as number;
    expect(until).toBeGreaterThan(T0);
    expect(health?.probations).toBe(4);
    // The probed event is in a new segment, its attempt counted; the other is untouched.
    const lines: BacklogLine[] = [];
    for (const ref of await h.store.listSegments('orders', 'audit')) {
      const { lines: stored } = await h.store.readSegment(ref);
      lines.push(...stored.filter((_, index) => index >= ref.doneThrough && !ref.doneAfter.includes(index)));
    }
    expect(
      lines.map((entry) => [entry.item.eventId, entry.item.attempts, entry.item.lastHttpStatus]),
    ).toEqual([
      ['second', 3, 500],
      ['first', 4, 503],
    ]);
    const retried = lines.find((entry) => entry.item.eventId === 'first') as BacklogLine;
    expect(retried.dueAt).toBeGreaterThan(T0);
    expect(h.history.records).toEqual([
      expect.objectContaining({
        eventId: 'first',
        attempt: 4,
        httpStatus: 503,
        next: expect.objectContaining({ action: 'retry' }),
      }),
    ]);
    const meta = await h.store.getMeta('orders', 'audit');
    expect(meta).toMatchObject({ state: 'holding', heldUntil: until, wakeAt: until });
    expect(deliveriesOf(sentOf(h.queue))).toEqual([]);
  });

  it('drains everything due, in due order across segments, once the probe is answered', async () => {
    const h = harness({ ...WITH_DEAD_LETTERS }, { drainConcurrency: 1 });
    await probing(h);
    const dues = Array.from({ length: 12 }, (_, i) => T0 - 30 * M + ((i * 7) % 12) * M);
    const lines = dues.map((dueAt, i) => line(`e${i}`, dueAt));
    await store(h, 'seg-x', lines.slice(0, 6));
    await store(h, 'seg-y', lines.slice(6));
    await armed(h, T0 - 30 * M, { heldUntil: T0 - S, state: 'holding' });

    const report = await tickOf(h).tick(tickJob(h, 't0'), run);

    const inDueOrder = [...lines].sort((a, b) => a.dueAt - b.dueAt).map((entry) => entry.item.eventId);
    expect(report).toMatchObject({ delivered: 12, storedBack: 0, wakeAt: undefined });
    expect(requestedIds(h.sender).flat()).toEqual(inDueOrder);
    expect(await h.store.listSegments('orders', 'audit')).toEqual([]);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ state: 'idle' });
  });
});

describe('backlog tick: drain', () => {
  it('never has more than drainConcurrency requests in flight; the window starts at 2 and grows', async () => {
    const h = harness(WITH_DEAD_LETTERS, { drainConcurrency: 6, latencyMs: 2 });
    const inFlightAtStart: number[] = [];
    const answeredAtStart: number[] = [];
    let answered = 0;
    const send = h.sender.send.bind(h.sender);
    h.sender.send = async (request) => {
      const sending = send(request);
      inFlightAtStart.push(h.sender.inFlight);
      answeredAtStart.push(answered);
      const result = await sending;
      answered += 1;
      return result;
    };
    await store(
      h,
      'seg-a',
      Array.from({ length: 60 }, (_, i) => line(`e${i}`, T0 - M + i)),
    );
    await armed(h, T0 - M);

    const report = await tickOf(h).tick(tickJob(h, 't0'), run);

    expect(report.delivered).toBe(60);
    expect(h.sender.maxInFlight).toBe(6);
    expect(Math.max(...inFlightAtStart)).toBe(6);
    // Two at first; a third only once an answer came back.
    expect(inFlightAtStart.slice(0, 3)).toEqual([1, 2, 2]);
    expect(answeredAtStart.slice(0, 3)).toEqual([0, 0, 1]);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ state: 'idle' });
  });

  it('batches events of different stored jobs together, up to maxEventsPerBatch', async () => {
    const h = harness({
      ...WITH_DEAD_LETTERS,
      destination: {
        endpointType: 'WebHook',
        endpointUrl: 'https://hooks.example.test/in',
        maxEventsPerBatch: 4,
      },
    });
    // Three jobs stored apart, each of three events, all with the same attempt count.
    for (const job of ['a', 'b', 'c']) {
      await store(
        h,
        `seg-${job}`,
        [0, 1, 2].map((i) => line(`${job}${i}`, T0 - M + (job.charCodeAt(0) - 97) * 3 + i)),
      );
    }
    await armed(h, T0 - M);

    const report = await tickOf(h).tick(tickJob(h, 't0'), run);

    expect(report.delivered).toBe(9);
    expect(requestedIds(h.sender)).toEqual([['a0', 'a1', 'a2', 'b0'], ['b1', 'b2', 'c0', 'c1'], ['c2']]);
  });

  it('stores failures back with their attempts raised and hands over those that end', async () => {
    const h = harness({ ...WITH_DEAD_LETTERS, retry: { maxAttempts: 4, ttlMs: 24 * H } });
    // 'last' has used 3 of its 4 attempts, so its failure ends it; 'again' has used 1 and is retried.
    await store(h, 'seg-a', [
      line('last', T0 - M),
      { dueAt: T0 - M + 1, heldBy: 'wait', item: item('again', T0 - H, { attempts: 1 }) },
      line('ok', T0 - M + 2),
    ]);
    await armed(h, T0 - M);
    h.sender.answerWith((request) =>
      request.body.includes('"ok"')
        ? { delivered: true, httpStatus: 200 }
        : { httpStatus: 500, outcome: 'GenericError' },
    );

    const report = await tickOf(h).tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ delivered: 1, storedBack: 1, ended: 1 });
    expect(
      endedOf(sentOf(h.queue)).map((entry) => [entry.item.eventId, entry.reason, entry.item.attempts]),
    ).toEqual([['last', 'MaxDeliveryAttemptsExceeded', 4]]);
    const [ref] = await h.store.listSegments('orders', 'audit');
    const stored = (await h.store.readSegment(ref as BacklogSegmentRef)).lines;
    expect(stored.map((entry) => [entry.item.eventId, entry.item.attempts])).toEqual([['again', 2]]);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({
      state: 'waiting',
      wakeAt: stored[0]?.dueAt,
    });
  });

  it('stops when an outcome puts the endpoint on probation: the rest stay in their segments', async () => {
    const h = harness(WITH_DEAD_LETTERS, { drainConcurrency: 1 });
    let answered = 0;
    h.sender.answerWith(() =>
      ++answered <= 3 ? { delivered: true, httpStatus: 200 } : { httpStatus: 503, outcome: 'Busy' },
    );
    const ids = Array.from({ length: 10 }, (_, i) => `e${i}`);
    await store(
      h,
      'seg-a',
      ids.map((id, i) => line(id, T0 - M + i)),
    );
    await armed(h, T0 - M);

    const report = await tickOf(h).tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ delivered: 3, storedBack: 1 });
    expect(requestedIds(h.sender).flat()).toEqual(['e0', 'e1', 'e2', 'e3']);
    // e3 failed and was stored back; e4.. were never sent and are still where they were.
    expect(await liveIds(h)).toEqual(ids.slice(3).sort());
    const [original] = await h.store.listSegments('orders', 'audit', { dueBy: T0 });
    expect(original).toMatchObject({ segmentId: 'seg-a', doneThrough: 4 });
    const health = await h.healthStore.get('orders', 'audit');
    const until = health?.probationUntil as number;
    expect(until).toBeGreaterThan(T0);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({
      state: 'holding',
      heldUntil: until,
      wakeAt: until,
    });
  });

  it('sleeps until the hold when the last answer of the drain began a probation', async () => {
    const h = harness(WITH_DEAD_LETTERS, { drainConcurrency: 1 });
    h.sender.answerWith((request) =>
      request.body.includes('"e2"')
        ? { httpStatus: 503, outcome: 'Busy' }
        : { delivered: true, httpStatus: 200 },
    );
    await store(
      h,
      'seg-a',
      ['e0', 'e1', 'e2'].map((id, i) => line(id, T0 - M + i)),
    );
    await armed(h, T0 - M);

    const report = await tickOf(h).tick(tickJob(h, 't0'), run);

    expect(report).toMatchObject({ delivered: 2, storedBack: 1 });
    const until = (await h.healthStore.get('orders', 'audit'))?.probationUntil as number;
    expect(until).toBeGreaterThan(T0);
    expect(await h.store.getMeta('orders', 'audit')).toMatchObject({ state: 'holding', heldUntil: until });
  });

  it('hands the rest to a tick sent at once when the deadline comes mid-drain', async () => {
    const h = harness(WITH_DEAD_LETTERS, { drainConcurrency: 1 });
    // Each answer takes 10 s of the invocation's time.
    h.sender.answerWith(() => {
      h.clock.advance(10 * S);
      return { delivered: true, httpStatus: 200 };
    });
    const ids = Array.from({ length: 8 }, (_, i) => `e${i}`);
    await store(
      h,
      'seg-a',
      ids.map((id, i) => line(id, T0 - M + i)),
    );
    await armed(h, T0 - M);

    const report = await tickOf(h).tick(tickJob(h, 't0'), { attemptDeadline: T0 + 60 * S });

    // No attempt starts after the deadline less its 30 s reserve.
    expect(report.delivered).toBe(3);
    expect(await liveIds(h)).toEqual(ids.slice(3));
    const meta = await h.store.getMeta('orders', 'audit');
    expect(meta?.state).toBe('waiting');
    const next = ticksOf(sentOf(h.queue)).find((entry) => entry.job.token === meta?.token);
    expect(next?.delaySeconds).toBe(0);

    // The tick sent at once drains the rest.
    h.sender.answerWith({ delivered: true, httpStatus: 200 });
    expect((await tickOf(h).tick(next?.job as BacklogTickJob, run)).delivered).toBe(5);
    expect(await liveIds(h)).toEqual([]);
  });

  // The checkpoint at 1,000 events updates seg-a, the one at 2,000 deletes it and updates seg-b.
  it.each([
    ['updateCheckpoint', 2],
    ['deleteSegment', 1],
  ] as const)(
    'loses no event when a checkpoint write (%s, call %i) fails once: only events after the last checkpoint come twice',
    async (failing, failAt) => {
      const h = harness(WITH_DEAD_LETTERS, { drainConcurrency: 8 });
      // Segment a's 1,500 events are all due before segment b's 1,000.
      const a = Array.from({ length: 1500 }, (_, i) => line(`a${i}`, T0 - 10 * M + i));
      const b = Array.from({ length: 1000 }, (_, i) => line(`b${i}`, T0 - 5 * M + i));
      await store(h, 'seg-a', a);
      await store(h, 'seg-b', b);
      await armed(h, T0 - 10 * M);
      const write = h.store[failing].bind(h.store) as (
        ref: BacklogSegmentRef,
        ...rest: never[]
      ) => Promise<never>;
      let calls = 0;
      h.store[failing] = (async (ref: BacklogSegmentRef, ...rest: never[]) => {
        calls += 1;
        if (calls === failAt) throw new Error(`${failing} failed`);
        return write(ref, ...rest);
      }) as never;

      await expect(tickOf(h).tick(tickJob(h, 't0'), run)).rejects.toThrow(`${failing} failed`);

      const firstRun = new Set(requestedIds(h.sender).flat());
      const notCheckpointed = new Set(await liveIds(h));
      expect(firstRun.size).toBe(2500);
      // Resumed by the sweeper's tick for the claimed wake once the lease is over.
      const meta = await h.store.getMeta('orders', 'audit');
      h.clock.advance(TICK_LEASE_MS);
      await tickOf(h).sweep();
      const continuation = ticksOf(sentOf(h.queue)).find((entry) => entry.job.token === meta?.token);
      const seen = h.sender.requests.length;
      expect((await tickOf(h).tick(continuation?.job as BacklogTickJob, run)).outcome).toBe('ticked');

      const secondRun = requestedIds({ requests: h.sender.requests.slice(seen) } as ScriptedSender).flat();
      const all = [...a, ...b].map((entry) => entry.item.eventId);
      expect(all.filter((id) => !firstRun.has(id) && !secondRun.includes(id))).toEqual([]);
      // Sent twice: exactly the events no checkpoint had marked done.
      expect(secondRun.filter((id) => firstRun.has(id)).sort()).toEqual([...notCheckpointed].sort());
      expect(notCheckpointed.size).toBe(failing === 'updateCheckpoint' ? 1000 : 1500);
      expect(await liveIds(h)).toEqual([]);
      expect(await h.store.listSegments('orders', 'audit')).toEqual([]);
    },
  );
});

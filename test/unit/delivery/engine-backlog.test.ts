/**
 * The engine with backlogs: which events it stores instead of queueing (waits beyond the
 * threshold, an unhealthy endpoint's events), what stays on the retry queue (short waits, short
 * probations), routing switched off, and the backlog's own jobs (`store`, `backlog-tick`) worked
 * through `processJob`.
 */
import type { JobOptions } from '../../../shared/delivery/ports';
import { BACKLOG_AFTER_MS } from '../../../shared/delivery/rules/backlog';
import { type StoreJob, storeJobSchema } from '../../../shared/domain/delivery';
import { parseJob } from '../../../shared/queue/job-codec';
import { engineHarness, item, job, unhealthyEndpoint } from '../../support/fakes';
import { MemoryBacklogStore } from '../../support/memory-stores';
import { H, M, S } from '../../support/time';

const run: JobOptions = { attemptDeadline: Number.MAX_SAFE_INTEGER };

const withBacklog = (options: { routing?: boolean; randoms?: number[]; concurrency?: number } = {}) => {
  const store = new MemoryBacklogStore();
  const h = engineHarness({
    randoms: options.randoms ?? [0, 0, 0, 0, 0, 0],
    concurrency: options.concurrency ?? 8,
    backlog: { store, ...(options.routing === undefined ? {} : { routing: options.routing }) },
  });
  return { h, store };
};

/** The store jobs sent to the backlog queue so far, in order. */
const storeJobsOf = (h: ReturnType<typeof engineHarness>): StoreJob[] =>
  h.queue.sent
    .filter((entry) => entry.queue === 'backlog')
    .map((entry) => storeJobSchema.parse(parseJob(entry.job.body)));

const unhealthy = unhealthyEndpoint;

describe('the engine with backlogs: long waits', () => {
  it('stores a job whose due time is further away than the threshold instead of hopping it', async () => {
    const { h } = withBacklog();
    const t0 = h.clock.now();
    const dueAt = t0 + BACKLOG_AFTER_MS + S;

    const report = await h.engine.processJob(job([item('e1', t0)], dueAt), run);

    expect(report).toMatchObject({ stored: 1, hopped: false, delivered: 0 });
    expect(h.sender.requests).toEqual([]);
    expect(storeJobsOf(h)).toEqual([
      expect.objectContaining({
        kind: 'store',
        dueAt,
        heldBy: 'wait',
        items: [expect.objectContaining({ eventId: 'e1' })],
      }),
    ]);
    expect(h.queue.take()).toEqual([]);
  });

  it('hops a job due within the threshold, as without backlogs', async () => {
    const { h } = withBacklog();
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e1', t0)], t0 + BACKLOG_AFTER_MS), run);

    expect(report).toMatchObject({ hopped: true, stored: 0 });
    expect(storeJobsOf(h)).toEqual([]);
    expect(h.queue.take().map((sent) => [sent.queue, sent.delaySeconds])).toEqual([['retry', 900]]);
  });

  it('with routing off, hops every long wait (backlogs that hold events still work)', async () => {
    const { h } = withBacklog({ routing: false });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e1', t0)], t0 + 2 * H), run);

    expect(report).toMatchObject({ hopped: true, stored: 0 });
    expect(storeJobsOf(h)).toEqual([]);
  });

  it('stores a retry whose schedule step is beyond the threshold, and queues a short one', async () => {
    const { h } = withBacklog();
    h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError' });
    const t0 = h.clock.now();
    // After the 6th failure the schedule waits 30 min; after the 1st, 10 s.
    const late = item('late', t0, { attempts: 5, lastOutcome: 'GenericError' });
    const fresh = item('fresh', t0);

    await h.engine.processJob(job([late, fresh]), run);

    expect(storeJobsOf(h)).toEqual([
      expect.objectContaining({
        heldBy: 'wait',
        dueAt: t0 + 30 * M,
        items: [expect.objectContaining({ eventId: 'late', attempts: 6 })],
      }),
    ]);
    expect(h.queue.take().map((sent) => [sent.job.items[0]?.eventId, sent.job.dueAt])).toEqual([
      ['fresh', t0 + 10 * S],
    ]);
  });
});

describe('the engine with backlogs: an unhealthy endpoint', () => {
  it('holds a due job for the backlog without a request, on probation and when probing alike', async () => {
    for (const probationUntil of [M, -S]) {
      const { h } = withBacklog();
      const t0 = h.clock.now();
      await h.healthStore.put(unhealthy(t0, { probationUntil: t0 + probationUntil }), undefined);

      const report = await h.engine.processJob(job([item('e1', t0), item('e2', t0)]), run);

      expect(h.sender.requests).toEqual([]);
      expect(report).toMatchObject({ held: 2, delivered: 0, retried: 0 });
      const [stored] = storeJobsOf(h);
      expect(stored).toMatchObject({ heldBy: 'probation' });
      // Never before the hold ends (or now, once it has).
      expect(stored?.dueAt).toBeGreaterThanOrEqual(Math.max(t0, t0 + probationUntil));
      expect(stored?.items.map((one) => [one.eventId, one.attempts, one.lastOutcome])).toEqual([
        ['e1', 0, 'Probation'],
        ['e2', 0, 'Probation'],
      ]);
      expect(h.queue.take()).toEqual([]);
    }
  });

  it('stores the rest of a job, and the retry, once its failures make the endpoint unhealthy', async () => {
    const { h } = withBacklog({ concurrency: 1 });
    const t0 = h.clock.now();
    await h.healthStore.put(
      { ...unhealthy(t0), consecutiveFailures: 9, unhealthySince: undefined, probationUntil: undefined },
      undefined,
    );
    h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError' });

    await h.engine.processJob(job([item('a', t0), item('b', t0), item('c', t0)]), run);

    // The 10th failure in a row: unhealthy; the other two are held, and everything is stored.
    expect(h.sender.requests).toHaveLength(1);
    const stored = storeJobsOf(h);
    expect(stored.flatMap((one) => one.items.map((i) => i.eventId)).sort()).toEqual(['a', 'b', 'c']);
    expect(stored.find((one) => one.items[0]?.eventId === 'a')).toMatchObject({ heldBy: 'wait' });
    expect(stored.find((one) => one.items[0]?.eventId !== 'a')).toMatchObject({ heldBy: 'probation' });
    expect(h.queue.take()).toEqual([]);
  });

  it('keeps a short probation of a healthy endpoint on the retry queue', async () => {
    const { h } = withBacklog({ concurrency: 1 });
    h.sender.answerWith({ delivered: false, httpStatus: 503, outcome: 'Busy' });
    const t0 = h.clock.now();

    await h.engine.processJob(job([item('a', t0), item('b', t0)]), run);

    expect(storeJobsOf(h)).toEqual([]);
    expect(
      h.queue
        .take()
        .map((sent) => sent.job.items[0]?.eventId)
        .sort(),
    ).toEqual(['a', 'b']);
  });
});

describe("the engine with backlogs: the backlog's own jobs", () => {
  it('stores a store job in a segment and arms its timer; the tick at the due time delivers it', async () => {
    const { h, store } = withBacklog();
    const t0 = h.clock.now();
    await h.engine.processJob(job([item('e1', t0)], t0 + H), run);
    const [stored] = storeJobsOf(h);
    h.queue.sent.splice(0);

    const report = await h.engine.processJob(stored as StoreJob, run);

    expect(report).toMatchObject({ stored: 1 });
    expect(await store.listSegments('orders', 'audit')).toHaveLength(1);
    // A wake an hour away is left to the sweeper: no tick yet.
    expect(await store.getMeta('orders', 'audit')).toMatchObject({ wakeAt: t0 + H, state: 'waiting' });
    expect(h.queue.sent).toEqual([]);

    h.clock.advance(H - 10 * M);
    expect(await h.engine.sweepBacklogs()).toMatchObject({ sent: 1 });
    const [tick] = h.queue.sent.splice(0);
    expect(tick?.job.delaySeconds).toBe(600);
    h.clock.advance(10 * M);

    const ticked = await h.engine.processJob(parseJob(tick?.job.body ?? ''), run);

    expect(ticked).toMatchObject({ delivered: 1 });
    expect(h.sender.requests).toHaveLength(1);
    expect(await store.listSegments('orders', 'audit')).toEqual([]);
  });
});

describe('the engine with backlogs: a recovering endpoint', () => {
  it('marks the endpoint draining while a drain after a probe runs, and removes the mark after', async () => {
    const { h, store } = withBacklog();
    const t0 = h.clock.now();
    // Unhealthy, its hold just over: the job is stored, and the backlog's tick probes, then drains.
    await h.healthStore.put(unhealthy(t0, { probationUntil: t0 - S }), undefined);
    await h.engine.processJob(job([item('a', t0), item('b', t0), item('c', t0)]), run);
    const [stored] = storeJobsOf(h);
    h.queue.sent.splice(0);
    await h.engine.processJob(stored as StoreJob, run);
    const [tick] = h.queue.sent.splice(0);
    const marks: Array<number | undefined> = [];
    h.sender.answerWith(() => {
      marks.push([...h.healthStore.items.values()][0]?.drainingUntil);
      return { delivered: true, httpStatus: 200 };
    });

    const report = await h.engine.processJob(parseJob(tick?.job.body ?? ''), run);

    expect(report).toMatchObject({ delivered: 3 });
    // The probe went before the mark; the drain's requests went with it.
    expect(marks[0]).toBeUndefined();
    expect(marks.slice(1)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(marks[1]).toBeGreaterThan(h.clock.now());
    expect([...h.healthStore.items.values()][0]?.drainingUntil).toBeUndefined();
    expect(await store.listSegments('orders', 'audit')).toEqual([]);
  });

  it('stores a due job while the drain mark is on, and attempts it once the mark ran out', async () => {
    const { h } = withBacklog();
    const t0 = h.clock.now();
    await h.healthStore.put(
      {
        topic: 'orders',
        subscription: 'audit',
        endpointUrl: 'https://hooks.example.test/in',
        consecutiveFailures: 0,
        probations: 0,
        rev: 1,
        drainingUntil: t0 + M,
      },
      undefined,
    );

    const during = await h.engine.processJob(job([item('new', t0)]), run);

    expect(during).toMatchObject({ held: 1, delivered: 0 });
    expect(h.sender.requests).toEqual([]);
    expect(storeJobsOf(h)).toEqual([expect.objectContaining({ heldBy: 'probation' })]);

    h.clock.advance(M + S);
    const after = await h.engine.processJob(job([item('later', t0)]), run);
    expect(after).toMatchObject({ delivered: 1 });
  });
});

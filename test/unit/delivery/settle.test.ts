/**
 * Every path that ends a delivery goes through one settle (`settle.ts`): a first attempt, a
 * retry, a resend from the message log, a dead-letter replay, a backlog's probe and drain, and a
 * backlog's expiry. Run with the subscription's `deliveryLog` at `All` and at `Failures`, each
 * path writes the records the level asks for, and counts what it delivered, alike.
 */
import type { JobOptions } from '../../../shared/delivery/ports';
import type { AttemptRecord } from '../../../shared/domain/attempts';
import { type StoreJob, storeJobSchema } from '../../../shared/domain/delivery';
import { METRIC, subscriptionDimensions } from '../../../shared/observability/metrics';
import { parseJob } from '../../../shared/queue/job-codec';
import { engineHarness, item, job, subscription, unhealthyEndpoint } from '../../support/fakes';
import { MemoryBacklogStore } from '../../support/memory-stores';
import { H, M } from '../../support/time';

const run: JobOptions = { attemptDeadline: Number.MAX_SAFE_INTEGER };
type Level = 'All' | 'Failures';
type Harness = ReturnType<typeof engineHarness>;

/** A record as compared: whose, which attempt, what came of it, what follows, and what it resends. */
interface Shape {
  eventId: string;
  attempt: number;
  outcome: string;
  next: string;
  resendOf?: string;
}

const shapeOf = (record: AttemptRecord): Shape => ({
  eventId: record.eventId,
  attempt: record.attempt,
  outcome: record.outcome,
  next: record.next.action,
  ...(record.resendOf === undefined ? {} : { resendOf: record.resendOf }),
});

const delivered = (eventId: string, attempt = 1, resendOf?: string): Shape => ({
  eventId,
  attempt,
  outcome: 'Delivered',
  next: 'none',
  ...(resendOf === undefined ? {} : { resendOf }),
});

function harness(level: Level) {
  const store = new MemoryBacklogStore();
  const h = engineHarness({ randoms: [0, 0, 0, 0, 0, 0], backlog: { store } });
  h.subscriptions.set(
    'orders/audit',
    subscription({ deadLetter: { container: 'dead' }, deliveryLog: level }),
  );
  return h;
}

/**
 * Holds the job's events in the subscription's backlog (its endpoint unhealthy until `until`),
 * then runs the backlog's tick once the clock reaches `tickAt`.
 */
async function throughBacklog(h: Harness, events: ReturnType<typeof item>[], until: number, tickAt: number) {
  const t0 = h.clock.now();
  await h.healthStore.put(unhealthyEndpoint(t0, { probationUntil: until }), undefined);
  await h.engine.processJob(job(events), run);
  const stores = h.queue.sent
    .filter((entry) => entry.queue === 'backlog')
    .map((entry) => storeJobSchema.parse(parseJob(entry.job.body)));
  h.queue.sent.splice(0);
  for (const stored of stores) await h.engine.processJob(stored as StoreJob, run);
  const ticks = h.queue.sent.splice(0).filter((entry) => parseJob(entry.job.body).kind === 'backlog-tick');
  expect(ticks).toHaveLength(1);
  h.clock.advanceTo(tickAt);
  await h.engine.processJob(parseJob(ticks[0]?.job.body ?? ''), run);
}

interface Path {
  /** Runs the path, ending its deliveries. */
  run(h: Harness): Promise<void>;
  /** The records it writes at each level. */
  records: Record<Level, Shape[]>;
  /** Events it delivered (counted in `DeliverySuccessCount`). */
  delivered: number;
}

const PATHS: Record<string, Path> = {
  'a first attempt': {
    run: async (h) => {
      await h.engine.processJob(job([item('e1', h.clock.now())]), run);
    },
    records: { All: [delivered('e1')], Failures: [] },
    delivered: 1,
  },
  'a first attempt that fails': {
    run: async (h) => {
      h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError' });
      await h.engine.processJob(job([item('e1', h.clock.now())]), run);
    },
    records: {
      All: [{ eventId: 'e1', attempt: 1, outcome: 'GenericError', next: 'retry' }],
      Failures: [{ eventId: 'e1', attempt: 1, outcome: 'GenericError', next: 'retry' }],
    },
    delivered: 0,
  },
  'a retry': {
    run: async (h) => {
      const retried = item('e1', h.clock.now(), { attempts: 1, lastOutcome: 'GenericError' });
      await h.engine.processJob(job([retried]), run);
    },
    records: { All: [delivered('e1', 2)], Failures: [delivered('e1', 2)] },
    delivered: 1,
  },
  'a resend from the message log': {
    run: async (h) => {
      await h.engine.processJob(job([item('e1', h.clock.now(), { resendOf: 'd-original' })]), run);
    },
    records: { All: [delivered('e1', 1, 'd-original')], Failures: [] },
    delivered: 1,
  },
  'a dead-letter replay': {
    run: async (h) => {
      const replayed = item('e1', h.clock.now(), {
        resendOf: 'deadletters/orders/audit/2026/01/01/00/b.json',
      });
      await h.engine.processJob(job([replayed]), run);
    },
    records: { All: [delivered('e1', 1, 'deadletters/orders/audit/2026/01/01/00/b.json')], Failures: [] },
    delivered: 1,
  },
  "a backlog's probe": {
    run: async (h) => {
      const t0 = h.clock.now();
      await throughBacklog(h, [item('p1', t0)], t0 + M, t0 + 2 * M);
    },
    records: { All: [delivered('p1')], Failures: [] },
    delivered: 1,
  },
  "a backlog's probe and drain": {
    run: async (h) => {
      const t0 = h.clock.now();
      await throughBacklog(h, [item('d1', t0), item('d2', t0), item('d3', t0)], t0 + M, t0 + 2 * M);
    },
    records: { All: [delivered('d1'), delivered('d2'), delivered('d3')], Failures: [] },
    delivered: 3,
  },
  "a backlog's expiry": {
    run: async (h) => {
      const t0 = h.clock.now();
      // Held until after its time to live (24 h from publishing) ran out.
      await throughBacklog(h, [item('x1', t0 - 24 * H + M)], t0 + 5 * M, t0 + 6 * M);
    },
    records: {
      All: [{ eventId: 'x1', attempt: 1, outcome: 'NotAttempted', next: 'deadLetter' }],
      Failures: [{ eventId: 'x1', attempt: 1, outcome: 'NotAttempted', next: 'deadLetter' }],
    },
    delivered: 0,
  },
};

const CASES = Object.keys(PATHS).flatMap((path) =>
  (['All', 'Failures'] as const).map((level) => [path, level]),
);

describe('one settle for every path that ends a delivery', () => {
  it.each(CASES)('%s, with deliveryLog %s, writes the records that level asks for', async (path, level) => {
    const h = harness(level as Level);
    const { run: runPath, records, delivered: count } = PATHS[path] as Path;

    await runPath(h);

    const written = h.history.records.map(shapeOf);
    expect(written.sort((a, b) => a.eventId.localeCompare(b.eventId))).toEqual(records[level as Level]);
    const perSubscription = JSON.stringify(subscriptionDimensions('orders', 'audit'));
    const successes = h.metrics
      .drain()
      .filter((point) => point.name === METRIC.DeliverySuccessCount)
      .filter((point) => JSON.stringify(point.dimensions) === perSubscription)
      .reduce((sum, point) => sum + (point.values[0] ?? 0), 0);
    expect(successes).toBe(count);
  });
});

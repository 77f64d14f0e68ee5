/**
 * The delivery function's handler with its engine faked or wired to test doubles: every kind the
 * delivery and retry queues carry reaches the engine, a job the engine could not finish comes
 * back, and attempts stop in time for the follow-ups.
 */
import {
  ANSWER_MARGIN_MS,
  attemptDeadline,
  createDeliveryHandler,
  DELIVERY_JOB_KINDS,
  FINISHING_MARGIN_MS,
  listenUntil,
} from '../../../functions/delivery';
import { FUNCTIONS } from '../../../shared/config/resources';
import type { SourcedStoreJob, StoreResult } from '../../../shared/delivery/backlog/store-step';
import { kindsCarriedBy } from '../../../shared/delivery/job-registry';
import { emptyReport, type JobReport } from '../../../shared/delivery/job-report';
import { upgradeJob } from '../../../shared/delivery/job-upgrade';
import type { JobOptions } from '../../../shared/delivery/ports';
import { LATE_ANSWER_WINDOW_MS } from '../../../shared/delivery/rules/late-answer';
import { deadLetterTargetSchema, JOB_FORMAT_VERSION, type QueuedJob } from '../../../shared/domain/delivery';
import { METRIC } from '../../../shared/observability/metrics';
import { BACKLOG_SWEEP_EVENT } from '../../../shared/queue/backlog-sweep';
import {
  backlogTickBody,
  type LegacyJob,
  packEndedJobs,
  packFanOut,
  packJobs,
  packOrderedJobs,
  packStoreJobs,
  type ReadJob,
  storedFanOutBody,
  validationJobBody,
} from '../../../shared/queue/job-codec';
import { kindOf } from '../../../shared/queue/job-kinds';
import {
  archiveJobBody,
  deliveryTarget,
  engineHarness,
  item,
  replayPageJobBody,
  subscription,
  VirtualClock,
} from '../../support/fakes';
import {
  formatOneDeliveryBody,
  formatOneEndedBody,
  formatOneFanOutBody,
  formatOneStoredFanOutBody,
  formatOneValidationBody,
} from '../../support/job-format-1';
import { lambdaContext as contextWithTimeLeft, quietObservability, sqsEvent } from '../../support/sqs-events';

const NOW = Date.parse('2026-08-08T05:00:00Z');
/** The delivery function's whole timeout: the context of an invocation that has just begun. */
const TIMEOUT_MS = FUNCTIONS.delivery.timeoutSeconds * 1000;
const lambdaContext = (remainingMs = TIMEOUT_MS) => contextWithTimeLeft(remainingMs);
const EMPTY_REPORT: JobReport = emptyReport();
/** What the steps that take no invocation limits are recorded with. */
const NO_OPTIONS: JobOptions = { attemptDeadline: Number.POSITIVE_INFINITY };

const target = deliveryTarget();
const BODIES = {
  deliver: packJobs({ target }, [item('e1', NOW)])[0] as string,
  validate: validationJobBody({ target, code: 'c-1', validationUrl: 'https://api.example.test/v' }),
  fanout: packFanOut(target.topic, [item('e1', NOW)], [{ target, matched: [0] }]),
  'stored-fanout': storedFanOutBody(target.topic, 'fanouts/2026-08-08/p-1.json', 100),
  ended: packEndedJobs(deadLetterTargetSchema.parse(deliveryTarget({ deadLetter: { container: 'dead' } })), [
    { item: item('e1', NOW), reason: 'TimeToLiveExceeded', endedAt: NOW },
  ])[0] as string,
  store: packStoreJobs({ target, dueAt: NOW, heldBy: 'wait' }, [item('e2', NOW)])[0] as string,
  'backlog-tick': backlogTickBody(target, 'token-1'),
  ordered: packOrderedJobs({ target, key: 'orders/1' }, [item('e3', NOW)])[0] as string,
  archive: archiveJobBody(target.topic),
  'replay-page': replayPageJobBody(target.topic),
};

/** One message of every kind format 1 had, as its builds wrote them (for `orders/audit`). */
const FORMAT_1_BODIES = {
  deliver: formatOneDeliveryBody({ topic: 'orders', subscription: 'audit', subscriptionVersion: 1 }, [
    item('e1', NOW),
  ]),
  validate: formatOneValidationBody({
    topic: 'orders',
    subscription: 'audit',
    code: 'c-1',
    validationUrl: 'https://api.example.test/v',
  }),
  fanout: formatOneFanOutBody('orders', [item('e1', NOW)], [{ subscription: 'audit', matched: [0] }]),
  'stored-fanout': formatOneStoredFanOutBody('orders', 'fanouts/2026-08-08/p-1.json', 100),
  ended: formatOneEndedBody(
    {
      topic: 'orders',
      subscription: 'audit',
      deliveryProfile: 'topic',
      deadLetter: { container: 'dead', format: 'EventGridSchema' },
    },
    [{ item: item('e1', NOW), reason: 'TimeToLiveExceeded', endedAt: NOW }],
  ),
};

/** The fixture's subscription (`orders/audit`), for the fake engine's upgrade. */
const fixtureSubscriptions = {
  get: async (topic: string, name: string) =>
    topic === 'orders' && name === 'audit' ? subscription() : undefined,
};

/**
 * An engine that records what it is given and answers with `answer(job)`; `store` jobs are stored
 * as a batch, with the ids of their messages, and `unfinished` says which of them fail. Jobs of an
 * earlier format are upgraded as the engine does, over the fixture's subscription, and recorded.
 */
function fakeEngine(
  answer: (job: QueuedJob) => Promise<JobReport> = async () => EMPTY_REPORT,
  unfinished: ReadonlyMap<string, string> = new Map(),
) {
  const calls: Array<{ job: QueuedJob; options: JobOptions }> = [];
  const upgraded: ReadJob[] = [];
  const stored: Array<readonly SourcedStoreJob[]> = [];
  let sweeps = 0;
  /** What happened, in order: `job` per job worked, `settled` when a job's late listen closed. */
  const steps: string[] = [];
  /** When set, each job opens a late listen that closes when this resolves. */
  const listens: { open: Promise<void> | undefined } = { open: undefined };
  const work = (job: QueuedJob, options: JobOptions) => {
    calls.push({ job, options });
    steps.push('job');
    const open = listens.open;
    if (open !== undefined) options.listens?.push(open.then(() => void steps.push('settled')));
    return answer(job);
  };
  return {
    steps,
    listens,
    calls,
    stored,
    upgraded,
    sweeps: () => sweeps,
    engine: {
      upgrade: async (job: LegacyJob) => {
        upgraded.push(job);
        return (await upgradeJob(job, { subscriptions: fixtureSubscriptions })).job;
      },
      deliver: (job: QueuedJob, options: JobOptions) => work(job, options),
      deliverTogether: (jobs: readonly QueuedJob[], options: JobOptions) =>
        Promise.all(
          jobs.map((job) =>
            work(job, options).then(
              (report) => ({ ok: true as const, report }),
              (error: unknown) => ({ ok: false as const, reason: (error as Error).message }),
            ),
          ),
        ),
      validate: (job: QueuedJob) => work(job, NO_OPTIONS),
      fanOut: (job: QueuedJob, options: JobOptions) => work(job, options),
      handOffAgain: (job: QueuedJob) => work(job, NO_OPTIONS),
      storeOne: (job: QueuedJob) => work(job, NO_OPTIONS),
      tick: (job: QueuedJob, options: JobOptions) => work(job, options),
      replayPage: (job: QueuedJob) => work(job, NO_OPTIONS),
      firstCopies: async (jobs: readonly QueuedJob[]) => jobs.map(() => true),
      deliverOrdered: (messages: readonly { job: QueuedJob }[], options: JobOptions) =>
        Promise.all(
          messages.map(async ({ job }) => ({ kind: 'finished' as const, report: await work(job, options) })),
        ),
      storeJobs: async (jobs: readonly SourcedStoreJob[]): Promise<StoreResult> => {
        stored.push(jobs);
        const ids = jobs.map(({ sourceId }) => sourceId);
        return { finished: new Set(ids.filter((id) => !unfinished.has(id))), unfinished };
      },
      sweepBacklogs: async () => {
        sweeps += 1;
        return { sent: 0, rearmed: 0, failed: 0 };
      },
    },
  };
}

describe('the delivery function', () => {
  it('takes every kind the delivery, retry, backlog and ordered queues carry to the engine', async () => {
    const carried = [
      ...new Set([
        ...kindsCarriedBy('delivery'),
        ...kindsCarriedBy('retry'),
        ...kindsCarriedBy('backlog'),
        ...kindsCarriedBy('ordered'),
      ]),
    ];
    expect([...DELIVERY_JOB_KINDS].sort()).toEqual([...carried].sort());
    const { engine, calls, stored } = fakeEngine();
    const handler = createDeliveryHandler({ worker: engine, observability: quietObservability() });

    const answer = await handler(sqsEvent(carried.map((kind) => BODIES[kind])), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [] });
    const one = carried.filter((kind) => kind !== 'store');
    expect(calls.map(({ job }) => kindOf(job)).sort()).toEqual([...one].sort());
    expect(stored.flat().map(({ job }) => kindOf(job))).toEqual(['store']);
  });

  it('stores the store jobs of a batch together, named by their messages, and gives back those not stored', async () => {
    const { engine, calls, stored } = fakeEngine(undefined, new Map([['m2', 'the backlog bucket refused']]));
    const handler = createDeliveryHandler({ worker: engine, observability: quietObservability() });

    const answer = await handler(
      sqsEvent([BODIES.deliver, BODIES.store, BODIES.store, BODIES.store]),
      lambdaContext(),
    );

    expect(stored).toHaveLength(1);
    expect(stored[0]?.map(({ sourceId }) => sourceId)).toEqual(['m1', 'm2', 'm3']);
    expect(calls).toHaveLength(1);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
  });

  it('takes every kind format 1 had to the engine, upgraded by the engine first', async () => {
    const { engine, calls, upgraded } = fakeEngine();
    const handler = createDeliveryHandler({ worker: engine, observability: quietObservability() });
    const kinds = Object.keys(FORMAT_1_BODIES) as (keyof typeof FORMAT_1_BODIES)[];

    const answer = await handler(sqsEvent(kinds.map((kind) => FORMAT_1_BODIES[kind])), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(upgraded.map((job) => [job.v, kindOf(job)])).toEqual(kinds.map((kind) => [1, kind]));
    expect(calls.map(({ job }) => [job.v, kindOf(job)]).sort()).toEqual(
      kinds.map((kind) => [JOB_FORMAT_VERSION, kind]).sort(),
    );
  });

  it('runs the backlog sweep when invoked with the scheduled sweep event', async () => {
    const { engine, calls, sweeps } = fakeEngine();
    const handler = createDeliveryHandler({ worker: engine, observability: quietObservability() });

    expect(await handler(BACKLOG_SWEEP_EVENT, lambdaContext())).toBeUndefined();

    expect(sweeps()).toBe(1);
    expect(calls).toEqual([]);
  });

  it('gives back only the record of a job the engine could not finish, and a record that is not a job', async () => {
    const { engine } = fakeEngine(async (job) => {
      if (kindOf(job) === 'validate') throw new Error('this worker has no endpoint handshake');
      return { ...EMPTY_REPORT, delivered: 1 };
    });
    const handler = createDeliveryHandler({ worker: engine, observability: quietObservability() });

    const answer = await handler(
      sqsEvent([BODIES.deliver, BODIES.validate, `{"v":${JOB_FORMAT_VERSION}}`, BODIES.fanout]),
      lambdaContext(),
    );

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
  });

  it('gives the engine the attempt deadline: the time left, less a late window and the finishing margin', async () => {
    const { engine, calls } = fakeEngine();
    const clock = new VirtualClock(NOW);
    const handler = createDeliveryHandler({ worker: engine, observability: quietObservability(), clock });

    await handler(sqsEvent([BODIES.deliver]), lambdaContext(200_000));

    const expected = NOW + 200_000 - LATE_ANSWER_WINDOW_MS - FINISHING_MARGIN_MS;
    expect(calls[0]?.options).toEqual({
      attemptDeadline: expected,
      listenUntil: NOW + 200_000 - FINISHING_MARGIN_MS,
      listens: [],
    });
    expect(attemptDeadline(NOW, { getRemainingTimeInMillis: () => 200_000 })).toBe(expected);
    expect(listenUntil(NOW, { getRemainingTimeInMillis: () => 200_000 })).toBe(
      NOW + 200_000 - FINISHING_MARGIN_MS,
    );
    // With the function's own timeout, requests start in its first 85 s, as when it was 120 s
    // and an attempt needed room for its 30 s timeout only.
    expect(attemptDeadline(NOW, { getRemainingTimeInMillis: () => TIMEOUT_MS })).toBe(NOW + 85_000);
  });

  it('answers the batch only once its own requests that timed out are no longer listened to', async () => {
    const fake = fakeEngine();
    let close = () => {};
    fake.listens.open = new Promise((resolve) => {
      close = resolve;
    });
    const handler = createDeliveryHandler({ worker: fake.engine, observability: quietObservability() });

    const answering = handler(sqsEvent([BODIES.deliver, BODIES.fanout]), lambdaContext()).then((answer) => {
      fake.steps.push('answered');
      return answer;
    });
    // Condition waits, not timers: until both jobs were worked and have opened their listens.
    while (fake.steps.length < 2) await new Promise((resolve) => setImmediate(resolve));
    // Another invocation of the same worker, whose jobs open no listen, is not held by them.
    fake.listens.open = undefined;
    expect(await handler(sqsEvent([BODIES.deliver]), lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(fake.steps).toEqual(['job', 'job', 'job']);
    close();

    expect(await answering).toEqual({ batchItemFailures: [] });
    expect(fake.steps).toEqual(['job', 'job', 'job', 'settled', 'settled', 'answered']);
  });
});

describe('the delivery function near its timeout', () => {
  it('answers SQS the answer margin before its timeout, should a late answer still be being recorded', async () => {
    const fake = fakeEngine();
    // A listen that never ends (a late answer's recording hanging on a slow table).
    fake.listens.open = new Promise(() => {});
    const handler = createDeliveryHandler({ worker: fake.engine, observability: quietObservability() });

    // 20 ms before the answer margin: were the listen waited for, this would never resolve.
    const answer = await handler(sqsEvent([BODIES.deliver]), lambdaContext(ANSWER_MARGIN_MS + 20));

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(fake.steps).toEqual(['job']);
  });
});

describe('the delivery function with the engine', () => {
  it('delivers a job and acknowledges its record', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });
    const handler = createDeliveryHandler({
      worker: h.engine,
      observability: quietObservability(),
      clock: h.clock,
    });

    const answer = await handler(sqsEvent([BODIES.deliver]), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(h.sender.requests).toHaveLength(1);
    expect(h.queue.sent).toEqual([]);
  });

  it('with too little time left for an attempt, re-queues the job untouched and acknowledges its record', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });
    const handler = createDeliveryHandler({
      worker: h.engine,
      observability: quietObservability(),
      clock: h.clock,
    });

    const answer = await handler(
      sqsEvent([BODIES.deliver]),
      lambdaContext(LATE_ANSWER_WINDOW_MS + FINISHING_MARGIN_MS),
    );

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(h.sender.requests).toEqual([]);
    expect(
      h.queue.take().map(({ queue, job, delaySeconds }) => [queue, job.items[0]?.attempts, delaySeconds]),
    ).toEqual([['retry', 0, 0]]);
  });

  it('delivers a job of format 1 queued before an upgrade, for the subscription as read now', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });
    const handler = createDeliveryHandler({
      worker: h.engine,
      observability: quietObservability(),
      clock: h.clock,
    });

    const answer = await handler(sqsEvent([FORMAT_1_BODIES.deliver]), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(h.sender.requests.map(({ request }) => request.body)).toEqual([`[${item('e1', NOW).eventJson}]`]);
  });

  it('drops the events of a format-1 job whose subscription is gone, and acknowledges its record', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });
    const handler = createDeliveryHandler({
      worker: h.engine,
      observability: quietObservability(),
      clock: h.clock,
    });

    const answer = await handler(
      sqsEvent([formatOneDeliveryBody({ topic: 'orders', subscription: 'gone' }, [item('e1', NOW)])]),
      lambdaContext(),
    );

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(h.sender.requests).toEqual([]);
    expect(h.metrics.drain().filter((point) => point.name === METRIC.DroppedEventCount)).toContainEqual(
      expect.objectContaining({ values: [1], dimensions: { DropReason: 'SubscriptionDeleted' } }),
    );
  });

  it('gives the record back when a failed attempt’s retry cannot be queued', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });
    h.sender.answerWith({ delivered: false, httpStatus: 503, outcome: 'Busy' });
    h.queue.failWith = new Error('SQS is down');
    const handler = createDeliveryHandler({
      worker: h.engine,
      observability: quietObservability(),
      clock: h.clock,
    });

    const answer = await handler(sqsEvent([BODIES.deliver]), lambdaContext());

    expect(h.sender.requests).toHaveLength(1);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
  });
});

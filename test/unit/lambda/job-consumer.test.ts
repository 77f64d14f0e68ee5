/**
 * The consumer shell: records are parsed as jobs, kinds the step does not take are refused, jobs
 * of an earlier format are upgraded before the step sees them, the step's outcome per job becomes
 * the batch response, and a failing step never fails the invocation (its jobs come back instead).
 */
import type { Context } from 'aws-lambda';
import type { CarriedCopy } from '../../../shared/archive/forward';
import { upgradeJob } from '../../../shared/delivery/job-upgrade';
import { deadLetterTargetSchema, type QueuedJob } from '../../../shared/domain/delivery';
import {
  type ConsumerStep,
  consumeRecords,
  createJobConsumer,
  eachJob,
  type JobUpgrade,
} from '../../../shared/lambda/job-consumer';
import { METRIC } from '../../../shared/observability/metrics';
import { type LegacyJob, packEndedJobs, packJobs, validationJobBody } from '../../../shared/queue/job-codec';
import type { JobKind } from '../../../shared/queue/job-kinds';
import { done, poison, type RecordOutcome, retryLater } from '../../../shared/queue/record-outcome';
import { ARCHIVE_ATTRIBUTE } from '../../../shared/queue/sqs-job-queue';
import { deliveryTarget, item, subscription } from '../../support/fakes';
import { formatOneDeliveryBody, formatOneEndedBody } from '../../support/job-format-1';
import { lambdaContext, quietObservability, sqsEvent } from '../../support/sqs-events';

const deliveryBody = (subscription: string, events = 1) =>
  packJobs(
    { target: deliveryTarget({ name: subscription }) },
    Array.from({ length: events }, (_, index) => item(`${subscription}-${index}`, 1)),
  )[0] as string;
const endedBody = packEndedJobs(
  deadLetterTargetSchema.parse(deliveryTarget({ deadLetter: { container: 'dead' } })),
  [{ item: item('e1', 1), reason: 'TimeToLiveExceeded', endedAt: 2 }],
)[0] as string;
const validateBody = validationJobBody({
  target: deliveryTarget(),
  code: 'c-1',
  validationUrl: 'https://api.example.test/v',
});

/** A step taking `kinds` that records the jobs it gets and answers `outcome(job)` for each. */
function recordingStep<K extends JobKind>(
  kinds: readonly K[],
  outcome: (job: QueuedJob) => RecordOutcome = () => done(),
) {
  const batches: QueuedJob[][] = [];
  const step: ConsumerStep<K> = {
    kinds,
    run: async (jobs) => {
      batches.push([...jobs]);
      return jobs.map(outcome);
    },
  };
  return { step, batches };
}

const subscriptionOf = (job: QueuedJob) => ('target' in job ? job.target.subscription : undefined);

/**
 * The upgrade of a function that reads the fixture's subscriptions (`orders/audit`, `orders/flaky`):
 * `upgradeJob` over them, recording the jobs it was given. The events of a subscription that is
 * gone are left out (the engine's own upgrade drops them).
 */
function upgrader(names: readonly string[] = ['audit', 'flaky']) {
  const given: LegacyJob[] = [];
  const upgrade = async (job: LegacyJob): Promise<QueuedJob | undefined> => {
    given.push(job);
    const source = {
      get: async (topic: string, name: string) =>
        topic === 'orders' && names.includes(name) ? subscription({ name, uid: `uid-${name}` }) : undefined,
    };
    return (await upgradeJob(job, { subscriptions: source })).job;
  };
  return { upgrade, given };
}
const { upgrade } = upgrader();

describe('the consumer shell', () => {
  it('hands the step the batch’s jobs in record order and answers with the records not done', async () => {
    const { step, batches } = recordingStep(['deliver'], (job) =>
      subscriptionOf(job) === 'flaky' ? retryLater('the table is throttling') : done(),
    );
    const handler = createJobConsumer({ observability: quietObservability(), step, upgrade });

    const answer = await handler(
      sqsEvent([deliveryBody('audit'), deliveryBody('flaky'), deliveryBody('billing')]),
      lambdaContext(),
    );

    expect(batches.map((jobs) => jobs.map(subscriptionOf))).toEqual([['audit', 'flaky', 'billing']]);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
  });

  it('refuses as poison a record that is not a job, and still works the others', async () => {
    const { step, batches } = recordingStep(['deliver']);
    const consumed = await consumeRecords(
      sqsEvent([
        'not json',
        `{"v":2,"target":${JSON.stringify(deliveryTarget())},"items":[]}`,
        '{"v":1,"topic":"t","subscription":"s","items":[]}',
        '{"v":0,"topic":"t","subscription":"s","items":[]}',
        deliveryBody('audit'),
      ]).Records,
      step,
      lambdaContext(),
      upgrade,
    );

    expect(consumed.map(({ outcome }) => outcome.kind)).toEqual([
      'poison',
      'poison',
      'poison',
      'poison',
      'done',
    ]);
    expect(consumed[0]?.outcome).toMatchObject({ reason: expect.stringMatching(/^job message is not JSON/) });
    expect(consumed[1]?.outcome).toMatchObject({
      reason: expect.stringMatching(/^job message is malformed at items/),
    });
    // A job of the first format is read by that format's schemas, and refused when it breaks them.
    expect(consumed[2]?.outcome).toMatchObject({
      reason: expect.stringMatching(/^job message of format version 1 is malformed at items/),
    });
    expect(consumed[3]?.outcome).toMatchObject({
      reason: expect.stringMatching(/^job message of format version 0; this release reads versions 1 and 2/),
    });
    expect(batches.flat().map(subscriptionOf)).toEqual(['audit']);
  });

  it('hands the step a job of an earlier format upgraded, in record order with the others', async () => {
    const { step, batches } = recordingStep(['deliver', 'ended']);
    const { upgrade: upgradeRecording, given } = upgrader();
    const legacy = formatOneDeliveryBody({ topic: 'orders', subscription: 'audit', subscriptionVersion: 1 }, [
      item('old-1', 1),
    ]);
    const legacyEnded = formatOneEndedBody(
      {
        topic: 'orders',
        subscription: 'flaky',
        deliveryProfile: 'topic',
        deadLetter: { container: 'dead', format: 'EventGridSchema' },
      },
      [{ item: item('old-2', 1), reason: 'TimeToLiveExceeded', endedAt: 2 }],
    );

    const consumed = await consumeRecords(
      sqsEvent([deliveryBody('billing'), legacy, legacyEnded]).Records,
      step,
      lambdaContext(),
      upgradeRecording,
    );

    expect(given.map((job) => [job.v, job.kind])).toEqual([
      [1, undefined],
      [1, 'ended'],
    ]);
    expect(consumed.map(({ outcome, upgradedFrom }) => [outcome.kind, upgradedFrom])).toEqual([
      ['done', undefined],
      ['done', 1],
      ['done', 1],
    ]);
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((job) => [job.v, job.kind, subscriptionOf(job)])).toEqual([
      [2, undefined, 'billing'],
      [2, undefined, 'audit'],
      [2, 'ended', 'flaky'],
    ]);
    expect(batches[0]?.[1]).toEqual({
      v: 2,
      target: { ...deliveryTarget({ uid: 'uid-audit' }) },
      items: [item('old-1', 1)],
    });
  });

  it('is done with a job of an earlier format once nothing of it is left, without the step', async () => {
    const { step, batches } = recordingStep(['deliver']);

    const consumed = await consumeRecords(
      sqsEvent([formatOneDeliveryBody({ topic: 'orders', subscription: 'gone' }, [item('old-1', 1)])])
        .Records,
      step,
      lambdaContext(),
      upgrade,
    );

    expect(consumed).toEqual([{ outcome: done({ upgradedFrom: 1, leftToWork: 0 }), upgradedFrom: 1 }]);
    expect(batches).toEqual([]);
  });

  it('gives back a job of an earlier format whose upgrade failed, and refuses one of another kind without upgrading it', async () => {
    const { step, batches } = recordingStep(['deliver']);
    const given: LegacyJob[] = [];
    const failing: JobUpgrade<'deliver'> = async (job) => {
      given.push(job);
      throw new Error('the table is throttling');
    };
    const legacyEnded = formatOneEndedBody(
      {
        topic: 'orders',
        subscription: 'audit',
        deliveryProfile: 'topic',
        deadLetter: { container: 'dead', format: 'EventGridSchema' },
      },
      [{ item: item('old-2', 1), reason: 'TimeToLiveExceeded', endedAt: 2 }],
    );

    const consumed = await consumeRecords(
      sqsEvent([
        formatOneDeliveryBody({ topic: 'orders', subscription: 'audit' }, [item('old-1', 1)]),
        legacyEnded,
      ]).Records,
      step,
      lambdaContext(),
      failing,
    );

    expect(consumed.map(({ outcome }) => outcome)).toEqual([
      retryLater('could not upgrade a job of format version 1: the table is throttling'),
      poison("a 'ended' job belongs on the endedDelivery or retry queue; this consumer takes deliver"),
    ]);
    expect(given).toHaveLength(1);
    expect(batches).toEqual([]);
  });

  it('refuses as poison a job of a kind the step does not take, saying where it belongs', async () => {
    const { step, batches } = recordingStep(['ended']);
    const handler = createJobConsumer({ observability: quietObservability(), step, upgrade });

    const answer = await handler(sqsEvent([endedBody, deliveryBody('audit'), validateBody]), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
    expect(batches.flat().map((job) => job.kind)).toEqual(['ended']);
    const consumed = await consumeRecords(
      sqsEvent([deliveryBody('audit')]).Records,
      step,
      lambdaContext(),
      upgrade,
    );
    expect(consumed[0]?.outcome).toEqual(
      poison("a 'deliver' job belongs on the delivery or retry queue; this consumer takes ended"),
    );
  });

  it('gives back every job of a step that rejects, without failing the invocation', async () => {
    const step: ConsumerStep<'deliver'> = {
      kinds: ['deliver'],
      run: async () => {
        throw new Error('S3 is down');
      },
    };
    const handler = createJobConsumer({ observability: quietObservability(), step, upgrade });

    const answer = await handler(sqsEvent([deliveryBody('audit'), 'not json']), lambdaContext());

    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }, { itemIdentifier: 'm1' }]);
    const consumed = await consumeRecords(
      sqsEvent([deliveryBody('audit')]).Records,
      step,
      lambdaContext(),
      upgrade,
    );
    expect(consumed[0]?.outcome).toEqual(retryLater('S3 is down'));
  });

  it('gives back a job the step gave no outcome for', async () => {
    const step: ConsumerStep<'deliver'> = { kinds: ['deliver'], run: async () => [done()] };
    const consumed = await consumeRecords(
      sqsEvent([deliveryBody('audit'), deliveryBody('billing')]).Records,
      step,
      lambdaContext(),
      upgrade,
    );
    expect(consumed.map(({ outcome }) => outcome.kind)).toEqual(['done', 'retryLater']);
  });

  it('does not call the step when no record is one of its jobs', async () => {
    const { step, batches } = recordingStep(['deliver']);
    const handler = createJobConsumer({ observability: quietObservability(), step, upgrade });
    expect(await handler(sqsEvent([]), lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await handler(sqsEvent([endedBody]), lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm0' }],
    });
    expect(batches).toEqual([]);
  });

  it('logs what was done (debug) and why a record comes back (error)', async () => {
    const observability = quietObservability();
    const debug = jest.spyOn(observability.logger, 'debug');
    const error = jest.spyOn(observability.logger, 'error');
    const { step } = recordingStep(['deliver'], (job) =>
      subscriptionOf(job) === 'flaky' ? retryLater('queue refused') : done({ delivered: 2 }),
    );
    const handler = createJobConsumer({ observability, step, upgrade });

    await handler(sqsEvent([deliveryBody('audit', 2), deliveryBody('flaky'), 'not json']), lambdaContext());

    expect(debug).toHaveBeenCalledWith('job processed', {
      topic: 'orders',
      subscription: 'audit',
      events: 2,
      delivered: 2,
    });
    expect(error).toHaveBeenCalledWith('job failed; it will be received again', {
      messageId: 'm1',
      receiveCount: '1',
      error: 'queue refused',
    });
    expect(error).toHaveBeenCalledWith(
      'not a job this function takes; it will be received again, then parked',
      expect.objectContaining({ messageId: 'm2', error: expect.stringMatching(/not JSON/) }),
    );
  });

  it('logs a job of an earlier format once more, at info, with the version it came in', async () => {
    const observability = quietObservability();
    const info = jest.spyOn(observability.logger, 'info');
    const { step } = recordingStep(['deliver']);
    const handler = createJobConsumer({ observability, step, upgrade });

    await handler(
      sqsEvent([
        deliveryBody('audit'),
        formatOneDeliveryBody({ topic: 'orders', subscription: 'audit' }, [item('old-1', 1)]),
      ]),
      lambdaContext(),
    );

    expect(info.mock.calls).toEqual([
      [
        'job of an earlier format upgraded',
        {
          messageId: 'm1',
          receiveCount: '1',
          topic: 'orders',
          subscription: 'audit',
          events: 1,
          upgradedFrom: 1,
        },
      ],
    ]);
  });

  it('publishes the metric points the step counted when the invocation ends', async () => {
    const observability = quietObservability();
    const step: ConsumerStep<'deliver'> = {
      kinds: ['deliver'],
      run: async (jobs) => {
        observability.buffer.count(METRIC.DeliverySuccessCount, jobs.length);
        return jobs.map(() => done());
      },
    };
    await createJobConsumer({ observability, step, upgrade })(
      sqsEvent([deliveryBody('a'), deliveryBody('b')]),
      lambdaContext(),
    );
    expect(observability.published).toEqual([
      expect.objectContaining({ name: METRIC.DeliverySuccessCount, values: [2] }),
    ]);
  });
});

describe('eachJob', () => {
  const context = lambdaContext();

  it('works the jobs at once, each with the invocation’s context', async () => {
    // Each job waits until every job has started: sequential handling would never finish.
    let started = 0;
    let release: () => void = () => {};
    const allStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    const contexts: Context[] = [];
    const step = eachJob(['deliver'], async (_job, given) => {
      contexts.push(given);
      started += 1;
      if (started === 3) release();
      await allStarted;
      return done();
    });
    const jobs = [deliveryBody('a'), deliveryBody('b'), deliveryBody('c')].map(
      (body) => JSON.parse(body) as Parameters<typeof step.run>[0][number],
    );

    expect(await step.run(jobs, context, ['m1', 'm2', 'm3'], [])).toEqual([done(), done(), done()]);
    expect(contexts).toEqual([context, context, context]);
  });

  it('retries later a job whose handling rejects or throws, and keeps the others’ outcomes', async () => {
    const step = eachJob(['deliver'], (job) => {
      if (job.target.subscription === 'sync') throw new Error('thrown at once');
      if (job.target.subscription === 'async') return Promise.reject(new Error('the retry queue refused'));
      return Promise.resolve(done({ delivered: 1 }));
    });
    const jobs = ['ok', 'async', 'sync'].map(
      (name) => JSON.parse(deliveryBody(name)) as Parameters<typeof step.run>[0][number],
    );

    expect(await step.run(jobs, context, ['m1', 'm2', 'm3'], [])).toEqual([
      done({ delivered: 1 }),
      retryLater('the retry queue refused'),
      retryLater('thrown at once'),
    ]);
  });

  describe('archive copies', () => {
    /** The event with the archive copy `copy` (base64) on the records named in `carrying`. */
    const withCopies = (bodies: readonly string[], carrying: Record<number, string>) => {
      const event = sqsEvent(bodies);
      for (const [index, copy] of Object.entries(carrying)) {
        const record = event.Records[Number(index)];
        if (record !== undefined) {
          record.messageAttributes = {
            [ARCHIVE_ATTRIBUTE]: {
              dataType: 'Binary',
              binaryValue: copy,
              stringListValues: [],
              binaryListValues: [],
            },
          };
        }
      }
      return event;
    };

    it('forwards the batch’s copies in one call, with their jobs’ topics, before the step runs', async () => {
      const order: string[] = [];
      const forwarded: CarriedCopy[][] = [];
      const { step, batches } = recordingStep(['deliver']);
      const recording: ConsumerStep<'deliver'> = {
        ...step,
        run: async (...args) => {
          order.push('step');
          return step.run(...args);
        },
      };
      const consumed = await consumeRecords(
        withCopies([deliveryBody('audit'), deliveryBody('billing'), deliveryBody('flaky')], {
          0: 'Y29weTA=',
          2: 'Y29weTI=',
        }).Records,
        recording,
        lambdaContext(),
        upgrade,
        {
          forward: async (copies) => {
            order.push('forward');
            forwarded.push([...copies]);
          },
        },
      );
      expect(order).toEqual(['forward', 'step']);
      expect(forwarded).toEqual([
        [
          { topic: { name: 'orders' }, copy: 'Y29weTA=' },
          { topic: { name: 'orders' }, copy: 'Y29weTI=' },
        ],
      ]);
      expect(consumed.map(({ outcome }) => outcome.kind)).toEqual(['done', 'done', 'done']);
      expect(batches.flat().map(subscriptionOf)).toEqual(['audit', 'billing', 'flaky']);
    });

    it('gives back unworked the records whose copies could not be forwarded, and works the others', async () => {
      const { step, batches } = recordingStep(['deliver']);
      const consumed = await consumeRecords(
        withCopies([deliveryBody('audit'), deliveryBody('billing')], { 1: 'Y29weQ==' }).Records,
        step,
        lambdaContext(),
        upgrade,
        {
          forward: async () => {
            throw new Error('the archive queue is throttling');
          },
        },
      );
      expect(consumed.map(({ outcome }) => outcome)).toEqual([
        done(),
        retryLater('could not forward the archive copies: the archive queue is throttling'),
      ]);
      expect(batches.flat().map(subscriptionOf)).toEqual(['audit']);
    });

    it('forwards nothing when no record carries a copy, and leaves a copy on a record that is not a job', async () => {
      const calls: number[] = [];
      const { step } = recordingStep(['deliver']);
      await consumeRecords(
        withCopies([deliveryBody('audit'), 'not json'], { 1: 'Y29weQ==' }).Records,
        step,
        lambdaContext(),
        upgrade,
        {
          forward: async (copies) => {
            calls.push(copies.length);
          },
        },
      );
      expect(calls).toEqual([]);
    });
  });
});

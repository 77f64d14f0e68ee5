/**
 * The consumer shell: records are parsed as jobs, kinds the step does not take are refused, the
 * step's outcome per job becomes the batch response, and a failing step never fails the
 * invocation (its jobs come back instead).
 */
import type { Context } from 'aws-lambda';
import { deadLetterTargetSchema, type QueuedJob } from '../../../shared/domain/delivery';
import {
  type ConsumerStep,
  consumeRecords,
  createJobConsumer,
  eachJob,
} from '../../../shared/lambda/job-consumer';
import { METRIC } from '../../../shared/observability/metrics';
import { packEndedJobs, packJobs, validationJobBody } from '../../../shared/queue/job-codec';
import type { JobKind } from '../../../shared/queue/job-kinds';
import { done, poison, type RecordOutcome, retryLater } from '../../../shared/queue/record-outcome';
import { deliveryTarget, item } from '../../support/fakes';
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

describe('the consumer shell', () => {
  it('hands the step the batch’s jobs in record order and answers with the records not done', async () => {
    const { step, batches } = recordingStep(['deliver'], (job) =>
      subscriptionOf(job) === 'flaky' ? retryLater('the table is throttling') : done(),
    );
    const handler = createJobConsumer({ observability: quietObservability(), step });

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
        deliveryBody('audit'),
      ]).Records,
      step,
      lambdaContext(),
    );

    expect(consumed.map(({ outcome }) => outcome.kind)).toEqual(['poison', 'poison', 'poison', 'done']);
    expect(consumed[0]?.outcome).toMatchObject({ reason: expect.stringMatching(/^job message is not JSON/) });
    expect(consumed[1]?.outcome).toMatchObject({
      reason: expect.stringMatching(/^job message is malformed at items/),
    });
    expect(consumed[2]?.outcome).toMatchObject({
      reason: expect.stringMatching(/^job message of format version 1;/),
    });
    expect(batches.flat().map(subscriptionOf)).toEqual(['audit']);
  });

  it('refuses as poison a job of a kind the step does not take, saying where it belongs', async () => {
    const { step, batches } = recordingStep(['ended']);
    const handler = createJobConsumer({ observability: quietObservability(), step });

    const answer = await handler(sqsEvent([endedBody, deliveryBody('audit'), validateBody]), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
    expect(batches.flat().map((job) => job.kind)).toEqual(['ended']);
    const consumed = await consumeRecords(sqsEvent([deliveryBody('audit')]).Records, step, lambdaContext());
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
    const handler = createJobConsumer({ observability: quietObservability(), step });

    const answer = await handler(sqsEvent([deliveryBody('audit'), 'not json']), lambdaContext());

    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }, { itemIdentifier: 'm1' }]);
    const consumed = await consumeRecords(sqsEvent([deliveryBody('audit')]).Records, step, lambdaContext());
    expect(consumed[0]?.outcome).toEqual(retryLater('S3 is down'));
  });

  it('gives back a job the step gave no outcome for', async () => {
    const step: ConsumerStep<'deliver'> = { kinds: ['deliver'], run: async () => [done()] };
    const consumed = await consumeRecords(
      sqsEvent([deliveryBody('audit'), deliveryBody('billing')]).Records,
      step,
      lambdaContext(),
    );
    expect(consumed.map(({ outcome }) => outcome.kind)).toEqual(['done', 'retryLater']);
  });

  it('does not call the step when no record is one of its jobs', async () => {
    const { step, batches } = recordingStep(['deliver']);
    const handler = createJobConsumer({ observability: quietObservability(), step });
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
    const handler = createJobConsumer({ observability, step });

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

  it('publishes the metric points the step counted when the invocation ends', async () => {
    const observability = quietObservability();
    const step: ConsumerStep<'deliver'> = {
      kinds: ['deliver'],
      run: async (jobs) => {
        observability.buffer.count(METRIC.DeliverySuccessCount, jobs.length);
        return jobs.map(() => done());
      },
    };
    await createJobConsumer({ observability, step })(
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

    expect(await step.run(jobs, context, ['m1', 'm2', 'm3'])).toEqual([done(), done(), done()]);
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

    expect(await step.run(jobs, context, ['m1', 'm2', 'm3'])).toEqual([
      done({ delivered: 1 }),
      retryLater('the retry queue refused'),
      retryLater('thrown at once'),
    ]);
  });
});

/**
 * The dead-letter function's handler around a dead-letter step wired to test doubles: ended
 * deliveries are written and their records acknowledged; records of other kinds, and jobs that
 * could be neither written nor re-queued, come back; groups not started before the deadline are
 * re-queued.
 */
import {
  createDeadLetterHandler,
  DEAD_LETTER_JOB_KINDS,
  WRITE_MARGIN_MS,
} from '../../../functions/dead-letter';
import { ARCHIVE_SWEEP_EVENT } from '../../../shared/archive/sweep';
import { ArchiveWriter } from '../../../shared/archive/writer';
import { kindsCarriedBy } from '../../../shared/delivery/job-registry';
import { deadLetterTargetSchema, type EndedJob } from '../../../shared/domain/delivery';
import { silentLogger } from '../../../shared/observability/logging';
import { MetricBuffer } from '../../../shared/observability/metrics';
import { packEndedJobs, packJobs } from '../../../shared/queue/job-codec';
import { archiveJobBody, deadLetterStepHarness, deliveryTarget, item } from '../../support/fakes';
import { formatOneDeliveryBody, formatOneEndedBody } from '../../support/job-format-1';
import { MemoryArchive } from '../../support/memory-stores';
import { lambdaContext, quietObservability, sqsEvent } from '../../support/sqs-events';

const NOW = Date.parse('2026-08-08T05:10:00Z');

class FakeBucket {
  readonly blobs = new Map<string, string>();
  down = false;
  async put(key: string, body: string): Promise<void> {
    if (this.down) throw new Error('ServiceUnavailable');
    this.blobs.set(key, body);
  }
}

/** The target of `subscription` on `topic`, dead-lettered in `format` (by default its own). */
function endedTarget(
  subscription: string,
  options: { topic?: string; format?: 'EventGridSchema' | 'namespace' },
) {
  const target = deadLetterTargetSchema.parse(
    deliveryTarget({
      topic: options.topic ?? 'orders',
      name: subscription,
      deadLetter: { container: 'dead' },
    }),
  );
  return options.format === undefined
    ? target
    : { ...target, deadLetter: { ...target.deadLetter, format: options.format } };
}

const endedBody = (
  subscription: string,
  options: { topic?: string; format?: 'EventGridSchema' | 'namespace' } = {},
) =>
  packEndedJobs(endedTarget(subscription, options), [
    {
      item: item(`${subscription}-1`, NOW - 60_000),
      reason: 'MaxDeliveryAttemptsExceeded',
      endedAt: NOW - 1000,
    },
  ])[0] as string;

function setup() {
  const bucket = new FakeBucket();
  const harness = deadLetterStepHarness(bucket, NOW);
  const archive = new MemoryArchive();
  const handler = createDeadLetterHandler({
    step: harness.step,
    archive: new ArchiveWriter({ store: archive, metrics: new MetricBuffer(), logger: silentLogger }),
    observability: quietObservability('dead-letter'),
    clock: harness.clock,
  });
  return { bucket, archive, handler, ...harness };
}

describe('the dead-letter function', () => {
  it('takes exactly the kinds the ended-delivery and archive queues carry', () => {
    expect([...DEAD_LETTER_JOB_KINDS]).toEqual([
      ...kindsCarriedBy('endedDelivery'),
      ...kindsCarriedBy('archive'),
    ]);
  });

  it('writes the archive copies of a batch as segments, beside its dead letters', async () => {
    const { handler, archive } = setup();
    const answer = await handler(
      sqsEvent([
        archiveJobBody({ name: 'orders' }, ['a', 'b'], NOW),
        archiveJobBody({ name: 'orders' }, ['c'], NOW + 1),
      ]),
      lambdaContext(),
    );
    expect(answer).toEqual({ batchItemFailures: [] });
    const segments = [...archive.segments.values()];
    expect(segments).toHaveLength(1);
    expect(segments[0]?.records.map(({ eventId }) => eventId)).toEqual(['a', 'b', 'c']);
  });

  it('runs the archive sweep when a schedule invokes it for one, and answers nothing', async () => {
    const bucket = new FakeBucket();
    const harness = deadLetterStepHarness(bucket, NOW);
    const sweeps: number[] = [];
    const handler = createDeadLetterHandler({
      step: harness.step,
      archive: new ArchiveWriter({
        store: new MemoryArchive(),
        metrics: new MetricBuffer(),
        logger: silentLogger,
      }),
      sweepArchives: async () => {
        sweeps.push(1);
        return { archives: 0, expired: 0, orphaned: 0 };
      },
      observability: quietObservability('dead-letter'),
      clock: harness.clock,
    });
    expect(await handler(ARCHIVE_SWEEP_EVENT, lambdaContext())).toBeUndefined();
    expect(sweeps).toEqual([1]);
  });

  it('writes the batch grouped per subscription and acknowledges every record', async () => {
    const { bucket, handler } = setup();

    const answer = await handler(
      sqsEvent([endedBody('audit'), endedBody('audit'), endedBody('billing')]),
      lambdaContext(),
    );

    expect(answer).toEqual({ batchItemFailures: [] });
    expect([...bucket.blobs.keys()].map((key) => key.split('/')[1]).sort()).toEqual(['AUDIT', 'BILLING']);
  });

  it('gives back a delivery job sent to its queue, and writes the rest', async () => {
    const { bucket, handler } = setup();
    const deliveryJob = packJobs({ target: deliveryTarget() }, [item('e1', NOW)])[0] as string;

    const answer = await handler(sqsEvent([deliveryJob, endedBody('audit')]), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
    expect(bucket.blobs.size).toBe(1);
  });

  it('writes ended deliveries queued in format 1 as their format-2 job is written, one blob with both', async () => {
    const { bucket, handler } = setup();
    const target = endedTarget('audit', {});
    const legacy = formatOneEndedBody(
      {
        topic: 'orders',
        subscription: 'audit',
        subscriptionVersion: target.version,
        deliveryProfile: target.profile,
        deadLetter: target.deadLetter,
      },
      [{ item: item('audit-0', NOW - 60_000), reason: 'MaxDeliveryAttemptsExceeded', endedAt: NOW - 1000 }],
    );

    const answer = await handler(sqsEvent([legacy, endedBody('audit')]), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(bucket.blobs.size).toBe(1);
    const [blob] = [...bucket.blobs.values()];
    expect(JSON.parse(blob ?? '[]').map((record: { id: string }) => record.id)).toEqual([
      'audit-0',
      'audit-1',
    ]);
  });

  it('gives back a delivery job of format 1 sent to its queue, without upgrading it', async () => {
    const { bucket, handler } = setup();
    const legacyDelivery = formatOneDeliveryBody({ topic: 'orders', subscription: 'audit' }, [
      item('e1', NOW),
    ]);

    const answer = await handler(sqsEvent([legacyDelivery]), lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
    expect(bucket.blobs.size).toBe(0);
  });

  it('gives back a job with no dead-letter place (a namespace format on a classic topic)', async () => {
    const { bucket, handler } = setup();

    const answer = await handler(
      sqsEvent([endedBody('audit', { format: 'namespace' }), endedBody('billing')]),
      lambdaContext(),
    );

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
    expect(bucket.blobs.size).toBe(1);
  });

  it('acknowledges what waits on the queue while the bucket is down, and gives back what could not wait', async () => {
    const { bucket, queue, handler } = setup();
    bucket.down = true;

    expect(await handler(sqsEvent([endedBody('audit')]), lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(
      queue
        .takeEnded()
        .map(({ queue: to, job }) => [to, job.target.subscription, job.ended[0]?.failedWrites]),
    ).toEqual([['endedDelivery', 'audit', 1]]);

    queue.failWith = new Error('SQS is down');
    expect(await handler(sqsEvent([endedBody('audit')]), lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm0' }],
    });
  });

  it('re-queues, without writing, what it has no time left for, and acknowledges it', async () => {
    const { bucket, queue, handler } = setup();

    const answer = await handler(sqsEvent([endedBody('audit')]), lambdaContext(WRITE_MARGIN_MS));

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(bucket.blobs.size).toBe(0);
    const waiting = queue.takeEnded();
    expect(
      waiting.map(({ job, delaySeconds }) => [(job as EndedJob).target.subscription, delaySeconds]),
    ).toEqual([['audit', 1]]);
  });
});

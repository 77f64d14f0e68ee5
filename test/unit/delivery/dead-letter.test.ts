import { recordTime } from '../../../shared/delivery/rules/dead-letter-layout';
import {
  DEAD_LETTER_NOTICES,
  type DeadLetterNotice,
} from '../../../shared/delivery/rules/dead-letter-notice';
import {
  type DeadLetterTarget,
  deadLetterTargetSchema,
  type EndedDelivery,
  type EndedJob,
  JOB_FORMAT_VERSION,
} from '../../../shared/domain/delivery';
import type { Subscription } from '../../../shared/domain/model';
import { topicIdOf } from '../../../shared/domain/names';
import { METRIC } from '../../../shared/observability/metrics';
import { DeadLetterDestinationNotFound } from '../../../shared/storage/dead-letter-bucket';
import type { DeadLetterBucketRef } from '../../../shared/storage/dead-letter-buckets';
import { deadLetterStepHarness, deliveryTarget, item } from '../../support/fakes';

const M = 60_000;
const H = 60 * M;

class FakeBucket {
  readonly blobs = new Map<string, string>();
  /** The topic stamped on each blob. */
  readonly topics = new Map<string, string | undefined>();
  down = false;
  /** The bucket does not exist (S3's NoSuchBucket). */
  missing = false;
  constructor(readonly name = 'stack-dead-letters') {}
  async put(key: string, body: string, topic?: string): Promise<void> {
    if (this.missing) throw new DeadLetterDestinationNotFound(this.name, new Error('NoSuchBucket'));
    if (this.down) throw new Error('ServiceUnavailable');
    this.blobs.set(key, body);
    this.topics.set(key, topic);
  }
}

/** The notices published, by the topic they went to; `down` makes publishing fail. */
class FakeNotifier {
  readonly published: Array<{ topic: string; events: readonly DeadLetterNotice[] }> = [];
  down = false;
  async publishOwn(topic: string, events: readonly DeadLetterNotice[]): Promise<void> {
    if (this.down) throw new Error('QueueUnavailable');
    this.published.push({ topic, events });
  }
}

function setup() {
  const bucket = new FakeBucket();
  const notifier = new FakeNotifier();
  /** The buckets subscriptions name, by name, and how each was asked for. */
  const named = new Map<string, FakeBucket>();
  const asked: DeadLetterBucketRef[] = [];
  const namedBucket = (ref: DeadLetterBucketRef & { bucket: string }) => {
    asked.push(ref);
    let found = named.get(ref.bucket);
    if (found === undefined) {
      found = new FakeBucket(ref.bucket);
      named.set(ref.bucket, found);
    }
    return found;
  };
  return {
    bucket,
    notifier,
    named,
    asked,
    ...deadLetterStepHarness(bucket, Date.parse('2026-08-08T05:10:00Z'), notifier, namedBucket),
  };
}

const ended = (
  id: string,
  endedAt: number,
  reason: EndedDelivery['reason'] = 'NonRetriableOutcome',
): EndedDelivery => ({
  item: item(id, endedAt - 1000, {
    attempts: 1,
    lastOutcome: 'BadRequest',
    lastHttpStatus: 400,
    lastAttemptAt: endedAt - 10,
  }),
  reason,
  endedAt,
});

/** The target of `subscription(overrides)`, which must have a dead-letter destination. */
const deadLetterTarget = (overrides: Partial<Subscription>): DeadLetterTarget =>
  deadLetterTargetSchema.parse(deliveryTarget(overrides));

const endedJobFor = (target: DeadLetterTarget, entries: EndedDelivery[]): EndedJob => ({
  v: JOB_FORMAT_VERSION,
  kind: 'ended',
  target,
  ended: entries,
});

/** Ended deliveries of a classic topic's Event Grid subscription. */
const endedJob = (
  subscription: string,
  entries: EndedDelivery[],
  container = 'dead',
  topic = 'orders',
): EndedJob =>
  endedJobFor(deadLetterTarget({ topic, name: subscription, deadLetter: { container } }), entries);

/** Ended deliveries of a CloudEvents subscription `cloud` of topic `orders`. */
const cloudEventsJob = (entries: EndedDelivery[]): EndedJob =>
  endedJobFor(
    deadLetterTarget({
      name: 'cloud',
      eventDeliverySchema: 'CloudEventSchemaV1_0',
      deadLetter: { container: 'dead' },
    }),
    entries,
  );

describe('the dead-letter step', () => {
  it('writes two topics’ subscriptions of the same name to separate blobs, each stamped with its topic', async () => {
    const { clock, bucket, step } = setup();
    const t = clock.now() - 5 * M;
    const report = await step.write([
      endedJob('audit', [ended('o1', t)], 'dead', 'orders'),
      endedJob('audit', [ended('b1', t)], 'dead', 'billing'),
    ]);
    expect(report).toMatchObject({ written: 2, blobs: 2 });
    const byTopic = [...bucket.blobs.entries()].map(([key, body]) => [
      key.split('/').slice(0, 2).join('/'),
      bucket.topics.get(key),
      JSON.parse(body).map((record: { id: string }) => record.id),
    ]);
    expect(byTopic.sort()).toEqual([
      ['dead/AUDIT', 'billing', ['b1']],
      ['dead/AUDIT', 'orders', ['o1']],
    ]);
  });

  it('writes one blob per subscription for a whole batch, at the documented key', async () => {
    const { clock, bucket, step, metrics } = setup();
    const t = clock.now() - 5 * M;
    const jobs = [
      endedJob('audit', [ended('a1', t), ended('a2', t)]),
      endedJob('audit', [ended('a3', t, 'MaxDeliveryAttemptsExceeded')]),
      endedJob('billing', [ended('b1', t)]),
    ];

    const report = await step.write(jobs);

    expect(report).toMatchObject({ written: 4, blobs: 2, waiting: 0, dropped: 0 });
    expect([...bucket.blobs.keys()].sort()).toEqual([
      'dead/AUDIT/2026/8/8/5/blob-1.json',
      'dead/BILLING/2026/8/8/5/blob-2.json',
    ]);
    const audit = JSON.parse(bucket.blobs.get('dead/AUDIT/2026/8/8/5/blob-1.json') ?? '[]');
    expect(audit.map((record: { id: string }) => record.id)).toEqual(['a1', 'a2', 'a3']);
    expect(audit[2]).toMatchObject({
      deadLetterReason: 'MaxDeliveryAttemptsExceeded',
      deliveryAttempts: 1,
      lastDeliveryOutcome: 'BadRequest',
      publishTime: recordTime(t - 1000),
      lastDeliveryAttemptTime: recordTime(t - 10),
    });
    const counted = metrics.drain().filter((point) => point.name === METRIC.DeadLetteredCount);
    expect(
      counted.map((point) => [
        point.dimensions.EventSubscriptionName,
        point.dimensions.DeadLetterReason,
        point.values[0],
      ]),
    ).toEqual(
      // Per subscription and per reason, never both (docs/ARCHITECTURE.md, "Metrics").
      expect.arrayContaining([
        ['AUDIT', undefined, 3],
        ['BILLING', undefined, 1],
        [undefined, 'NonRetriableOutcome', 3],
        [undefined, 'MaxDeliveryAttemptsExceeded', 1],
        [undefined, undefined, 4],
      ]),
    );
    expect(counted).toHaveLength(5);
  });

  it('keeps deliveries waiting on the queue while the bucket is down for less than 4 hours, then writes them', async () => {
    const { clock, bucket, queue, step } = setup();
    const endedAt = clock.now();
    bucket.down = true;

    const first = await step.write([endedJob('audit', [ended('a1', endedAt), ended('a2', endedAt)])]);

    expect(first).toMatchObject({ written: 0, waiting: 2, dropped: 0 });
    expect(first.outcomes).toEqual([{ kind: 'done' }]);
    // Tried again every 5 minutes for almost 4 hours: nothing is lost.
    let waiting = queue.takeEnded();
    for (let elapsed = 5 * M; elapsed < 4 * H; elapsed += 5 * M) {
      expect(waiting).toHaveLength(1);
      expect(waiting[0]?.delaySeconds).toBe(300);
      clock.advance(5 * M);
      await step.write(waiting.map((entry) => entry.job));
      waiting = queue.takeEnded();
    }
    bucket.down = false;
    clock.advance(5 * M - 1);
    const last = await step.write(waiting.map((entry) => entry.job));

    expect(last).toMatchObject({ written: 2, dropped: 0 });
    expect(bucket.blobs.size).toBe(1);
  });

  it('drops and counts deliveries the bucket could not take for 4 hours', async () => {
    const { clock, bucket, queue, step, metrics } = setup();
    const endedAt = clock.now();
    bucket.down = true;
    await step.write([endedJob('audit', [ended('a1', endedAt)])]);
    clock.advance(4 * H);

    const report = await step.write(queue.takeEnded().map((entry) => entry.job));

    expect(report).toMatchObject({ written: 0, waiting: 0, dropped: 1 });
    expect(queue.sent).toHaveLength(0);
    const dropped = metrics
      .drain()
      .find((point) => point.name === METRIC.DroppedEventCount && point.dimensions.DropReason !== undefined);
    expect(dropped?.dimensions).toMatchObject({ DropReason: 'DeadLetterStoreUnavailable' });
    expect(dropped?.values).toEqual([1]);
  });

  it('counts the four hours from the first failed write, not from when delivery ended', async () => {
    // Seed 003, "Dead-letter events": "If the dead-letter location is unavailable for four hours,
    // the event is dropped." A delivery that ended 3 hours before its first write (a backed-up
    // queue) still gets four hours of tries once the bucket first refuses it.
    const { clock, bucket, queue, step, metrics } = setup();
    const endedAt = clock.now() - 3 * H;
    bucket.down = true;
    await step.write([endedJob('audit', [ended('a1', endedAt)])]);
    const first = queue.takeEnded();
    expect(first[0]?.job.ended[0]).toMatchObject({ failedWrites: 1, firstFailedWriteAt: clock.now() });
    clock.advance(4 * H - 1);
    const stillWaiting = await step.write(first.map((entry) => entry.job));
    expect(stillWaiting).toMatchObject({ waiting: 1, dropped: 0 });
    clock.advance(1);
    const dropped = await step.write(queue.takeEnded().map((entry) => entry.job));
    expect(dropped).toMatchObject({ waiting: 0, dropped: 1 });
    const drop = metrics
      .drain()
      .find((point) => point.name === METRIC.DroppedEventCount && point.dimensions.DropReason !== undefined);
    expect(drop?.dimensions).toMatchObject({ DropReason: 'DeadLetterStoreUnavailable' });
  });

  it('keeps trying a bucket that does not exist for four hours, then drops with DeadLetterDestinationNotFound', async () => {
    // Seed 003: "Dead lettered events will be dropped when the dead-letter destination isn't
    // found" and "If the dead-letter location is unavailable for four hours, the event is
    // dropped": a bucket made after the subscription still gets the dead letters within that time.
    const { clock, bucket, queue, step, metrics } = setup();
    bucket.missing = true;
    const t = clock.now();
    const firstTry = await step.write([endedJob('audit', [ended('a1', t)])]);
    expect(firstTry).toMatchObject({ written: 0, waiting: 1, dropped: 0 });
    clock.advance(2 * H);
    const stillMissing = await step.write(queue.takeEnded().map((entry) => entry.job));
    expect(stillMissing).toMatchObject({ waiting: 1, dropped: 0 });
    clock.advance(2 * H);
    const gone = await step.write(queue.takeEnded().map((entry) => entry.job));
    expect(gone).toMatchObject({ waiting: 0, dropped: 1 });
    const drop = metrics
      .drain()
      .find((point) => point.name === METRIC.DroppedEventCount && point.dimensions.DropReason !== undefined);
    expect(drop?.dimensions).toMatchObject({ DropReason: 'DeadLetterDestinationNotFound' });
  });

  it('writes to the bucket the subscription names, with its role, apart from the stack bucket, naming it in the notice', async () => {
    const { clock, bucket, named, asked, notifier, step } = setup();
    const t = clock.now() - 5 * M;
    const role = 'arn:aws:iam::222222222222:role/dead-letter-writer';
    const own = endedJob('audit', [ended('o1', t)]);
    const theirs = endedJobFor(
      deadLetterTarget({
        name: 'audit',
        deadLetter: { container: 'dead', bucket: 'team-dead-letters', roleArn: role, externalId: 'gw-42' },
      }),
      [ended('n1', t)],
    );
    const report = await step.write([own, theirs]);
    expect(report).toMatchObject({ written: 2, blobs: 2 });
    expect([...bucket.blobs.values()].map((body) => JSON.parse(body)[0].id)).toEqual(['o1']);
    const team = named.get('team-dead-letters');
    expect([...(team?.blobs.values() ?? [])].map((body) => JSON.parse(body)[0].id)).toEqual(['n1']);
    expect(asked).toEqual([
      {
        container: 'dead',
        format: 'EventGridSchema',
        bucket: 'team-dead-letters',
        roleArn: role,
        externalId: 'gw-42',
      },
    ]);
    const notices = notifier.published.flatMap((published) => published.events);
    expect(notices.map((notice) => notice.data.bucket)).toEqual([undefined, 'team-dead-letters']);
  });

  it('gives the messages back only when it can neither write nor re-queue them', async () => {
    const { clock, bucket, queue, step } = setup();
    bucket.down = true;
    queue.failWith = new Error('SQS down');

    const report = await step.write([
      endedJob('audit', [ended('a1', clock.now())]),
      endedJob('other', [ended('o1', clock.now())], 'other-container'),
    ]);

    expect(report.outcomes.map((outcome) => outcome.kind)).toEqual(['retryLater', 'retryLater']);
    expect(report.outcomes[0]).toMatchObject({ reason: expect.stringMatching(/SQS down/) });
  });
  it('re-queues, without writing or dropping, the groups it has no time left for', async () => {
    const { clock, bucket, queue, step } = setup();
    const t = clock.now();

    const report = await step.write(
      [endedJob('audit', [ended('a1', t)]), endedJob('billing', [ended('b1', t)])],
      { deadline: clock.now() },
    );

    expect(report).toMatchObject({ written: 0, waiting: 2, dropped: 0 });
    expect(report.outcomes).toEqual([{ kind: 'done' }, { kind: 'done' }]);
    expect(bucket.blobs.size).toBe(0);
    expect(queue.takeEnded().map((entry) => [entry.job.target.subscription, entry.delaySeconds])).toEqual([
      ['audit', 1],
      ['billing', 1],
    ]);
  });

  it('writes the converted CloudEvent, with lower-case dead-letter fields, for a CloudEvents subscription of an Event Grid topic', async () => {
    const { clock, bucket, step } = setup();
    const t = clock.now() - 5 * M;
    const entry = ended('c1', t);
    entry.item.eventJson =
      '{"id":"c1","subject":"orders/1","eventType":"Order.Created","eventTime":"2026-08-08T05:00:00Z","data":{"big":9007199254740993},"topic":"/gridwire/topics/orders","metadataVersion":"1","dataVersion":"1.0"}';
    const job = cloudEventsJob([entry]);
    expect(job.target.deadLetter.format).toBe('CloudEventSchemaV1_0');

    await step.write([job]);

    const [blob] = [...bucket.blobs.values()];
    expect(blob).toBe(
      `[{"specversion":"1.0","id":"c1","source":"/gridwire/topics/orders","type":"Order.Created","subject":"orders/1","time":"2026-08-08T05:00:00Z","dataversion":"1.0","datacontenttype":"application/json","data":{"big":9007199254740993},"deadletterreason":"NonRetriableOutcome","deliveryattempts":1,"lastdeliveryoutcome":"BadRequest","publishtime":"${recordTime(t - 1000)}","lastdeliveryattempttime":"${recordTime(t - 10)}"}]`,
    );
  });

  it('writes a CloudEvent of a CloudEvents topic as it was published', async () => {
    const { clock, bucket, step } = setup();
    const t = clock.now() - 5 * M;
    const entry = ended('ce-1', t);
    entry.item.eventJson = '{"specversion":"1.0","id":"ce-1","source":"/o","type":"t","data":{"n":1.50}}';
    const job = cloudEventsJob([entry]);
    expect(job.target.deadLetter.format).toBe('CloudEventSchemaV1_0');

    await step.write([job]);

    const [blob] = [...bucket.blobs.values()];
    expect(
      blob?.startsWith(
        '[{"specversion":"1.0","id":"ce-1","source":"/o","type":"t","data":{"n":1.50},"deadletterreason"',
      ),
    ).toBe(true);
  });
});

describe('the dead-letter step, namespace subscriptions', () => {
  const namespaceSubscription: Partial<Subscription> = {
    topic: 'shop/orders',
    name: 'audit',
    deliveryProfile: 'namespace',
    eventDeliverySchema: 'CloudEventSchemaV1_0',
    deadLetter: { container: 'dead' },
  };
  const namespaceJob = (entries: EndedDelivery[]): EndedJob =>
    endedJobFor(deadLetterTarget(namespaceSubscription), entries);
  const CLOUD_EVENT =
    '{"specversion":"1.0","id":"n1","source":"/shop","type":"order.created","data":{"n":1.50}}';

  it('writes to the namespace key, each record an envelope with the custom delivery properties', async () => {
    const { clock, bucket, step } = setup();
    const t = clock.now() - 5 * M;
    const entry: EndedDelivery = {
      ...ended('n1', t, 'MaxDeliveryAttemptsExceeded'),
      item: { ...ended('n1', t).item, eventJson: CLOUD_EVENT },
      customDeliveryProperties: { 'x-tenant': 'acme' },
    };

    const report = await step.write([namespaceJob([entry, ended('n2', t)])]);

    expect(report).toMatchObject({ written: 2, blobs: 1, waiting: 0, dropped: 0 });
    expect([...bucket.blobs.keys()]).toEqual(['dead/shop/orders/audit/2026/8/8/5/blob-1.json']);
    const text = bucket.blobs.get('dead/shop/orders/audit/2026/8/8/5/blob-1.json') ?? '[]';
    expect(text).toContain('"n":1.50');
    const records = JSON.parse(text);
    expect(records[0]).toEqual({
      deadLetterProperties: {
        deadletterreason: 'Maximum delivery attempts was exceeded.',
        deliveryattempts: 1,
        deliveryresult: 'The destination answered that the request is bad.',
        publishutc: recordTime(t - 1000),
        deliveryattemptutc: recordTime(t - 10),
      },
      event: JSON.parse(CLOUD_EVENT),
      customDeliveryProperties: { 'x-tenant': 'acme' },
    });
    expect(records[1]).toMatchObject({ customDeliveryProperties: {}, event: { id: 'n2' } });
  });

  it('retries a refused write after 10 s, 1 min, 5 min, then every 5 minutes, and drops it after 4 hours', async () => {
    const { clock, bucket, queue, step } = setup();
    const endedAt = clock.now() - 5 * M;
    // The four hours count from the first failed write, not from when delivery ended.
    const firstFailedWrite = clock.now();
    bucket.down = true;
    let jobs = [namespaceJob([ended('n1', endedAt)])];
    const delays: number[] = [];
    let dropped = 0;
    while (jobs.length > 0) {
      const report = await step.write(jobs);
      dropped += report.dropped;
      const waiting = queue.takeEnded();
      if (waiting[0] !== undefined) {
        delays.push(waiting[0].delaySeconds);
        clock.advance(waiting[0].delaySeconds * 1000);
      }
      jobs = waiting.map((entry) => entry.job);
    }
    expect(delays.slice(0, 5)).toEqual([10, 60, 300, 300, 300]);
    expect(dropped).toBe(1);
    expect(clock.now() - firstFailedWrite).toBeGreaterThanOrEqual(4 * H);
    expect(clock.now() - firstFailedWrite).toBeLessThan(4 * H + 5 * M);
    expect(clock.now() - endedAt).toBeGreaterThanOrEqual(4 * H + 5 * M);
  });

  it('keeps the classic every 5 minutes for a classic job in the same batch', async () => {
    const { clock, bucket, queue, step } = setup();
    bucket.down = true;
    const t = clock.now() - 5 * M;
    await step.write([namespaceJob([ended('n1', t)]), endedJob('audit', [ended('a1', t)])]);
    expect(
      queue
        .takeEnded()
        .map((entry) => [
          topicIdOf(entry.job.target.topic),
          entry.delaySeconds,
          entry.job.ended[0]?.failedWrites,
        ])
        .sort(),
    ).toEqual([
      ['orders', 300, 1],
      ['shop/orders', 10, 1],
    ]);
  });

  it('reports a namespace job without a namespace topic as failed, and still writes the rest', async () => {
    const { clock, bucket, step } = setup();
    const t = clock.now() - 5 * M;
    // The namespace profile's format, aimed at a classic topic.
    const misplaced = deadLetterTarget({ ...namespaceSubscription, topic: 'orders' });
    expect(misplaced).toMatchObject({ topic: { name: 'orders' }, deadLetter: { format: 'namespace' } });
    const report = await step.write([
      endedJobFor(misplaced, [ended('n1', t)]),
      endedJob('audit', [ended('a1', t)]),
    ]);
    expect(report.outcomes.map((outcome) => outcome.kind)).toEqual(['poison', 'done']);
    expect(report).toMatchObject({ written: 1, blobs: 1 });
    expect([...bucket.blobs.keys()]).toEqual(['dead/AUDIT/2026/8/8/5/blob-1.json']);
  });
});

describe('dead-letter notices (the pages: subscribe to the dead-letter store to be told when an event is dead-lettered)', () => {
  it('publishes, once the batch is written, one Gridwire.DeadLettered notice per blob and reason, naming the blob, subscription, reason and count', async () => {
    const { step, bucket, notifier, clock } = setup();
    const t = clock.now();
    await step.write([
      endedJob('audit', [ended('a1', t), ended('a2', t, 'MaxDeliveryAttemptsExceeded'), ended('a3', t)]),
      endedJob('billing', [ended('b1', t, 'TimeToLiveExceeded')], 'dead', 'payments'),
    ]);

    const keys = [...bucket.blobs.keys()];
    expect(keys).toHaveLength(2);
    expect(notifier.published).toHaveLength(1);
    expect(notifier.published[0]?.topic).toBe(DEAD_LETTER_NOTICES.topic);
    const auditKey = keys.find((key) => key.includes('/AUDIT/')) as string;
    expect(notifier.published[0]?.events).toEqual([
      {
        id: `${auditKey}#NonRetriableOutcome`,
        eventType: 'Gridwire.DeadLettered',
        subject: '/topics/orders/eventSubscriptions/audit',
        eventTime: new Date(t).toISOString(),
        dataVersion: '1',
        data: {
          container: 'dead',
          blobKey: auditKey,
          topic: 'orders',
          subscription: 'audit',
          reason: 'NonRetriableOutcome',
          count: 2,
          deadLetteredAt: new Date(t).toISOString(),
        },
      },
      expect.objectContaining({
        id: `${auditKey}#MaxDeliveryAttemptsExceeded`,
        data: expect.objectContaining({ reason: 'MaxDeliveryAttemptsExceeded', count: 1 }),
      }),
      expect.objectContaining({
        subject: '/topics/payments/eventSubscriptions/billing',
        data: expect.objectContaining({ topic: 'payments', reason: 'TimeToLiveExceeded', count: 1 }),
      }),
    ]);
  });

  it('sends none for a blob not written (the deliveries wait on the queue), and one once it is', async () => {
    const { step, bucket, notifier, clock } = setup();
    bucket.down = true;
    await step.write([endedJob('audit', [ended('a1', clock.now())])]);
    expect(notifier.published).toEqual([]);
    bucket.down = false;
    await step.write([endedJob('audit', [ended('a1', clock.now())])]);
    expect(notifier.published.flatMap(({ events }) => events.map((event) => event.data.blobKey))).toEqual([
      ...bucket.blobs.keys(),
    ]);
  });

  it('raises none for the dead letters of the notices topic’s own subscriptions, so a failing one cannot feed itself', async () => {
    const { step, bucket, notifier, clock } = setup();
    await step.write([endedJob('watcher', [ended('n1', clock.now())], 'dead', DEAD_LETTER_NOTICES.topic)]);
    expect(bucket.blobs.size).toBe(1);
    expect(notifier.published).toEqual([]);
  });

  it('still reports the dead letters written when the notices cannot be sent', async () => {
    const { step, bucket, notifier, clock } = setup();
    notifier.down = true;
    const report = await step.write([endedJob('audit', [ended('a1', clock.now())])]);
    expect(report).toMatchObject({ written: 1, blobs: 1, waiting: 0, dropped: 0 });
    expect(report.outcomes.map((outcome) => outcome.kind)).toEqual(['done']);
    expect(bucket.blobs.size).toBe(1);
  });
});

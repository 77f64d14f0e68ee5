/**
 * Jobs of format 1 brought to the current format, kind by kind: the messages are written byte for
 * byte as the builds before the delivery target wrote them (`support/job-format-1.ts`), read with
 * `readJobMessage` and upgraded. A job's target is the one a fresh publish builds for the
 * subscription as read now; a subscription that is gone leaves its events to drop, as the engine
 * does for a format-2 job; an ended job needs no read.
 */
import { upgradeEndedJob, upgradeJob } from '../../../shared/delivery/job-upgrade';
import { deliveryTargetOf } from '../../../shared/delivery/target';
import type { DeliveryItem, QueuedJob } from '../../../shared/domain/delivery';
import type { FormatOneEndedJob } from '../../../shared/domain/job-format-1';
import type { Subscription } from '../../../shared/domain/model';
import { METRIC } from '../../../shared/observability/metrics';
import {
  isLegacyJob,
  type LegacyJob,
  packFanOut,
  packJobs,
  parseJob,
  readJobMessage,
  validationJobBody,
} from '../../../shared/queue/job-codec';
import { engineHarness, item, subscription, VirtualClock } from '../../support/fakes';
import {
  formatOneDeliveryBody,
  formatOneEndedBody,
  formatOneFanOutBody,
  formatOneStoredFanOutBody,
  formatOneValidationBody,
} from '../../support/job-format-1';

const NOW = Date.parse('2026-11-24T12:00:00Z');

/** A subscription source over `subscriptions`, recording what it was asked for. */
function source(...subscriptions: Subscription[]) {
  const reads: Array<[string, string, number | undefined]> = [];
  return {
    reads,
    subscriptions: {
      get: async (topic: string, name: string, minVersion?: number) => {
        reads.push([topic, name, minVersion]);
        return subscriptions.find(
          (one) =>
            one.topic.toLowerCase() === topic.toLowerCase() && one.name.toLowerCase() === name.toLowerCase(),
        );
      },
    },
  };
}

/** A message body read as the job of an earlier format it must be. */
function legacy(body: string): LegacyJob {
  const job = readJobMessage(body);
  if (!isLegacyJob(job)) throw new Error('expected a job of an earlier format');
  return job;
}

const audit = subscription({ name: 'audit', uid: 'uid-audit', version: 4 });
const events = [item('e1', NOW), item('e2', NOW, { attempts: 2, lastOutcome: 'Busy', lastHttpStatus: 503 })];

describe('the format-1 messages these tests write', () => {
  // What the builds before the delivery target wrote for these inputs (their own packJobs,
  // packEndedJobs, packFanOut, storedFanOutBody and validationJobBody, run at 97d0d5e^).
  const goldenItems = [
    {
      deliveryId: 'd-1.0',
      eventId: 'e-1',
      dataVersion: '1.0',
      eventJson: '{"id":"e-1","x":"🎉"}',
      attempts: 0,
      publishedAt: 5,
    },
    {
      deliveryId: 'd-2.0',
      eventId: 'e-2',
      dataVersion: '',
      eventJson: '{"id":"e-2"}',
      attempts: 3,
      publishedAt: 6,
      lastOutcome: 'Busy' as const,
      lastHttpStatus: 503,
      lastAttemptAt: 7,
    },
  ];
  const [first, second] = goldenItems as [DeliveryItem, DeliveryItem];

  it.each([
    [
      'a delivery job',
      formatOneDeliveryBody(
        {
          topic: 'shop/orders',
          subscription: 'audit',
          subscriptionUid: 'u-1',
          subscriptionVersion: 9,
          dueAt: 10.2,
        },
        goldenItems,
      ),
      String.raw`{"v":1,"topic":"shop/orders","subscription":"audit","subscriptionUid":"u-1","subscriptionVersion":9,"dueAt":11,"items":[{"deliveryId":"d-1.0","eventId":"e-1","dataVersion":"1.0","eventJson":"{\"id\":\"e-1\",\"x\":\"\ud83c\udf89\"}","attempts":0,"publishedAt":5},{"deliveryId":"d-2.0","eventId":"e-2","dataVersion":"","eventJson":"{\"id\":\"e-2\"}","attempts":3,"publishedAt":6,"lastOutcome":"Busy","lastHttpStatus":503,"lastAttemptAt":7}]}`,
    ],
    [
      'an ended-delivery job',
      formatOneEndedBody(
        {
          topic: 'shop/orders',
          subscription: 'audit',
          subscriptionUid: 'u-1',
          subscriptionVersion: 9,
          deliveryProfile: 'namespace',
          deadLetter: { container: 'dead', format: 'namespace' },
        },
        [{ item: second, reason: 'TimeToLiveExceeded', endedAt: 8 }],
      ),
      String.raw`{"v":1,"kind":"ended","deliveryProfile":"namespace","deadLetter":{"container":"dead","format":"namespace"},"topic":"shop/orders","subscription":"audit","subscriptionUid":"u-1","subscriptionVersion":9,"ended":[{"item":{"deliveryId":"d-2.0","eventId":"e-2","dataVersion":"","eventJson":"{\"id\":\"e-2\"}","attempts":3,"publishedAt":6,"lastOutcome":"Busy","lastHttpStatus":503,"lastAttemptAt":7},"reason":"TimeToLiveExceeded","endedAt":8}]}`,
    ],
    [
      'a fan-out',
      formatOneFanOutBody(
        'orders',
        [first, second],
        [
          { subscription: 'a', subscriptionUid: 'u', subscriptionVersion: 1, matched: [0, 1] },
          { subscription: 'b', matched: [1] },
        ],
      ),
      String.raw`{"v":1,"kind":"fanout","topic":"orders","items":[{"deliveryId":"d-1.0","eventId":"e-1","dataVersion":"1.0","eventJson":"{\"id\":\"e-1\",\"x\":\"\ud83c\udf89\"}","attempts":0,"publishedAt":5},{"deliveryId":"d-2.0","eventId":"e-2","dataVersion":"","eventJson":"{\"id\":\"e-2\"}","attempts":3,"publishedAt":6,"lastOutcome":"Busy","lastHttpStatus":503,"lastAttemptAt":7}],"targets":[{"subscription":"a","subscriptionUid":"u","subscriptionVersion":1,"matched":[0,1]},{"subscription":"b","matched":[1]}]}`,
    ],
    [
      'a stored fan-out',
      formatOneStoredFanOutBody('orders', 'fanouts/k.json', 3),
      '{"v":1,"kind":"stored-fanout","topic":"orders","key":"fanouts/k.json","bytes":3}',
    ],
    [
      'a validation job',
      formatOneValidationBody({
        topic: 'orders',
        subscription: 'audit',
        subscriptionUid: 'u',
        code: 'c',
        validationUrl: 'https://x/v?c=1',
      }),
      '{"v":1,"kind":"validate","topic":"orders","subscription":"audit","subscriptionUid":"u","code":"c","validationUrl":"https://x/v?c=1"}',
    ],
  ])('are byte for byte what format 1 wrote: %s, which this release reads', (_kind, written, golden) => {
    expect(written).toBe(golden);
    expect(readJobMessage(golden)).toMatchObject({ v: 1 });
  });
});

describe('a format-1 delivery job', () => {
  it('becomes the job a fresh publish makes for the subscription as read now, its events unchanged', async () => {
    const { subscriptions, reads } = source(audit);
    const body = formatOneDeliveryBody(
      { topic: 'orders', subscription: 'audit', subscriptionUid: 'uid-audit', subscriptionVersion: 4 },
      events,
    );

    const upgraded = await upgradeJob(legacy(body), { subscriptions });

    expect(upgraded).toEqual({
      job: parseJob(packJobs({ target: deliveryTargetOf(audit) }, events)[0] as string),
      gone: [],
    });
    // Read as the engine reads a job's subscription: at least at the version it was made for.
    expect(reads).toEqual([['orders', 'audit', 4]]);
  });

  it('keeps its due time (a retry or a hop), and asks for its version when the read is older', async () => {
    const stale = { ...audit, version: 3 };
    const { subscriptions } = source(stale);
    const body = formatOneDeliveryBody(
      {
        topic: 'orders',
        subscription: 'audit',
        subscriptionUid: 'uid-audit',
        subscriptionVersion: 4,
        dueAt: NOW + 1500.5,
      },
      events,
    );

    const { job } = await upgradeJob(legacy(body), { subscriptions });

    expect(job).toEqual({
      v: 2,
      target: { ...deliveryTargetOf(stale), version: 4 },
      dueAt: NOW + 1501,
      items: events,
    });
  });

  it('carries the subscription’s settings a format-1 job did not: profile, delivery schema, dead-letter place', async () => {
    const namespaced = subscription({
      topic: 'shop/orders',
      name: 'audit',
      uid: 'uid-ns',
      deliveryProfile: 'namespace',
      eventDeliverySchema: 'CloudEventSchemaV1_0',
      deadLetter: { container: 'dead' },
    });
    const { subscriptions } = source(namespaced);
    const body = formatOneDeliveryBody({ topic: 'shop/orders', subscription: 'audit' }, events);

    const { job } = await upgradeJob(legacy(body), { subscriptions });

    expect(job).toMatchObject({
      target: {
        topic: { namespace: 'shop', name: 'orders' },
        subscription: 'audit',
        uid: 'uid-ns',
        version: 1,
        profile: 'namespace',
        schema: 'CloudEventSchemaV1_0',
        deadLetter: { container: 'dead', format: 'namespace' },
      },
    });
  });

  it.each([
    ['deleted', [] as Subscription[], 'uid-audit'],
    ['deleted and created again (another uid)', [{ ...audit, uid: 'uid-new' }], 'uid-audit'],
  ])('leaves its events to drop when the subscription was %s', async (_case, found, uid) => {
    const { subscriptions } = source(...found);
    const body = formatOneDeliveryBody(
      { topic: 'orders', subscription: 'audit', subscriptionUid: uid },
      events,
    );

    expect(await upgradeJob(legacy(body), { subscriptions })).toEqual({
      gone: [{ target: { topic: { name: 'orders' }, subscription: 'audit' }, items: events }],
    });
  });

  it('without a uid, is for the subscription of its name, as the engine takes such a job', async () => {
    const { subscriptions } = source(audit);
    const body = formatOneDeliveryBody({ topic: 'orders', subscription: 'audit' }, events);

    expect((await upgradeJob(legacy(body), { subscriptions })).job).toMatchObject({
      target: deliveryTargetOf(audit),
    });
  });

  it('rejects when the subscription cannot be read, so its message comes back', async () => {
    const subscriptions = {
      get: async () => {
        throw new Error('the table is throttling');
      },
    };
    const body = formatOneDeliveryBody({ topic: 'orders', subscription: 'audit' }, events);

    await expect(upgradeJob(legacy(body), { subscriptions })).rejects.toThrow('the table is throttling');
  });
});

describe('a format-1 validation job', () => {
  const body = (uid?: string) =>
    formatOneValidationBody({
      topic: 'orders',
      subscription: 'audit',
      ...(uid === undefined ? {} : { subscriptionUid: uid }),
      code: 'code-1',
      validationUrl: 'https://api.example.test/eventSubscriptions/validate?code=code-1',
    });

  it('becomes the validation job the management API queues now', async () => {
    const { subscriptions } = source(audit);

    const upgraded = await upgradeJob(legacy(body('uid-audit')), { subscriptions });

    expect(upgraded).toEqual({
      job: parseJob(
        validationJobBody({
          target: deliveryTargetOf(audit),
          code: 'code-1',
          validationUrl: 'https://api.example.test/eventSubscriptions/validate?code=code-1',
        }),
      ),
      gone: [],
    });
  });

  it.each([
    ['deleted', [] as Subscription[]],
    ['created again', [{ ...audit, uid: 'uid-new' }]],
  ])(
    'leaves nothing when the subscription was %s (the handshake would find it stale)',
    async (_case, found) => {
      const { subscriptions } = source(...found);
      expect(await upgradeJob(legacy(body('uid-audit')), { subscriptions })).toEqual({ gone: [] });
    },
  );
});

describe('a format-1 fan-out', () => {
  const billing = subscription({
    name: 'billing',
    uid: 'uid-billing',
    version: 7,
    eventDeliverySchema: 'CloudEventSchemaV1_0',
  });
  const fanOutBody = formatOneFanOutBody('orders', events, [
    { subscription: 'audit', subscriptionUid: 'uid-audit', subscriptionVersion: 4, matched: [0, 1] },
    { subscription: 'billing', subscriptionUid: 'uid-billing', subscriptionVersion: 7, matched: [1] },
  ]);

  it('becomes the fan-out a fresh publish makes, a target per subscription', async () => {
    const { subscriptions } = source(audit, billing);

    const upgraded = await upgradeJob(legacy(fanOutBody), { subscriptions });

    expect(upgraded).toEqual({
      job: parseJob(
        packFanOut({ name: 'orders' }, events, [
          { target: deliveryTargetOf(audit), matched: [0, 1] },
          { target: deliveryTargetOf(billing), matched: [1] },
        ]),
      ),
      gone: [],
    });
  });

  it('leaves the events of a subscription that is gone to drop, and keeps the others’ targets', async () => {
    const { subscriptions } = source(billing);

    const upgraded = await upgradeJob(legacy(fanOutBody), { subscriptions });

    expect(upgraded.gone).toEqual([
      { target: { topic: { name: 'orders' }, subscription: 'audit' }, items: events },
    ]);
    expect(upgraded.job).toMatchObject({
      kind: 'fanout',
      items: events,
      targets: [{ subscription: 'billing', matched: [1] }],
    });
  });

  it('leaves nothing to work when every subscription is gone', async () => {
    const { subscriptions } = source();
    const upgraded = await upgradeJob(legacy(fanOutBody), { subscriptions });
    expect(upgraded.job).toBeUndefined();
    expect(upgraded.gone.map(({ target, items }) => [target.subscription, items.length])).toEqual([
      ['audit', 2],
      ['billing', 1],
    ]);
  });
});

describe('a format-1 stored fan-out', () => {
  it('names its topic as a structure, without a read (its body is upgraded when read)', async () => {
    const { subscriptions, reads } = source();
    const body = formatOneStoredFanOutBody('shop/orders', 'fanouts/2026-11-24/p-1.json', 2048);

    expect(await upgradeJob(legacy(body), { subscriptions })).toEqual({
      job: {
        v: 2,
        kind: 'stored-fanout',
        topic: { namespace: 'shop', name: 'orders' },
        key: 'fanouts/2026-11-24/p-1.json',
        bytes: 2048,
      },
      gone: [],
    });
    expect(reads).toEqual([]);
  });
});

describe('a format-1 ended-delivery job', () => {
  const ended = [
    {
      item: events[1] as (typeof events)[number],
      reason: 'MaxDeliveryAttemptsExceeded' as const,
      endedAt: NOW,
    },
  ];

  /** What format 1's engine wrote for a subscription's ended deliveries. */
  const endedBodyOf = (one: Subscription, format: FormatOneEndedJob['deadLetter']['format']) =>
    formatOneEndedBody(
      {
        topic: one.topic,
        subscription: one.name,
        ...(one.uid === undefined ? {} : { subscriptionUid: one.uid }),
        subscriptionVersion: one.version,
        deliveryProfile: one.deliveryProfile,
        deadLetter: { container: 'dead', format },
      },
      ended,
    );

  it.each([
    [
      'an Event Grid subscription',
      subscription({ uid: 'u-1', deadLetter: { container: 'dead' } }),
      'EventGridSchema',
    ],
    [
      'a CloudEvents subscription',
      subscription({
        uid: 'u-2',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        deadLetter: { container: 'dead' },
      }),
      'CloudEventSchemaV1_0',
    ],
    [
      'a custom-schema subscription',
      subscription({
        uid: 'u-3',
        eventDeliverySchema: 'CustomInputSchema',
        deadLetter: { container: 'dead' },
      }),
      'CustomInputSchema',
    ],
    [
      'a namespace subscription',
      subscription({
        topic: 'shop/orders',
        uid: 'u-4',
        deliveryProfile: 'namespace',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        deadLetter: { container: 'dead' },
      }),
      'namespace',
    ],
  ] as const)(
    'of %s carries the target format 2 builds from it, read from the job alone',
    async (_case, one, format) => {
      const { subscriptions, reads } = source();

      const upgraded = await upgradeJob(legacy(endedBodyOf(one, format)), { subscriptions });

      expect(upgraded).toEqual({
        job: { v: 2, kind: 'ended', target: deliveryTargetOf(one), ended },
        gone: [],
      });
      expect(reads).toEqual([]);
    },
  );

  it('without a version, asks for none', () => {
    const job = legacy(
      formatOneEndedBody(
        {
          topic: 'orders',
          subscription: 'audit',
          deliveryProfile: 'topic',
          deadLetter: { container: 'dead', format: 'EventGridSchema' },
        },
        ended,
      ),
    );
    expect(job.kind).toBe('ended');
    expect(upgradeEndedJob(job as FormatOneEndedJob).target).toEqual({
      topic: { name: 'orders' },
      subscription: 'audit',
      version: 0,
      profile: 'topic',
      schema: 'EventGridSchema',
      deadLetter: { container: 'dead', format: 'EventGridSchema' },
    });
  });
});

describe('the engine’s upgrade', () => {
  const goneBody = formatOneDeliveryBody({ topic: 'orders', subscription: 'gone' }, [item('g1', NOW)]);

  it('drops the events of a subscription that is gone as SubscriptionDeleted, and leaves nothing', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });

    expect(await h.engine.upgrade(legacy(goneBody))).toBeUndefined();

    expect(
      h.metrics
        .drain()
        .filter(
          (point) => point.name === METRIC.DroppedEventCount && point.dimensions.DropReason !== undefined,
        ),
    ).toEqual([expect.objectContaining({ values: [1], dimensions: { DropReason: 'SubscriptionDeleted' } })]);
    expect(h.queue.sent).toEqual([]);
  });

  it('gives the job for a subscription that is there, which it then delivers', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });
    const body = formatOneDeliveryBody({ topic: 'orders', subscription: 'audit', subscriptionVersion: 1 }, [
      item('e1', NOW),
    ]);

    const job = (await h.engine.upgrade(legacy(body))) as QueuedJob;
    const report = await h.engine.processJob(job, { attemptDeadline: NOW + 60_000 });

    expect(report.delivered).toBe(1);
    expect(h.sender.requests).toHaveLength(1);
  });

  it('works a fan-out stored in the bucket before the upgrade: queued as its jobs for the subscriptions that are there', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });
    const key = 'fanouts/2026-11-24/p-1.json';
    h.queue.fanOuts.bodies.set(
      key,
      formatOneFanOutBody(
        'orders',
        [item('e1', NOW), item('e2', NOW)],
        [
          { subscription: 'audit', matched: [0] },
          { subscription: 'gone', matched: [0, 1] },
        ],
      ),
    );
    const message = (await h.engine.upgrade(
      legacy(formatOneStoredFanOutBody('orders', key, 10)),
    )) as QueuedJob;

    const report = await h.engine.processJob(message, { attemptDeadline: NOW + 60_000 });

    expect(report.queued).toBe(1);
    expect(
      h.queue.take().map(({ queue, job }) => [queue, job.target, job.items.map((one) => one.eventId)]),
    ).toEqual([['delivery', deliveryTargetOf(h.subscriptions.get('orders/audit') as Subscription), ['e1']]]);
    expect(
      h.metrics.drain().find((point) => point.dimensions.DropReason === 'SubscriptionDeleted')?.values,
    ).toEqual([2]);
  });

  it('drops a stored fan-out of the first format whose subscriptions are all gone, queueing nothing', async () => {
    const h = engineHarness({ clock: new VirtualClock(NOW) });
    const key = 'fanouts/2026-11-24/p-2.json';
    h.queue.fanOuts.bodies.set(
      key,
      formatOneFanOutBody('orders', [item('e1', NOW)], [{ subscription: 'gone', matched: [0] }]),
    );
    const message = (await h.engine.upgrade(
      legacy(formatOneStoredFanOutBody('orders', key, 10)),
    )) as QueuedJob;

    await h.engine.processJob(message, { attemptDeadline: NOW + 60_000 });

    expect(h.queue.sent).toEqual([]);
    expect(
      h.metrics.drain().find((point) => point.dimensions.DropReason === 'SubscriptionDeleted')?.values,
    ).toEqual([1]);
  });
});

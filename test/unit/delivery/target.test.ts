/**
 * The delivery target a subscription's jobs carry (`rules/target.ts`), and every job kind that
 * carries one read back from its message body exactly as it was packed.
 */
import { deadLetterScopeOfTarget, deliveryTargetOf } from '../../../shared/delivery/target';
import {
  type DeadLetterTarget,
  type DeliveryTarget,
  deadLetterTargetSchema,
  type EndedDelivery,
  JOB_FORMAT_VERSION,
  type QueuedJob,
} from '../../../shared/domain/delivery';
import { namespaceTopicId, topicIdOf, topicRefOf } from '../../../shared/domain/names';
import {
  expandFanOut,
  packEndedJobs,
  packFanOut,
  packJobs,
  parseFanOut,
  parseJob,
  storedFanOutBody,
  validationJobBody,
} from '../../../shared/queue/job-codec';
import { JOB_KINDS, type JobKind, kindOf } from '../../../shared/queue/job-kinds';
import { item, subscription } from '../../support/fakes';

/** A namespace topic's subscription, as the management API creates it. */
const namespaceSubscription = subscription({
  topic: 'shop/orders',
  name: 'push',
  uid: 'uid-ns',
  version: 4,
  deliveryProfile: 'namespace',
  eventDeliverySchema: 'CloudEventSchemaV1_0',
  deadLetter: { container: 'dead-ns' },
});

describe('the delivery target of a subscription', () => {
  it('of a classic topic: the topic by name alone, and what the subscription says, copied', () => {
    const target = deliveryTargetOf(
      subscription({
        topic: 'orders',
        name: 'audit',
        uid: 'uid-1',
        version: 7,
        eventDeliverySchema: 'CustomInputSchema',
        deadLetter: { container: 'dead' },
      }),
    );
    expect(target).toEqual({
      topic: { name: 'orders' },
      subscription: 'audit',
      uid: 'uid-1',
      version: 7,
      profile: 'topic',
      schema: 'CustomInputSchema',
      // A classic subscription's records are in its delivery schema.
      deadLetter: { container: 'dead', format: 'CustomInputSchema' },
    });
    expect(target.topic).not.toHaveProperty('namespace');
  });

  it('of a namespace topic: the topic by namespace and name, records in the namespace format', () => {
    expect(deliveryTargetOf(namespaceSubscription)).toEqual({
      topic: { namespace: 'shop', name: 'orders' },
      subscription: 'push',
      uid: 'uid-ns',
      version: 4,
      profile: 'namespace',
      schema: 'CloudEventSchemaV1_0',
      deadLetter: { container: 'dead-ns', format: 'namespace' },
    });
  });

  it.each(['orders', namespaceTopicId('shop', 'orders'), namespaceTopicId('a-namespace', 'a-topic')])(
    'names topic %s as the names rules do, and back',
    (topicId) => {
      const { topic } = deliveryTargetOf(subscription({ topic: topicId }));
      expect(topic).toEqual(topicRefOf(topicId));
      expect(topicIdOf(topic)).toBe(topicId);
    },
  );

  it('has no dead-letter place, and no uid, when the subscription has none', () => {
    const target = deliveryTargetOf(subscription());
    expect(target).not.toHaveProperty('deadLetter');
    expect(target).not.toHaveProperty('uid');
    expect(target).toEqual({
      topic: { name: 'orders' },
      subscription: 'audit',
      version: 1,
      profile: 'topic',
      schema: 'EventGridSchema',
    });
  });
});

describe('whose dead letters a target’s are', () => {
  it('a classic topic’s subscription', () => {
    const target = deadLetterTargetSchema.parse(
      deliveryTargetOf(subscription({ deadLetter: { container: 'dead' } })),
    );
    expect(deadLetterScopeOfTarget(target)).toEqual({ kind: 'topic', subscription: 'audit' });
  });

  it('a namespace topic’s subscription', () => {
    const target = deadLetterTargetSchema.parse(deliveryTargetOf(namespaceSubscription));
    expect(deadLetterScopeOfTarget(target)).toEqual({
      kind: 'namespace',
      namespace: 'shop',
      topic: 'orders',
      subscription: 'push',
    });
  });

  it('none, for the namespace format aimed at a classic topic', () => {
    const target = deadLetterTargetSchema.parse(
      deliveryTargetOf({ ...namespaceSubscription, topic: 'orders' }),
    );
    expect(target.deadLetter.format).toBe('namespace');
    expect(() => deadLetterScopeOfTarget(target)).toThrow(/namespace topic/);
  });
});

describe('every job kind, packed and read back', () => {
  const T0 = Date.parse('2026-08-08T05:10:00Z');
  const classic: DeliveryTarget = deliveryTargetOf(subscription({ uid: 'uid-1', version: 3 }));
  const namespaced: DeadLetterTarget = deadLetterTargetSchema.parse(deliveryTargetOf(namespaceSubscription));
  const items = [
    item('e1', T0, { attempts: 2, lastOutcome: 'GenericError', lastHttpStatus: 500 }),
    item('e2', T0),
  ];
  const ended: EndedDelivery[] = [
    {
      item: item('e3', T0, { attempts: 1, lastOutcome: 'BadRequest', lastAttemptAt: T0 + 10 }),
      reason: 'NonRetriableOutcome',
      endedAt: T0 + 20,
      customDeliveryProperties: { 'x-tenant': 'acme' },
      failedWrites: 2,
    },
  ];
  const { topic: _topic, ...namespacedWithoutTopic } = namespaced;

  /** Each kind: the bodies its packer writes, and the job each must read back as. */
  const cases: ReadonlyArray<{ kind: JobKind; body: string; job: QueuedJob }> = [
    {
      kind: 'deliver',
      body: packJobs({ target: classic }, items)[0] ?? '',
      job: { v: JOB_FORMAT_VERSION, target: classic, items },
    },
    {
      kind: 'deliver',
      body: packJobs({ target: namespaced, dueAt: T0 + 5000 }, items)[0] ?? '',
      job: { v: JOB_FORMAT_VERSION, target: namespaced, dueAt: T0 + 5000, items },
    },
    {
      kind: 'ended',
      body: packEndedJobs(namespaced, ended)[0] ?? '',
      job: { v: JOB_FORMAT_VERSION, kind: 'ended', target: namespaced, ended },
    },
    {
      kind: 'validate',
      body: validationJobBody({
        target: classic,
        code: 'code-1',
        validationUrl: 'https://api.example/validate?code=code-1',
      }),
      job: {
        v: JOB_FORMAT_VERSION,
        kind: 'validate',
        target: classic,
        code: 'code-1',
        validationUrl: 'https://api.example/validate?code=code-1',
      },
    },
    {
      kind: 'fanout',
      body: packFanOut(namespaced.topic, items, [
        { target: namespaced, matched: [0, 1] },
        { target: { ...namespaced, subscription: 'other', version: 9 }, matched: [1] },
      ]),
      job: {
        v: JOB_FORMAT_VERSION,
        kind: 'fanout',
        topic: { namespace: 'shop', name: 'orders' },
        items,
        targets: [
          { ...namespacedWithoutTopic, matched: [0, 1] },
          { ...namespacedWithoutTopic, subscription: 'other', version: 9, matched: [1] },
        ],
      },
    },
    {
      kind: 'stored-fanout',
      body: storedFanOutBody(classic.topic, 'fanouts/2026-08-08/p.json', 1234),
      job: {
        v: JOB_FORMAT_VERSION,
        kind: 'stored-fanout',
        topic: { name: 'orders' },
        key: 'fanouts/2026-08-08/p.json',
        bytes: 1234,
      },
    },
  ];

  it('covers every kind', () => {
    expect(new Set(cases.map(({ kind }) => kind))).toEqual(new Set(Object.keys(JOB_KINDS)));
  });

  it.each(cases.map((one, index) => [`${one.kind} #${index}`, one] as const))(
    '%s comes back unchanged',
    (_name, { kind, body, job }) => {
      const parsed = parseJob(body);
      expect(parsed).toEqual(job);
      expect(kindOf(parsed)).toBe(kind);
      // Nothing was added on the way: the body is the job's own JSON, field for field.
      expect(JSON.parse(body)).toEqual(job);
    },
  );

  it('a fan-out gives back its jobs with the targets it was packed with, topic included', () => {
    const other: DeliveryTarget = { ...namespaced, subscription: 'other', version: 9 };
    const fanOut = parseFanOut(
      packFanOut(namespaced.topic, items, [
        { target: namespaced, matched: [0, 1] },
        { target: other, matched: [1] },
      ]),
    );
    expect(expandFanOut(fanOut)).toEqual([
      { v: JOB_FORMAT_VERSION, target: namespaced, items },
      { v: JOB_FORMAT_VERSION, target: other, items: [items[1]] },
    ]);
  });
});

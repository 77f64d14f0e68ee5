/**
 * The delivery target a subscription's jobs carry (`rules/target.ts`), and every job kind that
 * carries one read back from its message body exactly as it was packed.
 */
import { deadLetterScopeOfTarget, deliveryTargetOf } from '../../../shared/delivery/target';
import {
  type DeliveryTarget,
  deadLetterTargetSchema,
  JOB_FORMAT_VERSION,
} from '../../../shared/domain/delivery';
import { namespaceTopicId, topicIdOf, topicRefOf } from '../../../shared/domain/names';
import { expandFanOut, packFanOut, parseFanOut } from '../../../shared/queue/job-codec';
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

describe('a fan-out of targets', () => {
  const T0 = Date.parse('2026-08-08T05:10:00Z');
  const namespaced: DeliveryTarget = deliveryTargetOf(namespaceSubscription);
  const items = [item('e1', T0), item('e2', T0)];

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

/**
 * The delivery target of a subscription (`DeliveryTarget` in `domain/delivery.ts`): built here
 * and nowhere else, by the publisher for the jobs it queues, by the delivery step for the jobs it
 * sends on (from the subscription as it read it), and by the management API for replays and
 * validation handshakes.
 */
import type { DeadLetterTarget, DeliveryTarget } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { topicRefOf } from '../domain/names';
import { type DeadLetterScope, deadLetterFormatOf, deadLetterScopeOf } from './rules/dead-letter-layout';
import { DELIVERY_PROFILES } from './rules/profiles';

export function deliveryTargetOf(subscription: Subscription): DeliveryTarget {
  const deadLetter = subscription.deadLetter;
  return {
    topic: topicRefOf(subscription.topic),
    subscription: subscription.name,
    ...(subscription.uid === undefined ? {} : { uid: subscription.uid }),
    version: subscription.version,
    profile: subscription.deliveryProfile,
    schema: subscription.eventDeliverySchema,
    ...(deadLetter === undefined
      ? {}
      : {
          deadLetter: {
            container: deadLetter.container,
            format: deadLetterFormatOf(DELIVERY_PROFILES[subscription.deliveryProfile], subscription),
            ...(deadLetter.bucket === undefined ? {} : { bucket: deadLetter.bucket }),
            ...(deadLetter.roleArn === undefined ? {} : { roleArn: deadLetter.roleArn }),
            ...(deadLetter.externalId === undefined ? {} : { externalId: deadLetter.externalId }),
          },
        }),
  };
}

/**
 * Whether `subscription`, as read now, is the one a job made for a subscription with `uid` is
 * for: it is, unless both have a uid and the two differ (it was deleted and created again under
 * the same name, and the job's subscription is gone).
 */
export const isSameSubscription = (
  uid: string | undefined,
  subscription: Pick<Subscription, 'uid'>,
): boolean => uid === undefined || subscription.uid === undefined || uid === subscription.uid;

/**
 * Whose dead letters a target's are (the folders of its blob keys), by its record format: a
 * namespace record's subscription is one of a namespace topic. Throws for a namespace format
 * aimed at a classic topic.
 */
export const deadLetterScopeOfTarget = (target: DeadLetterTarget): DeadLetterScope =>
  deadLetterScopeOf(
    target.deadLetter.format,
    target.topic.namespace === undefined
      ? undefined
      : { namespace: target.topic.namespace, topic: target.topic.name },
    target.subscription,
  );

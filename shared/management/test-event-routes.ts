/**
 * `POST <subscription>/sendTestEvent`: one test event sent to this subscription only, as a new
 * delivery (retried, logged, dead-lettered as any other), so the owner of an endpoint can see it
 * arrive and check their signature verification. It is an Event Grid event of type
 * `Gridwire.TestEvent`, delivered in the subscription's schema; the subscription's filter is not
 * applied (the event is addressed to it). At most `TEST_EVENT_LIMIT` a minute per subscription.
 */
import type { DeliveryItem } from '../domain/delivery';
import { topicResourceId } from '../domain/names';
import { jsonResult } from '../http/api-gateway';
import { admitCall, TEST_EVENT_LIMIT } from './call-limits';
import type { CallLimitDeps, ClockDeps, IdDeps, QueueDeps } from './deps';
import { queueDelivery } from './message-log-routes';
import type { Operations, SubscriptionFinder } from './operation';

/** The event type of test events. */
export const TEST_EVENT_TYPE = 'Gridwire.TestEvent';

/** A test event for `subscription` as the queue carries events (the Event Grid form). */
export function testEventItem(
  subscription: { topic: string; name: string },
  ids: { eventId: string; deliveryId: string },
  now: number,
): DeliveryItem {
  const event = {
    id: ids.eventId,
    topic: topicResourceId(subscription.topic),
    subject: `/eventSubscriptions/${subscription.name}/test`,
    eventType: TEST_EVENT_TYPE,
    eventTime: new Date(now).toISOString(),
    data: {
      message: 'A test event: this endpoint receives events from this subscription.',
      eventSubscription: subscription.name,
    },
    dataVersion: '1.0',
    metadataVersion: '1',
  };
  return {
    deliveryId: ids.deliveryId,
    eventId: ids.eventId,
    dataVersion: '1.0',
    eventJson: JSON.stringify(event),
    attempts: 0,
    publishedAt: now,
  };
}

export type TestEventRouteDeps = ClockDeps & IdDeps & QueueDeps & CallLimitDeps;

/** `POST <subscriptionPath>/sendTestEvent`. */
export function testEventOperations<D>(
  subscriptionPath: string,
  find: SubscriptionFinder<D>,
): Operations<D & TestEventRouteDeps> {
  return {
    [`POST ${subscriptionPath}/sendTestEvent`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      await admitCall(deps.callBudget, TEST_EVENT_LIMIT, subscription, deps.clock.now());
      const item = testEventItem(
        subscription,
        { eventId: `test-${deps.newId()}`, deliveryId: `test-${deps.newId()}` },
        deps.clock.now(),
      );
      await queueDelivery(deps, subscription, item);
      return jsonResult(202, {
        eventId: item.eventId,
        deliveryId: item.deliveryId,
        eventType: TEST_EVENT_TYPE,
      });
    },
  };
}

/**
 * Where deliveries go when the retry engine gives up on them. The engine hands every ended
 * delivery to one {@link DeadLetterSink}; the S3 dead-letter writer plugs in here.
 */

import type { DeadLetterReason, DeliveryItem, DropReason, Subscription } from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../observability/metrics';

/** A delivery that ended without success, with its final state (attempts, last outcome...). */
export interface EndedDelivery {
  item: DeliveryItem;
  reason: DeadLetterReason;
  /** Epoch ms when delivery ended. */
  endedAt: number;
}

export interface DeadLetterSink {
  /** What the attempt history should say happens to events ended for `subscription`. */
  disposition(subscription: Subscription): 'deadLetter' | 'dropped';
  /** Takes ended deliveries; rejects if they could not be kept (the caller retries the job). */
  handle(subscription: Subscription, ended: readonly EndedDelivery[]): Promise<void>;
}

/**
 * Drops ended deliveries, counting them (`DroppedEventCount` by `DropReason`) and logging each
 * event id with its reason. Used while a subscription has no dead-letter destination.
 */
export class DropRecorder implements DeadLetterSink {
  constructor(
    private readonly metrics: MetricBuffer,
    private readonly logger: LoggerLike,
  ) {}

  disposition(): 'dropped' {
    return 'dropped';
  }

  async handle(subscription: Subscription, ended: readonly EndedDelivery[]): Promise<void> {
    this.drop(
      subscription.topic,
      subscription.name,
      ended.map((entry) => ({ item: entry.item, reason: entry.reason })),
    );
  }

  /** Records drops that happen without a subscription definition (it was deleted). */
  drop(
    topic: string,
    subscription: string,
    drops: readonly { item: DeliveryItem; reason: DropReason }[],
  ): void {
    const byReason = new Map<DropReason, DeliveryItem[]>();
    for (const { item, reason } of drops) byReason.set(reason, [...(byReason.get(reason) ?? []), item]);
    for (const [reason, items] of byReason) {
      this.metrics.count(METRIC.DroppedEventCount, items.length, {
        ...subscriptionDimensions(topic, subscription),
        DropReason: reason,
      });
      this.logger.warn('events dropped', {
        topic,
        subscription,
        dropReason: reason,
        events: items.map((item) => ({
          id: item.event.id,
          deliveryId: item.deliveryId,
          deliveryAttempts: item.attempts,
          lastDeliveryOutcome: item.lastOutcome,
        })),
      });
    }
  }
}

/**
 * The dead-letter step: where deliveries go when the retry engine gives up on them. The engine
 * hands ended deliveries over through a queue (`QUEUES.deadLetter`); the dead-letter function
 * consumes it. Until subscriptions name a dead-letter destination, every ended delivery is
 * dropped: counted (`DroppedEventCount` by `DropReason`) and logged with its event id.
 */
import type { DeliveryItem, EndedJob } from '../domain/delivery';
import type { DropReason } from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../observability/metrics';

/** Counts and logs dropped events. */
export class DropRecorder {
  constructor(
    private readonly metrics: MetricBuffer,
    private readonly logger: LoggerLike,
  ) {}

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
          id: item.eventId,
          deliveryId: item.deliveryId,
          deliveryAttempts: item.attempts,
          lastDeliveryOutcome: item.lastOutcome,
        })),
      });
    }
  }
}

/** Takes the ended deliveries of one queued job. */
export class DeadLetterStep {
  constructor(private readonly drops: DropRecorder) {}

  async handle(job: EndedJob): Promise<{ dropped: number }> {
    this.drops.drop(
      job.topic,
      job.subscription,
      job.ended.map((entry) => ({ item: entry.item, reason: entry.reason })),
    );
    return { dropped: job.ended.length };
  }
}

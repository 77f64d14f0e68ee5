/**
 * What the delivery engine asks of subscriptions' backlogs, and all it knows of them: where a
 * job's follow-ups go, whether a due job is held for its backlog, and whether a long wait is
 * stored rather than hopping. The backlog module (`backlogs.ts`) implements it; an engine
 * without backlogs gets {@link NO_BACKLOG}, where everything rides the retry queue.
 */
import type { DeliveryItem, DeliveryTarget } from '../../domain/delivery';
import type { EndpointHealth } from '../../domain/health';
import type { Subscription } from '../../domain/model';
import { ALWAYS_QUEUE, type FollowUpRoute } from '../follow-ups';
import type { DeliveryProfile } from '../rules/profiles';

export interface BacklogPort {
  /**
   * Where a job's follow-ups go, by due time: into the backlog while the endpoint is unhealthy or
   * draining (as this worker sees it now, after the job's own outcomes) and for waits longer than
   * the threshold; otherwise the retry queue.
   */
  route(subscription: Subscription, profile: DeliveryProfile): FollowUpRoute;
  /**
   * Whether a due job's events are held for the backlog, attempting none: while the endpoint is
   * unhealthy its backlog probes it, and while a recovering one's drain runs, it sends the
   * endpoint only as much as it takes.
   */
  holds(health: EndpointHealth, now: number): boolean;
  /**
   * Stores a job not due until `dueAt` in the subscription's backlog when the wait is longer than
   * the threshold (true), else leaves it to hop on the retry queue (false).
   */
  storeWait(
    target: DeliveryTarget,
    dueAt: number,
    items: readonly DeliveryItem[],
    profile: DeliveryProfile,
  ): Promise<boolean>;
}

/** No backlogs: long waits hop on the retry queue and held events ride it. */
export const NO_BACKLOG: BacklogPort = {
  route: () => ALWAYS_QUEUE,
  holds: () => false,
  storeWait: async () => false,
};

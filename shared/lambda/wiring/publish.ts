/**
 * The publish function's wiring: its publisher and its gate on the delivery queue's backlog. The
 * delivery and dead-letter functions publish their notices through the same publisher.
 */
import { randomUUID } from 'node:crypto';
import { ENV, QUEUES } from '../../config/resources';
import { requireSetting } from '../../config/runtime';
import { systemClock } from '../../platform/clock';
import { DeliveryBacklogGate } from '../../publish/admission';
import { Publisher } from '../../publish/publisher';
import { waitingMessages } from '../../queue/queue-depth';
import { DynamoAcceptedIds } from '../../storage/accepted-ids';
import { publishingStore } from '../../storage/store';
import type { Observability } from './observability';
import { fanOutsOf, queueOf, type Runtime, storesOf } from './runtime';

export function buildPublisher(runtime: Runtime, observability: Observability): Publisher {
  const stores = storesOf(runtime);
  return new Publisher({
    store: publishingStore(stores),
    // A held subscription's publishes go straight to its backlog while events are routed there.
    ...(runtime.config.backlog
      ? { queue: queueOf(runtime, ['delivery', 'backlog', 'ordered', 'archive']), held: stores.heldMarks }
      : { queue: queueOf(runtime, ['delivery', 'ordered', 'archive']) }),
    acceptedIds: new DynamoAcceptedIds(
      runtime.clients.dynamo,
      requireSetting(runtime.config.tableName, ENV.tableName),
    ),
    fanOuts: fanOutsOf(runtime),
    clock: runtime.clock ?? systemClock,
    metrics: observability.buffer,
    logger: observability.logger,
    newId: randomUUID,
    topicCacheMs: runtime.config.topicCacheMs,
    catalog: stores.eventTypes,
  });
}

/**
 * The publish function's gate on the delivery queue's backlog (`deliveryBacklogLimit`); undefined
 * when the limit is 0, as in the local stack, whose own gate at the door refuses instead.
 */
export function buildDeliveryBacklogGate(
  runtime: Runtime,
  observability: Observability,
): DeliveryBacklogGate | undefined {
  const limit = runtime.config.deliveryBacklogLimit;
  if (limit === 0) return undefined;
  const url = requireSetting(runtime.config.queueUrls.delivery, QUEUES.delivery.urlEnv);
  const clock = runtime.clock ?? systemClock;
  return new DeliveryBacklogGate({
    waitingJobs: () => waitingMessages(runtime.clients.sqs, url),
    limit,
    now: () => clock.now(),
    onReadError: (error) =>
      observability.logger.warn('could not read the delivery queue depth; admitting publishes', {
        error: error.message,
      }),
  });
}

/**
 * The HTTP request for one delivery: a JSON array of events plus the service's headers.
 */
import type { DeliveryItem, Subscription } from './model';
import type { WebhookRequest } from './webhook';

export const USER_AGENT = 'Gridwire/0.1';

/**
 * Builds the POST for `items` (one event unless the subscription batches). `aeg-delivery-count`
 * is the number of earlier attempts: 0 on the first.
 */
export function buildDeliveryRequest(
  subscription: Subscription,
  items: readonly DeliveryItem[],
): WebhookRequest {
  const first = items[0];
  if (first === undefined) throw new RangeError('a delivery request needs at least one event');
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': USER_AGENT,
    'aeg-event-type': 'Notification',
    'aeg-subscription-name': subscription.name.toUpperCase(),
    'aeg-delivery-count': String(first.attempts),
    'aeg-metadata-version': '1',
  };
  if (items.length === 1) {
    headers['aeg-data-version'] = first.event.dataVersion;
    headers['aeg-output-event-id'] = first.event.id;
  }
  return {
    url: subscription.destination.endpointUrl,
    headers,
    body: `[${items.map((item) => JSON.stringify(item.event)).join(',')}]`,
  };
}

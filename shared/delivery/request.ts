/**
 * The HTTP request for one delivery: a JSON array of events plus the service's headers. The
 * content type follows the subscription's delivery schema; Event Grid events going to a
 * CloudEvents subscription are converted here (`rules/convert.ts`).
 */
import type { DeliveryItem } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { eventInDeliverySchema } from './rules/convert';
import type { WebhookRequest } from './webhook-sender';

export const USER_AGENT = 'Gridwire/0.1';

/** CloudEvents subscriptions get their events as a batch (a JSON array), as the original sends them. */
export const CLOUD_EVENTS_BATCH_CONTENT_TYPE = 'application/cloudevents-batch+json; charset=utf-8';

/** Characters HTTP allows in a header value (RFC 9110 field-value: no controls but tab, Latin-1). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Longer values are left out of the headers: webhook servers cap the header block (8-16 KiB). */
export const MAX_ECHOED_HEADER_CHARS = 1024;

/**
 * Event ids and data versions are free text; one that cannot travel in a header (a line break,
 * characters beyond Latin-1, over 1 KiB) is left out of the headers. The body carries it unchanged.
 */
function setIfHeaderSafe(headers: Record<string, string>, name: string, value: string): void {
  if (value.length <= MAX_ECHOED_HEADER_CHARS && HEADER_VALUE.test(value)) headers[name] = value;
}

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
  const cloudEvents = subscription.eventDeliverySchema === 'CloudEventSchemaV1_0';
  const headers: Record<string, string> = {
    'content-type': cloudEvents ? CLOUD_EVENTS_BATCH_CONTENT_TYPE : 'application/json; charset=utf-8',
    'user-agent': USER_AGENT,
    'aeg-event-type': 'Notification',
    'aeg-subscription-name': subscription.name.toUpperCase(),
    'aeg-delivery-count': String(first.attempts),
    'aeg-metadata-version': '1',
  };
  if (items.length === 1) {
    // A CloudEvent has a data version only when it carries the `dataversion` extension.
    if (!cloudEvents || first.dataVersion !== '') {
      setIfHeaderSafe(headers, 'aeg-data-version', first.dataVersion);
    }
    setIfHeaderSafe(headers, 'aeg-output-event-id', first.eventId);
  }
  return {
    url: subscription.destination.endpointUrl,
    headers,
    // The events' own text (converted to CloudEvents for such subscriptions of an Event Grid
    // topic): nothing is parsed or re-serialized between publish and webhook.
    body: `[${items.map((item) => eventInDeliverySchema(subscription.eventDeliverySchema, item.eventJson)).join(',')}]`,
  };
}

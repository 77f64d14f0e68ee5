/**
 * What a publisher, a webhook or an operator's tool needs from Gridwire, without the constructs
 * or the local stack (`gridwire/client`): the typed client of the HTTP API, the shapes of the
 * events it publishes and receives, SAS tokens for publishing without sending a key, and the
 * answer a webhook gives to a subscription's validation handshake.
 */
import { VALIDATION_EVENT_TYPE } from '../delivery/rules/handshake';

export type { EventGridEvent } from '../domain/delivery';
export type { PublishedCloudEvent } from '../publish/cloud-events-schema';
export type { PublishedEvent } from '../publish/event-grid-schema';
export { createSasToken, formatSasExpiry, parseSasExpiry } from '../publish/sas';
export {
  type ApiClientOptions,
  type components,
  createApiClient,
  type GridwireApiClient,
  type operations,
  type paths,
} from './api';

/** The event type of the validation event Gridwire sends a new webhook subscription's endpoint. */
export { VALIDATION_EVENT_TYPE };

/**
 * The body a webhook answers (status 200, JSON) when a delivery is a subscription's validation
 * event, to agree to receive the subscription's events; `undefined` when the delivery is not one.
 * `body` is the delivery's parsed JSON (an array of Event Grid schema events).
 */
export function validationAnswer(body: unknown): { validationResponse: string } | undefined {
  if (!Array.isArray(body)) return undefined;
  for (const event of body as unknown[]) {
    if (typeof event !== 'object' || event === null) continue;
    const { eventType, data } = event as { eventType?: unknown; data?: { validationCode?: unknown } };
    if (eventType === VALIDATION_EVENT_TYPE && typeof data?.validationCode === 'string') {
      return { validationResponse: data.validationCode };
    }
  }
  return undefined;
}

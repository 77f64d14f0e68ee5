/**
 * The HTTP request for one delivery: a JSON array of events plus the service's and the
 * subscription's headers (`rules/headers.ts`). Events are in the subscription's delivery schema
 * (`rules/convert.ts`); the engine converts each once and hands the texts in.
 */
import type { DeliveryItem } from '../domain/delivery';
import { endpointIdOf, type Subscription } from '../domain/model';
import { batchPolicyOf, cutBatches, isBatching } from './rules/batching';
import { eventInDeliverySchema } from './rules/convert';
import { type CustomHeader, customHeaderValues, systemHeaders } from './rules/headers';
import type { WebhookRequest } from './webhook-sender';

/** One event of a request: its delivery state and its text as the subscription receives it. */
export interface OutgoingEvent {
  readonly item: DeliveryItem;
  readonly text: string;
}

/** The events of `items` in the subscription's delivery schema (each converted once). */
export const outgoingEvents = (subscription: Subscription, items: readonly DeliveryItem[]): OutgoingEvent[] =>
  items.map((item) => ({
    item,
    text: eventInDeliverySchema(subscription.eventDeliverySchema, item.eventJson),
  }));

/**
 * Builds the POST for a batch (one event unless the subscription batches): the events' own text,
 * nothing parsed or re-serialized between publish and webhook. `custom` are the subscription's
 * custom header values for this batch (the engine batches only events whose values agree).
 */
export function buildDeliveryRequest(
  subscription: Subscription,
  events: readonly OutgoingEvent[],
  custom: Readonly<Record<string, string>> = {},
  /** The whole endpoint URL, its sealed query string opened (the engine opens it once per version). */
  url: string = endpointIdOf(subscription.destination),
): WebhookRequest {
  return {
    url,
    headers: {
      ...custom,
      ...systemHeaders(
        subscription,
        events.map((event) => event.item),
      ),
    },
    body: `[${events.map((event) => event.text).join(',')}]`,
  };
}

/** One request's events and its custom header values. */
export interface OutgoingRequest {
  /** The whole endpoint URL. */
  readonly url: string;
  readonly events: readonly OutgoingEvent[];
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Cuts a job's events into requests by the subscription's batch policy. Events share a request
 * only when they have the same attempt count and custom header values, so every header is true
 * of every event in it.
 */
export function requestsOf(
  subscription: Subscription,
  events: readonly OutgoingEvent[],
  custom: readonly CustomHeader[],
  url: string,
): OutgoingRequest[] {
  const prepared = events.map((event) => ({
    url,
    events: [event],
    headers: custom.length === 0 ? {} : customHeaderValues(custom, event.text),
  }));
  const policy = batchPolicyOf(subscription.destination);
  if (!isBatching(policy)) return prepared;
  const batches = cutBatches(
    prepared,
    policy,
    (entry) => Buffer.byteLength(entry.events[0]?.text ?? ''),
    (entry) =>
      `${entry.events[0]?.item.attempts}\n${custom.length === 0 ? '' : JSON.stringify(entry.headers)}`,
  );
  return batches.map((batch) => ({
    url,
    events: batch.flatMap((entry) => entry.events),
    headers: batch[0]?.headers ?? {},
  }));
}

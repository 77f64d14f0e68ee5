/**
 * Which subscriptions receive an event. Event types match exactly, ignoring case; no list (or
 * `All`) matches every type.
 */
import type { EventGridEvent } from '../domain/delivery';
import type { SubscriptionFilter } from '../domain/model';

export function matchesFilter(filter: SubscriptionFilter, event: Pick<EventGridEvent, 'eventType'>): boolean {
  const types = filter.includedEventTypes;
  if (types === undefined) return true;
  const eventType = event.eventType.toLowerCase();
  return types.some((type) => type.toLowerCase() === eventType || type.toLowerCase() === 'all');
}

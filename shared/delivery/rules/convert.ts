/**
 * Delivery-time conversion of an event's text into the subscription's delivery schema. One event
 * is queued per subscription whatever its delivery schema (Event Grid and custom input in the Event
 * Grid form, CloudEvents as published); a subscription gets it converted here, as text: `data` is
 * spliced in or taken out exactly as published (never parsed and re-serialized), so big numbers
 * and every character stay as they are.
 */
import type { EventDeliverySchema } from '../../domain/model';
import { objectMembers } from '../../platform/json-text';

/**
 * An event's text in the delivery schema. Only Event Grid events (they have an `eventType`
 * member, which a CloudEvent cannot: its attribute names are lower case) are converted: to
 * CloudEvents, or, for the custom input schema, back to the object their publisher sent (the
 * queued form of a custom event carries it as `data`). A CloudEvent, or any event for an Event
 * Grid subscription, is returned unchanged.
 */
export function eventInDeliverySchema(schema: EventDeliverySchema, eventJson: string): string {
  switch (schema) {
    case 'CloudEventSchemaV1_0':
      return eventGridToCloudEvent(eventJson);
    case 'CustomInputSchema':
      return publishedCustomEvent(eventJson);
    case 'EventGridSchema':
      return eventJson;
  }
}

/**
 * The event as a dead-letter record holds it: as it was delivered, except that a custom-schema
 * event keeps its Event Grid form (the object its publisher sent as `data`), which is how the
 * original service writes such records and what a replay reads back.
 */
export const eventAsDeadLettered = (schema: EventDeliverySchema, eventJson: string): string =>
  eventInDeliverySchema(schema === 'CustomInputSchema' ? 'EventGridSchema' : schema, eventJson);

/**
 * The object a custom-schema event was published as: the `data` member of its queued Event Grid
 * form, as written. A text that is not an Event Grid event with data is returned unchanged.
 */
export function publishedCustomEvent(eventJson: string): string {
  const members = objectMembers(eventJson);
  if (!members.some((member) => member.name === 'eventType')) return eventJson;
  return members.findLast((member) => member.name === 'data')?.value ?? eventJson;
}

/**
 * An Event Grid event (as stamped at publish: `topic` is the topic's resource id) as a CloudEvent
 * 1.0 text, as the original maps it: `specversion` "1.0", `id`, `source` = `topic`, `type` =
 * `eventType`, `subject`, `time` = `eventTime`, `dataversion` = `dataVersion` (only when not
 * empty), `datacontenttype` "application/json", and `data` as written (left out when the event
 * has none). A text that is not an Event Grid event (no `eventType`) is returned unchanged.
 */
export function eventGridToCloudEvent(eventJson: string): string {
  // The last occurrence of a name wins, as it does for JSON.parse.
  const members = new Map(objectMembers(eventJson).map((member) => [member.name, member.value]));
  if (!members.has('eventType')) return eventJson;
  const text = (name: string): string | undefined => {
    const value = members.get(name);
    if (value === undefined) return undefined;
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'string' ? parsed : undefined;
  };
  const attributes: [string, string | undefined][] = [
    ['specversion', '1.0'],
    ['id', text('id')],
    ['source', text('topic')],
    ['type', text('eventType')],
    ['subject', text('subject')],
    ['time', text('eventTime')],
    ['dataversion', text('dataVersion') || undefined],
    ['datacontenttype', 'application/json'],
  ];
  const parts = attributes.flatMap(([name, value]) =>
    value === undefined ? [] : [`${JSON.stringify(name)}:${JSON.stringify(value)}`],
  );
  const data = members.get('data');
  if (data !== undefined) parts.push(`"data":${data}`);
  return `{${parts.join(',')}}`;
}

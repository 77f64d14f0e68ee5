/**
 * Input validation for events in the Event Grid schema, with errors that name the event index,
 * the field and the rule.
 */
import { z } from 'zod';
import type { EventGridEvent } from '../domain/delivery';
import { topicResourceId } from '../domain/names';
import { objectMembers } from '../platform/json-text';
import { firstIssue } from '../platform/zod-issues';
import type { PublishBody } from './body-reader';
import { checkEventCount, checkQueuedSize, isJsonObject, kindOf } from './limits';
import { invalidInput } from './rejection';

const nonEmptyString = (field: string) =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`),
    })
    .min(1, `${field} must not be empty`);

const eventSchema = z.looseObject({
  id: nonEmptyString('id'),
  subject: nonEmptyString('subject'),
  eventType: nonEmptyString('eventType'),
  eventTime: z
    .string({
      error: (issue) => (issue.input === undefined ? 'eventTime is required' : 'eventTime must be a string'),
    })
    .refine((value) => !Number.isNaN(Date.parse(value)), 'eventTime must be an ISO 8601 date-time'),
  dataVersion: z.string({ error: 'dataVersion must be a string' }).optional(),
  metadataVersion: z.literal('1', { error: 'metadataVersion must be "1" when present' }).optional(),
  topic: z.string({ error: 'topic must be a string' }).optional(),
});

/** A CloudEvent where an Event Grid event was expected: `specversion` and no `eventType`. */
const looksLikeCloudEvent = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && 'specversion' in value && !('eventType' in value);

/** An accepted event, in the two forms the pipeline needs. */
export interface PublishedEvent {
  /** Parsed, with the stamped fields: what filters and headers look at. */
  event: EventGridEvent;
  /**
   * The event as it will be delivered: the publisher's members with their values exactly as
   * written (numbers beyond double precision, `__proto__`, 1.50 stay as they are), `topic` and
   * `metadataVersion` stamped and `dataVersion` defaulted to "".
   */
  json: string;
  /** Bytes one delivery of it takes in a queued job (what the publish limits count). */
  queuedBytes: number;
}

/**
 * The delivered text of one event: its own members, values untouched, with the stamped fields:
 * `topic` and `metadataVersion` replaced where the event has them, and `topic`,
 * `metadataVersion` and `dataVersion` (empty) added where it has not. Written in one pass.
 */
function stampedJson(eventText: string, resourceId: string): string {
  const topic = JSON.stringify(resourceId);
  let text = '';
  let hasTopic = false;
  let hasMetadataVersion = false;
  let hasDataVersion = false;
  for (const { name, value } of objectMembers(eventText)) {
    let written = value;
    if (name === 'topic') {
      written = topic;
      hasTopic = true;
    } else if (name === 'metadataVersion') {
      written = '"1"';
      hasMetadataVersion = true;
    } else if (name === 'dataVersion') {
      hasDataVersion = true;
    }
    text += `${text === '' ? '' : ','}${JSON.stringify(name)}:${written}`;
  }
  if (!hasTopic) text += `${text === '' ? '' : ','}"topic":${topic}`;
  if (!hasMetadataVersion) text += ',"metadataVersion":"1"';
  if (!hasDataVersion) text += ',"dataVersion":""';
  return `{${text}}`;
}

/**
 * Validates a request body against the Event Grid schema and returns the events as they will be
 * delivered. Throws a `PublishRejection` (invalid input, or too large) naming the first problem
 * found.
 */
export function parseEventGridEvents(
  { value: body, elements }: PublishBody,
  topicName: string,
): PublishedEvent[] {
  if (!Array.isArray(body)) {
    throw invalidInput(
      looksLikeCloudEvent(body)
        ? 'This topic takes events in the EventGridSchema schema, and the request body looks like a CloudEvent (specversion); send a JSON array of Event Grid events, or publish CloudEvents to a topic created with inputSchema CloudEventSchemaV1_0.'
        : 'The request body must be a JSON array of events in the Event Grid schema.',
    );
  }
  checkEventCount(body.length);
  const resourceId = topicResourceId(topicName);
  const texts = elements ?? [];
  const events: PublishedEvent[] = [];
  body.forEach((candidate: unknown, index) => {
    if (!isJsonObject(candidate)) {
      throw invalidInput(`Event at index ${index} must be a JSON object (got ${kindOf(candidate)}).`);
    }
    if (looksLikeCloudEvent(candidate)) {
      throw invalidInput(
        `Event at index ${index}: eventType is required: this topic takes events in the EventGridSchema schema (id, subject, eventType, eventTime), and this one looks like a CloudEvent (specversion).`,
      );
    }
    const parsed = eventSchema.safeParse(candidate);
    if (!parsed.success) {
      throw invalidInput(`Event at index ${index}: ${firstIssue(parsed.error)?.message ?? 'invalid event'}.`);
    }
    const event = parsed.data;
    if (event.topic !== undefined && event.topic.toLowerCase() !== resourceId.toLowerCase()) {
      throw invalidInput(
        `Event at index ${index}: topic '${event.topic}' does not match this topic ('${resourceId}'); leave it out and the service fills it in.`,
      );
    }
    const json = stampedJson(texts[index] ?? JSON.stringify(candidate), resourceId);
    const queuedBytes = checkQueuedSize(index, {
      eventId: event.id,
      dataVersion: event.dataVersion ?? '',
      eventJson: json,
    });
    events.push({
      event: { ...event, topic: resourceId, dataVersion: event.dataVersion ?? '', metadataVersion: '1' },
      json,
      queuedBytes,
    });
  });
  return events;
}

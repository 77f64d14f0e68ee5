/**
 * Input validation for events in the Event Grid schema, with errors that name the event index,
 * the field and the rule.
 */
import { z } from 'zod';
import type { EventGridEvent } from '../domain/delivery';
import { topicResourceId } from '../domain/names';
import { badRequest, payloadTooLarge } from '../http/errors';
import { MAX_QUEUED_EVENT_BYTES, sqsSafeJson } from '../queue/job-codec';

/** Publish limits (the original service's numbers). */
export const PUBLISH_LIMITS = {
  /** The whole request body (1 MiB). */
  maxRequestBytes: 1_048_576,
  /**
   * One serialized event as queued: 1 MiB less the 2 KiB a delivery job keeps for its own fields,
   * so every accepted event fits one SQS message. Characters beyond U+FFFF are queued as escape
   * pairs and count 12 bytes each.
   */
  maxEventBytes: MAX_QUEUED_EVENT_BYTES,
  maxEventsPerRequest: 5000,
} as const;

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

/**
 * Validates a parsed request body against the Event Grid schema and returns the events as they
 * will be delivered: `topic` and `metadataVersion` stamped, `dataVersion` defaulted to "".
 * Throws an `ApiError` (400 or 413) naming the first problem found.
 */
export function parseEventGridEvents(body: unknown, topicName: string): EventGridEvent[] {
  if (!Array.isArray(body)) {
    throw badRequest('The request body must be a JSON array of events in the Event Grid schema.');
  }
  if (body.length > PUBLISH_LIMITS.maxEventsPerRequest) {
    throw badRequest(
      `The request holds ${body.length} events; at most ${PUBLISH_LIMITS.maxEventsPerRequest} are allowed per request.`,
      'TooManyEvents',
    );
  }
  const resourceId = topicResourceId(topicName);
  const events: EventGridEvent[] = [];
  body.forEach((candidate: unknown, index) => {
    if (candidate === null || typeof candidate !== 'object' || Array.isArray(candidate)) {
      throw badRequest(`Event at index ${index} must be a JSON object.`);
    }
    const parsed = eventSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw badRequest(`Event at index ${index}: ${issue?.message ?? 'invalid event'}.`);
    }
    const event = parsed.data;
    if (event.topic !== undefined && event.topic.toLowerCase() !== resourceId.toLowerCase()) {
      throw badRequest(
        `Event at index ${index}: topic '${event.topic}' does not match this topic ('${resourceId}'); leave it out and the service fills it in.`,
      );
    }
    const size = Buffer.byteLength(sqsSafeJson(JSON.stringify(candidate)), 'utf8');
    if (size > PUBLISH_LIMITS.maxEventBytes) {
      throw payloadTooLarge(
        `Event at index ${index} is ${size} bytes as queued; one event may be at most ${PUBLISH_LIMITS.maxEventBytes} bytes (characters beyond U+FFFF count 12 bytes each).`,
      );
    }
    events.push({ ...event, topic: resourceId, dataVersion: event.dataVersion ?? '', metadataVersion: '1' });
  });
  return events;
}

/**
 * Input validation for CloudEvents 1.0 (JSON format, structured and batched), with errors that
 * name the event index and the attribute. Accepted events are queued as their own text, unchanged:
 * the service stamps nothing on a CloudEvent.
 */

import type { PublishBody } from './body-reader';
import { checkEventCount, checkQueuedSize, isJsonObject, kindOf, PUBLISH_LIMITS } from './limits';
import { invalidInput } from './rejection';

/** Content types a CloudEvents topic takes, and how each carries events. */
export const CLOUD_EVENTS_CONTENT_TYPES = {
  /** One event, structured mode. */
  single: 'application/cloudevents+json',
  /** An array of events. */
  batch: 'application/cloudevents-batch+json',
} as const;

/** An accepted CloudEvent, in the forms the pipeline needs. */
export interface PublishedCloudEvent {
  /** The `id` attribute. */
  id: string;
  /** The `source` attribute (with `id`, what identifies the event). */
  source: string;
  /** The `type` attribute: what event type filters match. */
  type: string;
  /** The `dataversion` extension when it is a string, otherwise "" (no `aeg-data-version` header). */
  dataVersion: string;
  /** The event's JSON text exactly as published. */
  json: string;
  /** Bytes one delivery of it takes in a queued job (what the publish limits count). */
  queuedBytes: number;
  /** The `data` member, parsed; `undefined` when the event has none. */
  data?: unknown;
  /** It carries `data_base64` (binary data) instead. */
  binaryData?: boolean;
}

/** Extension attribute names: lower-case ASCII letters and digits, at most 20 characters. */
const ATTRIBUTE_NAME = /^[a-z0-9]{1,20}$/;
/** Members that are not attributes (the event's payload). */
const DATA_MEMBERS = new Set(['data', 'data_base64']);
const REQUIRED = ['id', 'source', 'type'] as const;
const OPTIONAL_STRINGS = ['subject', 'datacontenttype', 'dataschema'] as const;
/** Base64 as RFC 4648 writes it (padded), the encoding CloudEvents' `data_base64` uses. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** RFC 3339 `date-time`. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** Whether `value` is an RFC 3339 date-time with fields in range. */
export function isRfc3339(value: string): boolean {
  const match = RFC3339.exec(value);
  if (match === null) return false;
  const [, , month, day, hour, minute, second, offsetHour, offsetMinute] = match.map(Number);
  const inRange = (n: number | undefined, min: number, max: number) =>
    n === undefined || Number.isNaN(n) || (n >= min && n <= max);
  return (
    inRange(month, 1, 12) &&
    inRange(day, 1, 31) &&
    inRange(hour, 0, 23) &&
    inRange(minute, 0, 59) &&
    inRange(second, 0, 60) &&
    inRange(offsetHour, 0, 23) &&
    inRange(offsetMinute, 0, 59) &&
    !Number.isNaN(Date.parse(value.replace(/:60(?=[.Zz+-])/, ':59')))
  );
}

/**
 * Why one event is not a valid CloudEvent, naming the attribute; `undefined` when it is. The body
 * reader has refused repeated members, so the parsed event has every member of its text.
 */
function problemOf(candidate: unknown): string | undefined {
  if (!isJsonObject(candidate)) return `must be a JSON object (got ${kindOf(candidate)})`;
  const event = candidate as Record<string, unknown>;
  const names = Object.keys(event);
  if (event.specversion === undefined || event.specversion === null) {
    if (typeof event.eventType === 'string') {
      return 'specversion is required: this topic takes events in the CloudEventSchemaV1_0 schema (specversion, id, source, type), and this one looks like the EventGridSchema schema (eventType)';
    }
    return 'specversion is required';
  }
  if (event.specversion !== '1.0') {
    return `specversion must be "1.0" (got ${JSON.stringify(event.specversion)})`;
  }
  for (const attribute of REQUIRED) {
    const value = event[attribute];
    if (value === undefined || value === null) return `${attribute} is required`;
    if (typeof value !== 'string') return `${attribute} must be a string (got ${kindOf(value)})`;
    if (value === '') return `${attribute} must not be empty`;
  }
  for (const name of names) {
    if (DATA_MEMBERS.has(name)) continue;
    if (!ATTRIBUTE_NAME.test(name)) {
      return `attribute name '${name}' is invalid: attribute names are 1 to 20 lower-case letters (a-z) and digits (0-9)`;
    }
  }
  for (const attribute of OPTIONAL_STRINGS) {
    const value = event[attribute];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') return `${attribute} must be a string (got ${kindOf(value)})`;
    if (value === '') return `${attribute} must not be empty`;
  }
  if (event.time !== undefined && event.time !== null) {
    if (typeof event.time !== 'string') return `time must be a string (got ${kindOf(event.time)})`;
    if (!isRfc3339(event.time))
      return `time must be an RFC 3339 date-time (got ${JSON.stringify(event.time)})`;
  }
  for (const name of names) {
    if (DATA_MEMBERS.has(name) || (REQUIRED as readonly string[]).includes(name)) continue;
    const value = event[name];
    if (value !== null && typeof value === 'object') {
      return `attribute '${name}' must be a string, number or boolean (got ${kindOf(value)})`;
    }
  }
  const hasData = event.data !== undefined && event.data !== null;
  const base64 = event.data_base64;
  if (base64 !== undefined && base64 !== null) {
    if (hasData) return 'data and data_base64 must not both be present';
    if (typeof base64 !== 'string') return `data_base64 must be a string (got ${kindOf(base64)})`;
    if (!BASE64.test(base64)) return 'data_base64 must be base64-encoded (RFC 4648, padded)';
  }
  return undefined;
}

/**
 * Validates the events of a request to a CloudEvents topic and returns them as they will be
 * delivered: each event's own text. `batch` says whether the body is an array of events
 * (`application/cloudevents-batch+json`, `application/json`) or one event
 * (`application/cloudevents+json`). Throws a `PublishRejection` (invalid input, or too large)
 * naming the first problem.
 */
export function parseCloudEvents(
  { value: body, text, elements }: PublishBody,
  batch: boolean,
  maxEvents: number = PUBLISH_LIMITS.maxEventsPerRequest,
): PublishedCloudEvent[] {
  if (batch && !Array.isArray(body)) {
    throw invalidInput(
      'The request body must be a JSON array of CloudEvents; send one event as application/cloudevents+json.',
    );
  }
  if (!batch && Array.isArray(body)) {
    throw invalidInput(
      'The request body is an array, but application/cloudevents+json carries one event; send an array as application/cloudevents-batch+json.',
    );
  }
  const candidates: unknown[] = batch ? (body as unknown[]) : [body];
  checkEventCount(candidates.length, maxEvents);
  const texts = batch ? (elements ?? []) : [text.trim()];
  return candidates.map((candidate, index) => {
    const json = texts[index] ?? JSON.stringify(candidate);
    const problem = problemOf(candidate);
    if (problem !== undefined) throw invalidInput(`Event at index ${index}: ${problem}.`);
    const event = candidate as Record<string, unknown>;
    const id = event.id as string;
    const dataVersion = typeof event.dataversion === 'string' ? event.dataversion : '';
    const queuedBytes = checkQueuedSize(index, { eventId: id, dataVersion, eventJson: json });
    const binary = event.data_base64 !== undefined && event.data_base64 !== null;
    return {
      id,
      source: event.source as string,
      type: event.type as string,
      dataVersion,
      json,
      queuedBytes,
      ...(event.data === undefined ? {} : { data: event.data }),
      ...(binary ? { binaryData: true } : {}),
    };
  });
}

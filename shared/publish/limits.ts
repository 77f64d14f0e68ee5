/**
 * The publish limits every input schema shares (the original service's numbers), and the checks
 * that apply them with errors naming the limit and, for one event, its index.
 */
import { MAX_JSON_DEPTH } from '../http/api-gateway';
import { MAX_QUEUED_EVENT_BYTES, queuedItemBytes } from '../queue/job-codec';
import { invalidInput, tooLarge } from './rejection';

export const PUBLISH_LIMITS = {
  /** The whole request body (1 MiB). */
  maxRequestBytes: 1_048_576,
  /**
   * One serialized event as queued: 1 MiB less the 2 KiB a delivery job keeps for its own fields,
   * so every accepted event fits one SQS message, also with its delivery state and when it ends.
   * The event's text travels as a JSON string, so a double quote or backslash counts 2 bytes and a
   * character beyond U+FFFF (queued as an escape pair) 12; its id and dataVersion also travel
   * beside it, so they count twice.
   */
  maxEventBytes: MAX_QUEUED_EVENT_BYTES,
  maxEventsPerRequest: 5000,
  /** Levels of arrays and objects a request body (in binary mode: its JSON data) may nest. */
  maxJsonDepth: MAX_JSON_DEPTH,
  /**
   * Deliveries one request may queue: its events times the subscriptions each matches. Bounds the
   * work (and the SQS traffic) one anonymous-looking request can cause: 5,000 events may go to 20
   * subscriptions each, 1,000 to 100.
   */
  maxDeliveriesPerRequest: 100_000,
  /** Bytes one request may queue across all its deliveries (each event counted once per match). */
  maxFanOutBytes: 64 * 1_048_576,
} as const;

/** Refuses a request whose fan-out is larger than one request may cause (too large). */
export function checkFanOut(deliveries: number, bytes: number): void {
  const { maxDeliveriesPerRequest, maxFanOutBytes } = PUBLISH_LIMITS;
  if (deliveries > maxDeliveriesPerRequest || bytes > maxFanOutBytes) {
    throw tooLarge(
      `The request would queue ${deliveries} deliveries (${bytes} bytes as queued: each event once per matching subscription); one request may queue at most ${maxDeliveriesPerRequest} deliveries and ${maxFanOutBytes} bytes. Send fewer events per request.`,
      'TooManyDeliveries',
    );
  }
}

/** Refuses a request body larger than the one-request limit (too large). */
export function checkRequestSize(bytes: number): void {
  if (bytes > PUBLISH_LIMITS.maxRequestBytes) {
    throw tooLarge(
      `The request body is ${bytes} bytes; the limit is ${PUBLISH_LIMITS.maxRequestBytes} bytes.`,
    );
  }
}

/** Refuses a request with no events or more than the limit (invalid input). */
export function checkEventCount(count: number, max: number = PUBLISH_LIMITS.maxEventsPerRequest): void {
  if (count === 0) {
    throw invalidInput('The request holds no events: send at least one.', 'NoEvents');
  }
  if (count > max) {
    throw invalidInput(
      `The request holds ${count} events; at most ${max} are allowed per request.`,
      'TooManyEvents',
    );
  }
}

/** Refuses an event whose queued form exceeds the one-event limit (too large, naming its index). */
export function checkQueuedSize(
  index: number,
  item: { eventId: string; dataVersion: string; eventJson: string },
): number {
  const size = queuedItemBytes(item);
  if (size > PUBLISH_LIMITS.maxEventBytes) {
    throw tooLarge(
      `Event at index ${index} is ${size} bytes as queued; one event may be at most ${PUBLISH_LIMITS.maxEventBytes} bytes (a double quote or backslash counts 2 bytes, a character beyond U+FFFF 12, and the id and dataVersion count twice).`,
    );
  }
  return size;
}

/** "a string", "an array", "null": what a JSON value is, for error messages. */
export const kindOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`;

/** Whether a parsed JSON value is an object (not an array, not null). */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A blob's records read as JSON text, and what a record says (its reason, its topic, its event as
 * a new delivery). Pure: records stay the text stored, nothing is parsed and written again.
 */
import {
  type DeadLetterFormat,
  eventOfRecord,
  reasonNameOf,
  reasonOfStated,
  recordsHoldCloudEvents,
} from '../../delivery/rules/dead-letter-layout';
import type { DeliveryItem } from '../../domain/delivery';
import type { DeadLetterReason } from '../../domain/model';
import { topicResourceId } from '../../domain/names';
import { ApiError } from '../../http/errors';
import { arrayElements, objectMembers, stringMember } from '../../platform/json-text';

const unprocessable = (message: string) => new ApiError(422, 'UnprocessableEntity', message);

/** A blob's records as JSON texts; 422 if the blob is not a JSON array of objects. */
export function blobRecords(key: string, text: string): string[] {
  let parsed: unknown;
  try {
    // Parsed only to check it: the records are taken from the text.
    parsed = JSON.parse(text);
  } catch {
    throw unprocessable(`The blob '${key}' is not JSON; it cannot be shown or replayed.`);
  }
  if (
    !Array.isArray(parsed) ||
    parsed.some((record) => typeof record !== 'object' || record === null || Array.isArray(record))
  ) {
    throw unprocessable(`The blob '${key}' is not a JSON array of records; it cannot be shown or replayed.`);
  }
  return arrayElements(text);
}

/**
 * The dead-letter reason a record states (field names by format; namespace records state it as a
 * sentence, older ones as the name), if it states one Gridwire writes.
 */
export function recordReason(format: DeadLetterFormat, recordJson: string): DeadLetterReason | undefined {
  if (format === 'namespace') {
    const properties = objectMembers(recordJson).find((member) => member.name === 'deadLetterProperties');
    return properties === undefined
      ? undefined
      : reasonOfStated(stringMember(properties.value, reasonNameOf(format)));
  }
  return reasonOfStated(stringMember(recordJson, reasonNameOf(format)));
}

/**
 * The topic resource id a record's event carries (its `topic` member; for namespace records, the
 * event's), if any.
 */
export function recordTopic(format: DeadLetterFormat, recordJson: string): string | undefined {
  return stringMember(format === 'namespace' ? eventOfRecord(format, recordJson) : recordJson, 'topic');
}

/**
 * Whether a record's event was published to `topic` (a topic name). Keys carry no topic, so two
 * topics' subscriptions of the same name writing to one container share a prefix; a record
 * without a topic belongs to none. A CloudEvent names its publisher's `source`, not the topic, so
 * a CloudEvents record can't be told apart this way: every one under the subscription's prefix
 * counts as its own. A namespace key names the namespace topic itself, so every namespace record
 * under the prefix is the topic's.
 */
export const recordOfTopic = (format: DeadLetterFormat, recordJson: string, topic: string): boolean =>
  recordsHoldCloudEvents(format) ||
  recordTopic(format, recordJson)?.toLowerCase() === topicResourceId(topic).toLowerCase();

/** The records a reason filter selects (all of them without one). */
export const matchingRecords = (
  format: DeadLetterFormat,
  records: readonly string[],
  reasons: readonly DeadLetterReason[] | undefined,
): string[] =>
  reasons === undefined
    ? [...records]
    : records.filter((record) => (reasons as readonly unknown[]).includes(recordReason(format, record)));

/**
 * A record's event as a new delivery: its text without the dead-letter fields, its own `id`,
 * no attempts yet, published (for its time to live) `now`; with `resendOf` (the blob's key), marked
 * as a resend of it (the request's `gridwire-resend-of` header).
 */
export function replayItem(
  format: DeadLetterFormat,
  recordJson: string,
  deliveryId: string,
  now: number,
  where = 'the record',
  resendOf?: string,
): DeliveryItem {
  const eventJson = eventOfRecord(format, recordJson);
  const eventId = stringMember(eventJson, 'id');
  if (eventId === undefined) throw unprocessable(`${where} has no event id; it cannot be replayed.`);
  return {
    deliveryId,
    eventId,
    dataVersion:
      stringMember(eventJson, recordsHoldCloudEvents(format) ? 'dataversion' : 'dataVersion') ?? '',
    eventJson,
    attempts: 0,
    publishedAt: now,
    ...(resendOf === undefined ? {} : { resendOf }),
  };
}

/**
 * Input for topics with the custom input schema: any JSON objects, mapped to Event Grid events by
 * the topic's `inputSchemaMapping`. An accepted event is queued once, in the Event Grid form the
 * original delivers (`id`, `eventTime`, `eventType`, `dataVersion`, `metadataVersion`, `topic`,
 * `subject`, and the published object as `data`, its text untouched), so every delivery schema is
 * one step from it at delivery time: Event Grid as is, CloudEvents converted, and the custom input
 * schema by taking `data` back out.
 */
import type { InputSchemaMapping, MappedField, MappedFieldName } from '../domain/model';
import { topicResourceId } from '../domain/names';
import { type JsonMember, objectMembers, objectText } from '../platform/json-text';
import type { PublishBody } from './body-reader';
import { checkEventCount, checkQueuedSize, isJsonObject, kindOf } from './limits';
import { invalidInput } from './rejection';

/** An accepted custom event, in the forms the pipeline needs. */
export interface PublishedCustomEvent {
  id: string;
  /**
   * The id when the event carries it (in the member `id` is mapped from): what a topic's
   * de-duplication knows it by. An id from the mapping's default or generated is no one's.
   */
  ownId?: string;
  /** Mapped: what event type filters match. */
  eventType: string;
  dataVersion: string;
  /** The Event Grid form that is queued, with the published object as `data`. */
  json: string;
  /** Bytes one delivery of it takes in a queued job (what the publish limits count). */
  queuedBytes: number;
  /** The published object, parsed: the Event Grid form's `data`. */
  data: unknown;
}

export interface CustomEventContext {
  topicName: string;
  mapping: InputSchemaMapping;
  /** The event time of events whose mapping gives none (epoch ms). */
  publishedAt: number;
  /** An id for events whose mapping gives none. */
  newId: () => string;
}

/**
 * A mapped member's value as text: a string as itself, a number as written (big numbers keep
 * every digit). `undefined` when the member is absent, null or an empty string, so the default
 * (if any) applies. Other values are refused, naming the member and the field it maps to.
 */
function mappedValue(
  members: ReadonlyMap<string, string>,
  field: MappedField | undefined,
  name: MappedFieldName,
  index: number,
): string | undefined {
  const source = field?.sourceField;
  const raw = source === undefined ? undefined : members.get(source);
  if (raw === undefined || raw === 'null') return field?.defaultValue;
  const value: unknown = JSON.parse(raw);
  if (typeof value === 'string') return value === '' ? field?.defaultValue : value;
  if (typeof value === 'number') return raw;
  throw invalidInput(
    `Event at index ${index}: member '${source}' (mapped to ${name}) must be a string or a number (got ${kindOf(value)}).`,
  );
}

/** Why a mapped field has no value, for the rejection. */
const missing = (field: MappedField | undefined, name: MappedFieldName, index: number) =>
  invalidInput(
    `Event at index ${index}: ${name} has no value: member '${field?.sourceField}' is absent or empty and the topic's inputSchemaMapping gives no defaultValue for ${name}.`,
  );

/** One published object as the queued Event Grid form. */
function mapEvent(
  eventText: string,
  index: number,
  context: CustomEventContext,
): Omit<PublishedCustomEvent, 'data'> {
  const { mapping } = context;
  // Names are unique: the body reader refuses a repeated one.
  const members = new Map(objectMembers(eventText).map((member) => [member.name, member.value]));
  const value = (name: MappedFieldName) => mappedValue(members, mapping[name], name, index);

  const resourceId = topicResourceId(context.topicName);
  const topic = value('topic');
  if (topic !== undefined && topic.toLowerCase() !== resourceId.toLowerCase()) {
    throw invalidInput(
      `Event at index ${index}: member '${mapping.topic?.sourceField}' (mapped to topic) is '${topic}', which is not this topic ('${resourceId}'); leave it out and the service fills it in.`,
    );
  }
  const eventTime = value('eventTime');
  if (eventTime !== undefined && Number.isNaN(Date.parse(eventTime))) {
    throw invalidInput(
      `Event at index ${index}: member '${mapping.eventTime?.sourceField}' (mapped to eventTime) must be an ISO 8601 date-time (got ${JSON.stringify(eventTime)}).`,
    );
  }
  const eventType = value('eventType');
  if (eventType === undefined) throw missing(mapping.eventType, 'eventType', index);
  const subject = value('subject');
  if (subject === undefined) throw missing(mapping.subject, 'subject', index);
  const idSource = mapping.id?.sourceField;
  const ownId =
    idSource === undefined ? undefined : mappedValue(members, { sourceField: idSource }, 'id', index);
  const id = ownId ?? value('id') ?? context.newId();
  const dataVersion = value('dataVersion') ?? '';

  const fields: JsonMember[] = [
    { name: 'id', value: JSON.stringify(id) },
    { name: 'eventTime', value: JSON.stringify(eventTime ?? new Date(context.publishedAt).toISOString()) },
    { name: 'eventType', value: JSON.stringify(eventType) },
    { name: 'dataVersion', value: JSON.stringify(dataVersion) },
    { name: 'metadataVersion', value: '"1"' },
    { name: 'topic', value: JSON.stringify(resourceId) },
    { name: 'subject', value: JSON.stringify(subject) },
    { name: 'data', value: eventText },
  ];
  const json = objectText(fields);
  const queuedBytes = checkQueuedSize(index, { eventId: id, dataVersion, eventJson: json });
  return { id, ...(ownId === undefined ? {} : { ownId }), eventType, dataVersion, json, queuedBytes };
}

/**
 * Validates and maps the events of a request to a custom-schema topic: a JSON object (one event)
 * or an array of objects. Throws a `PublishRejection` (invalid input, or too large) naming the
 * first problem, so nothing of a refused request is queued.
 */
export function parseCustomEvents(
  { value: body, text, elements }: PublishBody,
  context: CustomEventContext,
): PublishedCustomEvent[] {
  const batch = Array.isArray(body);
  if (!batch && !isJsonObject(body)) {
    throw invalidInput(
      `The request body must be a JSON object (one event) or an array of JSON objects (got ${kindOf(body)}).`,
    );
  }
  const candidates: unknown[] = batch ? body : [body];
  checkEventCount(candidates.length);
  const texts = batch ? (elements ?? []) : [text.trim()];
  return candidates.map((candidate, index) => {
    if (!isJsonObject(candidate)) {
      throw invalidInput(`Event at index ${index} must be a JSON object (got ${kindOf(candidate)}).`);
    }
    return { ...mapEvent(texts[index] ?? JSON.stringify(candidate), index, context), data: candidate };
  });
}

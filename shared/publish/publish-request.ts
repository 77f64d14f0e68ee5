/**
 * A publish request and the events it carries: the request shapes (classic topic and namespace
 * topic), the content types each topic takes, and the body read and validated by the topic's
 * input schema into accepted events, all or nothing.
 */

import type { Topic } from '../domain/model';
import { readBinaryCloudEvent, readPublishBody } from './body-reader';
import { isBinaryCloudEvent } from './cloud-events-binary';
import { CLOUD_EVENTS_CONTENT_TYPES, parseCloudEvents } from './cloud-events-schema';
import { parseCustomEvents } from './custom-schema';
import { parseEventGridEvents } from './event-grid-schema';
import type { FilterView } from './filter';
import { invalidInput } from './rejection';

/**
 * How a publisher proves it may publish: a topic key, a shared access signature made with one, or
 * (on the IAM route) having been let in by the gateway.
 */
export type PublishCredential =
  /** The `aeg-sas-key` header or query value. */
  | { readonly kind: 'key'; readonly key: string }
  /** The `aeg-sas-token` header, or `Authorization: SharedAccessSignature <token>`. */
  | { readonly kind: 'sas'; readonly token: string }
  /**
   * The IAM publish route: the gateway already authorized the caller (IAM on AWS, the admin token
   * locally), so no key is checked. `caller` is the signer's ARN on AWS, `local` in the local stack.
   */
  | { readonly kind: 'iam'; readonly caller: string };

export interface PublishRequest {
  topic: string;
  credential: PublishCredential | undefined;
  /** The request's path (a SAS token must be for it). */
  path: string;
  body: Buffer;
  /** The request's `Content-Type` header, when it has one. */
  contentType?: string;
  /** The request's W3C `traceparent` header, when it has one (its deliveries continue the trace). */
  traceparent?: string;
}

/** A publish request to a namespace topic. */
export interface NamespacePublishRequest {
  namespace: string;
  topic: string;
  /** From `Authorization: SharedAccessKey <key>`. */
  key: string | undefined;
  body: Buffer;
  /** Every request header, lower-case names (binary mode carries the event's attributes in `ce-*` headers). */
  headers: Readonly<Record<string, string | undefined>>;
}

/** Namespace topics take fewer events per request than classic topics (the original's limit). */
export const NAMESPACE_PUBLISH_LIMITS = { maxEventsPerRequest: 1000 } as const;

/**
 * The CloudEvents of a namespace publish request: binary mode when it carries `ce-specversion`,
 * else structured (`application/cloudevents+json`, one event) or batch
 * (`application/cloudevents-batch+json`), validated by the same rules as on classic topics.
 */
export function parseNamespaceEvents(request: NamespacePublishRequest) {
  if (isBinaryCloudEvent(request.headers)) {
    return parseCloudEvents(readBinaryCloudEvent(request.headers, request.body), false);
  }
  const type = mediaType(request.headers['content-type']);
  if (type !== CLOUD_EVENTS_CONTENT_TYPES.single && type !== CLOUD_EVENTS_CONTENT_TYPES.batch) {
    throw invalidInput(
      `Content-Type '${type ?? ''}' is not accepted: a namespace topic takes CloudEvents as ${CLOUD_EVENTS_CONTENT_TYPES.single} (one event), ${CLOUD_EVENTS_CONTENT_TYPES.batch} (an array), or in binary mode (ce-* headers).`,
      'InvalidContentType',
    );
  }
  return parseCloudEvents(
    readPublishBody(request.body),
    type === CLOUD_EVENTS_CONTENT_TYPES.batch,
    NAMESPACE_PUBLISH_LIMITS.maxEventsPerRequest,
  );
}

/** An accepted event, whatever its schema: what fan-out, filters and headers need. */
export interface AcceptedEvent {
  eventId: string;
  /**
   * What a topic's de-duplication knows the event by: Event Grid `id`; CloudEvents `source` and
   * `id`; a custom event's own id. `undefined` (never a repeat) for a custom event whose id the
   * mapping supplied.
   */
  identity: string | undefined;
  /** Event Grid `eventType`, CloudEvents `type`. */
  eventType: string;
  dataVersion: string;
  /** The text that is queued and delivered. */
  json: string;
  /** Bytes one delivery of it takes in a queued job (counted by the publish limits). */
  queuedBytes: number;
  /** What filters read; the event is parsed only when a filter needs it, and then once. */
  view: FilterView;
  /**
   * Its data as parsed from the request (what a topic's event catalog checks): Event Grid and
   * CloudEvents `data`, a custom-schema event's whole published object; `undefined` when none.
   */
  data: unknown;
  /** It carries binary data instead (a CloudEvent's `data_base64`). */
  binaryData?: boolean;
}

/** A view whose parsed event is `JSON.parse(json)`, made on first use. */
function lazyView(
  eventType: string,
  eventTypeKey: FilterView['eventTypeKey'],
  json: string,
  subjectOf: (event: unknown) => string | undefined,
): FilterView {
  let parsed: { event: unknown } | undefined;
  const event = () => {
    parsed ??= { event: JSON.parse(json) as unknown };
    return parsed.event;
  };
  return {
    eventType,
    eventTypeKey,
    event,
    get subject() {
      return subjectOf(event());
    },
  };
}

/**
 * What filters read of an event kept in a topic's archive (its JSON as sent): a CloudEvent's
 * `type`, else an Event Grid event's `eventType`.
 */
export function archivedEventView(json: string): FilterView {
  const event = JSON.parse(json) as { specversion?: unknown; type?: unknown; eventType?: unknown } | null;
  const cloud = typeof event === 'object' && event !== null && Object.hasOwn(event, 'specversion');
  const type = cloud ? event?.type : event?.eventType;
  return lazyView(typeof type === 'string' ? type : '', cloud ? 'type' : 'eventType', json, subjectMember);
}

const subjectMember = (event: unknown): string | undefined => {
  const subject =
    typeof event === 'object' && event !== null && Object.hasOwn(event, 'subject')
      ? (event as { subject: unknown }).subject
      : undefined;
  return typeof subject === 'string' ? subject : undefined;
};

/** An accepted CloudEvent (classic or namespace topic) as fan-out sees it. */
export const cloudEvent = (event: {
  id: string;
  source: string;
  type: string;
  dataVersion: string;
  json: string;
  queuedBytes: number;
  data?: unknown;
  binaryData?: boolean;
}): AcceptedEvent => ({
  eventId: event.id,
  // Both members, unambiguously: CloudEvents ids are unique per source.
  identity: JSON.stringify([event.source, event.id]),
  eventType: event.type,
  dataVersion: event.dataVersion,
  json: event.json,
  queuedBytes: event.queuedBytes,
  view: lazyView(event.type, 'type', event.json, subjectMember),
  data: event.data,
  ...(event.binaryData === true ? { binaryData: true } : {}),
});

/** The media type of a `Content-Type` value, lower-cased, without parameters. */
const mediaType = (contentType: string | undefined): string | undefined =>
  contentType?.split(';')[0]?.trim().toLowerCase() || undefined;

const CLOUD_EVENTS_TYPES: readonly string[] = Object.values(CLOUD_EVENTS_CONTENT_TYPES);

/**
 * Media types an Event Grid or custom-schema topic reads as JSON. Like the original, these topics
 * do not insist on `application/json`: `curl -d` sends `application/x-www-form-urlencoded`, and
 * the original's own examples publish that way. A type naming another format is refused.
 */
const JSON_BODY_TYPES: readonly string[] = [
  'application/json',
  'text/json',
  'text/plain',
  'application/x-www-form-urlencoded',
];

/** Refuses a `Content-Type` the topic's schema cannot take, saying what it takes. */
function checkContentType(topic: Topic, type: string | undefined): void {
  if (type === undefined) return;
  if (topic.inputSchema === 'CloudEventSchemaV1_0') {
    if (type === 'application/json' || CLOUD_EVENTS_TYPES.includes(type)) return;
    throw invalidInput(
      `Content-Type '${type}' is not accepted: topic '${topic.name}' takes CloudEvents (CloudEventSchemaV1_0) as ${CLOUD_EVENTS_CONTENT_TYPES.single} (one event), ${CLOUD_EVENTS_CONTENT_TYPES.batch} or application/json (an array of events).`,
      'InvalidContentType',
    );
  }
  if (CLOUD_EVENTS_TYPES.includes(type)) {
    throw invalidInput(
      `Content-Type '${type}' carries CloudEvents, but topic '${topic.name}' takes events in the ${topic.inputSchema} schema: send JSON as application/json, or publish CloudEvents to a topic created with inputSchema CloudEventSchemaV1_0.`,
      'InvalidContentType',
    );
  }
  if (!JSON_BODY_TYPES.includes(type) && !type.endsWith('+json')) {
    throw invalidInput(
      `Content-Type '${type}' is not accepted: topic '${topic.name}' takes a JSON body (send it as application/json).`,
      'InvalidContentType',
    );
  }
}

/**
 * Reads and validates the request body by the topic's input schema and its content type. All or
 * nothing: the first problem refuses the whole request (a `PublishRejection` naming the event and
 * field).
 */
export function parseEvents(
  topic: Topic,
  request: PublishRequest,
  context: { publishedAt: number; newId: () => string },
): AcceptedEvent[] {
  const type = mediaType(request.contentType);
  checkContentType(topic, type);
  const body = readPublishBody(request.body);
  switch (topic.inputSchema) {
    case 'CloudEventSchemaV1_0': {
      const batch = type !== CLOUD_EVENTS_CONTENT_TYPES.single;
      return parseCloudEvents(body, batch).map(cloudEvent);
    }
    case 'CustomEventSchema':
      if (topic.inputSchemaMapping === undefined) {
        // A guard: the management API never creates such a topic.
        throw invalidInput(`Topic '${topic.name}' has the custom input schema but no inputSchemaMapping.`);
      }
      return parseCustomEvents(body, {
        topicName: topic.name,
        mapping: topic.inputSchemaMapping,
        ...context,
      }).map((event) => ({
        eventId: event.id,
        identity: event.ownId,
        eventType: event.eventType,
        dataVersion: event.dataVersion,
        json: event.json,
        queuedBytes: event.queuedBytes,
        view: lazyView(event.eventType, 'eventType', event.json, subjectMember),
        data: event.data,
      }));
    case 'EventGridSchema':
      return parseEventGridEvents(body, topic.name).map(({ event, json, queuedBytes }) => ({
        eventId: event.id,
        identity: event.id,
        eventType: event.eventType,
        dataVersion: event.dataVersion,
        json,
        queuedBytes,
        view: {
          eventType: event.eventType,
          eventTypeKey: 'eventType',
          subject: event.subject,
          event: () => event,
        },
        data: event.data,
      }));
  }
}

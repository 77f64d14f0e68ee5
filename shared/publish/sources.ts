/**
 * Events already in AWS brought into a topic without an HTTP hop: SQS queues a topic takes its
 * events from (each message an event, or an array of them, in the topic's schema), and EventBridge
 * buses (a rule on the bus sends the matching events to a queue of the stack's, each message one
 * EventBridge event, converted here to the topic's schema). The publish function consumes those
 * queues and publishes what they hold as a publish request would be, by the same rules and limits:
 * an event the publish API would refuse is refused with the same reason, logged and counted, and
 * its message stays in its queue (reported as a batch item failure) until the queue's redrive
 * policy moves it to the source's own dead-letter queue. Nothing is dropped silently.
 */
import { z } from 'zod';
import type { SourceDefinition } from '../config/sources';

export type { SourceDefinition, SourceFormat } from '../config/sources';

import type { Topic } from '../domain/model';
import { ApiError } from '../http/errors';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer } from '../observability/metrics';
import { CLOUD_EVENTS_CONTENT_TYPES } from './cloud-events-schema';
import type { PublishRequest } from './publish-request';
import { PublishRejection } from './rejection';

/** An EventBridge event as a rule's target receives it (the members conversion reads). */
const eventBridgeEventSchema = z.object({
  id: z.string({ error: 'is required and must be a string' }).min(1, { error: 'must not be empty' }),
  'detail-type': z
    .string({ error: 'is required and must be a string' })
    .min(1, { error: 'must not be empty' }),
  source: z.string({ error: 'is required and must be a string' }).min(1, { error: 'must not be empty' }),
  time: z.string({ error: 'is required and must be a string' }),
  resources: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
  detail: z.unknown(),
});
export type EventBridgeEvent = z.infer<typeof eventBridgeEventSchema> & Record<string, unknown>;

/**
 * An EventBridge event in a topic's input schema:
 * - Event Grid: `id` its id, `eventType` its `detail-type`, `subject` its `source` and, when it
 *   names resources, `/` and the first one, `eventTime` its `time`, `data` its `detail`,
 *   `dataVersion` `1`;
 * - CloudEvents: `id`, `type` (`detail-type`), `source`, `subject` (the first resource, if any),
 *   `time`, `data` (`detail`, as JSON);
 * - custom: the event as it is, for the topic's input mapping to read (`detail-type`, `detail`...).
 */
export function fromEventBridge(
  event: EventBridgeEvent,
  schema: Topic['inputSchema'],
): Record<string, unknown> {
  const resource = event.resources?.[0];
  switch (schema) {
    case 'EventGridSchema':
      return {
        id: event.id,
        eventType: event['detail-type'],
        subject: resource === undefined ? event.source : `${event.source}/${resource}`,
        eventTime: event.time,
        data: event.detail ?? null,
        dataVersion: '1',
      };
    case 'CloudEventSchemaV1_0':
      return {
        specversion: '1.0',
        id: event.id,
        type: event['detail-type'],
        source: event.source,
        ...(resource === undefined ? {} : { subject: resource }),
        time: event.time,
        datacontenttype: 'application/json',
        data: event.detail ?? null,
      };
    case 'CustomEventSchema':
      return event;
  }
}

/** A source message that can't be read as what its source holds; `reason` says why. */
export class SourceMessageError extends Error {
  override readonly name = 'SourceMessageError';
}

/**
 * The events a source message holds for `topic`: one event or an array, in the topic's schema,
 * or EventBridge events converted to it. A `SourceMessageError` says why a message can't be read.
 */
export function sourceEventsOf(
  body: string,
  source: Pick<SourceDefinition, 'format'>,
  schema: Topic['inputSchema'],
): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new SourceMessageError(`the message body is not JSON (${(error as Error).message})`);
  }
  const list = Array.isArray(value) ? value : [value];
  if (source.format !== 'eventBridge') return list;
  return list.map((item, index) => {
    const parsed = eventBridgeEventSchema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = list.length > 1 ? `event ${index}: ` : '';
      throw new SourceMessageError(
        `${where}the message is not an EventBridge event: ${issue?.path.join('.') || 'the event'} ${issue?.message ?? 'is malformed'}`,
      );
    }
    return fromEventBridge(item as EventBridgeEvent, schema);
  });
}

/**
 * The publish request of `events` for `topic`, as a caller the stack trusts (the IAM route's, its
 * path the one that route would have), with the content type that says they are an array.
 */
export function sourceRequestOf(
  events: readonly unknown[],
  source: Pick<SourceDefinition, 'name'>,
  topic: Pick<Topic, 'name' | 'inputSchema'>,
): PublishRequest {
  return {
    topic: topic.name,
    credential: { kind: 'iam', caller: `source:${source.name}` },
    path: `/iam/topics/${topic.name}/api/events`,
    body: Buffer.from(JSON.stringify(events)),
    contentType:
      topic.inputSchema === 'CloudEventSchemaV1_0' ? CLOUD_EVENTS_CONTENT_TYPES.batch : 'application/json',
  };
}

/** The publish request one source message makes for `topic`. */
export const sourcePublishRequest = (
  body: string,
  source: SourceDefinition,
  topic: Pick<Topic, 'name' | 'inputSchema'>,
): PublishRequest => sourceRequestOf(sourceEventsOf(body, source, topic.inputSchema), source, topic);

/** An SQS record as a source reads it. */
export interface SourceRecord {
  messageId: string;
  body: string;
  eventSourceARN: string;
}

/** What became of a source message. */
export type SourceOutcome =
  | { readonly kind: 'published'; readonly events: number }
  /** The publish rules (or the message's own shape) refused it: it stays in its queue until its DLQ takes it. */
  | { readonly kind: 'refused'; readonly reason: string }
  /** A dependency failed: it is received again after its visibility timeout. */
  | { readonly kind: 'failed'; readonly reason: string };

export interface SourceIngestDeps {
  sources: readonly SourceDefinition[];
  /** The topic a source publishes to, as stored (its schema); `undefined` when it does not exist (yet). */
  topicOf(name: string): Promise<Pick<Topic, 'name' | 'inputSchema'> | undefined>;
  publish(request: PublishRequest): Promise<{ accepted: number }>;
  metrics: MetricBuffer;
  logger: LoggerLike;
}

/**
 * Publishes the messages of a batch to their sources' topics and says what became of each (in
 * order): published, refused (the publish rules' reason, logged and counted as
 * `SourceRefusedCount`), or failed (a dependency; retried). The readable messages of one source
 * are published together, as one publish request (one queued message for their deliveries rather
 * than one per message); should the topic refuse that request, each is published alone, so only
 * the messages at fault are refused. A message from a queue no source names is refused (the event
 * source mapping and the configuration disagree).
 */
export async function ingestSourceMessages(
  records: readonly SourceRecord[],
  deps: SourceIngestDeps,
): Promise<SourceOutcome[]> {
  const byQueue = new Map(deps.sources.map((source) => [source.queueArn, source]));
  const outcomes: SourceOutcome[] = [];
  const groups = new Map<SourceDefinition, number[]>();
  records.forEach((record, index) => {
    const source = byQueue.get(record.eventSourceARN);
    if (source === undefined) {
      outcomes[index] = refused(
        deps,
        undefined,
        record,
        `no source of this stack reads the queue ${record.eventSourceARN}`,
      );
      return;
    }
    groups.set(source, [...(groups.get(source) ?? []), index]);
  });
  await Promise.all(
    [...groups].map(async ([source, indexes]) => {
      const results = await ingestGroup(
        source,
        indexes.map((index) => records[index] as SourceRecord),
        deps,
      );
      results.forEach((result, position) => {
        outcomes[indexes[position] as number] = result;
      });
    }),
  );
  return outcomes;
}

/** The messages of one source: read, published together, alone when together is refused. */
async function ingestGroup(
  source: SourceDefinition,
  records: readonly SourceRecord[],
  deps: SourceIngestDeps,
): Promise<SourceOutcome[]> {
  let topic: Pick<Topic, 'name' | 'inputSchema'> | undefined;
  try {
    topic = await deps.topicOf(source.topic);
  } catch (error) {
    return records.map((record) => failed(deps, source, record, error));
  }
  if (topic === undefined) {
    return records.map((record) =>
      refused(deps, source, record, `the topic '${source.topic}' does not exist`),
    );
  }
  const known = topic;
  const outcomes: SourceOutcome[] = [];
  const readable: { position: number; record: SourceRecord; events: unknown[] }[] = [];
  records.forEach((record, position) => {
    try {
      readable.push({ position, record, events: sourceEventsOf(record.body, source, known.inputSchema) });
    } catch (error) {
      outcomes[position] = refused(deps, source, record, (error as Error).message);
    }
  });
  const alone = async (entry: (typeof readable)[number]) => {
    outcomes[entry.position] = await publishAlone(entry.record, entry.events, source, known, deps);
  };
  if (readable.length === 1) {
    await alone(readable[0] as (typeof readable)[number]);
    return outcomes;
  }
  if (readable.length > 1) {
    try {
      const result = await deps.publish(
        sourceRequestOf(
          readable.flatMap((entry) => entry.events),
          source,
          known,
        ),
      );
      deps.metrics.count(METRIC.SourceEventCount, result.accepted, { Source: source.name });
      for (const entry of readable)
        outcomes[entry.position] = { kind: 'published', events: entry.events.length };
    } catch (error) {
      if (!isRefusal(error)) {
        for (const entry of readable) outcomes[entry.position] = failed(deps, source, entry.record, error);
        return outcomes;
      }
      // Refused together: each alone, so only the messages at fault are refused.
      await Promise.all(readable.map(alone));
    }
  }
  return outcomes;
}

/** One message published alone. */
async function publishAlone(
  record: SourceRecord,
  events: readonly unknown[],
  source: SourceDefinition,
  topic: Pick<Topic, 'name' | 'inputSchema'>,
  deps: SourceIngestDeps,
): Promise<SourceOutcome> {
  try {
    const result = await deps.publish(sourceRequestOf(events, source, topic));
    deps.metrics.count(METRIC.SourceEventCount, result.accepted, { Source: source.name });
    return { kind: 'published', events: result.accepted };
  } catch (error) {
    return isRefusal(error)
      ? refused(deps, source, record, (error as Error).message)
      : failed(deps, source, record, error);
  }
}

/** Whether the publish rules refused (the message is at fault), rather than a dependency failing. */
const isRefusal = (error: unknown): boolean =>
  error instanceof SourceMessageError ||
  error instanceof PublishRejection ||
  (error instanceof ApiError && error.statusCode < 500);

function failed(
  deps: SourceIngestDeps,
  source: SourceDefinition,
  record: SourceRecord,
  error: unknown,
): SourceOutcome {
  deps.logger.warn('a source message could not be published; it is received again', {
    source: source.name,
    topic: source.topic,
    messageId: record.messageId,
    error: (error as Error).message,
  });
  return { kind: 'failed', reason: (error as Error).message };
}

function refused(
  deps: SourceIngestDeps,
  source: SourceDefinition | undefined,
  record: SourceRecord,
  reason: string,
): SourceOutcome {
  deps.metrics.count(METRIC.SourceRefusedCount, 1, source === undefined ? {} : { Source: source.name });
  deps.logger.warn(
    'a source message was refused; it stays in its queue until its dead-letter queue takes it',
    {
      ...(source === undefined
        ? { queue: record.eventSourceARN }
        : { source: source.name, topic: source.topic }),
      messageId: record.messageId,
      reason,
    },
  );
  return { kind: 'refused', reason };
}

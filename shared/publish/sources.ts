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
 * The publish request a source message makes for `topic`: its body as the topic's schema takes it
 * (one event or an array; an EventBridge event converted), with the content type that says which.
 */
export function sourcePublishRequest(
  body: string,
  source: SourceDefinition,
  topic: Pick<Topic, 'name' | 'inputSchema'>,
): PublishRequest {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new SourceMessageError(`the message body is not JSON (${(error as Error).message})`);
  }
  let events: unknown[];
  if (source.format === 'eventBridge') {
    const list = Array.isArray(value) ? value : [value];
    events = list.map((item, index) => {
      const parsed = eventBridgeEventSchema.safeParse(item);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = list.length > 1 ? `event ${index}: ` : '';
        throw new SourceMessageError(
          `${where}the message is not an EventBridge event: ${issue?.path.join('.') || 'the event'} ${issue?.message ?? 'is malformed'}`,
        );
      }
      return fromEventBridge(item as EventBridgeEvent, topic.inputSchema);
    });
  } else {
    events = Array.isArray(value) ? value : [value];
  }
  return {
    topic: topic.name,
    // A caller the stack trusts, as the IAM route's (the path is the one that route would have).
    credential: { kind: 'iam', caller: `source:${source.name}` },
    path: `/iam/topics/${topic.name}/api/events`,
    body: Buffer.from(JSON.stringify(events)),
    contentType:
      topic.inputSchema === 'CloudEventSchemaV1_0' ? CLOUD_EVENTS_CONTENT_TYPES.batch : 'application/json',
  };
}

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
 * Publishes each source message to its source's topic, the messages at once, and says what became
 * of each (in order): published, refused (the publish rules' reason, logged and counted as
 * `SourceRefusedCount`), or failed (a dependency; retried). A message from a queue no source names
 * is refused (the event source mapping and the configuration disagree).
 */
export async function ingestSourceMessages(
  records: readonly SourceRecord[],
  deps: SourceIngestDeps,
): Promise<SourceOutcome[]> {
  const byQueue = new Map(deps.sources.map((source) => [source.queueArn, source]));
  return Promise.all(
    records.map(async (record): Promise<SourceOutcome> => {
      const source = byQueue.get(record.eventSourceARN);
      if (source === undefined) {
        return refused(
          deps,
          undefined,
          record,
          `no source of this stack reads the queue ${record.eventSourceARN}`,
        );
      }
      try {
        const topic = await deps.topicOf(source.topic);
        if (topic === undefined)
          return refused(deps, source, record, `the topic '${source.topic}' does not exist`);
        const result = await deps.publish(sourcePublishRequest(record.body, source, topic));
        deps.metrics.count(METRIC.SourceEventCount, result.accepted, { Source: source.name });
        return { kind: 'published', events: result.accepted };
      } catch (error) {
        if (
          error instanceof SourceMessageError ||
          error instanceof PublishRejection ||
          (error instanceof ApiError && error.statusCode < 500)
        ) {
          return refused(deps, source, record, (error as Error).message);
        }
        deps.logger.warn('a source message could not be published; it is received again', {
          source: source.name,
          topic: source.topic,
          messageId: record.messageId,
          error: (error as Error).message,
        });
        return { kind: 'failed', reason: (error as Error).message };
      }
    }),
  );
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

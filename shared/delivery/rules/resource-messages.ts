/**
 * What an AWS resource destination receives for an event, as pure rules: an SQS or SNS batch
 * entry, an EventBridge entry, a Kinesis record, a Lambda payload. Each message is one event as
 * the subscription receives it; its custom delivery attributes set the message's own fields
 * (`MESSAGE_FIELDS`: a FIFO group id, an SNS subject, an entry's source, a record's partition
 * key...) or travel as message attributes. `resource-sender.ts` makes the calls.
 */
import { createHash } from 'node:crypto';
import { valueAtPath } from './headers';
import { messageFieldsOf, type ResourceRef } from './resource-destinations';

/** One message to a resource: an event as delivered. */
export interface ResourceMessage {
  /** The event's delivery id (a FIFO destination's deduplication id comes from it). */
  readonly deliveryId: string;
  readonly body: string;
  /** Custom delivery attributes: fields of the message, or message attributes. */
  readonly attributes: Readonly<Record<string, string>>;
  /** What a FIFO destination groups the message by, and a stream keys it by (the event's subject). */
  readonly groupId?: string;
}

/** The `Source` of the entries Gridwire puts on an event bus (rules match on it). */
export const EVENTBRIDGE_SOURCE = 'gridwire';

/** A field of an event's text by a dotted path, as text (a string, number or boolean). */
const fieldOf = (body: string, path: string): string | undefined => valueAtPath(body, path.split('.'));

/** The event's subject as published (`undefined` when it has none, or an empty one). */
export const subjectOf = (eventJson: string): string | undefined =>
  fieldOf(eventJson, 'subject') || undefined;

const attributesOf = (attributes: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
  );

/** A FIFO destination's deduplication id (at most 128 characters): the delivery id's hash. */
const deduplicationIdOf = (deliveryId: string) =>
  createHash('sha256').update(deliveryId, 'utf8').digest('hex');
/** A FIFO group or deduplication id: letters, digits and punctuation, at most 128 characters. */
const fifoIdOf = (value: string | undefined, fallback: string) =>
  (value ?? fallback).replace(/[^\x21-\x7e]/g, '_').slice(0, 128) || fallback;
/** An SNS subject: printable ASCII, under 100 characters, beginning with neither a space nor nothing. */
const subjectFieldOf = (value: string) =>
  value
    .replace(/[^\x20-\x7e]/g, ' ')
    .trim()
    .slice(0, 99);

/**
 * What an SQS or SNS batch entry holds beside its body (the same fields in both APIs): its id in
 * the call, the message attributes, a FIFO destination's group id (the attribute
 * `MessageGroupId`, else the event's subject, else the queue or topic) and deduplication id (the
 * attribute `MessageDeduplicationId`, else the delivery id's hash, so a retry within five minutes
 * is not a second message), and an SNS subject.
 */
function queueEntryOf(
  message: ResourceMessage,
  index: number,
  ref: ResourceRef,
  type: 'AwsSqsQueue' | 'AwsSnsTopic',
) {
  const { fields, attributes } = messageFieldsOf(type, message.attributes);
  const subject = fields.Subject === undefined ? '' : subjectFieldOf(fields.Subject);
  return {
    Id: String(index),
    ...(Object.keys(attributes).length === 0 ? {} : { MessageAttributes: attributesOf(attributes) }),
    ...(ref.fifo
      ? {
          MessageGroupId: fifoIdOf(fields.MessageGroupId ?? message.groupId, ref.name),
          MessageDeduplicationId: fifoIdOf(
            fields.MessageDeduplicationId,
            deduplicationIdOf(message.deliveryId),
          ),
        }
      : {}),
    ...(subject === '' ? {} : { Subject: subject }),
  };
}

/** An SQS `SendMessageBatch` entry, the `index`th of its call. */
export const sqsEntryOf = (message: ResourceMessage, index: number, ref: ResourceRef) => ({
  MessageBody: message.body,
  ...queueEntryOf(message, index, ref, 'AwsSqsQueue'),
});

/** An SNS `PublishBatch` entry, the `index`th of its call. */
export const snsEntryOf = (message: ResourceMessage, index: number, ref: ResourceRef) => ({
  Message: message.body,
  ...queueEntryOf(message, index, ref, 'AwsSnsTopic'),
});

/** An EventBridge entry's detail type: the event's type (Event Grid `eventType`, CloudEvents `type`). */
const eventTypeOf = (body: string): string =>
  (fieldOf(body, 'eventType') ?? fieldOf(body, 'type') ?? 'Gridwire.Event').slice(0, 128);

/**
 * An EventBridge `PutEvents` entry: the event as its detail, `Source` `gridwire` and the event's
 * type as its detail type unless attributes of those names say otherwise; `Resources` (a
 * comma-separated list) and `TraceHeader` from attributes of those names.
 */
export function eventBridgeEntryOf(message: ResourceMessage, busArn: string) {
  const { fields } = messageFieldsOf('AwsEventBridgeBus', message.attributes);
  const resources = (fields.Resources ?? '')
    .split(',')
    .map((arn) => arn.trim())
    .filter((arn) => arn !== '');
  return {
    EventBusName: busArn,
    Source: (fields.Source || EVENTBRIDGE_SOURCE).slice(0, 256),
    DetailType: (fields.DetailType || eventTypeOf(message.body)).slice(0, 128),
    Detail: message.body,
    ...(resources.length === 0 ? {} : { Resources: resources }),
    ...(fields.TraceHeader ? { TraceHeader: fields.TraceHeader.slice(0, 500) } : {}),
  };
}

/**
 * A Kinesis `PutRecords` record: the event as its data; its partition key (1 to 256 characters)
 * the attribute `PartitionKey`, else the field the subscription names, else the event's subject,
 * else its delivery id; its explicit hash key the attribute of that name.
 */
export function kinesisRecordOf(message: ResourceMessage, partitionKeyField: string | undefined) {
  const { fields } = messageFieldsOf('AwsKinesisStream', message.attributes);
  const key =
    (fields.PartitionKey || undefined) ??
    (partitionKeyField === undefined ? undefined : fieldOf(message.body, partitionKeyField)) ??
    message.groupId ??
    message.deliveryId;
  return {
    Data: Buffer.from(message.body, 'utf8'),
    PartitionKey: key === '' ? message.deliveryId.slice(0, 256) : key.slice(0, 256),
    ...(fields.ExplicitHashKey ? { ExplicitHashKey: fields.ExplicitHashKey } : {}),
  };
}

/** A Lambda invocation's payload: the batch's events as a JSON array. */
export const lambdaPayloadOf = (messages: readonly ResourceMessage[]): Uint8Array =>
  Buffer.from(`[${messages.map((message) => message.body).join(',')}]`, 'utf8');

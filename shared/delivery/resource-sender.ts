/**
 * Delivery to AWS resources: a call of the service's own batch API per group of messages the
 * engine cuts (`rules/resource-destinations.ts`), each message one event as the subscription
 * receives it, its custom delivery attributes as message attributes. Each message gets its own
 * result: a batch call can succeed for some entries and fail for others, and a failed call fails
 * every entry. Errors are judged by `rules/resource-errors.ts`.
 *
 * - SQS (`SendMessageBatch`): the queue's URL is asked once per ARN; a FIFO queue's messages
 *   carry a group id (the event's subject, else the subscription) and the delivery id, hashed, as
 *   the deduplication id, so a retry within five minutes is not a second message.
 * - SNS (`PublishBatch`): the same, to the topic's ARN.
 * - EventBridge (`PutEvents`): an entry per event, `Source` `gridwire`, the event's type as
 *   `DetailType`, the event as `Detail`.
 * - Lambda (`Invoke`): the batch in one invocation, as a JSON array; asynchronous unless the
 *   subscription asks for a synchronous one, whose function error fails the batch.
 * - Kinesis (`PutRecords`): a record per event, its partition key the event's subject or a field
 *   the subscription names.
 *
 * Attributes named after a field of the service's message set that field instead
 * (`MESSAGE_FIELDS`: a FIFO group id, an SNS subject, an entry's source, a record's partition
 * key...). A destination with a role to assume is sent to with that role's credentials.
 */
import { createHash } from 'node:crypto';
import { GetQueueUrlCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AttemptResult } from '../domain/attempts';
import type { ResourceDestination } from '../domain/model';
import type { Clock } from '../platform/clock';
import type { ResourceClients } from '../platform/resource-clients';
import { resourceSdks } from '../platform/resource-sdks';
import { valueAtPath } from './rules/headers';
import { messageFieldsOf, parseResourceArn, type ResourceRef } from './rules/resource-destinations';
import { resourceErrorRuleOf } from './rules/resource-errors';

/** One message to a resource: an event as delivered. */
export interface ResourceMessage {
  /** The event's delivery id (a FIFO destination's deduplication id comes from it). */
  readonly deliveryId: string;
  readonly body: string;
  /** Custom delivery attributes, as message attributes. */
  readonly attributes: Readonly<Record<string, string>>;
  /** What a FIFO destination groups the message by (the event's subject). */
  readonly groupId?: string;
}

export interface ResourceSender {
  /** One call of the service's API: a result per message, in order. */
  send(destination: ResourceDestination, messages: readonly ResourceMessage[]): Promise<AttemptResult[]>;
}

/** A failed send as a result: the service error's rule (its outcome), the error's name as its code. */
export function resourceFailure(code: string, message: string, durationMs: number): AttemptResult {
  return {
    delivered: false,
    outcome: resourceErrorRuleOf(code).outcome,
    errorCode: code,
    durationMs,
    error: `${code}: ${message}`,
  };
}

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
 * the call, the message attributes, and a FIFO destination's group and deduplication ids (the
 * attributes `MessageGroupId` and `MessageDeduplicationId` where given), and an SNS subject.
 */
const batchEntryOf = (
  message: ResourceMessage,
  index: number,
  ref: ResourceRef,
  type: 'AwsSqsQueue' | 'AwsSnsTopic',
) => {
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
};

/** The `Source` of the entries Gridwire puts on an event bus (rules match on it). */
export const EVENTBRIDGE_SOURCE = 'gridwire';

/** A field of the event text by a dotted path, as text (a string, number or boolean). */
const fieldOf = (body: string, path: string): string | undefined => valueAtPath(body, path.split('.'));

/** An EventBridge entry's detail type: the event's type (Event Grid `eventType`, CloudEvents `type`). */
const eventTypeOf = (body: string): string =>
  (fieldOf(body, 'eventType') ?? fieldOf(body, 'type') ?? 'Gridwire.Event').slice(0, 128);

/**
 * A Kinesis record's partition key (1 to 256 characters): the field the subscription names, else
 * the event's subject, else its delivery id.
 */
const partitionKeyOf = (message: ResourceMessage, field: string | undefined, given?: string): string => {
  const key =
    given ??
    (field === undefined ? undefined : fieldOf(message.body, field)) ??
    message.groupId ??
    message.deliveryId;
  return key === '' ? message.deliveryId.slice(0, 256) : key.slice(0, 256);
};

export class AwsResourceSender implements ResourceSender {
  private readonly queueUrls = new Map<string, Promise<string>>();

  constructor(private readonly deps: { clients: ResourceClients; clock: Clock }) {}

  async send(
    destination: ResourceDestination,
    messages: readonly ResourceMessage[],
  ): Promise<AttemptResult[]> {
    const started = this.deps.clock.now();
    const ref = parseResourceArn(destination.endpointType, destination.resourceArn);
    if ('problem' in ref) {
      return messages.map(() => resourceFailure('InvalidParameterValue', ref.problem, 0));
    }
    try {
      switch (destination.endpointType) {
        case 'AwsSqsQueue':
          return await this.sendSqs(destination, ref, messages, started);
        case 'AwsSnsTopic':
          return await this.sendSns(destination, ref, messages, started);
        case 'AwsEventBridgeBus':
          return await this.sendEventBridge(destination, ref, messages, started);
        case 'AwsLambdaFunction':
          return await this.invokeLambda(destination, ref, messages, started);
        case 'AwsKinesisStream':
          return await this.sendKinesis(destination, ref, messages, started);
      }
    } catch (error) {
      const failed = error as { name?: string; Code?: string; message?: string };
      const code = failed.Code ?? failed.name ?? 'Error';
      const result = resourceFailure(code, failed.message ?? String(error), this.deps.clock.now() - started);
      return messages.map(() => result);
    }
  }

  private async sendSqs(
    destination: ResourceDestination,
    ref: ResourceRef,
    messages: readonly ResourceMessage[],
    started: number,
  ): Promise<AttemptResult[]> {
    const client = this.deps.clients.sqs(ref.region, destination.roleArn);
    const queueUrl = await this.queueUrlOf(client, destination.resourceArn, ref);
    const answer = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((message, index) => ({
          MessageBody: message.body,
          ...batchEntryOf(message, index, ref, 'AwsSqsQueue'),
        })),
      }),
    );
    return this.entryResults(messages, answer.Failed ?? [], started);
  }

  private async sendSns(
    destination: ResourceDestination,
    ref: ResourceRef,
    messages: readonly ResourceMessage[],
    started: number,
  ): Promise<AttemptResult[]> {
    const answer = await this.deps.clients.sns(ref.region, destination.roleArn).send(
      new (resourceSdks.sns().PublishBatchCommand)({
        TopicArn: destination.resourceArn,
        PublishBatchRequestEntries: messages.map((message, index) => ({
          Message: message.body,
          ...batchEntryOf(message, index, ref, 'AwsSnsTopic'),
        })),
      }),
    );
    return this.entryResults(messages, answer.Failed ?? [], started);
  }

  private client<C>(
    make: ((region: string, role?: string) => C) | undefined,
    type: string,
    ref: ResourceRef,
    destination: ResourceDestination,
  ): C {
    if (make === undefined) {
      throw Object.assign(new Error(`this stack cannot reach ${type} destinations`), {
        name: 'ServiceUnavailable',
      });
    }
    return make(ref.region, destination.roleArn);
  }

  /** EventBridge `PutEvents`: an entry per event, its type the detail type, the event the detail. */
  private async sendEventBridge(
    destination: ResourceDestination,
    ref: ResourceRef,
    messages: readonly ResourceMessage[],
    started: number,
  ): Promise<AttemptResult[]> {
    const { clients } = this.deps;
    const answer = await this.client(clients.eventBridge, 'EventBridge', ref, destination).send(
      new (resourceSdks.eventBridge().PutEventsCommand)({
        Entries: messages.map((message) => {
          const { fields } = messageFieldsOf('AwsEventBridgeBus', message.attributes);
          const resources = (fields.Resources ?? '')
            .split(',')
            .map((arn) => arn.trim())
            .filter((arn) => arn !== '');
          return {
            EventBusName: destination.resourceArn,
            Source: (fields.Source || EVENTBRIDGE_SOURCE).slice(0, 256),
            DetailType: (fields.DetailType || eventTypeOf(message.body)).slice(0, 128),
            Detail: message.body,
            ...(resources.length === 0 ? {} : { Resources: resources }),
            ...(fields.TraceHeader ? { TraceHeader: fields.TraceHeader.slice(0, 500) } : {}),
          };
        }),
      }),
    );
    return this.positionalResults(messages, answer.Entries, started);
  }

  /**
   * Lambda `Invoke`: the batch as a JSON array, asynchronously (`Event`) unless the subscription
   * asks for `RequestResponse`, when a function error fails the whole batch.
   */
  private async invokeLambda(
    destination: ResourceDestination,
    ref: ResourceRef,
    messages: readonly ResourceMessage[],
    started: number,
  ): Promise<AttemptResult[]> {
    const { clients } = this.deps;
    const answer = await this.client(clients.lambda, 'Lambda', ref, destination).send(
      new (resourceSdks.lambda().InvokeCommand)({
        FunctionName: destination.resourceArn,
        InvocationType: destination.invocationType ?? 'Event',
        Payload: Buffer.from(`[${messages.map((message) => message.body).join(',')}]`, 'utf8'),
      }),
    );
    const durationMs = this.deps.clock.now() - started;
    const result: AttemptResult =
      answer.FunctionError === undefined
        ? { delivered: true, durationMs }
        : resourceFailure('FunctionError', `the function failed (${answer.FunctionError})`, durationMs);
    return messages.map(() => result);
  }

  /** Kinesis `PutRecords`: a record per event, keyed by its subject (or the field the subscription names). */
  private async sendKinesis(
    destination: ResourceDestination,
    ref: ResourceRef,
    messages: readonly ResourceMessage[],
    started: number,
  ): Promise<AttemptResult[]> {
    const { clients } = this.deps;
    const answer = await this.client(clients.kinesis, 'Kinesis', ref, destination).send(
      new (resourceSdks.kinesis().PutRecordsCommand)({
        StreamARN: destination.resourceArn,
        Records: messages.map((message) => {
          const { fields } = messageFieldsOf('AwsKinesisStream', message.attributes);
          return {
            Data: Buffer.from(message.body, 'utf8'),
            PartitionKey: partitionKeyOf(
              message,
              destination.partitionKeyField,
              fields.PartitionKey || undefined,
            ),
            ...(fields.ExplicitHashKey ? { ExplicitHashKey: fields.ExplicitHashKey } : {}),
          };
        }),
      }),
    );
    return this.positionalResults(messages, answer.Records, started);
  }

  /**
   * A result per message from an answer whose entries stand in the messages' order (EventBridge's
   * entries, Kinesis's records): delivered unless its entry names an error code.
   */
  private positionalResults(
    messages: readonly ResourceMessage[],
    entries: ReadonlyArray<{ ErrorCode?: string | undefined; ErrorMessage?: string | undefined }> | undefined,
    started: number,
  ): AttemptResult[] {
    const durationMs = this.deps.clock.now() - started;
    const delivered: AttemptResult = { delivered: true, durationMs };
    return messages.map((_, index) => {
      const entry = entries?.[index];
      return entry?.ErrorCode === undefined
        ? delivered
        : resourceFailure(entry.ErrorCode, entry.ErrorMessage ?? 'the entry was not put', durationMs);
    });
  }

  /** A result per message: delivered unless its entry is among the failed ones. */
  private entryResults(
    messages: readonly ResourceMessage[],
    failed: ReadonlyArray<{
      Id?: string | undefined;
      Code?: string | undefined;
      Message?: string | undefined;
    }>,
    started: number,
  ): AttemptResult[] {
    const durationMs = this.deps.clock.now() - started;
    const delivered: AttemptResult = { delivered: true, durationMs };
    const failures = new Map(failed.map((entry) => [entry.Id, entry]));
    return messages.map((_, index) => {
      const entry = failures.get(String(index));
      return entry === undefined
        ? delivered
        : resourceFailure(entry.Code ?? 'Error', entry.Message ?? 'the entry was not sent', durationMs);
    });
  }

  /** The queue's URL, asked once per ARN (a failed ask is asked again next time). */
  private queueUrlOf(client: SQSClient, arn: string, ref: ResourceRef): Promise<string> {
    let url = this.queueUrls.get(arn);
    if (url === undefined) {
      url = client
        .send(new GetQueueUrlCommand({ QueueName: ref.name, QueueOwnerAWSAccountId: ref.account }))
        .then(({ QueueUrl }) => {
          if (QueueUrl === undefined)
            throw Object.assign(new Error(`no URL for ${arn}`), { name: 'QueueDoesNotExist' });
          return QueueUrl;
        });
      this.queueUrls.set(arn, url);
      url.catch(() => this.queueUrls.delete(arn));
    }
    return url;
  }
}

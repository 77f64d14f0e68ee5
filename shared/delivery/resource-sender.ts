/**
 * Delivery to AWS resources: a call of the service's own batch API per group of messages the
 * engine cuts (`rules/resource-destinations.ts`), each message one event as the service's own
 * message (`rules/resource-messages.ts`). Each message gets its own result: a batch call can
 * succeed for some entries and fail for others, and a failed call fails every entry. Errors are
 * judged by `rules/resource-errors.ts`.
 *
 * - SQS (`SendMessageBatch`): the queue's URL is asked once per ARN.
 * - SNS (`PublishBatch`), EventBridge (`PutEvents`), Kinesis (`PutRecords`): to the ARN.
 * - Lambda (`Invoke`): the batch in one invocation; asynchronous unless the subscription asks
 *   for a synchronous one, whose function error fails the batch.
 *
 * A destination with a role to assume is sent to with that role's credentials.
 */
import { GetQueueUrlCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AttemptResult } from '../domain/attempts';
import type { ResourceDestination } from '../domain/model';
import { LoadedOnce } from '../platform/cache';
import type { Clock } from '../platform/clock';
import type { ResourceClients } from '../platform/resource-clients';
import { resourceSdks } from '../platform/resource-sdks';
import { parseResourceArn, type ResourceRef } from './rules/resource-destinations';
import { resourceErrorRuleOf } from './rules/resource-errors';
import {
  eventBridgeEntryOf,
  kinesisRecordOf,
  lambdaPayloadOf,
  type ResourceMessage,
  snsEntryOf,
  sqsEntryOf,
} from './rules/resource-messages';

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

/** A service's clients, or a failure retried as a service that is down where this stack has none. */
function reachable<C>(
  make: ((region: string, role?: string, externalId?: string) => C) | undefined,
  service: string,
): (region: string, role?: string, externalId?: string) => C {
  if (make !== undefined) return make;
  throw Object.assign(new Error(`this stack cannot reach ${service} destinations`), {
    name: 'ServiceUnavailable',
  });
}

export class AwsResourceSender implements ResourceSender {
  private readonly queueUrls = new LoadedOnce<string>();

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
      return await this.call(destination, ref, messages, started);
    } catch (error) {
      const failed = error as { name?: string; Code?: string; message?: string };
      const code = failed.Code ?? failed.name ?? 'Error';
      const result = resourceFailure(code, failed.message ?? String(error), this.deps.clock.now() - started);
      return messages.map(() => result);
    }
  }

  /** The service's call for the messages, with the clients of the destination's region and role. */
  private async call(
    destination: ResourceDestination,
    ref: ResourceRef,
    messages: readonly ResourceMessage[],
    started: number,
  ): Promise<AttemptResult[]> {
    const { clients } = this.deps;
    const { resourceArn, roleArn, externalId } = destination;
    switch (destination.endpointType) {
      case 'AwsSqsQueue': {
        const client = clients.sqs(ref.region, roleArn, externalId);
        const answer = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: await this.queueUrlOf(client, resourceArn, ref),
            Entries: messages.map((message, index) => sqsEntryOf(message, index, ref)),
          }),
        );
        return this.entryResults(messages, answer.Failed ?? [], started);
      }
      case 'AwsSnsTopic': {
        const answer = await clients.sns(ref.region, roleArn, externalId).send(
          new (resourceSdks.sns().PublishBatchCommand)({
            TopicArn: resourceArn,
            PublishBatchRequestEntries: messages.map((message, index) => snsEntryOf(message, index, ref)),
          }),
        );
        return this.entryResults(messages, answer.Failed ?? [], started);
      }
      case 'AwsEventBridgeBus': {
        const answer = await reachable(clients.eventBridge, 'EventBridge')(
          ref.region,
          roleArn,
          externalId,
        ).send(
          new (resourceSdks.eventBridge().PutEventsCommand)({
            Entries: messages.map((message) => eventBridgeEntryOf(message, resourceArn)),
          }),
        );
        return this.positionalResults(messages, answer.Entries, started);
      }
      case 'AwsLambdaFunction': {
        // Asynchronous unless the subscription asks for RequestResponse: a function error then fails the batch.
        const answer = await reachable(clients.lambda, 'Lambda')(ref.region, roleArn, externalId).send(
          new (resourceSdks.lambda().InvokeCommand)({
            FunctionName: resourceArn,
            InvocationType: destination.invocationType ?? 'Event',
            Payload: lambdaPayloadOf(messages),
          }),
        );
        const durationMs = this.deps.clock.now() - started;
        const result: AttemptResult =
          answer.FunctionError === undefined
            ? { delivered: true, durationMs }
            : resourceFailure('FunctionError', `the function failed (${answer.FunctionError})`, durationMs);
        return messages.map(() => result);
      }
      case 'AwsKinesisStream': {
        const answer = await reachable(clients.kinesis, 'Kinesis')(ref.region, roleArn, externalId).send(
          new (resourceSdks.kinesis().PutRecordsCommand)({
            StreamARN: resourceArn,
            Records: messages.map((message) => kinesisRecordOf(message, destination.partitionKeyField)),
          }),
        );
        return this.positionalResults(messages, answer.Records, started);
      }
    }
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
    return this.queueUrls.get(arn, async () => {
      const { QueueUrl } = await client.send(
        new GetQueueUrlCommand({ QueueName: ref.name, QueueOwnerAWSAccountId: ref.account }),
      );
      if (QueueUrl === undefined) {
        throw Object.assign(new Error(`no URL for ${arn}`), { name: 'QueueDoesNotExist' });
      }
      return QueueUrl;
    });
  }
}

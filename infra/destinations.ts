/**
 * AWS resources as the destinations of subscriptions declared in code
 * (`addSubscription({ destination: Destination.sqs(queue) })`): each CDK object's type and ARN, its
 * settings, and how the delivery function is granted to send to it (its own permission on the
 * resource, or a role to assume in the resource's account).
 */
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { type IGrantable, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { ResourceEndpointType } from '../shared/domain/model';

/**
 * An AWS resource a declared subscription delivers to: its type and ARN, its settings, and how
 * the delivery function is granted to send to it. Made by {@link Destination}.
 */
export interface DeclaredDestination {
  readonly endpointType: ResourceEndpointType;
  readonly resourceArn: string;
  readonly properties?: Readonly<Record<string, unknown>>;
  /** A role in the resource's account the delivery function assumes to send to it. */
  readonly role?: IRole;
  grant(grantee: IGrantable): void;
}

/**
 * What every resource destination may take: a role to assume for a resource in another account.
 * The role must trust the delivery function's role (`pipeline.deliveryFunction.role`) and may
 * send to the resource; the delivery role is granted `sts:AssumeRole` on it, nothing on the
 * resource itself.
 */
export interface DestinationOptions {
  readonly role?: IRole;
  /**
   * Sent as `ExternalId` when the role is assumed: the value the role's trust policy asks for
   * (`sts:ExternalId`), 2 to 1224 characters, letters, digits and `_+=,.@:/-`. Not a secret: it
   * is stored and shown with the subscription. Only with `role`.
   */
  readonly externalId?: string;
}

/**
 * A destination of one of the CDK's resources: sent to with the delivery role's own permissions
 * (`grant`), or through the role to assume when one is given.
 */
function declaredDestination(
  endpointType: ResourceEndpointType,
  resourceArn: string,
  grant: (grantee: IGrantable) => void,
  options: DestinationOptions,
  properties: Readonly<Record<string, unknown>> = {},
): DeclaredDestination {
  const { role, externalId } = options;
  if (externalId !== undefined && role === undefined) {
    throw new Error('externalId: is sent when the role is assumed; give role too, or leave externalId out.');
  }
  const all = {
    ...properties,
    ...(role === undefined ? {} : { roleArn: role.roleArn }),
    ...(externalId === undefined ? {} : { externalId }),
  };
  return {
    endpointType,
    resourceArn,
    ...(Object.keys(all).length === 0 ? {} : { properties: all }),
    ...(role === undefined ? {} : { role }),
    grant:
      role === undefined
        ? grant
        : (grantee) => {
            grantee.grantPrincipal.addToPrincipalPolicy(
              new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [role.roleArn] }),
            );
          },
  };
}

/** AWS resources as declared subscriptions' destinations, from the CDK objects themselves. */
export const Destination = {
  /** An SQS queue: one message per event (KMS-encrypted queues: the key is granted too). */
  sqs: (queue: IQueue, options: DestinationOptions = {}): DeclaredDestination =>
    declaredDestination(
      'AwsSqsQueue',
      queue.queueArn,
      (grantee) => queue.grantSendMessages(grantee),
      options,
    ),
  /** An SNS topic: one message per event. */
  sns: (topic: ITopic, options: DestinationOptions = {}): DeclaredDestination =>
    declaredDestination('AwsSnsTopic', topic.topicArn, (grantee) => topic.grantPublish(grantee), options),
  /** An EventBridge bus: one entry per event (source `gridwire`, the event type as detail type). */
  eventBus: (bus: IEventBus, options: DestinationOptions = {}): DeclaredDestination =>
    declaredDestination(
      'AwsEventBridgeBus',
      bus.eventBusArn,
      (grantee) => bus.grantPutEventsTo(grantee),
      options,
    ),
  /** A Lambda function: one invocation per batch, asynchronous unless `RequestResponse`. */
  lambda: (
    fn: IFunction,
    options: DestinationOptions & { invocationType?: 'Event' | 'RequestResponse' } = {},
  ): DeclaredDestination =>
    declaredDestination(
      'AwsLambdaFunction',
      fn.functionArn,
      // The function's own ARN only (`grantInvoke` would add its versions, `:*`, as well).
      (grantee) =>
        grantee.grantPrincipal.addToPrincipalPolicy(
          new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }),
        ),
      options,
      options.invocationType === undefined ? {} : { invocationType: options.invocationType },
    ),
  /** A Kinesis stream: one record per event, keyed by the subject or `partitionKeyField`. */
  kinesis: (
    stream: IStream,
    options: DestinationOptions & { partitionKeyField?: string } = {},
  ): DeclaredDestination =>
    declaredDestination(
      'AwsKinesisStream',
      stream.streamArn,
      (grantee) => stream.grantWrite(grantee),
      options,
      options.partitionKeyField === undefined ? {} : { partitionKeyField: options.partitionKeyField },
    ),
};

/**
 * Clients of the AWS resources subscriptions deliver to (`shared/delivery/resource-sender.ts`),
 * apart from the stack's own clients so only the delivery function carries them: on AWS one per
 * service and region, made when first needed; locally the emulator's SQS and SNS, and the local
 * stack's registered functions for Lambda (there is no EventBridge or Kinesis emulator).
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { type InvokeCommand, type InvokeCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { ResourceEndpointType } from '../domain/model';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localSqsClient } from './aws';

/** The service clients of AWS resource destinations, by region. */
export interface ResourceClients {
  sqs(region: string): SQSClient;
  sns(region: string): SNSClient;
  /** Absent where there is no such service (the local stack emulates SQS and SNS only). */
  eventBridge?(region: string): EventBridgeClient;
  lambda?(region: string): LambdaInvoker;
  kinesis?(region: string): KinesisClient;
}

/** What invoking a function needs of a Lambda client (the local stack's functions are one too). */
export interface LambdaInvoker {
  send(command: InvokeCommand): Promise<Pick<InvokeCommandOutput, 'StatusCode' | 'FunctionError'>>;
}

/** A send to a resource times out as a webhook request does (30 s). */
const REQUEST_HANDLER = { connectionTimeout: 3_000, requestTimeout: 30_000 };

/** A client per region, made when first asked for. */
function perRegion<C>(make: (region: string) => C): (region: string) => C {
  const made = new Map<string, C>();
  return (region) => {
    let client = made.get(region);
    if (client === undefined) {
      client = make(region);
      made.set(region, client);
    }
    return client;
  };
}

/** One client, made when first asked for, whatever the region. */
function once<C>(make: () => C): () => C {
  let client: C | undefined;
  return () => {
    client ??= make();
    return client;
  };
}

/** The clients on AWS: the function's credentials, the resource's region. */
export const awsResourceClients = (): ResourceClients => ({
  sqs: perRegion((region) => new SQSClient({ region, requestHandler: REQUEST_HANDLER })),
  sns: perRegion((region) => new SNSClient({ region, requestHandler: REQUEST_HANDLER })),
  eventBridge: perRegion((region) => new EventBridgeClient({ region, requestHandler: REQUEST_HANDLER })),
  lambda: perRegion((region) => new LambdaClient({ region, requestHandler: REQUEST_HANDLER })),
  kinesis: perRegion((region) => new KinesisClient({ region, requestHandler: REQUEST_HANDLER })),
});

/**
 * The local stack's: the emulator serves SQS and SNS on one endpoint, whatever region a resource
 * names. Its queues as destinations have a client of their own, apart from the stack's queues'.
 */
export const localResourceClients = (endpoint: string, lambda?: LambdaInvoker): ResourceClients => ({
  ...(lambda === undefined ? {} : { lambda: () => lambda }),
  sqs: once(() => localSqsClient(endpoint)),
  sns: once(
    () =>
      new SNSClient({
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
        endpoint,
        requestHandler: REQUEST_HANDLER,
      }),
  ),
});

/** The destination types these clients reach. */
export function resourceTypesOf(clients: ResourceClients): ResourceEndpointType[] {
  return [
    'AwsSqsQueue',
    'AwsSnsTopic',
    ...(clients.eventBridge === undefined ? [] : (['AwsEventBridgeBus'] as const)),
    ...(clients.lambda === undefined ? [] : (['AwsLambdaFunction'] as const)),
    ...(clients.kinesis === undefined ? [] : (['AwsKinesisStream'] as const)),
  ];
}

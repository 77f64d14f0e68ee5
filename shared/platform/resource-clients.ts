/**
 * Clients of the AWS resources subscriptions deliver to (`shared/delivery/resource-sender.ts`),
 * apart from the stack's own clients so only the delivery function carries them: on AWS one per
 * service, region and role to assume, made when first needed (the local stack's are
 * `local/resource-clients.ts`).
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { InvokeCommand, InvokeCommandOutput } from '@aws-sdk/client-lambda';
import type { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { ResourceEndpointType } from '../domain/model';
import { resourceSdks } from './resource-sdks';

/**
 * The service clients of AWS resource destinations, by region and the role to assume (a
 * destination in another account), if any, with the external id its trust policy may ask for.
 */
export interface ResourceClients {
  sqs(region: string, role?: string, externalId?: string): SQSClient;
  sns(region: string, role?: string, externalId?: string): SNSClient;
  /** Absent where there is no such service (the local stack emulates SQS and SNS only). */
  eventBridge?(region: string, role?: string, externalId?: string): EventBridgeClient;
  lambda?(region: string, role?: string, externalId?: string): LambdaInvoker;
  kinesis?(region: string, role?: string, externalId?: string): KinesisClient;
}

/** What invoking a function needs of a Lambda client (the local stack's functions are one too). */
export interface LambdaInvoker {
  send(command: InvokeCommand): Promise<Pick<InvokeCommandOutput, 'StatusCode' | 'FunctionError'>>;
}

/** A send to a resource times out as a webhook request does (30 s). */
export const RESOURCE_REQUEST_HANDLER = { connectionTimeout: 3_000, requestTimeout: 30_000 };

/** The name a destination's sessions of an assumed role carry (CloudTrail shows it). */
export const ROLE_SESSION_NAME = 'gridwire-delivery';

/** A role's credentials, as the SDK's clients take them. */
type RoleCredentials = ReturnType<typeof fromTemporaryCredentials>;

/** What a client to a resource is made with: its region, and a role's credentials where one is named. */
export interface ResourceClientConfig {
  region: string;
  requestHandler: typeof RESOURCE_REQUEST_HANDLER;
  credentials?: RoleCredentials;
}

/**
 * The credentials of a role to assume: asked of STS in the resource's region with the function's
 * own credentials, kept until shortly before they expire, asked again then. The destination's
 * external id goes with the request (`ExternalId`) when it has one: a role in another account
 * whose trust policy asks for it (`sts:ExternalId`) is assumed only by the stack its owner gave
 * the id to, not by any other that trusts the same delivery role's account (the confused deputy).
 */
export const assumedRoleCredentials = (role: string, region: string, externalId?: string): RoleCredentials =>
  resourceSdks.credentials().fromTemporaryCredentials({
    params: {
      RoleArn: role,
      RoleSessionName: ROLE_SESSION_NAME,
      ...(externalId === undefined ? {} : { ExternalId: externalId }),
    },
    clientConfig: { region },
  });

/** A client per region, role and external id, made when first asked for. */
function perRegion<C>(
  make: (config: ResourceClientConfig) => C,
): (region: string, role?: string, externalId?: string) => C {
  const made = new Map<string, C>();
  return (region, role, externalId) => {
    const key = `${region} ${role ?? ''} ${role === undefined ? '' : (externalId ?? '')}`;
    let client = made.get(key);
    if (client === undefined) {
      client = make({
        region,
        requestHandler: RESOURCE_REQUEST_HANDLER,
        ...(role === undefined ? {} : { credentials: assumedRoleCredentials(role, region, externalId) }),
      });
      made.set(key, client);
    }
    return client;
  };
}

/** The clients on AWS: the function's credentials (or the role's it assumes), the resource's region. */
export const awsResourceClients = (): ResourceClients => ({
  sqs: perRegion((config) => new SQSClient(config)),
  sns: perRegion((config) => new (resourceSdks.sns().SNSClient)(config)),
  eventBridge: perRegion((config) => new (resourceSdks.eventBridge().EventBridgeClient)(config)),
  lambda: perRegion((config) => new (resourceSdks.lambda().LambdaClient)(config)),
  kinesis: perRegion((config) => new (resourceSdks.kinesis().KinesisClient)(config)),
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

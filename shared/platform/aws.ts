/**
 * AWS SDK clients, created once and passed to whatever needs them. Endpoints come from
 * configuration, so the same code talks to AWS or to the local emulators.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_REGION, type LocalCredentials, localSqsClient } from './local-sqs';
import { assumedRoleCredentials, type ResourceClients } from './resource-clients';

export { LOCAL_REGION, type LocalCredentials, localSqsAuthorization, localSqsClient } from './local-sqs';

export interface AwsClients {
  sqs: SQSClient;
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  /**
   * Clients of the AWS resources subscriptions deliver to, by region (`resource-clients.ts`):
   * the local stack's emulator; absent on AWS, where the delivery function makes its own.
   */
  resources?: ResourceClients;
}

export interface LocalEndpoints {
  sqs: string;
  s3: string;
  dynamodb: string;
  /** What requests to these endpoints are signed with (`local/emulator-access.ts` checks). */
  credentials: LocalCredentials;
}

/**
 * Clients for AWS (no argument: region and credentials from the Lambda environment) or for the
 * local emulators (`endpoints`).
 */
export function createAwsClients(endpoints?: LocalEndpoints): AwsClients {
  const local =
    endpoints === undefined ? {} : { region: LOCAL_REGION, credentials: { ...endpoints.credentials } };
  const dynamo = new DynamoDBClient({
    ...local,
    // A table call that hangs must not hold a delivery invocation until its timeout (which would
    // bring the whole batch back): give up and let the caller decide.
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 5_000 },
    ...(endpoints ? { endpoint: endpoints.dynamodb } : {}),
  });
  return {
    sqs: endpoints === undefined ? new SQSClient({}) : localSqsClient(endpoints.sqs, endpoints.credentials),
    dynamo: DynamoDBDocumentClient.from(dynamo, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
    s3: new S3Client({
      ...local,
      // A dead-letter write that hangs must not hold the function: give up and re-queue instead.
      requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
      ...(endpoints ? { endpoint: endpoints.s3, forcePathStyle: true } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
    }),
  };
}

/**
 * An S3 client for a bucket subscriptions name for their dead letters, on AWS: the function's
 * credentials, or a role's it assumes (a bucket in another account). The bucket's region is not
 * known, so the client follows S3's redirect to it. Times out as the stack's own S3 client does.
 */
export function namedBucketS3Client(roleArn?: string, externalId?: string): S3Client {
  const region = process.env.AWS_REGION ?? LOCAL_REGION;
  return new S3Client({
    region,
    followRegionRedirects: true,
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    ...(roleArn === undefined ? {} : { credentials: assumedRoleCredentials(roleArn, region, externalId) }),
  });
}

/**
 * A Secrets Manager client for AWS (the local stack has no Secrets Manager: its key is given
 * inline). A read that hangs gives up like the table's calls do.
 */
export const createSecretsManagerClient = (): SecretsManagerClient =>
  new SecretsManagerClient({ requestHandler: { connectionTimeout: 3_000, requestTimeout: 5_000 } });

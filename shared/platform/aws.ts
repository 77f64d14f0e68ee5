/**
 * AWS SDK clients, created once and passed to whatever needs them. Endpoints come from
 * configuration, so the same code talks to AWS or to the local emulators.
 */
import { createHmac } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { assumedRoleCredentials, type ResourceClients } from './resource-clients';

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

/** The local stack's own credentials: random per data directory, the only ones its emulators take. */
export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface LocalEndpoints {
  sqs: string;
  s3: string;
  dynamodb: string;
  /** What requests to these endpoints are signed with (`local/emulator-access.ts` checks). */
  credentials: LocalCredentials;
}

export const LOCAL_REGION = 'us-east-1';

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
 * An SQS client for the local emulator. Two integrity checks that guard requests crossing the
 * internet are left out on the loopback, where they took the one thread that runs every local
 * function more than a tenth of its time at high rates (measured with `--cpu-prof`): the MD5
 * comparison of every message body sent and received (`md5: false`, an option of the client),
 * and the SigV4 signature, whose SHA-256 of each request body and HMACs are replaced by a fixed
 * `Authorization` header made from the stack's secret (`localSqsAuthorization`), which the
 * emulator's gate takes like a signature. Only this user can read the secret, and no other user
 * can see loopback traffic, so the header proves the same as a signature there. Clients for AWS
 * keep both checks.
 */
export function localSqsClient(endpoint: string, credentials: LocalCredentials): SQSClient {
  const authorization = localSqsAuthorization(credentials);
  return new SQSClient({
    region: LOCAL_REGION,
    credentials: { ...credentials },
    endpoint,
    md5: false,
    signer: {
      sign: async (request) => {
        request.headers.authorization = authorization;
        return request;
      },
    },
  });
}

/**
 * What the local SQS client sends instead of a signature: the credential scope, and in place of
 * the signature an HMAC of a fixed text with the stack's secret.
 */
export const localSqsAuthorization = (credentials: LocalCredentials): string => {
  const proof = createHmac('sha256', credentials.secretAccessKey).update('gridwire local sqs').digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/20260101/${LOCAL_REGION}/sqs/aws4_request, SignedHeaders=host, Signature=${proof}`;
};

/**
 * A Secrets Manager client for AWS (the local stack has no Secrets Manager: its key is given
 * inline). A read that hangs gives up like the table's calls do.
 */
export const createSecretsManagerClient = (): SecretsManagerClient =>
  new SecretsManagerClient({ requestHandler: { connectionTimeout: 3_000, requestTimeout: 5_000 } });

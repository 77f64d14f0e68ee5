/**
 * AWS SDK clients, created once and passed to whatever needs them. Endpoints come from
 * configuration, so the same code talks to AWS or to the local emulators.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ResourceClients } from './resource-clients';

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
}

/** Credentials the local emulators accept (they check the signature's shape, not the secret). */
export const LOCAL_CREDENTIALS = { accessKeyId: 'gridwire', secretAccessKey: 'gridwire-local' } as const;
export const LOCAL_REGION = 'us-east-1';

/**
 * Clients for AWS (no argument: region and credentials from the Lambda environment) or for the
 * local emulators (`endpoints`).
 */
export function createAwsClients(endpoints?: LocalEndpoints): AwsClients {
  const local = endpoints === undefined ? {} : { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamo = new DynamoDBClient({
    ...local,
    // A table call that hangs must not hold a delivery invocation until its timeout (which would
    // bring the whole batch back): give up and let the caller decide.
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 5_000 },
    ...(endpoints ? { endpoint: endpoints.dynamodb } : {}),
  });
  return {
    sqs: endpoints === undefined ? new SQSClient({}) : localSqsClient(endpoints.sqs),
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
 * An SQS client for the local emulator, which checks no signature and no checksum: it reads the
 * region from the `Authorization` header and nothing else. Two integrity checks that guard
 * requests crossing the internet are left out on the loopback, where they took the one thread
 * that runs every local function more than a tenth of its time at high rates (measured with
 * `--cpu-prof`): the MD5 comparison of every message body sent and received (`md5: false`, an
 * option of the client), and the SigV4 signature, whose SHA-256 of each request body and HMACs
 * are replaced by a fixed `Authorization` header with the same credential scope. Clients for
 * AWS keep both.
 */
export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint,
    md5: false,
    signer: {
      sign: async (request) => {
        request.headers.authorization = LOCAL_SQS_AUTHORIZATION;
        return request;
      },
    },
  });
}

/** What the local SQS client sends instead of a signature: the credential scope, no signature. */
export const LOCAL_SQS_AUTHORIZATION = `AWS4-HMAC-SHA256 Credential=${LOCAL_CREDENTIALS.accessKeyId}/20260101/${LOCAL_REGION}/sqs/aws4_request, SignedHeaders=host, Signature=unsigned-local`;

/**
 * A Secrets Manager client for AWS (the local stack has no Secrets Manager: its key is given
 * inline). A read that hangs gives up like the table's calls do.
 */
export const createSecretsManagerClient = (): SecretsManagerClient =>
  new SecretsManagerClient({ requestHandler: { connectionTimeout: 3_000, requestTimeout: 5_000 } });

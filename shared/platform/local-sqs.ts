/**
 * The local stack's SQS client and what it is made from, apart from the other clients
 * (`aws.ts`, which re-exports these): a command that reads the local stack's queues (`gridwire
 * parked`) loads the SQS client alone.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_REGION, type LocalCredentials, localSqsAuthorization } from './local-credentials';

export { LOCAL_REGION, type LocalCredentials, localSqsAuthorization } from './local-credentials';

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

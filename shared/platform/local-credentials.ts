/**
 * The local stack's credentials and what the emulators' gate takes in place of a signature from
 * its SQS client, apart from the clients themselves (`local-sqs.ts`, `aws.ts`, which re-export
 * these): the emulator process checks requests with them and loads no AWS SDK.
 */
import { createHmac } from 'node:crypto';

/** The local stack's own credentials: random per data directory, the only ones its emulators take. */
export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export const LOCAL_REGION = 'us-east-1';

/**
 * What the local SQS client sends instead of a signature: the credential scope, and in place of
 * the signature an HMAC of a fixed text with the stack's secret.
 */
export const localSqsAuthorization = (credentials: LocalCredentials): string => {
  const proof = createHmac('sha256', credentials.secretAccessKey).update('gridwire local sqs').digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/20260101/${LOCAL_REGION}/sqs/aws4_request, SignedHeaders=host, Signature=${proof}`;
};

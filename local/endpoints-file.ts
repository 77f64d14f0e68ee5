/**
 * What a running local stack leaves in its data directory for other tools: `endpoints.json`
 * (how to reach the API, the emulators and each queue), and its lock (`data-dir-lock.ts`), which
 * answers only while the stack runs. `gridwire parked` reads both; the AWS CLI or SDK can use
 * the endpoints, with the credentials they name (the emulators take no others).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { QUEUES, type QueueKey } from '../shared/config/resources';
import type { LocalCredentials, LocalEndpoints } from '../shared/platform/aws';
import type { LocalResources } from './provision';

export const ENDPOINTS_FILE = 'endpoints.json';

export interface EndpointsFile {
  api: string;
  /** The publish function's URL (the second front door). */
  functionUrl: string;
  sqs: string;
  s3: string;
  dynamodb: string;
  /** The stack's credentials, the only ones the emulators take (also in the `credentials` file). */
  credentials: LocalCredentials;
  adminToken: string;
  /** Each queue's URL and its redrive queue's URL. */
  queues: Record<QueueKey, { url: string; redriveUrl: string }>;
}

/**
 * A queue URL on the emulator as it listens now: its path (`/<account>/<queue>`) on the SQS
 * endpoint. The emulator keeps the URL it made when the queue was created, with that run's
 * port (and a `sqs.<region>.` host prefix no resolver knows), so a restarted stack's would be
 * stale for other tools; the stack's own SQS client sends to its endpoint whatever the URL says.
 */
export function currentQueueUrl(stored: string, sqsEndpoint: string): string {
  // Not `new URL(stored)`: a host such as `sqs.us-east-1.127.0.0.1` is no valid URL host.
  const path = /^[a-z]+:\/\/[^/]+(\/.*)$/i.exec(stored)?.[1];
  return path === undefined ? stored : new URL(path, sqsEndpoint).href;
}

/** Writes `endpoints.json` (this user's only: it holds the admin token and the credentials). */
export async function writeEndpointsFile(
  dataDir: string,
  urls: { api: string; functionUrl: string },
  endpoints: LocalEndpoints,
  adminToken: string,
  resources: LocalResources,
): Promise<void> {
  const file = join(dataDir, ENDPOINTS_FILE);
  const queues = {} as EndpointsFile['queues'];
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    queues[key] = {
      url: currentQueueUrl(resources.queueUrls[key], endpoints.sqs),
      redriveUrl: currentQueueUrl(resources.redriveQueueUrls[key], endpoints.sqs),
    };
  }
  const content: EndpointsFile = {
    api: urls.api,
    functionUrl: urls.functionUrl,
    sqs: endpoints.sqs,
    s3: endpoints.s3,
    dynamodb: endpoints.dynamodb,
    credentials: endpoints.credentials,
    adminToken,
    queues,
  };
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}

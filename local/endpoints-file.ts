/**
 * What a running local stack leaves in its data directory for other tools: `endpoints.json`
 * (how to reach the API, the emulators and each queue), and its lock (`data-dir-lock.ts`), which
 * answers only while the stack runs. `gridwire parked` reads both; the AWS CLI or SDK can use
 * the endpoints.
 */
import type { QueueKey } from '../shared/config/resources';

export const ENDPOINTS_FILE = 'endpoints.json';

export interface EndpointsFile {
  api: string;
  sqs: string;
  s3: string;
  dynamodb: string;
  adminToken: string;
  /** Each queue's URL and its redrive queue's URL. */
  queues: Record<QueueKey, { url: string; redriveUrl: string }>;
}

/**
 * What a running local stack leaves in its data directory for other tools: `endpoints.json`
 * (how to reach the API, the emulators and each queue) and the pid file that is there only
 * while the stack runs. `gridwire parked` reads both; so can the AWS CLI or SDK.
 */
import type { QueueKey } from '../shared/config/resources';

export const ENDPOINTS_FILE = 'endpoints.json';
/** Holds the running stack's process id; removed when it stops. */
export const LOCK_FILE = 'gridwire.pid';

export interface EndpointsFile {
  api: string;
  sqs: string;
  s3: string;
  dynamodb: string;
  adminToken: string;
  /** Each queue's URL and its redrive queue's URL. */
  queues: Record<QueueKey, { url: string; redriveUrl: string }>;
}

/** Whether a process with this id is alive (signal 0 only checks). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

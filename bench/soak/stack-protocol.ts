/** What the soak and its stack process (`stack-process.ts`) say to each other over IPC. */

/** How the stack process starts: passed as its one argument, in JSON. */
export interface SoakStackOptions {
  dataDir: string;
  adminToken: string;
  timeScale: number;
  /** The emulator queue an `AwsSqsQueue` subscription delivers to; the process consumes it. */
  destinationQueue: string;
}

/** The soak to the stack process. */
export type SoakStackCommand = { type: 'table'; down: boolean };

/** The stack process to the soak. */
export type SoakStackMessage =
  | { type: 'ready'; apiUrl: string; destinationQueueArn: string }
  | { type: 'table'; down: boolean }
  | { type: 'queued'; ids: string[] }
  | { type: 'fatal'; message: string };

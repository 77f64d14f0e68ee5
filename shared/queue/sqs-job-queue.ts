/**
 * Sends jobs to the pipeline's queues with SendMessageBatch (ten entries or 1 MiB per request),
 * re-sending entries SQS reports as failed before giving up. Every entry carries its job's
 * `MessageGroupId`: the queues stay standard, and the group turns them into fair queues.
 */
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { QUEUES, type QueueKey, SQS_LIMITS } from '../config/resources';
import { mapWithConcurrency } from '../platform/concurrency';

/** The SQS message attribute (binary) carrying a publish's archive copy (`archive/copy.ts`). */
export const ARCHIVE_ATTRIBUTE = 'gridwire-archive';

export interface OutgoingJob {
  body: string;
  /** Seconds before the message can be received; floored and clamped to SQS's 0..900 when sent. */
  delaySeconds: number;
  /**
   * The job's tenant, sent as `MessageGroupId` so that SQS fair queues keep one busy
   * subscription's backlog from delaying everyone else's (`messageGroupId` in `job-codec.ts`:
   * the subscription, or the topic for a fan-out). Required, so no sender can leave it out.
   */
  groupId: string;
  /**
   * A FIFO queue's `MessageDeduplicationId` (required there): SQS takes a message with an id it
   * took in the last 5 minutes once, so an SDK retry of a send whose answer was lost adds nothing.
   */
  deduplicationId?: string;
  /**
   * The publish's archive copy (gzipped, `archive/copy.ts`), sent as the binary message attribute
   * `ARCHIVE_ATTRIBUTE` beside the job: its receiver forwards it to the archive queue.
   */
  archiveCopy?: Uint8Array;
}

/** The bytes a job takes in a message: its body and the archive copy it carries. */
export const outgoingBytes = (job: OutgoingJob): number =>
  Buffer.byteLength(job.body, 'utf8') +
  (job.archiveCopy === undefined ? 0 : job.archiveCopy.byteLength + ARCHIVE_ATTRIBUTE.length + 6);

/**
 * SQS refused messages for good (`SenderFault`: the content or the request is at fault), so
 * sending them again cannot help. Transient refusals are re-sent before anything is thrown.
 */
export class QueueRejectedError extends Error {
  override readonly name = 'QueueRejectedError';
  constructor(
    message: string,
    /** SQS's error code for the first refused message (e.g. `InvalidMessageContents`). */
    readonly code: string,
  ) {
    super(message);
  }
}

export interface JobQueue {
  /** Resolves once every job is durably in the queue; rejects otherwise. */
  send(queue: QueueKey, jobs: readonly OutgoingJob[]): Promise<void>;
}

/**
 * Groups entries into SendMessageBatch requests: at most ten per request and at most
 * `maxBatchBytes` of bodies (an entry larger than that still goes, alone).
 */
export function batchForSend<T>(
  entries: readonly T[],
  bytesOf: (entry: T) => number,
  maxBatchBytes: number = SQS_LIMITS.maxMessageBytes,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = bytesOf(entry);
    if (
      current.length > 0 &&
      (current.length === SQS_LIMITS.maxBatchEntries || bytes + size > maxBatchBytes)
    ) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Groups jobs into SendMessageBatch requests by count and total size. */
export const batchJobs = (jobs: readonly OutgoingJob[], maxBatchBytes?: number): OutgoingJob[][] =>
  batchForSend(jobs, outgoingBytes, maxBatchBytes);

export interface SendOptions {
  /**
   * A FIFO queue: entries carry their group and de-duplication id and no delay, requests go one
   * after another (a group's messages keep their order), and an entry SQS refuses is not sent
   * again on its own (it would land behind later ones of its group): the send rejects.
   */
  fifo?: boolean;
  /** Re-sends of entries SQS reports as failed (throttling, internal errors). */
  maxRetries?: number;
  /** SendMessageBatch requests in flight at once. */
  parallelRequests?: number;
  backoffMs?: number;
}

/**
 * Sends jobs to one queue URL in as few SendMessageBatch requests as the limits allow. Resolves
 * once every job is in the queue; rejects if SQS refuses one for good.
 */
export async function sendJobs(
  sqs: SQSClient,
  url: string,
  jobs: readonly OutgoingJob[],
  options: SendOptions = {},
): Promise<void> {
  if (jobs.length === 0) return;
  const parallel = options.fifo === true ? 1 : (options.parallelRequests ?? 8);
  await mapWithConcurrency(batchJobs(jobs), parallel, (batch) => sendBatch(sqs, url, batch, options));
}

const standardEntry = (job: OutgoingJob, index: number): SendMessageBatchRequestEntry => ({
  Id: String(index),
  MessageBody: job.body,
  MessageGroupId: job.groupId,
  DelaySeconds: Math.max(0, Math.min(SQS_LIMITS.maxDelaySeconds, Math.floor(job.delaySeconds))),
  ...(job.archiveCopy === undefined
    ? {}
    : { MessageAttributes: { [ARCHIVE_ATTRIBUTE]: { DataType: 'Binary', BinaryValue: job.archiveCopy } } }),
});

function fifoEntry(job: OutgoingJob, index: number): SendMessageBatchRequestEntry {
  if (job.deduplicationId === undefined) throw new Error('a FIFO message needs a deduplicationId');
  // A FIFO message may be received many times (an ordered event waiting for its turn): each
  // receive would forward its copy again.
  if (job.archiveCopy !== undefined) throw new Error('a FIFO message carries no archive copy');
  if (job.delaySeconds > 0) throw new Error('a FIFO message takes no delay of its own');
  return {
    Id: String(index),
    MessageBody: job.body,
    MessageGroupId: job.groupId,
    MessageDeduplicationId: job.deduplicationId,
  };
}

async function sendBatch(
  sqs: SQSClient,
  url: string,
  batch: readonly OutgoingJob[],
  options: SendOptions,
): Promise<void> {
  let entries: SendMessageBatchRequestEntry[] = batch.map((job, index) =>
    options.fifo === true ? fifoEntry(job, index) : standardEntry(job, index),
  );
  const maxRetries = options.fifo === true ? 0 : (options.maxRetries ?? 3);
  for (let attempt = 0; ; attempt += 1) {
    const result = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    const failed = result.Failed ?? [];
    if (failed.length === 0) return;
    const permanent = failed.find((entry) => entry.SenderFault === true);
    if (permanent !== undefined || attempt >= maxRetries) {
      const first = permanent ?? failed[0];
      const message =
        `SQS refused ${failed.length} of ${entries.length} messages: ${first?.Code ?? '?'} ${first?.Message ?? ''}`.trim();
      if (permanent !== undefined) throw new QueueRejectedError(message, permanent.Code ?? 'SenderFault');
      throw new Error(message);
    }
    const failedIds = new Set(failed.map((entry) => entry.Id));
    entries = entries.filter((entry) => failedIds.has(entry.Id));
    await new Promise((resolve) => setTimeout(resolve, (options.backoffMs ?? 50) * 2 ** attempt));
  }
}

export class SqsJobQueue implements JobQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly urls: Readonly<Partial<Record<QueueKey, string>>>,
    private readonly options: SendOptions = {},
  ) {}

  async send(queue: QueueKey, jobs: readonly OutgoingJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const url = this.urls[queue];
    if (url === undefined) throw new Error(`no URL configured for the ${queue} queue`);
    await sendJobs(this.sqs, url, jobs, { ...this.options, fifo: QUEUES[queue].fifo === true });
  }
}

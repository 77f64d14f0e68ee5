/**
 * Archive copies on their way to the archive queue: packed into `archive` jobs, one topic's
 * copies per message (its tenant, as the publishes' own messages are), as many to a message as
 * fit. The publish function sends a copy this way when it cannot ride on the publish's own
 * message; the delivery function forwards, in one send per batch, the copies its batch's messages
 * carried (`lambda/job-consumer.ts`).
 */
import { SQS_LIMITS } from '../config/resources';
import { JOB_FORMAT_VERSION, type TopicRef } from '../domain/delivery';
import { topicIdOf } from '../domain/names';
import { JOB_ENVELOPE_RESERVE_BYTES, messageGroupId } from '../queue/job-codec';
import type { JobQueue, OutgoingJob } from '../queue/sqs-job-queue';
import { type ArchiveCopy, packArchiveCopy } from './copy';

/** The most copy text (base64) one archive message carries. */
export const MAX_ARCHIVE_MESSAGE_COPY_BYTES = SQS_LIMITS.maxMessageBytes - JOB_ENVELOPE_RESERVE_BYTES;

/**
 * The most bytes one packed copy may take: in base64 (4/3 of it) it fits an archive message with
 * room to spare. A publish's copy above it is cut into several, by events.
 */
export const MAX_PACKED_COPY_BYTES = 700 * 1024;

/** A copy a message carried, in base64, and the topic of its publish. */
export interface CarriedCopy {
  readonly topic: TopicRef;
  readonly copy: string;
}

/**
 * A publish's copy packed, in as many parts as keep each under {@link MAX_PACKED_COPY_BYTES}
 * (one, unless its events are large and compress badly).
 */
export function packCopyParts(copy: ArchiveCopy): Buffer[] {
  const packed = packArchiveCopy(copy);
  if (packed.byteLength <= MAX_PACKED_COPY_BYTES || copy.events.length <= 1) return [packed];
  const half = Math.ceil(copy.events.length / 2);
  return [
    ...packCopyParts({ ...copy, events: copy.events.slice(0, half) }),
    ...packCopyParts({ ...copy, events: copy.events.slice(half) }),
  ];
}

/** The archive jobs carrying `copies`: per topic, as many copies to a message as fit. */
export function archiveJobsOf(copies: readonly CarriedCopy[]): OutgoingJob[] {
  const byTopic = new Map<string, { topic: TopicRef; copies: string[] }>();
  for (const { topic, copy } of copies) {
    const id = topicIdOf(topic).toLowerCase();
    const entry = byTopic.get(id) ?? { topic, copies: [] };
    entry.copies.push(copy);
    byTopic.set(id, entry);
  }
  const jobs: OutgoingJob[] = [];
  for (const { topic, copies: texts } of byTopic.values()) {
    const groupId = messageGroupId(topic);
    let current: string[] = [];
    let bytes = 0;
    const flush = () => {
      if (current.length === 0) return;
      jobs.push({
        body: JSON.stringify({ v: JOB_FORMAT_VERSION, kind: 'archive', topic, copies: current }),
        delaySeconds: 0,
        groupId,
      });
      current = [];
      bytes = 0;
    };
    for (const text of texts) {
      if (bytes + text.length + 3 > MAX_ARCHIVE_MESSAGE_COPY_BYTES) flush();
      current.push(text);
      bytes += text.length + 3;
    }
    flush();
  }
  return jobs;
}

/** Sends copies to the archive queue; resolves once all are in it. */
export async function sendArchiveCopies(queue: JobQueue, copies: readonly CarriedCopy[]): Promise<void> {
  if (copies.length === 0) return;
  await queue.send('archive', archiveJobsOf(copies));
}

/** Where a function sends the archive copies its messages carry (`lambda/job-consumer.ts`). */
export interface ArchiveForwarding {
  forward(copies: readonly CarriedCopy[]): Promise<void>;
}

/** Forwarding to the archive queue through `queue`. */
export const archiveForwarding = (queue: JobQueue): ArchiveForwarding => ({
  forward: (copies) => sendArchiveCopies(queue, copies),
});

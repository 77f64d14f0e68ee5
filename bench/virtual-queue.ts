/**
 * SQS in virtual time, for the benchmarks that run the real engine on a virtual clock: messages
 * become visible after their delay (whole seconds, as SQS counts them), receives take the
 * earliest visible messages, and every request is counted as SQS bills it. Sends to the
 * dead-letter step's queue are kept aside (`ended`).
 */
import type { QueueKey } from '../shared/config/resources';
import type { DeliveryItem, EventGridEvent } from '../shared/domain/delivery';
import type { VirtualClock } from '../shared/platform/clock';
import { batchJobs, type JobQueue, type OutgoingJob } from '../shared/queue/sqs-job-queue';
import { sqsBilledChunks } from './aws-counter';

const S = 1000;

export interface VirtualMessage {
  body: string;
  visibleAt: number;
  seq: number;
}

const bytesOf = (bodies: readonly { body: string }[]) =>
  bodies.reduce((sum, message) => sum + Buffer.byteLength(message.body, 'utf8'), 0);

export class VirtualQueue implements JobQueue {
  private readonly messages: VirtualMessage[] = [];
  /** Bodies sent to the dead-letter step's queue. */
  readonly ended: string[] = [];
  sendRequests = 0;
  receiveRequests = 0;
  deleteRequests = 0;
  billedRequests = 0;
  /** Messages sent (retries, hops, held jobs, ended deliveries); `put` ones are not counted. */
  messagesSent = 0;
  private seq = 0;

  constructor(private readonly clock: VirtualClock) {}

  async send(queue: QueueKey | string, jobs: readonly OutgoingJob[]): Promise<void> {
    for (const batch of batchJobs(jobs)) {
      this.sendRequests += 1;
      this.billedRequests += sqsBilledChunks(bytesOf(batch));
      this.messagesSent += batch.length;
      for (const job of batch) {
        if (job.delaySeconds > 900) throw new RangeError(`DelaySeconds ${job.delaySeconds} exceeds 900`);
        if (queue === 'endedDelivery') this.ended.push(job.body);
        else this.put(job.body, this.clock.now() + Math.floor(job.delaySeconds) * S);
      }
    }
  }

  /** A message that is already queued when the run starts (a publish, not counted as a send). */
  put(body: string, visibleAt: number): void {
    this.seq += 1;
    this.messages.push({ body, visibleAt, seq: this.seq });
  }

  /** When the earliest message becomes visible; `undefined` when none is queued. */
  nextVisibleAt(): number | undefined {
    let earliest: number | undefined;
    for (const message of this.messages) {
      if (earliest === undefined || message.visibleAt < earliest) earliest = message.visibleAt;
    }
    return earliest;
  }

  get size(): number {
    return this.messages.length;
  }

  /** The next receive: the earliest visible message and those visible at the same moment, up to `max`. */
  receive(max = 10): VirtualMessage[] {
    if (this.messages.length === 0) return [];
    this.messages.sort((a, b) => a.visibleAt - b.visibleAt || a.seq - b.seq);
    const first = this.messages[0] as VirtualMessage;
    let count = 1;
    while (count < max && this.messages[count]?.visibleAt === first.visibleAt) count += 1;
    const batch = this.messages.splice(0, count);
    this.receiveRequests += 1;
    this.billedRequests += sqsBilledChunks(bytesOf(batch));
    return batch;
  }

  /** An invocation's DeleteMessageBatch. */
  delete(): void {
    this.deleteRequests += 1;
    this.billedRequests += 1;
  }
}

/** What publish would queue for `event`: a first delivery (its id is the delivery id), published at `publishedAt`. */
export const queuedItem = (event: EventGridEvent, publishedAt: number): DeliveryItem => ({
  deliveryId: event.id,
  eventId: event.id,
  dataVersion: event.dataVersion,
  eventJson: JSON.stringify(event),
  attempts: 0,
  publishedAt,
});

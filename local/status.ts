/**
 * `GET /local/status` of the local stack: the totals of every metric point the handlers emitted
 * since the stack started (what CloudWatch would hold on AWS), how many messages each queue
 * holds, and how overdue the oldest backlog wake is as the timer index reads at that moment.
 * `gridwire status` reads it.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { QUEUES, type QueueKey } from '../shared/config/resources';
import type { OverdueWake } from '../shared/delivery/backlog/sweep';
import type { LocalMetrics, MetricTotal } from './metrics';

/** One queue's depth, from `GetQueueAttributes` (SQS's approximate counts). */
export interface QueueDepth {
  queue: QueueKey;
  /** Messages ready to be received. */
  visible: number;
  /**
   * Received and not yet deleted (being processed; on the FIFO ordered queue, also retries
   * waiting for their time, made invisible until then).
   */
  inFlight: number;
  /** Sent with a delay that has not passed yet (retries waiting for their time; never on a FIFO queue). */
  delayed: number;
  /** Messages in its redrive queue. */
  redrive: number;
}

/**
 * The backlogs' timers when the status was read: the timer index read then, not the sweep's last
 * `OldestOverdueSeconds`, so a long run can sample it whenever it likes.
 */
export interface BacklogTimersStatus {
  /**
   * Seconds since the oldest overdue wake was first due (a wake still in the timer index more
   * than the sweep's 2-minute grace past due, or one the sweep armed again); 0 when none is.
   */
  oldestOverdueSeconds: number;
  /** Whose wake that is, and when it was first due (ISO 8601); absent when none is overdue. */
  oldestOverdue?: { topic: string; subscription: string; dueSince: string };
}

export interface LocalStatusDocument {
  /** When the stack started (ISO 8601): the totals count from then. */
  since: string;
  metrics: MetricTotal[];
  queues: QueueDepth[];
  backlogs: BacklogTimersStatus;
}

/** What the status says of the oldest overdue wake (`readOldestOverdue`), if any. */
export const backlogTimersStatus = (overdue: OverdueWake | undefined): BacklogTimersStatus =>
  overdue === undefined
    ? { oldestOverdueSeconds: 0 }
    : {
        oldestOverdueSeconds: overdue.seconds,
        oldestOverdue: {
          topic: overdue.topic,
          subscription: overdue.subscription,
          dueSince: new Date(overdue.dueSince).toISOString(),
        },
      };

/** The local stack's status route (admin token), served by its gateway. */
export const LOCAL_STATUS_PATH = '/local/status';

const ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
] as const;

/** A queue's approximate counts (`GetQueueAttributes`). */
export async function attributesOf(sqs: SQSClient, url: string): Promise<Record<string, number>> {
  // Required here: `gridwire status` reads this module for its path and types, without the SDK.
  const { GetQueueAttributesCommand } =
    require('@aws-sdk/client-sqs') as typeof import('@aws-sdk/client-sqs');
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...ATTRIBUTES] }),
  );
  return Object.fromEntries(ATTRIBUTES.map((name) => [name, Number(Attributes?.[name] ?? 0) || 0]));
}

/** The depth of each queue of `QUEUES` (main and redrive). */
export async function queueDepths(
  sqs: SQSClient,
  urls: { queueUrls: Record<QueueKey, string>; redriveQueueUrls: Record<QueueKey, string> },
): Promise<QueueDepth[]> {
  return Promise.all(
    (Object.keys(QUEUES) as QueueKey[]).map(async (queue) => {
      const [main, redrive] = await Promise.all([
        attributesOf(sqs, urls.queueUrls[queue]),
        attributesOf(sqs, urls.redriveQueueUrls[queue]),
      ]);
      return {
        queue,
        visible: main.ApproximateNumberOfMessages ?? 0,
        inFlight: main.ApproximateNumberOfMessagesNotVisible ?? 0,
        delayed: main.ApproximateNumberOfMessagesDelayed ?? 0,
        redrive:
          (redrive.ApproximateNumberOfMessages ?? 0) +
          (redrive.ApproximateNumberOfMessagesNotVisible ?? 0) +
          (redrive.ApproximateNumberOfMessagesDelayed ?? 0),
      };
    }),
  );
}

/**
 * The status document of a running local stack; `oldestOverdue` reads the timer index now and
 * finds its oldest overdue wake.
 */
export async function localStatusDocument(
  since: number,
  metrics: LocalMetrics,
  sqs: SQSClient,
  urls: Parameters<typeof queueDepths>[1],
  oldestOverdue: () => Promise<OverdueWake | undefined>,
): Promise<LocalStatusDocument> {
  const [queues, overdue] = await Promise.all([queueDepths(sqs, urls), oldestOverdue()]);
  return {
    since: new Date(since).toISOString(),
    metrics: metrics.snapshot(),
    queues,
    backlogs: backlogTimersStatus(overdue),
  };
}

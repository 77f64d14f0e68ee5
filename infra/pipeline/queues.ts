import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { visibilityTimeoutOf } from '../../shared/config/event-source-mapping';
import { FIFO_QUEUE_SETTINGS } from '../../shared/config/fifo-queues';
import { FUNCTIONS, QUEUES, type QueueKey, SQS_LIMITS } from '../../shared/config/resources';

export interface PipelineQueues {
  readonly queues: Readonly<Record<QueueKey, sqs.Queue>>;
  /** Each queue's redrive queue: what its consumer failed on `maxReceiveCount` times. */
  readonly redriveQueues: Readonly<Record<QueueKey, sqs.Queue>>;
}

/** The batching window of each queue's consumer, where it differs from `QUEUES` (a prop). */
export type BatchingWindows = Partial<Record<QueueKey, number>>;

/**
 * What makes a queue of `QUEUES` FIFO (`FIFO_QUEUE_SETTINGS`), or nothing for a standard queue.
 * No name is given: CloudFormation generates one ending in `.fifo`, within SQS's 80 characters, as
 * it generates the others'. Lambda takes no batching window from a FIFO queue: CDK refuses one at
 * synthesis.
 */
function fifoPropsOf(key: QueueKey): Partial<sqs.QueueProps> {
  if (QUEUES[key].fifo !== true) return {};
  return {
    fifo: true,
    deduplicationScope: FIFO_QUEUE_SETTINGS.deduplicationScope as sqs.DeduplicationScope,
    fifoThroughputLimit: FIFO_QUEUE_SETTINGS.fifoThroughputLimit as sqs.FifoThroughputLimit,
    contentBasedDeduplication: FIFO_QUEUE_SETTINGS.contentBasedDeduplication,
    retentionPeriod: Duration.days(FIFO_QUEUE_SETTINGS.retentionDays),
  };
}

/**
 * Every queue of `QUEUES`, each with its own redrive queue (FIFO for a FIFO queue: SQS refuses a
 * redrive queue of the other type).
 */
export function createQueues(scope: Construct, batchingWindows: BatchingWindows = {}): PipelineQueues {
  const queues = {} as Record<QueueKey, sqs.Queue>;
  const redriveQueues = {} as Record<QueueKey, sqs.Queue>;
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    redriveQueues[key] = createRedriveQueue(scope, key);
    queues[key] = createQueue(scope, key, redriveQueues[key], batchingWindows[key]);
  }
  return { queues, redriveQueues };
}

function createRedriveQueue(scope: Construct, key: QueueKey): sqs.Queue {
  const { redrive } = QUEUES[key];
  const queue = new sqs.Queue(scope, redrive.id, {
    ...(QUEUES[key].fifo === true ? { fifo: true } : {}),
    retentionPeriod: Duration.days(redrive.retentionDays),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    maxMessageSizeBytes: SQS_LIMITS.maxMessageBytes,
  });
  Validations.of(queue).acknowledge({
    id: 'Serverless-SQSRedrivePolicy',
    reason:
      'This is a redrive queue: it holds what its queue could not process, for an operator (gridwire parked). A redrive queue of its own would only move the messages further from sight.',
  });
  return queue;
}

function createQueue(
  scope: Construct,
  key: QueueKey,
  redriveQueue: sqs.IQueue,
  batchingWindowSeconds: number | undefined,
): sqs.Queue {
  const definition = QUEUES[key];
  // A window other than the queue's own lengthens or shortens the time a batch is in flight.
  const visibilityTimeoutSeconds =
    batchingWindowSeconds === undefined
      ? definition.visibilityTimeoutSeconds
      : visibilityTimeoutOf(FUNCTIONS[definition.consumer.function].timeoutSeconds, batchingWindowSeconds);
  return new sqs.Queue(scope, definition.id, {
    ...fifoPropsOf(key),
    visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    maxMessageSizeBytes: SQS_LIMITS.maxMessageBytes,
    deadLetterQueue: { queue: redriveQueue, maxReceiveCount: definition.maxReceiveCount },
  });
}

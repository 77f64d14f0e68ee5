import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUES, type QueueKey, SQS_LIMITS } from '../../shared/config/resources';

export interface PipelineQueues {
  readonly queues: Readonly<Record<QueueKey, sqs.Queue>>;
  /** Each queue's redrive queue: what its consumer failed on `maxReceiveCount` times. */
  readonly redriveQueues: Readonly<Record<QueueKey, sqs.Queue>>;
}

/** Every queue of `QUEUES`, each with its own redrive queue. */
export function createQueues(scope: Construct): PipelineQueues {
  const queues = {} as Record<QueueKey, sqs.Queue>;
  const redriveQueues = {} as Record<QueueKey, sqs.Queue>;
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    redriveQueues[key] = createRedriveQueue(scope, key);
    queues[key] = createQueue(scope, key, redriveQueues[key]);
  }
  return { queues, redriveQueues };
}

function createRedriveQueue(scope: Construct, key: QueueKey): sqs.Queue {
  const { redrive } = QUEUES[key];
  const queue = new sqs.Queue(scope, redrive.id, {
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

function createQueue(scope: Construct, key: QueueKey, redriveQueue: sqs.IQueue): sqs.Queue {
  const definition = QUEUES[key];
  return new sqs.Queue(scope, definition.id, {
    visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    maxMessageSizeBytes: SQS_LIMITS.maxMessageBytes,
    deadLetterQueue: { queue: redriveQueue, maxReceiveCount: definition.maxReceiveCount },
  });
}

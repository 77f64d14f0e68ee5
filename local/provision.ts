/**
 * Creates the local stack's queues, table and bucket from the definitions in
 * `shared/config/resources.ts`, the same ones the CDK construct deploys. Safe to run on every start.
 */
import { CreateTableCommand, DescribeTableCommand, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { FIFO_QUEUE_SETTINGS, fifoQueueAttributes } from '../shared/config/fifo-queues';
import {
  ARCHIVE_BUCKET,
  BACKLOG_BUCKET,
  BUCKET,
  FAN_OUT_BUCKET,
  QUEUES,
  type QueueKey,
  SQS_LIMITS,
  TABLE,
} from '../shared/config/resources';
import type { AwsClients } from '../shared/platform/aws';

export interface LocalResources {
  queueUrls: Record<QueueKey, string>;
  redriveQueueUrls: Record<QueueKey, string>;
  tableName: string;
  bucketName: string;
  /** Publishes too large for one message (the fan-out bucket). */
  fanOutBucketName: string;
  /** Segments of stored events (the backlog bucket). */
  backlogBucketName: string;
  /** Topics' archives (the archive bucket). */
  archiveBucketName: string;
}

export interface ProvisionOptions {
  /** Overrides the queues' visibility timeout (tests that crash a worker on purpose). */
  visibilityTimeoutSeconds?: number;
}

async function createQueue(clients: AwsClients, name: string, attributes: Record<string, string>) {
  const { QueueUrl } = await clients.sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
  );
  if (QueueUrl === undefined) throw new Error(`SQS returned no URL for queue ${name}`);
  return QueueUrl;
}

export async function provisionLocalResources(
  clients: AwsClients,
  options: ProvisionOptions = {},
): Promise<LocalResources> {
  const queueUrls = {} as Record<QueueKey, string>;
  const redriveQueueUrls = {} as Record<QueueKey, string>;
  for (const [key, queue] of Object.entries(QUEUES) as [QueueKey, (typeof QUEUES)[QueueKey]][]) {
    // A FIFO queue's attributes go in at creation (fauxqs refuses two of them afterwards; taking
    // them again for an existing queue is fine), and its redrive queue is FIFO too (SQS refuses a
    // redrive queue of the other type; fauxqs would take one).
    const fifo = queue.fifo === true;
    const redriveUrl = await createQueue(clients, queue.redrive.localName, {
      ...(fifo ? { FifoQueue: 'true' } : {}),
      MessageRetentionPeriod: String(queue.redrive.retentionDays * 86_400),
      MaximumMessageSize: String(SQS_LIMITS.maxMessageBytes),
    });
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: redriveUrl, AttributeNames: ['QueueArn'] }),
    );
    queueUrls[key] = await createQueue(clients, queue.localName, {
      ...(fifo
        ? {
            ...fifoQueueAttributes(),
            MessageRetentionPeriod: String(FIFO_QUEUE_SETTINGS.retentionDays * 86_400),
          }
        : {}),
      VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? queue.visibilityTimeoutSeconds),
      MaximumMessageSize: String(SQS_LIMITS.maxMessageBytes),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: Attributes?.QueueArn,
        maxReceiveCount: queue.maxReceiveCount,
      }),
    });
    redriveQueueUrls[key] = redriveUrl;
  }

  const index = TABLE.topicsIndex;
  try {
    await clients.dynamo.send(
      new CreateTableCommand({
        TableName: TABLE.localName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: TABLE.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE.sortKey, AttributeType: 'S' },
          { AttributeName: index.partitionKey, AttributeType: 'S' },
          { AttributeName: index.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: 'HASH' },
              { AttributeName: index.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (let i = 0; i < 100; i += 1) {
    const { Table } = await clients.dynamo.send(new DescribeTableCommand({ TableName: TABLE.localName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  await clients.s3.send(new CreateBucketCommand({ Bucket: BUCKET.localName }));
  await clients.s3.send(new CreateBucketCommand({ Bucket: FAN_OUT_BUCKET.localName }));
  await clients.s3.send(new CreateBucketCommand({ Bucket: BACKLOG_BUCKET.localName }));
  await clients.s3.send(new CreateBucketCommand({ Bucket: ARCHIVE_BUCKET.localName }));
  return {
    queueUrls,
    redriveQueueUrls,
    tableName: TABLE.localName,
    bucketName: BUCKET.localName,
    fanOutBucketName: FAN_OUT_BUCKET.localName,
    backlogBucketName: BACKLOG_BUCKET.localName,
    archiveBucketName: ARCHIVE_BUCKET.localName,
  };
}

import { CfnOutput } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUES, type QueueKey, queueOutputNames } from '../../shared/config/resources';

export interface OutputTargets {
  readonly api: HttpApi;
  readonly table: dynamodb.ITableV2;
  readonly deadLetterBucket: s3.IBucket;
  readonly queues: Readonly<Record<QueueKey, sqs.IQueue>>;
  readonly redriveQueues: Readonly<Record<QueueKey, sqs.IQueue>>;
  /** What the queue outputs' names begin with (the pipeline's `outputPrefix`). */
  readonly prefix: string;
}

/** The stack outputs: the API URL, the table and dead-letter bucket, every queue's URL. */
export function addOutputs(scope: Construct, targets: OutputTargets): void {
  new CfnOutput(scope, 'ApiUrl', {
    value: targets.api.apiEndpoint,
    description: 'Base URL of the Gridwire API',
  });
  new CfnOutput(scope, 'TableName', { value: targets.table.tableName });
  new CfnOutput(scope, 'DeadLetterBucketName', { value: targets.deadLetterBucket.bucketName });
  // Output names are fixed (no construct path or hash) so `gridwire parked --stack` finds them;
  // the prefix tells the pipelines of one stack apart (`--pipeline`).
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    const names = queueOutputNames(key, targets.prefix);
    new CfnOutput(scope, `${QUEUES[key].id}Url`, {
      value: targets.queues[key].queueUrl,
      description: `URL of the ${key} queue`,
    }).overrideLogicalId(names.url);
    new CfnOutput(scope, `${QUEUES[key].redrive.id}Url`, {
      value: targets.redriveQueues[key].queueUrl,
      description: `URL of the ${key} queue's redrive queue (parked messages)`,
    }).overrideLogicalId(names.redriveUrl);
  }
}

import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  OUTPUT_PREFIX_PATTERN,
  pipelineOutputNames,
  QUEUES,
  type QueueKey,
  queueOutputNames,
} from '../../shared/config/resources';

export interface OutputTargets {
  readonly api: HttpApi;
  readonly table: dynamodb.ITableV2;
  readonly deadLetterBucket: s3.IBucket;
  readonly queues: Readonly<Record<QueueKey, sqs.IQueue>>;
  readonly redriveQueues: Readonly<Record<QueueKey, sqs.IQueue>>;
  /** What the outputs' names begin with (the pipeline's `outputPrefix`). */
  readonly prefix: string;
}

/** The stack outputs: the API URL, the table and dead-letter bucket, every queue's URL. */
export function addOutputs(scope: Construct, targets: OutputTargets): void {
  // Output names are fixed (no construct path or hash) so `gridwire parked --stack` finds them
  // and the guides can name them (`ApiUrl`); the prefix tells the pipelines of one stack apart
  // (`--pipeline`).
  const fixed = pipelineOutputNames(targets.prefix);
  new CfnOutput(scope, 'ApiUrl', {
    value: targets.api.apiEndpoint,
    description: 'Base URL of the Gridwire API',
  }).overrideLogicalId(fixed.apiUrl);
  new CfnOutput(scope, 'TableName', { value: targets.table.tableName }).overrideLogicalId(fixed.tableName);
  new CfnOutput(scope, 'DeadLetterBucketName', {
    value: targets.deadLetterBucket.bucketName,
  }).overrideLogicalId(fixed.deadLetterBucketName);
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

/** The output prefixes taken in each stack, by the pipelines built in it so far. */
const outputPrefixesByStack = new WeakMap<Stack, Set<string>>();

/**
 * The pipeline's output prefix: the one given, else `''` (the names the CLI reads without
 * `--pipeline`, as before there could be several) while no other pipeline of the stack has it,
 * else the construct id's letters and digits. Throws when it is taken in the stack already.
 */
export function claimOutputPrefix(pipeline: Construct, given: string | undefined): string {
  const stack = Stack.of(pipeline);
  const taken = outputPrefixesByStack.get(stack) ?? new Set<string>();
  outputPrefixesByStack.set(stack, taken);
  const prefix = given ?? (taken.has('') ? pipeline.node.id.replace(/[^A-Za-z0-9]/g, '') : '');
  const problem =
    prefix !== '' && !OUTPUT_PREFIX_PATTERN.test(prefix)
      ? `its id ${pipeline.node.id} makes no output prefix of 1 to 64 letters or digits`
      : taken.has(prefix)
        ? `another pipeline of stack ${stack.node.id} has the output prefix '${prefix}'`
        : undefined;
  if (problem !== undefined) {
    throw new Error(`Invalid DeliveryPipeline props: ${problem}; give this pipeline its own outputPrefix`);
  }
  taken.add(prefix);
  return prefix;
}

/** The name of the alarm topic's ARN output: fixed, after the pipeline's prefix, like the others. */
export const alarmTopicOutputName = (prefix: string): string => `${prefix}AlarmTopicArn`;

/**
 * The alarm topic's ARN as a stack output (`<prefix>AlarmTopicArn`), so on-call tooling can
 * subscribe to it without reading the construct tree.
 */
export function addAlarmTopicOutput(scope: Construct, alarmTopic: ITopic, prefix: string): void {
  new CfnOutput(scope, 'AlarmTopicArn', {
    value: alarmTopic.topicArn,
    description: 'ARN of the SNS topic every Gridwire alarm notifies',
  }).overrideLogicalId(alarmTopicOutputName(prefix));
}

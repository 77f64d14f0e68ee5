import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  ARCHIVE_BUCKET,
  BACKLOG_BUCKET,
  BUCKET,
  ENV,
  FAN_OUT_BUCKET,
  FUNCTIONS,
  type FunctionKey,
  QUEUES,
  type QueueKey,
  TABLE,
} from '../../shared/config/resources';
import { CONFIG_DEFAULTS } from '../../shared/config/runtime';
import {
  allowListEntryOf,
  arnSegmentsProblem,
  arnServiceOf,
  PAIR_SEPARATOR,
} from '../../shared/delivery/rules/resource-destinations';
import { type FunctionNetwork, PipelineFunction, type PipelineFunctionProps } from '../pipeline-function';
import type { PipelineStorage } from './storage';

export type PipelineFunctions = Readonly<Record<FunctionKey, PipelineFunction>>;

/** The construct props that become function settings (`DeliveryPipelineProps` of the same names). */
export interface FunctionSettings {
  readonly deliveryConcurrency?: number;
  readonly historyRetentionDays?: number;
  readonly subscriptionCacheSeconds?: number;
  readonly publicUrl?: string;
  readonly validateEndpoints?: boolean;
  readonly allowPrivateEndpoints?: boolean;
  readonly subscriptionMetrics?: boolean;
  readonly metricsFlushSeconds?: number;
  readonly backlog?: boolean;
  readonly metricsNamespace?: string;
}

/**
 * A resource pattern and the role pattern subscriptions send to it through, allowed together
 * only: a role of one account with a resource of another (the environment holds it as
 * `<resource>|<role>`). Without a pair, a destination's role must be in its resource's account.
 */
export interface ResourceDestinationPair {
  readonly resource: string;
  readonly role: string;
}

/** An entry of the `resourceDestinations` prop as the environment holds it (a pair as `<resource>|<role>`). */
export const resourceDestinationEntryOf = (entry: string | ResourceDestinationPair): string =>
  typeof entry === 'string' ? entry : `${entry.resource}${PAIR_SEPARATOR}${entry.role}`;

/**
 * Lets the delivery function send to the resources subscriptions may deliver to: `sqs:SendMessage`
 * (and the queue URL) on queue ARNs, `sns:Publish` on topics, `events:PutEvents` on buses,
 * `lambda:InvokeFunction` on functions, `kinesis:PutRecords` on streams, and `sts:AssumeRole` on
 * IAM roles (a resource in another account, sent to with that role's credentials), each pattern as
 * given. A pair grants `sts:AssumeRole` on its role and nothing on its resource (the role sends).
 * A pattern of another service is refused at synthesis, as is `*` alone (every resource of
 * every service), an empty, `.` or `..` segment, a `,` (the environment's separator), and a pair
 * whose role is not an IAM role's.
 *
 * The grants are wider than the check subscriptions pass: IAM's `*` crosses `/` (and, last in a
 * field, `:`), so `role/gridwire-*` also grants `role/gridwire-x/Admin`, which the management
 * API's segment-by-segment match refuses (`arnPatternMatches`). IAM has no wildcard that stops at
 * a `/`, and a `Deny` on the wider ARNs would also take back what a declared destination or the
 * deployer grants the role beside the prop; so the check is what a subscription must pass, and the
 * role's grant the backstop behind it. Keep roles meant for the stack out of paths a pattern's
 * prefix reaches.
 */
export function allowResourceDestinations(
  delivery: PipelineFunction,
  entries: readonly (string | ResourceDestinationPair)[],
): void {
  const byService: Record<string, string[]> = {};
  for (const entry of entries.map(resourceDestinationEntryOf)) {
    const { pattern, role } = allowListEntryOf(entry);
    const problem = resourcePatternProblem(pattern, role === undefined ? undefined : 'resource');
    if (problem !== undefined) throw new Error(`resourceDestinations: '${entry}' ${problem}`);
    if (role !== undefined) {
      const roleProblem = resourcePatternProblem(role, 'role');
      if (roleProblem !== undefined) throw new Error(`resourceDestinations: '${entry}' ${roleProblem}`);
      byService.iam = [...(byService.iam ?? []), role];
      continue;
    }
    const service = arnServiceOf(pattern) as string;
    byService[service] = [...(byService[service] ?? []), pattern];
  }
  for (const [service, resources] of Object.entries(byService)) {
    delivery.addToRolePolicy(
      new iam.PolicyStatement({
        actions: RESOURCE_DESTINATION_ACTIONS[service] as string[],
        resources: [...new Set(resources)],
      }),
    );
    const wildcards = [...new Set(resources)].filter((resource) => resource.includes('*'));
    if (wildcards.length > 0) {
      Validations.of(delivery.executionRole).acknowledge(
        ...wildcards.map((resource) => ({
          id: `AwsSolutions-IAM5[Resource::${resource}]`,
          reason:
            "The deployer's resourceDestinations pattern: subscriptions may deliver to the resources it names, and only those.",
        })),
      );
    }
  }
}

/**
 * Why a `resourceDestinations` pattern can't be granted, or `undefined`: an ARN of a service
 * resources are delivered to (or an IAM role), a pair's resource not a role and its role a role,
 * no empty, `.` or `..` segment in its resource part, no `,`.
 */
function resourcePatternProblem(pattern: string, part: 'resource' | 'role' | undefined): string | undefined {
  const service = arnServiceOf(pattern);
  const known =
    service !== undefined &&
    RESOURCE_DESTINATION_ACTIONS[service] !== undefined &&
    (part === undefined || (part === 'role') === (service === 'iam'));
  if (!known) {
    return part === 'role'
      ? `must pair a resource with the ARN of an IAM role to assume ({resource, role}; a * stands for any run of characters within one segment).`
      : `must be the ARN of an SQS queue, SNS topic, EventBridge bus, Lambda function, Kinesis stream${part === undefined ? ' or IAM role to assume' : ''} (a * stands for any run of characters within one segment).`;
  }
  if (pattern.includes(',')) return "must not hold a ',' (the environment's separator).";
  const segments = arnSegmentsProblem(pattern);
  return segments === undefined ? undefined : `${segments}.`;
}

/** What delivering to a resource of each service takes. */
const RESOURCE_DESTINATION_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  sqs: ['sqs:SendMessage', 'sqs:GetQueueUrl'],
  sns: ['sns:Publish'],
  events: ['events:PutEvents'],
  lambda: ['lambda:InvokeFunction'],
  kinesis: ['kinesis:PutRecords'],
  iam: ['sts:AssumeRole'],
};

/** The environment every function is given: its settings, defaults filled in. */
export function functionEnvironment(settings: FunctionSettings, apiUrl: string): Record<string, string> {
  return {
    [ENV.deliveryConcurrency]: String(settings.deliveryConcurrency ?? CONFIG_DEFAULTS.deliveryConcurrency),
    [ENV.historyRetentionDays]: String(settings.historyRetentionDays ?? CONFIG_DEFAULTS.historyRetentionDays),
    [ENV.subscriptionCacheSeconds]: String(
      settings.subscriptionCacheSeconds ?? CONFIG_DEFAULTS.subscriptionCacheSeconds,
    ),
    [ENV.publicUrl]: settings.publicUrl ?? apiUrl,
    [ENV.validateEndpoints]: String(settings.validateEndpoints ?? true),
    [ENV.blockPrivateEndpoints]: String(!(settings.allowPrivateEndpoints ?? false)),
    [ENV.subscriptionMetrics]: String(settings.subscriptionMetrics ?? CONFIG_DEFAULTS.subscriptionMetrics),
    [ENV.metricsFlushSeconds]: String(settings.metricsFlushSeconds ?? CONFIG_DEFAULTS.metricsFlushSeconds),
    [ENV.backlog]: String(settings.backlog ?? CONFIG_DEFAULTS.backlog),
    // Only when not the default, so a deployment that keeps it keeps its functions' environment.
    ...(settings.metricsNamespace === undefined ||
    settings.metricsNamespace === CONFIG_DEFAULTS.metricsNamespace
      ? {}
      : { [ENV.metricsNamespace]: settings.metricsNamespace }),
  };
}

export interface FunctionsOptions {
  readonly storage: PipelineStorage;
  readonly queues: Readonly<Record<QueueKey, sqs.IQueue>>;
  readonly environment: Record<string, string>;
  readonly logRetention: RetentionDays;
  /** What happens to the functions' log groups when the stack is deleted or its first create fails. */
  readonly removalPolicy: RemovalPolicy;
  /** Whether every function is traced with X-Ray. */
  readonly tracing: boolean;
  /** The lowest level of the functions' own log lines Lambda keeps. */
  readonly applicationLogLevel: ApplicationLogLevel;
  /** Reserved for (and capping) the publish function; `false` reserves nothing. */
  readonly publishReservedConcurrency: number | false;
  /** Reserved for (and capping) the delivery function; `false` reserves nothing. */
  readonly deliveryReservedConcurrency: number | false;
  /** Jobs waiting in the delivery queue from which publish refuses (429); `false` never. */
  readonly deliveryBacklogLimit: number | false;
  /** Per queue, the most concurrent invocations of its consumer; else the queue's own. */
  readonly maxInvocations: Partial<Record<QueueKey, number>>;
  /** Per queue, the seconds its consumer gathers messages; else the queue's own. */
  readonly batchingWindows: Partial<Record<QueueKey, number>>;
  /** Per queue, the most messages per invocation of its consumer; else the queue's own. */
  readonly batchSizes: Partial<Record<QueueKey, number>>;
  /**
   * Where the delivery function runs in a VPC (the `egress` prop); the other functions call no
   * endpoint, and run outside any VPC.
   */
  readonly deliveryNetwork?: FunctionNetwork;
}

/**
 * The four functions, each bound to exactly what its code calls (shared/storage/*.ts and the
 * queues it sends to), and the queue consumers given their queues.
 */
export function createFunctions(scope: Construct, options: FunctionsOptions): PipelineFunctions {
  const functions: PipelineFunctions = {
    publish: createPublishFunction(scope, options),
    management: createManagementFunction(scope, options),
    delivery: createDeliveryFunction(scope, options),
    deadLetter: createDeadLetterFunction(scope, options),
  };
  consumeQueues(functions, options);
  for (const fn of [functions.publish, functions.management]) {
    Validations.of(fn).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'A function DLQ catches failed asynchronous invocations only; this function is invoked synchronously by the HTTP API, and its caller gets the error.',
    });
  }
  return functions;
}

/** What every function is given alike: logs, tracing and settings. */
const commonProps = (
  options: FunctionsOptions,
): Pick<
  PipelineFunctionProps,
  'logRetention' | 'logRemovalPolicy' | 'environment' | 'tracing' | 'applicationLogLevel'
> => ({
  logRetention: options.logRetention,
  logRemovalPolicy: options.removalPolicy,
  environment: options.environment,
  tracing: options.tracing,
  applicationLogLevel: options.applicationLogLevel,
});

const BACKLOG_GRANT_REASON =
  'Segment object keys are made at run time (topic, subscription, uid, segment id); the grant covers the segment prefix of this one bucket, with only the object actions named.';

const ARCHIVE_GRANT_REASON =
  'Archive segment keys are made at run time (topic, creation time, hour, segment id); the grant covers the archive prefix of this one bucket, with only the object actions named.';

const FAN_OUT_GRANT_REASON =
  'Fan-out object keys are made at run time (day, publish id); the grant covers objects of this one bucket, with only the object action named.';

function createPublishFunction(scope: Construct, options: FunctionsOptions): PipelineFunction {
  const { storage, queues, publishReservedConcurrency, deliveryBacklogLimit } = options;
  const fn = new PipelineFunction(scope, {
    definition: FUNCTIONS.publish,
    ...commonProps(options),
    ...(publishReservedConcurrency === false ? {} : { reservedConcurrency: publishReservedConcurrency }),
  });
  // Publishes are refused (429) while this many jobs wait in the delivery queue; 0 never.
  fn.addEnvironment(
    ENV.deliveryBacklogLimit,
    String(deliveryBacklogLimit === false ? 0 : deliveryBacklogLimit),
  );
  return (
    fn
      // Topics, namespace topics and their subscription lists.
      .bindTable(storage.table, TABLE.nameEnv, ['GetItem', 'Query'])
      // Claims (and gives back) the ids of events published to topics with a de-duplication
      // window: those items only.
      .bindTableItems(storage.table, ['PutItem', 'DeleteItem'], TABLE.acceptedIdPrefix)
      // Sends jobs; the send grant also holds sqs:GetQueueAttributes, with which the backlog
      // gate reads how many jobs wait.
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'send')
      // A publish to one held subscription goes straight to its backlog (the held marks are
      // read with the subscription list).
      .bindQueue(queues.backlog, QUEUES.backlog.urlEnv, 'send')
      // The events of subscriptions with ordered delivery, one message each in its key's group.
      .bindQueue(queues.ordered, QUEUES.ordered.urlEnv, 'send')
      // A publish's archive copy, when it cannot ride on the publish's own message.
      .bindQueue(queues.archive, QUEUES.archive.urlEnv, 'send')
      // Stores a fan-out too large for one message before sending the message naming it.
      .bindBucket(storage.fanOutBucket, FAN_OUT_BUCKET.nameEnv, 'write', FAN_OUT_GRANT_REASON)
      // Opens topic keys to check keys and SAS signatures.
      .bindSecret(storage.topicKeySecret, ENV.topicKeySecretArn)
  );
}

/**
 * Management also lists, reads and marks dead letters, and queues their replays; it sends a
 * backlog its tick at once after a change (enable, new endpoint URL, delete).
 */
function createManagementFunction(scope: Construct, options: FunctionsOptions): PipelineFunction {
  const { storage, queues } = options;
  return (
    new PipelineFunction(scope, {
      definition: FUNCTIONS.management,
      ...commonProps(options),
    })
      // Topics, namespaces, subscriptions, health resets, history queries; topic lists through the index.
      .bindTable(
        storage.table,
        TABLE.nameEnv,
        ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
        [TABLE.topicsIndex.name],
      )
      // Lists and reads dead letters, reads and writes their replay markers.
      .bindBucket(storage.deadLetterBucket, BUCKET.nameEnv, 'readWrite')
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'send')
      // Backlog ticks travel on the retry queue (`BACKLOG_TICK_QUEUE`); management only sends them.
      .bindQueue(queues.retry, QUEUES.retry.urlEnv, 'send')
      // Seals secret header values and topic keys before they are stored.
      .bindSecret(storage.headerKeySecret, ENV.headerKeySecretArn)
      .bindSecret(storage.topicKeySecret, ENV.topicKeySecretArn)
      // Signs and checks console and portal session tokens; replaces the key to revoke them all.
      .bindSecret(storage.sessionKeySecret, ENV.sessionKeySecretArn, 'readReplace')
  );
}

function createDeliveryFunction(scope: Construct, options: FunctionsOptions): PipelineFunction {
  const { storage, queues, deliveryReservedConcurrency, deliveryNetwork } = options;
  return (
    new PipelineFunction(scope, {
      definition: FUNCTIONS.delivery,
      ...commonProps(options),
      ...(deliveryReservedConcurrency === false ? {} : { reservedConcurrency: deliveryReservedConcurrency }),
      ...(deliveryNetwork === undefined ? {} : { network: deliveryNetwork }),
    })
      // Reads subscriptions; writes attempt history (batches) and endpoint health (conditional
      // puts); the validation handshake records consent on the subscription (a conditional put)
      // and bumps its topic's subscription-list version (an update).
      // Backlogs: their segments are listed (Query) and deleted, and the sweep reads the timer index;
      // ticks put and delete held marks (conditional) and bump the topic's version with them.
      // Late answers are written in batches and looked up in batches (BatchGetItem).
      .bindTable(
        storage.table,
        TABLE.nameEnv,
        ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
        [TABLE.topicsIndex.name],
      )
      // Sends: the delivery jobs of large fan-outs, passed on to other invocations.
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'sendAndConsume')
      .bindQueue(queues.retry, QUEUES.retry.urlEnv, 'sendAndConsume')
      // Reads stored fan-outs.
      .bindBucket(storage.fanOutBucket, FAN_OUT_BUCKET.nameEnv, 'read', FAN_OUT_GRANT_REASON)
      .bindQueue(queues.endedDelivery, QUEUES.endedDelivery.urlEnv, 'send')
      // Keeps events in subscriptions' backlogs: store jobs in, segments written, read and removed.
      .bindQueue(queues.backlog, QUEUES.backlog.urlEnv, 'sendAndConsume')
      // Delivers ordered events one key at a time; a retry is its message made invisible until
      // it is due (sqs:ChangeMessageVisibility, which consuming grants). Sends: the notices it
      // publishes (a subscription disabled) to the ordered subscriptions of the system topic.
      .bindQueue(queues.ordered, QUEUES.ordered.urlEnv, 'sendAndConsume')
      // Forwards the archive copies its messages carry (and its notices' copies).
      .bindQueue(queues.archive, QUEUES.archive.urlEnv, 'send')
      // Replays read the archive's segments, page by page.
      .bindBucketPrefix(
        storage.archiveBucket,
        ARCHIVE_BUCKET.nameEnv,
        ARCHIVE_BUCKET.prefix,
        ARCHIVE_GRANT_REASON,
        'read',
      )
      .bindBucketPrefix(
        storage.backlogBucket,
        BACKLOG_BUCKET.nameEnv,
        BACKLOG_BUCKET.prefix,
        BACKLOG_GRANT_REASON,
      )
      // Opens them to send them.
      .bindSecret(storage.headerKeySecret, ENV.headerKeySecretArn)
  );
}

/**
 * Consumes ended deliveries (the dead-letter step), and publishes a dead-letter notice for each
 * blob written to the stack's own notices topic, as the publish function publishes.
 */
function createDeadLetterFunction(scope: Construct, options: FunctionsOptions): PipelineFunction {
  const { storage, queues } = options;
  return (
    new PipelineFunction(scope, {
      definition: FUNCTIONS.deadLetter,
      ...commonProps(options),
    })
      // It re-queues what the bucket refuses, to try again later.
      .bindQueue(queues.endedDelivery, QUEUES.endedDelivery.urlEnv, 'sendAndConsume')
      .bindBucket(storage.deadLetterBucket, BUCKET.nameEnv, 'write')
      // Notices: the notices topic and its subscription list (with held marks) are read, the
      // notices queued as a publish queues its events.
      .bindTable(storage.table, TABLE.nameEnv, ['GetItem', 'Query'])
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'send')
      .bindQueue(queues.backlog, QUEUES.backlog.urlEnv, 'send')
      .bindQueue(queues.ordered, QUEUES.ordered.urlEnv, 'send')
      .bindBucket(storage.fanOutBucket, FAN_OUT_BUCKET.nameEnv, 'write', FAN_OUT_GRANT_REASON)
      // Archive copies: sent (a notice's) and consumed, their segments written under the prefix.
      .bindQueue(queues.archive, QUEUES.archive.urlEnv, 'sendAndConsume')
      .bindBucketPrefix(
        storage.archiveBucket,
        ARCHIVE_BUCKET.nameEnv,
        ARCHIVE_BUCKET.prefix,
        ARCHIVE_GRANT_REASON,
      )
      // Topic items hold their keys sealed; reading one opens them.
      .bindSecret(storage.topicKeySecret, ENV.topicKeySecretArn)
  );
}

/**
 * Each queue's consumer (`QUEUES[key].consumer`) gets the queue as an event source, reporting
 * partial batch failures. A FIFO queue's consumer has no batching window (Lambda takes none from
 * a FIFO queue; its definition has none, and no prop gives one).
 */
function consumeQueues(functions: PipelineFunctions, options: FunctionsOptions): void {
  const consumers = new Set<PipelineFunction>();
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    const consumer = QUEUES[key].consumer;
    const fn = functions[consumer.function];
    const batchingWindowSeconds = options.batchingWindows[key] ?? consumer.batchingWindowSeconds;
    fn.addEventSource(
      new SqsEventSource(options.queues[key], {
        batchSize: options.batchSizes[key] ?? consumer.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: options.maxInvocations[key] ?? consumer.maxConcurrency,
        ...(batchingWindowSeconds > 0 ? { maxBatchingWindow: Duration.seconds(batchingWindowSeconds) } : {}),
      }),
    );
    consumers.add(fn);
  }
  // Acknowledged on the functions, which hold their event source mappings.
  for (const fn of consumers) {
    Validations.of(fn).acknowledge(
      {
        id: 'Serverless-LambdaEventSourceMappingDestination',
        reason:
          "SQS event source mappings take no on-failure destination (CloudFormation supports them for Kafka and streams only); a message failing maxReceiveCount times moves to its queue's redrive queue, which is alarmed.",
      },
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          "A function DLQ catches failed asynchronous invocations only; this function is invoked by SQS event source mappings, whose failures go to each queue's redrive queue.",
      },
    );
  }
}

import { Aws, CfnOutput, Duration, Fn, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  BUCKET,
  ENV,
  FAN_OUT_BUCKET,
  FUNCTIONS,
  type FunctionKey,
  QUEUES,
  type QueueKey,
  queueOutputNames,
  ROUTES,
  SQS_LIMITS,
  TABLE,
} from '../shared/config/resources';
import {
  CONFIG_DEFAULTS,
  describeRange,
  isInRange,
  SETTING_RANGES,
  type SettingRange,
} from '../shared/config/runtime';
import { createAlarms, createDashboard, type PipelineAlarms } from './monitoring';
import { PipelineFunction } from './pipeline-function';

/** Requests per second and burst the API stage accepts by default (see `throttle`). */
export const DEFAULT_THROTTLE = { rateLimit: 5_000, burstLimit: 2_500 } as const;

/** Concurrent executions reserved for the publish function by default (see `reservedConcurrency`). */
export const DEFAULT_PUBLISH_RESERVED_CONCURRENCY = 100;

export interface DeliveryPipelineProps {
  /**
   * What happens to the table, the dead-letter bucket and the header key secret when the stack
   * is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Days function and API access logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * Webhook requests one delivery invocation keeps in flight.
   * @default 32
   */
  readonly deliveryConcurrency?: number;
  /**
   * Upper bound on concurrent delivery invocations per queue (Lambda's minimum is 2).
   * @default the `consumer.maxConcurrency` of each queue in shared/config/resources.ts (50 fresh, 20 retries)
   */
  readonly maxDeliveryInvocations?: Partial<Record<QueueKey, number>>;
  /**
   * Days the failed-attempt history is kept in the table.
   * @default 7
   */
  readonly historyRetentionDays?: number;
  /**
   * Seconds a delivery function trusts a cached subscription before reading it again.
   * @default 10
   */
  readonly subscriptionCacheSeconds?: number;
  /**
   * The API's public base URL (a custom domain in front of the API): the base of topic `endpoint`
   * properties, validation URLs and the handshake's origin. Never taken from a request.
   * @default the HTTP API's own URL, `https://<api id>.execute-api.<region>.<suffix>`
   */
  readonly publicUrl?: string;
  /**
   * An existing bucket for dead letters.
   * @default a new bucket: public access blocked, S3-managed encryption, TLS only
   */
  readonly deadLetterBucket?: s3.IBucket;
  /**
   * The topic every alarm notifies when it fires and again when it clears (see `alarms`).
   * Subscribe your on-call channel to it. A topic encrypted with a KMS key must let
   * `cloudwatch.amazonaws.com` use the key.
   * @default a new topic, encrypted with its own KMS key, TLS only (exposed as `alarmTopic`)
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Steady-state requests per second (`rateLimit`) and burst (`burstLimit`, requests) the API
   * stage accepts over all routes; above them callers get `429 Too Many Requests` from the
   * gateway. The default is half the account's regional API Gateway quota (10,000 rps, 5,000
   * burst, shared by every API of the account in the region), so one Gridwire can't starve the
   * account's other APIs, and about what 100 publish functions serve at 20 ms a request.
   * @default { rateLimit: 5000, burstLimit: 2500 }
   */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Concurrent executions reserved for the publish function, which also caps it: a flood of
   * publish requests can't take the concurrency the delivery functions need, and can't scale
   * costs without bound. `false` reserves nothing (the function shares the account's unreserved
   * pool). Lambda refuses a reservation that would leave the account less than 100 unreserved
   * executions, so on an account with the default-for-new-accounts limit of 10 (or any limit
   * under 100 + this number) the deploy fails: set `false` there, or ask for a higher limit.
   * @default 100
   */
  readonly reservedConcurrency?: number | false;
  /**
   * Whether the table has DynamoDB deletion protection: it can't be deleted (by CloudFormation
   * or anyone else) until this is turned off. Turn it off before deleting a stack whose
   * `removalPolicy` is DESTROY.
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * Whether a subscription's endpoint must agree to receive (the validation handshake: the Event
   * Grid validation event, or the CloudEvents `OPTIONS` request) before events are matched to it.
   * @default true
   */
  readonly validateEndpoints?: boolean;
  /**
   * Whether endpoint URLs may point at loopback, private, link-local (cloud metadata) or other
   * non-public addresses. Off, such URLs are refused when a subscription is written and again at
   * every connection (SSRF protection).
   * @default false
   */
  readonly allowPrivateEndpoints?: boolean;
}

/**
 * Gridwire's delivery pipeline: an HTTP API in front of the publish and management functions,
 * a delivery queue and a retry queue (each with a redrive queue) consumed by the delivery
 * function with partial batch failures, one DynamoDB table, a dead-letter bucket, and an alarm
 * per redrive queue.
 *
 * Every name comes from `shared/config/resources.ts`, which the local stack builds from too.
 */
export class DeliveryPipeline extends Construct {
  readonly api: HttpApi;
  readonly table: dynamodb.TableV2;
  readonly queues: Readonly<Record<QueueKey, sqs.Queue>>;
  readonly redriveQueues: Readonly<Record<QueueKey, sqs.Queue>>;
  /**
   * One alarm per redrive queue, in ALARM while at least one message is parked there (messages
   * the queue's consumer failed on `maxReceiveCount` times). The same as `alarms.parked`.
   */
  readonly parkedAlarms: Readonly<Record<QueueKey, cloudwatch.Alarm>>;
  /**
   * Every alarm of the pipeline, each notifying `alarmTopic` when it fires and when it clears.
   * Add other actions with `addAlarmAction`, for example
   * `pipeline.alarms.droppedEvents.addAlarmAction(new SnsAction(pager))`.
   */
  readonly alarms: PipelineAlarms;
  /** The topic every alarm notifies: the `alarmTopic` prop, or the one created for it. */
  readonly alarmTopic: sns.ITopic;
  /** The pipeline's CloudWatch dashboard (see docs/operate.md). */
  readonly dashboard: cloudwatch.Dashboard;
  readonly deadLetterBucket: s3.IBucket;
  /**
   * Publishes whose fan-out is too large for one SQS message, stored before their message is sent
   * (written by the publish function, read by the delivery function); they expire after
   * `FAN_OUT_BUCKET.retentionDays` days.
   */
  readonly fanOutBucket: s3.Bucket;
  /** Server access logs of the dead-letter bucket; undefined when the bucket was given. */
  readonly deadLetterAccessLogsBucket?: s3.Bucket;
  /**
   * The key that seals secret delivery header values in the table. Only the management (seals)
   * and delivery (opens) functions may read it. It is kept or removed with the table: sealed
   * values can't be opened without it.
   */
  readonly headerKeySecret: secretsmanager.Secret;
  /**
   * The key that seals topic and namespace access keys in the table. Only the management (seals)
   * and publish (opens) functions may read it; kept or removed with the table.
   */
  readonly topicKeySecret: secretsmanager.Secret;
  readonly publishFunction: PipelineFunction;
  readonly managementFunction: PipelineFunction;
  readonly deliveryFunction: PipelineFunction;
  /** Consumes ended deliveries (the dead-letter step). */
  readonly deadLetterFunction: PipelineFunction;

  constructor(scope: Construct, id: string, props: DeliveryPipelineProps = {}) {
    super(scope, id);
    // Server access logs are delivered under a bucket policy, not the legacy log-delivery ACL, so
    // the log bucket can keep ACLs disabled (this flag's default for new apps).
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    validateProps(props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;

    this.table = new dynamodb.TableV2(this, TABLE.id, {
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE.ttlAttribute,
      deletionProtection: props.deletionProtection ?? true,
      globalSecondaryIndexes: [
        {
          indexName: TABLE.topicsIndex.name,
          partitionKey: { name: TABLE.topicsIndex.partitionKey, type: dynamodb.AttributeType.STRING },
          sortKey: { name: TABLE.topicsIndex.sortKey, type: dynamodb.AttributeType.STRING },
        },
      ],
      removalPolicy,
    });

    if (props.deadLetterBucket === undefined) {
      // Who read or wrote which dead letter, kept for a year.
      const accessLogs = new s3.Bucket(this, `${BUCKET.id}AccessLogs`, {
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        encryption: s3.BucketEncryption.S3_MANAGED,
        enforceSSL: true,
        objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        lifecycleRules: [{ expiration: Duration.days(365) }],
        removalPolicy,
        autoDeleteObjects: false,
      });
      Validations.of(accessLogs).acknowledge({
        id: 'AwsSolutions-S1',
        reason: 'This is the access log bucket of the dead-letter bucket; logging it would log into itself.',
      });
      this.deadLetterAccessLogsBucket = accessLogs;
      this.deadLetterBucket = new s3.Bucket(this, BUCKET.id, {
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        encryption: s3.BucketEncryption.S3_MANAGED,
        enforceSSL: true,
        serverAccessLogsBucket: accessLogs,
        serverAccessLogsPrefix: 'dead-letters/',
        removalPolicy,
        autoDeleteObjects: false,
      });
    } else {
      this.deadLetterBucket = props.deadLetterBucket;
    }

    // Holds copies of events in transit only, each for at most `FAN_OUT_BUCKET.retentionDays` days; the
    // dead-letter bucket is where events are kept for operators.
    this.fanOutBucket = new s3.Bucket(this, FAN_OUT_BUCKET.id, {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(FAN_OUT_BUCKET.retentionDays) }],
      removalPolicy,
      autoDeleteObjects: false,
    });
    Validations.of(this.fanOutBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds events in transit for a few days, written and read only by the pipeline functions; their logs and the delivery metrics record each publish and delivery.',
    });

    this.headerKeySecret = new secretsmanager.Secret(this, 'HeaderKey', {
      description: 'Gridwire: the key that seals secret delivery header values stored in the table',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    this.topicKeySecret = new secretsmanager.Secret(this, 'TopicKey', {
      description: 'Gridwire: the key that seals topic and namespace access keys stored in the table',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    for (const secret of [this.headerKeySecret, this.topicKeySecret]) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The key seals values stored in the table; a rotation would leave every stored value unreadable until re-sealed, and Gridwire has no re-sealing rotation yet.',
      });
    }

    const queues = {} as Record<QueueKey, sqs.Queue>;
    const redriveQueues = {} as Record<QueueKey, sqs.Queue>;
    for (const key of Object.keys(QUEUES) as QueueKey[]) {
      const definition = QUEUES[key];
      redriveQueues[key] = new sqs.Queue(this, definition.redrive.id, {
        retentionPeriod: Duration.days(definition.redrive.retentionDays),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        maxMessageSizeBytes: SQS_LIMITS.maxMessageBytes,
      });
      Validations.of(redriveQueues[key]).acknowledge({
        id: 'Serverless-SQSRedrivePolicy',
        reason:
          'This is a redrive queue: it holds what its queue could not process, for an operator (gridwire parked). A redrive queue of its own would only move the messages further from sight.',
      });
      queues[key] = new sqs.Queue(this, definition.id, {
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        maxMessageSizeBytes: SQS_LIMITS.maxMessageBytes,
        deadLetterQueue: { queue: redriveQueues[key], maxReceiveCount: definition.maxReceiveCount },
      });
    }
    this.queues = queues;
    this.redriveQueues = redriveQueues;

    // Made before the functions, which are given its URL; it refers to none of them (its routes
    // are added below), so CloudFormation sees no cycle.
    this.api = new HttpApi(this, 'Api', {
      description: 'Gridwire: publish events and manage topics and event subscriptions',
      createDefaultStage: false,
    });
    // The $default stage's URL has no stage path; built from the API id, not the stage, which
    // depends on the routes and so on the functions.
    const apiUrl = Fn.join('', [
      'https://',
      this.api.apiId,
      '.execute-api.',
      Aws.REGION,
      '.',
      Aws.URL_SUFFIX,
    ]);
    const settings: Record<string, string> = {
      [ENV.deliveryConcurrency]: String(props.deliveryConcurrency ?? CONFIG_DEFAULTS.deliveryConcurrency),
      [ENV.historyRetentionDays]: String(props.historyRetentionDays ?? CONFIG_DEFAULTS.historyRetentionDays),
      [ENV.subscriptionCacheSeconds]: String(
        props.subscriptionCacheSeconds ?? CONFIG_DEFAULTS.subscriptionCacheSeconds,
      ),
      [ENV.publicUrl]: props.publicUrl ?? apiUrl,
      [ENV.validateEndpoints]: String(props.validateEndpoints ?? true),
      [ENV.blockPrivateEndpoints]: String(!(props.allowPrivateEndpoints ?? false)),
    };

    // Each function may call exactly what its code calls on the table (shared/storage/*.ts).
    const reservedConcurrency = props.reservedConcurrency ?? DEFAULT_PUBLISH_RESERVED_CONCURRENCY;
    this.publishFunction = new PipelineFunction(this, {
      definition: FUNCTIONS.publish,
      logRetention,
      environment: settings,
      ...(reservedConcurrency === false ? {} : { reservedConcurrency }),
    })
      // Topics, namespace topics and their subscription lists.
      .bindTable(this.table, TABLE.nameEnv, ['GetItem', 'Query'])
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'send')
      // Stores a fan-out too large for one message before sending the message naming it.
      .bindBucket(this.fanOutBucket, FAN_OUT_BUCKET.nameEnv, 'write', FAN_OUT_GRANT_REASON)
      // Opens topic keys to check keys and SAS signatures.
      .bindSecret(this.topicKeySecret, ENV.topicKeySecretArn);

    // Management also lists, reads and marks dead letters, and queues their replays.
    this.managementFunction = new PipelineFunction(this, {
      definition: FUNCTIONS.management,
      logRetention,
      environment: settings,
    })
      // Topics, namespaces, subscriptions, health resets, history queries; topic lists through the index.
      .bindTable(
        this.table,
        TABLE.nameEnv,
        ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
        [TABLE.topicsIndex.name],
      )
      // Lists and reads dead letters, reads and writes their replay markers.
      .bindBucket(this.deadLetterBucket, BUCKET.nameEnv, 'readWrite')
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'send')
      // Seals secret header values and topic keys before they are stored.
      .bindSecret(this.headerKeySecret, ENV.headerKeySecretArn)
      .bindSecret(this.topicKeySecret, ENV.topicKeySecretArn);

    this.deliveryFunction = new PipelineFunction(this, {
      definition: FUNCTIONS.delivery,
      logRetention,
      environment: settings,
    })
      // Reads subscriptions; writes attempt history (batches) and endpoint health (conditional
      // puts); the validation handshake records consent on the subscription (a conditional put)
      // and bumps its topic's subscription-list version (an update).
      .bindTable(this.table, TABLE.nameEnv, ['GetItem', 'PutItem', 'UpdateItem', 'BatchWriteItem'])
      // Sends: the delivery jobs of large fan-outs, passed on to other invocations.
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'sendAndConsume')
      .bindQueue(queues.retry, QUEUES.retry.urlEnv, 'sendAndConsume')
      // Reads stored fan-outs.
      .bindBucket(this.fanOutBucket, FAN_OUT_BUCKET.nameEnv, 'read', FAN_OUT_GRANT_REASON)
      .bindQueue(queues.deadLetter, QUEUES.deadLetter.urlEnv, 'send')
      // Opens them to send them.
      .bindSecret(this.headerKeySecret, ENV.headerKeySecretArn);

    this.deadLetterFunction = new PipelineFunction(this, {
      definition: FUNCTIONS.deadLetter,
      logRetention,
      environment: settings,
    })
      // It re-queues what the bucket refuses, to try again later.
      .bindQueue(queues.deadLetter, QUEUES.deadLetter.urlEnv, 'sendAndConsume')
      .bindBucket(this.deadLetterBucket, BUCKET.nameEnv, 'write');

    const consumers: Partial<Record<FunctionKey, PipelineFunction>> = {
      delivery: this.deliveryFunction,
      deadLetter: this.deadLetterFunction,
    };
    for (const key of Object.keys(QUEUES) as QueueKey[]) {
      const consumer = QUEUES[key].consumer;
      const fn = consumers[consumer.function];
      if (fn === undefined) throw new Error(`no function defined to consume the ${key} queue`);
      fn.addEventSource(
        new SqsEventSource(queues[key], {
          batchSize: consumer.batchSize,
          reportBatchItemFailures: true,
          maxConcurrency: props.maxDeliveryInvocations?.[key] ?? consumer.maxConcurrency,
          ...(consumer.batchingWindowSeconds > 0
            ? { maxBatchingWindow: Duration.seconds(consumer.batchingWindowSeconds) }
            : {}),
        }),
      );
    }
    // Acknowledged on the functions, which hold their event source mappings.
    for (const fn of [this.deliveryFunction, this.deadLetterFunction]) {
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
    for (const fn of [this.publishFunction, this.managementFunction]) {
      Validations.of(fn).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'A function DLQ catches failed asynchronous invocations only; this function is invoked synchronously by the HTTP API, and its caller gets the error.',
      });
    }

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: logRetention, removalPolicy });
    const throttle = props.throttle ?? DEFAULT_THROTTLE;
    new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: throttle.rateLimit, burstLimit: throttle.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // One JSON object per request. No query strings: validation URLs carry codes there.
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    const integrations = {
      publish: new HttpLambdaIntegration('PublishIntegration', this.publishFunction),
      management: new HttpLambdaIntegration('ManagementIntegration', this.managementFunction),
    };
    // Admin routes and IAM publishing: the caller must sign with SigV4 and be allowed
    // `execute-api:Invoke` on the route (for publishing, per topic through the resource ARN).
    const iamAuthorizer = new HttpIamAuthorizer();
    for (const route of ROUTES) {
      const gatewayChecked = route.auth === 'admin' || route.auth === 'iam';
      const added = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrations[route.function],
        ...(gatewayChecked ? { authorizer: iamAuthorizer } : {}),
      });
      if (gatewayChecked) continue;
      for (const httpRoute of added) {
        Validations.of(httpRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason:
            route.auth === 'topicKey'
              ? 'Publishing with topic keys, as Event Grid clients do: the publish function checks the aeg-sas-key or SAS token against the topic on every request; a gateway authorizer cannot know topic keys.'
              : "The validation URL an endpoint owner opens to consent: the management function checks the subscription's validation code in the URL; there is no caller identity to authorize.",
        });
      }
    }

    if (props.alarmTopic === undefined) {
      const key = new kms.Key(this, 'AlarmTopicKey', {
        description: 'Gridwire: encrypts alarm notifications',
        enableKeyRotation: true,
        removalPolicy,
      });
      // CloudWatch can only publish to an encrypted topic whose key lets it.
      key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
      this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
        displayName: 'Gridwire alarms',
        masterKey: key,
        enforceSSL: true,
      });
    } else {
      this.alarmTopic = props.alarmTopic;
    }
    const monitored = {
      api: this.api,
      queues,
      redriveQueues,
      functions: {
        publish: this.publishFunction,
        management: this.managementFunction,
        delivery: this.deliveryFunction,
        deadLetter: this.deadLetterFunction,
      },
      alarmTopic: this.alarmTopic,
    };
    this.alarms = createAlarms(this, monitored);
    this.parkedAlarms = this.alarms.parked;
    this.dashboard = createDashboard(this, monitored);

    new CfnOutput(this, 'ApiUrl', {
      value: this.api.apiEndpoint,
      description: 'Base URL of the Gridwire API',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'DeadLetterBucketName', { value: this.deadLetterBucket.bucketName });
    // Output names are fixed (no construct path or hash) so `gridwire parked --stack` finds them.
    for (const key of Object.keys(QUEUES) as QueueKey[]) {
      const names = queueOutputNames(key);
      new CfnOutput(this, `${QUEUES[key].id}Url`, {
        value: queues[key].queueUrl,
        description: `URL of the ${key} queue`,
      }).overrideLogicalId(names.url);
      new CfnOutput(this, `${QUEUES[key].redrive.id}Url`, {
        value: redriveQueues[key].queueUrl,
        description: `URL of the ${key} queue's redrive queue (parked messages)`,
      }).overrideLogicalId(names.redriveUrl);
    }
  }

  /** Lets `grantee` call the admin API (`/admin/*`) with SigV4-signed requests. */
  grantAdmin(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['execute-api:Invoke'],
      resourceArns: [this.api.arnForExecuteApi('*', '/admin/*')],
    });
  }
}

/** The fields of each API access log line (HTTP API `$context` variables). */
const FAN_OUT_GRANT_REASON =
  'Fan-out object keys are made at run time (day, publish id); the grant covers objects of this one bucket, with only the object action named.';

const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  caller: '$context.identity.caller',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
} as const;

/** Lambda's bounds on an SQS event source's maximum concurrency. */
const EVENT_SOURCE_CONCURRENCY: SettingRange = { min: 2, max: 1000, integer: true };

/** The props that are function settings, each checked against the range `readConfig` checks. */
const FUNCTION_SETTING_PROPS = [
  'deliveryConcurrency',
  'historyRetentionDays',
  'subscriptionCacheSeconds',
] as const;

function validateProps(props: DeliveryPipelineProps): void {
  const problems: string[] = [];
  const check = (ok: boolean, message: string) => {
    if (!ok) problems.push(message);
  };
  const checkRange = (name: string, value: number | undefined, range: SettingRange) => {
    if (value === undefined) return;
    check(isInRange(value, range), `${name} must be ${describeRange(range)} (got ${value})`);
  };
  for (const name of FUNCTION_SETTING_PROPS) checkRange(name, props[name], SETTING_RANGES[name]);
  for (const [key, value] of Object.entries(props.maxDeliveryInvocations ?? {})) {
    checkRange(`maxDeliveryInvocations.${key}`, value, EVENT_SOURCE_CONCURRENCY);
  }
  if (props.publicUrl !== undefined) {
    check(
      /^https:\/\/[^/]+/.test(props.publicUrl),
      `publicUrl must be an https URL (got ${props.publicUrl})`,
    );
  }
  if (props.throttle !== undefined) {
    const { rateLimit, burstLimit } = props.throttle;
    check(
      Number.isFinite(rateLimit) && rateLimit > 0,
      `throttle.rateLimit must be a number of requests per second above 0 (got ${rateLimit})`,
    );
    check(
      Number.isInteger(burstLimit) && burstLimit >= 1,
      `throttle.burstLimit must be an integer of at least 1 (got ${burstLimit})`,
    );
  }
  if (props.reservedConcurrency !== undefined && props.reservedConcurrency !== false) {
    check(
      Number.isInteger(props.reservedConcurrency) && props.reservedConcurrency >= 1,
      `reservedConcurrency must be false or an integer of at least 1 (got ${props.reservedConcurrency})`,
    );
  }
  if (problems.length > 0) throw new Error(`Invalid DeliveryPipeline props: ${problems.join('; ')}`);
}

import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  BUCKET,
  ENV,
  FUNCTIONS,
  type FunctionKey,
  QUEUES,
  type QueueKey,
  queueOutputNames,
  ROUTES,
  SQS_LIMITS,
  TABLE,
} from '../shared/config/resources';
import { CONFIG_DEFAULTS } from '../shared/config/runtime';
import { PipelineFunction } from './pipeline-function';

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
   * Base URL that topic `endpoint` properties use (for a custom domain in front of the API).
   * @default the API's own URL, taken from each request
   */
  readonly publicUrl?: string;
  /**
   * An existing bucket for dead letters.
   * @default a new bucket: public access blocked, S3-managed encryption, TLS only
   */
  readonly deadLetterBucket?: s3.IBucket;
  /**
   * A topic notified when messages are parked in a redrive queue, and again when the redrive
   * queue is empty (the parked alarms' alarm and OK actions). For other actions, use
   * `parkedAlarms`.
   * @default no actions: the alarms only change state
   */
  readonly alarmTopic?: sns.ITopic;
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
   * the queue's consumer failed on `maxReceiveCount` times). They have no actions unless
   * `alarmTopic` is given; add your own with `addAlarmAction`, for example
   * `pipeline.parkedAlarms.delivery.addAlarmAction(new SnsAction(topic))`.
   */
  readonly parkedAlarms: Readonly<Record<QueueKey, cloudwatch.Alarm>>;
  readonly deadLetterBucket: s3.IBucket;
  /**
   * The key that seals secret delivery header values in the table. Only the management (seals)
   * and delivery (opens) functions may read it. It is kept or removed with the table: sealed
   * values can't be opened without it.
   */
  readonly headerKeySecret: secretsmanager.Secret;
  readonly publishFunction: PipelineFunction;
  readonly managementFunction: PipelineFunction;
  readonly deliveryFunction: PipelineFunction;
  /** Consumes ended deliveries (the dead-letter step). */
  readonly deadLetterFunction: PipelineFunction;

  constructor(scope: Construct, id: string, props: DeliveryPipelineProps = {}) {
    super(scope, id);
    validateProps(props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;

    this.table = new dynamodb.TableV2(this, TABLE.id, {
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE.ttlAttribute,
      globalSecondaryIndexes: [
        {
          indexName: TABLE.topicsIndex.name,
          partitionKey: { name: TABLE.topicsIndex.partitionKey, type: dynamodb.AttributeType.STRING },
          sortKey: { name: TABLE.topicsIndex.sortKey, type: dynamodb.AttributeType.STRING },
        },
      ],
      removalPolicy,
    });

    this.deadLetterBucket =
      props.deadLetterBucket ??
      new s3.Bucket(this, BUCKET.id, {
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        encryption: s3.BucketEncryption.S3_MANAGED,
        enforceSSL: true,
        removalPolicy,
        autoDeleteObjects: false,
      });

    this.headerKeySecret = new secretsmanager.Secret(this, 'HeaderKey', {
      description: 'Gridwire: the key that seals secret delivery header values stored in the table',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });

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
    this.parkedAlarms = createParkedAlarms(this, redriveQueues, props.alarmTopic);

    const settings: Record<string, string> = {
      [ENV.deliveryConcurrency]: String(props.deliveryConcurrency ?? CONFIG_DEFAULTS.deliveryConcurrency),
      [ENV.historyRetentionDays]: String(props.historyRetentionDays ?? CONFIG_DEFAULTS.historyRetentionDays),
      [ENV.subscriptionCacheSeconds]: String(
        props.subscriptionCacheSeconds ?? CONFIG_DEFAULTS.subscriptionCacheSeconds,
      ),
      ...(props.publicUrl === undefined ? {} : { [ENV.publicUrl]: props.publicUrl }),
      [ENV.validateEndpoints]: String(props.validateEndpoints ?? true),
      [ENV.blockPrivateEndpoints]: String(!(props.allowPrivateEndpoints ?? false)),
    };

    this.publishFunction = new PipelineFunction(this, {
      definition: FUNCTIONS.publish,
      logRetention,
      environment: settings,
    })
      .bindTable(this.table, TABLE.nameEnv, 'read')
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'send');

    // Management also lists, reads and marks dead letters, and queues their replays.
    this.managementFunction = new PipelineFunction(this, {
      definition: FUNCTIONS.management,
      logRetention,
      environment: settings,
    })
      .bindTable(this.table, TABLE.nameEnv, 'readWrite')
      .bindBucket(this.deadLetterBucket, BUCKET.nameEnv, 'readWrite')
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'send')
      // Seals secret header values before they are stored.
      .bindSecret(this.headerKeySecret, ENV.headerKeySecretArn);

    this.deliveryFunction = new PipelineFunction(this, {
      definition: FUNCTIONS.delivery,
      logRetention,
      environment: settings,
    })
      .bindTable(this.table, TABLE.nameEnv, 'readWrite')
      .bindQueue(queues.delivery, QUEUES.delivery.urlEnv, 'consume')
      .bindQueue(queues.retry, QUEUES.retry.urlEnv, 'sendAndConsume')
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

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: logRetention, removalPolicy });
    this.api = new HttpApi(this, 'Api', {
      description: 'Gridwire: publish events and manage topics and event subscriptions',
      createDefaultStage: false,
    });
    new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs) },
    });
    const integrations = {
      publish: new HttpLambdaIntegration('PublishIntegration', this.publishFunction),
      management: new HttpLambdaIntegration('ManagementIntegration', this.managementFunction),
    };
    // Admin routes and IAM publishing: the caller must sign with SigV4 and be allowed
    // `execute-api:Invoke` on the route (for publishing, per topic through the resource ARN).
    const iamAuthorizer = new HttpIamAuthorizer();
    for (const route of ROUTES) {
      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrations[route.function],
        ...(route.auth === 'admin' || route.auth === 'iam' ? { authorizer: iamAuthorizer } : {}),
      });
    }

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

/** An alarm per redrive queue: any parked message needs an operator's look. */
function createParkedAlarms(
  scope: Construct,
  redriveQueues: Readonly<Record<QueueKey, sqs.Queue>>,
  topic: sns.ITopic | undefined,
): Record<QueueKey, cloudwatch.Alarm> {
  const stackName = Stack.of(scope).stackName;
  const alarms = {} as Record<QueueKey, cloudwatch.Alarm>;
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    const definition = QUEUES[key];
    const alarm = redriveQueues[key]
      .metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      })
      .createAlarm(scope, `${definition.redrive.id}Alarm`, {
        threshold: 1,
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription:
          `Gridwire (${stackName}): messages are parked in the ${key} queue's redrive queue: the ` +
          `${definition.consumer.function} function failed on each of them ` +
          `${definition.maxReceiveCount} times, and nothing processes them there. Inspect them with ` +
          `"gridwire parked list --stack ${stackName} --queue ${key}"; after fixing the cause, ` +
          `move them back with "gridwire parked redrive --stack ${stackName} --queue ${key}".`,
      });
    if (topic !== undefined) {
      alarm.addAlarmAction(new SnsAction(topic));
      alarm.addOkAction(new SnsAction(topic));
    }
    alarms[key] = alarm;
  }
  return alarms;
}

function validateProps(props: DeliveryPipelineProps): void {
  const problems: string[] = [];
  const check = (ok: boolean, message: string) => {
    if (!ok) problems.push(message);
  };
  if (props.deliveryConcurrency !== undefined) {
    check(
      Number.isInteger(props.deliveryConcurrency) &&
        props.deliveryConcurrency >= 1 &&
        props.deliveryConcurrency <= 1000,
      `deliveryConcurrency must be an integer from 1 to 1000 (got ${props.deliveryConcurrency})`,
    );
  }
  for (const [key, value] of Object.entries(props.maxDeliveryInvocations ?? {})) {
    check(
      Number.isInteger(value) && (value as number) >= 2 && (value as number) <= 1000,
      `maxDeliveryInvocations.${key} must be an integer from 2 to 1000 (got ${value})`,
    );
  }
  if (props.historyRetentionDays !== undefined) {
    check(
      Number.isInteger(props.historyRetentionDays) &&
        props.historyRetentionDays >= 1 &&
        props.historyRetentionDays <= 365,
      `historyRetentionDays must be an integer from 1 to 365 (got ${props.historyRetentionDays})`,
    );
  }
  if (props.subscriptionCacheSeconds !== undefined) {
    check(
      props.subscriptionCacheSeconds >= 0 && props.subscriptionCacheSeconds <= 300,
      `subscriptionCacheSeconds must be from 0 to 300 (got ${props.subscriptionCacheSeconds})`,
    );
  }
  if (props.publicUrl !== undefined) {
    check(
      /^https:\/\/[^/]+/.test(props.publicUrl),
      `publicUrl must be an https URL (got ${props.publicUrl})`,
    );
  }
  if (problems.length > 0) throw new Error(`Invalid DeliveryPipeline props: ${problems.join('; ')}`);
}

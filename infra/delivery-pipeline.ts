import { Annotations, RemovalPolicy } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, type FunctionUrl, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deliveryBatchingOf } from '../shared/config/event-source-mapping';
import { portalEnvironment } from '../shared/config/portal';
import { BACKLOG_WINDOW_SECONDS, ENV, type QueueKey } from '../shared/config/resources';
import { METRICS_NAMESPACE } from '../shared/observability/metrics';
import { ALARM_THRESHOLDS } from './alarm-definitions';
import { alarmEmailsOf, createAlarmTopic, subscribeAlarmEmails } from './alarm-topic';
import { createDashboard } from './dashboard';
import { DeclaredNamespace, type DeclaredNamespaceProps } from './declared-namespaces';
import { DeclaredResources, DeclaredTopic, type DeclaredTopicProps } from './declared-resources';
import type { DeliveryPipelineProps } from './delivery-pipeline-props';
import { addDeclaredResourcesAlarms, createAlarms, type PipelineAlarms } from './monitoring';
import { addApiRoutes, createHttpApi } from './pipeline/api';
import {
  accountLimitNeededFor,
  defaultDeliveryBacklogLimit,
  NEW_ACCOUNT_CONCURRENCY_LIMIT,
  stageThrottleFor,
} from './pipeline/capacity';
import { DeadLetterBucketAllowList } from './pipeline/dead-letter-buckets';
import { environmentProblems, warnOfEgressQuotas } from './pipeline/deploy-limits';
import {
  addEgressOutput,
  createDeliveryNetwork,
  type DeliveryNetwork,
  egressAddressesValue,
} from './pipeline/egress';
import {
  allowResourceDestinations,
  createFunctions,
  functionEnvironment,
  resourceDestinationEntryOf,
} from './pipeline/functions';
import { addAlarmTopicOutput, addOutputs, claimOutputPrefix } from './pipeline/outputs';
import { validateProps } from './pipeline/props';
import { addPublishFunctionUrl } from './pipeline/publish-url';
import { createQueues } from './pipeline/queues';
import { scheduleArchiveSweep, scheduleBacklogSweep } from './pipeline/schedules';
import { createStorage } from './pipeline/storage';
import type { PipelineFunction } from './pipeline-function';
import { PipelineSources } from './sources';

/**
 * Requests per second and burst the API stage accepts by default (see `throttle`): with no
 * reservation for the publish function (the default), half the account's regional API Gateway
 * quota (`stageThrottleFor` in infra/pipeline/capacity.ts).
 */
export const DEFAULT_THROTTLE = stageThrottleFor(false);

/**
 * The removal policy of the table, the buckets, the secrets, the alarm topic's key and the log
 * groups unless `removalPolicy` says otherwise: kept when the stack is deleted or a change
 * replaces them, deleted when the stack's first create fails and rolls back, so a failed first
 * deploy leaves nothing behind to collide with the next try or to bill.
 */
export const DEFAULT_REMOVAL_POLICY = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;

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
  /**
   * Segments of events kept in subscriptions' backlogs (read, written and removed by the delivery
   * function); objects left behind expire after `BACKLOG_BUCKET.retentionDays` days.
   */
  readonly backlogBucket: s3.Bucket;
  /**
   * Topics' archives (written by the dead-letter function); segments older than their topic's
   * retention are removed by the daily archive sweep, and all after `ARCHIVE_BUCKET.retentionDays`.
   */
  readonly archiveBucket: s3.Bucket;
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
  /**
   * The key that signs console and portal session tokens (`POST /admin/sessions`). Only the
   * management function may read it, and replace it (`POST /admin/sessions/revokeAll`, which
   * revokes every session within a minute).
   */
  readonly sessionKeySecret: secretsmanager.Secret;
  readonly publishFunction: PipelineFunction;
  readonly managementFunction: PipelineFunction;
  readonly deliveryFunction: PipelineFunction;
  /** Consumes ended deliveries (the dead-letter step). */
  readonly deadLetterFunction: PipelineFunction;
  /** The publish function's URL; undefined unless `publishIngress` is `'functionUrl'` or `'both'`. */
  readonly publishUrl?: FunctionUrl;
  /**
   * Invokes the delivery function every minute with `BACKLOG_SWEEP_EVENT`
   * (`shared/queue/backlog-sweep.ts`): the sweep that sends the ticks of backlogs whose wake is near.
   */
  readonly backlogSweepRule: events.Rule;
  /** The daily rule that invokes the dead-letter function to sweep the topics' archives. */
  readonly archiveSweepRule: events.Rule;
  /** The CloudWatch namespace of this pipeline's metrics (the `metricsNamespace` prop). */
  readonly metricsNamespace: string;
  /** What this pipeline's CLI-read output names begin with (see the `outputPrefix` prop). */
  readonly outputPrefix: string;
  /**
   * The delivery function's VPC, security group and the public addresses its requests leave
   * from; undefined unless the `egress` prop puts it in a VPC (`staticIps` or `vpc`).
   */
  readonly egress?: DeliveryNetwork;
  /** The provider of topics and subscriptions declared in code, made by the first `addTopic`. */
  private declarations: DeclaredResources | undefined;
  private readonly logRetention: RetentionDays;
  private readonly removalPolicy: RemovalPolicy;
  /** The dead-letter buckets beside the stack's own: the prop's, then declared subscriptions'. */
  private readonly deadLetterBuckets: DeadLetterBucketAllowList;

  constructor(scope: Construct, id: string, props: DeliveryPipelineProps = {}) {
    super(scope, id);
    // Server access logs are delivered under a bucket policy, not the legacy log-delivery ACL, so
    // the log bucket can keep ACLs disabled (this flag's default for new apps).
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    validateProps(props);
    const removalPolicy = props.removalPolicy ?? DEFAULT_REMOVAL_POLICY;
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;
    this.logRetention = logRetention;
    this.removalPolicy = removalPolicy;
    const publishIngress = props.publishIngress ?? 'httpApi';
    const metricsNamespace = props.metricsNamespace ?? METRICS_NAMESPACE;
    const outputPrefix = claimOutputPrefix(this, props.outputPrefix);

    // Each part is built from the ones it needs: the API before the functions, which are given
    // its URL, and its routes once the functions exist; the alarms and outputs last.
    const storage = createStorage(this, {
      removalPolicy,
      deletionProtection: props.deletionProtection ?? false,
      deadLetterBucket: props.deadLetterBucket,
    });
    const deliveryBatching = deliveryBatchingOf(props.deliveryBatchingWindow);
    const batchingWindows = {
      backlog: props.backlogWindowSeconds ?? BACKLOG_WINDOW_SECONDS,
      delivery: deliveryBatching.seconds,
    };
    const batchSizes = { delivery: deliveryBatching.batchSize };
    const { queues, redriveQueues } = createQueues(this, batchingWindows);
    const { api, url: apiUrl } = createHttpApi(this);
    const maxInvocations = props.maxDeliveryInvocations ?? {};
    const publishReservedConcurrency = props.reservedConcurrency ?? false;
    const deliveryReservedConcurrency = props.deliveryReservedConcurrency ?? false;
    warnOfReservations(this, publishReservedConcurrency, deliveryReservedConcurrency);
    // Before the functions: the delivery function is made in its VPC, if the egress prop asks.
    const deliveryNetwork = createDeliveryNetwork(this, props.egress);
    const functions = createFunctions(this, {
      storage,
      queues,
      environment: functionEnvironment({ ...props, metricsNamespace }, apiUrl),
      logRetention,
      removalPolicy,
      tracing: props.tracing ?? false,
      applicationLogLevel: props.applicationLogLevel ?? ApplicationLogLevel.INFO,
      publishReservedConcurrency,
      deliveryReservedConcurrency,
      deliveryBacklogLimit:
        props.deliveryBacklogLimit ?? defaultDeliveryBacklogLimit(maxInvocations, deliveryBatching.batchSize),
      maxInvocations,
      batchingWindows,
      batchSizes,
      ...(deliveryNetwork === undefined
        ? {}
        : {
            deliveryNetwork: {
              vpc: deliveryNetwork.vpc,
              subnets: deliveryNetwork.subnets,
              securityGroups: [deliveryNetwork.securityGroup],
            },
          }),
    });
    addEgressEnvironment(functions, deliveryNetwork, props.egress?.proxyUrl);
    if (deliveryNetwork !== undefined) warnOfEgressQuotas(this, deliveryNetwork);
    allowResourceDestinations(functions.delivery, props.resourceDestinations ?? []);
    // The prop's patterns, for the function that checks a subscription's destination when it is
    // written (management); the delivery function's role enforces them (its grants), so it needs
    // no list. Declared destinations are kept in the table (`DeclaredResources.allowDestination`),
    // since their list grows with the app.
    functions.management.addEnvironment(
      ENV.resourceDestinations,
      (props.resourceDestinations ?? []).map(resourceDestinationEntryOf).join(','),
    );
    // The buckets of the deployer's own that dead letters may be written to, and those declared
    // subscriptions name (`declaredResources`): granted, and listed for the functions that check them.
    this.deadLetterBuckets = new DeadLetterBucketAllowList(functions);
    this.deadLetterBuckets.allow(props.deadLetterBuckets ?? [], 'deadLetterBuckets');
    // The portal's framing origins and look: the management function serves the page.
    for (const [name, value] of Object.entries(portalEnvironment(props))) {
      functions.management.addEnvironment(name, value);
    }
    this.node.addValidation({ validate: () => environmentProblems(functions) });
    addApiRoutes(this, {
      api,
      functions,
      throttle: props.throttle ?? stageThrottleFor(publishReservedConcurrency),
      logRetention,
      removalPolicy,
      publishIngress,
    });
    const publishUrl =
      publishIngress === 'httpApi' ? undefined : addPublishFunctionUrl(this, functions.publish, outputPrefix);
    // Topic endpoints name where key publishing is served: the function URL when the HTTP API
    // no longer serves it, unless a custom domain (`publicUrl`) fronts both.
    if (publishUrl !== undefined && publishIngress === 'functionUrl' && props.publicUrl === undefined) {
      functions.management.addEnvironment(ENV.publishUrl, publishUrl.url);
    }
    const backlogSweepRule = scheduleBacklogSweep(this, functions.delivery);
    const archiveSweepRule = scheduleArchiveSweep(this, functions.deadLetter);
    const alarmTopic = props.alarmTopic ?? createAlarmTopic(this, removalPolicy);
    subscribeAlarmEmails(alarmTopic, alarmEmailsOf(props.alarmEmail));
    const monitored = {
      api,
      table: storage.table,
      queues,
      redriveQueues,
      functions,
      alarmTopic,
      metricsNamespace,
      outputPrefix,
    };
    const alarms = createAlarms(this, monitored, {
      backlogAgeHours: props.backlogAgeAlarmHours ?? ALARM_THRESHOLDS.backlogAgeHours,
      backlogHeldEvents: props.backlogSizeAlarmEvents ?? ALARM_THRESHOLDS.backlogHeldEvents,
    });
    const dashboard = createDashboard(this, monitored);
    addOutputs(this, {
      api,
      table: storage.table,
      deadLetterBucket: storage.deadLetterBucket,
      queues,
      redriveQueues,
      prefix: outputPrefix,
    });
    addAlarmTopicOutput(this, alarmTopic, outputPrefix);
    addEgressOutput(this, deliveryNetwork, outputPrefix);

    this.api = api;
    this.table = storage.table;
    this.deadLetterBucket = storage.deadLetterBucket;
    this.deadLetterAccessLogsBucket = storage.deadLetterAccessLogsBucket;
    this.fanOutBucket = storage.fanOutBucket;
    this.backlogBucket = storage.backlogBucket;
    this.archiveBucket = storage.archiveBucket;
    this.headerKeySecret = storage.headerKeySecret;
    this.topicKeySecret = storage.topicKeySecret;
    this.sessionKeySecret = storage.sessionKeySecret;
    this.queues = queues;
    this.redriveQueues = redriveQueues;
    this.publishFunction = functions.publish;
    this.managementFunction = functions.management;
    this.deliveryFunction = functions.delivery;
    this.deadLetterFunction = functions.deadLetter;
    if (publishUrl !== undefined) this.publishUrl = publishUrl;
    this.backlogSweepRule = backlogSweepRule;
    this.archiveSweepRule = archiveSweepRule;
    this.alarmTopic = alarmTopic;
    this.alarms = alarms;
    this.parkedAlarms = alarms.parked;
    this.dashboard = dashboard;
    this.metricsNamespace = metricsNamespace;
    this.outputPrefix = outputPrefix;
    if (deliveryNetwork !== undefined) this.egress = deliveryNetwork;
  }

  /**
   * Declares a topic in code (a custom resource carried out by the management function with the
   * admin API's own operations); `addSubscription` on it declares its webhook subscriptions.
   */
  addTopic(name: string, props: DeclaredTopicProps = {}): DeclaredTopic {
    return new DeclaredTopic(this, `Topic${name}`, this.declaredResources(), name, props);
  }

  /**
   * Declares a namespace in code, as `addTopic` declares a topic; `addTopic` on it declares its
   * topics, and `addSubscription` on those their push subscriptions.
   */
  addNamespace(name: string, props: DeclaredNamespaceProps = {}): DeclaredNamespace {
    return new DeclaredNamespace(this, `Namespace${name}`, this.declaredResources(), name, props);
  }

  private declaredResources(): DeclaredResources {
    if (this.declarations === undefined) {
      this.declarations = this.createDeclaredResources();
      // The provider exists from here on: its framework's failures are alarmed like the rest.
      addDeclaredResourcesAlarms(this, this.alarms, this.alarmTopic, this.declarations.frameworkFunctions);
    }
    return this.declarations;
  }

  /** The sources of declared topics, made with the first (`topic.addSource`). */
  private sources: PipelineSources | undefined;

  /** The sources of the pipeline's declared topics: their queues, the functions' setting, their alarms. */
  pipelineSources(): PipelineSources {
    this.sources ??= new PipelineSources(
      this,
      'Sources',
      this.publishFunction,
      this.managementFunction,
      this.alarmTopic,
      this.metricsNamespace,
    );
    return this.sources;
  }

  private createDeclaredResources(): DeclaredResources {
    return new DeclaredResources(this, 'Declared', this.managementFunction, {
      logRetention: this.logRetention,
      removalPolicy: this.removalPolicy,
      // The delivery function's subtree holds its queue event sources: the handshake of a
      // declared subscription runs there, so they exist before any declaration is carried out.
      dependsOn: [this.deliveryFunction],
      allow: (destination) => destination.grant(this.deliveryFunction),
      addSource: (topic, source, after) => this.pipelineSources().add(topic, source, after),
      allowDeadLetterBucket: (bucket, role) =>
        this.deadLetterBuckets.allow(
          [role === undefined ? bucket : { bucket, role }],
          role === undefined ? 'deadLetter.bucket' : 'deadLetter',
          false,
        ),
    });
  }

  /**
   * Lets deliveries signed with SigV4 (`auth: {type: 'AwsSigV4'}`) reach an endpoint behind IAM:
   * a Lambda function's URL (`lambda:InvokeFunctionUrl` on the function), or API Gateway routes
   * (`execute-api:Invoke` on an `execute-api` ARN, such as `api.arnForExecuteApi('POST', '/hooks')`).
   * The delivery function signs with its own role, which may call nothing else.
   */
  allowSignedDeliveriesTo(target: IFunction | string): iam.Grant {
    const grantee = this.deliveryFunction;
    return typeof target === 'string'
      ? iam.Grant.addToPrincipal({ grantee, actions: ['execute-api:Invoke'], resourceArns: [target] })
      : iam.Grant.addToPrincipal({
          grantee,
          actions: ['lambda:InvokeFunctionUrl'],
          resourceArns: [target.functionArn],
          conditions: { StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' } },
        });
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

/**
 * The addresses requests to endpoints leave from, and the proxy they go through, for the delivery
 * function and the management function (which shows them: `GET /admin/egress`); nothing when the `egress` prop gives neither, so the environment stays as it was.
 */
function addEgressEnvironment(
  functions: { readonly delivery: PipelineFunction; readonly management: PipelineFunction },
  network: DeliveryNetwork | undefined,
  proxyUrl: string | undefined,
): void {
  if (network !== undefined && network.addresses.length > 0) {
    const addresses = egressAddressesValue(network.addresses);
    functions.delivery.addEnvironment(ENV.egressAddresses, addresses);
    functions.management.addEnvironment(ENV.egressAddresses, addresses);
  }
  if (proxyUrl !== undefined) {
    functions.delivery.addEnvironment(ENV.egressProxyUrl, proxyUrl);
    // Management sends nothing through it; it says there is one (`GET /admin/egress`).
    functions.management.addEnvironment(ENV.egressProxyUrl, proxyUrl);
  }
}

/**
 * A synth-time warning naming the account concurrency limit the pipeline's reservations need:
 * Lambda refuses them on an account whose limit is lower (a new account's is 10), and the
 * deployment then fails partway.
 */
function warnOfReservations(scope: Construct, publish: number | false, delivery: number | false): void {
  const needed = accountLimitNeededFor([publish, delivery]);
  if (needed === undefined) return;
  Annotations.of(scope).addWarningV2(
    'gridwire:reservedConcurrency',
    `The publish (${publish === false ? 'none' : publish}) and delivery (${delivery === false ? 'none' : delivery}) ` +
      `functions' reserved concurrency (reservedConcurrency, deliveryReservedConcurrency) needs an account ` +
      `concurrency limit of at least ${needed} (Lambda keeps 100 executions unreserved, and other functions' ` +
      `reservations count too); new accounts have ${NEW_ACCOUNT_CONCURRENCY_LIMIT}. Check yours with ` +
      `"aws lambda get-account-settings" (AccountLimit.ConcurrentExecutions) before deploying.`,
  );
}

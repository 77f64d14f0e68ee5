/**
 * The pipeline's alarms and their topic, and the metric series they and the dashboard
 * (`dashboard.ts`) read.
 *
 * Gridwire's own metrics are CloudWatch embedded metric format records written through Powertools
 * Metrics (`createObservability` in `shared/lambda/wiring.ts`, `publishMetricPoints` in
 * `shared/lambda/middleware.ts`): the pipeline's namespace (`metricsNamespace`, default
 * `METRICS_NAMESPACE`), the default dimension
 * `service` = `SERVICE_NAME` on every record, and the dimension sets `METRIC_DIMENSION_SETS`
 * gives each metric, all three from `shared/observability/metrics.ts`. Every metric has a stack-wide series
 * (no dimension besides `service`), which the alarms and most graphs read; breakdowns by error or
 * reason read that metric's `[Error, ErrorType]`, `[ErrorType, Error]`, `[DropReason]` or
 * `[DeadLetterReason]` series with a SEARCH expression.
 */
import { ArnFormat, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type FunctionKey, QUEUES, type QueueKey, TABLE } from '../shared/config/resources';
import {
  METRIC,
  METRIC_DIMENSION_SETS,
  type MetricName,
  SERVICE_NAME,
} from '../shared/observability/metrics';
import type { PipelineFunction } from './pipeline-function';

/** The period of every graph and of most alarms. */
export const FIVE_MINUTES = Duration.minutes(5);

const hasSeries = (metric: MetricName, dimensions: readonly string[]): boolean =>
  METRIC_DIMENSION_SETS[metric].some(
    (set) => set.length === dimensions.length && dimensions.every((name) => set.includes(name)),
  );

/**
 * A Gridwire metric's stack-wide series in `namespace` (the pipeline's `metricsNamespace`). Throws
 * at synth if the functions don't emit one, so a graph or alarm can't silently watch nothing.
 */
export function pipelineMetric(
  namespace: string,
  metric: MetricName,
  statistic: 'Sum' | 'Average' | 'Maximum' | 'p99',
  label?: string,
): cloudwatch.Metric {
  if (!hasSeries(metric, [])) throw new Error(`${metric} has no stack-wide series in METRIC_DIMENSION_SETS`);
  return new cloudwatch.Metric({
    namespace,
    metricName: metric,
    dimensionsMap: { service: SERVICE_NAME },
    statistic,
    period: FIVE_MINUTES,
    ...(label === undefined ? {} : { label }),
  });
}

/**
 * One line per value of `dimensions` (an error, a reason) of a Gridwire metric in `namespace`,
 * summed per five minutes: a SEARCH over exactly that dimension set. Throws at synth if it isn't
 * emitted.
 */
export function pipelineBreakdown(
  namespace: string,
  metric: MetricName,
  dimensions: readonly string[],
): cloudwatch.MathExpression {
  if (!hasSeries(metric, dimensions)) {
    throw new Error(`${metric} has no series by ${dimensions.join(', ')} in METRIC_DIMENSION_SETS`);
  }
  // A SEARCH schema takes a namespace of letters and digits as it is, any other in double quotes
  // (which a valid namespace never contains).
  const quoted = /^[A-Za-z0-9]+$/.test(namespace) ? namespace : `"${namespace}"`;
  const schema = [quoted, 'service', ...dimensions].join(',');
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${metric}" service="${SERVICE_NAME}"', 'Sum', 300)`,
    usingMetrics: {},
    period: FIVE_MINUTES,
    // Each line is named by its dimension values (a CloudWatch dynamic label).
    label: dimensions.map((name) => `\${PROP('Dim.${name}')}`).join(' '),
  });
}

/** Alarm thresholds (see docs/operate.md). */
export const ALARM_THRESHOLDS = {
  /** Seconds the oldest fresh delivery may wait: consumers are not keeping up beyond this. */
  deliveryQueueAgeSeconds: 300,
  /**
   * Seconds the oldest retry may wait. Retries wait on purpose (at most 900 s per hop), so this is
   * well above the longest hop.
   */
  retryQueueAgeSeconds: 1800,
  /**
   * Seconds the oldest event on its way into a backlog may wait: above the batching window (at
   * most 300 s) and one visibility timeout after a failed store step (13 to 17 minutes).
   */
  backlogQueueAgeSeconds: 1800,
  /** Percent of delivery attempts that failed, over three five-minute periods in a row. */
  deliveryFailureRatePercent: 25,
  /** Hours the oldest backlogged event may have waited since it was published (`backlogAgeAlarmHours`). */
  backlogAgeHours: 6,
  /** Events all backlogs may hold together (`backlogSizeAlarmEvents`). */
  backlogHeldEvents: 1_000_000,
  /**
   * Percent of API requests answered with a 5xx, over two five-minute periods in a row. A healthy
   * pipeline answers none: overload is refused with 429s (the stage throttle, the delivery
   * backlog gate), so a 5xx is a function that could not run (Lambda throttled it: the HTTP API
   * answers that with a 500), failed or timed out, or a dependency that failed (503). 1% is well
   * above a stray cold-start timeout and well below what publishers notice as an outage; two
   * periods keep one blip (a dependency's brief error the callers' retries absorbed) from paging.
   */
  apiServerErrorRatePercent: 1,
  /**
   * 5xx answers a five-minute period must have before its rate counts: on an API that takes a
   * handful of requests, one failure would otherwise be tens of percent.
   */
  apiServerErrorsMinimum: 5,
  /**
   * Periods in a row (five minutes each) the table must throttle requests to fire: one burst the
   * SDK's retries absorbed (on-demand tables throttle while they scale past twice their previous
   * peak) is not worth a page; throttling that lasts ten minutes is a hot key or a limit.
   */
  tableThrottlePeriods: 2,
} as const;

/** The alarm thresholds a deployment may set (the pipeline's props of the same meaning). */
export interface AlarmSettings {
  /** See {@link ALARM_THRESHOLDS}`.backlogAgeHours`. */
  readonly backlogAgeHours: number;
  /** See {@link ALARM_THRESHOLDS}`.backlogHeldEvents`. */
  readonly backlogHeldEvents: number;
}

export interface PipelineAlarms {
  /** Messages parked in a redrive queue (one per queue). */
  readonly parked: Readonly<Record<QueueKey, cloudwatch.Alarm>>;
  /** The oldest message of the delivery, retry and backlog queues is older than it should ever be. */
  readonly oldestMessageAge: Readonly<Record<'delivery' | 'retry' | 'backlog', cloudwatch.Alarm>>;
  /** More than `ALARM_THRESHOLDS.deliveryFailureRatePercent` of delivery attempts fail. */
  readonly deliveryFailureRate: cloudwatch.Alarm;
  /** Events were dropped (ended without success and without a dead-letter destination). */
  readonly droppedEvents: cloudwatch.Alarm;
  /** A function failed (an error its handler did not turn into a result). */
  readonly functionErrors: Readonly<Record<FunctionKey, cloudwatch.Alarm>>;
  /** A function was throttled (its reserved concurrency or the account's limit was reached). */
  readonly functionThrottles: Readonly<Record<FunctionKey, cloudwatch.Alarm>>;
  /** The oldest backlogged event was published more than `backlogAgeAlarmHours` ago. */
  readonly backlogOldestAge: cloudwatch.Alarm;
  /** The backlogs hold `backlogSizeAlarmEvents` events or more. */
  readonly backlogSize: cloudwatch.Alarm;
  /** A backlog's wake was found late (its tick message lost) and armed again. */
  readonly backlogWakeLate: cloudwatch.Alarm;
  /**
   * More than `ALARM_THRESHOLDS.apiServerErrorRatePercent` of API requests (and at least
   * `apiServerErrorsMinimum`) were answered with a 5xx, two periods in a row.
   */
  readonly apiServerErrors: cloudwatch.Alarm;
  /** The table (or its index) throttled reads or writes, `ALARM_THRESHOLDS.tableThrottlePeriods` periods in a row. */
  readonly tableThrottles: cloudwatch.Alarm;
  /** An endpoint refused the validation handshake or did not answer it (`EndpointValidationFailCount`). */
  readonly endpointValidationFailed: cloudwatch.Alarm;
  /**
   * Errors of the provider framework that carries out topics and subscriptions declared in code
   * (`onEvent`: CloudFormation was not answered; `onTimeout`: a timed-out declaration could not
   * be failed), one alarm each. Empty until the pipeline declares something (`addTopic`,
   * `addNamespace`), which creates the provider; filled then.
   */
  readonly declaredResourcesErrors: Partial<Record<ProviderAlarmedFunction, cloudwatch.Alarm>>;
}

/**
 * The provider framework's functions whose errors are alarmed. `isComplete` is not: the framework
 * asks it to throw on every poll while a declaration still waits (its `Retry` error, which the
 * waiter's state machine retries), so its `Errors` count normal waits, not failures; a check that
 * really fails ends, after the waiter's retries, in `onTimeout` failing the declaration, and the
 * deployment reports it.
 */
export type ProviderAlarmedFunction = 'onEvent' | 'onTimeout';

/** Every alarm of `alarms`, in a stable order. */
export function listAlarms(alarms: PipelineAlarms): cloudwatch.Alarm[] {
  return [
    ...Object.values(alarms.parked),
    ...Object.values(alarms.oldestMessageAge),
    alarms.deliveryFailureRate,
    alarms.droppedEvents,
    ...Object.values(alarms.functionErrors),
    ...Object.values(alarms.functionThrottles),
    alarms.backlogOldestAge,
    alarms.backlogSize,
    alarms.backlogWakeLate,
    alarms.apiServerErrors,
    alarms.tableThrottles,
    alarms.endpointValidationFailed,
    ...Object.values(alarms.declaredResourcesErrors),
  ];
}

export interface MonitoringTargets {
  readonly api: HttpApi;
  /** The pipeline's table (and its index), whose throttled requests are alarmed. */
  readonly table: dynamodb.ITableV2;
  readonly queues: Readonly<Record<QueueKey, sqs.IQueue>>;
  readonly redriveQueues: Readonly<Record<QueueKey, sqs.IQueue>>;
  readonly functions: Readonly<Record<FunctionKey, PipelineFunction>>;
  /** Notified of every alarm and of its return to OK. */
  readonly alarmTopic: sns.ITopic;
  /** The CloudWatch namespace the functions write Gridwire's metrics to. */
  readonly metricsNamespace: string;
  /** The pipeline's output prefix, which the CLI takes as `--pipeline` (none when empty). */
  readonly outputPrefix: string;
}

/**
 * The condition under which CloudWatch may act for an alarm: an alarm of this account in this
 * region (`aws:SourceAccount`, `aws:SourceArn`), so no other account's alarm can make CloudWatch
 * publish to the topic or use its key (the confused deputy).
 */
export function ownAlarmsCondition(scope: Construct): Record<string, Record<string, string>> {
  const stack = Stack.of(scope);
  return {
    StringEquals: { 'aws:SourceAccount': stack.account },
    ArnLike: {
      'aws:SourceArn': stack.formatArn({
        service: 'cloudwatch',
        resource: 'alarm',
        resourceName: '*',
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    },
  };
}

/**
 * The topic alarms notify when none is given: encrypted with its own KMS key, TLS only, and
 * open to CloudWatch for this account's alarms. The TLS rule (`enforceSSL`) makes CDK write a
 * topic policy, and a topic policy replaces SNS's default one: with the Deny alone, nothing
 * would allow CloudWatch to publish, and every alarm would fail to notify (reported for another
 * project in aws-solutions/automated-security-response-on-aws#43). So the policy also allows
 * `sns:Publish` to `cloudwatch.amazonaws.com` for this account's alarms.
 */
export function createAlarmTopic(scope: Construct, removalPolicy: RemovalPolicy): sns.Topic {
  const cloudWatch = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
  const fromOwnAlarms = ownAlarmsCondition(scope);
  const key = new kms.Key(scope, 'AlarmTopicKey', {
    description: 'Gridwire: encrypts alarm notifications',
    enableKeyRotation: true,
    removalPolicy,
  });
  // CloudWatch can only publish to an encrypted topic whose key lets it; only for this account's
  // alarms (SNS calls KMS on the publisher's behalf, and the source keys travel with the call).
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToUseTheKey',
      principals: [cloudWatch],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: fromOwnAlarms,
    }),
  );
  const topic = new sns.Topic(scope, 'AlarmTopic', {
    displayName: 'Gridwire alarms',
    masterKey: key,
    enforceSSL: true,
  });
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [cloudWatch],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: fromOwnAlarms,
    }),
  );
  return topic;
}

/** The `alarmEmail` prop as a list: none, one address, or several. */
export const alarmEmailsOf = (alarmEmail: string | readonly string[] | undefined): readonly string[] =>
  alarmEmail === undefined ? [] : typeof alarmEmail === 'string' ? [alarmEmail] : alarmEmail;

/**
 * Subscribes each address to the alarm topic by email. SNS first sends each a confirmation
 * message; an address receives alarms only once its owner followed the link in it.
 */
export function subscribeAlarmEmails(alarmTopic: sns.ITopic, addresses: readonly string[]): void {
  for (const address of addresses) {
    const subscription = alarmTopic.addSubscription(new EmailSubscription(address));
    Validations.of(subscription).acknowledge({
      id: 'Serverless-SNSRedrivePolicy',
      reason:
        "An alarm email SNS can't deliver (an address not confirmed, or bouncing) would wait in a dead-letter queue nobody watches; the alarm's state and history stay in CloudWatch, and the topic's other subscribers still get it.",
    });
  }
}

/** What one alarm watches, when it fires, and what it tells the operator. */
interface AlarmDefinition {
  /** Construct id. */
  readonly id: string;
  readonly metric: cloudwatch.IMetric;
  readonly threshold: number;
  /** @default GREATER_THAN_THRESHOLD */
  readonly comparison?: cloudwatch.ComparisonOperator;
  /** Periods in a row the metric must breach. */
  readonly periods: number;
  /** What happened and what to do, after the stack's name. */
  readonly description: string;
}

/**
 * The alarms of the pipeline, each notifying `alarmTopic` when it fires and when it clears. No
 * data (an idle pipeline) never fires an alarm.
 */
export function createAlarms(
  scope: Construct,
  targets: MonitoringTargets,
  settings: AlarmSettings = ALARM_THRESHOLDS,
): PipelineAlarms {
  const stackName = Stack.of(scope).stackName;
  const create = alarmMaker(scope, targets.alarmTopic);

  const parked = {} as Record<QueueKey, cloudwatch.Alarm>;
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    const where = `--stack ${stackName}${targets.outputPrefix === '' ? '' : ` --pipeline ${targets.outputPrefix}`}`;
    parked[key] = create(parkedMessagesAlarm(targets.redriveQueues[key], key, where));
  }
  const oldestMessageAge = {
    delivery: create(oldestMessageAlarm(targets.queues.delivery, 'delivery')),
    retry: create(oldestMessageAlarm(targets.queues.retry, 'retry')),
    backlog: create(oldestMessageAlarm(targets.queues.backlog, 'backlog')),
  };
  const namespace = targets.metricsNamespace;
  const deliveryFailureRate = create(deliveryFailureRateAlarm(namespace));
  const droppedEvents = create(droppedEventsAlarm(namespace));
  const functionErrors = {} as Record<FunctionKey, cloudwatch.Alarm>;
  const functionThrottles = {} as Record<FunctionKey, cloudwatch.Alarm>;
  for (const [key, fn] of Object.entries(targets.functions) as [FunctionKey, PipelineFunction][]) {
    functionErrors[key] = create(functionErrorsAlarm(fn, key));
    functionThrottles[key] = create(functionThrottlesAlarm(fn, key));
  }
  return {
    parked,
    oldestMessageAge,
    deliveryFailureRate,
    droppedEvents,
    functionErrors,
    functionThrottles,
    backlogOldestAge: create(backlogOldestAgeAlarm(namespace, settings.backlogAgeHours)),
    backlogSize: create(backlogSizeAlarm(namespace, settings.backlogHeldEvents)),
    backlogWakeLate: create(backlogWakeLateAlarm(namespace)),
    apiServerErrors: create(apiServerErrorsAlarm(targets.api)),
    tableThrottles: create(tableThrottlesAlarm(targets.table)),
    endpointValidationFailed: create(endpointValidationFailedAlarm(namespace)),
    // Filled when the pipeline's first declaration creates the provider (`addDeclaredResourcesAlarms`).
    declaredResourcesErrors: {},
  };
}

/**
 * The alarms on the declared-resources provider framework's functions, added to `alarms` once
 * the provider exists (its first `addTopic` or `addNamespace`), notifying `alarmTopic` as the
 * others do.
 */
export function addDeclaredResourcesAlarms(
  scope: Construct,
  alarms: PipelineAlarms,
  alarmTopic: sns.ITopic,
  frameworkFunctions: Readonly<Record<ProviderAlarmedFunction, IFunction>>,
): void {
  const create = alarmMaker(scope, alarmTopic);
  for (const key of Object.keys(PROVIDER_FAILURES) as ProviderAlarmedFunction[]) {
    alarms.declaredResourcesErrors[key] = create(providerErrorsAlarm(frameworkFunctions[key], key));
  }
}

/** Makes alarms under `scope` that notify `alarmTopic` when they fire and when they clear. */
function alarmMaker(
  scope: Construct,
  alarmTopic: sns.ITopic,
): (definition: AlarmDefinition) => cloudwatch.Alarm {
  const stackName = Stack.of(scope).stackName;
  const action = new SnsAction(alarmTopic);
  return (definition) => {
    const created = new cloudwatch.Alarm(scope, definition.id, {
      metric: definition.metric,
      threshold: definition.threshold,
      evaluationPeriods: definition.periods,
      datapointsToAlarm: definition.periods,
      comparisonOperator: definition.comparison ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `Gridwire (${stackName}): ${definition.description}`,
    });
    created.addAlarmAction(action);
    created.addOkAction(action);
    return created;
  };
}

/**
 * Messages parked in a queue's redrive queue, where nothing processes them. `where` is the CLI's
 * options naming the pipeline (`--stack`, and `--pipeline` when it has an output prefix).
 */
const parkedMessagesAlarm = (redriveQueue: sqs.IQueue, key: QueueKey, where: string): AlarmDefinition => {
  const definition = QUEUES[key];
  return {
    id: `${definition.redrive.id}Alarm`,
    metric: redriveQueue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: 1,
    comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    periods: 1,
    description:
      `messages are parked in the ${key} queue's redrive queue: the ` +
      `${definition.consumer.function} function failed on each of them ` +
      `${definition.maxReceiveCount} times, and nothing processes them there. Inspect them with ` +
      `"gridwire parked list ${where} --queue ${key}"; after fixing the cause, ` +
      `move them back with "gridwire parked redrive ${where} --queue ${key}".`,
  };
};

/** How old the oldest message of each queue the delivery function consumes may grow, and why. */
const OLDEST_MESSAGE = {
  delivery: {
    seconds: ALARM_THRESHOLDS.deliveryQueueAgeSeconds,
    meaning: 'fresh deliveries are waiting instead of going out.',
  },
  retry: {
    seconds: ALARM_THRESHOLDS.retryQueueAgeSeconds,
    meaning: 'retries are not taken when they come due.',
  },
  backlog: {
    seconds: ALARM_THRESHOLDS.backlogQueueAgeSeconds,
    meaning: "events on their way into their subscription's backlog are not stored.",
  },
} as const;

/** The queue's oldest message is older than it should ever be, for two periods in a row. */
const oldestMessageAlarm = (queue: sqs.IQueue, key: keyof typeof OLDEST_MESSAGE): AlarmDefinition => {
  const { seconds, meaning } = OLDEST_MESSAGE[key];
  return {
    id: `${QUEUES[key].id}AgeAlarm`,
    metric: queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
    threshold: seconds,
    periods: 2,
    description:
      `the oldest message of the ${key} queue is older than ${seconds} s for 10 minutes: ` +
      `${meaning} Check the delivery function's errors and throttles on the dashboard, and its ` +
      `maxConcurrency for this queue (the maxDeliveryInvocations prop).`,
  };
};

const deliveryFailureRateAlarm = (namespace: string): AlarmDefinition => ({
  id: 'DeliveryFailureRateAlarm',
  metric: new cloudwatch.MathExpression({
    expression: '100 * FILL(failed, 0) / (FILL(failed, 0) + FILL(delivered, 0))',
    usingMetrics: {
      failed: pipelineMetric(namespace, METRIC.DeliveryAttemptFailCount, 'Sum'),
      delivered: pipelineMetric(namespace, METRIC.DeliverySuccessCount, 'Sum'),
    },
    period: FIVE_MINUTES,
    label: 'Failed delivery attempts (%)',
  }),
  threshold: ALARM_THRESHOLDS.deliveryFailureRatePercent,
  periods: 3,
  description:
    `more than ${ALARM_THRESHOLDS.deliveryFailureRatePercent}% of delivery attempts ` +
    `failed for 15 minutes. See "Failed attempts by error" on the dashboard; one endpoint ` +
    `failing is usually its owner's problem (see "gridwire health"), many at once point at ` +
    `Gridwire or its network.`,
});

const droppedEventsAlarm = (namespace: string): AlarmDefinition => ({
  id: 'DroppedEventsAlarm',
  metric: pipelineMetric(namespace, METRIC.DroppedEventCount, 'Sum'),
  threshold: 0,
  periods: 1,
  description:
    `events were dropped: their delivery ended without success and their ` +
    `subscription has no dead-letter destination, or the dead-letter bucket refused them past ` +
    `their limit. See "Dropped events by reason" on the dashboard and the functions' ` +
    `"events dropped" log lines.`,
});

const functionErrorsAlarm = (fn: PipelineFunction, key: FunctionKey): AlarmDefinition => ({
  id: `${fn.node.id}ErrorsAlarm`,
  metric: fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
  threshold: 0,
  periods: 1,
  description:
    `the ${key} function failed (an error, a timeout or running out of memory). ` +
    `Read its log group for "unhandled error" and the invocation's last lines.`,
});

const functionThrottlesAlarm = (fn: PipelineFunction, key: FunctionKey): AlarmDefinition => ({
  id: `${fn.node.id}ThrottlesAlarm`,
  metric: fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
  threshold: 0,
  periods: 1,
  description:
    `the ${key} function was throttled: its reserved concurrency ` +
    `(reservedConcurrency, for the publish function) or the account's concurrency limit ` +
    `was reached. Compare its concurrent executions with the limit.`,
});

/*
 * The backlog's measures are written by the sweep every five minutes (one value per period), so
 * each alarm looks at one period: the Maximum, since a sweep repeated in the same period writes
 * the same measure again.
 */

const backlogOldestAgeAlarm = (namespace: string, hours: number): AlarmDefinition => ({
  id: 'BacklogOldestAgeAlarm',
  metric: pipelineMetric(namespace, METRIC.BacklogOldestEventAgeSeconds, 'Maximum'),
  threshold: hours * 3600,
  comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  periods: 1,
  description:
    `an event has waited in a backlog ${hours} hours or more since it was published: its ` +
    `endpoint has been sick that long, or its backlog is not drained. Find the subscriptions ` +
    `whose endpoints are on probation or disabled ("gridwire health"); events end at their time ` +
    `to live, dead-lettered or dropped. Raise backlogAgeAlarmHours if such waits are expected.`,
});

const backlogSizeAlarm = (namespace: string, events: number): AlarmDefinition => ({
  id: 'BacklogSizeAlarm',
  metric: pipelineMetric(namespace, METRIC.BacklogHeldEvents, 'Maximum'),
  threshold: events,
  comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  periods: 1,
  description:
    `the backlogs hold ${events} events or more: endpoints are sick while their topics keep ` +
    `publishing. Find them with "gridwire health"; the backlog bucket grows with them (its ` +
    `storage is billed). Raise backlogSizeAlarmEvents if this is expected.`,
});

const backlogWakeLateAlarm = (namespace: string): AlarmDefinition => ({
  id: 'BacklogWakeLateAlarm',
  metric: pipelineMetric(namespace, METRIC.BacklogWakeLateCount, 'Sum'),
  threshold: 1,
  comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  periods: 1,
  description:
    `a backlog woke more than 5 minutes late: its tick message was lost (moved back from a ` +
    `redrive queue, or a fault) and the sweep armed it again, so its events went out late but ` +
    `none was lost. Read the delivery function's "backlog wake was late" log lines for the ` +
    `subscription, and check the retry queue's parked messages.`,
});

/**
 * The API's 5xx answers as a percent of its requests, when there were at least
 * `apiServerErrorsMinimum` of them in the period (else 0). The HTTP API's own metrics
 * (`AWS/ApiGateway`, `5xx` and `Count` by `ApiId`), so 500s the gateway makes itself (Lambda
 * throttled or failed the function) count with the functions' own 500 and 503 answers.
 */
const apiServerErrorsAlarm = (api: HttpApi): AlarmDefinition => {
  const { apiServerErrorRatePercent: percent, apiServerErrorsMinimum: minimum } = ALARM_THRESHOLDS;
  return {
    id: 'ApiServerErrorsAlarm',
    metric: new cloudwatch.MathExpression({
      expression: `IF(FILL(errors, 0) >= ${minimum}, 100 * FILL(errors, 0) / requests, 0)`,
      usingMetrics: {
        errors: api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
        requests: api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' }),
      },
      period: FIVE_MINUTES,
      label: 'API requests answered 5xx (%)',
    }),
    threshold: percent,
    periods: 2,
    description:
      `more than ${percent}% of API requests (and at least ${minimum} in five minutes) were ` +
      `answered with a 5xx for 10 minutes. A healthy pipeline refuses overload with 429s; a 5xx ` +
      `is a function Lambda throttled or that failed or timed out (the gateway answers 500 or ` +
      `503), or a dependency (queue, table) failing. The API access logs' "status", ` +
      `"integrationError" and "routeKey" fields say which; then the functions' errors and ` +
      `throttles on the dashboard.`,
  };
};

/**
 * Requests the table or its index throttled (reads and writes), summed per five minutes. The
 * SDK retries a throttled call, so a short burst passes unseen by callers; what lasts is a hot
 * key or a limit.
 */
const tableThrottlesAlarm = (table: dynamodb.ITableV2): AlarmDefinition => {
  const periods = ALARM_THRESHOLDS.tableThrottlePeriods;
  const throttles = (metricName: string, index?: string) =>
    new cloudwatch.Metric({
      namespace: 'AWS/DynamoDB',
      metricName,
      dimensionsMap: {
        TableName: table.tableName,
        ...(index === undefined ? {} : { GlobalSecondaryIndexName: index }),
      },
      statistic: 'Sum',
      period: FIVE_MINUTES,
    });
  return {
    id: 'TableThrottlesAlarm',
    metric: new cloudwatch.MathExpression({
      expression: 'FILL(reads, 0) + FILL(writes, 0) + FILL(indexReads, 0) + FILL(indexWrites, 0)',
      usingMetrics: {
        reads: throttles('ReadThrottleEvents'),
        writes: throttles('WriteThrottleEvents'),
        indexReads: throttles('ReadThrottleEvents', TABLE.topicsIndex.name),
        indexWrites: throttles('WriteThrottleEvents', TABLE.topicsIndex.name),
      },
      period: FIVE_MINUTES,
      label: 'Table requests throttled',
    }),
    threshold: 0,
    periods,
    description:
      `the table throttled reads or writes for ${periods * 5} minutes: a hot key (an item written ` +
      `very often, such as one endpoint's health or rate budget under heavy traffic) or the ` +
      `table's or account's throughput limit. Calls still throttled after the SDK's retries fail: ` +
      `publishes answer 503, jobs come back later. See the table's throttled requests by operation ` +
      `in the DynamoDB console; CloudWatch Contributor Insights on the table names the hot keys.`,
  };
};

const endpointValidationFailedAlarm = (namespace: string): AlarmDefinition => ({
  id: 'EndpointValidationFailedAlarm',
  metric: pipelineMetric(namespace, METRIC.EndpointValidationFailCount, 'Sum'),
  threshold: 1,
  comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  periods: 1,
  description:
    `an endpoint refused the validation handshake or could not be reached for it: its ` +
    `subscription receives nothing until it is validated. Find it with "gridwire health" (or ` +
    `the subscription's provisioningState); its owner can open the validation URL within its ` +
    `window, or ask again once the endpoint is fixed ("gridwire subscription validate").`,
});

/** What a failure of each alarmed provider function leaves behind. */
const PROVIDER_FAILURES: Readonly<Record<ProviderAlarmedFunction, string>> = {
  onEvent:
    'CloudFormation may not have been answered for a declared topic or subscription, and then ' +
    'waits up to an hour before failing the deployment',
  onTimeout:
    'a declaration whose wait ran out could not be reported failed, and CloudFormation waits up ' +
    'to an hour for it',
};

const providerErrorsAlarm = (fn: IFunction, key: ProviderAlarmedFunction): AlarmDefinition => ({
  id: `Declared${key.charAt(0).toUpperCase()}${key.slice(1)}ErrorsAlarm`,
  metric: fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
  threshold: 0,
  periods: 1,
  description:
    `the ${key} function of the provider that carries out topics and subscriptions declared in ` +
    `code failed: ${PROVIDER_FAILURES[key]}. A declaration the management function refuses ` +
    `(a bad body, an endpoint that does not agree) is not this: it fails the deployment with its ` +
    `reason. Read the provider's log group (Declared/ProviderLogs) for the invocation.`,
});

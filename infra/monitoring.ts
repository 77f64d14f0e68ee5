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
import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type FunctionKey, QUEUES, type QueueKey } from '../shared/config/resources';
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
}

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
  ];
}

export interface MonitoringTargets {
  readonly api: HttpApi;
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

/** The topic alarms notify when none is given: encrypted with its own KMS key, TLS only. */
export function createAlarmTopic(scope: Construct, removalPolicy: RemovalPolicy): sns.Topic {
  const key = new kms.Key(scope, 'AlarmTopicKey', {
    description: 'Gridwire: encrypts alarm notifications',
    enableKeyRotation: true,
    removalPolicy,
  });
  // CloudWatch can only publish to an encrypted topic whose key lets it.
  key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
  return new sns.Topic(scope, 'AlarmTopic', {
    displayName: 'Gridwire alarms',
    masterKey: key,
    enforceSSL: true,
  });
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
  const action = new SnsAction(targets.alarmTopic);
  const create = (definition: AlarmDefinition): cloudwatch.Alarm => {
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

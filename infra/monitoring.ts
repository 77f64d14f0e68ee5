/**
 * The pipeline's alarms: which exist (`PipelineAlarms`), made from their definitions
 * (`alarm-definitions.ts`) and notifying the alarm topic (`alarm-topic.ts`); the series they and
 * the dashboard (`dashboard.ts`) read are in `metric-series.ts`.
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
import { Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type FunctionKey, QUEUES, type QueueKey } from '../shared/config/resources';
import {
  ALARM_THRESHOLDS,
  type AlarmDefinition,
  apiServerErrorsAlarm,
  archiveMissedAlarm,
  backlogOldestAgeAlarm,
  backlogSizeAlarm,
  backlogWakeLateAlarm,
  clientCertificateExpiringAlarm,
  deliveryFailureRateAlarm,
  droppedEventsAlarm,
  endpointValidationFailedAlarm,
  functionErrorsAlarm,
  functionThrottlesAlarm,
  oldestMessageAlarm,
  oldestOverdueAlarm,
  PROVIDER_FAILURES,
  type ProviderAlarmedFunction,
  parkedMessagesAlarm,
  providerErrorsAlarm,
  tableThrottlesAlarm,
} from './alarm-definitions';
import type { PipelineFunction } from './pipeline-function';

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
   * A backlog's wake has been overdue more than `ALARM_THRESHOLDS.oldestOverdueSeconds`, two
   * sweeps running: the sweep's re-arm (the reconciler) did not bring it back.
   */
  readonly oldestOverdue: cloudwatch.Alarm;
  /** Accepted events of a topic with an archive could not be queued for it (`ArchiveMissedCount`). */
  readonly archiveMissed: cloudwatch.Alarm;
  /**
   * More than `ALARM_THRESHOLDS.apiServerErrorRatePercent` of API requests (and at least
   * `apiServerErrorsMinimum`) were answered with a 5xx, two periods in a row.
   */
  readonly apiServerErrors: cloudwatch.Alarm;
  /** The table (or its index) throttled reads or writes, `ALARM_THRESHOLDS.tableThrottlePeriods` periods in a row. */
  readonly tableThrottles: cloudwatch.Alarm;
  /** An endpoint refused the validation handshake or did not answer it (`EndpointValidationFailCount`). */
  readonly endpointValidationFailed: cloudwatch.Alarm;
  /** A subscription's client certificate expires within 30 days. */
  readonly clientCertificateExpiring: cloudwatch.Alarm;
  /**
   * Errors of the provider framework that carries out topics and subscriptions declared in code
   * (`onEvent`: CloudFormation was not answered; `onTimeout`: a timed-out declaration could not
   * be failed), one alarm each. Empty until the pipeline declares something (`addTopic`,
   * `addNamespace`), which creates the provider; filled then.
   */
  readonly declaredResourcesErrors: Partial<Record<ProviderAlarmedFunction, cloudwatch.Alarm>>;
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
    alarms.oldestOverdue,
    alarms.archiveMissed,
    alarms.apiServerErrors,
    alarms.tableThrottles,
    alarms.endpointValidationFailed,
    alarms.clientCertificateExpiring,
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
    oldestOverdue: create(oldestOverdueAlarm(namespace)),
    archiveMissed: create(archiveMissedAlarm(namespace)),
    apiServerErrors: create(apiServerErrorsAlarm(targets.api)),
    tableThrottles: create(tableThrottlesAlarm(targets.table)),
    endpointValidationFailed: create(endpointValidationFailedAlarm(namespace)),
    clientCertificateExpiring: create(clientCertificateExpiringAlarm(namespace)),
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
export function alarmMaker(
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

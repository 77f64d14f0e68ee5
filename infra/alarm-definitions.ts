/**
 * What each alarm of the pipeline watches, its threshold, and what it tells the operator: one
 * definition per alarm, made into CloudWatch alarms by `createAlarms` in `monitoring.ts`.
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { type FunctionKey, QUEUES, type QueueKey, TABLE } from '../shared/config/resources';
import { CERTIFICATE_WARNING_DAYS } from '../shared/delivery/rules/endpoint-tls';
import { METRIC } from '../shared/observability/metrics';
import { FIVE_MINUTES, pipelineMetric } from './metric-series';
import type { PipelineFunction } from './pipeline-function';

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
   * Seconds the oldest backlog wake may be overdue (`OldestOverdueSeconds`), for
   * `oldestOverduePeriods` one-minute periods in a row. A lost wake is armed again by the sweep
   * once it is 5 minutes late (`WAKE_LATE_MS`) and normally taken within seconds, so with the
   * reconciler working a wake reads at most about 6 minutes; 10 minutes means the sweep could not
   * arm it (an error, a backlog with no target) or the tick it armed was lost too.
   */
  oldestOverdueSeconds: 600,
  /**
   * Periods in a row (a minute each, one sweep) `OldestOverdueSeconds` must be above its
   * threshold: one sweep's reading alone (the first sweep after the delivery function was away,
   * say after a rollback, finds every wake hours overdue and arms them all) does not page.
   */
  oldestOverduePeriods: 2,
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

/**
 * The provider framework's functions whose errors are alarmed. `isComplete` is not: the framework
 * asks it to throw on every poll while a declaration still waits (its `Retry` error, which the
 * waiter's state machine retries), so its `Errors` count normal waits, not failures; a check that
 * really fails ends, after the waiter's retries, in `onTimeout` failing the declaration, and the
 * deployment reports it.
 */
export type ProviderAlarmedFunction = 'onEvent' | 'onTimeout';

export /** What one alarm watches, when it fires, and what it tells the operator. */
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
 * Why a queue's messages reach its redrive queue: its consumer failed on them `maxReceiveCount`
 * times; a FIFO queue's consumer also receives a message again for each retry it schedules (a
 * visibility change), so there the count is a backstop the function's own limits stay below.
 */
const parkedBecause = (key: QueueKey): string => {
  const definition = QUEUES[key];
  return definition.fifo === true
    ? `received each of them ${definition.maxReceiveCount} times (every attempt and retry is a receive) without finishing it`
    : `failed on each of them ${definition.maxReceiveCount} times`;
};

/**
 * Messages parked in a queue's redrive queue, where nothing processes them. `where` is the CLI's
 * options naming the pipeline (`--stack`, and `--pipeline` when it has an output prefix).
 */
export const parkedMessagesAlarm = (
  redriveQueue: sqs.IQueue,
  key: QueueKey,
  where: string,
): AlarmDefinition => {
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
      `${definition.consumer.function} function ${parkedBecause(key)}, and nothing processes ` +
      `them there. Inspect them with ` +
      `"gridwire parked list ${where} --queue ${key}"; after fixing the cause, ` +
      `move them back with "gridwire parked redrive ${where} --queue ${key}".`,
  };
};

/**
 * How old the oldest message of each queue the delivery function consumes may grow, and why. Not
 * the ordered queue's: there a key's events wait behind its failing one by design, for as long as
 * that one's retries last.
 */
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
export const oldestMessageAlarm = (queue: sqs.IQueue, key: keyof typeof OLDEST_MESSAGE): AlarmDefinition => {
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

export const deliveryFailureRateAlarm = (namespace: string): AlarmDefinition => ({
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

export const droppedEventsAlarm = (namespace: string): AlarmDefinition => ({
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

export const functionErrorsAlarm = (fn: PipelineFunction, key: FunctionKey): AlarmDefinition => ({
  id: `${fn.node.id}ErrorsAlarm`,
  metric: fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
  threshold: 0,
  periods: 1,
  description:
    `the ${key} function failed (an error, a timeout or running out of memory). ` +
    `Read its log group for "unhandled error" and the invocation's last lines.`,
});

export const functionThrottlesAlarm = (fn: PipelineFunction, key: FunctionKey): AlarmDefinition => ({
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

export const backlogOldestAgeAlarm = (namespace: string, hours: number): AlarmDefinition => ({
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

export const backlogSizeAlarm = (namespace: string, events: number): AlarmDefinition => ({
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

export const backlogWakeLateAlarm = (namespace: string): AlarmDefinition => ({
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
 * Written by every sweep (a minute apart), so this alarm looks at one-minute periods: the Maximum,
 * since two sweeps of one minute (an EventBridge retry) may both write it.
 */
export const oldestOverdueAlarm = (namespace: string): AlarmDefinition => {
  const { oldestOverdueSeconds: seconds, oldestOverduePeriods: periods } = ALARM_THRESHOLDS;
  return {
    id: 'OldestOverdueAlarm',
    metric: pipelineMetric(namespace, METRIC.OldestOverdueSeconds, 'Maximum').with({
      period: Duration.minutes(1),
    }),
    threshold: seconds,
    periods,
    description:
      `a backlog's wake has been overdue more than ${seconds / 60} minutes for ${periods} ` +
      `minutes running: its tick was lost and the sweep, which arms a lost wake again once it is ` +
      `5 minutes late, could not bring it back, so the backlog's events are not delivered. Read ` +
      `the delivery function's "backlog wake was late", "could not arm a backlog wake" and ` +
      `"backlog has a wake but neither a subscription nor a segment" log lines, and its errors; ` +
      `"gridwire health" shows the subscription's backlog and its next wake.`,
  };
};

export const archiveMissedAlarm = (namespace: string): AlarmDefinition => ({
  id: 'ArchiveMissedAlarm',
  metric: pipelineMetric(namespace, METRIC.ArchiveMissedCount, 'Sum'),
  threshold: 1,
  comparison: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  periods: 1,
  description:
    `events a topic with an archive accepted (and delivered) could not be queued for its ` +
    `archive: the archive queue refused them, so a replay of their time will miss them. The ` +
    `publish function's "could not be queued for the archive" log lines name the topic; ` +
    `ArchiveMissedCount by Topic counts them. (Copies that reached the queue but could not be ` +
    `written are parked instead: the archive queue's parked-messages alarm.)`,
});

/**
 * The API's 5xx answers as a percent of its requests, when there were at least
 * `apiServerErrorsMinimum` of them in the period (else 0). The HTTP API's own metrics
 * (`AWS/ApiGateway`, `5xx` and `Count` by `ApiId`), so 500s the gateway makes itself (Lambda
 * throttled or failed the function) count with the functions' own 500 and 503 answers.
 */
export const apiServerErrorsAlarm = (api: HttpApi): AlarmDefinition => {
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
export const tableThrottlesAlarm = (table: dynamodb.ITableV2): AlarmDefinition => {
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

export const endpointValidationFailedAlarm = (namespace: string): AlarmDefinition => ({
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

export const clientCertificateExpiringAlarm = (namespace: string): AlarmDefinition => ({
  id: 'ClientCertificateExpiringAlarm',
  metric: pipelineMetric(namespace, METRIC.ClientCertificateDaysLeft, 'Minimum').with({
    period: Duration.hours(1),
  }),
  threshold: CERTIFICATE_WARNING_DAYS,
  comparison: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
  periods: 1,
  description:
    `a subscription's client certificate expires within ${CERTIFICATE_WARNING_DAYS} days (or has): ` +
    `endpoints that check it will refuse its deliveries from then on. "gridwire health" names it ` +
    `(the ClientCertificateExpiring warning); give it a new certificate and key ` +
    `(destination.properties.tls, or --client-certificate and --client-key).`,
});

/** What a failure of each alarmed provider function leaves behind. */
export const PROVIDER_FAILURES: Readonly<Record<ProviderAlarmedFunction, string>> = {
  onEvent:
    'CloudFormation may not have been answered for a declared topic or subscription, and then ' +
    'waits up to an hour before failing the deployment',
  onTimeout:
    'a declaration whose wait ran out could not be reported failed, and CloudFormation waits up ' +
    'to an hour for it',
};

export const providerErrorsAlarm = (fn: IFunction, key: ProviderAlarmedFunction): AlarmDefinition => ({
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

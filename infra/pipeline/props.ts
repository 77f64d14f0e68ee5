/**
 * The `DeliveryPipeline` props checked at synthesis, each against the range its setting has at
 * run time (`SETTING_RANGES`) or what AWS accepts, so a bad value fails `cdk synth` with its name
 * and its limit rather than a deployment or a cold start.
 */
import { Token } from 'aws-cdk-lib';
import { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import { deliveryBatchingProblems, LAMBDA_SQS_LIMITS } from '../../shared/config/event-source-mapping';
import { parseFrameAncestors, parsePortalBranding } from '../../shared/config/portal';
import { OUTPUT_PREFIX_PATTERN, QUEUES } from '../../shared/config/resources';
import { describeRange, isInRange, SETTING_RANGES, type SettingRange } from '../../shared/config/runtime';
import { isValidMetricsNamespace, METRICS_NAMESPACE_RULE } from '../../shared/observability/metrics';
import { alarmEmailsOf } from '../alarm-topic';
import type { DeliveryPipelineProps } from '../delivery-pipeline-props';
import { deliveryEventSourceConcurrency, minimumDeliveryReservedConcurrency } from './capacity';
import { egressProblems } from './egress';
import { PUBLISH_INGRESSES } from './publish-url';

/** Lambda's bounds on an SQS event source's maximum concurrency. */
const EVENT_SOURCE_CONCURRENCY: SettingRange = { min: 2, max: 1000, integer: true };

/**
 * The backlog queue's batching window: at least 1 s, since its batches are larger than Lambda
 * takes without a window, and at most Lambda's longest.
 */
const BACKLOG_WINDOW: SettingRange = {
  min: QUEUES.backlog.consumer.batchSize > LAMBDA_SQS_LIMITS.maxBatchSizeWithoutWindow ? 1 : 0,
  max: LAMBDA_SQS_LIMITS.maxBatchingWindowSeconds,
  integer: true,
};

/** Hours of the backlog age alarm: at least one, at most the longest time to live (7 days). */
const BACKLOG_AGE_ALARM_HOURS: SettingRange = { min: 1, max: 168, integer: false };

/** Events of the backlog size alarm. */
const BACKLOG_SIZE_ALARM_EVENTS: SettingRange = { min: 1, integer: true };

/** The props that are function settings, each checked against the range `readConfig` checks. */
const FUNCTION_SETTING_PROPS = [
  'deliveryConcurrency',
  'historyRetentionDays',
  'subscriptionCacheSeconds',
  'metricsFlushSeconds',
] as const;

/** Application log levels that keep INFO lines, and with them the metric records (EMF). */
const METRIC_KEEPING_LOG_LEVELS: readonly ApplicationLogLevel[] = [
  ApplicationLogLevel.TRACE,
  ApplicationLogLevel.DEBUG,
  ApplicationLogLevel.INFO,
];

/** Checks the props at synthesis: every problem named with its field and limit, all at once. */
export function validateProps(props: DeliveryPipelineProps): void {
  const problems: string[] = [];
  const check = (ok: boolean, message: string) => {
    if (!ok) problems.push(message);
  };
  const checkRange = (name: string, value: number | undefined, range: SettingRange) => {
    if (value === undefined) return;
    check(isInRange(value, range), `${name} must be ${describeRange(range)} (got ${value})`);
  };
  for (const name of FUNCTION_SETTING_PROPS) checkRange(name, props[name], SETTING_RANGES[name]);
  checkRange('backlogWindowSeconds', props.backlogWindowSeconds, BACKLOG_WINDOW);
  problems.push(...deliveryBatchingProblems(props.deliveryBatchingWindow));
  checkRange('backlogAgeAlarmHours', props.backlogAgeAlarmHours, BACKLOG_AGE_ALARM_HOURS);
  checkRange('backlogSizeAlarmEvents', props.backlogSizeAlarmEvents, BACKLOG_SIZE_ALARM_EVENTS);
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
  if (props.publishIngress !== undefined) {
    check(
      PUBLISH_INGRESSES.includes(props.publishIngress),
      `publishIngress must be one of ${PUBLISH_INGRESSES.map((value) => `'${value}'`).join(', ')} (got ${String(props.publishIngress)})`,
    );
  }
  if (props.reservedConcurrency !== undefined && props.reservedConcurrency !== false) {
    check(
      Number.isInteger(props.reservedConcurrency) && props.reservedConcurrency >= 1,
      `reservedConcurrency must be false or an integer of at least 1 (got ${props.reservedConcurrency})`,
    );
  }
  if (props.deliveryReservedConcurrency !== undefined && props.deliveryReservedConcurrency !== false) {
    const needed = minimumDeliveryReservedConcurrency(props.maxDeliveryInvocations ?? {});
    check(
      Number.isInteger(props.deliveryReservedConcurrency) && props.deliveryReservedConcurrency >= needed,
      `deliveryReservedConcurrency must be false or an integer of at least ${needed}: the delivery function's event sources may run ${deliveryEventSourceConcurrency(props.maxDeliveryInvocations ?? {})} invocations at once (maxDeliveryInvocations), plus one for the backlog sweep (got ${props.deliveryReservedConcurrency})`,
    );
  }
  if (props.deliveryBacklogLimit !== undefined && props.deliveryBacklogLimit !== false) {
    check(
      Number.isInteger(props.deliveryBacklogLimit) && props.deliveryBacklogLimit >= 1,
      `deliveryBacklogLimit must be false or an integer of at least 1 (got ${props.deliveryBacklogLimit})`,
    );
  }
  if (props.applicationLogLevel !== undefined) {
    check(
      METRIC_KEEPING_LOG_LEVELS.includes(props.applicationLogLevel),
      `applicationLogLevel must be ${METRIC_KEEPING_LOG_LEVELS.join(', ')} (got ${props.applicationLogLevel}): Lambda counts metric records as INFO lines, and drops them below it`,
    );
  }
  if (props.metricsNamespace !== undefined) {
    check(
      isValidMetricsNamespace(props.metricsNamespace),
      `metricsNamespace must be a CloudWatch namespace: ${METRICS_NAMESPACE_RULE} (got ${props.metricsNamespace})`,
    );
  }
  if (props.outputPrefix !== undefined) {
    check(
      OUTPUT_PREFIX_PATTERN.test(props.outputPrefix),
      `outputPrefix must be 1 to 64 letters or digits (got ${props.outputPrefix})`,
    );
  }
  for (const problem of alarmEmailProblems(props.alarmEmail)) problems.push(problem);
  problems.push(...portalProblems(props));
  problems.push(...egressProblems(props.egress));
  if (problems.length > 0) throw new Error(`Invalid DeliveryPipeline props: ${problems.join('; ')}`);
}

/** An email address as SNS takes one: a local part, `@`, a domain with a dot; no spaces. */
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;

/**
 * What is wrong with `alarmEmail`: each address (a token, resolved at deploy, is taken as it is)
 * must be an email address, and none given twice.
 */
function alarmEmailProblems(alarmEmail: DeliveryPipelineProps['alarmEmail']): string[] {
  const addresses = alarmEmailsOf(alarmEmail);
  const problems = addresses
    .filter((address) => !Token.isUnresolved(address))
    .filter((address) => typeof address !== 'string' || address.length > 254 || !EMAIL_ADDRESS.test(address))
    .map(
      (address) =>
        `alarmEmail must be email addresses such as oncall@example.com (got ${JSON.stringify(address)})`,
    );
  const repeated = addresses.filter((address, index) => addresses.indexOf(address) !== index);
  if (repeated.length > 0) problems.push(`alarmEmail names ${repeated.join(', ')} more than once`);
  return problems;
}

/**
 * What is wrong with `portalFrameAncestors` and `portalBranding`, checked as the management
 * function checks them when it starts (`shared/config/portal.ts`), each message naming the prop.
 */
function portalProblems(props: DeliveryPipelineProps): string[] {
  const problems: string[] = [];
  const attempt = (parse: () => unknown) => {
    try {
      parse();
    } catch (error) {
      problems.push((error as Error).message);
    }
  };
  const ancestors = props.portalFrameAncestors;
  if (ancestors !== undefined && !Array.isArray(ancestors)) {
    problems.push(`portalFrameAncestors must be a list of https origins (got ${JSON.stringify(ancestors)})`);
  } else if (ancestors !== undefined) {
    attempt(() => parseFrameAncestors(ancestors, 'portalFrameAncestors'));
  }
  if (props.portalBranding !== undefined) {
    attempt(() => parsePortalBranding(props.portalBranding, 'portalBranding'));
  }
  return problems;
}

/**
 * What the CDK stack really configures that the bill depends on, read from its synthesized
 * template (asset bundling skipped: only the template is read): each function's memory, log
 * format and levels, tracing and delivery concurrency; the delivery queue's batching window and
 * batch size; the HTTP API's access log format; the
 * log groups' retention; and what costs by the month (alarms, dashboards, secrets,
 * customer-managed KMS keys). Read at run time, so the bill follows the construct as it changes.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { GridwireStack } from '../infra/gridwire-stack';
import { ENV, FUNCTIONS, type FunctionKey, QUEUES } from '../shared/config/resources';
import type { RuntimeConfig } from '../shared/config/runtime';

export interface FunctionSettings {
  memoryMb: number;
  logFormat: string;
  /** Undefined when not set (Lambda then writes its INFO records). */
  systemLogLevel: string | undefined;
  applicationLogLevel: string | undefined;
  tracing: boolean;
  environment: Record<string, string>;
  /**
   * Settings the deployed function has that the local stack leaves off: the publish function's
   * backlog gate (`deliveryBacklogLimit`), when the template sets it.
   */
  deployedConfig: Partial<RuntimeConfig>;
}

export interface StackSettings {
  functions: Record<FunctionKey, FunctionSettings>;
  /** The `$default` stage's access log format; undefined without access logs. */
  accessLogFormat: string | undefined;
  /** Retention of each log group, days (the longest one is used for storage). */
  logRetentionDays: number[];
  /** Alarms, and the metrics they read (a metric math alarm reads several). */
  alarms: number;
  alarmMetrics: number;
  dashboards: number;
  secrets: number;
  customerManagedKeys: number;
  /** The delivery function's webhook requests in flight per invocation. */
  deliveryConcurrency: number;
  /** The delivery queue's event source mapping: its batching window (seconds) and batch size. */
  deliveryBatchingWindowSeconds: number;
  deliveryBatchSize: number;
}

type Resource = { Type: string; Properties?: Record<string, unknown> };

export function readStackSettings(): StackSettings {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new GridwireStack(app, 'Gridwire');
  const resources = Object.entries(
    (Template.fromStack(stack).toJSON() as { Resources: Record<string, Resource> }).Resources,
  );
  const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type);

  const functions = {} as Record<FunctionKey, FunctionSettings>;
  for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
    const found = ofType('AWS::Lambda::Function').find(([id]) => id.includes(FUNCTIONS[key].id));
    if (found === undefined) throw new Error(`the template has no ${FUNCTIONS[key].id}`);
    const props = found[1].Properties as {
      MemorySize: number;
      LoggingConfig?: { LogFormat?: string; SystemLogLevel?: string; ApplicationLogLevel?: string };
      TracingConfig?: { Mode?: string };
      Environment?: { Variables?: Record<string, unknown> };
    };
    const environment = Object.fromEntries(
      Object.entries(props.Environment?.Variables ?? {}).flatMap(([name, value]) =>
        typeof value === 'string' ? [[name, value]] : [],
      ),
    );
    functions[key] = {
      memoryMb: props.MemorySize,
      logFormat: props.LoggingConfig?.LogFormat ?? 'Text',
      systemLogLevel: props.LoggingConfig?.SystemLogLevel,
      applicationLogLevel: props.LoggingConfig?.ApplicationLogLevel,
      tracing: props.TracingConfig?.Mode === 'Active',
      environment,
      deployedConfig:
        environment[ENV.deliveryBacklogLimit] === undefined
          ? {}
          : { deliveryBacklogLimit: Number(environment[ENV.deliveryBacklogLimit]) },
    };
  }
  const stage = ofType('AWS::ApiGatewayV2::Stage')[0]?.[1].Properties as
    | { AccessLogSettings?: { Format?: string } }
    | undefined;
  const alarmMetricCount = (alarm: Resource) => {
    const metrics = alarm.Properties?.Metrics as Array<{ MetricStat?: unknown }> | undefined;
    return metrics === undefined ? 1 : metrics.filter((metric) => metric.MetricStat !== undefined).length;
  };
  const alarms = ofType('AWS::CloudWatch::Alarm');
  // The delivery queue's mapping: its source is the queue itself (not its redrive queue).
  const deliveryMapping = ofType('AWS::Lambda::EventSourceMapping').find(([, mapping]) => {
    const source = JSON.stringify(mapping.Properties?.EventSourceArn ?? '');
    return source.includes(QUEUES.delivery.id) && !source.includes(QUEUES.delivery.redrive.id);
  })?.[1].Properties as { BatchSize?: number; MaximumBatchingWindowInSeconds?: number } | undefined;
  if (deliveryMapping === undefined)
    throw new Error('the template has no event source mapping on the delivery queue');
  return {
    functions,
    accessLogFormat: stage?.AccessLogSettings?.Format,
    logRetentionDays: ofType('AWS::Logs::LogGroup').map(
      ([, group]) => (group.Properties?.RetentionInDays as number | undefined) ?? 3653,
    ),
    alarms: alarms.length,
    alarmMetrics: alarms.reduce((sum, [, alarm]) => sum + alarmMetricCount(alarm), 0),
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    secrets: ofType('AWS::SecretsManager::Secret').length,
    customerManagedKeys: ofType('AWS::KMS::Key').length,
    deliveryConcurrency: Number(functions.delivery.environment[ENV.deliveryConcurrency] ?? Number.NaN),
    deliveryBatchingWindowSeconds: deliveryMapping.MaximumBatchingWindowInSeconds ?? 0,
    deliveryBatchSize: deliveryMapping.BatchSize ?? 10,
  };
}

/**
 * What the stack costs by the month whatever its traffic: alarms, dashboard, secrets (and the
 * session key's reads while the console or portal is in use), keys, Lambda's idle polling of the
 * queues, and the custom metrics of the stack, of each topic and of each subscription (counted
 * from the series a run emitted).
 */
import { METRIC_DIMENSION_SETS, type MetricName } from '../shared/observability/metrics';
import { PRICES } from './prices';

/** What a stack, a topic and a subscription are made of that costs by the month. */
export interface FixedInputs {
  /** Alarm metrics (a metric math alarm counts each metric it reads). */
  alarmMetrics: number;
  dashboards: number;
  secrets: number;
  customerManagedKeys: number;
  /** Custom metrics (name and dimension set) of the whole stack, of each topic, of each subscription. */
  metrics: { stack: number; perTopic: number; perSubscription: number };
  /** Queues Lambda polls for the stack's functions (each long-polled while idle). */
  polledQueues?: number;
  /** The backlog sweep: the delivery function invoked on a schedule, reading the timer index. */
  backlogSweep?: BacklogSweepCost;
  /** The session key's reads (`GetSecretValue`) by management instances serving the console or portal. */
  sessionKeyUse?: SessionKeyUse;
}

/**
 * How much the session key is read. Only console and portal requests (and making sessions) read
 * it, and a management instance keeps its copy for `cacheSeconds`: an instance serving them reads
 * it once per that many seconds, and nothing reads it while no one uses them.
 */
export interface SessionKeyUse {
  /** Hours a month management instances spend serving console or portal requests, summed (assumed). */
  readonly instanceHoursPerMonth: number;
  /** Seconds an instance keeps its copy of the key. */
  readonly cacheSeconds: number;
}

/** What one scheduled sweep costs besides its schedule (EventBridge rules on a schedule are free). */
export interface BacklogSweepCost {
  readonly everyMinutes: number;
  /** Billed duration of one idle sweep (its index queries), assumed. */
  readonly billedMs: number;
  readonly memoryMb: number;
  /** Read units of its index queries (eventually consistent, at least half a unit each). */
  readonly readUnits: number;
}

/**
 * Lambda's pollers of an SQS event source: it starts with five parallel long polls of 20 s per
 * queue and keeps them while the queue is idle, so an idle queue costs about 5 x 3 receives a
 * minute (documented in the Lambda developer guide, "Using Lambda with Amazon SQS").
 */
export const IDLE_POLLERS_PER_QUEUE = 5;
export const LONG_POLL_SECONDS = 20;
/** Seconds in a month of 30 days. */
const MONTH_SECONDS = 30 * 24 * 3600;

export interface FixedMonthly {
  stack: {
    alarms: number;
    dashboards: number;
    secrets: number;
    /** `GetSecretValue` calls on the session key while the console or portal is in use. */
    sessionKeyReads: number;
    kmsKeys: number;
    metrics: number;
    /** Receives of Lambda's pollers on the idle queues. */
    sqsIdlePolling: number;
    /** The backlog sweep's invocations, duration and index reads. */
    backlogSweep: number;
    total: number;
  };
  perTopic: number;
  perSubscription: number;
}

/** Fixed monthly dollars (not per event): the stack's own, and each topic's and subscription's metrics. */
export function fixedMonthly(inputs: FixedInputs): FixedMonthly {
  const cw = PRICES.cloudWatch;
  const stack = {
    alarms: inputs.alarmMetrics * cw.perAlarmMonth,
    dashboards: inputs.dashboards * cw.perDashboardMonth,
    secrets: inputs.secrets * PRICES.secretsManager.perSecretMonth,
    sessionKeyReads: sessionKeyReadsMonthly(inputs.sessionKeyUse),
    kmsKeys: inputs.customerManagedKeys * PRICES.kms.perKeyMonth,
    metrics: inputs.metrics.stack * cw.perMetricMonth,
    sqsIdlePolling:
      (inputs.polledQueues ?? 0) *
      IDLE_POLLERS_PER_QUEUE *
      (MONTH_SECONDS / LONG_POLL_SECONDS) *
      PRICES.sqs.perRequest,
    backlogSweep: sweepMonthly(inputs.backlogSweep),
  };
  return {
    stack: { ...stack, total: Object.values(stack).reduce((sum, value) => sum + value, 0) },
    perTopic: inputs.metrics.perTopic * cw.perMetricMonth,
    perSubscription: inputs.metrics.perSubscription * cw.perMetricMonth,
  };
}

function sessionKeyReadsMonthly(use: SessionKeyUse | undefined): number {
  if (use === undefined) return 0;
  return ((use.instanceHoursPerMonth * 3600) / use.cacheSeconds) * PRICES.secretsManager.perApiCall;
}

function sweepMonthly(sweep: BacklogSweepCost | undefined): number {
  if (sweep === undefined) return 0;
  const perSweep =
    PRICES.lambda.perRequest +
    (sweep.billedMs / 1000) * (sweep.memoryMb / 1024) * PRICES.lambda.perGbSecond +
    sweep.readUnits * PRICES.dynamodb.perReadUnit;
  return (MONTH_SECONDS / 60 / sweep.everyMinutes) * perSweep;
}

/**
 * Custom metrics of the stack, a topic and a subscription: at most (every series a metric may be
 * emitted in) and on the happy path (the metrics the run emitted, each in the series of its
 * `METRIC_DIMENSION_SETS`), both with per-subscription metrics on and as `subscriptionMetrics`
 * says (off: a subscription's metrics are a topic's).
 */
export function metricCounts(
  emitted: ReadonlyArray<{ name: string; dimensions: Record<string, string> }>,
  subscriptionMetrics: boolean,
) {
  const sets = Object.entries(METRIC_DIMENSION_SETS) as Array<[MetricName, readonly (readonly string[])[]]>;
  const isSet = (set: readonly string[], dimensions: readonly string[]) =>
    set.length === dimensions.length && dimensions.every((d) => set.includes(d));
  const metricsIn = (dimensions: readonly string[], names: ReadonlySet<string>) =>
    sets.filter(([name, metricSets]) => names.has(name) && metricSets.some((set) => isSet(set, dimensions)))
      .length;
  const every = new Set<string>(Object.keys(METRIC_DIMENSION_SETS));
  const named = (filter: (dimensions: Record<string, string>) => boolean) =>
    new Set(emitted.filter((total) => filter(total.dimensions)).map((total) => total.name));
  const stackWide = named((dimensions) => Object.keys(dimensions).length === 0);
  const aboutATopic = named((dimensions) => dimensions.Topic !== undefined);
  const on = (names: ReadonlySet<string>) => ({
    perTopic: metricsIn(['Topic'], names),
    perSubscription: metricsIn(['EventSubscriptionName', 'Topic'], names),
  });
  const inForce = (counts: { perTopic: number; perSubscription: number }) =>
    subscriptionMetrics ? counts : { perTopic: counts.perTopic + counts.perSubscription, perSubscription: 0 };
  return {
    subscriptionMetrics,
    atMost: { stack: metricsIn([], every), ...inForce(on(every)) },
    happyPath: { stack: stackWide.size, ...inForce(on(aboutATopic)) },
    /** The same with `subscriptionMetrics: true`. */
    withSubscriptionMetrics: { atMost: on(every), happyPath: on(aboutATopic) },
  };
}

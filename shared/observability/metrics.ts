/**
 * Metrics under the original service's names, buffered per invocation so a batch of thousands
 * of events emits a handful of metric records rather than one per event.
 *
 * Emitters give every dimension they know; {@link METRIC_DIMENSION_SETS} decides which series
 * (dimension sets) each point is counted in, so the cardinality rule lives in one place (see
 * docs/ARCHITECTURE.md, "Metrics").
 */
import type { AttemptResult } from '../domain/attempts';

/**
 * The CloudWatch namespace of Gridwire's metrics unless a deployment names its own
 * (`ENV.metricsNamespace`, the construct's `metricsNamespace`).
 */
export const METRICS_NAMESPACE = 'Gridwire';

/**
 * CloudWatch's namespace rules: 1 to 255 of letters, digits, `.`, `-`, `_`, `/`, `#`, `:` and
 * spaces (the CloudWatch User Guide, "Namespaces"), not beginning with `:` (the API's pattern) nor
 * with `AWS/` (reserved for AWS services); and, since settings are read trimmed, no space at
 * either end.
 */
export function isValidMetricsNamespace(namespace: string): boolean {
  return (
    /^[A-Za-z0-9 ._#:/-]{1,255}$/.test(namespace) &&
    !namespace.startsWith(':') &&
    !namespace.startsWith('AWS/') &&
    namespace.trim() === namespace
  );
}

/** The rule of {@link isValidMetricsNamespace} in words, for error messages. */
export const METRICS_NAMESPACE_RULE =
  "1 to 255 letters, digits, spaces (not at either end) or . - _ / # : characters, not beginning with ':' or 'AWS/'";

/**
 * The Powertools service name of every function: the `service` dimension on every metric record
 * (the one dimension of the stack-wide series alarms watch) and the `service` key of every log line.
 */
export const SERVICE_NAME = 'gridwire';

export const METRIC = {
  PublishSuccessCount: 'PublishSuccessCount',
  PublishFailCount: 'PublishFailCount',
  PublishSuccessLatencyInMs: 'PublishSuccessLatencyInMs',
  /**
   * Publish requests refused with 429 because the delivery queue is behind (the publish
   * function's own gate on AWS), stack-wide only: they are refused before the caller is known
   * (Gridwire's own).
   */
  PublishThrottledCount: 'PublishThrottledCount',
  /**
   * Events answered 200 but not queued: repeats of ids their topic accepted within its
   * de-duplication window, or earlier in the same request (Gridwire's own; topics with a window only).
   */
  PublishDuplicateCount: 'PublishDuplicateCount',
  MatchedEventCount: 'MatchedEventCount',
  UnmatchedEventCount: 'UnmatchedEventCount',
  DeliverySuccessCount: 'DeliverySuccessCount',
  DeliveryAttemptFailCount: 'DeliveryAttemptFailCount',
  DestinationProcessingDurationInMs: 'DestinationProcessingDurationInMs',
  DroppedEventCount: 'DroppedEventCount',
  DeadLetteredCount: 'DeadLetteredCount',
  /** Deliveries held back without an attempt: the endpoint was on probation or stalled (Gridwire's own). */
  DeliveryHeldCount: 'DeliveryHeldCount',
  /** Events kept in a subscription's backlog (Gridwire's own). */
  DeliveryStoredCount: 'DeliveryStoredCount',
  /** An endpoint's probation began (Gridwire's own). */
  ProbationEnteredCount: 'ProbationEnteredCount',
  /** Dead-lettered events queued again by a replay (Gridwire's own). */
  ReplayedEventCount: 'ReplayedEventCount',
  /**
   * Events delivered by a success that came after their request timed out; also counted in
   * `DeliverySuccessCount` (Gridwire's own).
   */
  DeliveryLateAnswerCount: 'DeliveryLateAnswerCount',
  /**
   * An endpoint refused the validation handshake or could not be reached for it: its subscription
   * waits for manual validation (its validation URL) until the window closes, and receives nothing
   * until then. A subscription declared in code with `validation: 'async'` reports its outcome
   * only here and in its health (Gridwire's own).
   */
  EndpointValidationFailCount: 'EndpointValidationFailCount',
  /**
   * Events held in every backlog, as the backlogs' timers last summed them up: a gauge the sweeper
   * writes every five minutes, stack-wide only (Gridwire's own).
   */
  BacklogHeldEvents: 'BacklogHeldEvents',
  /**
   * Seconds since the oldest backlogged event was published (over every backlog, per segment, so
   * it may be older than any event still held): a gauge the sweeper writes every five minutes,
   * stack-wide only (Gridwire's own).
   */
  BacklogOldestEventAgeSeconds: 'BacklogOldestEventAgeSeconds',
  /**
   * Backlog wakes found more than five minutes late and armed again: their tick message was lost
   * (a redriven message, a bug). Stack-wide only (Gridwire's own).
   */
  BacklogWakeLateCount: 'BacklogWakeLateCount',
  /**
   * Seconds since the oldest overdue backlog wake was due: a wake still in the timer index more
   * than the grace (`OVERDUE_GRACE_MS`, 2 minutes) past its time, its tick lost or not yet taken;
   * 0 when none is. A gauge the sweeper writes at every sweep, counted from when the wake was
   * first due however often the sweeper armed it again, so it grows until a tick takes it.
   * Stack-wide only (Gridwire's own).
   */
  OldestOverdueSeconds: 'OldestOverdueSeconds',
  /**
   * Whole days until a subscription's client certificate expires (negative once it has), written
   * with its deliveries only from 30 days before: a gauge an alarm watches (Gridwire's own).
   */
  ClientCertificateDaysLeft: 'ClientCertificateDaysLeft',
  /** Events a source (an SQS queue, an EventBridge bus) brought into its topic (Gridwire's own). */
  SourceEventCount: 'SourceEventCount',
  /**
   * Source messages the publish rules refused (each stays in its queue until its dead-letter queue
   * takes it), counted at every receive (Gridwire's own).
   */
  SourceRefusedCount: 'SourceRefusedCount',
  /** Events written into their topic's archive (Gridwire's own). */
  ArchivedEventCount: 'ArchivedEventCount',
  /**
   * Events accepted by a topic with an archive whose copy could not be queued for it: they were
   * delivered as usual but are missing from the archive. An alarm watches it (Gridwire's own).
   */
  ArchiveMissedCount: 'ArchiveMissedCount',
} as const;
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';
export type Dimensions = Readonly<Record<string, string>>;

export interface MetricPoint {
  name: MetricName;
  unit: MetricUnit;
  dimensions: Dimensions;
  /** Counts are summed into one value; durations keep every observation; a gauge keeps its last. */
  values: number[];
}

const SUBSCRIPTION = ['Topic', 'EventSubscriptionName'] as const;

/**
 * The series each metric is emitted in: every CloudWatch dimension set is a billed custom metric,
 * so the sets are few and never multiply. Each metric has
 * - one stack-wide series without dimensions (what alarms and the dashboard watch),
 * - one per topic (`Topic`) or per subscription (`Topic`, `EventSubscriptionName`) and nothing
 *   else, and
 * - for metrics with a reason or an error, one stack-wide series per reason or error.
 *
 * A subscription is never crossed with a reason or an error: series grow by subscriptions plus
 * reasons, not subscriptions times reasons. Which error a given subscription gets is in its
 * attempt history and health. A set is skipped for a point that lacks one of its dimensions
 * (a failed publish names its topic only once the caller has authenticated). The per-subscription
 * sets are emitted only when subscription metrics are on (see {@link seriesFor}).
 */
export const METRIC_DIMENSION_SETS: Readonly<Record<MetricName, readonly (readonly string[])[]>> = {
  PublishSuccessCount: [[], ['Topic']],
  PublishFailCount: [[], ['Topic'], ['ErrorType', 'Error']],
  PublishSuccessLatencyInMs: [[], ['Topic']],
  // Refused before the caller proved anything: naming the topic would let anyone mint series.
  PublishThrottledCount: [[]],
  PublishDuplicateCount: [[], ['Topic']],
  ArchivedEventCount: [[], ['Topic']],
  ArchiveMissedCount: [[], ['Topic']],
  UnmatchedEventCount: [[], ['Topic']],
  MatchedEventCount: [[], SUBSCRIPTION],
  DeliverySuccessCount: [[], SUBSCRIPTION],
  DeliveryAttemptFailCount: [[], SUBSCRIPTION, ['Error', 'ErrorType']],
  DestinationProcessingDurationInMs: [[], SUBSCRIPTION],
  DroppedEventCount: [[], SUBSCRIPTION, ['DropReason']],
  DeadLetteredCount: [[], SUBSCRIPTION, ['DeadLetterReason']],
  DeliveryHeldCount: [[], SUBSCRIPTION],
  DeliveryStoredCount: [[], SUBSCRIPTION],
  ProbationEnteredCount: [[], SUBSCRIPTION],
  ReplayedEventCount: [[], SUBSCRIPTION],
  DeliveryLateAnswerCount: [[], SUBSCRIPTION],
  EndpointValidationFailCount: [[], SUBSCRIPTION],
  // About every backlog at once: one measure of the stack, nothing to break down.
  BacklogHeldEvents: [[]],
  BacklogOldestEventAgeSeconds: [[]],
  BacklogWakeLateCount: [[]],
  OldestOverdueSeconds: [[]],
  ClientCertificateDaysLeft: [[], SUBSCRIPTION],
  // A few sources per stack, named by their deployer: one series each.
  SourceEventCount: [[], ['Source']],
  SourceRefusedCount: [[], ['Source']],
};

/** Which of the optional series a function emits (its `RuntimeConfig` settings of the same names). */
export interface MetricSeriesSettings {
  /**
   * Per subscription (`Topic`, `EventSubscriptionName`), or, off, per topic (`Topic`) in its
   * place: the same counts, one billed series per topic instead of one per subscription.
   */
  readonly subscriptionMetrics: boolean;
}

const isPerSubscription = (set: readonly string[]): boolean => set.includes('EventSubscriptionName');

/**
 * The dimension sets a metric is emitted in under `settings`: those of
 * {@link METRIC_DIMENSION_SETS}, a per-subscription set narrowed to its topic when subscription
 * metrics are off.
 */
export function dimensionSetsFor(
  name: MetricName,
  settings: MetricSeriesSettings,
): readonly (readonly string[])[] {
  const sets = METRIC_DIMENSION_SETS[name];
  if (settings.subscriptionMetrics) return sets;
  return sets.map((set) => (isPerSubscription(set) ? ['Topic'] : set));
}

/** The point's dimensions narrowed to each of `sets` it has every dimension of. */
const narrowTo = (sets: readonly (readonly string[])[], dimensions: Dimensions): Dimensions[] =>
  sets.flatMap((set) =>
    set.every((key) => dimensions[key] !== undefined)
      ? [Object.fromEntries(set.map((key) => [key, dimensions[key] as string]))]
      : [],
  );

/** The point's dimensions narrowed to each of its metric's sets (those it has every dimension of). */
export function dimensionSetsOf(name: MetricName, dimensions: Dimensions): Dimensions[] {
  return narrowTo(METRIC_DIMENSION_SETS[name], dimensions);
}

/**
 * The series a function's points land in under its settings: what a function's
 * {@link MetricBuffer} is built with. The sets are worked out once, not per point.
 */
export function seriesFor(
  settings: MetricSeriesSettings,
): (name: MetricName, dimensions: Dimensions) => Dimensions[] {
  const sets = Object.fromEntries(
    (Object.keys(METRIC_DIMENSION_SETS) as MetricName[]).map((name) => [
      name,
      dimensionSetsFor(name, settings),
    ]),
  ) as Record<MetricName, readonly (readonly string[])[]>;
  return (name, dimensions) => narrowTo(sets[name], dimensions);
}

/**
 * Values of one metric an EMF record takes. Powertools flushes by itself when a metric reaches
 * 100 values (and clears the dimensions as it does), so records are cut just before that.
 */
export const VALUES_PER_RECORD = 99;

/** Collects metric points during one invocation; `drain()` hands them over and starts afresh. */
export class MetricBuffer {
  private points = new Map<string, MetricPoint>();

  constructor(
    /**
     * The series a point lands in: by default every set of {@link METRIC_DIMENSION_SETS}.
     * Functions pass {@link seriesFor} their settings; models that need every dimension together
     * (the bench's simulations) pass {@link EVERY_DIMENSION}.
     */
    private readonly seriesOf: (name: MetricName, dimensions: Dimensions) => Dimensions[] = dimensionSetsOf,
  ) {}

  /** Adds `value` to the metric in each of its series (see {@link METRIC_DIMENSION_SETS}). */
  count(name: MetricName, value: number, dimensions: Dimensions = {}): void {
    if (value === 0) return;
    for (const set of this.seriesOf(name, dimensions)) {
      const point = this.point(name, 'Count', set);
      point.values[0] = (point.values[0] ?? 0) + value;
    }
  }

  /** Records one observation in each of the metric's series. */
  duration(name: MetricName, ms: number, dimensions: Dimensions = {}): void {
    for (const set of this.seriesOf(name, dimensions)) this.point(name, 'Milliseconds', set).values.push(ms);
  }

  /**
   * Records the current value of a measure (how many, how old) in each of the metric's series,
   * replacing one recorded earlier in the same buffer: a measure taken twice before the buffer is
   * written is written once, as last taken, where counts would add up. Zero is recorded too.
   */
  gauge(name: MetricName, value: number, unit: MetricUnit, dimensions: Dimensions = {}): void {
    for (const set of this.seriesOf(name, dimensions)) this.point(name, unit, set).values = [value];
  }

  drain(): MetricPoint[] {
    const drained = [...this.points.values()];
    this.points = new Map();
    return drained;
  }

  /** Whether some metric holds a record's worth of values ({@link VALUES_PER_RECORD}). */
  holdsFullRecord(): boolean {
    for (const point of this.points.values()) if (point.values.length >= VALUES_PER_RECORD) return true;
    return false;
  }

  private point(name: MetricName, unit: MetricUnit, dimensions: Dimensions): MetricPoint {
    const key = `${name}|${Object.entries(dimensions)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}`;
    let point = this.points.get(key);
    if (point === undefined) {
      point = { name, unit, dimensions, values: [] };
      this.points.set(key, point);
    }
    return point;
  }
}

/**
 * When a function's buffered metric points are written. With `everyMs` 0, at the end of every
 * invocation: one record set per invocation, nothing waits. Otherwise points are kept across
 * invocations of the same instance and written at the end of the first invocation `everyMs` or
 * more after the last write, or as soon as a metric holds a record's worth of values: with one
 * event per publish request, a hundred publishes share one record instead of writing one each.
 *
 * The price: points wait until that invocation (an idle instance's stay in memory), and those of
 * an instance Lambda retires before then are lost unless it hears of the shutdown (`flush`, on
 * SIGTERM: Lambda sends it only to functions with an extension).
 */
export class MetricFlusher {
  private lastWriteAt: number;

  constructor(
    private readonly buffer: MetricBuffer,
    private readonly write: (points: readonly MetricPoint[]) => void,
    private readonly options: { everyMs: number; now: () => number },
  ) {
    this.lastWriteAt = options.now();
  }

  /** At the end of an invocation: writes the points when they are due. */
  invocationEnded(): void {
    const now = this.options.now();
    const due =
      this.options.everyMs === 0 ||
      now - this.lastWriteAt >= this.options.everyMs ||
      this.buffer.holdsFullRecord();
    if (due) this.flush(now);
  }

  /** Writes every buffered point now. */
  flush(now: number = this.options.now()): void {
    this.lastWriteAt = now;
    const points = this.buffer.drain();
    if (points.length > 0) this.write(points);
  }
}

/** One series per point with all the dimensions it was given (models, not CloudWatch). */
export const EVERY_DIMENSION = (_name: MetricName, dimensions: Dimensions): Dimensions[] => [dimensions];

/**
 * Dimensions naming one subscription. Emitters always give them; whether a per-subscription
 * series is written is the buffer's settings' choice ({@link seriesFor}).
 */
export const subscriptionDimensions = (topic: string, subscription: string): Dimensions => ({
  Topic: topic,
  EventSubscriptionName: subscription.toUpperCase(),
});

/**
 * `Error` and `ErrorType` of a failed delivery attempt: the outcome (`NotFound`, `Busy`,
 * `TimedOut`, `GenericError`...) and where it came from: `ClientError` (the endpoint answered
 * 4xx), `ServerError` (5xx), `UnexpectedAnswer` (any other status, e.g. a redirect) or
 * `NetworkError` (no answer: connection, name resolution, timeout).
 */
export function deliveryFailureDimensions(result: Pick<AttemptResult, 'outcome' | 'httpStatus'>): {
  Error: string;
  ErrorType: string;
} {
  const status = result.httpStatus;
  const errorType =
    status === undefined
      ? 'NetworkError'
      : status >= 400 && status < 500
        ? 'ClientError'
        : status >= 500 && status < 600
          ? 'ServerError'
          : 'UnexpectedAnswer';
  return { Error: result.outcome ?? 'GenericError', ErrorType: errorType };
}

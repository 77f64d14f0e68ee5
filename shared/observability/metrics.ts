/**
 * Metrics under the original service's names, buffered per invocation so a batch of thousands
 * of events emits a handful of metric records rather than one per event.
 */

export const METRIC = {
  PublishSuccessCount: 'PublishSuccessCount',
  PublishFailCount: 'PublishFailCount',
  PublishSuccessLatencyInMs: 'PublishSuccessLatencyInMs',
  MatchedEventCount: 'MatchedEventCount',
  UnmatchedEventCount: 'UnmatchedEventCount',
  DeliverySuccessCount: 'DeliverySuccessCount',
  DeliveryAttemptFailCount: 'DeliveryAttemptFailCount',
  DestinationProcessingDurationInMs: 'DestinationProcessingDurationInMs',
  DroppedEventCount: 'DroppedEventCount',
  DeadLetteredCount: 'DeadLetteredCount',
  /** Deliveries held back without an attempt: the endpoint was on probation or stalled (Gridwire's own). */
  DeliveryHeldCount: 'DeliveryHeldCount',
} as const;
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

export type MetricUnit = 'Count' | 'Milliseconds';
export type Dimensions = Readonly<Record<string, string>>;

export interface MetricPoint {
  name: MetricName;
  unit: MetricUnit;
  dimensions: Dimensions;
  /** Counts are summed into one value; durations keep every observation. */
  values: number[];
}

/** Collects metric points during one invocation; `drain()` hands them over and starts afresh. */
export class MetricBuffer {
  private points = new Map<string, MetricPoint>();

  count(name: MetricName, value: number, dimensions: Dimensions = {}): void {
    if (value === 0) return;
    const point = this.point(name, 'Count', dimensions);
    point.values[0] = (point.values[0] ?? 0) + value;
  }

  duration(name: MetricName, ms: number, dimensions: Dimensions = {}): void {
    this.point(name, 'Milliseconds', dimensions).values.push(ms);
  }

  drain(): MetricPoint[] {
    const drained = [...this.points.values()];
    this.points = new Map();
    return drained;
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

/** Dimensions naming one subscription. */
export const subscriptionDimensions = (topic: string, subscription: string): Dimensions => ({
  Topic: topic,
  EventSubscriptionName: subscription.toUpperCase(),
});

/**
 * The local stack's stand-in for CloudWatch metrics: totals of every metric point the handlers
 * emit, by name and dimensions.
 */
import type { MetricPoint } from '../shared/observability/metrics';

export interface MetricTotal {
  name: string;
  dimensions: Record<string, string>;
  unit: string;
  /** Sum of counts, or of durations. */
  sum: number;
  /** Observations (one per count flush, one per duration). */
  samples: number;
  max: number;
}

/** A series' key: its metric and its dimensions, in name order. */
const seriesKey = (name: string, dimensions: Readonly<Record<string, string>>): string =>
  `${name}|${JSON.stringify(Object.fromEntries(Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b))))}`;

export class LocalMetrics {
  private readonly totals = new Map<string, MetricTotal>();
  /** The last value written to each series: what a gauge reads now. */
  private readonly lastValues = new Map<string, number>();

  readonly publish = (points: readonly MetricPoint[]): void => {
    for (const point of points) {
      const dimensions = Object.fromEntries(
        Object.entries(point.dimensions).sort(([a], [b]) => a.localeCompare(b)),
      );
      const key = seriesKey(point.name, dimensions);
      const last = point.values.at(-1);
      if (last !== undefined) this.lastValues.set(key, last);
      let total = this.totals.get(key);
      if (total === undefined) {
        total = { name: point.name, dimensions, unit: point.unit, sum: 0, samples: 0, max: 0 };
        this.totals.set(key, total);
      }
      for (const value of point.values) {
        total.sum += value;
        total.samples += 1;
        total.max = Math.max(total.max, value);
      }
    }
  };

  snapshot(): MetricTotal[] {
    return [...this.totals.values()].map((total) => ({ ...total, dimensions: { ...total.dimensions } }));
  }

  /**
   * The last value written to a metric's series with exactly `dimensions` (default: its
   * stack-wide series): a gauge's current reading, which sums and maxima do not tell.
   * `undefined` before any.
   */
  last(name: string, dimensions: Record<string, string> = {}): number | undefined {
    return this.lastValues.get(seriesKey(name, dimensions));
  }

  /** Sum of a metric across dimension sets matching `filter`. */
  sum(name: string, filter: Record<string, string> = {}): number {
    let sum = 0;
    for (const total of this.totals.values()) {
      if (total.name !== name) continue;
      if (Object.entries(filter).every(([key, value]) => total.dimensions[key] === value)) sum += total.sum;
    }
    return sum;
  }
}

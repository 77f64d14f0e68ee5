/**
 * The EMF records the functions would write for the metric points of a run. The local stack sums
 * metric points in memory instead of writing EMF, so the records are rebuilt from its totals:
 * each flush writes one record per dimension set it has points in (`publishMetricPoints` in
 * `shared/lambda/middleware.ts`), a count once per flush and every duration observation, at most
 * 99 values of a metric per record. The records are then written by Powertools Metrics itself,
 * through that same function, and their bytes counted as CloudWatch Logs would ingest them.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricTotal } from '../local/metrics';
import { publishMetricPoints } from '../shared/lambda/middleware';
import {
  METRIC,
  METRICS_NAMESPACE,
  type MetricName,
  type MetricPoint,
  SERVICE_NAME,
  VALUES_PER_RECORD,
} from '../shared/observability/metrics';
import { captureFunctionOutput } from './log-capture';

/** Totals gathered between two snapshots of the local stack's metrics. */
export function metricsBetween(before: readonly MetricTotal[], after: readonly MetricTotal[]): MetricTotal[] {
  const key = (total: MetricTotal) => `${total.name}|${JSON.stringify(total.dimensions)}`;
  const earlier = new Map(before.map((total) => [key(total), total]));
  return after.flatMap((total) => {
    const was = earlier.get(key(total));
    const samples = total.samples - (was?.samples ?? 0);
    return samples > 0 ? [{ ...total, samples, sum: total.sum - (was?.sum ?? 0) }] : [];
  });
}

/** The metrics the publish function counts; every other one is the delivery or dead-letter step's. */
const PUBLISH_METRICS: ReadonlySet<string> = new Set([
  METRIC.PublishSuccessCount,
  METRIC.PublishFailCount,
  METRIC.PublishSuccessLatencyInMs,
  METRIC.MatchedEventCount,
  METRIC.UnmatchedEventCount,
]);

/** The functions whose metric points are rebuilt apart: publish's, and the rest (delivery's). */
export type MetricFamily = 'publish' | 'delivery';

/**
 * Points kept across invocations (`metricsFlushSeconds`, see `MetricFlusher`): each instance
 * writes when a metric holds a record's worth of values, or at the end of the first invocation
 * `everySeconds` after its last write.
 */
export interface KeptAcrossInvocations {
  everySeconds: number;
  /** The run's length. */
  seconds: number;
  /** Instances of each family's function taking the run's invocations. */
  instances: Record<MetricFamily, number>;
}

/**
 * EMF records, and their bytes, for the metric totals of a run. The totals of each function are
 * rebuilt as its flushes, each with the mean values, written through `publishMetricPoints` as a
 * flush writes them (so counts a topic and the stack share go in one record). Flushes after every
 * invocation: as many as the most often counted of its counts (each flush counts a count once)
 * or as its durations need (99 values a record). Points `kept` across invocations: as many as
 * the durations need, or as the instances' intervals in the run, whichever is more (the expected
 * number, not rounded: the run stands for a longer one).
 */
export function emfRecordsOf(
  totals: readonly MetricTotal[],
  kept?: KeptAcrossInvocations,
): { records: number; bytes: number } {
  const families: Array<[MetricFamily, MetricTotal[]]> = [
    ['publish', totals.filter((total) => PUBLISH_METRICS.has(total.name))],
    ['delivery', totals.filter((total) => !PUBLISH_METRICS.has(total.name))],
  ];
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  let records = 0;
  let bytes = 0;
  for (const [name, family] of families) {
    if (family.length === 0) continue;
    const durationFlushes = family
      .filter((total) => total.unit !== 'Count')
      .map((total) => total.samples / VALUES_PER_RECORD);
    const flushes =
      kept === undefined
        ? Math.max(
            1,
            ...family.filter((total) => total.unit === 'Count').map((total) => total.samples),
            ...durationFlushes.map(Math.ceil),
          )
        : Math.max(...durationFlushes, (kept.instances[name] * kept.seconds) / kept.everySeconds);
    // One flush's points: a count's mean value per flush it is in, a duration's mean number of
    // observations.
    const points: MetricPoint[] = family.map((total) => ({
      name: total.name as MetricName,
      unit: total.unit as MetricPoint['unit'],
      dimensions: total.dimensions,
      values:
        total.unit === 'Count'
          ? [Math.round(total.sum / Math.min(flushes, total.samples))]
          : Array.from({ length: Math.max(1, Math.round(total.samples / flushes)) }, () =>
              Math.round(total.sum / total.samples),
            ),
    }));
    const capture = captureFunctionOutput();
    publishMetricPoints(points, metrics);
    const written = capture.stop();
    records += written.emfRecords * flushes;
    bytes += written.emfBytes * flushes;
  }
  return { records, bytes };
}

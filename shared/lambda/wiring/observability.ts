/**
 * A function's logging and metrics: its Powertools logger, and the buffer and flusher of its metric
 * points (CloudWatch EMF on Lambda; the local stack sums them in memory).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { CONFIG_DEFAULTS } from '../../config/runtime';
import {
  METRICS_NAMESPACE,
  MetricBuffer,
  MetricFlusher,
  type MetricPoint,
  SERVICE_NAME,
  seriesFor,
} from '../../observability/metrics';
import { type Clock, systemClock } from '../../platform/clock';
import { publishMetricPoints } from '../middleware';

/** Logging and metrics of one function. */
export interface Observability {
  logger: Logger;
  /** Metric points not yet written. */
  buffer: MetricBuffer;
  /** Writes the buffered points at the end of an invocation, or later (`metricsFlushSeconds`). */
  flusher: MetricFlusher;
}

/**
 * A function's logging and metrics settings. A function passes its `RuntimeConfig`, which holds
 * `subscriptionMetrics` and `metricsFlushSeconds` under the same names.
 */
export interface ObservabilityOptions {
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** Replaces CloudWatch EMF output (the local stack aggregates in memory). */
  publishMetrics?: (points: readonly MetricPoint[]) => void;
  /**
   * Whether metrics are counted per subscription, or per topic in its place (the function's
   * `RuntimeConfig.subscriptionMetrics`).
   * @default false, as `readConfig` reads an absent variable
   */
  subscriptionMetrics?: boolean;
  /**
   * Seconds metric points may be kept across invocations before they are written (see
   * `MetricFlusher`).
   * @default 0: written at the end of every invocation
   */
  metricsFlushSeconds?: number;
  /**
   * The CloudWatch namespace of the metric records (the function's `RuntimeConfig.metricsNamespace`).
   * @default METRICS_NAMESPACE
   */
  metricsNamespace?: string;
  /** The flusher's time. */
  clock?: Clock;
}

export function createObservability(functionName: string, options: ObservabilityOptions = {}): Observability {
  let publishMetrics = options.publishMetrics;
  if (publishMetrics === undefined) {
    const namespace = options.metricsNamespace ?? METRICS_NAMESPACE;
    const metrics = new Metrics({ namespace, serviceName: SERVICE_NAME });
    publishMetrics = (points) => publishMetricPoints(points, metrics);
  }
  const buffer = new MetricBuffer(
    seriesFor({ subscriptionMetrics: options.subscriptionMetrics ?? CONFIG_DEFAULTS.subscriptionMetrics }),
  );
  const flushSeconds = options.metricsFlushSeconds ?? CONFIG_DEFAULTS.metricsFlushSeconds;
  const clock = options.clock ?? systemClock;
  const flusher = new MetricFlusher(buffer, publishMetrics, { everyMs: flushSeconds * 1000, now: clock.now });
  if (flushSeconds > 0 && options.publishMetrics === undefined) writeMetricsOnShutdown(flusher);
  return {
    logger: new Logger({
      serviceName: SERVICE_NAME,
      ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
      persistentKeys: { function: functionName },
    }),
    buffer,
    flusher,
  };
}

/**
 * On Lambda, points kept across invocations are written when the instance is shut down, if the
 * runtime hears of it: Lambda sends SIGTERM (and waits up to 500 ms) only to functions with an
 * extension. Without one the instance is frozen and then stopped, and its points are lost.
 */
function writeMetricsOnShutdown(flusher: MetricFlusher): void {
  process.once('SIGTERM', () => {
    flusher.flush();
    process.exit(0);
  });
}

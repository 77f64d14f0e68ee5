/**
 * The metric series of Gridwire's own metrics that the alarms and the dashboard read: each
 * metric's stack-wide series, and its breakdowns by error or reason, in the pipeline's namespace
 * (see `monitoring.ts` for how the functions write them).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC_DIMENSION_SETS, type MetricName, SERVICE_NAME } from '../shared/observability/metrics';

/** The period of every graph and of most alarms. */
export const FIVE_MINUTES = Duration.minutes(5);

const hasSeries = (metric: MetricName, dimensions: readonly string[]): boolean =>
  METRIC_DIMENSION_SETS[metric].some(
    (set) => set.length === dimensions.length && dimensions.every((name) => set.includes(name)),
  );

/**
 * A Gridwire metric's stack-wide series in `namespace` (the pipeline's `metricsNamespace`). Throws
 * at synth if the functions don't emit one, so a graph or alarm can't silently watch nothing.
 */
export function pipelineMetric(
  namespace: string,
  metric: MetricName,
  statistic: 'Sum' | 'Average' | 'Maximum' | 'Minimum' | 'p99',
  label?: string,
): cloudwatch.Metric {
  if (!hasSeries(metric, [])) throw new Error(`${metric} has no stack-wide series in METRIC_DIMENSION_SETS`);
  return new cloudwatch.Metric({
    namespace,
    metricName: metric,
    dimensionsMap: { service: SERVICE_NAME },
    statistic,
    period: FIVE_MINUTES,
    ...(label === undefined ? {} : { label }),
  });
}

/**
 * One line per value of `dimensions` (an error, a reason) of a Gridwire metric in `namespace`,
 * summed per five minutes: a SEARCH over exactly that dimension set. Throws at synth if it isn't
 * emitted.
 */
export function pipelineBreakdown(
  namespace: string,
  metric: MetricName,
  dimensions: readonly string[],
): cloudwatch.MathExpression {
  if (!hasSeries(metric, dimensions)) {
    throw new Error(`${metric} has no series by ${dimensions.join(', ')} in METRIC_DIMENSION_SETS`);
  }
  // A SEARCH schema takes a namespace of letters and digits as it is, any other in double quotes
  // (which a valid namespace never contains).
  const quoted = /^[A-Za-z0-9]+$/.test(namespace) ? namespace : `"${namespace}"`;
  const schema = [quoted, 'service', ...dimensions].join(',');
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${metric}" service="${SERVICE_NAME}"', 'Sum', 300)`,
    usingMetrics: {},
    period: FIVE_MINUTES,
    // Each line is named by its dimension values (a CloudWatch dynamic label).
    label: dimensions.map((name) => `\${PROP('Dim.${name}')}`).join(' '),
  });
}

/**
 * The pipeline's dashboard. Its graphs of Gridwire's own metrics read the series of
 * `monitoring.ts` (`pipelineMetric`, `pipelineBreakdown`), the ones the alarms watch.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type FunctionKey, QUEUES, type QueueKey } from '../shared/config/resources';
import type { MetricName } from '../shared/observability/metrics';
import { METRIC } from '../shared/observability/metrics';
import { pipelineBreakdown as breakdownIn, FIVE_MINUTES, pipelineMetric as metricIn } from './metric-series';
import type { MonitoringTargets } from './monitoring';
import type { PipelineFunction } from './pipeline-function';

/** The pipeline's dashboard: one row per stage of the pipeline, top to bottom. */
export function createDashboard(scope: Construct, targets: MonitoringTargets): cloudwatch.Dashboard {
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    defaultInterval: Duration.hours(3),
  });
  // Gridwire's own metrics, in the pipeline's namespace.
  const pipelineMetric = (metric: MetricName, statistic: Parameters<typeof metricIn>[2], label?: string) =>
    metricIn(targets.metricsNamespace, metric, statistic, label);
  const pipelineBreakdown = (metric: MetricName, dimensions: readonly string[]) =>
    breakdownIn(targets.metricsNamespace, metric, dimensions);
  const header = (markdown: string) => new cloudwatch.TextWidget({ markdown, width: 24, height: 1 });
  const graph = (title: string, left: cloudwatch.IMetric[], width = 8) =>
    new cloudwatch.GraphWidget({ title, left, width, height: 6 });
  const queueKeys = Object.keys(QUEUES) as QueueKey[];
  const everyQueue = (metric: (queue: sqs.IQueue) => cloudwatch.Metric) =>
    queueKeys.flatMap((key) => [
      metric(targets.queues[key]).with({ label: key }),
      metric(targets.redriveQueues[key]).with({ label: `${key} (redrive)` }),
    ]);
  const functionKeys = Object.keys(targets.functions) as FunctionKey[];
  const everyFunction = (metric: (fn: PipelineFunction) => cloudwatch.Metric) =>
    functionKeys.map((key) => metric(targets.functions[key]).with({ label: key }));

  const rows: [string, cloudwatch.IWidget[]][] = [
    [
      '## Publishing',
      [
        graph('Published events, failed publish requests', [
          pipelineMetric(METRIC.PublishSuccessCount, 'Sum', 'Published events'),
          pipelineMetric(METRIC.PublishFailCount, 'Sum', 'Failed requests'),
        ]),
        graph('Failed publish requests by error', [
          pipelineBreakdown(METRIC.PublishFailCount, ['ErrorType', 'Error']),
        ]),
        graph('Publish latency (ms)', [
          pipelineMetric(METRIC.PublishSuccessLatencyInMs, 'Average', 'Average'),
          pipelineMetric(METRIC.PublishSuccessLatencyInMs, 'p99', 'p99'),
        ]),
      ],
    ],
    [
      '## Delivery',
      [
        graph('Delivered events, failed attempts', [
          pipelineMetric(METRIC.DeliverySuccessCount, 'Sum', 'Delivered'),
          pipelineMetric(METRIC.DeliveryAttemptFailCount, 'Sum', 'Failed attempts'),
        ]),
        graph('Failed attempts by error', [
          pipelineBreakdown(METRIC.DeliveryAttemptFailCount, ['Error', 'ErrorType']),
        ]),
        graph('Endpoint response time (ms)', [
          pipelineMetric(METRIC.DestinationProcessingDurationInMs, 'Average', 'Average'),
          pipelineMetric(METRIC.DestinationProcessingDurationInMs, 'p99', 'p99'),
        ]),
      ],
    ],
    [
      '## Events held back, dead-lettered or dropped',
      [
        graph('Held (endpoint on probation or stalled), probations begun', [
          pipelineMetric(METRIC.DeliveryHeldCount, 'Sum', 'Held events'),
          pipelineMetric(METRIC.ProbationEnteredCount, 'Sum', 'Probations begun'),
        ]),
        graph('Dead-lettered events by reason, replayed', [
          pipelineBreakdown(METRIC.DeadLetteredCount, ['DeadLetterReason']),
          pipelineMetric(METRIC.ReplayedEventCount, 'Sum', 'Replayed'),
        ]),
        graph('Dropped events by reason', [pipelineBreakdown(METRIC.DroppedEventCount, ['DropReason'])]),
      ],
    ],
    [
      '## Backlogs of sick endpoints',
      // Four graphs, a quarter of the row each.
      [
        graph(
          'Events held in backlogs',
          [pipelineMetric(METRIC.BacklogHeldEvents, 'Maximum', 'Held events')],
          6,
        ),
        graph(
          'Age of the oldest backlogged event (s)',
          [pipelineMetric(METRIC.BacklogOldestEventAgeSeconds, 'Maximum', 'Oldest event')],
          6,
        ),
        graph(
          'Late wakes armed again',
          [pipelineMetric(METRIC.BacklogWakeLateCount, 'Sum', 'Late wakes')],
          6,
        ),
        graph(
          'Oldest overdue wake (s)',
          [pipelineMetric(METRIC.OldestOverdueSeconds, 'Maximum', 'Oldest overdue wake')],
          6,
        ),
      ],
    ],
    [
      '## Queues',
      [
        graph(
          'Messages waiting',
          everyQueue((queue) =>
            queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
          ),
          12,
        ),
        graph(
          'Age of the oldest message (s)',
          everyQueue((queue) =>
            queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
          ),
          12,
        ),
      ],
    ],
    [
      '## Functions and API',
      [
        graph(
          'Function errors',
          everyFunction((fn) => fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' })),
        ),
        graph(
          'Function throttles',
          everyFunction((fn) => fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' })),
        ),
        graph('API requests and errors', [
          targets.api.metricCount({ period: FIVE_MINUTES, label: 'Requests' }),
          targets.api.metricClientError({ period: FIVE_MINUTES, label: '4xx' }),
          targets.api.metricServerError({ period: FIVE_MINUTES, label: '5xx' }),
        ]),
      ],
    ],
  ];
  for (const [title, widgets] of rows) {
    dashboard.addWidgets(header(title));
    dashboard.addWidgets(...widgets);
  }
  return dashboard;
}

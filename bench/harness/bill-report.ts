/**
 * The "AWS bill" section of docs/BENCHMARKS.md: every line item of the `bill` scenario's cases,
 * the fixed monthly costs, and what each line item is and where it comes from.
 */
import { type BreakEvenRow, breakEvenTable } from '../break-even';
import { PRICES } from '../prices';
import { round } from './figures';
import type { ScenarioResult } from './types';

/** Each line item of the bill: its label and where its quantity and price come from. */
const LINE_ITEMS: ReadonlyArray<[key: string, label: string, source: string]> = [
  ['httpApi', 'HTTP API requests', 'publish requests counted in the run, $1.00 per million'],
  ['lambdaRequests', 'Lambda requests', 'invocations counted in the run, $0.20 per million (arm)'],
  [
    'lambdaDuration',
    'Lambda duration',
    "each invocation's measured duration, rounded up to 1 ms, at the function's memory; the delivery function waits on the webhook",
  ],
  [
    'lambdaCpuShare',
    'Lambda duration: CPU share',
    "the CPU time the publish and delivery functions used in the run (each measured in a process of its own, bundled as the construct bundles it), stretched to Lambda's CPU share at their memory (1,769 MB is one vCPU; this machine's core is taken as one): the time beyond the measured duration, billed as duration",
  ],
  [
    'lambdaInit',
    'Lambda INIT (cold starts)',
    'a measured cold start (bundled as the construct bundles it, loaded by a fresh node process, handler built) times an assumed number of cold starts per million events, billed as duration',
  ],
  [
    'sqs',
    'SQS',
    "requests counted by an SDK middleware, in 64 KiB chunks, $0.40 per million; the publish function's queue-depth reads (its backlog gate) counted per warm instance, at most one per 2 s each and only when a publish comes",
  ],
  ['dynamodb', 'DynamoDB', 'read and write units counted from the requests, on-demand prices'],
  ['s3', 'S3', 'puts and gets counted, $0.005 per 1,000 puts, $0.0004 per 1,000 gets'],
  [
    'dataTransferOut',
    'Data transfer out',
    'webhook request bytes as the sink received them (request line, headers, body) and the HTTP API answers to publishers, each with a stated TCP/TLS overhead per request, $0.09/GB',
  ],
  [
    'logsApplication',
    'Logs: application',
    "the JSON lines the handlers' loggers wrote in the run at the function's application log level, plus 26 B per event, $0.50/GB",
  ],
  [
    'logsPlatform',
    'Logs: Lambda platform',
    "Lambda's JSON platform records per invocation (start, runtimeDone, report) and per cold start, at the function's system log level (none at WARN), $0.50/GB",
  ],
  [
    'logsAccess',
    'Logs: API access',
    "one line per API request in the stage's access log format, read from the template, $0.50/GB",
  ],
  [
    'logsEmf',
    'Logs: EMF metrics',
    "the EMF records the metric flushes write (rebuilt from the run's metric points, written by Powertools Metrics), billed as log ingestion, $0.50/GB",
  ],
  [
    'logStorage',
    'Logs: storage',
    "every byte ingested above, kept for the log groups' retention, $0.03 per GB-month (ingested size: an upper bound, storage is compressed)",
  ],
  [
    'xray',
    'X-Ray traces',
    "one trace per sampled invocation (default rule: 1 a second, then 5%), at the run's invocation rate, $5.00 per million recorded (retrieval, $0.50 per million, is not counted)",
  ],
  [
    'secretsManagerReads',
    'Secrets Manager reads',
    "secrets read per cold start (kept for the container's life), $0.05 per 10,000 calls",
  ],
];

interface BillCaseDetails {
  case: { key: string };
  perMillion: Record<string, number>;
  /** Absent in results written before the publish function's URL was priced. */
  perMillionViaFunctionUrl?: Record<string, number>;
  /** Absent in results written before metrics kept across invocations were priced. */
  perMillionViaFunctionUrlKeptMetrics?: Record<string, number>;
  comparisonPerMillion: { eventGrid: number; eventBridge: number };
  /** Absent in results written before static egress addresses were priced. */
  perMillionStaticEgress?: { natBytes: number; natDataProcessing: number };
}

/** What the bill scenario's details say static egress adds (absent in results written before). */
interface StaticEgressDetails {
  natGateways: number;
  hoursPerMonth: number;
  monthly: { natGatewayHours: number; publicIpv4Hours: number; total: number };
  monthlyOneNatGateway: { total: number };
  monthlyWithInterfaceEndpoints: { interfaceEndpointHours: number; total: number };
  interfaceEndpointServices: number;
  webhookAnswerBytes: number;
  serverHandshakeBytesPerRequest: number;
  interfaceEndpointBreakEven: {
    monthly: number;
    savedPerGb: number;
    gbPerMonth: number;
    sqsCallBytes: number;
    sqsCallsPerMonth: number;
    sqsCallsPerSecond: number;
  };
  prices: {
    natGateway: { perHour: number; perGbProcessed: number };
    publicIpv4: { perAddressHour: number };
    privateLink: { perEndpointZoneHour: number; perGbProcessed: number };
  };
}

interface PerTopicAndSubscription {
  perTopic: number;
  perSubscription: number;
}

interface FixedDetails {
  stack: Record<string, number>;
  perTopic: number;
  perSubscription: number;
  inputs: {
    alarms: number;
    alarmMetrics: number;
    dashboards: number;
    secrets: number;
    /** Absent in results written before the console's session key. */
    sessionKeyUse?: { instanceHoursPerMonth: number; cacheSeconds: number };
    customerManagedKeys: number;
    customMetrics: {
      happyPath: Record<string, number>;
      atMost: Record<string, number>;
      /** Absent in results written before: per subscription then. */
      subscriptionMetrics?: boolean;
      withSubscriptionMetrics?: { happyPath: PerTopicAndSubscription; atMost: PerTopicAndSubscription };
    };
  };
}

const dollars = (value: number | undefined) =>
  value === undefined
    ? ''
    : value >= 1
      ? value.toFixed(2)
      : value >= 0.0001
        ? value.toFixed(4)
        : value.toExponential(1);

/** The session key's reads, when the run priced them. */
function sessionKeyReadsRow(fixed: FixedDetails): string {
  const use = fixed.inputs.sessionKeyUse;
  const cost = fixed.stack.sessionKeyReads;
  if (use === undefined || cost === undefined) return '';
  const reads = (use.instanceHoursPerMonth * 3600) / use.cacheSeconds;
  return `
| session key reads | ${cost.toFixed(2)} | read only for the console and portal, once per ${use.cacheSeconds} s per management instance serving them; assumed: one instance serving an open console ${use.instanceHoursPerMonth} hours a month, ${reads.toLocaleString('en-US')} \`GetSecretValue\` calls at $0.05 per 10,000 (none while no one uses them) |`;
}

/** Rows for `subscriptionMetrics: true`, when the run priced the stack without it. */
function withSubscriptionMetrics(fixed: FixedDetails): string {
  const metrics = fixed.inputs.customMetrics;
  const on = metrics.withSubscriptionMetrics;
  if (metrics.subscriptionMetrics !== false || on === undefined) return '';
  const perMetric = PRICES.cloudWatch.perMetricMonth;
  return `
| per topic, with \`subscriptionMetrics: true\` | ${(on.happyPath.perTopic * perMetric).toFixed(2)} | ${on.happyPath.perTopic} metrics on the happy path (at most ${on.atMost.perTopic}) |
| per subscription, with \`subscriptionMetrics: true\` | ${(on.happyPath.perSubscription * perMetric).toFixed(2)} | ${on.happyPath.perSubscription} metrics on the happy path (at most ${on.atMost.perSubscription}) |`;
}

/** What the bill scenario's details say a de-duplication window adds (absent in results written before). */
interface DeduplicationDetails {
  windowMinutes: number;
  model: { writeUnitsPerEvent: number; itemBytes: number; keptHours: number };
  perMillion: { writes: number; storage: number; total: number; storedBytesPerItem: number };
  perTopicMonthly: number;
}

/** A paragraph on what a topic's de-duplication window adds, when the run priced it. */
function deduplicationPart(details: DeduplicationDetails | undefined): string {
  if (details === undefined) return '';
  const { windowMinutes, model, perMillion, perTopicMonthly } = details;
  return `

A topic's de-duplication window (\`deduplicationWindowInMinutes\`, off by default, so in none of
the cases above) adds, with ${windowMinutes} minutes, **$${dollars(perMillion.total)} per million
published events**: a conditional put for each distinct id of a publish request, one write unit
whether the id is new or a repeat of an earlier request's ($${dollars(perMillion.writes)} at one
per event), and each accepted id stored, ${model.itemBytes} B and DynamoDB's 100 B of overhead,
for the window and until time to live deletes it (${round(model.keptHours - windowMinutes / 60, 1)} h more
assumed), with point-in-time recovery ($${dollars(perMillion.storage)}); and
$${perTopicMonthly.toFixed(2)} a month per topic with a window (its \`PublishDuplicateCount\`
metric). The \`deduplication\` scenario measures the writes.`;
}

/** The static egress table and the interface endpoints' break-even, when the run priced them. */
function staticEgressPart(details: StaticEgressDetails | undefined, fixed: FixedDetails | undefined): string {
  if (details === undefined) return '';
  const { natGateways, hoursPerMonth, monthly, prices } = details;
  const endpoints = details.monthlyWithInterfaceEndpoints.interfaceEndpointHours;
  const even = details.interfaceEndpointBreakEven;
  const stack = fixed?.stack.total;
  return `

Static egress addresses (\`egress: { staticIps: true }\`, off by default, so in none of the cases
above: the delivery function in private subnets behind NAT gateways with Elastic IPs):

| static egress | USD/month | from |
|---|---:|---|
| NAT gateway hours | ${monthly.natGatewayHours.toFixed(2)} | ${natGateways} NAT gateways (one per zone) × ${hoursPerMonth} h × $${prices.natGateway.perHour} |
| public IPv4 addresses | ${monthly.publicIpv4Hours.toFixed(2)} | ${natGateways} Elastic IPs × ${hoursPerMonth} h × $${prices.publicIpv4.perAddressHour} |
| **added, ${natGateways} NAT gateways (the default)** | **${monthly.total.toFixed(2)}** | |
| added, \`natGateways: 1\` (one zone) | ${details.monthlyOneNatGateway.total.toFixed(2)} | |
| interface endpoints (\`interfaceEndpoints: true\`) | +${endpoints.toFixed(2)} | ${details.interfaceEndpointServices} endpoints (SQS, Secrets Manager) × ${natGateways} zones × ${hoursPerMonth} h × $${prices.privateLink.perEndpointZoneHour}, and $${prices.privateLink.perGbProcessed}/GB |${
    stack === undefined
      ? ''
      : `
| stack without / with static egress | ${stack.toFixed(2)} / ${(stack + monthly.total).toFixed(2)} | |`
  }

Per million events, the NAT gateways' data processing ($${prices.natGateway.perGbProcessed}/GB, both ways, on top of
data transfer out) is the row "static egress: NAT data processing" above: each webhook request as the
sink received it and a ${details.webhookAnswerBytes} B answer, each with the TCP/TLS overhead the data transfer line
assumes, and ${details.serverHandshakeBytesPerRequest} B per request of the server's TLS handshake (4,000 B over 100 requests a
connection). S3 and DynamoDB go through gateway endpoints (free, no NAT processing); the delivery
function's SQS sends (none in these cases) and secret reads cross the NAT. The interface endpoints
pay for themselves only past ${Math.round(even.gbPerMonth)} GB a month of such calls ($${even.monthly.toFixed(2)} a month over the
$${even.savedPerGb.toFixed(3)} each GB saves): about ${Math.round(even.sqsCallsPerMonth / 1_000_000)} million SQS sends of a 1 KB job (${even.sqsCallBytes.toLocaleString('en-US')} B each
with SigV4 headers and the answer), ${Math.round(even.sqsCallsPerSecond)} a second all month; so they are off by default.`;
}

/** The section, or a note when the run did not include the `bill` scenario. */
export function billSection(scenarios: readonly ScenarioResult[]): string {
  const bill = scenarios.find((scenario) => scenario.name === 'bill');
  if (bill === undefined) return 'Not run this time: `npm run bench -- --only bill`.';
  const cases = (bill.details.cases ?? []) as BillCaseDetails[];
  const fixed = bill.details.fixedMonthly as FixedDetails | undefined;
  const header = `| line item | ${cases.map((c) => c.case.key).join(' | ')} |`;
  const rule = `|---|${cases.map(() => '---:').join('|')}|`;
  const row = (label: string, values: Array<number | undefined>) =>
    `| ${label} | ${values.map(dollars).join(' | ')} |`;
  const rows = [
    ...LINE_ITEMS.map(([key, label]) =>
      row(
        label,
        cases.map((c) => c.perMillion[key]),
      ),
    ),
    row(
      '**all-in**',
      cases.map((c) => c.perMillion.total),
    ),
    row(
      '**all-in excluding data transfer out**',
      cases.map((c) => c.perMillion.totalExcludingDataTransferOut),
    ),
    row(
      'all-in with the function URL ingress (`publishIngress: functionUrl`)',
      cases.map((c) => c.perMillionViaFunctionUrl?.total),
    ),
    row(
      '**all-in with the function URL ingress, excluding data transfer out**',
      cases.map((c) => c.perMillionViaFunctionUrl?.totalExcludingDataTransferOut),
    ),
    row(
      'all-in with the function URL ingress and metrics written every 60 s (`metricsFlushSeconds: 60`)',
      cases.map((c) => c.perMillionViaFunctionUrlKeptMetrics?.total),
    ),
    row(
      '**all-in with the function URL ingress and metrics every 60 s, excluding data transfer out**',
      cases.map((c) => c.perMillionViaFunctionUrlKeptMetrics?.totalExcludingDataTransferOut),
    ),
    row(
      'static egress: NAT data processing (`egress.staticIps`)',
      cases.map((c) => c.perMillionStaticEgress?.natDataProcessing),
    ),
    row(
      '**all-in with static egress addresses**',
      cases.map((c) =>
        c.perMillionStaticEgress === undefined || c.perMillion.total === undefined
          ? undefined
          : c.perMillion.total + c.perMillionStaticEgress.natDataProcessing,
      ),
    ),
    row(
      'Event Grid (basic), same work',
      cases.map((c) => c.comparisonPerMillion.eventGrid),
    ),
    row(
      'EventBridge + API destinations, same work',
      cases.map((c) => c.comparisonPerMillion.eventBridge),
    ),
  ];
  const fixedTable =
    fixed === undefined
      ? ''
      : `
| fixed monthly | USD/month | from |
|---|---:|---|
| alarms | ${fixed.stack.alarms?.toFixed(2)} | ${fixed.inputs.alarms} alarms reading ${fixed.inputs.alarmMetrics} metrics (infra/monitoring.ts), $0.10 per alarm metric |
| dashboard | ${fixed.stack.dashboards?.toFixed(2)} | ${fixed.inputs.dashboards} dashboard, $3.00 each |
| secrets | ${fixed.stack.secrets?.toFixed(2)} | ${fixed.inputs.secrets} Secrets Manager secrets (the two sealing keys and the session key), $0.40 each |${sessionKeyReadsRow(fixed)}
| KMS keys | ${fixed.stack.kmsKeys?.toFixed(2)} | ${fixed.inputs.customerManagedKeys} customer-managed key (the alarm topic's; queues, buckets and table use AWS-owned or service keys), $1.00 each |
| SQS idle polling | ${fixed.stack.sqsIdlePolling?.toFixed(2)} | Lambda long-polls each of the stack's queues with 5 pollers while idle (a 20 s receive each), $0.40 per million receives; the run's empty receives are left out of the per-event lines |
| backlog sweep | ${fixed.stack.backlogSweep?.toFixed(2)} | the delivery function invoked once a minute to read the backlogs' timer index: an invocation, its assumed duration and its index reads |
| stack-wide custom metrics | ${fixed.stack.metrics?.toFixed(2)} | ${fixed.inputs.customMetrics.atMost.stack} metrics without a topic or subscription dimension, $0.30 each (series by error or reason add to this as they occur) |
| **stack** | **${fixed.stack.total?.toFixed(2)}** | |
| per topic | ${fixed.perTopic.toFixed(2)} | ${fixed.inputs.customMetrics.happyPath.perTopic} metrics a topic emits on the happy path (at most ${fixed.inputs.customMetrics.atMost.perTopic}), $0.30 each${fixed.inputs.customMetrics.subscriptionMetrics === false ? ", its subscriptions' metrics summed per topic (`subscriptionMetrics` off)" : ''} |
| per subscription | ${fixed.perSubscription.toFixed(2)} | ${fixed.inputs.customMetrics.happyPath.perSubscription} metrics a subscription emits on the happy path (at most ${fixed.inputs.customMetrics.atMost.perSubscription}), $0.30 each |${withSubscriptionMetrics(fixed)}`;
  const breakEvenRows = (bill.details.breakEven ?? []) as BreakEvenRow[];
  const breakEvenPart =
    breakEvenRows.length === 0
      ? ''
      : `

Break-even: dollars per million events at a steady monthly volume, excluding data transfer out,
with a stack of one topic and one subscription (its fixed monthly cost spread over the month's
events; the per-event part as measured at the rate nearest the volume's: 5, 50 or 500 events/s
for 1-event publishes), against the managed services' list prices for the same work (no free
tier on any side):

${breakEvenTable(breakEvenRows)}`;
  const explanations = LINE_ITEMS.map(([, label, source]) => `- **${label}**: ${source}.`).join('\n');
  return `${bill.description}

Dollars per million delivered events:

${header}
${rule}
${rows.join('\n')}
${fixedTable}${staticEgressPart(bill.details.staticEgress as StaticEgressDetails | undefined, fixed)}${deduplicationPart(bill.details.deduplication as DeduplicationDetails | undefined)}${breakEvenPart}

What each line item is and where it comes from (prices: us-east-1 list prices taken ${PRICES.takenOn}
from ${Object.values(PRICES.sources).join(', ')}):

${explanations}
- **Event Grid** and **EventBridge**: the same events at list prices: Event Grid basic bills each
  published event (per 64 KB) and each delivery attempt, $0.60 per million operations; EventBridge
  bills each custom event published (per 64 KB), $1.00 per million, and each API destination
  invocation, $0.20 per million (one per event, no batching). Neither includes data transfer.
- **Fixed monthly** costs do not scale with events: alarms, dashboard, secrets and keys are read
  from the synthesized CDK template; custom metrics are counted from the dimension sets each metric
  is emitted in (\`METRIC_DIMENSION_SETS\`) and the series the run emitted; the session key's reads
  depend on how much the console and portal are used, and are priced for the use assumed above.`;
}

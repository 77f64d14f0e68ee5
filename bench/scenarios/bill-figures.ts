/**
 * What the bill scenario (`bill.ts`) reports: the headline costs per million events (with the
 * goals), every other case's, the fixed monthly costs, the cold starts; each case's line items in
 * the details, with the settings, assumptions and prices they were priced with.
 */

import { LAMBDA_RECEIVE_WAIT_SECONDS } from '../../local/poller';
import { FUNCTIONS, QUEUES } from '../../shared/config/resources';
import { DELIVERY_BACKLOG_READ_MS } from '../../shared/publish/admission';
import { BACKLOG_SWEEP_EVERY_MINUTES } from '../../shared/queue/backlog-sweep';
import { SESSION_KEY_CACHE_SECONDS } from '../../shared/storage/session-keys';
import { BACKLOG_WAKE_SHARDS } from '../../shared/storage/table';
import { type BreakEvenRow, breakEven } from '../break-even';
import { LAMBDA_MB_PER_VCPU, PUBLISH_ANSWER, WIRE_OVERHEAD_BYTES_PER_REQUEST } from '../cost';
import { ASSUMED_TTL_DELETION_HOURS, billDeduplication } from '../deduplication';
import { fixedMonthly, metricCounts } from '../fixed-monthly';
import { round } from '../harness/figures';
import type { Figure, ScenarioResult } from '../harness/types';
import { PRICES } from '../prices';
import {
  DEFAULT_STATIC_EGRESS_NAT_GATEWAYS,
  HOURS_PER_MONTH,
  INTERFACE_ENDPOINT_SERVICES,
  interfaceEndpointBreakEven,
  natBytesPerWebhookRequest,
  SERVER_HANDSHAKE_BYTES_PER_REQUEST,
  staticEgressMonthly,
  staticEgressPerMillion,
  WEBHOOK_ANSWER,
} from '../static-egress';
import {
  type CaseBill,
  type MeasuredCases,
  SINGLE_EVENT_BATCHED_KEY,
  SINGLE_EVENT_RATES,
  SINGLE_EVENT_WINDOWS,
  singleEventKey,
  TRAILING_SECONDS,
} from './bill-cases';
import {
  ASSUMED_CONSOLE_INSTANCE_HOURS,
  ASSUMED_SWEEP_MS,
  type BillSetUp,
  COLD_STARTS_PER_MILLION_EVENTS,
  INSTANCES_OVER_CONCURRENCY,
  KEPT_METRICS_SECONDS,
  LAMBDA_INITIAL_POLLERS,
} from './bill-setup';

const usd = (value: number) => round(value, 4);
const roundAll = (values: object, digits: number) =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [key, round(value as number, digits)]));

/** The session key's reads the bill assumes: one management instance serving an open console all month. */
const SESSION_KEY_USE = {
  instanceHoursPerMonth: ASSUMED_CONSOLE_INSTANCE_HOURS,
  cacheSeconds: SESSION_KEY_CACHE_SECONDS,
};

/** The custom metric series the runs emitted, and the fixed monthly costs of the stack, a topic and a subscription. */
function fixedCosts(setUp: BillSetUp, emitted: MeasuredCases['emitted']) {
  const { stackSettings } = setUp;
  const counts = metricCounts(emitted, setUp.subscriptionMetrics);
  const fixed = fixedMonthly({
    alarmMetrics: stackSettings.alarmMetrics,
    dashboards: stackSettings.dashboards,
    secrets: stackSettings.secrets,
    customerManagedKeys: stackSettings.customerManagedKeys,
    polledQueues: Object.keys(QUEUES).length,
    backlogSweep: {
      everyMinutes: BACKLOG_SWEEP_EVERY_MINUTES,
      billedMs: ASSUMED_SWEEP_MS,
      memoryMb: FUNCTIONS.delivery.memoryMb,
      // The timer index's shards, one query each (`DynamoBacklogStore.wakesBy`).
      readUnits: BACKLOG_WAKE_SHARDS * 0.5,
    },
    sessionKeyUse: SESSION_KEY_USE,
    metrics:
      counts.atMost.stack === 0 ? counts.happyPath : { ...counts.happyPath, stack: counts.atMost.stack },
  });
  return { counts, fixed };
}

/** The configurations a case is priced in, and how each is labelled. */
const CONFIGURATIONS = {
  httpApi: { label: '', bill: (c: CaseBill) => c.bill },
  functionUrl: { label: ', function URL ingress', bill: (c: CaseBill) => c.viaFunctionUrl },
  functionUrlKeptMetrics: {
    label: `, function URL ingress, metrics written every ${KEPT_METRICS_SECONDS} s`,
    bill: (c: CaseBill) => c.viaFunctionUrlKeptMetrics,
  },
};

/** A case's all-in cost in one configuration, with and without data transfer out (the goal on the latter). */
function headline(
  cases: readonly CaseBill[],
  key: string,
  goal: number | undefined,
  configuration: keyof typeof CONFIGURATIONS,
): Figure[] {
  const found = cases.find((c) => c.case.key === key);
  if (found === undefined) return [];
  const { label, bill: billOf } = CONFIGURATIONS[configuration];
  return [
    {
      metric: `all-in cost per million, ${key}${label}`,
      value: usd(billOf(found).breakdown.total),
      unit: 'USD',
    },
    withoutTransfer(found, configuration, goal),
  ];
}

/** A case's all-in cost excluding data transfer out in one configuration, with its goal if any. */
function withoutTransfer(
  found: CaseBill,
  configuration: keyof typeof CONFIGURATIONS,
  goal: number | undefined,
): Figure {
  const { label, bill: billOf } = CONFIGURATIONS[configuration];
  const cost = billOf(found).breakdown.totalExcludingDataTransferOut;
  return {
    metric: `all-in cost per million excluding data transfer out, ${found.case.key}${label}`,
    value: usd(cost),
    unit: 'USD',
    ...(goal === undefined ? {} : { goal: `<= ${goal.toFixed(2)}`, met: cost <= goal }),
  };
}

/** The goals of the 1-event cases (excluding data transfer out), by rate and configuration. */
const SINGLE_EVENT_GOALS: Partial<Record<number, Partial<Record<keyof typeof CONFIGURATIONS, number>>>> = {
  50: { httpApi: 2.0, functionUrl: 1.0 },
  500: { functionUrl: 0.85 },
};

/** Figures of the 1-event cases by rate: what an invocation took, latency, cost per configuration. */
function singleEventFigures(cases: readonly CaseBill[], defaultWindowSeconds: number): Figure[] {
  const figures: Figure[] = [];
  // The construct's default window first: the goals are on it.
  const windows = [
    defaultWindowSeconds,
    ...SINGLE_EVENT_WINDOWS.filter((seconds) => seconds !== defaultWindowSeconds),
  ];
  for (const windowSeconds of windows) {
    const isDefault = windowSeconds === defaultWindowSeconds;
    for (const rate of SINGLE_EVENT_RATES) {
      const found = cases.find((c) => c.case.key === singleEventKey(rate, windowSeconds));
      if (found === undefined) continue;
      const key = `${found.case.key}${isDefault ? ' (default)' : ''}`;
      const windowMs = found.windowSeconds * 1000;
      const latencyGoal = isDefault && rate === 50 ? windowMs + 100 : undefined;
      figures.push(
        {
          metric: `delivery-queue messages per delivery invocation, ${key}`,
          value: round(found.messagesPerDeliveryInvocation, 2),
          unit: 'messages',
        },
        {
          metric: `publish -> webhook p99, ${key}`,
          value: round(found.latencyMs.p99, 0),
          unit: 'ms',
          ...(latencyGoal === undefined
            ? {}
            : { goal: `<= ${latencyGoal}`, met: found.latencyMs.p99 <= latencyGoal }),
        },
      );
      for (const configuration of ['httpApi', 'functionUrl', 'functionUrlKeptMetrics'] as const) {
        const goal = isDefault ? SINGLE_EVENT_GOALS[rate]?.[configuration] : undefined;
        figures.push(withoutTransfer(found, configuration, goal));
      }
    }
  }
  return figures;
}

/**
 * 1-event publishes to a subscription that batches up to 10, against the same rate unbatched:
 * events per request (the goal: at least 5) and data transfer out per million events.
 */
function mergedBatchFigures(cases: readonly CaseBill[]): Figure[] {
  const batched = cases.find((c) => c.case.key === SINGLE_EVENT_BATCHED_KEY);
  if (batched === undefined) return [];
  const unbatched = cases.find((c) => c.case.key === singleEventKey(500, batched.windowSeconds));
  const transfer = (c: CaseBill) => c.bill.breakdown.dataTransferOut;
  return [
    {
      metric: `events per webhook request, ${SINGLE_EVENT_BATCHED_KEY}`,
      value: round(batched.eventsPerWebhookRequest, 2),
      unit: 'events',
      goal: '>= 5',
      met: batched.eventsPerWebhookRequest >= 5,
    },
    {
      metric: `data transfer out per million events, ${SINGLE_EVENT_BATCHED_KEY} (unbatched at the same rate)`,
      value: `${usd(transfer(batched))} (${unbatched === undefined ? 'not run' : usd(transfer(unbatched))})`,
      unit: 'USD',
      ...(unbatched === undefined
        ? {}
        : { goal: '< unbatched', met: transfer(batched) < transfer(unbatched) }),
    },
    withoutTransfer(batched, 'functionUrl', undefined),
  ];
}

/** The window the bill prices de-duplication with (the de-duplication scenario's). */
const DEDUPLICATION_WINDOW_MINUTES = 60;

/**
 * What turning a topic's de-duplication window on adds to the bill, from the model (the bill's
 * cases run without a window): per million events, and per topic by the month.
 */
function deduplicationFigures(): Figure[] {
  const { perMillion, perTopicMonthly, windowMinutes } = billDeduplication(DEDUPLICATION_WINDOW_MINUTES);
  return [
    {
      metric: `de-duplication window on (${windowMinutes} min): added cost per million events (a conditional put, one write unit, per distinct id of a publish request, new or a repeat; each accepted id stored ${windowMinutes} min + ${ASSUMED_TTL_DELETION_HOURS} h)`,
      value: `+${usd(perMillion.total)}`,
      unit: 'USD',
    },
    {
      metric:
        'de-duplication window on: added fixed monthly cost per topic with a window (its PublishDuplicateCount metric)',
      value: `+${round(perTopicMonthly, 2)}`,
      unit: 'USD/month',
    },
  ];
}

/**
 * What static egress addresses (`egress.staticIps`) add: by the month with the default two NAT
 * gateways and with one, and per million events of the main case (the NAT's data processing of its
 * webhook requests and answers).
 */
function staticEgressFigures(cases: readonly CaseBill[]): Figure[] {
  const main = cases.find((c) => c.case.key === '100 per request, 100 ms webhook');
  return [
    {
      metric: `static egress addresses (egress.staticIps, ${DEFAULT_STATIC_EGRESS_NAT_GATEWAYS} NAT gateways, each with an Elastic IP): added fixed monthly cost`,
      value: `+${round(staticEgressMonthly(DEFAULT_STATIC_EGRESS_NAT_GATEWAYS).total, 2)}`,
      unit: 'USD/month',
    },
    {
      metric: 'static egress addresses, natGateways: 1: added fixed monthly cost',
      value: `+${round(staticEgressMonthly(1).total, 2)}`,
      unit: 'USD/month',
    },
    ...(main === undefined
      ? []
      : [
          {
            metric: `static egress addresses: added cost per million events, ${main.case.key} (NAT data processing of webhook requests and answers)`,
            value: `+${usd(staticEgressPerMillion(main.usage).natDataProcessing)}`,
            unit: 'USD',
          },
        ]),
  ];
}

/** Static egress in the details: the monthly lines, the model's assumptions, the endpoints' break-even. */
export function staticEgressDetails() {
  return {
    natGateways: DEFAULT_STATIC_EGRESS_NAT_GATEWAYS,
    hoursPerMonth: HOURS_PER_MONTH,
    monthly: roundAll(staticEgressMonthly(DEFAULT_STATIC_EGRESS_NAT_GATEWAYS), 4),
    monthlyOneNatGateway: roundAll(staticEgressMonthly(1), 4),
    monthlyWithInterfaceEndpoints: roundAll(staticEgressMonthly(DEFAULT_STATIC_EGRESS_NAT_GATEWAYS, true), 4),
    interfaceEndpointServices: INTERFACE_ENDPOINT_SERVICES,
    webhookAnswerBytes: Buffer.byteLength(WEBHOOK_ANSWER),
    serverHandshakeBytesPerRequest: SERVER_HANDSHAKE_BYTES_PER_REQUEST,
    natBytesPer1KbRequest: natBytesPerWebhookRequest(1000),
    interfaceEndpointBreakEven: roundAll(interfaceEndpointBreakEven(), 4),
    prices: {
      natGateway: PRICES.natGateway,
      publicIpv4: PRICES.publicIpv4,
      privateLink: PRICES.privateLink,
    },
  };
}

function billFigures(
  setUp: BillSetUp,
  cases: readonly CaseBill[],
  fixed: ReturnType<typeof fixedMonthly>,
): Figure[] {
  const main = cases.find((c) => c.case.key === '100 per request, 100 ms webhook');
  const shown = new Set([
    '100 per request, 100 ms webhook',
    SINGLE_EVENT_BATCHED_KEY,
    ...SINGLE_EVENT_RATES.flatMap((rate) =>
      SINGLE_EVENT_WINDOWS.map((window) => singleEventKey(rate, window)),
    ),
  ]);
  return [
    ...headline(cases, '100 per request, 100 ms webhook', 0.06, 'httpApi'),
    // The closest configuration where the HTTP API's $0.01 per million events is one line too many.
    ...headline(cases, '100 per request, 100 ms webhook', 0.06, 'functionUrl'),
    // One event per publish request, by rate, with the construct's default batching window and
    // with none: the HTTP API alone costs $1.00 per million requests, so the tighter goals are
    // for the publish function's URL (`publishIngress: 'functionUrl'`).
    ...singleEventFigures(cases, setUp.stackSettings.deliveryBatchingWindowSeconds),
    ...mergedBatchFigures(cases),
    ...(main === undefined
      ? []
      : [
          {
            metric: 'Event Grid (basic) list price per million, same work',
            value: usd(main.comparison.eventGrid),
            unit: 'USD',
          },
          {
            metric: 'EventBridge (custom events + API destinations) list price per million, same work',
            value: usd(main.comparison.eventBridge),
            unit: 'USD',
          },
        ]),
    ...cases
      .filter((c) => !shown.has(c.case.key))
      .map((c) => ({
        metric: `all-in cost per million, ${c.case.key} (excluding data transfer out)`,
        value: `${usd(c.bill.breakdown.total)} (${usd(c.bill.breakdown.totalExcludingDataTransferOut)})`,
        unit: 'USD',
      })),
    {
      metric:
        'fixed monthly cost of a stack (alarms, dashboard, secrets, the session key read by an open console, keys, stack-wide metrics, idle queue polling, the backlog sweep)',
      value: round(fixed.stack.total, 2),
      unit: 'USD/month',
    },
    {
      metric: 'fixed monthly cost per topic (its custom metrics)',
      value: round(fixed.perTopic, 2),
      unit: 'USD/month',
    },
    {
      metric: 'fixed monthly cost per subscription (its custom metrics)',
      value: round(fixed.perSubscription, 2),
      unit: 'USD/month',
    },
    ...deduplicationFigures(),
    ...staticEgressFigures(cases),
    {
      metric: 'measured cold start (process start to first answer), publish / delivery',
      value: `${round(setUp.initMs('publish'), 0)} / ${round(setUp.initMs('delivery'), 0)}`,
      unit: 'ms',
    },
  ];
}

function billDescription({
  stackSettings,
  settings,
  applicationLevel,
  subscriptionMetrics,
}: BillSetUp): string {
  return `The all-in AWS bill per million delivered events, every line item (us-east-1 list prices taken ${PRICES.takenOn}), from short runs of the local stack with the construct's settings (read from its synthesized template: delivery concurrency ${stackSettings.deliveryConcurrency}, JSON logs, system log level ${settings.systemLogLevel}, application log level ${applicationLevel}, tracing ${settings.tracing ? 'active' : 'off'}, metrics per ${subscriptionMetrics ? 'subscription' : 'topic'}) against the sink answering after 10 ms, 100 ms or 1 s, the queues polled as Lambda's SQS event source polls them (${LAMBDA_INITIAL_POLLERS} pollers at first, more while receives come back full or find messages that waited for a free poller, each receive a long poll of ${LAMBDA_RECEIVE_WAIT_SECONDS} s as Lambda's, each poller invoking with what one receive returned or, with a batching window, with what its receives gathered until the window had passed or the batch was full; the construct's delivery window is ${stackSettings.deliveryBatchingWindowSeconds === 0 ? 'none' : `${stackSettings.deliveryBatchingWindowSeconds} s`}, with batches of up to ${stackSettings.deliveryBatchSize} messages, and 1-event publishes run both with no window and with a 1 s one; on a stack with a window the load goes on ${TRAILING_SECONDS} s past the measured events, so their latency is taken under steady traffic, not on a queue gone quiet), the delivery invocations sharing one delivery engine (a Lambda instance has its own; its slots for one subscription, a quarter of the delivery concurrency, hold every case's requests in flight), the publish and delivery functions bundled as the construct bundles them, each in a Node.js process of its own. Measured: AWS requests, Lambda invocations and durations, the functions' CPU time, webhook bytes, the handlers' log lines and metric points, cold starts. Assumed: an idle backlog sweep (once a minute) bills ${ASSUMED_SWEEP_MS} ms; the session key (read only for the console and portal, once per ${SESSION_KEY_CACHE_SECONDS} s per management instance using it) is read by one instance serving an open console for ${ASSUMED_CONSOLE_INSTANCE_HOURS} hours a month; this machine's core is a Lambda vCPU (Lambda gives ${LAMBDA_MB_PER_VCPU} MB one, less memory a share), ${COLD_STARTS_PER_MILLION_EVENTS} cold starts per function per million events, X-Ray's default sampling, ${WIRE_OVERHEAD_BYTES_PER_REQUEST} B of TCP/TLS per request, the publish function's queue-depth reads (at most one per ${DELIVERY_BACKLOG_READ_MS / 1000} s per warm instance, and only when a publish comes) counted over ${INSTANCES_OVER_CONCURRENCY} times the instances the publish rate and duration need, stored log bytes = ingested; with metrics kept across invocations (\`metricsFlushSeconds: ${KEPT_METRICS_SECONDS}\`), each function's invocations spread over ${INSTANCES_OVER_CONCURRENCY} times the instances their rate and mean duration need, each writing every ${KEPT_METRICS_SECONDS} s or when a metric holds 99 values.`;
}

/** A case in the details: its line items in each configuration, its quantities and what was measured. */
function caseDetails(c: CaseBill) {
  return {
    case: c.case,
    perMillion: roundAll(c.bill.breakdown, 6),
    perMillionViaFunctionUrl: roundAll(c.viaFunctionUrl.breakdown, 6),
    perMillionViaFunctionUrlKeptMetrics: roundAll(c.viaFunctionUrlKeptMetrics.breakdown, 6),
    // With static egress addresses (`egress.staticIps`): the NAT gateways' data processing.
    perMillionStaticEgress: roundAll(staticEgressPerMillion(c.usage), 6),
    keptMetrics: { ...c.kept, instances: roundAll(c.kept.instances, 2) },
    gateReads: roundAll(c.gateReads, 2),
    windowSeconds: c.windowSeconds,
    messagesPerDeliveryInvocation: round(c.messagesPerDeliveryInvocation, 2),
    eventsPerWebhookRequest: round(c.eventsPerWebhookRequest, 2),
    latencyMs: roundAll(c.latencyMs, 1),
    quantitiesPerMillion: roundAll(c.bill.quantities, 1),
    comparisonPerMillion: roundAll(c.comparison, 4),
    measured: {
      events: c.usage.events,
      httpRequests: c.usage.httpRequests,
      lambda: c.usage.lambda,
      sqsBilledRequests: c.usage.sqsBilledRequests,
      dynamoWriteUnits: c.usage.dynamoWriteUnits,
      dynamoReadUnits: c.usage.dynamoReadUnits,
      s3Puts: c.usage.s3Puts,
      s3Gets: c.usage.s3Gets,
      seconds: round(c.usage.seconds, 2),
      webhookRequests: c.usage.webhookRequests,
      webhookBytes: c.usage.webhookBytes,
      publishAnswers: c.usage.publishAnswers,
      applicationLogLines: c.usage.applicationLogLines,
      applicationLogBytes: c.usage.applicationLogBytes,
      emfRecords: c.usage.emfRecords,
      emfBytes: c.usage.emfBytes,
      cpuMs: roundAll(c.usage.cpuMs ?? {}, 1),
      awsRequests: c.requests,
      peakRssMiB: Object.fromEntries(
        Object.entries(c.processUsage).map(([fn, used]) => [fn, round(used.rssBytes / (1024 * 1024), 1)]),
      ),
    },
  };
}

/**
 * Cost per million against monthly volume, for Gridwire at 1 and at 100 events per publish (the
 * default props and the function URL), with a stack of one topic and one subscription.
 */
function breakEvenRows(
  cases: readonly CaseBill[],
  fixed: ReturnType<typeof fixedMonthly>,
  defaultWindowSeconds: number,
): BreakEvenRow[] {
  const fixedMonthlyCost = fixed.stack.total + fixed.perTopic + fixed.perSubscription;
  const hundred = cases.find((c) => c.case.key === '100 per request, 100 ms webhook');
  const singles = SINGLE_EVENT_RATES.flatMap((rate) => {
    const found = cases.find((c) => c.case.key === singleEventKey(rate, defaultWindowSeconds));
    return found === undefined ? [] : [found];
  });
  const reference = singles[0] ?? hundred;
  if (reference === undefined) return [];
  const row = (label: string, measured: readonly CaseBill[], configuration: keyof typeof CONFIGURATIONS) =>
    breakEven({
      label,
      perMillionByRate: measured.map((c) => ({
        eventsPerSecond: c.case.eventsPerSecond,
        perMillion: CONFIGURATIONS[configuration].bill(c).breakdown.totalExcludingDataTransferOut,
      })),
      fixedMonthly: fixedMonthlyCost,
      eventGrid: reference.comparison.eventGrid,
      eventBridge: reference.comparison.eventBridge,
    });
  return [
    ...(singles.length === 0
      ? []
      : [
          row('Gridwire, 1 event per publish, default props', singles, 'httpApi'),
          row('Gridwire, 1 event per publish, function URL', singles, 'functionUrl'),
        ]),
    ...(hundred === undefined
      ? []
      : [
          row('Gridwire, 100 events per publish, default props', [hundred], 'httpApi'),
          row('Gridwire, 100 events per publish, function URL', [hundred], 'functionUrl'),
        ]),
  ];
}

/** The de-duplication window's price in the details: the model's inputs and its parts. */
function deduplicationDetails() {
  const { windowMinutes, model, perMillion, perTopicMonthly } = billDeduplication(
    DEDUPLICATION_WINDOW_MINUTES,
  );
  return {
    windowMinutes,
    model,
    perMillion: roundAll(perMillion, 6),
    perTopicMonthly: round(perTopicMonthly, 2),
    prices: {
      perWriteUnit: PRICES.dynamodb.perWriteUnit,
      storagePerGbMonth: PRICES.dynamodb.storagePerGbMonth,
      pitrPerGbMonth: PRICES.dynamodb.pitrPerGbMonth,
    },
  };
}

/** The scenario's result from the set-up and the measured cases. */
export function billResult(setUp: BillSetUp, { cases, emitted }: MeasuredCases): ScenarioResult {
  const { stackSettings, settings } = setUp;
  const { counts, fixed } = fixedCosts(setUp, emitted);
  return {
    name: 'bill',
    description: billDescription(setUp),
    figures: billFigures(setUp, cases, fixed),
    details: {
      cases: cases.map(caseDetails),
      breakEven: breakEvenRows(cases, fixed, setUp.stackSettings.deliveryBatchingWindowSeconds),
      fixedMonthly: {
        ...fixed,
        inputs: {
          alarms: stackSettings.alarms,
          alarmMetrics: stackSettings.alarmMetrics,
          dashboards: stackSettings.dashboards,
          secrets: stackSettings.secrets,
          sessionKeyUse: SESSION_KEY_USE,
          customerManagedKeys: stackSettings.customerManagedKeys,
          customMetrics: counts,
        },
      },
      settings: {
        ...settings,
        publishAnswerBytes: Buffer.byteLength(PUBLISH_ANSWER),
        wireOverheadBytesPerRequest: WIRE_OVERHEAD_BYTES_PER_REQUEST,
      },
      deduplication: deduplicationDetails(),
      staticEgress: staticEgressDetails(),
      coldStarts: setUp.coldStarts,
      prices: { source: PRICES.source, takenOn: PRICES.takenOn, sources: PRICES.sources },
    },
  };
}

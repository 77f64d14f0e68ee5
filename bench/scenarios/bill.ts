/**
 * The honest AWS bill: every line item of running the stack, per million delivered events, for
 * webhooks that take 10 ms, 100 ms and 1 s to answer, published 100 or 1 per request, with and
 * without output batching; the same work at Event Grid's and EventBridge's list prices; and the
 * fixed monthly costs of the stack, a topic and a subscription.
 *
 * Measured in the run: AWS requests, Lambda invocations and durations (the delivery function
 * waits on the webhook), webhook bytes on arrival at the sink, the JSON lines the handlers'
 * loggers write, the metric points they flush, and each function's cold start (bundled as the
 * construct bundles it). Read from the synthesized CDK template: memory, log format and levels,
 * tracing, the delivery concurrency, the access log format, retention, alarms, dashboards,
 * secrets and keys. Assumed, and stated in the details: cold starts per million events, X-Ray's
 * default sampling rule, the TCP/TLS overhead per request and the stored share of log bytes.
 */
import { ENV, FUNCTIONS, type FunctionKey, QUEUES } from '../../shared/config/resources';
import { BACKLOG_SWEEP_EVERY_MINUTES } from '../../shared/queue/backlog-sweep';
import { BACKLOG_WAKE_SHARDS } from '../../shared/storage/table';
import { type ColdStart, measureColdStarts } from '../cold-start';
import {
  type BillSettings,
  type BillUsage,
  billPerMillionEvents,
  comparisonPerMillion,
  LAMBDA_MB_PER_VCPU,
  PUBLISH_ANSWER,
  type SystemLogLevel,
  WIRE_OVERHEAD_BYTES_PER_REQUEST,
} from '../cost';
import { emfRecordsOf, type KeptAcrossInvocations, metricsBetween } from '../emf-size';
import { fixedMonthly, metricCounts } from '../fixed-monthly';
import { FunctionProcess, type MeasuredFunction, type ProcessUsage } from '../function-process';
import { round } from '../harness/figures';
import { liveStack, topicWithSubscription } from '../harness/live-stack';
import { loadRunWithWebhookDelay, usageOf, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { Figure, Scenario } from '../harness/types';
import { captureFunctionOutput } from '../log-capture';
import { PRICES } from '../prices';
import { readStackSettings } from '../stack-settings';

/**
 * Cold starts of each function per million events (an assumption: at a steady few hundred events
 * a second a million events take under an hour, and Lambda recycles instances every few hours and
 * adds some as load varies; ten each is on the generous side).
 */
const COLD_STARTS_PER_MILLION_EVENTS = 10;
/** X-Ray's default sampling rule: the first request each second, then 5% of the rest. */
const DEFAULT_SAMPLING = { reservoirPerSecond: 1, rate: 0.05 };
/**
 * Secrets Manager reads per cold start: the publish function opens sealed topic keys (one
 * secret, kept for the container's life); delivery reads its secret only for subscriptions with
 * secret headers, which these runs do not have.
 */
const SECRET_READS_PER_COLD_START: Record<FunctionKey, number> = {
  publish: 1,
  management: 2,
  delivery: 0,
  deadLetter: 0,
};
/** Stored over ingested log bytes: 1, the upper bound (CloudWatch stores them compressed). */
const LOG_STORED_SHARE = 1;

/**
 * The configuration priced beside the default for small publishes: the publish function's URL
 * (`publishIngress: 'functionUrl'`) and metric points kept across invocations for this many
 * seconds (`metricsFlushSeconds`).
 */
const KEPT_METRICS_SECONDS = 60;

/** Billed time of one idle backlog sweep (four small index queries), assumed: no run measures it. */
const ASSUMED_SWEEP_MS = 30;
/**
 * Instances Lambda keeps taking a function's invocations, over the concurrency the rate needs
 * (invocations a second times their mean duration): an assumption, as Lambda spreads a steady
 * load over more warm instances than it needs at any one moment.
 */
const INSTANCES_OVER_CONCURRENCY = 4;

interface BillCase {
  key: string;
  perRequest: number;
  eventsPerSecond: number;
  seconds: number;
  webhookMs: number;
  batched: boolean;
}

/**
 * Sized so each case delivers in a few seconds: a delivery invocation has a subscription's
 * requests in flight a quarter of its concurrency at a time, so a 1 s webhook takes 100 events
 * about 13 s.
 */
const CASES: readonly BillCase[] = [
  {
    key: '100 per request, 100 ms webhook',
    perRequest: 100,
    eventsPerSecond: 500,
    seconds: 4,
    webhookMs: 100,
    batched: false,
  },
  {
    key: '1 per request, 100 ms webhook',
    perRequest: 1,
    // 80 publish requests a second: under what one delivery invocation at a time delivers to a
    // 100 ms webhook in batches of ten messages (100 a second), so nothing is refused for overload,
    // and batches are mostly full; at lower rates they are smaller and SQS receives, deletes and
    // invocations per event grow.
    eventsPerSecond: 80,
    seconds: 4,
    webhookMs: 100,
    batched: false,
  },
  {
    key: '100 per request, 10 ms webhook',
    perRequest: 100,
    eventsPerSecond: 500,
    seconds: 3,
    webhookMs: 10,
    batched: false,
  },
  {
    key: '1 per request, 10 ms webhook',
    perRequest: 1,
    eventsPerSecond: 200,
    seconds: 3,
    webhookMs: 10,
    batched: false,
  },
  {
    key: '100 per request, 1 s webhook',
    perRequest: 100,
    eventsPerSecond: 50,
    seconds: 2,
    webhookMs: 1000,
    batched: false,
  },
  {
    key: '1 per request, 1 s webhook',
    perRequest: 1,
    eventsPerSecond: 8,
    seconds: 3,
    webhookMs: 1000,
    batched: false,
  },
  {
    key: '100 per request, 100 ms webhook, batched',
    perRequest: 100,
    eventsPerSecond: 200,
    seconds: 3,
    webhookMs: 100,
    batched: true,
  },
  {
    key: '100 per request, 1 s webhook, batched',
    perRequest: 100,
    eventsPerSecond: 100,
    seconds: 2,
    webhookMs: 1000,
    batched: true,
  },
];

/** Lambda's system log level as the bill takes it: unset is INFO; WARN and above drop the platform records. */
const systemLevel = (level: string | undefined): SystemLogLevel =>
  level === undefined || level === 'INFO' ? 'INFO' : level === 'DEBUG' ? 'DEBUG' : 'WARN';

/**
 * Points kept across invocations for `KEPT_METRICS_SECONDS`, by instances taking the run's
 * invocations at the rate and mean duration measured (see `INSTANCES_OVER_CONCURRENCY`).
 */
function keptAcrossInvocations(usage: BillUsage): KeptAcrossInvocations {
  const instances = (fn: FunctionKey) => {
    const { invocations, gbSeconds } = usage.lambda[fn];
    if (invocations === 0 || usage.seconds <= 0) return 1;
    const meanSeconds = gbSeconds / invocations / (FUNCTIONS[fn].memoryMb / 1024);
    return Math.max(1, INSTANCES_OVER_CONCURRENCY * (invocations / usage.seconds) * meanSeconds);
  };
  return {
    everySeconds: KEPT_METRICS_SECONDS,
    seconds: usage.seconds,
    instances: { publish: instances('publish'), delivery: instances('delivery') },
  };
}

const usd = (value: number) => round(value, 4);
const roundAll = (values: object, digits: number) =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [key, round(value as number, digits)]));

export const bill: Scenario = {
  name: 'bill',
  description:
    'the all-in AWS bill per million events (every line item), 10 ms / 100 ms / 1 s webhooks, 100 or 1 per request, batching, fixed monthly costs',
  uses: ['sink', 'loadGenerator'],
  async run(ctx) {
    log('bill: reading the stack settings from the synthesized template');
    const stackSettings = readStackSettings();
    log('bill: cold starts of the publish and delivery functions, bundled as the construct bundles them');
    const coldStarts = await measureColdStarts(['publish', 'delivery'], ctx.quick ? 1 : 3);
    const initMs = (fn: FunctionKey) => (coldStarts[fn] as ColdStart | undefined)?.initMs ?? 0;
    const delivery = stackSettings.functions.delivery;
    const settings: BillSettings = {
      systemLogLevel: systemLevel(delivery.systemLogLevel),
      tracing: delivery.tracing,
      sampling: DEFAULT_SAMPLING,
      accessLogFormat: stackSettings.accessLogFormat,
      coldStartsPerMillionEvents: COLD_STARTS_PER_MILLION_EVENTS,
      initMs: { publish: initMs('publish'), management: 0, delivery: initMs('delivery'), deadLetter: 0 },
      secretReadsPerColdStart: SECRET_READS_PER_COLD_START,
      logRetentionMonths: Math.max(...stackSettings.logRetentionDays) / 30,
      logStoredShare: LOG_STORED_SHARE,
    };
    // The application log level Lambda gives the loggers: INFO when the function sets none.
    const applicationLevel = (delivery.applicationLogLevel ?? 'INFO') as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
    // Per subscription or per topic, as the construct's functions count them.
    const subscriptionMetrics = delivery.environment[ENV.subscriptionMetrics] === 'true';
    // The publish and delivery functions run in processes of their own, bundled as the construct
    // bundles them, so their CPU time is measured (and stretched to Lambda's CPU share).
    const processes: Partial<Record<MeasuredFunction, FunctionProcess>> = {};
    const live = await liveStack({
      timeScale: 1,
      logLevel: applicationLevel,
      subscriptionMetrics,
      wrapPublish: (inProcess) => (event, context) =>
        processes.publish === undefined ? inProcess(event, context) : processes.publish.invoke(event),
      wrapDelivery: (inProcess) => (event, context) =>
        processes.delivery === undefined ? inProcess(event, context) : processes.delivery.invoke(event),
      deliveryConcurrency: stackSettings.deliveryConcurrency,
      // The local stack runs one delivery engine for every invocation; one invocation at a time
      // has its request slots to itself, as one Lambda instance has, so durations are an instance's.
      maxConcurrency: 1,
    });
    const rig = await ctx.rig(live);
    const cases: Array<{
      case: BillCase;
      usage: BillUsage;
      bill: ReturnType<typeof billPerMillionEvents>;
      /** The same run priced with the publish function's URL as the front door (`publishIngress`). */
      viaFunctionUrl: ReturnType<typeof billPerMillionEvents>;
      /** ...and with metric points kept across invocations (`metricsFlushSeconds`). */
      viaFunctionUrlKeptMetrics: ReturnType<typeof billPerMillionEvents>;
      kept: KeptAcrossInvocations;
      /** AWS requests by service and operation (empty receives included). */
      requests: Record<string, number>;
      /** The function processes' memory peaks and CPU time in the run. */
      processUsage: Partial<Record<MeasuredFunction, ProcessUsage>>;
      comparison: ReturnType<typeof comparisonPerMillion>;
    }> = [];
    const emitted: Array<{ name: string; dimensions: Record<string, string> }> = [];
    const processUsage = async () => ({
      publish: await processes.publish?.usage(),
      delivery: await processes.delivery?.usage(),
    });
    try {
      for (const fn of ['publish', 'delivery'] as const) {
        processes[fn] = await FunctionProcess.start(fn, live.stack, {
          memoryMb: stackSettings.functions[fn].memoryMb,
          logLevel: applicationLevel,
          onMetrics: live.stack.metrics.publish,
          onRequests: (counts) => live.usage.aws.add(counts),
          // As deployed: the publish function's backlog gate on, its depth reads billed.
          config: stackSettings.functions[fn].deployedConfig,
        });
      }
      await warmUp(rig, { topic: 'bill-warm-up', eventsPerSecond: 500, eventsPerRequest: 20 });
      for (const [index, billCase] of CASES.entries()) {
        const topic = `bill-${index}`;
        log(
          `bill: ${billCase.key}: ${billCase.eventsPerSecond.toLocaleString('en-US')} events/s for ${billCase.seconds} s`,
        );
        const key = await topicWithSubscription(
          live,
          topic,
          rig.sink.url,
          'EventGridSchema',
          billCase.batched ? { maxEventsPerBatch: billCase.perRequest } : {},
        );
        const before = live.stack.metrics.snapshot();
        await processUsage();
        const capture = captureFunctionOutput();
        const run = await loadRunWithWebhookDelay(rig, billCase.webhookMs, {
          name: topic,
          eventsPerRequest: billCase.perRequest,
          eventsPerSecond: billCase.eventsPerSecond,
          seconds: billCase.seconds,
          topic,
          subscribe: async () => key,
        });
        const inProcesses = await processUsage();
        const written = capture.stop();
        const totals = metricsBetween(before, live.stack.metrics.snapshot());
        emitted.push(...totals);
        const emf = emfRecordsOf(totals);
        const usage: BillUsage = {
          ...usageOf(run, run.delivered),
          seconds: run.usageSeconds,
          webhookRequests: run.webhookAttempts,
          webhookBytes: run.webhookBytes,
          publishAnswers: run.published.requests,
          applicationLogLines: written.applicationLines,
          applicationLogBytes: written.applicationBytes,
          emfRecords: emf.records,
          emfBytes: emf.bytes,
          sqsEmptyReceives: run.usage.aws.sqsEmptyReceives,
          cpuMs: { publish: inProcesses.publish?.cpuMs ?? 0, delivery: inProcesses.delivery?.cpuMs ?? 0 },
        };
        const kept = keptAcrossInvocations(usage);
        const keptEmf = emfRecordsOf(totals, kept);
        const keptUsage: BillUsage = { ...usage, emfRecords: keptEmf.records, emfBytes: keptEmf.bytes };
        const eventBytes = run.webhookBytes / Math.max(1, run.delivered);
        cases.push({
          case: billCase,
          usage,
          bill: billPerMillionEvents(usage, settings),
          viaFunctionUrl: billPerMillionEvents(usage, { ...settings, ingress: 'functionUrl' }),
          viaFunctionUrlKeptMetrics: billPerMillionEvents(keptUsage, { ...settings, ingress: 'functionUrl' }),
          kept,
          requests: run.usage.aws.requests,
          processUsage: {
            ...(inProcesses.publish === undefined ? {} : { publish: inProcesses.publish }),
            ...(inProcesses.delivery === undefined ? {} : { delivery: inProcesses.delivery }),
          },
          comparison: comparisonPerMillion(
            eventBytes,
            run.webhookAttempts / Math.max(1, run.webhookRequests),
          ),
        });
      }
    } finally {
      for (const running of Object.values(processes)) await running.stop();
      await live.close();
    }

    const counts = metricCounts(emitted, subscriptionMetrics);
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
      metrics:
        counts.atMost.stack === 0 ? counts.happyPath : { ...counts.happyPath, stack: counts.atMost.stack },
    });
    const byKey = (key: string) => cases.find((c) => c.case.key === key);
    const configurations = {
      httpApi: { label: '', bill: (c: (typeof cases)[number]) => c.bill },
      functionUrl: { label: ', function URL ingress', bill: (c: (typeof cases)[number]) => c.viaFunctionUrl },
      functionUrlKeptMetrics: {
        label: `, function URL ingress, metrics written every ${KEPT_METRICS_SECONDS} s`,
        bill: (c: (typeof cases)[number]) => c.viaFunctionUrlKeptMetrics,
      },
    };
    const headline = (
      key: string,
      goal: number | undefined,
      configuration: keyof typeof configurations,
    ): Figure[] => {
      const found = byKey(key);
      if (found === undefined) return [];
      const { label, bill: billOf } = configurations[configuration];
      const breakdown = billOf(found).breakdown;
      return [
        { metric: `all-in cost per million, ${key}${label}`, value: usd(breakdown.total), unit: 'USD' },
        {
          metric: `all-in cost per million excluding data transfer out, ${key}${label}`,
          value: usd(breakdown.totalExcludingDataTransferOut),
          unit: 'USD',
          ...(goal === undefined
            ? {}
            : { goal: `<= ${goal.toFixed(2)}`, met: breakdown.totalExcludingDataTransferOut <= goal }),
        },
      ];
    };
    const main = byKey('100 per request, 100 ms webhook');
    const figures: Figure[] = [
      ...headline('100 per request, 100 ms webhook', 0.06, 'httpApi'),
      // The closest configuration where the HTTP API's $0.01 per million events is one line too many.
      ...headline('100 per request, 100 ms webhook', 0.06, 'functionUrl'),
      ...headline('1 per request, 100 ms webhook', undefined, 'httpApi'),
      // One event per publish request: the HTTP API alone costs $1.00 per million requests, and a
      // metric record per request about $0.20, so the goal is for the configuration made for it
      // (`publishIngress: 'functionUrl'`, `metricsFlushSeconds`).
      ...headline('1 per request, 100 ms webhook', undefined, 'functionUrl'),
      ...headline('1 per request, 100 ms webhook', 1.0, 'functionUrlKeptMetrics'),
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
        .filter((c) => !c.case.key.endsWith('100 ms webhook') || c.case.batched)
        .map((c) => ({
          metric: `all-in cost per million, ${c.case.key} (excluding data transfer out)`,
          value: `${usd(c.bill.breakdown.total)} (${usd(c.bill.breakdown.totalExcludingDataTransferOut)})`,
          unit: 'USD',
        })),
      {
        metric:
          'fixed monthly cost of a stack (alarms, dashboard, secrets, keys, stack-wide metrics, idle queue polling, the backlog sweep)',
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
      {
        metric: 'measured cold start (process start to first answer), publish / delivery',
        value: `${round(initMs('publish'), 0)} / ${round(initMs('delivery'), 0)}`,
        unit: 'ms',
      },
    ];
    return {
      results: [
        {
          name: 'bill',
          description: `The all-in AWS bill per million delivered events, every line item (us-east-1 list prices taken ${PRICES.takenOn}), from short runs of the local stack with the construct's settings (read from its synthesized template: delivery concurrency ${stackSettings.deliveryConcurrency}, JSON logs, system log level ${settings.systemLogLevel}, application log level ${applicationLevel}, tracing ${settings.tracing ? 'active' : 'off'}, metrics per ${subscriptionMetrics ? 'subscription' : 'topic'}) against the sink answering after 10 ms, 100 ms or 1 s, one delivery invocation at a time (the local stack shares one delivery engine between invocations; alone, an invocation has its request slots to itself, as a Lambda instance has), the publish and delivery functions bundled as the construct bundles them, each in a Node.js process of its own. Measured: AWS requests, Lambda invocations and durations, the functions' CPU time, webhook bytes, the handlers' log lines and metric points, cold starts. Assumed: an idle backlog sweep (once a minute) bills ${ASSUMED_SWEEP_MS} ms; this machine's core is a Lambda vCPU (Lambda gives ${LAMBDA_MB_PER_VCPU} MB one, less memory a share), ${COLD_STARTS_PER_MILLION_EVENTS} cold starts per function per million events, X-Ray's default sampling, ${WIRE_OVERHEAD_BYTES_PER_REQUEST} B of TCP/TLS per request, stored log bytes = ingested; with metrics kept across invocations (\`metricsFlushSeconds: ${KEPT_METRICS_SECONDS}\`), each function's invocations spread over ${INSTANCES_OVER_CONCURRENCY} times the instances their rate and mean duration need, each writing every ${KEPT_METRICS_SECONDS} s or when a metric holds 99 values.`,
          figures,
          details: {
            cases: cases.map((c) => ({
              case: c.case,
              perMillion: roundAll(c.bill.breakdown, 6),
              perMillionViaFunctionUrl: roundAll(c.viaFunctionUrl.breakdown, 6),
              perMillionViaFunctionUrlKeptMetrics: roundAll(c.viaFunctionUrlKeptMetrics.breakdown, 6),
              keptMetrics: { ...c.kept, instances: roundAll(c.kept.instances, 2) },
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
                  Object.entries(c.processUsage).map(([fn, used]) => [
                    fn,
                    round(used.rssBytes / (1024 * 1024), 1),
                  ]),
                ),
              },
            })),
            fixedMonthly: {
              ...fixed,
              inputs: {
                alarms: stackSettings.alarms,
                alarmMetrics: stackSettings.alarmMetrics,
                dashboards: stackSettings.dashboards,
                secrets: stackSettings.secrets,
                customerManagedKeys: stackSettings.customerManagedKeys,
                customMetrics: counts,
              },
            },
            settings: {
              ...settings,
              publishAnswerBytes: Buffer.byteLength(PUBLISH_ANSWER),
              wireOverheadBytesPerRequest: WIRE_OVERHEAD_BYTES_PER_REQUEST,
            },
            coldStarts,
            prices: { source: PRICES.source, takenOn: PRICES.takenOn, sources: PRICES.sources },
          },
        },
      ],
    };
  },
};

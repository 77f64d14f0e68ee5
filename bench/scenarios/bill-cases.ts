/**
 * The bill scenario's runs (`bill.ts`): each case a short load run of the local stack against the
 * sink answering after the case's delay, the publish and delivery functions each in a process of
 * its own, everything the bill prices measured, and the case priced.
 */

import { LAMBDA_RECEIVE_WAIT_SECONDS } from '../../local/poller';
import { FUNCTIONS, type FunctionKey } from '../../shared/config/resources';
import { DELIVERY_BACKLOG_READ_MS } from '../../shared/publish/admission';
import { type BillUsage, billPerMillionEvents, comparisonPerMillion } from '../cost';
import { emfRecordsOf, type KeptAcrossInvocations, metricsBetween } from '../emf-size';
import { FunctionProcess, type MeasuredFunction, type ProcessUsage } from '../function-process';
import { type LiveStack, liveStack, type Rig, topicWithSubscription } from '../harness/live-stack';
import { loadRunWithWebhookDelay, usageOf, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { BenchContext } from '../harness/types';
import { percentile } from '../load';
import { captureFunctionOutput } from '../log-capture';
import type { BillSetUp } from './bill-setup';
import { INSTANCES_OVER_CONCURRENCY, KEPT_METRICS_SECONDS, LAMBDA_INITIAL_POLLERS } from './bill-setup';

export interface BillCase {
  key: string;
  perRequest: number;
  eventsPerSecond: number;
  seconds: number;
  webhookMs: number;
  /** The subscription's `maxEventsPerBatch` (absent: unbatched). */
  maxEventsPerBatch?: number;
  /**
   * The delivery queue's batching window the stack runs with, seconds (`deliveryBatchingWindow`);
   * absent: the construct's default.
   */
  windowSeconds?: number;
}

/**
 * Seconds a case on a stack with a batching window goes on publishing after its measured ones
 * (`LoadOptions.trailingSeconds`): longer than a batch is held past the window at the slowest
 * rate (5 events/s over five pollers: about a second between one poller's messages).
 */
export const TRAILING_SECONDS = 5;

/** The 1-event cases' rates, events (publish requests) a second. */
export const SINGLE_EVENT_RATES = [5, 50, 500] as const;

/** How long a 1-event case publishes at each rate: long enough for a few hundred invocations. */
const SECONDS_AT_RATE: Record<(typeof SINGLE_EVENT_RATES)[number], number> = { 5: 24, 50: 8, 500: 4 };

/** The delivery batching windows (seconds) the 1-event cases run with: none, and 1 s. */
export const SINGLE_EVENT_WINDOWS = [0, 1] as const;

/** The key of a 1-event case at `rate` with a delivery batching window of `windowSeconds`. */
export const singleEventKey = (rate: number, windowSeconds: number): string =>
  `1 per request at ${rate} events/s, 100 ms webhook, ${windowSeconds === 0 ? 'no batching window' : `${windowSeconds} s batching window`}`;

/** The key of 1-event publishes at 500 events/s to a subscription that batches up to 10. */
export const SINGLE_EVENT_BATCHED_KEY = '1 per request at 500 events/s, 100 ms webhook, maxEventsPerBatch 10';

/**
 * Sized so each case delivers in a few seconds: a delivery invocation has a subscription's
 * requests in flight a quarter of its concurrency at a time, so a 1 s webhook takes 100 events
 * about 13 s. 1-event publishes run at 5, 50 and 500 a second, with the construct's default
 * batching window and with none, so what the window saves and what it adds to latency is measured.
 */
const CASES: readonly BillCase[] = [
  {
    key: '100 per request, 100 ms webhook',
    perRequest: 100,
    eventsPerSecond: 500,
    // Five publishes a second: long enough for a few dozen delivery invocations.
    seconds: 10,
    webhookMs: 100,
  },
  ...SINGLE_EVENT_WINDOWS.flatMap((windowSeconds) =>
    SINGLE_EVENT_RATES.map(
      (rate): BillCase => ({
        key: singleEventKey(rate, windowSeconds),
        perRequest: 1,
        eventsPerSecond: rate,
        seconds: SECONDS_AT_RATE[rate],
        webhookMs: 100,
        windowSeconds,
      }),
    ),
  ),
  {
    key: SINGLE_EVENT_BATCHED_KEY,
    perRequest: 1,
    eventsPerSecond: 500,
    seconds: 4,
    webhookMs: 100,
    maxEventsPerBatch: 10,
  },
  {
    key: '100 per request, 10 ms webhook',
    perRequest: 100,
    eventsPerSecond: 500,
    seconds: 3,
    webhookMs: 10,
  },
  {
    key: '1 per request, 10 ms webhook',
    perRequest: 1,
    eventsPerSecond: 200,
    seconds: 3,
    webhookMs: 10,
  },
  {
    key: '100 per request, 1 s webhook',
    perRequest: 100,
    eventsPerSecond: 50,
    seconds: 2,
    webhookMs: 1000,
  },
  {
    key: '1 per request, 1 s webhook',
    perRequest: 1,
    eventsPerSecond: 8,
    seconds: 3,
    webhookMs: 1000,
  },
  {
    key: '100 per request, 100 ms webhook, batched',
    perRequest: 100,
    eventsPerSecond: 200,
    seconds: 3,
    webhookMs: 100,
    maxEventsPerBatch: 100,
  },
  {
    key: '100 per request, 1 s webhook, batched',
    perRequest: 100,
    eventsPerSecond: 100,
    seconds: 2,
    webhookMs: 1000,
    maxEventsPerBatch: 100,
  },
];

/** A case as measured and priced. */
export interface CaseBill {
  case: BillCase;
  usage: BillUsage;
  bill: ReturnType<typeof billPerMillionEvents>;
  /** The same run priced with the publish function's URL as the front door (`publishIngress`). */
  viaFunctionUrl: ReturnType<typeof billPerMillionEvents>;
  /** ...and with metric points kept across invocations (`metricsFlushSeconds`). */
  viaFunctionUrlKeptMetrics: ReturnType<typeof billPerMillionEvents>;
  kept: KeptAcrossInvocations;
  /** The publish function's backlog-gate reads the bill counts (modelled, see `gateReads`). */
  gateReads: GateReads;
  /** AWS requests by service and operation (empty receives included). */
  requests: Record<string, number>;
  /** The function processes' memory peaks and CPU time in the run. */
  processUsage: Partial<Record<MeasuredFunction, ProcessUsage>>;
  comparison: ReturnType<typeof comparisonPerMillion>;
  /** Delivery-queue messages per delivery invocation (every delivery message of the run is one publish). */
  messagesPerDeliveryInvocation: number;
  /** Events per webhook request answered 2xx. */
  eventsPerWebhookRequest: number;
  /** Publish-to-webhook latency, ms. */
  latencyMs: { p50: number; p99: number };
  /** The delivery queue's batching window the stack ran with, seconds. */
  windowSeconds: number;
}

/** Every case's bill, and the metric series the runs emitted (for the fixed monthly costs). */
export interface MeasuredCases {
  cases: CaseBill[];
  emitted: Array<{ name: string; dimensions: Record<string, string> }>;
}

/** What a case runs on: the stack, the sink and load generator, the function processes. */
interface CaseRig {
  live: LiveStack;
  rig: Rig;
  processes: Partial<Record<MeasuredFunction, FunctionProcess>>;
  windowSeconds: number;
}

/**
 * Instances Lambda keeps taking a function's invocations at the run's rate and mean duration:
 * `INSTANCES_OVER_CONCURRENCY` times the concurrency they need, at least one.
 */
function instancesOf(usage: BillUsage, fn: FunctionKey): number {
  const { invocations, gbSeconds } = usage.lambda[fn];
  if (invocations === 0 || usage.seconds <= 0) return 1;
  const meanSeconds = gbSeconds / invocations / (FUNCTIONS[fn].memoryMb / 1024);
  return Math.max(1, INSTANCES_OVER_CONCURRENCY * (invocations / usage.seconds) * meanSeconds);
}

/**
 * Points kept across invocations for `KEPT_METRICS_SECONDS`, by instances taking the run's
 * invocations at the rate and mean duration measured (see `INSTANCES_OVER_CONCURRENCY`).
 */
function keptAcrossInvocations(usage: BillUsage): KeptAcrossInvocations {
  return {
    everySeconds: KEPT_METRICS_SECONDS,
    seconds: usage.seconds,
    instances: { publish: instancesOf(usage, 'publish'), delivery: instancesOf(usage, 'delivery') },
  };
}

/** The publish function's reads of the delivery queue's depth in a run, as AWS would bill them. */
export interface GateReads {
  /** Publish function instances taking the run's publishes. */
  instances: number;
  /** `GetQueueAttributes` calls in the run. */
  reads: number;
}

/**
 * The backlog gate's depth reads (`DeliveryBacklogGate`): each warm publish instance reads at most
 * once per `DELIVERY_BACKLOG_READ_MS`, and only when a publish comes, so `instances` each taking
 * `rate / instances` publishes a second read `min(rate / instances, 1 / interval)` times a second.
 * The run's one publish process stands for one instance; on AWS a steady load is spread over more
 * (`instancesOf`), each reading on its own, so the reads are counted this way instead of as
 * measured (`function-runner.ts` leaves them unbilled). None when the gate is off.
 */
export function gateReadsOf(usage: BillUsage, gateOn: boolean): GateReads {
  const instances = instancesOf(usage, 'publish');
  if (!gateOn || usage.seconds <= 0) return { instances, reads: 0 };
  const publishesPerSecond = usage.lambda.publish.invocations / usage.seconds;
  const readsPerSecondEach = Math.min(publishesPerSecond / instances, 1000 / DELIVERY_BACKLOG_READ_MS);
  return { instances, reads: instances * readsPerSecondEach * usage.seconds };
}

/**
 * A local stack with the construct's settings and the delivery queue's batching window, its
 * publish and delivery functions routed to their processes once these are started. Its pollers
 * behave as Lambda's event source mapping does (`local/poller.ts`): five at first, more while
 * receives come back full, each invoking with what one receive returned, or with what it
 * gathered within the window. Every invocation of the delivery process shares one delivery
 * engine (each Lambda instance has its own): its slots for one subscription (a quarter of the
 * delivery concurrency, 64 of 256) hold the 50 requests 500 events/s keep in flight to a
 * 100 ms webhook, so sharing them holds no case back.
 */
async function billStack(ctx: BenchContext, setUp: BillSetUp, windowSeconds: number): Promise<CaseRig> {
  const processes: CaseRig['processes'] = {};
  const live = await liveStack({
    timeScale: 1,
    logLevel: setUp.applicationLevel,
    subscriptionMetrics: setUp.subscriptionMetrics,
    wrapPublish: (inProcess) => (event, context) =>
      processes.publish === undefined ? inProcess(event, context) : processes.publish.invoke(event),
    wrapDelivery: (inProcess) => (event, context) =>
      processes.delivery === undefined ? inProcess(event, context) : processes.delivery.invoke(event),
    deliveryConcurrency: setUp.stackSettings.deliveryConcurrency,
    pollersPerQueue: LAMBDA_INITIAL_POLLERS,
    // Each receive waits as long as Lambda's do: inside a window too, so a quiet queue holds a
    // batch past the window as on AWS.
    receiveWaitSeconds: LAMBDA_RECEIVE_WAIT_SECONDS,
    deliveryBatchingWindow: { seconds: windowSeconds, batchSize: setUp.stackSettings.deliveryBatchSize },
  });
  return { live, rig: await ctx.rig(live), processes, windowSeconds };
}

/** The cases by the window their stack runs with, in the cases' order. */
function byWindow(setUp: BillSetUp): Map<number, BillCase[]> {
  const groups = new Map<number, BillCase[]>();
  for (const billCase of CASES) {
    const window = billCase.windowSeconds ?? setUp.stackSettings.deliveryBatchingWindowSeconds;
    groups.set(window, [...(groups.get(window) ?? []), billCase]);
  }
  return groups;
}

/**
 * Runs every case, on one stack per batching window. The publish and delivery functions run in
 * processes of their own, bundled as the construct bundles them, so their CPU time is measured
 * (and stretched to Lambda's CPU share).
 */
export async function measureBillCases(ctx: BenchContext, setUp: BillSetUp): Promise<MeasuredCases> {
  const measured: MeasuredCases = { cases: [], emitted: [] };
  let index = 0;
  for (const [windowSeconds, cases] of byWindow(setUp)) {
    log(`bill: a stack whose delivery queue gathers for ${windowSeconds} s`);
    const caseRig = await billStack(ctx, setUp, windowSeconds);
    const { live, rig, processes } = caseRig;
    try {
      for (const fn of ['publish', 'delivery'] as const) {
        const { deployedConfig } = setUp.stackSettings.functions[fn];
        processes[fn] = await FunctionProcess.start(fn, live.stack, {
          memoryMb: setUp.stackSettings.functions[fn].memoryMb,
          logLevel: setUp.applicationLevel,
          onMetrics: live.stack.metrics.publish,
          onRequests: (counts) => live.usage.aws.add(counts),
          // As deployed: the publish function's backlog gate on (its reads billed as modelled).
          config: deployedConfig,
        });
      }
      await warmUp(rig, {
        topic: `bill-warm-up-${windowSeconds}`,
        eventsPerSecond: 500,
        eventsPerRequest: 20,
      });
      for (const billCase of cases) {
        measured.cases.push(await measureCase(caseRig, billCase, index, setUp, measured.emitted));
        index += 1;
      }
    } finally {
      for (const running of Object.values(processes)) await running.stop();
      await live.close();
    }
  }
  // In the cases' order, whichever stack ran them.
  measured.cases.sort(
    (a, b) =>
      CASES.findIndex((one) => one.key === a.case.key) - CASES.findIndex((one) => one.key === b.case.key),
  );
  return measured;
}

/** One case: its load run, what it measured (its metric series added to `emitted`), its bill. */
async function measureCase(
  { live, rig, processes, windowSeconds }: CaseRig,
  billCase: BillCase,
  index: number,
  setUp: BillSetUp,
  emitted: MeasuredCases['emitted'],
): Promise<CaseBill> {
  const processUsage = async () => ({
    publish: await processes.publish?.usage(),
    delivery: await processes.delivery?.usage(),
  });
  const topic = `bill-${index}`;
  log(
    `bill: ${billCase.key}: ${billCase.eventsPerSecond.toLocaleString('en-US')} events/s for ${billCase.seconds} s`,
  );
  const key = await topicWithSubscription(
    live,
    topic,
    rig.sink.url,
    'EventGridSchema',
    billCase.maxEventsPerBatch === undefined ? {} : { maxEventsPerBatch: billCase.maxEventsPerBatch },
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
    // With a window, the last events would otherwise meet a quiet queue (each poller's long poll
    // then holds its batch for the whole 20 s): steady traffic goes on while they are gathered.
    ...(windowSeconds > 0 ? { trailingSeconds: TRAILING_SECONDS } : {}),
  });
  const inProcesses = await processUsage();
  const written = capture.stop();
  const totals = metricsBetween(before, live.stack.metrics.snapshot());
  emitted.push(...totals);
  const emf = emfRecordsOf(totals);
  const measuredUsage: BillUsage = {
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
    sqsFifoEmptyReceives: run.usage.aws.sqsFifoEmptyReceives,
    cpuMs: { publish: inProcesses.publish?.cpuMs ?? 0, delivery: inProcesses.delivery?.cpuMs ?? 0 },
  };
  const gateOn = (setUp.stackSettings.functions.publish.deployedConfig.deliveryBacklogLimit ?? 0) > 0;
  const gateReads = gateReadsOf(measuredUsage, gateOn);
  const usage: BillUsage = {
    ...measuredUsage,
    sqsBilledRequests: measuredUsage.sqsBilledRequests + gateReads.reads,
  };
  const kept = keptAcrossInvocations(usage);
  const keptEmf = emfRecordsOf(totals, kept);
  const keptUsage: BillUsage = { ...usage, emfRecords: keptEmf.records, emfBytes: keptEmf.bytes };
  const eventBytes = run.webhookBytes / Math.max(1, run.delivered);
  const { settings } = setUp;
  const deliveryInvocations = usage.lambda.delivery.invocations;
  return {
    case: billCase,
    usage,
    bill: billPerMillionEvents(usage, settings),
    viaFunctionUrl: billPerMillionEvents(usage, { ...settings, ingress: 'functionUrl' }),
    viaFunctionUrlKeptMetrics: billPerMillionEvents(keptUsage, { ...settings, ingress: 'functionUrl' }),
    kept,
    gateReads,
    requests: run.usage.aws.requests,
    processUsage: {
      ...(inProcesses.publish === undefined ? {} : { publish: inProcesses.publish }),
      ...(inProcesses.delivery === undefined ? {} : { delivery: inProcesses.delivery }),
    },
    comparison: comparisonPerMillion(eventBytes, run.webhookAttempts / Math.max(1, run.webhookRequests)),
    messagesPerDeliveryInvocation:
      deliveryInvocations === 0 ? 0 : run.published.requests / deliveryInvocations,
    eventsPerWebhookRequest: run.delivered / Math.max(1, run.webhookRequests),
    latencyMs: { p50: percentile(run.latencies, 50), p99: percentile(run.latencies, 99) },
    windowSeconds,
  };
}

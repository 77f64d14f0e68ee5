/**
 * The bill scenario's runs (`bill.ts`): each case a short load run of the local stack against the
 * sink answering after the case's delay, the publish and delivery functions each in a process of
 * its own, everything the bill prices measured, and the case priced.
 */
import { FUNCTIONS, type FunctionKey } from '../../shared/config/resources';
import { type BillUsage, billPerMillionEvents, comparisonPerMillion } from '../cost';
import { emfRecordsOf, type KeptAcrossInvocations, metricsBetween } from '../emf-size';
import { FunctionProcess, type MeasuredFunction, type ProcessUsage } from '../function-process';
import { type LiveStack, liveStack, type Rig, topicWithSubscription } from '../harness/live-stack';
import { loadRunWithWebhookDelay, usageOf, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { BenchContext } from '../harness/types';
import { captureFunctionOutput } from '../log-capture';
import type { BillSetUp } from './bill-setup';
import { INSTANCES_OVER_CONCURRENCY, KEPT_METRICS_SECONDS } from './bill-setup';

export interface BillCase {
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
  /** AWS requests by service and operation (empty receives included). */
  requests: Record<string, number>;
  /** The function processes' memory peaks and CPU time in the run. */
  processUsage: Partial<Record<MeasuredFunction, ProcessUsage>>;
  comparison: ReturnType<typeof comparisonPerMillion>;
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
}

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

/**
 * The local stack with the construct's settings, its publish and delivery functions routed to
 * their processes once these are started. The local stack runs one delivery engine for every
 * invocation; one invocation at a time has its request slots to itself, as one Lambda instance
 * has, so durations are an instance's.
 */
async function billStack(ctx: BenchContext, setUp: BillSetUp): Promise<CaseRig> {
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
    maxConcurrency: 1,
  });
  return { live, rig: await ctx.rig(live), processes };
}

/**
 * Runs every case on one stack. The publish and delivery functions run in processes of their own,
 * bundled as the construct bundles them, so their CPU time is measured (and stretched to Lambda's
 * CPU share).
 */
export async function measureBillCases(ctx: BenchContext, setUp: BillSetUp): Promise<MeasuredCases> {
  const { live, rig, processes } = await billStack(ctx, setUp);
  const measured: MeasuredCases = { cases: [], emitted: [] };
  try {
    for (const fn of ['publish', 'delivery'] as const) {
      processes[fn] = await FunctionProcess.start(fn, live.stack, {
        memoryMb: setUp.stackSettings.functions[fn].memoryMb,
        logLevel: setUp.applicationLevel,
        onMetrics: live.stack.metrics.publish,
        onRequests: (counts) => live.usage.aws.add(counts),
        // As deployed: the publish function's backlog gate on, its depth reads billed.
        config: setUp.stackSettings.functions[fn].deployedConfig,
      });
    }
    await warmUp(rig, { topic: 'bill-warm-up', eventsPerSecond: 500, eventsPerRequest: 20 });
    for (const [index, billCase] of CASES.entries()) {
      measured.cases.push(
        await measureCase({ live, rig, processes }, billCase, index, setUp, measured.emitted),
      );
    }
  } finally {
    for (const running of Object.values(processes)) await running.stop();
    await live.close();
  }
  return measured;
}

/** One case: its load run, what it measured (its metric series added to `emitted`), its bill. */
async function measureCase(
  { live, rig, processes }: CaseRig,
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
  const { settings } = setUp;
  return {
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
    comparison: comparisonPerMillion(eventBytes, run.webhookAttempts / Math.max(1, run.webhookRequests)),
  };
}

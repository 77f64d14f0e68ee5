/**
 * The delivery function's memory: its peak resident size, in a process of its own as a Lambda
 * instance runs it (`function-process.ts`), under three loads: small events with a 100 ms
 * webhook, a 1 s webhook holding requests open for four subscriptions, and 64 KB events. One
 * invocation at a time, as one instance takes them. The figure the function's memory size is chosen by, against the size
 * the construct gives it; and the CPU time an invocation uses, which Lambda's CPU share at that
 * size stretches.
 */
import { FUNCTIONS } from '../../shared/config/resources';
import { FunctionProcess, type ProcessUsage } from '../function-process';
import { round } from '../harness/figures';
import { liveStack, topicWithSubscriptions } from '../harness/live-stack';
import { loadRunWithWebhookDelay, warmUp } from '../harness/load-run';
import { log } from '../harness/log';
import type { Figure, Scenario } from '../harness/types';
import { readStackSettings } from '../stack-settings';

interface MemoryCase {
  key: string;
  perRequest: number;
  eventsPerSecond: number;
  seconds: number;
  webhookMs: number;
  subscriptions: number;
  /** Bytes of padding in each event's data. */
  padBytes: number;
}

const CASES: readonly MemoryCase[] = [
  {
    key: '1 KB events, 100 per request, 100 ms webhook',
    perRequest: 100,
    eventsPerSecond: 500,
    seconds: 5,
    webhookMs: 100,
    subscriptions: 1,
    padBytes: 800,
  },
  {
    key: '1 KB events, 100 per request, 1 s webhook, 4 subscriptions',
    perRequest: 100,
    eventsPerSecond: 250,
    seconds: 4,
    webhookMs: 1000,
    subscriptions: 4,
    padBytes: 800,
  },
  {
    key: '64 KB events, 10 per request, 100 ms webhook',
    perRequest: 10,
    eventsPerSecond: 100,
    seconds: 5,
    webhookMs: 100,
    subscriptions: 1,
    padBytes: 64 * 1024,
  },
];

const MIB = 1024 * 1024;

export const memory: Scenario = {
  name: 'memory',
  description:
    "the delivery function's peak memory and CPU time per invocation, bundled and in a process of its own, under three loads",
  uses: ['sink', 'loadGenerator'],
  async run(ctx) {
    const stackSettings = readStackSettings();
    const memoryMb = stackSettings.functions.delivery.memoryMb;
    let delivery: FunctionProcess | undefined;
    const live = await liveStack({
      timeScale: 1,
      deliveryConcurrency: stackSettings.deliveryConcurrency,
      // One invocation at a time, as one instance takes them.
      maxConcurrency: 1,
      wrapDelivery: (inProcess) => (event, context) =>
        delivery === undefined ? inProcess(event, context) : delivery.invoke(event),
    });
    const rig = await ctx.rig(live);
    const sizes = [memoryMb, memoryMb / 2];
    const measured: Array<{
      memoryMb: number;
      case: MemoryCase;
      peak: ProcessUsage & { invocations: number };
      delivered: number;
      durationMs: number;
    }> = [];
    const idle: Record<number, ProcessUsage> = {};
    try {
      await warmUp(rig, { topic: 'memory-warm-up', eventsPerSecond: 200, eventsPerRequest: 10 });
      const cases = ctx.quick ? CASES.map((c) => ({ ...c, seconds: 2 })) : CASES;
      for (const size of sizes) {
        log(
          `memory: the delivery function bundled, in a process of its own, its heap limited as at ${size} MB`,
        );
        delivery = await FunctionProcess.start('delivery', live.stack, {
          memoryMb: size,
          logLevel: 'ERROR',
          onMetrics: live.stack.metrics.publish,
          onRequests: (counts) => live.usage.aws.add(counts),
        });
        try {
          await warmUp(rig, { topic: `memory-warm-up-${size}`, eventsPerSecond: 200, eventsPerRequest: 10 });
          idle[size] = await delivery.usage();
          for (const [index, memoryCase] of cases.entries()) {
            const topic = `memory-${size}-${index}`;
            log(
              `memory: ${size} MB, ${memoryCase.key}: ${memoryCase.eventsPerSecond} events/s for ${memoryCase.seconds} s`,
            );
            const run = await loadRunWithWebhookDelay(rig, memoryCase.webhookMs, {
              name: topic,
              eventsPerRequest: memoryCase.perRequest,
              eventsPerSecond: memoryCase.eventsPerSecond,
              seconds: memoryCase.seconds,
              topic,
              data: [{ pad: 'x'.repeat(memoryCase.padBytes) }],
              subscribe: () =>
                topicWithSubscriptions(
                  live,
                  topic,
                  Array.from({ length: memoryCase.subscriptions }, (_, n) => ({
                    name: `sink${n}`,
                    url: `${rig.sink.url}/s${n}`,
                  })),
                ),
              expectedDeliveries: (published) => published.accepted * memoryCase.subscriptions,
            });
            const lambda = run.usage.lambda.delivery;
            const peak = { ...(await delivery.usage()), invocations: lambda?.invocations ?? 0 };
            const durationMs =
              lambda === undefined || lambda.invocations === 0
                ? 0
                : ((lambda.gbSeconds / lambda.invocations) * 1000) / (FUNCTIONS.delivery.memoryMb / 1024);
            measured.push({ memoryMb: size, case: memoryCase, peak, delivered: run.delivered, durationMs });
          }
        } finally {
          await delivery.stop();
          delivery = undefined;
        }
      }
    } finally {
      await delivery?.stop();
      await live.close();
    }

    const highestAt = (size: number) =>
      Math.max(0, ...measured.filter((m) => m.memoryMb === size).map((m) => m.peak.rssBytes)) / MIB;
    const perInvocation = (m: (typeof measured)[number]) =>
      `${round(m.peak.rssBytes / MIB, 0)} MiB / ${round(m.peak.cpuMs / Math.max(1, m.peak.invocations), 1)} ms / ${round(m.durationMs, 0)} ms`;
    const figures: Figure[] = sizes.flatMap((size) => [
      {
        metric: `delivery function peak memory (resident), heap limited as at ${size} MB, highest of the loads`,
        value: round(highestAt(size), 0),
        unit: 'MiB',
        goal: `<= ${round(size * 0.8, 0)} (80% of ${size} MB)`,
        met: highestAt(size) <= size * 0.8,
      },
      ...(idle[size] === undefined
        ? []
        : [
            {
              metric: `delivery function memory after warm-up (resident), heap limited as at ${size} MB`,
              value: round((idle[size]?.rssBytes ?? 0) / MIB, 0),
              unit: 'MiB',
            },
          ]),
      ...measured
        .filter((m) => m.memoryMb === size)
        .map((m) => ({
          metric: `delivery function at ${size} MB: peak memory / CPU per invocation / duration per invocation, ${m.case.key}`,
          value: perInvocation(m),
          unit: '',
        })),
    ]);
    return {
      results: [
        {
          name: 'memory',
          description: `The delivery function bundled as the construct bundles it, in a Node.js process of its own (as a Lambda instance runs it) with its V8 heap limited as Lambda's Node.js runtime limits it at the function's memory (old space 90%, semi-space 5%: an assumption), invoked by the local stack's pollers one invocation at a time with the construct's delivery concurrency (${stackSettings.deliveryConcurrency}); its resident size and V8 heap sampled every 10 ms, its CPU time per invocation measured by the process (on this machine's full core: Lambda gives ${memoryMb} MB about ${round(memoryMb / 1769, 2)} of a vCPU, ${memoryMb / 2} MB half that). The construct gives it ${memoryMb} MB; measured at that size and at half of it.`,
          figures,
          details: {
            memoryMb,
            idle,
            cases: measured.map((m) => ({
              memoryMb: m.memoryMb,
              case: m.case,
              delivered: m.delivered,
              peakRssMiB: round(m.peak.rssBytes / MIB, 1),
              peakHeapMiB: round(m.peak.heapUsedBytes / MIB, 1),
              invocations: m.peak.invocations,
              cpuMsPerInvocation: round(m.peak.cpuMs / Math.max(1, m.peak.invocations), 2),
              durationMsPerInvocation: round(m.durationMs, 1),
            })),
          },
        },
      ],
    };
  },
};

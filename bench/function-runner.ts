/**
 * A function in a process of its own, to measure its memory and CPU time (`function-process.ts`
 * bundles this file as the construct bundles a function and starts it). The handler is built as
 * `functions/publish.ts` or `functions/delivery.ts` builds it (the publish function's source
 * queue batches to its source handler, as deployed), with the local stack's
 * configuration and emulator clients (sent in the first message) in place of the environment's
 * and AWS's. Invocations arrive and answer as IPC messages; the process's resident size and V8
 * heap are sampled every 10 ms, and their peaks, with the CPU time the process used, since the
 * last `usage` message are the answer to the next one. Its AWS requests are counted as the
 * benchmark counts the local stack's, and handed over with each answer.
 */
import { cpuUsage, memoryUsage } from 'node:process';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { createDeliveryHandler } from '../functions/delivery';
import { buildPublishHandlers, isSqsBatch } from '../functions/publish';
import { lambdaContext } from '../local/lambda-context';
import { FUNCTIONS } from '../shared/config/resources';
import type { RuntimeConfig } from '../shared/config/runtime';
import { publishMetricPoints } from '../shared/lambda/middleware';
import { buildDeliveryWorker, createObservability, type ObservabilityOptions } from '../shared/lambda/wiring';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../shared/observability/metrics';
import { createAwsClients, type LocalEndpoints } from '../shared/platform/aws';
import { AwsRequestCounter, LOCAL_STACK_ONLY } from './aws-counter';
import type { FunctionProcessMessage, FunctionProcessReply, MeasuredFunction } from './function-process';

const peak = { rssBytes: 0, heapUsedBytes: 0 };
const sample = () => {
  const { rss, heapUsed } = memoryUsage();
  peak.rssBytes = Math.max(peak.rssBytes, rss);
  peak.heapUsedBytes = Math.max(peak.heapUsedBytes, heapUsed);
};
setInterval(sample, 10).unref();
let cpuSince = cpuUsage();
/**
 * The function's AWS requests, handed over with each answer: all of them its own, billed but for
 * the publish function's queue-depth reads, which the bill counts per instance as AWS would bill
 * them (`gateReadsOf`, `bench/scenarios/bill-cases.ts`): one process here stands for one instance.
 */
const requests = new AwsRequestCounter(LOCAL_STACK_ONLY);

type Handler = (event: unknown, context: Context) => Promise<unknown>;
let handler: Handler | undefined;
let fn: MeasuredFunction = 'delivery';

const reply = (message: FunctionProcessReply) => process.send?.(message);

const build = (
  measured: MeasuredFunction,
  config: RuntimeConfig,
  endpoints: LocalEndpoints,
  logLevel: NonNullable<ObservabilityOptions['logLevel']>,
): Handler => {
  const runtime = { config, clients: createAwsClients(endpoints) };
  requests.attach(runtime.clients);
  // Metric records are written to stdout as on Lambda, and their points sent to the parent, which
  // adds them to the local stack's metrics (the parent drops the records).
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  const observability = createObservability(measured, {
    ...config,
    logLevel,
    publishMetrics: (points) => {
      publishMetricPoints(points, metrics);
      reply({ kind: 'metrics', points: [...points] });
    },
  });
  if (measured === 'publish') {
    // As the deployed handler: a source queue's batch to the source handler, anything else to HTTP.
    const { http, sources } = buildPublishHandlers(runtime, observability);
    return ((event: unknown, context: Context) =>
      isSqsBatch(event)
        ? sources(event, context)
        : http(event as Parameters<typeof http>[0], context)) as Handler;
  }
  return createDeliveryHandler({
    worker: buildDeliveryWorker(runtime, observability),
    observability,
  }) as Handler;
};

process.on('message', (message: FunctionProcessMessage) => {
  if (message.kind === 'start') {
    fn = message.fn;
    handler = build(message.fn, message.config, message.endpoints, message.logLevel);
    reply({ kind: 'started' });
    return;
  }
  if (message.kind === 'usage') {
    sample();
    const cpu = cpuUsage(cpuSince);
    reply({ kind: 'usage', ...peak, cpuMs: (cpu.user + cpu.system) / 1000 });
    peak.rssBytes = 0;
    peak.heapUsedBytes = 0;
    sample();
    cpuSince = cpuUsage();
    return;
  }
  const invoke = handler;
  if (invoke === undefined) {
    reply({ kind: 'answer', id: message.id, error: 'invoked before start', requests: requests.take() });
    return;
  }
  invoke(message.event, lambdaContext(FUNCTIONS[fn])).then(
    (result) => reply({ kind: 'answer', id: message.id, result, requests: requests.take() }),
    (error: Error) =>
      reply({ kind: 'answer', id: message.id, error: error.message, requests: requests.take() }),
  );
});

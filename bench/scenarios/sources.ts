/**
 * The bill of a source per million events (`Source.sqs`, `Source.eventBridge`), against
 * EventBridge API destinations, the HTTP publish API and a forwarder of the deployer's own.
 *
 * Each case runs on the local stack with the construct's settings (as the bill's): a producer puts
 * messages on a source queue of the SQS emulator (one `SendMessage` each, or `SendMessageBatch` of
 * ten), an event source mapping's pollers (`local/poller.ts`, as Lambda's: five pollers, long
 * polls of 20 s, batches of up to `SOURCE_BATCH_SIZE` messages, no window, partial batch failures)
 * hand each receive to the publish function, bundled as the construct bundles it and in a process
 * of its own, whose source handler publishes every message through the publish path; the delivery
 * function (also in a process of its own) delivers to the sink answering after 100 ms. Counted
 * apart: the producer's requests, the pollers' receives and deletes of the source queue, the publish
 * function's invocations (billed ms), CPU time, SQS requests, DynamoDB units and metric records; and
 * the delivery side as the bill counts it.
 *
 * A bus source's events reach its queue by the rule's SQS target, which sends each matching event
 * as one message (`SendMessage`): the case sends them so. PutEvents and API destinations cannot be
 * run here; they are priced from EventBridge's pricing page.
 */

import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { LAMBDA_RECEIVE_WAIT_SECONDS, QueuePoller } from '../../local/poller';
import { FUNCTIONS } from '../../shared/config/resources';
import type { RuntimeConfig } from '../../shared/config/runtime';
import { SOURCE_BATCH_SIZE } from '../../shared/config/sources';
import { publishMetricPoints } from '../../shared/lambda/middleware';
import { silentLogger } from '../../shared/observability/logging';
import { METRICS_NAMESPACE, type MetricPoint, SERVICE_NAME } from '../../shared/observability/metrics';
import { createAwsClients } from '../../shared/platform/aws';
import { AwsRequestCounter, type RequestCounts } from '../aws-counter';
import { type BillUsage, billedGbSeconds, emptyLambdaUsage } from '../cost';
import { emfRecordsOf, metricsBetween } from '../emf-size';
import { FunctionProcess, type MeasuredFunction } from '../function-process';
import { type LiveStack, liveStack, topicWithSubscription } from '../harness/live-stack';
import { endProgress, log, progress } from '../harness/log';
import type { Scenario } from '../harness/types';
import { percentile, type Sink } from '../load';
import { captureFunctionOutput } from '../log-capture';
import { priceSourceCase, type SourceIngestUsage } from '../sources';
import { type BillSetUp, billSetUp, LAMBDA_INITIAL_POLLERS } from './bill-setup';
import { SOURCE_WEBHOOK_MS, type SourceCase, type SourceCaseResult, sourcesResult } from './sources-figures';

/**
 * Invocations of the publish function an event source mapping has in flight at most here (Lambda
 * scales an SQS mapping's concurrency far beyond: this bounds nothing at these rates).
 */
const MAX_SOURCE_CONCURRENCY = 20;

/** The cases: 500 events/s as the bill's 1-event case it is compared with, and backlogs (full batches). */
export function sourceCases(quick: boolean): SourceCase[] {
  const seconds = quick ? 2 : 6;
  const backlog = quick ? 1000 : 3000;
  return [
    {
      key: 'SQS source, 1 event a message, SendMessageBatch, 500 events/s',
      kind: 'sqs',
      eventsPerMessage: 1,
      producer: 'SendMessageBatch',
      messagesPerSecond: 500,
      messages: 500 * seconds,
    },
    {
      key: 'SQS source, 1 event a message, SendMessage, 500 events/s',
      kind: 'sqs',
      eventsPerMessage: 1,
      producer: 'SendMessage',
      messagesPerSecond: 500,
      messages: 500 * seconds,
    },
    {
      key: 'SQS source, 10 events a message, SendMessage, 500 events/s',
      kind: 'sqs',
      eventsPerMessage: 10,
      producer: 'SendMessage',
      messagesPerSecond: 50,
      messages: 50 * seconds,
    },
    {
      key: `SQS source, 1 event a message, SendMessageBatch, a backlog of ${backlog.toLocaleString('en-US')} (full batches)`,
      kind: 'sqs',
      eventsPerMessage: 1,
      producer: 'SendMessageBatch',
      messages: backlog,
    },
    {
      key: `SQS source, 10 events a message, SendMessageBatch, a backlog of ${(backlog / 10).toLocaleString('en-US')} (full batches)`,
      kind: 'sqs',
      eventsPerMessage: 10,
      producer: 'SendMessageBatch',
      messages: backlog / 10,
    },
    {
      key: 'EventBridge bus source, 1 event a message (the rule target sends each), 500 events/s',
      kind: 'eventBridge',
      eventsPerMessage: 1,
      producer: 'SendMessage',
      messagesPerSecond: 500,
      messages: 500 * seconds,
    },
  ];
}

/** An Event Grid event of the run, its send time in `data.t` (the sink's latency). */
const gridEvent = (id: string, n: number) => ({
  id,
  subject: `orders/${id}`,
  eventType: 'Order.Created',
  eventTime: new Date().toISOString(),
  dataVersion: '1',
  data: { t: Date.now(), n },
});

/** An EventBridge event as a rule's target receives it (converted to the topic's schema by the source). */
const busEvent = (id: string, n: number) => ({
  version: '0',
  id,
  'detail-type': 'Order.Created',
  source: 'com.example.orders',
  account: '123456789012',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: [],
  detail: { t: Date.now(), n },
});

/** A message body of the case: one event, or an array of them. */
function messageBody(sourceCase: SourceCase, prefix: string, index: number): string {
  const events = Array.from({ length: sourceCase.eventsPerMessage }, (_, i) => {
    const n = index * sourceCase.eventsPerMessage + i;
    return sourceCase.kind === 'eventBridge' ? busEvent(`${prefix}-${n}`, n) : gridEvent(`${prefix}-${n}`, n);
  });
  return JSON.stringify(sourceCase.eventsPerMessage === 1 ? events[0] : events);
}

/** The run's parts: the stack and sink, the two function processes, the clients counted apart. */
interface SourceRig {
  live: LiveStack;
  sink: Sink;
  processes: Partial<Record<MeasuredFunction, FunctionProcess>>;
  producer: ReturnType<typeof createAwsClients>;
  producerCounter: AwsRequestCounter;
  poller: ReturnType<typeof createAwsClients>;
  pollerCounter: AwsRequestCounter;
  publishCounter: AwsRequestCounter;
  /** Each metric flush of the publish function's process: its points. */
  publishFlushes: MetricPoint[][];
  queues: Map<string, { url: string; arn: string }>;
}

const queueName = (index: number | 'warm') => `bench-source-${index}`;
const topicName = (index: number | 'warm') => `source-${index}`;

async function createQueue(
  rig: Pick<SourceRig, 'producer'>,
  name: string,
): Promise<{ url: string; arn: string }> {
  const created = await rig.producer.sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: { VisibilityTimeout: String(FUNCTIONS.publish.timeoutSeconds + 1) },
    }),
  );
  const url = created.QueueUrl ?? '';
  const { Attributes } = await rig.producer.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes?.QueueArn ?? '' };
}

/** Sends the case's messages: all at once (a backlog), or at its rate, every 20 ms what is due. */
async function produce(
  rig: SourceRig,
  sourceCase: SourceCase,
  queueUrl: string,
  prefix: string,
): Promise<void> {
  let sent = 0;
  const send = async (count: number) => {
    const bodies = Array.from({ length: count }, (_, i) => messageBody(sourceCase, prefix, sent + i));
    sent += count;
    if (sourceCase.producer === 'SendMessage') {
      await Promise.all(
        bodies.map((body) =>
          rig.producer.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body })),
        ),
      );
      return;
    }
    const calls: Promise<unknown>[] = [];
    for (let start = 0; start < bodies.length; start += 10) {
      calls.push(
        rig.producer.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: bodies.slice(start, start + 10).map((body, i) => ({ Id: String(i), MessageBody: body })),
          }),
        ),
      );
    }
    await Promise.all(calls);
  };
  const rate = sourceCase.messagesPerSecond;
  if (rate === undefined) {
    for (let start = 0; start < sourceCase.messages; start += 100)
      await send(Math.min(100, sourceCase.messages - start));
    return;
  }
  const started = performance.now();
  while (sent < sourceCase.messages) {
    const due = Math.min(sourceCase.messages, Math.floor(((performance.now() - started) / 1000) * rate));
    // Whole batches of ten with SendMessageBatch, as a producer gathering its messages would.
    const count =
      sourceCase.producer === 'SendMessageBatch' && due < sourceCase.messages
        ? Math.floor((due - sent) / 10) * 10
        : due - sent;
    if (count > 0) await send(count);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The EMF records and bytes the publish function's flushes write (each flush as Powertools writes it). */
function publishEmf(flushes: readonly MetricPoint[][]): { records: number; bytes: number } {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  const capture = captureFunctionOutput();
  for (const points of flushes) publishMetricPoints(points, metrics);
  const written = capture.stop();
  return { records: written.emfRecords, bytes: written.emfBytes };
}

const sqsOf = (counts: RequestCounts) => counts.sqsBilledRequests - counts.sqsEmptyReceives;

/** One case: the producer, the event source mapping's pollers, every event to the sink; priced. */
async function runCase(
  rig: SourceRig,
  sourceCase: SourceCase,
  index: number | 'warm',
  setUp: BillSetUp,
): Promise<SourceCaseResult> {
  const { live, sink, processes } = rig;
  const queue = rig.queues.get(queueName(index));
  if (queue === undefined) throw new Error(`no queue for case ${index}`);
  const topic = topicName(index);
  await topicWithSubscription(live, topic, sink.url, 'EventGridSchema');
  const expected = sourceCase.messages * sourceCase.eventsPerMessage;
  const invocations = { count: 0, gbSeconds: 0, messages: 0 };
  const poller = new QueuePoller({
    sqs: rig.poller.sqs,
    queueUrl: queue.url,
    queueArn: queue.arn,
    batchSize: SOURCE_BATCH_SIZE,
    batchingWindowMs: 0,
    initialPollers: LAMBDA_INITIAL_POLLERS,
    maxConcurrency: MAX_SOURCE_CONCURRENCY,
    waitTimeSeconds: LAMBDA_RECEIVE_WAIT_SECONDS,
    fn: FUNCTIONS.publish,
    fnKey: 'publish',
    handler: (event) => {
      const publish = processes.publish;
      if (publish === undefined) throw new Error('the publish process is not running');
      return publish.invoke(event);
    },
    logger: silentLogger,
    onInvocation: (stats) => {
      invocations.count += 1;
      invocations.messages += stats.records;
      invocations.gbSeconds += billedGbSeconds('publish', stats.durationMs);
    },
  });
  // Everything from here is the case's.
  sink.configure(0, SOURCE_WEBHOOK_MS);
  await sink.take();
  live.usage.take();
  rig.producerCounter.take();
  rig.pollerCounter.take();
  rig.publishCounter.take();
  rig.publishFlushes.length = 0;
  await processes.publish?.usage();
  await processes.delivery?.usage();
  const before = live.stack.metrics.snapshot();
  const capture = captureFunctionOutput();
  const started = performance.now();
  const delivered = { events: 0, requests: 0, attempts: 0, bytes: 0, latencies: [] as number[] };
  const drain = async () => {
    const taken = await sink.take();
    delivered.events += taken.latencies.length;
    delivered.requests += taken.delivered;
    delivered.attempts += taken.requests;
    delivered.bytes += taken.requestBytes;
    for (const latency of taken.latencies) delivered.latencies.push(latency);
  };
  try {
    if (sourceCase.messagesPerSecond === undefined) {
      await produce(rig, sourceCase, queue.url, `${topic}`);
      poller.start();
    } else {
      poller.start();
      await produce(rig, sourceCase, queue.url, `${topic}`);
    }
    const waitStarted = performance.now();
    while (delivered.events < expected && performance.now() - waitStarted < 120_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await drain();
      progress(
        `  ${sourceCase.key}: delivered ${delivered.events.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')}`,
      );
    }
    endProgress();
    // The pollers' last deletes, then no more receives.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  } finally {
    await poller.stop();
    sink.configure(0, 0);
  }
  await drain();
  const written = capture.stop();
  const seconds = (performance.now() - started) / 1000;
  const publishUsage = await processes.publish?.usage();
  const deliveryUsage = await processes.delivery?.usage();
  const stackUsage = live.usage.take();
  const producer = rig.producerCounter.take();
  const polled = rig.pollerCounter.take();
  const published = rig.publishCounter.take();
  const emf = publishEmf(rig.publishFlushes);
  const deletes = polled.requests['sqs:DeleteMessageBatch'] ?? 0;
  const events = delivered.events;
  if (events < expected) log(`  ${sourceCase.key}: only ${events} of ${expected} events reached the sink`);
  const ingest: SourceIngestUsage = {
    events,
    messages: sourceCase.messages,
    seconds,
    producerRequests: sqsOf(producer),
    producerOperation: sourceCase.producer,
    receives: sqsOf(polled) - deletes,
    deletes,
    publishInvocations: invocations.count,
    publishGbSeconds: invocations.gbSeconds,
    publishCpuMs: publishUsage?.cpuMs ?? 0,
    publishSqsRequests: sqsOf(published),
    dynamoReadUnits: published.dynamoReadUnits,
    dynamoWriteUnits: published.dynamoWriteUnits,
    emfRecords: emf.records,
    emfBytes: emf.bytes,
  };
  const deliveryEmf = emfRecordsOf(metricsBetween(before, live.stack.metrics.snapshot()));
  const lambda = emptyLambdaUsage();
  lambda.delivery = stackUsage.lambda.delivery ?? lambda.delivery;
  const delivery: BillUsage = {
    events,
    httpRequests: 0,
    lambda,
    sqsBilledRequests: stackUsage.aws.sqsBilledRequests,
    sqsEmptyReceives: stackUsage.aws.sqsEmptyReceives,
    sqsFifoBilledRequests: stackUsage.aws.sqsFifoBilledRequests,
    sqsFifoEmptyReceives: stackUsage.aws.sqsFifoEmptyReceives,
    dynamoWriteUnits: stackUsage.aws.dynamoWriteUnits,
    dynamoReadUnits: stackUsage.aws.dynamoReadUnits,
    s3Puts: stackUsage.aws.requests['s3:PutObject'] ?? 0,
    s3Gets: stackUsage.aws.requests['s3:GetObject'] ?? 0,
    seconds,
    webhookRequests: delivered.attempts,
    webhookBytes: delivered.bytes,
    publishAnswers: 0,
    // Both functions' application lines (at INFO on the happy path, few or none), put here.
    applicationLogLines: written.applicationLines,
    applicationLogBytes: written.applicationBytes,
    emfRecords: deliveryEmf.records,
    emfBytes: deliveryEmf.bytes,
    cpuMs: { delivery: deliveryUsage?.cpuMs ?? 0 },
  };
  const messageBytes = Buffer.byteLength(messageBody(sourceCase, topic, 0));
  const cost = priceSourceCase({
    kind: sourceCase.kind,
    ingest,
    delivery,
    settings: setUp.settings,
    eventBytes: messageBytes / sourceCase.eventsPerMessage,
    attemptsPerEvent: delivered.attempts / Math.max(1, delivered.requests),
  });
  return {
    case: sourceCase,
    ingest,
    delivery,
    cost,
    messagesPerInvocation: invocations.count === 0 ? 0 : invocations.messages / invocations.count,
    billedMsPerInvocation:
      invocations.count === 0
        ? 0
        : (invocations.gbSeconds / invocations.count / (FUNCTIONS.publish.memoryMb / 1024)) * 1000,
    messageBytes,
    latencyMs: { p50: percentile(delivered.latencies, 50), p99: percentile(delivered.latencies, 99) },
    requests: { producer: producer.requests, poller: polled.requests, publish: published.requests },
  };
}

export const sources: Scenario = {
  name: 'sources',
  description:
    'the bill of a source (SQS queue, EventBridge bus) per million events, every line item, against EventBridge API destinations, the HTTP publish API and a forwarder of your own',
  uses: ['sink'],
  async run(ctx) {
    const setUp = await billSetUp(ctx.quick);
    const cases = sourceCases(ctx.quick);
    const warm: SourceCase = {
      key: 'warm-up',
      kind: 'sqs',
      eventsPerMessage: 1,
      producer: 'SendMessageBatch',
      messagesPerSecond: 500,
      messages: 1000,
    };
    log(
      'sources: a stack with the construct settings, the publish and delivery functions in processes of their own',
    );
    const processes: SourceRig['processes'] = {};
    const live = await liveStack({
      timeScale: 1,
      logLevel: setUp.applicationLevel,
      subscriptionMetrics: setUp.subscriptionMetrics,
      wrapDelivery: (inProcess) => (event, context) =>
        processes.delivery === undefined ? inProcess(event, context) : processes.delivery.invoke(event),
      deliveryConcurrency: setUp.stackSettings.deliveryConcurrency,
      pollersPerQueue: LAMBDA_INITIAL_POLLERS,
      receiveWaitSeconds: LAMBDA_RECEIVE_WAIT_SECONDS,
      deliveryBatchingWindow: {
        seconds: setUp.stackSettings.deliveryBatchingWindowSeconds,
        batchSize: setUp.stackSettings.deliveryBatchSize,
      },
    });
    const producerCounter = new AwsRequestCounter();
    const pollerCounter = new AwsRequestCounter();
    const producer = createAwsClients(live.stack.endpoints);
    const pollerClients = createAwsClients(live.stack.endpoints);
    producerCounter.attachClient('sqs', producer.sqs);
    pollerCounter.attachClient('sqs', pollerClients.sqs);
    const rig: SourceRig = {
      live,
      sink: await ctx.sink(),
      processes,
      producer,
      producerCounter,
      poller: pollerClients,
      pollerCounter,
      publishCounter: new AwsRequestCounter(),
      publishFlushes: [],
      queues: new Map(),
    };
    try {
      const definitions: RuntimeConfig['sources'] = [];
      const indices: Array<number | 'warm'> = ['warm', ...cases.map((_, i) => i)];
      for (const index of indices) {
        const kind = index === 'warm' ? 'sqs' : (cases[index]?.kind ?? 'sqs');
        const queue = await createQueue(rig, queueName(index));
        rig.queues.set(queueName(index), queue);
        definitions.push({
          name: queueName(index),
          kind,
          queueArn: queue.arn,
          topic: topicName(index),
          format: kind === 'eventBridge' ? 'eventBridge' : 'topic',
        });
      }
      for (const fn of ['publish', 'delivery'] as const) {
        processes[fn] = await FunctionProcess.start(fn, live.stack, {
          memoryMb: setUp.stackSettings.functions[fn].memoryMb,
          logLevel: setUp.applicationLevel,
          onMetrics:
            fn === 'publish' ? (points) => rig.publishFlushes.push([...points]) : live.stack.metrics.publish,
          onRequests: (counts) => (fn === 'publish' ? rig.publishCounter : live.usage.aws).add(counts),
          config: {
            ...setUp.stackSettings.functions[fn].deployedConfig,
            ...(fn === 'publish' ? { sources: definitions } : {}),
          },
        });
      }
      log('sources: warm-up, 1,000 messages (not measured)');
      await runCase(rig, warm, 'warm', setUp);
      const results: SourceCaseResult[] = [];
      for (const [index, sourceCase] of cases.entries()) {
        log(
          `sources: ${sourceCase.key}: ${(sourceCase.messages * sourceCase.eventsPerMessage).toLocaleString('en-US')} events`,
        );
        results.push(await runCase(rig, sourceCase, index, setUp));
      }
      return { results: [sourcesResult(setUp, results)] };
    } finally {
      for (const running of Object.values(processes)) await running.stop();
      await live.close();
    }
  },
};

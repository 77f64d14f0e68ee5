/**
 * What a source (`Source.sqs`, `Source.eventBridge`: events already in AWS published to a topic
 * without an HTTP publish) costs per million events, line by line, against EventBridge API
 * destinations delivering the same events to the webhook, against the HTTP publish API, and against
 * a forwarder of the deployer's own (a Lambda function reading the queue and posting each batch to
 * the publish API).
 *
 * The ingest side of a source is measured (`scenarios/sources.ts`): the producer's sends to the
 * source queue, the event source mapping's receives and deletes, the publish function's
 * invocations, their billed duration and CPU time, and what the publish path sends and reads. The
 * delivery side (the delivery queue, the delivery function, the webhook requests) is measured in
 * the same run and priced by the bill's model (`billPerMillionEvents`). What AWS does that the
 * emulators cannot show is priced from the pricing pages: PutEvents, API destination invocations.
 */
import { FUNCTIONS } from '../shared/config/resources';
import {
  accessLogLine,
  type BillBreakdown,
  type BillSettings,
  type BillUsage,
  billedGbSeconds,
  billPerMillionEvents,
  cpuShareGbSeconds,
  emptyLambdaUsage,
  LOG_EVENT_OVERHEAD_BYTES,
  logEventBytes,
  platformRecords,
  sampledShare,
} from './cost';
import { IDLE_POLLERS_PER_QUEUE, LONG_POLL_SECONDS } from './fixed-monthly';
import { PRICES } from './prices';

const GB = 1_000_000_000;
const MILLION = 1_000_000;

/** Where a line's quantity comes from. */
export type LineBasis = 'measured' | 'assumed' | 'modelled';

/** One billed line: its quantity per million events, its unit price, their product. */
export interface CostLine {
  key: string;
  label: string;
  /** Quantity per million events, in `unit`. */
  quantity: number;
  unit: string;
  /** USD per `unit`. */
  unitPrice: number;
  /** `quantity * unitPrice`, USD per million events. */
  cost: number;
  basis: LineBasis;
  /** Data transfer out (left out of the totals that exclude it). */
  dataTransferOut?: boolean;
}

export const costLine = (
  key: string,
  label: string,
  quantity: number,
  unit: string,
  unitPrice: number,
  basis: LineBasis,
  dataTransferOut = false,
): CostLine => ({
  key,
  label,
  quantity,
  unit,
  unitPrice,
  cost: quantity * unitPrice,
  basis,
  ...(dataTransferOut ? { dataTransferOut: true } : {}),
});

/** A priced option: its lines and their totals, with and without data transfer out. */
export interface PricedOption {
  key: string;
  label: string;
  lines: CostLine[];
  total: number;
  totalExcludingDataTransferOut: number;
}

export function pricedOption(key: string, label: string, lines: CostLine[]): PricedOption {
  const total = lines.reduce((sum, line) => sum + line.cost, 0);
  const transfer = lines.filter((line) => line.dataTransferOut === true).reduce((sum, l) => sum + l.cost, 0);
  return { key, label, lines, total, totalExcludingDataTransferOut: total - transfer };
}

/** What a run of a source measured on its ingest side (everything up to the delivery queue). */
export interface SourceIngestUsage {
  /** Events the run published through the source (and the sink received). */
  events: number;
  /** Messages put on the source queue. */
  messages: number;
  /** Seconds the usage covers (X-Ray's reservoir). */
  seconds: number;
  /** The producer's billed SQS requests to the source queue (`SendMessage` or `SendMessageBatch`). */
  producerRequests: number;
  /** The producer's calls by operation (for the report). */
  producerOperation: 'SendMessage' | 'SendMessageBatch';
  /** The event source mapping's billed receives of the source queue that returned messages. */
  receives: number;
  /** Its `DeleteMessageBatch` calls on the source queue. */
  deletes: number;
  publishInvocations: number;
  /** Billed GB-seconds of those invocations (each rounded up to 1 ms, at the function's memory). */
  publishGbSeconds: number;
  /** CPU time the publish function's process used in the run (stretched to Lambda's CPU share). */
  publishCpuMs: number;
  /** Billed SQS requests the publish function made (its sends to the delivery queue). */
  publishSqsRequests: number;
  dynamoReadUnits: number;
  dynamoWriteUnits: number;
  /** The publish function's EMF metric records and their bytes. */
  emfRecords: number;
  emfBytes: number;
}

/**
 * The ingest side as the bill's model takes it: the publish function's invocations, the source
 * queue's and the publish path's SQS requests, its reads, its metric records; no HTTP request, no
 * answer to a publisher (the function URL ingress, so no access log either).
 */
export function ingestBillUsage(ingest: SourceIngestUsage): BillUsage {
  const lambda = emptyLambdaUsage();
  lambda.publish = { invocations: ingest.publishInvocations, gbSeconds: ingest.publishGbSeconds };
  return {
    events: ingest.events,
    httpRequests: 0,
    lambda,
    sqsBilledRequests: ingest.producerRequests + ingest.receives + ingest.deletes + ingest.publishSqsRequests,
    dynamoWriteUnits: ingest.dynamoWriteUnits,
    dynamoReadUnits: ingest.dynamoReadUnits,
    s3Puts: 0,
    s3Gets: 0,
    seconds: ingest.seconds,
    webhookRequests: 0,
    webhookBytes: 0,
    publishAnswers: 0,
    applicationLogLines: 0,
    applicationLogBytes: 0,
    emfRecords: ingest.emfRecords,
    emfBytes: ingest.emfBytes,
    cpuMs: { publish: ingest.publishCpuMs },
  };
}

/** CloudWatch Logs' price per GB ingested and kept, as the bill's settings keep it. */
export const logPricePerGb = (settings: BillSettings): number =>
  PRICES.cloudWatch.logs.ingestionPerGb +
  settings.logStoredShare * settings.logRetentionMonths * PRICES.cloudWatch.logs.storagePerGbMonth;

/**
 * The ingest side's lines, per million events: each SQS request kind on its own, the publish
 * function's requests, duration, CPU share and cold starts, the table's units, its logs, traces
 * and secret reads. Their sum is the bill's model of the same usage (`ingestBillUsage`).
 */
export function ingestLines(ingest: SourceIngestUsage, settings: BillSettings): CostLine[] {
  if (ingest.events <= 0) throw new RangeError('the ingest usage must cover at least one event');
  const scale = MILLION / ingest.events;
  const memoryMb = FUNCTIONS.publish.memoryMb;
  const sqs = PRICES.sqs.perRequest;
  const gbSecond = PRICES.lambda.perGbSecond;
  const records = platformRecords(settings.systemLogLevel, settings.tracing, memoryMb);
  const invocations = ingest.publishInvocations * scale;
  const logBytes =
    invocations * logEventBytes(records.perInvocation) +
    settings.coldStartsPerMillionEvents * logEventBytes(records.perColdStart) +
    (ingest.emfBytes + ingest.emfRecords * LOG_EVENT_OVERHEAD_BYTES) * scale;
  const traced = settings.tracing
    ? invocations * sampledShare(ingest.publishInvocations / ingest.seconds, settings.sampling)
    : 0;
  return [
    costLine(
      'sqsProducer',
      "producer: SendMessage or SendMessageBatch to the source queue (the case's)",
      ingest.producerRequests * scale,
      'requests',
      sqs,
      'measured',
    ),
    costLine(
      'sqsReceives',
      'event source mapping: ReceiveMessage (source queue)',
      ingest.receives * scale,
      'requests',
      sqs,
      'measured',
    ),
    costLine(
      'sqsDeletes',
      'event source mapping: DeleteMessageBatch (source queue)',
      ingest.deletes * scale,
      'requests',
      sqs,
      'measured',
    ),
    costLine(
      'publishRequests',
      'publish function: Lambda requests',
      invocations,
      'invocations',
      PRICES.lambda.perRequest,
      'measured',
    ),
    costLine(
      'publishDuration',
      'publish function: Lambda duration',
      ingest.publishGbSeconds * scale,
      'GB-s',
      gbSecond,
      'measured',
    ),
    costLine(
      'publishCpuShare',
      "publish function: duration, CPU share (CPU time stretched to 512 MB's share of a vCPU)",
      cpuShareGbSeconds(ingest.publishCpuMs, memoryMb) * scale,
      'GB-s',
      gbSecond,
      'measured',
    ),
    costLine(
      'publishInit',
      'publish function: INIT (cold starts)',
      settings.coldStartsPerMillionEvents * billedGbSeconds('publish', settings.initMs.publish),
      'GB-s',
      gbSecond,
      'assumed',
    ),
    costLine(
      'sqsPublishSends',
      'publish path: SQS sends to the delivery queue',
      ingest.publishSqsRequests * scale,
      'requests',
      sqs,
      'measured',
    ),
    costLine(
      'dynamodbReads',
      'publish path: DynamoDB read units (topic and subscriptions, cached 1 s)',
      ingest.dynamoReadUnits * scale,
      'read units',
      PRICES.dynamodb.perReadUnit,
      'measured',
    ),
    costLine(
      'dynamodbWrites',
      'publish path: DynamoDB write units',
      ingest.dynamoWriteUnits * scale,
      'write units',
      PRICES.dynamodb.perWriteUnit,
      'measured',
    ),
    costLine(
      'logs',
      'publish function: logs (EMF metric records, platform records at the system log level), ingested and kept',
      logBytes / GB,
      'GB',
      logPricePerGb(settings),
      'measured',
    ),
    costLine(
      'xray',
      'publish function: X-Ray traces',
      traced,
      'traces',
      PRICES.xray.perTraceRecorded,
      'assumed',
    ),
    costLine(
      'secretsManagerReads',
      'publish function: Secrets Manager reads (per cold start)',
      settings.coldStartsPerMillionEvents * settings.secretReadsPerColdStart.publish,
      'calls',
      PRICES.secretsManager.perApiCall,
      'assumed',
    ),
  ];
}

/** The delivery side's usage: everything the run measured after the delivery queue. */
export type DeliveryBillUsage = BillUsage;

/**
 * The delivery side's lines, per million events, from the bill's model of the delivery side's
 * usage (the delivery queue's receives and deletes, the delivery function, the webhook requests
 * and their data transfer out, its logs), grouped as the bill's line items.
 */
export function deliveryLines(usage: DeliveryBillUsage, settings: BillSettings): CostLine[] {
  const { breakdown } = billPerMillionEvents(usage, { ...settings, ingress: 'functionUrl' });
  const item = (key: keyof BillBreakdown, label: string, dataTransferOut = false) =>
    costLine(`delivery.${key}`, label, breakdown[key], 'USD', 1, 'measured', dataTransferOut);
  return [
    item('lambdaRequests', 'delivery side: Lambda requests'),
    item('lambdaDuration', 'delivery side: Lambda duration (waiting on the webhook)'),
    item('lambdaCpuShare', 'delivery side: duration, CPU share'),
    item('lambdaInit', 'delivery side: INIT (cold starts)'),
    item('sqs', 'delivery side: SQS (delivery queue receives and deletes)'),
    item('dynamodb', 'delivery side: DynamoDB'),
    item('s3', 'delivery side: S3'),
    costLine(
      'delivery.logs',
      'delivery side: logs and X-Ray',
      breakdown.logsApplication +
        breakdown.logsPlatform +
        breakdown.logsAccess +
        breakdown.logsEmf +
        breakdown.logStorage +
        breakdown.xray +
        breakdown.secretsManagerReads,
      'USD',
      1,
      'measured',
    ),
    item('dataTransferOut', 'data transfer out: webhook requests', true),
  ];
}

/** Billed 64 KB chunks of an event of `bytes` on EventBridge. */
export const eventBridgeChunks = (bytes: number): number =>
  Math.max(1, Math.ceil(bytes / PRICES.eventBridge.customEventChunkBytes));

/** PutEvents of each event once, per million events (custom events; events of AWS services are free). */
export const putEventsLine = (eventBytes: number, key = 'putEvents'): CostLine =>
  costLine(
    key,
    'EventBridge: PutEvents, custom events (64 KB chunks)',
    MILLION * eventBridgeChunks(eventBytes),
    'events',
    PRICES.eventBridge.perCustomEvent,
    'modelled',
  );

/**
 * (c) EventBridge API destinations: each event put once and delivered by one invocation per
 * attempt (API destinations do not batch). The pricing page lists no data transfer charge for
 * them beyond inter-region transfer, so none is priced.
 */
export function apiDestinationsOption(eventBytes: number, attemptsPerEvent = 1): PricedOption {
  return pricedOption('apiDestinations', 'EventBridge bus, rule -> API destination (webhook)', [
    putEventsLine(eventBytes, 'apiDestinationPutEvents'),
    costLine(
      'apiDestinationInvocations',
      'EventBridge: API destination invocations (one per event and attempt)',
      MILLION * attemptsPerEvent,
      'invocations',
      PRICES.eventBridge.perApiDestinationInvocation,
      'modelled',
    ),
  ]);
}

/** The forwarder a source replaces, as assumed: what it is and how long it runs. */
export const FORWARDER = {
  /** A small function: it only reads the batch and posts it. */
  memoryMb: 128,
  /**
   * Billed ms beyond the publish function's own time for the batch: the HTTPS round trip to the
   * HTTP API and its integration (assumed; the access log's `responseLatency` less
   * `integrationLatency` is a few ms, the TLS set-up on a warm instance's kept-alive connection
   * none).
   */
  overheadMs: 15,
};

/**
 * (e) A forwarder of the deployer's own: the same queue read by an event source mapping (the same
 * receives and deletes), a Lambda function invoked per batch that posts the batch as one publish
 * request to the HTTP API and waits for the answer (as long as the publish function takes, and
 * {@link FORWARDER}.overheadMs more), then the publish path as the source's. So: the source's
 * lines, and the forwarder's requests and duration, an HTTP API request per batch and its access
 * log line.
 */
export function forwarderLines(
  ingest: SourceIngestUsage,
  settings: BillSettings,
  forwarder = FORWARDER,
): CostLine[] {
  const scale = MILLION / ingest.events;
  const batches = ingest.publishInvocations * scale;
  const publishMs =
    ingest.publishInvocations === 0
      ? 0
      : (ingest.publishGbSeconds / ingest.publishInvocations / (FUNCTIONS.publish.memoryMb / 1024)) * 1000;
  const forwarderGbSeconds =
    batches * (Math.ceil(publishMs + forwarder.overheadMs) / 1000) * (forwarder.memoryMb / 1024);
  const accessLogBytes =
    settings.accessLogFormat === undefined
      ? 0
      : batches * logEventBytes([accessLogLine(settings.accessLogFormat)]);
  return [
    costLine(
      'forwarderRequests',
      'forwarder: Lambda requests (one per batch)',
      batches,
      'invocations',
      PRICES.lambda.perRequest,
      'assumed',
    ),
    costLine(
      'forwarderDuration',
      `forwarder: Lambda duration (${forwarder.memoryMb} MB, the publish time measured + ${forwarder.overheadMs} ms)`,
      forwarderGbSeconds,
      'GB-s',
      PRICES.lambda.perGbSecond,
      'assumed',
    ),
    costLine(
      'forwarderHttpApi',
      'forwarder: HTTP API publish requests (one per batch)',
      batches,
      'requests',
      PRICES.httpApi.perRequest,
      'assumed',
    ),
    costLine(
      'forwarderAccessLogs',
      'forwarder: HTTP API access log lines, ingested and kept',
      accessLogBytes / GB,
      'GB',
      logPricePerGb(settings),
      'assumed',
    ),
  ];
}

/** Receives a month of Lambda's pollers on one idle source queue, and their cost: fixed, not per event. */
export function idlePollingPerSourceQueue(): { receivesPerMonth: number; monthly: number } {
  const receivesPerMonth = IDLE_POLLERS_PER_QUEUE * ((30 * 24 * 3600) / LONG_POLL_SECONDS);
  return { receivesPerMonth, monthly: receivesPerMonth * PRICES.sqs.perRequest };
}

/** A measured source case priced every way. */
export interface SourceCaseCost {
  /** (a) or (b): the source, all in. */
  source: PricedOption;
  /** Its ingest side alone (with PutEvents for a bus). */
  ingest: PricedOption;
  /** Its delivery side alone (measured in the same run). */
  delivery: PricedOption;
  /** (c) the same events through API destinations. */
  apiDestinations: PricedOption;
  /** (e) the forwarder the source replaces, all in (its delivery side the source's). */
  forwarder: PricedOption;
}

/**
 * Prices a measured case: the source's ingest lines (with PutEvents when the events come from a
 * bus), the delivery side's lines, and the comparisons.
 */
export function priceSourceCase(input: {
  kind: 'sqs' | 'eventBridge';
  ingest: SourceIngestUsage;
  delivery: DeliveryBillUsage;
  settings: BillSettings;
  /** Bytes of one event as EventBridge would bill it (the event as put on the bus). */
  eventBytes: number;
  /** Delivery attempts per event the run made (1 when every webhook request was answered 2xx). */
  attemptsPerEvent: number;
}): SourceCaseCost {
  const { kind, ingest, delivery, settings, eventBytes } = input;
  const ingestSide = [
    ...(kind === 'eventBridge' ? [putEventsLine(eventBytes)] : []),
    ...ingestLines(ingest, settings).map((line) =>
      kind === 'eventBridge' && line.key === 'sqsProducer'
        ? { ...line, key: 'sqsRuleTarget', label: 'rule -> SQS target: SendMessage, one per event' }
        : line,
    ),
  ];
  const deliverySide = deliveryLines(delivery, settings);
  const label =
    kind === 'eventBridge'
      ? 'EventBridge bus source (rule -> SQS target -> publish function)'
      : 'SQS source (event source mapping -> publish function)';
  return {
    source: pricedOption(kind === 'eventBridge' ? 'busSource' : 'sqsSource', label, [
      ...ingestSide,
      ...deliverySide,
    ]),
    ingest: pricedOption('ingest', `${label}: up to the delivery queue`, ingestSide),
    delivery: pricedOption('delivery', 'delivery side (measured in the same run)', deliverySide),
    apiDestinations: apiDestinationsOption(eventBytes, input.attemptsPerEvent),
    forwarder: pricedOption('forwarder', 'a forwarder of your own (Lambda -> HTTP publish API)', [
      ...ingestSide,
      ...forwarderLines(ingest, settings),
      ...deliverySide,
    ]),
  };
}

/**
 * The cost model: AWS usage measured in a run, priced per million delivered events.
 */
import { FUNCTIONS, type FunctionKey } from '../shared/config/resources';
import { PRICES } from './prices';

export interface LambdaUsage {
  invocations: number;
  /** Sum over invocations of ceil(duration ms) x memory GB / 1000. */
  gbSeconds: number;
}

export interface Usage {
  /** Events the cost is spread over (delivered events). */
  events: number;
  httpRequests: number;
  lambda: Record<FunctionKey, LambdaUsage>;
  sqsBilledRequests: number;
  /**
   * Of `sqsBilledRequests`, those to FIFO queues (the ordered queue), billed at SQS's FIFO price
   * instead of the standard one (default 0).
   */
  sqsFifoBilledRequests?: number;
  dynamoWriteUnits: number;
  dynamoReadUnits: number;
  s3Puts: number;
  s3Gets: number;
  /** S3 DELETE requests (free; counted so the report shows them). */
  s3Deletes?: number;
  /** S3 Standard storage, in GB-months (bytes kept times the time they were kept). */
  s3GbMonths?: number;
}

export interface CostBreakdown {
  httpApi: number;
  lambdaRequests: number;
  lambdaDuration: number;
  sqs: number;
  dynamodb: number;
  s3: number;
  total: number;
}

/** Billed GB-seconds of one invocation: duration rounded up to 1 ms, at the function's memory. */
export const billedGbSeconds = (fn: FunctionKey, durationMs: number): number =>
  (Math.max(1, Math.ceil(durationMs)) / 1000) * (FUNCTIONS[fn].memoryMb / 1024);

export const emptyLambdaUsage = (): Record<FunctionKey, LambdaUsage> => ({
  publish: { invocations: 0, gbSeconds: 0 },
  management: { invocations: 0, gbSeconds: 0 },
  delivery: { invocations: 0, gbSeconds: 0 },
  deadLetter: { invocations: 0, gbSeconds: 0 },
});

/** SQS requests priced: standard ones at the standard price, FIFO ones at the FIFO price. */
export const sqsRequestsCost = (billed: number, fifo = 0): number => {
  const fifoBilled = Math.min(Math.max(0, fifo), Math.max(0, billed));
  return (Math.max(0, billed) - fifoBilled) * PRICES.sqs.perRequest + fifoBilled * PRICES.sqs.fifoPerRequest;
};

/** Dollars per million events for the measured usage. */
export function costPerMillionEvents(usage: Usage): CostBreakdown {
  if (usage.events <= 0) throw new RangeError('usage must cover at least one event');
  const scale = 1_000_000 / usage.events;
  const lambdas = Object.values(usage.lambda);
  const breakdown = {
    httpApi: usage.httpRequests * PRICES.httpApi.perRequest * scale,
    lambdaRequests: lambdas.reduce((n, l) => n + l.invocations, 0) * PRICES.lambda.perRequest * scale,
    lambdaDuration: lambdas.reduce((n, l) => n + l.gbSeconds, 0) * PRICES.lambda.perGbSecond * scale,
    sqs: sqsRequestsCost(usage.sqsBilledRequests, usage.sqsFifoBilledRequests) * scale,
    dynamodb:
      (usage.dynamoWriteUnits * PRICES.dynamodb.perWriteUnit +
        usage.dynamoReadUnits * PRICES.dynamodb.perReadUnit) *
      scale,
    s3:
      (usage.s3Puts * PRICES.s3.perPut +
        usage.s3Gets * PRICES.s3.perGet +
        (usage.s3Deletes ?? 0) * PRICES.s3.perDelete +
        (usage.s3GbMonths ?? 0) * PRICES.s3.storagePerGbMonth) *
      scale,
  };
  const total = Object.values(breakdown).reduce((n, v) => n + v, 0);
  return { ...breakdown, total };
}

/**
 * Bytes DynamoDB adds to every item it stores, for indexing (storage is billed on the item's size
 * and these; DynamoDB developer guide, "DynamoDB item sizes and formats").
 */
export const DYNAMO_STORAGE_OVERHEAD_BYTES = 100;

/** Hours in the cost model's month of 30 days. */
const MONTH_HOURS = 30 * 24;

/** What a de-duplication window costs per event, as the model takes it. */
export interface DeduplicationModel {
  /** Write units per published event: one conditional put per distinct id of a request. */
  writeUnitsPerEvent: number;
  /** An accepted-id item's size (`itemBytes`), before DynamoDB's per-item overhead. */
  itemBytes: number;
  /** Hours an item is stored: the window, and until time to live deletes it. */
  keptHours: number;
}

export interface DeduplicationCost {
  /** Write units, per million events. */
  writes: number;
  /** The items' storage and its point-in-time recovery (the table has it on), per million events. */
  storage: number;
  total: number;
  /** Bytes stored per item, overhead included. */
  storedBytesPerItem: number;
}

/**
 * What turning a topic's de-duplication window on adds per million published events: a write unit
 * per conditional put (billed whether its condition holds or not), and each accepted id stored
 * (with the table's point-in-time recovery) for as long as it is kept. Per event, so the same at
 * any rate; time to live deletes cost nothing.
 */
export function deduplicationPerMillion(model: DeduplicationModel): DeduplicationCost {
  const storedBytesPerItem = model.itemBytes + DYNAMO_STORAGE_OVERHEAD_BYTES;
  const gbMonths = (1_000_000 * storedBytesPerItem * (model.keptHours / MONTH_HOURS)) / 1e9;
  const writes = 1_000_000 * model.writeUnitsPerEvent * PRICES.dynamodb.perWriteUnit;
  const storage = gbMonths * (PRICES.dynamodb.storagePerGbMonth + PRICES.dynamodb.pitrPerGbMonth);
  return { writes, storage, total: writes + storage, storedBytesPerItem };
}

/*
 * The all-in bill: everything a run of the stack costs on AWS, per million delivered events, with
 * the per-event line items the service usage above leaves out (data transfer out, CloudWatch Logs,
 * X-Ray, Lambda INIT, Secrets Manager reads), and apart from them the fixed monthly costs of a
 * stack, a topic and a subscription. What a run measures comes in `BillUsage`; what is assumed
 * or read from the stack's settings comes in `BillSettings`, so a test can give both by hand.
 */

/**
 * Bytes on the wire around one HTTPS request that leaves AWS, beyond its request line, headers and
 * body: a TLS 1.3 record's framing (5 B header, 16 B tag, 1 B content type: 22 B), the TCP/IPv4
 * headers of its first segment (20 + 20 + 12 B of timestamps: 52 B), one ACK sent for the answer
 * (52 B), and a share of the connection's set-up (SYN, ACK, ClientHello, Finished: about 800 B,
 * over about 100 requests on a kept-alive connection: 8 B).
 */
export const WIRE_OVERHEAD_BYTES_PER_REQUEST = 22 + 52 + 52 + 8;
/** Each further TCP segment (1,448 B of payload) adds its 52 B of headers. */
export const TCP_SEGMENT_PAYLOAD_BYTES = 1448;
export const TCP_HEADER_BYTES = 52;
/** Each further TLS record (16 KiB of plaintext) adds its 22 B of framing. */
export const TLS_RECORD_BYTES = 16 * 1024;
export const TLS_RECORD_OVERHEAD_BYTES = 22;

/** Bytes billed as data transfer out for one request of `bytes` (request line, headers, body). */
export function wireBytes(bytes: number): number {
  const records = Math.max(1, Math.ceil(bytes / TLS_RECORD_BYTES));
  const segments = Math.max(
    1,
    Math.ceil((bytes + records * TLS_RECORD_OVERHEAD_BYTES) / TCP_SEGMENT_PAYLOAD_BYTES),
  );
  return (
    bytes +
    WIRE_OVERHEAD_BYTES_PER_REQUEST +
    (records - 1) * TLS_RECORD_OVERHEAD_BYTES +
    (segments - 1) * TCP_HEADER_BYTES
  );
}

/**
 * The HTTP API's answer to an accepted publish (status line and the headers API Gateway adds; the
 * body is empty), as it leaves AWS towards the publisher.
 */
export const PUBLISH_ANSWER =
  'HTTP/1.1 200 OK\r\nDate: Wed, 25 Nov 2026 00:00:00 GMT\r\nContent-Length: 0\r\nConnection: keep-alive\r\nApigw-Requestid: Vh3kXjZ5oAMEb2Q=\r\n\r\n';

/**
 * CloudWatch Logs counts 26 B of metadata with every log event besides its message; the bill
 * counts them as ingested (an upper bound: the pricing page bills "data ingested").
 */
export const LOG_EVENT_OVERHEAD_BYTES = 26;

export type SystemLogLevel = 'DEBUG' | 'INFO' | 'WARN';

const REQUEST_ID = '8f5e1d2c-3b4a-4c5d-9e6f-7a8b9c0d1e2f';
const TRACE_ID = 'Root=1-6744c2a0-3f1e2d3c4b5a69788796a5b4;Parent=53995c3f42cd8ad8;Sampled=1';
const TIME = '2026-11-25T00:00:00.000Z';

/**
 * Lambda's platform records in the JSON log format, as Lambda writes them to the function's log
 * group at system log level INFO (the level when none is set; DEBUG adds nothing per invocation
 * here, WARN and above drop them all): per invocation `platform.start`, `platform.runtimeDone`
 * and `platform.report` (the JSON forms of START, END and REPORT); per cold start
 * `platform.initStart`, `platform.initRuntimeDone` and `platform.initReport`. With active tracing
 * the start and report records carry the trace. Values are typical (a 36-character request id,
 * durations with two decimals).
 */
export function platformRecords(
  systemLogLevel: SystemLogLevel,
  tracing: boolean,
  memoryMb: number,
): { perInvocation: string[]; perColdStart: string[] } {
  if (systemLogLevel === 'WARN') return { perInvocation: [], perColdStart: [] };
  const trace = tracing ? { tracing: { type: 'X-Amzn-Trace-Id', value: TRACE_ID } } : {};
  const metrics = { durationMs: 123.45, billedDurationMs: 124, memorySizeMB: memoryMb, maxMemoryUsedMB: 98 };
  const records = (entries: Array<[string, Record<string, unknown>]>) =>
    entries.map(([type, record]) => JSON.stringify({ time: TIME, type, record }));
  return {
    perInvocation: records([
      ['platform.start', { requestId: REQUEST_ID, version: '$LATEST', ...trace }],
      [
        'platform.runtimeDone',
        {
          requestId: REQUEST_ID,
          status: 'success',
          ...trace,
          spans: [{ name: 'responseLatency', start: TIME, durationMs: 120.01 }],
          metrics: { durationMs: 123.45, producedBytes: 0 },
        },
      ],
      ['platform.report', { requestId: REQUEST_ID, metrics, ...trace, status: 'success' }],
    ]),
    perColdStart: records([
      [
        'platform.initStart',
        {
          initializationType: 'on-demand',
          phase: 'init',
          runtimeVersion: 'nodejs:24.v20',
          runtimeVersionArn:
            'arn:aws:lambda:us-east-1::runtime:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
          functionName: 'Gridwire-PipelineDeliveryFunction91F53BD5-AbCdEfGhIjKl',
          functionVersion: '$LATEST',
        },
      ],
      ['platform.initRuntimeDone', { initializationType: 'on-demand', phase: 'init', status: 'success' }],
      [
        'platform.initReport',
        {
          initializationType: 'on-demand',
          phase: 'init',
          status: 'success',
          metrics: { durationMs: 234.56 },
        },
      ],
    ]),
  };
}

/** Bytes ingested for log lines: each line's UTF-8 bytes and the per-event metadata. */
export const logEventBytes = (lines: readonly string[]): number =>
  lines.reduce((sum, line) => sum + Buffer.byteLength(line, 'utf8') + LOG_EVENT_OVERHEAD_BYTES, 0);

/**
 * An HTTP API access log line for a publish request: the stage's format (a JSON object of
 * `$context` variables) with each variable replaced by a typical value; `-` for one without a
 * value, as API Gateway writes it.
 */
export function accessLogLine(format: string, path = '/topics/orders/api/events'): string {
  const values: Record<string, string> = {
    '$context.requestId': 'Vh3kXjZ5oAMEb2Q=',
    '$context.requestTime': '25/Nov/2026:00:00:00 +0000',
    '$context.identity.sourceIp': '203.0.113.17',
    '$context.identity.userAgent':
      'azsdk-js-eventgrid/5.12.0 core-rest-pipeline/1.22.0 Node/24.11.1 OS/(arm64-Linux-6.1)',
    '$context.identity.caller': '-',
    '$context.httpMethod': 'POST',
    '$context.routeKey': 'POST /topics/{topic}/api/events',
    '$context.path': path,
    '$context.protocol': 'HTTP/1.1',
    '$context.status': '200',
    '$context.responseLength': '0',
    '$context.responseLatency': '18',
    '$context.integrationStatus': '200',
    '$context.integrationLatency': '16',
    '$context.integrationErrorMessage': '-',
    '$context.error.message': '-',
  };
  return format.replace(/\$context\.[A-Za-z.]+/g, (variable) => values[variable] ?? '-');
}

/**
 * Share of invocations X-Ray records under a sampling rule (the default: a reservoir of 1 a second,
 * then 5% of the rest), at `perSecond` invocations a second.
 */
export function sampledShare(
  perSecond: number,
  sampling: { reservoirPerSecond: number; rate: number },
): number {
  if (perSecond <= 0) return 0;
  const reservoir = Math.min(perSecond, sampling.reservoirPerSecond);
  return (reservoir + (perSecond - reservoir) * sampling.rate) / perSecond;
}

/** What a run measured, beyond the AWS requests of `Usage`. */
export interface BillUsage extends Usage {
  /** Seconds the usage covers (invocation rates, for X-Ray's reservoir). */
  seconds: number;
  /** Webhook requests sent (every attempt, answered 2xx or not). */
  webhookRequests: number;
  /** Their bytes as the endpoint received them: request line, headers and body. */
  webhookBytes: number;
  /** Publish requests answered (each answer leaves AWS towards the publisher). */
  publishAnswers: number;
  /** The JSON lines the functions' loggers wrote (application logs). */
  applicationLogLines: number;
  applicationLogBytes: number;
  /** EMF records the functions' metric flushes wrote, and their bytes. */
  emfRecords: number;
  emfBytes: number;
  /**
   * ReceiveMessage calls that returned nothing (included in `sqsBilledRequests`). Left out of the
   * per-event bill: on AWS, Lambda's pollers long-poll an idle queue whatever the traffic, which
   * `fixedMonthly` counts as a monthly cost, and under load their receives return messages.
   */
  sqsEmptyReceives?: number;
  /** Of `sqsEmptyReceives`, those from FIFO queues (included in `sqsFifoBilledRequests`). */
  sqsFifoEmptyReceives?: number;
  /**
   * CPU time each function's process used in the run, where it ran in a process of its own
   * (`bench/function-process.ts`): Lambda gives a function a share of a vCPU by its memory, so
   * this time takes longer there than the durations measured here on a whole core.
   */
  cpuMs?: Partial<Record<FunctionKey, number>>;
}

/**
 * Memory at which a Lambda function has one whole vCPU; below it, CPU in proportion (Lambda
 * developer guide, "Configuring function memory").
 */
export const LAMBDA_MB_PER_VCPU = 1769;

/**
 * Billed GB-seconds beyond a measured duration when `cpuMs` of it was CPU on a whole core: at
 * `memoryMb` below {@link LAMBDA_MB_PER_VCPU}, that CPU takes `1769 / memoryMb` times as long
 * (this machine's core is taken as a Lambda vCPU). The CPU time costs the same at any memory
 * below a vCPU; only the waiting costs less with less memory.
 */
export const cpuShareGbSeconds = (cpuMs: number, memoryMb: number): number =>
  (cpuMs / 1000) * Math.max(0, LAMBDA_MB_PER_VCPU / memoryMb - 1) * (memoryMb / 1024);

/** What the bill assumes or reads from the stack's settings rather than measures in the run. */
export interface BillSettings {
  /** Lambda system log level (INFO when the function sets none). */
  systemLogLevel: SystemLogLevel;
  /** Active tracing on the functions. */
  tracing: boolean;
  sampling: { reservoirPerSecond: number; rate: number };
  /** The HTTP API stage's access log format; undefined when access logging is off. */
  accessLogFormat: string | undefined;
  /** Cold starts per million events, for each function that ran. */
  coldStartsPerMillionEvents: number;
  /** INIT (module load and handler build) of each function, ms. */
  initMs: Record<FunctionKey, number>;
  /** Secrets read from Secrets Manager per cold start, by function (cached for the container's life). */
  secretReadsPerColdStart: Record<FunctionKey, number>;
  /** Months log events are kept (retention days / 30). */
  logRetentionMonths: number;
  /** Stored size over ingested size (CloudWatch bills compressed storage; 1 is the upper bound). */
  logStoredShare: number;
  /**
   * The publish front door (`publishIngress`): the HTTP API (billed per request, with access
   * logs) or the publish function's URL (no charge beyond the function's own; no access log).
   * Default: the HTTP API.
   */
  ingress?: 'httpApi' | 'functionUrl';
}

export interface BillBreakdown {
  httpApi: number;
  lambdaRequests: number;
  lambdaDuration: number;
  /** The run's CPU time stretched to Lambda's CPU share at the functions' memory (`cpuShareGbSeconds`). */
  lambdaCpuShare: number;
  lambdaInit: number;
  sqs: number;
  dynamodb: number;
  s3: number;
  dataTransferOut: number;
  logsApplication: number;
  logsPlatform: number;
  logsAccess: number;
  logsEmf: number;
  logStorage: number;
  xray: number;
  secretsManagerReads: number;
  total: number;
  totalExcludingDataTransferOut: number;
}

/** The quantities the bill prices, per million events (for the report and the tests). */
export interface BillQuantities {
  dataTransferOutBytes: number;
  applicationLogBytes: number;
  platformLogBytes: number;
  accessLogBytes: number;
  emfLogBytes: number;
  tracesRecorded: number;
  coldStarts: number;
  initGbSeconds: number;
  secretReads: number;
}

const GB = 1_000_000_000;

/** The all-in bill per million delivered events, and the quantities it prices. */
export function billPerMillionEvents(
  usage: BillUsage,
  settings: BillSettings,
): { breakdown: BillBreakdown; quantities: BillQuantities } {
  const service = costPerMillionEvents(usage);
  const scale = 1_000_000 / usage.events;
  const functions = Object.keys(usage.lambda) as FunctionKey[];
  const ran = functions.filter((fn) => usage.lambda[fn].invocations > 0);

  const dataTransferOutBytes =
    // Webhook requests at their mean size: the framing grows by segment, so a mean is close.
    (usage.webhookRequests === 0
      ? 0
      : usage.webhookRequests * wireBytes(usage.webhookBytes / usage.webhookRequests)) *
      scale +
    usage.publishAnswers * wireBytes(Buffer.byteLength(PUBLISH_ANSWER)) * scale;

  let platformBytes = 0;
  for (const fn of ran) {
    const records = platformRecords(settings.systemLogLevel, settings.tracing, FUNCTIONS[fn].memoryMb);
    platformBytes += usage.lambda[fn].invocations * scale * logEventBytes(records.perInvocation);
    platformBytes += settings.coldStartsPerMillionEvents * logEventBytes(records.perColdStart);
  }
  const viaFunctionUrl = settings.ingress === 'functionUrl';
  const accessLogBytes =
    settings.accessLogFormat === undefined || viaFunctionUrl
      ? 0
      : usage.httpRequests * scale * logEventBytes([accessLogLine(settings.accessLogFormat)]);
  const applicationLogBytes =
    (usage.applicationLogBytes + usage.applicationLogLines * LOG_EVENT_OVERHEAD_BYTES) * scale;
  const emfLogBytes = (usage.emfBytes + usage.emfRecords * LOG_EVENT_OVERHEAD_BYTES) * scale;

  const tracesRecorded = settings.tracing
    ? ran.reduce((sum, fn) => {
        const invocations = usage.lambda[fn].invocations;
        return sum + invocations * scale * sampledShare(invocations / usage.seconds, settings.sampling);
      }, 0)
    : 0;
  const coldStarts = settings.coldStartsPerMillionEvents * ran.length;
  const initGbSeconds = ran.reduce(
    (sum, fn) => sum + settings.coldStartsPerMillionEvents * billedGbSeconds(fn, settings.initMs[fn]),
    0,
  );
  const secretReads = ran.reduce(
    (sum, fn) => sum + settings.coldStartsPerMillionEvents * settings.secretReadsPerColdStart[fn],
    0,
  );

  const logs = PRICES.cloudWatch.logs;
  const ingestedGb = (applicationLogBytes + platformBytes + accessLogBytes + emfLogBytes) / GB;
  const lineItems = {
    httpApi: viaFunctionUrl ? 0 : service.httpApi,
    lambdaRequests: service.lambdaRequests,
    lambdaDuration: service.lambdaDuration,
    lambdaCpuShare:
      ran.reduce((sum, fn) => sum + cpuShareGbSeconds(usage.cpuMs?.[fn] ?? 0, FUNCTIONS[fn].memoryMb), 0) *
      PRICES.lambda.perGbSecond *
      scale,
    lambdaInit: initGbSeconds * PRICES.lambda.perGbSecond,
    sqs:
      sqsRequestsCost(
        usage.sqsBilledRequests - (usage.sqsEmptyReceives ?? 0),
        (usage.sqsFifoBilledRequests ?? 0) - (usage.sqsFifoEmptyReceives ?? 0),
      ) * scale,
    dynamodb: service.dynamodb,
    s3: service.s3,
    dataTransferOut: (dataTransferOutBytes / GB) * PRICES.dataTransfer.outToInternetPerGb,
    logsApplication: (applicationLogBytes / GB) * logs.ingestionPerGb,
    logsPlatform: (platformBytes / GB) * logs.ingestionPerGb,
    logsAccess: (accessLogBytes / GB) * logs.ingestionPerGb,
    logsEmf: (emfLogBytes / GB) * logs.ingestionPerGb,
    logStorage: ingestedGb * settings.logStoredShare * settings.logRetentionMonths * logs.storagePerGbMonth,
    xray: tracesRecorded * PRICES.xray.perTraceRecorded,
    secretsManagerReads: secretReads * PRICES.secretsManager.perApiCall,
  };
  const total = Object.values(lineItems).reduce((sum, value) => sum + value, 0);
  return {
    breakdown: { ...lineItems, total, totalExcludingDataTransferOut: total - lineItems.dataTransferOut },
    quantities: {
      dataTransferOutBytes,
      applicationLogBytes,
      platformLogBytes: platformBytes,
      accessLogBytes,
      emfLogBytes,
      tracesRecorded,
      coldStarts,
      initGbSeconds,
      secretReads,
    },
  };
}

/** Billed 64 KB chunks of an event of `bytes` (Event Grid and EventBridge both bill by 64 KB). */
const chunks = (bytes: number, chunkBytes: number) => Math.max(1, Math.ceil(bytes / chunkBytes));

/**
 * The same work at the comparison services' list prices, per million events: each event published
 * once and delivered once to one subscription (`attemptsPerEvent` delivery attempts).
 */
export function comparisonPerMillion(
  eventBytes: number,
  attemptsPerEvent = 1,
): { eventGrid: number; eventBridge: number } {
  const grid = PRICES.eventGrid;
  const bridge = PRICES.eventBridge;
  return {
    eventGrid: 1_000_000 * (chunks(eventBytes, 64 * 1024) + attemptsPerEvent) * grid.perOperation,
    eventBridge:
      1_000_000 *
      (chunks(eventBytes, bridge.customEventChunkBytes) * bridge.perCustomEvent +
        attemptsPerEvent * bridge.perApiDestinationInvocation),
  };
}

import { type BillSettings, type BillUsage, billPerMillionEvents, emptyLambdaUsage } from '../../bench/cost';
import { sourcesSection, unitPrice } from '../../bench/harness/sources-report';
import { PRICES } from '../../bench/prices';
import { sourceCases } from '../../bench/scenarios/sources';
import { sourcesResult } from '../../bench/scenarios/sources-figures';
import {
  apiDestinationsOption,
  FORWARDER,
  forwarderLines,
  idlePollingPerSourceQueue,
  ingestBillUsage,
  ingestLines,
  logPricePerGb,
  priceSourceCase,
  type SourceIngestUsage,
} from '../../bench/sources';
import { SOURCE_BATCH_SIZE } from '../../shared/config/sources';

const SETTINGS: BillSettings = {
  systemLogLevel: 'WARN',
  tracing: false,
  sampling: { reservoirPerSecond: 1, rate: 0.05 },
  accessLogFormat: '{"requestId":"$context.requestId","status":"$context.status"}',
  coldStartsPerMillionEvents: 10,
  initMs: { publish: 200, management: 0, delivery: 250, deadLetter: 0 },
  secretReadsPerColdStart: { publish: 1, management: 2, delivery: 0, deadLetter: 0 },
  logRetentionMonths: 1,
  logStoredShare: 1,
};

/** 1,000 one-event messages sent in batches of ten, received ten at a time. */
const INGEST: SourceIngestUsage = {
  events: 1000,
  messages: 1000,
  seconds: 4,
  producerRequests: 100,
  producerOperation: 'SendMessageBatch',
  receives: 105,
  deletes: 100,
  publishInvocations: 100,
  publishGbSeconds: 0.5,
  publishCpuMs: 500,
  publishSqsRequests: 1000,
  dynamoReadUnits: 4,
  dynamoWriteUnits: 0,
  emfRecords: 200,
  emfBytes: 66_000,
};

const DELIVERY: BillUsage = {
  events: 1000,
  httpRequests: 0,
  lambda: { ...emptyLambdaUsage(), delivery: { invocations: 130, gbSeconds: 20 } },
  sqsBilledRequests: 280,
  sqsEmptyReceives: 20,
  dynamoWriteUnits: 0,
  dynamoReadUnits: 2.5,
  s3Puts: 0,
  s3Gets: 0,
  seconds: 4,
  webhookRequests: 1000,
  webhookBytes: 630_000,
  publishAnswers: 0,
  applicationLogLines: 0,
  applicationLogBytes: 0,
  emfRecords: 130,
  emfBytes: 40_000,
  cpuMs: { delivery: 300 },
};

const byKey = (lines: ReturnType<typeof ingestLines>) => new Map(lines.map((line) => [line.key, line]));

describe('the cost of a source', () => {
  it('prices each ingest line as its quantity per million events times its unit price', () => {
    const lines = byKey(ingestLines(INGEST, SETTINGS));
    for (const line of lines.values()) expect(line.cost).toBeCloseTo(line.quantity * line.unitPrice, 12);
    const sqs = PRICES.sqs.perRequest;
    expect(lines.get('sqsProducer')).toMatchObject({ quantity: 100_000, unitPrice: sqs });
    expect(lines.get('sqsProducer')?.cost).toBeCloseTo(0.04, 10);
    expect(lines.get('sqsReceives')?.quantity).toBeCloseTo(105_000);
    expect(lines.get('sqsDeletes')?.cost).toBeCloseTo(0.04, 10);
    expect(lines.get('publishRequests')).toMatchObject({
      quantity: 100_000,
      unitPrice: PRICES.lambda.perRequest,
    });
    expect(lines.get('publishRequests')?.cost).toBeCloseTo(0.02, 10);
    expect(lines.get('publishDuration')?.quantity).toBeCloseTo(500);
    expect(lines.get('publishDuration')?.cost).toBeCloseTo(500 * PRICES.lambda.perGbSecond, 10);
    // 0.5 s of CPU: 1769 / 512 - 1 times as long at 512 MB's share, at 0.5 GB, per 1,000 events.
    expect(lines.get('publishCpuShare')?.quantity).toBeCloseTo(0.5 * (1769 / 512 - 1) * 0.5 * 1000, 6);
    // Ten cold starts of 200 ms at 512 MB.
    expect(lines.get('publishInit')?.quantity).toBeCloseTo(10 * 0.2 * 0.5, 10);
    expect(lines.get('sqsPublishSends')?.cost).toBeCloseTo(0.4, 10);
    expect(lines.get('dynamodbReads')?.cost).toBeCloseTo(4000 * PRICES.dynamodb.perReadUnit, 10);
    // WARN: no platform records; the EMF records and their 26 B of metadata each.
    expect(lines.get('logs')?.quantity).toBeCloseTo(((66_000 + 200 * 26) * 1000) / 1e9, 12);
    expect(lines.get('logs')?.unitPrice).toBeCloseTo(0.5 + 0.03, 10);
    expect(lines.get('xray')?.cost).toBe(0);
    expect(lines.get('secretsManagerReads')?.quantity).toBe(10);
  });

  it('adds up to what the bill model makes of the same usage', () => {
    const lines = ingestLines(INGEST, SETTINGS);
    const sum = lines.reduce((total, line) => total + line.cost, 0);
    const bill = billPerMillionEvents(ingestBillUsage(INGEST), { ...SETTINGS, ingress: 'functionUrl' });
    expect(sum).toBeCloseTo(bill.breakdown.total, 10);
    const sqsLines = lines.filter((line) => line.key.startsWith('sqs'));
    expect(sqsLines.reduce((total, line) => total + line.cost, 0)).toBeCloseTo(bill.breakdown.sqs, 10);
  });

  it('prices API destinations as PutEvents and one invocation per event and attempt', () => {
    const option = apiDestinationsOption(600);
    expect(option.lines.map((line) => line.cost)).toEqual([1.0, 0.2].map((v) => expect.closeTo(v, 10)));
    expect(option.total).toBeCloseTo(1.2, 10);
    expect(option.totalExcludingDataTransferOut).toBeCloseTo(1.2, 10);
    // A 100 KB event is two 64 KB chunks; two attempts per event are two invocations.
    expect(apiDestinationsOption(100 * 1024, 2).total).toBeCloseTo(2.0 + 0.4, 10);
  });

  it("prices a forwarder's requests, duration, HTTP API requests and access log lines per batch", () => {
    const lines = byKey(forwarderLines(INGEST, SETTINGS));
    // 100,000 batches per million events; each the publish function's 1,000 ms / 100 = 10 ms, and 15 ms more.
    expect(lines.get('forwarderRequests')?.cost).toBeCloseTo(0.02, 10);
    expect(lines.get('forwarderDuration')?.quantity).toBeCloseTo(
      100_000 * ((10 + FORWARDER.overheadMs) / 1000) * (128 / 1024),
      6,
    );
    expect(lines.get('forwarderHttpApi')?.cost).toBeCloseTo(0.1, 10);
    expect(lines.get('forwarderAccessLogs')?.unitPrice).toBeCloseTo(logPricePerGb(SETTINGS), 12);
    expect(lines.get('forwarderAccessLogs')?.quantity).toBeGreaterThan(0);
    for (const line of lines.values()) expect(line.cost).toBeCloseTo(line.quantity * line.unitPrice, 12);
  });

  it('totals a case all in: the ingest side, the delivery side, a bus its PutEvents too', () => {
    const input = {
      ingest: INGEST,
      delivery: DELIVERY,
      settings: SETTINGS,
      eventBytes: 500,
      attemptsPerEvent: 1,
    };
    const queue = priceSourceCase({ ...input, kind: 'sqs' });
    const bill = billPerMillionEvents(DELIVERY, { ...SETTINGS, ingress: 'functionUrl' }).breakdown;
    expect(queue.delivery.total).toBeCloseTo(bill.total, 10);
    expect(queue.delivery.totalExcludingDataTransferOut).toBeCloseTo(bill.totalExcludingDataTransferOut, 10);
    expect(queue.source.total).toBeCloseTo(queue.ingest.total + queue.delivery.total, 10);
    expect(queue.source.total - queue.source.totalExcludingDataTransferOut).toBeCloseTo(
      bill.dataTransferOut,
      10,
    );
    expect(queue.forwarder.total).toBeCloseTo(
      queue.source.total + forwarderLines(INGEST, SETTINGS).reduce((sum, line) => sum + line.cost, 0),
      10,
    );
    const bus = priceSourceCase({ ...input, kind: 'eventBridge' });
    expect(bus.source.total).toBeCloseTo(queue.source.total + 1.0, 10);
    expect(bus.source.lines.find((line) => line.key === 'sqsRuleTarget')?.label).toMatch(
      /rule -> SQS target/,
    );
    expect(bus.source.lines.some((line) => line.key === 'sqsProducer')).toBe(false);
    expect(queue.apiDestinations.total).toBeCloseTo(1.2, 10);
  });

  it('counts the idle polling of a source queue by the month', () => {
    const idle = idlePollingPerSourceQueue();
    expect(idle.receivesPerMonth).toBe(5 * ((30 * 24 * 3600) / 20));
    expect(idle.monthly).toBeCloseTo(0.2592, 10);
  });

  it('runs batches of the construct size, and as many events in a backlog as at the rate', () => {
    expect(SOURCE_BATCH_SIZE).toBe(10);
    for (const quick of [true, false]) {
      const totals = sourceCases(quick).map((c) => c.messages * c.eventsPerMessage);
      expect(new Set(totals).size).toBe(1);
    }
  });
});

describe('the Sources section', () => {
  const setUp = { settings: SETTINGS } as Parameters<typeof sourcesResult>[0];
  const cases = sourceCases(true);
  const results = cases.map((c) => ({
    case: c,
    ingest: INGEST,
    delivery: DELIVERY,
    cost: priceSourceCase({
      kind: c.kind,
      ingest: INGEST,
      delivery: DELIVERY,
      settings: SETTINGS,
      eventBytes: 500,
      attemptsPerEvent: 1,
    }),
    messagesPerInvocation: 10,
    billedMsPerInvocation: 10,
    messageBytes: 500,
    latencyMs: { p50: 200, p99: 400 },
    requests: { producer: {}, poller: {}, publish: {} },
  }));
  const scenario = JSON.parse(JSON.stringify(sourcesResult(setUp, results)));
  const bill = {
    name: 'bill',
    description: '',
    figures: [],
    details: {
      cases: [
        {
          case: { key: '1 per request at 500 events/s, 100 ms webhook, no batching window' },
          perMillion: { total: 2.59, totalExcludingDataTransferOut: 2.49 },
          perMillionViaFunctionUrl: { total: 1.42, totalExcludingDataTransferOut: 1.32 },
        },
      ],
    },
  };
  const section = sourcesSection([scenario, bill]);

  it('lists every line item of every option with its unit price', () => {
    const keys = new Set<string>();
    for (const r of results) {
      for (const option of [r.cost.source, r.cost.forwarder, r.cost.apiDestinations]) {
        for (const line of option.lines) {
          keys.add(line.key);
          expect(section).toContain(`| ${line.label}`);
          expect(section).toContain(unitPrice(line));
        }
      }
    }
    expect(keys.has('apiDestinationInvocations')).toBe(true);
    expect(keys.has('putEvents')).toBe(true);
    expect(keys.has('forwarderHttpApi')).toBe(true);
  });

  it('shows every option: (a), (b), (c), (d) from the bill, (e)', () => {
    for (const label of [
      '| (a) ',
      '| (b) ',
      '| (c) ',
      '| (d) HTTP publish API, 1 event a request',
      '| (e) ',
    ]) {
      expect(section).toContain(label);
    }
    expect(section).toContain('**2.49**');
    expect(sourcesSection([])).toMatch(/Not run/);
  });

  it('gives unit prices as the pricing pages do', () => {
    expect(unitPrice({ unit: 'requests', unitPrice: PRICES.sqs.perRequest })).toBe(
      '$0.40 per million requests',
    );
    expect(unitPrice({ unit: 'GB-s', unitPrice: PRICES.lambda.perGbSecond })).toBe('$0.0000133334 per GB-s');
    expect(unitPrice({ unit: 'GB', unitPrice: 0.53 })).toBe('$0.530 per GB');
  });
});

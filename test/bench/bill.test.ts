import {
  type BillSettings,
  type BillUsage,
  billPerMillionEvents,
  comparisonPerMillion,
  cpuShareGbSeconds,
  emptyLambdaUsage,
  platformRecords,
  sampledShare,
  wireBytes,
} from '../../bench/cost';
import { emfRecordsOf } from '../../bench/emf-size';
import { fixedMonthly } from '../../bench/fixed-monthly';
import { billSection } from '../../bench/harness/bill-report';
import { captureFunctionOutput } from '../../bench/log-capture';
import { staticEgressDetails } from '../../bench/scenarios/bill-figures';
import {
  interfaceEndpointBreakEven,
  natBytesPerWebhookRequest,
  sqsCallBytes,
  staticEgressMonthly,
  staticEgressPerMillion,
  WEBHOOK_ANSWER,
} from '../../bench/static-egress';

/**
 * One million events of about 1 KB, published 1 per request and delivered 1 per webhook request,
 * over 1,000 s (1,000 events a second): 1,000,000 publish invocations of 10 ms and 100,000
 * delivery invocations (10 jobs each) of 200 ms, both at 512 MB; 300,000 billed SQS requests.
 */
const usage = (): BillUsage => {
  const lambda = emptyLambdaUsage();
  // 1e6 x 0.010 s x 0.5 GB = 5,000 GB-s; 1e5 x 0.2 s x 0.5 GB = 10,000 GB-s.
  lambda.publish = { invocations: 1_000_000, gbSeconds: 5_000 };
  lambda.delivery = { invocations: 100_000, gbSeconds: 10_000 };
  return {
    events: 1_000_000,
    httpRequests: 1_000_000,
    lambda,
    sqsBilledRequests: 300_000,
    dynamoWriteUnits: 0,
    dynamoReadUnits: 0,
    s3Puts: 0,
    s3Gets: 0,
    seconds: 1000,
    webhookRequests: 1_000_000,
    // 1 KB of body and 376 B of request line and headers.
    webhookBytes: 1_000_000 * 1400,
    publishAnswers: 1_000_000,
    applicationLogLines: 1000,
    applicationLogBytes: 1000 * 200,
    emfRecords: 2_000_000,
    emfBytes: 2_000_000 * 400,
  };
};

const settings = (overrides: Partial<BillSettings> = {}): BillSettings => ({
  systemLogLevel: 'WARN',
  tracing: true,
  sampling: { reservoirPerSecond: 1, rate: 0.05 },
  // The access log line is `{"requestId":"Vh3kXjZ5oAMEb2Q=","status":"200"}`: 47 B.
  accessLogFormat: '{"requestId":"$context.requestId","status":"$context.status"}',
  coldStartsPerMillionEvents: 10,
  initMs: { publish: 400, management: 0, delivery: 500, deadLetter: 0 },
  secretReadsPerColdStart: { publish: 1, management: 2, delivery: 0, deadLetter: 0 },
  logRetentionMonths: 1,
  logStoredShare: 1,
  ...overrides,
});

describe('the all-in bill', () => {
  it('prices every line item of a million 1 KB events, 1 per request, as computed by hand', () => {
    const { breakdown: bill, quantities } = billPerMillionEvents(usage(), settings());
    // HTTP API: 1e6 requests x $1.00/M.
    expect(bill.httpApi).toBeCloseTo(1.0, 9);
    // Lambda requests: 1.1e6 x $0.20/M.
    expect(bill.lambdaRequests).toBeCloseTo(0.22, 9);
    // Lambda duration: 15,000 GB-s x $0.0000133334.
    expect(bill.lambdaDuration).toBeCloseTo(0.200001, 9);
    // SQS: 300,000 x $0.40/M.
    expect(bill.sqs).toBeCloseTo(0.12, 9);
    // Data transfer out: a 1,400 B webhook request fits one TLS record and one TCP segment, so it
    // is 1,400 + 134 = 1,534 B on the wire; the publish answer is 134 B + 134 B = 268 B.
    // (1.534e9 + 0.268e9) B = 1.802 GB x $0.09.
    expect(quantities.dataTransferOutBytes).toBeCloseTo(1.802e9, 0);
    expect(bill.dataTransferOut).toBeCloseTo(0.16218, 9);
    // Access logs: 1e6 lines x (47 + 26) B = 0.073 GB x $0.50.
    expect(bill.logsAccess).toBeCloseTo(0.0365, 9);
    // EMF: 2e6 records x (400 + 26) B = 0.852 GB x $0.50.
    expect(bill.logsEmf).toBeCloseTo(0.426, 9);
    // Application logs: 1,000 lines x (200 + 26) B = 0.000226 GB x $0.50.
    expect(bill.logsApplication).toBeCloseTo(0.000113, 9);
    // System log level WARN: no platform records.
    expect(bill.logsPlatform).toBe(0);
    // Storage: 0.925226 GB ingested, kept a month, x $0.03.
    expect(bill.logStorage).toBeCloseTo(0.02775678, 9);
    // X-Ray: publish at 1,000/s records (1 + 999 x 5%) / 1,000 = 5.095% = 50,950 traces;
    // delivery at 100/s records (1 + 99 x 5%) / 100 = 5.95% = 5,950; 56,900 x $5/M.
    expect(quantities.tracesRecorded).toBeCloseTo(56_900, 6);
    expect(bill.xray).toBeCloseTo(0.2845, 9);
    // INIT: 10 cold starts x (0.4 s + 0.5 s) x 0.5 GB = 4.5 GB-s x $0.0000133334.
    expect(quantities.initGbSeconds).toBeCloseTo(4.5, 9);
    expect(bill.lambdaInit).toBeCloseTo(0.0000600003, 12);
    // Secrets Manager: 10 publish cold starts x 1 read x $0.05/10,000.
    expect(bill.secretsManagerReads).toBeCloseTo(0.00005, 12);
    expect(bill.dynamodb).toBe(0);
    expect(bill.s3).toBe(0);
    // The sum of the above.
    expect(bill.total).toBeCloseTo(2.47716078, 7);
    expect(bill.totalExcludingDataTransferOut).toBeCloseTo(2.31498078, 7);
  });

  it("stretches the functions' CPU time to Lambda's CPU share at their memory, as computed by hand", () => {
    // No CPU time measured: nothing added.
    expect(billPerMillionEvents(usage(), settings()).breakdown.lambdaCpuShare).toBe(0);
    // 1 s of CPU at 512 MB takes 1,769 / 512 = 3.455 s there: 2.455 s more x 0.5 GB = 1.2275 GB-s.
    expect(cpuShareGbSeconds(1000, 512)).toBeCloseTo(1.227539, 6);
    // The same CPU second costs the same below a vCPU whatever the memory: 1.769 - M/1024 GB-s
    // beyond the whole-core second already in the measured duration.
    expect(cpuShareGbSeconds(1000, 256)).toBeCloseTo(1.477539, 6);
    expect(cpuShareGbSeconds(1000, 2048)).toBe(0);
    // 2,000 s of publish CPU and 500 s of delivery CPU, both at 512 MB: 2,500 x 1.227539 GB-s
    // = 3,068.85 GB-s x $0.0000133334, for the million events.
    const measured = { ...usage(), cpuMs: { publish: 2_000_000, delivery: 500_000 } };
    const { breakdown: bill } = billPerMillionEvents(measured, settings());
    expect(bill.lambdaCpuShare).toBeCloseTo(0.0409184, 6);
    expect(bill.total).toBeCloseTo(2.47716078 + 0.0409184, 6);
  });

  it("adds Lambda's platform records at system log level INFO", () => {
    const { breakdown: bill } = billPerMillionEvents(usage(), settings({ systemLogLevel: 'INFO' }));
    const records = platformRecords('INFO', true, 512);
    // As written with a trace: start 263 B, runtimeDone 410 B, report 358 B per invocation; initStart
    // 376 B, initRuntimeDone 147 B, initReport 174 B per cold start; each with 26 B of metadata.
    expect(records.perInvocation.map((line) => line.length)).toEqual([263, 410, 358]);
    expect(records.perColdStart.map((line) => line.length)).toEqual([376, 147, 174]);
    // 1.1e6 x (1,031 + 78) B + 20 cold starts x (697 + 78) B = 1,219,915,500 B x $0.50/GB.
    expect(bill.logsPlatform).toBeCloseTo(0.60995775, 9);
  });

  it('records no traces with tracing off, and every invocation under the reservoir', () => {
    expect(billPerMillionEvents(usage(), settings({ tracing: false })).breakdown.xray).toBe(0);
    expect(sampledShare(0.5, { reservoirPerSecond: 1, rate: 0.05 })).toBe(1);
    // 21/s: 1 + 20 x 5% = 2 of 21.
    expect(sampledShare(21, { reservoirPerSecond: 1, rate: 0.05 })).toBeCloseTo(2 / 21, 12);
  });

  it('adds TLS records and TCP segments as a request grows', () => {
    expect(wireBytes(1400)).toBe(1534);
    // 20,000 B: 2 TLS records (+22 B), 14 segments (+13 x 52 B): 20,000 + 134 + 22 + 676.
    expect(wireBytes(20_000)).toBe(20_832);
  });

  it('prices the fixed monthly costs of the stack, a topic and a subscription', () => {
    const fixed = fixedMonthly({
      alarmMetrics: 16,
      dashboards: 1,
      secrets: 3,
      customerManagedKeys: 1,
      metrics: { stack: 13, perTopic: 2, perSubscription: 3 },
    });
    // 16 x $0.10 + $3 + 3 x $0.40 + $1 + 13 x $0.30 = 1.60 + 3 + 1.20 + 1 + 3.90.
    expect(fixed.stack.secrets).toBeCloseTo(1.2, 9);
    expect(fixed.stack.sessionKeyReads).toBe(0);
    expect(fixed.stack.total).toBeCloseTo(10.7, 9);
    expect(fixed.perTopic).toBeCloseTo(0.6, 9);
    expect(fixed.perSubscription).toBeCloseTo(0.9, 9);
  });

  it('prices the function URL ingress without the HTTP API and its access logs, all else the same', () => {
    const viaApi = billPerMillionEvents(usage(), settings()).breakdown;
    const viaUrl = billPerMillionEvents(usage(), settings({ ingress: 'functionUrl' })).breakdown;
    expect(viaUrl.httpApi).toBe(0);
    expect(viaUrl.logsAccess).toBe(0);
    // $1.00 of HTTP API, $0.0365 of access logs and their storage (0.073 GB x $0.03 = $0.00219) less.
    expect(viaApi.total - viaUrl.total).toBeCloseTo(1.0 + 0.0365 + 0.00219, 9);
    expect(viaUrl.lambdaRequests).toBe(viaApi.lambdaRequests);
  });

  it("leaves the run's empty receives out of the per-event SQS line", () => {
    // 300,000 billed, 100,000 of them empty receives: 200,000 x $0.40/M.
    const bill = billPerMillionEvents({ ...usage(), sqsEmptyReceives: 100_000 }, settings()).breakdown;
    expect(bill.sqs).toBeCloseTo(0.08, 9);
  });

  it('prices the requests to FIFO queues at the FIFO price, their empty receives left out too', () => {
    // 300,000 billed, 100,000 of them empty receives (40,000 on FIFO queues); 150,000 to FIFO
    // queues: 110,000 x $0.50/M and 90,000 x $0.40/M.
    const bill = billPerMillionEvents(
      { ...usage(), sqsEmptyReceives: 100_000, sqsFifoBilledRequests: 150_000, sqsFifoEmptyReceives: 40_000 },
      settings(),
    ).breakdown;
    expect(bill.sqs).toBeCloseTo(0.055 + 0.036, 9);
  });

  it("prices Lambda's idle polling of the stack's queues by the month", () => {
    const fixed = fixedMonthly({
      alarmMetrics: 0,
      dashboards: 0,
      secrets: 0,
      customerManagedKeys: 0,
      metrics: { stack: 0, perTopic: 0, perSubscription: 0 },
      polledQueues: 3,
    });
    // 3 queues x 5 pollers x (2,592,000 s / 20 s) = 1,944,000 receives x $0.40/M.
    expect(fixed.stack.sqsIdlePolling).toBeCloseTo(0.7776, 9);
    expect(fixed.stack.total).toBeCloseTo(0.7776, 9);
  });

  it("prices the session key's reads by the month: one per cache period per instance serving the console", () => {
    const fixed = fixedMonthly({
      alarmMetrics: 0,
      dashboards: 0,
      secrets: 0,
      customerManagedKeys: 0,
      metrics: { stack: 0, perTopic: 0, perSubscription: 0 },
      sessionKeyUse: { instanceHoursPerMonth: 720, cacheSeconds: 60 },
    });
    // 720 h x 60 reads an hour = 43,200 GetSecretValue calls x $0.05/10,000.
    expect(fixed.stack.sessionKeyReads).toBeCloseTo(0.216, 9);
    expect(fixed.stack.total).toBeCloseTo(0.216, 9);
  });

  it('prices the backlog sweep by the month: an invocation, its duration and its index reads each minute', () => {
    const fixed = fixedMonthly({
      alarmMetrics: 0,
      dashboards: 0,
      secrets: 0,
      customerManagedKeys: 0,
      metrics: { stack: 0, perTopic: 0, perSubscription: 0 },
      backlogSweep: { everyMinutes: 1, billedMs: 30, memoryMb: 512, readUnits: 2 },
    });
    // 43,200 sweeps x ($0.20/M + 0.03 s x 0.5 GB x $0.0000133334 + 2 x $0.125/M).
    const perSweep = 0.2e-6 + 0.015 * 0.000_013_333_4 + 0.25e-6;
    expect(fixed.stack.backlogSweep).toBeCloseTo(43_200 * perSweep, 9);
    expect(fixed.stack.total).toBeCloseTo(43_200 * perSweep, 9);
  });

  it('prices the same work at Event Grid and EventBridge list prices', () => {
    // 1 KB: one publish operation and one delivery each ($0.60/M each); EventBridge $1.00 + $0.20.
    const small = comparisonPerMillion(1024);
    expect(small.eventGrid).toBeCloseTo(1.2, 9);
    expect(small.eventBridge).toBeCloseTo(1.2, 9);
    // 100 KB: two 64 KB chunks published.
    const large = comparisonPerMillion(100 * 1024);
    expect(large.eventGrid).toBeCloseTo(1.8, 9);
    expect(large.eventBridge).toBeCloseTo(2.2, 9);
  });
});

describe('what the functions write', () => {
  it('counts application log lines and EMF records on stdout and passes other output through', () => {
    const capture = captureFunctionOutput();
    let passed = '';
    const write = process.stdout.write;
    try {
      process.stdout.write('{"level":"INFO","message":"m","service":"gridwire"}\n');
      process.stdout.write('{"_aws":{"Timestamp":1},"service":"gridwire"}\n');
    } finally {
      const counted = capture.stop();
      expect(counted).toEqual({ applicationLines: 1, applicationBytes: 51, emfRecords: 1, emfBytes: 45 });
    }
    process.stdout.write = ((chunk: string) => {
      passed += chunk;
      return true;
    }) as typeof process.stdout.write;
    const again = captureFunctionOutput();
    process.stdout.write('{"other":true}\n');
    again.stop();
    process.stdout.write = write;
    expect(passed).toBe('{"other":true}\n');
  });

  it('rebuilds one EMF record per dimension set per flush, written by Powertools Metrics', () => {
    const one = emfRecordsOf([
      {
        name: 'PublishSuccessCount',
        dimensions: { Topic: 't' },
        unit: 'Count',
        sum: 1000,
        samples: 10,
        max: 100,
      },
    ]);
    expect(one.records).toBe(10);
    const twice = emfRecordsOf([
      {
        name: 'PublishSuccessCount',
        dimensions: { Topic: 't' },
        unit: 'Count',
        sum: 2000,
        samples: 20,
        max: 100,
      },
    ]);
    expect(twice.records).toBe(20);
    expect(twice.bytes).toBe(2 * one.bytes);
    // A record names the namespace, the dimensions and the metric: well over 100 B.
    expect(one.bytes / one.records).toBeGreaterThan(100);
  });

  it('rebuilds points kept across invocations as one flush per 99 durations or per interval', () => {
    // 990 publishes, each flushed alone: 990 flushes. Kept: the latencies fill 10 records.
    const publishes = [
      { name: 'PublishSuccessCount', dimensions: {}, unit: 'Count', sum: 990, samples: 990, max: 1 },
      {
        name: 'PublishSuccessLatencyInMs',
        dimensions: {},
        unit: 'Milliseconds',
        sum: 9900,
        samples: 990,
        max: 10,
      },
    ];
    const each = emfRecordsOf(publishes);
    expect(each.records).toBe(990);
    const instances = { publish: 2, delivery: 1 };
    const kept = emfRecordsOf(publishes, { everySeconds: 60, seconds: 60, instances });
    expect(kept.records).toBe(10);
    // A record of 99 latencies is larger than one of a single latency, not 99 times larger.
    expect(kept.bytes / kept.records).toBeGreaterThan(each.bytes / each.records);
    expect(kept.bytes).toBeLessThan(each.bytes / 20);
    // A quiet hour: 2 instances writing every 60 s, whatever the durations need.
    const quiet = emfRecordsOf(publishes, { everySeconds: 60, seconds: 3600, instances });
    expect(quiet.records).toBe(120);
  });
});

/** The NAT's data processing price, per GB. */
const PRICES_NAT_GB = 0.045;

describe('static egress addresses (egress.staticIps)', () => {
  it('bills each NAT gateway and its Elastic IP by the hour: $72.00 a month with two, $36.00 with one', () => {
    // 2 x 720 h x $0.045 = $64.80; 2 x 720 h x $0.005 = $7.20.
    expect(staticEgressMonthly(2)).toEqual({
      natGatewayHours: expect.closeTo(64.8, 9),
      publicIpv4Hours: expect.closeTo(7.2, 9),
      interfaceEndpointHours: 0,
      total: expect.closeTo(72, 9),
    });
    expect(staticEgressMonthly(1).total).toBeCloseTo(36, 9);
  });

  it('adds the interface endpoints by the hour in each zone when on: 2 x 2 zones x 720 h x $0.01', () => {
    expect(staticEgressMonthly(2, true).interfaceEndpointHours).toBeCloseTo(28.8, 9);
    expect(staticEgressMonthly(2, true).total).toBeCloseTo(100.8, 9);
    expect(staticEgressMonthly(1, true).interfaceEndpointHours).toBeCloseTo(14.4, 9);
  });

  it('processes each webhook request and its answer on the wire, and the server handshake share', () => {
    // A 1,400 B request: 1,534 B on the wire; the 125 B answer: 125 + 134 = 259 B; the server's
    // handshake: 4,000 B over 100 requests, 40 B.
    expect(Buffer.byteLength(WEBHOOK_ANSWER)).toBe(125);
    expect(natBytesPerWebhookRequest(1400)).toBe(wireBytes(1400) + 259 + 40);
    expect(natBytesPerWebhookRequest(1400)).toBe(1833);
  });

  it('prices the NAT data processing per million events: 1.833 GB x $0.045', () => {
    const { natBytes, natDataProcessing } = staticEgressPerMillion(usage());
    expect(natBytes).toBeCloseTo(1.833e9, 0);
    expect(natDataProcessing).toBeCloseTo(0.082485, 9);
    // Ten 1 KB events to a request of 10,400 B: the headers, answers and framing of nine requests
    // fewer (the bodies still cross).
    const batched = staticEgressPerMillion({
      events: 1_000_000,
      webhookRequests: 100_000,
      webhookBytes: 100_000 * 10_400,
    });
    expect(batched.natDataProcessing).toBeLessThan(natDataProcessing * 0.65);
    // No less than the bodies alone: 1e5 x 10,000 B = 1 GB.
    expect(batched.natDataProcessing).toBeGreaterThan(1 * PRICES_NAT_GB);
    expect(
      staticEgressPerMillion({ events: 10, webhookRequests: 0, webhookBytes: 0 }).natDataProcessing,
    ).toBe(0);
  });

  it('finds the interface endpoints pay off only past about 823 GB a month of SQS calls', () => {
    const even = interfaceEndpointBreakEven();
    // $28.80 a month / ($0.045 - $0.01) per GB.
    expect(even.monthly).toBeCloseTo(28.8, 9);
    expect(even.savedPerGb).toBeCloseTo(0.035, 9);
    expect(even.gbPerMonth).toBeCloseTo(822.857, 2);
    expect(even.sqsCallBytes).toBe(sqsCallBytes());
    expect(even.sqsCallBytes).toBeGreaterThan(3000);
    expect(even.sqsCallsPerMonth).toBeCloseTo((even.gbPerMonth * 1e9) / even.sqsCallBytes, 0);
    // Half the endpoint hours with one zone: half the volume.
    expect(interfaceEndpointBreakEven(1).gbPerMonth).toBeCloseTo(even.gbPerMonth / 2, 6);
  });
});

describe("the bill section's static egress", () => {
  const section = billSection([
    {
      name: 'bill',
      description: 'The bill.',
      figures: [],
      details: {
        cases: [
          {
            case: { key: 'one case' },
            perMillion: { total: 0.1 },
            perMillionStaticEgress: { natBytes: 1e9, natDataProcessing: 0.045 },
            comparisonPerMillion: { eventGrid: 1.2, eventBridge: 1.2 },
          },
        ],
        fixedMonthly: {
          stack: { total: 17 },
          perTopic: 0,
          perSubscription: 0,
          inputs: {
            alarms: 0,
            alarmMetrics: 0,
            dashboards: 0,
            secrets: 0,
            customerManagedKeys: 0,
            customMetrics: {
              happyPath: { stack: 0, perTopic: 0, perSubscription: 0 },
              atMost: { stack: 0, perTopic: 0, perSubscription: 0 },
            },
          },
        },
        staticEgress: staticEgressDetails(),
      },
    },
  ]);

  it('adds the NAT data processing per million events, and the all-in with it', () => {
    expect(section).toContain('| static egress: NAT data processing (`egress.staticIps`) | 0.0450 |');
    expect(section).toContain('| **all-in with static egress addresses** | 0.1450 |');
  });

  it('shows each monthly line with its arithmetic, and the stack without and with it', () => {
    expect(section).toContain(
      '| NAT gateway hours | 64.80 | 2 NAT gateways (one per zone) × 720 h × $0.045 |',
    );
    expect(section).toContain('| public IPv4 addresses | 7.20 | 2 Elastic IPs × 720 h × $0.005 |');
    expect(section).toContain('| **added, 2 NAT gateways (the default)** | **72.00** | |');
    expect(section).toContain('| added, `natGateways: 1` (one zone) | 36.00 | |');
    expect(section).toContain('| interface endpoints (`interfaceEndpoints: true`) | +28.80 |');
    expect(section).toContain('| stack without / with static egress | 17.00 / 89.00 | |');
    expect(section).toMatch(/only past 823 GB a month/);
  });
});

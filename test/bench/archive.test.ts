import { gzipSync } from 'node:zlib';
import {
  ARCHIVE_CASES,
  type ArchiveCheck,
  type ArchiveRun,
  ASSUMED_RECORD_OVERHEAD_BYTES,
  archiveBatchModel,
  archiveCaseResult,
  archivedExactlyOnce,
  checkArchived,
  lowestRateMeeting,
  measuredArchiveCost,
  modelledArchiveCost,
  priceArchive,
  segmentBytesOf,
  storageUsd,
} from '../../bench/archive';
import { archiveBreakdowns, archiveCaseFigures } from '../../bench/archive-figures';
import {
  type ArchiveCounts,
  ArchiveMeter,
  attributeBytes,
  chunksOf,
  emptyArchiveCounts,
  segmentEvents,
} from '../../bench/archive-meter';
import type { Figure } from '../../bench/harness/types';
import { runAsFunction } from '../../local/current-function';
import type { ArchivedRecord } from '../../shared/storage/archive';

describe('the archive meter', () => {
  it('counts a binary attribute by its name, type and raw bytes, as SQS sizes a message', () => {
    expect(
      attributeBytes({ 'gridwire-archive': { DataType: 'Binary', BinaryValue: new Uint8Array(1000) } }),
    ).toBe(16 + 6 + 1000);
    expect(attributeBytes({ a: { DataType: 'String', StringValue: 'xyz' } })).toBe(1 + 6 + 3);
    expect(attributeBytes(undefined)).toBe(0);
  });

  it('bills a request in 64 KiB chunks of bodies and attributes, and tells what the attributes add', () => {
    const copy = { 'gridwire-archive': { DataType: 'Binary', BinaryValue: new Uint8Array(10_000) } };
    // 60,000 B of bodies: one chunk; with 10,022 B of attributes: two.
    expect(chunksOf([{ body: 'x'.repeat(60_000), attributes: copy }])).toEqual({
      chunks: 2,
      addedByAttributes: 1,
      bodyBytes: 60_000,
      attributeBytes: 10_022,
    });
    // Under a chunk either way: nothing added.
    expect(chunksOf([{ body: 'x'.repeat(1000), attributes: copy }]).addedByAttributes).toBe(0);
    // An empty request is still one.
    expect(chunksOf([]).chunks).toBe(1);
  });

  it("counts a segment's events by its lines", () => {
    expect(segmentEvents(gzipSync('{"a":1}\n{"a":2}\n{"a":3}\n'))).toBe(3);
    expect(segmentEvents('not bytes')).toBe(0);
  });
});

describe("the archive meter's counts", () => {
  /** A client whose middleware stack the meter adds to, and a way to send through it. */
  const fakeClient = () => {
    let middleware: ((next: unknown, context: unknown) => (args: unknown) => Promise<unknown>) | undefined;
    const client = {
      middlewareStack: {
        add: (added: typeof middleware) => {
          middleware = added;
        },
        remove: () => true,
      },
    };
    const send = async (commandName: string, input: unknown, output: unknown) => {
      if (middleware === undefined) throw new Error('not attached');
      await middleware(async () => ({ output }), { commandName })({ input });
    };
    return { client, send };
  };
  const where = {
    archiveQueueUrl: 'q/archive',
    deliveryQueueUrl: 'q/delivery',
    archiveBucket: 'archive-bucket',
  };
  const copy = { 'gridwire-archive': { DataType: 'Binary', BinaryValue: new Uint8Array(70_000) } };

  it("tells the forwards from the publish function's own sends, and counts receives, deletes and segments", async () => {
    const sqs = fakeClient();
    const s3 = fakeClient();
    const meter = new ArchiveMeter(where);
    meter.attach({ sqs: sqs.client, s3: s3.client } as never);
    const batch = {
      QueueUrl: 'q/archive',
      Entries: [{ MessageBody: 'x'.repeat(100) }, { MessageBody: 'y' }],
    };
    await runAsFunction('delivery', () => sqs.send('SendMessageBatchCommand', batch, {}));
    await runAsFunction('publish', () => sqs.send('SendMessageBatchCommand', batch, {}));
    // The publish's own message, carrying a copy that takes it past a chunk.
    await runAsFunction('publish', () =>
      sqs.send(
        'SendMessageBatchCommand',
        { QueueUrl: 'q/delivery', Entries: [{ MessageBody: 'z'.repeat(1000), MessageAttributes: copy }] },
        {},
      ),
    );
    await sqs.send(
      'ReceiveMessageCommand',
      { QueueUrl: 'q/delivery' },
      { Messages: [{ Body: 'z'.repeat(1000), MessageAttributes: copy }] },
    );
    await sqs.send(
      'ReceiveMessageCommand',
      { QueueUrl: 'q/archive' },
      { Messages: [{ Body: 'x' }, { Body: 'y' }] },
    );
    await sqs.send('ReceiveMessageCommand', { QueueUrl: 'q/archive' }, { Messages: [] });
    await sqs.send('DeleteMessageBatchCommand', { QueueUrl: 'q/archive', Entries: [{}, {}] }, {});
    // Other queues are not the archive's.
    await sqs.send('SendMessageBatchCommand', { QueueUrl: 'q/retry', Entries: [{ MessageBody: 'r' }] }, {});
    await s3.send('PutObjectCommand', { Bucket: 'archive-bucket', Body: gzipSync('{"a":1}\n{"a":2}\n') }, {});
    await s3.send('PutObjectCommand', { Bucket: 'other-bucket', Body: gzipSync('{"a":1}\n') }, {});

    const counts = meter.take();
    expect(counts.forwards).toMatchObject({ requests: 1, messages: 2, bytes: 101, chunks: 1 });
    expect(counts.publishSends).toMatchObject({ requests: 1, messages: 2, bytes: 101, chunks: 1 });
    expect(counts.otherSends.requests).toBe(0);
    expect(counts.publishFunctionSends).toBe(2);
    expect(counts.receives).toEqual({ requests: 1, empty: 1, messages: 2, bytes: 2, chunks: 1 });
    expect(counts.deletes).toEqual({ requests: 1, messages: 2 });
    expect(counts.deliveryQueue).toEqual({
      sends: 1,
      receives: 1,
      messagesWithCopy: 1,
      copyBytes: 16 + 6 + 70_000,
      sendChunksAdded: 1,
      receiveChunksAdded: 1,
    });
    expect(counts.segments).toMatchObject({ puts: 1, events: 2, failed: 0 });
    expect(meter.take()).toEqual(emptyArchiveCounts());
  });

  it("counts a replay's reads of the archive bucket by the delivery function only", async () => {
    const s3 = fakeClient();
    const meter = new ArchiveMeter(where);
    meter.attach({ sqs: fakeClient().client, s3: s3.client } as never);
    await runAsFunction('delivery', async () => {
      await s3.send('ListObjectsV2Command', { Bucket: 'archive-bucket' }, {});
      await s3.send('GetObjectCommand', { Bucket: 'archive-bucket', Key: 's1' }, { ContentLength: 900 });
      await s3.send('ListObjectsV2Command', { Bucket: 'archive-bucket' }, {});
      // Another bucket's objects are not the archive's.
      await s3.send('GetObjectCommand', { Bucket: 'other-bucket', Key: 'x' }, { ContentLength: 5 });
    });
    // The benchmark's own read-back, and the sweep's listings, are not a replay's.
    await s3.send('GetObjectCommand', { Bucket: 'archive-bucket', Key: 's1' }, { ContentLength: 900 });
    await runAsFunction('deadLetter', () =>
      s3.send('ListObjectsV2Command', { Bucket: 'archive-bucket' }, {}),
    );
    const counts = meter.take();
    expect(counts.segmentReads).toEqual({ gets: 1, bytes: 900, listings: 2 });
    expect(counts.segments.puts).toBe(0);
  });
});

describe('the archive check', () => {
  const published = ['e1', 'e2', 'e3'];

  it('holds when every published id is found once and nothing else', () => {
    const check = checkArchived(published, ['e3', 'e1', 'e2'], { count: 2, bytes: 300 });
    expect(check).toEqual({
      published: 3,
      once: 3,
      repeated: 0,
      extraRecords: 0,
      missing: 0,
      unknown: 0,
      segments: 2,
      segmentBytes: 300,
    });
    expect(archivedExactlyOnce(check)).toBe(true);
  });

  it('fails on a repeat, a missing id, an id not published, or nothing published', () => {
    const repeat = checkArchived(published, ['e1', 'e2', 'e3', 'e2', 'e2'], { count: 1, bytes: 1 });
    expect(repeat).toMatchObject({ once: 2, repeated: 1, extraRecords: 2 });
    expect(archivedExactlyOnce(repeat)).toBe(false);
    const missing = checkArchived(published, ['e1', 'e2'], { count: 1, bytes: 1 });
    expect(missing.missing).toBe(1);
    expect(archivedExactlyOnce(missing)).toBe(false);
    const unknown = checkArchived(published, ['e1', 'e2', 'e3', 'other'], { count: 1, bytes: 1 });
    expect(unknown.unknown).toBe(1);
    expect(archivedExactlyOnce(unknown)).toBe(false);
    expect(archivedExactlyOnce(checkArchived([], [], { count: 0, bytes: 0 }))).toBe(false);
  });
});

/** A run of `events` events whose archive took `counts`. */
const runOf = (
  events: number,
  counts: Partial<ArchiveCounts>,
  overrides: Partial<ArchiveRun> = {},
): ArchiveRun => ({
  events,
  requests: events,
  failedRequests: 0,
  publishSeconds: 10,
  delivered: events,
  deliveryLatencies: Array.from({ length: 100 }, (_, i) => 10 + i),
  publishLatencies: Array.from({ length: 100 }, (_, i) => 1 + i / 10),
  counts: { ...emptyArchiveCounts(), ...counts },
  deadLetter: { invocations: 0, gbSeconds: 0 },
  publishGbSeconds: 0,
  deliveryGbSeconds: 0,
  ...overrides,
});

/**
 * 10,000 events at 100 a publish, one request in flight: a forward (one message, 5,000 B) per
 * publish, received one at a time, each written as a segment of its own.
 */
const hundreds = runOf(
  10_000,
  {
    publishFunctionSends: 100,
    forwards: { requests: 100, messages: 100, bytes: 500_000, chunks: 100, seconds: 1 },
    receives: { requests: 100, empty: 40, messages: 100, bytes: 500_000, chunks: 100 },
    deletes: { requests: 100, messages: 100 },
    deliveryQueue: {
      sends: 100,
      receives: 100,
      messagesWithCopy: 100,
      copyBytes: 370_000,
      sendChunksAdded: 2,
      receiveChunksAdded: 3,
    },
    segments: { puts: 100, bytes: 180_000, events: 10_000, failed: 0 },
  },
  { requests: 100, deadLetter: { invocations: 100, gbSeconds: 0.4 }, publishSeconds: 5 },
);

describe('the price of an archive', () => {
  it('prices requests per million events at list prices, as computed by hand', () => {
    const cost = priceArchive({
      forwardSends: 10_000,
      publishSends: 1000,
      receives: 10_000,
      deletes: 1000,
      deliveryChunksAdded: 500,
      puts: 50,
      invocations: 10,
      gbSeconds: 40,
    });
    // 22,500 SQS requests x $0.40 per million; 50 PUTs x $0.005 per thousand.
    expect(cost.sqs).toBeCloseTo(0.009, 9);
    expect(cost.s3).toBeCloseTo(0.00025, 9);
    expect(cost.lambdaRequests).toBeCloseTo(0.000002, 12);
    expect(cost.lambdaDuration).toBeCloseTo(40 * 0.0000133334, 12);
    expect(cost.total).toBeCloseTo(0.009 + 0.00025 + 0.000002 + 40 * 0.0000133334, 12);
  });

  it('prices what a run counted locally, per million events, empty receives left out', () => {
    const cost = measuredArchiveCost(hundreds);
    expect(cost.perMillion).toEqual({
      forwardSends: 10_000,
      publishSends: 0,
      receives: 10_000,
      deletes: 10_000,
      deliveryChunksAdded: 500,
      puts: 10_000,
      invocations: 10_000,
      gbSeconds: 40,
    });
    // 30,500 SQS requests and 10,000 PUTs.
    expect(cost.sqs).toBeCloseTo(0.0122, 9);
    expect(cost.s3).toBeCloseTo(0.05, 9);
  });
});

describe('the AWS model of the archive queue', () => {
  it("gathers one window's messages at the rate, up to 1,000 or the 6 MB payload", () => {
    // 1,000 events/s, a message per 100 events: 10 messages/s, 600 in 60 s.
    const byWindow = archiveBatchModel(1000, 0.01, 5000);
    expect(byWindow).toMatchObject({ messages: 600, limitedBy: 'window', events: 60_000 });
    expect(byWindow.spanSeconds).toBeCloseTo(59.9, 9);
    // 60,000 events: three segments of 20,000, and one batch in 60 or so crosses an hour.
    expect(byWindow.segments).toBeCloseTo(3 + 59.9 / 3600, 9);
    expect(byWindow.deletes).toBe(60);

    const bySize = archiveBatchModel(1000, 1, 300);
    expect(bySize).toMatchObject({ messages: 1000, limitedBy: 'batch size', events: 1000 });
    expect(bySize.segments).toBeCloseTo(1 + 0.999 / 3600, 9);
    expect(bySize.deletes).toBe(100);

    // 10,000 B a message and 1,024 B a record: 570 fit 6,291,456 B.
    const byPayload = archiveBatchModel(1000, 0.1, 10_000);
    expect(byPayload.messages).toBe(Math.floor(6_291_456 / (10_000 + ASSUMED_RECORD_OVERHEAD_BYTES)));
    expect(byPayload.limitedBy).toBe('payload');

    // A quiet topic: each message a batch of its own, a segment each.
    const quiet = archiveBatchModel(0.001, 1, 300);
    expect(quiet).toMatchObject({ messages: 1, events: 1, spanSeconds: 0, segments: 1, deletes: 1 });
  });

  it('keeps the sends, receives and chunks as measured and models invocations, deletes and PUTs', () => {
    // 2,000 events/s: 20 messages/s, 1,000 a batch (batch size), 100,000 events, 5 segments.
    const { cost, batch } = modelledArchiveCost(hundreds, 2000);
    expect(batch).toMatchObject({ messages: 1000, limitedBy: 'batch size', events: 100_000, deletes: 100 });
    expect(cost.perMillion.forwardSends).toBe(10_000);
    expect(cost.perMillion.receives).toBe(10_000);
    expect(cost.perMillion.deliveryChunksAdded).toBe(500);
    expect(cost.perMillion.invocations).toBe(10);
    expect(cost.perMillion.deletes).toBe(1000);
    expect(cost.perMillion.puts).toBeCloseTo(10 * (5 + 999 / 20 / 3600), 9);
    // The dead-letter function's time per event as measured (an upper bound).
    expect(cost.perMillion.gbSeconds).toBe(40);
    // 21,500 SQS requests, about 50 PUTs, 10 invocations and 40 GB-s.
    expect(cost.total).toBeCloseTo(
      21_500 * 0.4e-6 + 10 * (5 + 999 / 20 / 3600) * 0.005e-3 + 10 * 0.2e-6 + 40 * 0.0000133334,
      12,
    );
  });

  it('finds the lowest rate meeting a goal, and none when the requests per event alone cost more', () => {
    const rate = lowestRateMeeting(hundreds, 0.02);
    expect(rate).toBeDefined();
    const at = rate as number;
    expect(modelledArchiveCost(hundreds, at * 1.01).cost.total).toBeLessThanOrEqual(0.02);
    expect(modelledArchiveCost(hundreds, at * 0.9).cost.total).toBeGreaterThan(0.02);
    // A forward and a receive per event: $0.80 per million before anything else.
    const single = runOf(1000, {
      forwards: { requests: 1000, messages: 1000, bytes: 400_000, chunks: 1000, seconds: 1 },
      receives: { requests: 1000, empty: 0, messages: 1000, bytes: 400_000, chunks: 1000 },
    });
    expect(lowestRateMeeting(single, 0.1)).toBeUndefined();
  });
});

describe("the archive's storage", () => {
  it('prices GB-months of S3 Standard at $0.023, 30-day months', () => {
    expect(storageUsd(1e9, 30)).toBeCloseTo(0.023, 12);
    expect(storageUsd(1e9, 7)).toBeCloseTo((0.023 * 7) / 30, 12);
  });

  const records: ArchivedRecord[] = Array.from({ length: 50 }, (_, i) => ({
    publishedAt: 1_764_000_000_000 + i,
    publishId: `p-${i}`,
    index: 0,
    eventId: `e-${i}`,
    dataVersion: '1',
    event: `{"id":"e-${i}","eventType":"Bench.Event","subject":"bench/e-${i}","data":{"n":${i}}}`,
  }));

  it('gzips records in segments of a given size, as the writer writes them', () => {
    const one = segmentBytesOf(records, 1);
    expect(one).toMatchObject({ segments: 50, eventsPerSegment: 1 });
    const ten = segmentBytesOf(records, 10);
    expect(ten).toMatchObject({ segments: 5, eventsPerSegment: 10 });
    const all = segmentBytesOf(records, 1000);
    expect(all).toMatchObject({ segments: 1, eventsPerSegment: 50 });
    // Larger segments compress better.
    expect(all.bytes).toBeLessThan(ten.bytes);
    expect(ten.bytes).toBeLessThan(one.bytes);
  });
});

describe('the archive figures', () => {
  const byMetric = (figures: Figure[], part: string) => {
    const found = figures.find((figure) => figure.metric.includes(part));
    if (found === undefined) throw new Error(`no figure with ${part}`);
    return found;
  };
  const off = runOf(10_000, { publishFunctionSends: 50 }, { requests: 100 });
  const check: ArchiveCheck = checkArchived(['e1'], ['e1'], { count: 1, bytes: 100 });
  const paired = {
    on: Array.from({ length: 100 }, (_, i) => 2 + i / 10),
    off: Array.from({ length: 100 }, (_, i) => 1 + i / 10),
  };
  const [caseA, caseB] = ARCHIVE_CASES;
  if (caseA === undefined || caseB === undefined) throw new Error('no cases');

  it('judges the goal against the AWS model, and states the local figure apart', () => {
    const result = archiveCaseResult({ case: caseA, on: hundreds, off, check, records: [], paired });
    // 10,000 events in 5 s: 2,000 events/s.
    expect(result.rate).toBe(2000);
    const figures = archiveCaseFigures(result);
    const aws = byMetric(figures, 'AWS model (requests per event as measured');
    expect(aws.goal).toBe('<= 0.02 USD');
    expect(aws.met).toBe(result.modelled.total <= 0.02);
    expect(aws.met).toBe(true);
    expect(aws.metric).toContain("the run's 2,000 events/s: 1,000 messages, 100,000 events a batch");
    const local = byMetric(figures, 'measured locally (a batch is one receive');
    expect(local.goal).toBeUndefined();
    expect(local.value).toBe(String(Number(result.measured.total.toFixed(4))));
    expect(byMetric(figures, 'SQS requests (64 KiB chunks)').value).toBe(
      '10,000 / 0 / 10,000 / 10,000 / 500 / 10,000',
    );
    expect(byMetric(figures, 'exactly once').met).toBe(true);
    expect(byMetric(figures, 'lowest rate').value).toMatch(/events\/s$/);
    // The latency of the alternating requests, the sends the publish function made per request.
    expect(byMetric(figures, 'publish request p50 / p99').value).toBe('6.9 / 11.8 (5.9 / 10.8)');
    expect(byMetric(figures, 'publish request p50 / p99').metric).toContain(
      '100 requests to each topic alternating, one in flight',
    );
    expect(byMetric(figures, 'SQS send requests the publish function made').value).toBe('1 (0.5)');
  });

  it('fails the goal when the model costs more, and the check when an event is repeated', () => {
    const single = runOf(1000, {
      forwards: { requests: 1000, messages: 1000, bytes: 400_000, chunks: 1000, seconds: 1 },
      receives: { requests: 1000, empty: 0, messages: 1000, bytes: 400_000, chunks: 1000 },
    });
    const repeated = checkArchived(['e1'], ['e1', 'e1'], { count: 2, bytes: 100 });
    const figures = archiveCaseFigures(
      archiveCaseResult({ case: caseB, on: single, off, check: repeated, records: [], paired }),
    );
    expect(byMetric(figures, 'AWS model (requests per event').met).toBe(false);
    expect(byMetric(figures, 'exactly once')).toMatchObject({
      value: '0 / 1 (1 repeated, 0 missing, 0 not published)',
      met: false,
    });
    expect(byMetric(figures, 'lowest rate').value).toBe('none: the requests per event alone cost more');
  });

  it("gives the report's cost breakdowns of the AWS model, by item", () => {
    const breakdowns = archiveBreakdowns([
      archiveCaseResult({ case: caseA, on: hundreds, off, check, records: [], paired }),
    ]);
    const breakdown = breakdowns['what it adds, (a) 100 events a publish, AWS model'];
    expect(Object.keys(breakdown ?? {}).sort()).toEqual([
      'lambdaDuration',
      'lambdaRequests',
      's3',
      'sqs',
      'total',
    ]);
  });
});

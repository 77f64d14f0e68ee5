/**
 * The archive scenario's pure parts (`scenarios/archive.ts`): what a topic's archive adds per
 * million published events, priced from what a run counted (`archive-meter.ts`) as measured on
 * the local stack, and as modelled for AWS, where the archive queue's consumer gathers up to
 * 1,000 messages for 60 s instead of taking at most one receive's ten at once; the check that
 * every published event is in the archive exactly once; the storage of the segments. Its figures
 * are `archive-figures.ts`'s.
 */
import { gzipSync } from 'node:zlib';
import { MAX_SEGMENT_EVENTS } from '../shared/archive/writer';
import { LAMBDA_SQS_LIMITS, MAX_DELIVERY_BATCH_SIZE } from '../shared/config/event-source-mapping';
import { ARCHIVE_WINDOW_SECONDS, FUNCTIONS, QUEUES, SQS_LIMITS } from '../shared/config/resources';
import { type ArchivedRecord, byPublishOrder, recordLine } from '../shared/storage/archive';
import type { ArchiveCounts } from './archive-meter';
import type { LambdaUsage } from './cost';
import { PRICES } from './prices';

/** One of the scenario's loads. */
export interface ArchiveCase {
  /** `a`, `b`, ...: how the figures name it. */
  key: string;
  /** What it is, in a few words. */
  label: string;
  eventsPerRequest: number;
  /** Whether the topic's one subscription matches its events (else its filter matches none). */
  matching: boolean;
  /** Publish requests kept in flight at once. */
  inFlight: number;
  /** The archive's goal for this load, USD per million events (AWS model); none: reported only. */
  goalUsd?: number;
  /**
   * Publish requests a second: request `i` is sent `i / rate` s after the first (at once by a
   * free client when late); absent: each as soon as a client's last is answered.
   */
  requestsPerSecond?: number;
  /**
   * The delivery queue's batching window of the stack the case runs on, a stack of its own;
   * absent: the shared stack's (none).
   */
  deliveryWindow?: { seconds: number; batchSize: number };
}

/** The requests a second of case (e), and its delivery batching window. */
export const WINDOWED_RATE = 100;
export const WINDOWED_DELIVERY = { seconds: 1, batchSize: MAX_DELIVERY_BATCH_SIZE } as const;

/** The loads measured: the same publishes to a topic with an archive and to one without. */
export const ARCHIVE_CASES: readonly ArchiveCase[] = [
  {
    key: 'a',
    label: '100 events a publish',
    eventsPerRequest: 100,
    matching: true,
    inFlight: 1,
    goalUsd: 0.02,
  },
  { key: 'b', label: '1 event a publish', eventsPerRequest: 1, matching: true, inFlight: 1, goalUsd: 0.1 },
  {
    key: 'c',
    label: '1 event a publish, matching no subscription',
    eventsPerRequest: 1,
    matching: false,
    inFlight: 1,
  },
  // The forward is one send per delivery batch: how full the batches are depends on the load.
  {
    key: 'd',
    label: '1 event a publish, 20 requests in flight',
    eventsPerRequest: 1,
    matching: true,
    inFlight: 20,
  },
  // (b) on a stack whose delivery batches gather for a window: fuller batches, fewer forwards.
  {
    key: 'e',
    label: `1 event a publish, ${WINDOWED_RATE} requests/s, ${WINDOWED_DELIVERY.seconds} s delivery batching window`,
    eventsPerRequest: 1,
    matching: true,
    inFlight: 4,
    goalUsd: 0.1,
    requestsPerSecond: WINDOWED_RATE,
    deliveryWindow: WINDOWED_DELIVERY,
  },
];

/** What a published event's archive check found: each id of the run, in the archive's segments. */
export interface ArchiveCheck {
  published: number;
  /** Published ids found exactly once. */
  once: number;
  /** Published ids found more than once, and the extra records. */
  repeated: number;
  extraRecords: number;
  missing: number;
  /** Records of ids not published in the run. */
  unknown: number;
  /** Segments read back, and their gzipped bytes. */
  segments: number;
  segmentBytes: number;
}

/**
 * How many times each expected id was found: once, more than once (and the finds beyond the
 * first), never; and the finds of ids not expected.
 */
export interface IdTally {
  expected: number;
  once: number;
  repeated: number;
  extraRecords: number;
  missing: number;
  unknown: number;
}

/** Tallies `found` (every find, repeats included) against the ids `expected`. */
export function tallyIds(expected: readonly string[], found: readonly string[]): IdTally {
  const wanted = new Set(expected);
  const seen = new Map<string, number>();
  let unknown = 0;
  for (const id of found) {
    if (!wanted.has(id)) {
      unknown += 1;
      continue;
    }
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  let once = 0;
  let repeated = 0;
  let extraRecords = 0;
  for (const count of seen.values()) {
    if (count === 1) once += 1;
    else {
      repeated += 1;
      extraRecords += count - 1;
    }
  }
  return { expected: wanted.size, once, repeated, extraRecords, missing: wanted.size - seen.size, unknown };
}

/** Every expected id found once, and nothing else (and something was expected). */
export const foundExactlyOnce = (tally: IdTally): boolean =>
  tally.expected > 0 &&
  tally.once === tally.expected &&
  tally.repeated === 0 &&
  tally.missing === 0 &&
  tally.unknown === 0;

/** Compares the ids published with the ids the archive's segments hold (`found`, every record). */
export function checkArchived(
  published: readonly string[],
  found: readonly string[],
  segments: { count: number; bytes: number },
): ArchiveCheck {
  const { expected, ...tally } = tallyIds(published, found);
  return { published: expected, ...tally, segments: segments.count, segmentBytes: segments.bytes };
}

/** Every published event found, once each, and nothing else. */
export const archivedExactlyOnce = (check: ArchiveCheck): boolean =>
  foundExactlyOnce({ ...check, expected: check.published });

/** What one run counted: publishes to a topic with an archive, or the same to one without. */
export interface ArchiveRun {
  events: number;
  requests: number;
  /** Requests not answered 200. */
  failedRequests: number;
  /** Seconds the publishes took, first sent to last answered. */
  publishSeconds: number;
  /** Events the sink acknowledged. */
  delivered: number;
  /** Publish-to-webhook latency (ms) of each event of the run the sink acknowledged. */
  deliveryLatencies: number[];
  publishLatencies: number[];
  counts: ArchiveCounts;
  /** The dead-letter function's invocations and billed GB-seconds (the archive queue's consumer). */
  deadLetter: LambdaUsage;
  /**
   * The publish and delivery functions' billed GB-seconds (the delivery function's including the
   * traffic a windowed case keeps on sending after its publishes; the publish function's not).
   */
  publishGbSeconds: number;
  deliveryGbSeconds: number;
}

/** A cost per million events, by item (the report's keys), and its SQS part by kind of request. */
export interface ArchiveCost {
  sqs: number;
  s3: number;
  lambdaRequests: number;
  lambdaDuration: number;
  total: number;
  /** Requests (billed SQS requests: 64 KiB chunks) per million events, by kind. */
  perMillion: ArchiveRequests;
}

export interface ArchiveRequests {
  /** SendMessageBatch to the archive queue: the delivery function's forwards, the publish function's own. */
  forwardSends: number;
  publishSends: number;
  receives: number;
  deletes: number;
  /** Chunks the copies add to the delivery queue's sends and receives. */
  deliveryChunksAdded: number;
  puts: number;
  invocations: number;
  gbSeconds: number;
}

/** Prices requests per million events. */
export function priceArchive(requests: ArchiveRequests): ArchiveCost {
  const sqsRequests =
    requests.forwardSends +
    requests.publishSends +
    requests.receives +
    requests.deletes +
    requests.deliveryChunksAdded;
  const cost = {
    sqs: sqsRequests * PRICES.sqs.perRequest,
    s3: requests.puts * PRICES.s3.perPut,
    lambdaRequests: requests.invocations * PRICES.lambda.perRequest,
    lambdaDuration: requests.gbSeconds * PRICES.lambda.perGbSecond,
  };
  return {
    ...cost,
    total: cost.sqs + cost.s3 + cost.lambdaRequests + cost.lambdaDuration,
    perMillion: requests,
  };
}

/** Archive messages sent in a run (forwards, the publish function's own, any other). */
const archiveMessages = (counts: ArchiveCounts): number =>
  counts.forwards.messages + counts.publishSends.messages + counts.otherSends.messages;

/**
 * What the archive added in a run, as counted on the local stack (its archive consumer takes one
 * receive, ten messages at most, at once), per million events: billed SQS requests (64 KiB
 * chunks) of the archive queue's sends, its receives that returned messages (the empty ones are
 * the pollers' long polls, which the queue's consumer makes whether a topic archives or not) and
 * its deletes, the chunks the copies add to the delivery queue's messages, the segments' PUTs,
 * and the dead-letter function's invocations and duration.
 */
export function measuredArchiveCost(run: ArchiveRun): ArchiveCost {
  const scale = 1_000_000 / Math.max(1, run.events);
  const { counts } = run;
  return priceArchive({
    forwardSends: (counts.forwards.chunks + counts.otherSends.chunks) * scale,
    publishSends: counts.publishSends.chunks * scale,
    receives: counts.receives.chunks * scale,
    deletes: counts.deletes.requests * scale,
    deliveryChunksAdded:
      (counts.deliveryQueue.sendChunksAdded + counts.deliveryQueue.receiveChunksAdded) * scale,
    puts: counts.segments.puts * scale,
    invocations: run.deadLetter.invocations * scale,
    gbSeconds: run.deadLetter.gbSeconds * scale,
  });
}

/**
 * Bytes a record of an SQS event adds to a Lambda invocation's payload beyond its body and
 * attributes (message id, receipt handle, system attributes, digests, the queue's ARN): assumed.
 */
export const ASSUMED_RECORD_OVERHEAD_BYTES = 1024;

/** How the archive queue's batches are modelled on AWS, at a publish rate. */
export interface ArchiveBatchModel {
  /** Events per second to the topic. */
  rate: number;
  /** Archive messages per second. */
  messageRate: number;
  /** Messages per invocation, and what bounds them. */
  messages: number;
  limitedBy: 'window' | 'batch size' | 'payload';
  /** Seconds the batch's messages span (at most the window). */
  spanSeconds: number;
  events: number;
  /** Segments one invocation writes: per 20,000 events, and the share of batches crossing an hour. */
  segments: number;
  /** DeleteMessageBatch requests (ten messages each). */
  deletes: number;
}

/**
 * The archive queue's batches on AWS at `rate` events/s: Lambda's pollers gather messages for
 * the queue's window (60 s), up to its batch size (1,000) or the 6 MB an invocation's payload may
 * take (each message's bytes as measured, plus {@link ASSUMED_RECORD_OVERHEAD_BYTES}); the
 * window's messages are assumed to make one batch (Lambda may split them between its pollers: a
 * segment and an invocation more each). One topic: a segment per hour's events, per 20,000.
 */
export function archiveBatchModel(
  rate: number,
  messagesPerEvent: number,
  bytesPerMessage: number,
): ArchiveBatchModel {
  const consumer = QUEUES.archive.consumer;
  const messageRate = rate * messagesPerEvent;
  const byWindow = messageRate * ARCHIVE_WINDOW_SECONDS;
  const byPayload = Math.floor(
    LAMBDA_SQS_LIMITS.maxPayloadBytes / (bytesPerMessage + ASSUMED_RECORD_OVERHEAD_BYTES),
  );
  const bound = Math.min(byWindow, consumer.batchSize, byPayload);
  const messages = Math.max(1, bound);
  const limitedBy =
    bound === byWindow || messages === 1 ? 'window' : bound === byPayload ? 'payload' : 'batch size';
  // From the batch's first message to its last.
  const spanSeconds = Math.min(
    ARCHIVE_WINDOW_SECONDS,
    messageRate > 0 ? Math.max(0, messages - 1) / messageRate : 0,
  );
  const events = messages / Math.max(messagesPerEvent, Number.MIN_VALUE);
  return {
    rate,
    messageRate,
    messages,
    limitedBy,
    spanSeconds,
    events,
    segments: Math.ceil(events / MAX_SEGMENT_EVENTS) + spanSeconds / 3600,
    deletes: Math.ceil(messages / SQS_LIMITS.maxBatchEntries),
  };
}

/**
 * What the archive would add on AWS per million events, from a run's counts: the sends (forwards
 * and the publish function's own) and the chunks the copies add to the delivery queue's messages
 * as measured (the delivery queue's window, none or the case's, is the same on both, and so are
 * its batches at the same rate); the archive queue's receives as measured per message (a receive
 * returns what the queue holds, window or not); its invocations, deletes and segment PUTs from
 * {@link archiveBatchModel} at `rate`; the dead-letter function's billed time per event as
 * measured (an upper bound: locally every invocation's fixed time is shared by ten messages at
 * most).
 */
export function modelledArchiveCost(
  run: ArchiveRun,
  rate: number,
): { cost: ArchiveCost; batch: ArchiveBatchModel } {
  const measured = measuredArchiveCost(run);
  const messages = archiveMessages(run.counts);
  const sentBytes = run.counts.forwards.bytes + run.counts.publishSends.bytes + run.counts.otherSends.bytes;
  const messagesPerEvent = messages / Math.max(1, run.events);
  const batch = archiveBatchModel(rate, messagesPerEvent, messages === 0 ? 0 : sentBytes / messages);
  const invocations = messages === 0 ? 0 : 1_000_000 / batch.events;
  const cost = priceArchive({
    ...measured.perMillion,
    deletes: invocations * batch.deletes,
    puts: invocations * batch.segments,
    invocations,
  });
  return { cost, batch };
}

/**
 * The lowest publish rate (events/s, to two significant digits) from which the AWS model meets
 * `goal` at every higher rate, holding the run's requests per event fixed; `undefined` when it
 * does not meet it even at a million events/s (the per-event requests alone cost more).
 */
export function lowestRateMeeting(run: ArchiveRun, goal: number): number | undefined {
  const meets = (rate: number) => modelledArchiveCost(run, rate).cost.total <= goal;
  let rate = 1_000_000;
  if (!meets(rate)) return undefined;
  while (rate > 0.01 && meets(rate / 1.02)) rate /= 1.02;
  return Number(rate.toPrecision(2));
}

/** Hours in the month storage is priced by (30 days, as the cost model's). */
const MONTH_HOURS = 30 * 24;

/** S3 Standard storage of `bytes` kept `days` days, USD (GB of 10^9 bytes, 30-day months). */
export const storageUsd = (bytes: number, days: number): number =>
  (bytes / 1e9) * ((days * 24) / MONTH_HOURS) * PRICES.s3.storagePerGbMonth;

/**
 * The gzipped bytes of `records` written as the archive's writer writes them (`recordLine`, in
 * publish order, a segment gzipped whole), in segments of `eventsPerSegment` events (at most the
 * writer's {@link MAX_SEGMENT_EVENTS}): the size the same events take in larger segments.
 */
export function segmentBytesOf(
  records: readonly ArchivedRecord[],
  eventsPerSegment: number,
): { segments: number; bytes: number; eventsPerSegment: number } {
  const size = Math.max(1, Math.min(MAX_SEGMENT_EVENTS, Math.round(eventsPerSegment)));
  const sorted = [...records].sort(byPublishOrder);
  let bytes = 0;
  let segments = 0;
  for (let start = 0; start < sorted.length; start += size) {
    const lines = sorted.slice(start, start + size).map(recordLine);
    bytes += gzipSync(`${lines.join('\n')}\n`).byteLength;
    segments += 1;
  }
  return { segments, bytes, eventsPerSegment: Math.min(size, sorted.length) };
}

/** The retentions storage is priced at. */
export const STORAGE_DAYS = [7, 30] as const;

/** Events per second the run published (first request sent to last answered). */
export const runRate = (run: ArchiveRun): number => run.events / Math.max(0.001, run.publishSeconds);

/** The function duration the archive added, measured locally, USD per million events. */
export function addedDurationPerMillion(on: ArchiveRun, off: ArchiveRun) {
  const perEvent = (gbSeconds: number, run: ArchiveRun) => gbSeconds / Math.max(1, run.events);
  const publish =
    (perEvent(on.publishGbSeconds, on) - perEvent(off.publishGbSeconds, off)) *
    1_000_000 *
    PRICES.lambda.perGbSecond;
  const forwardGbSeconds = on.counts.forwards.seconds * (FUNCTIONS.delivery.memoryMb / 1024);
  const forwards = perEvent(forwardGbSeconds, on) * 1_000_000 * PRICES.lambda.perGbSecond;
  return { publish, forwards };
}

/** Everything a case's figures are made of. */
export interface ArchiveCaseResult {
  case: ArchiveCase;
  on: ArchiveRun;
  off: ArchiveRun;
  check: ArchiveCheck;
  rate: number;
  measured: ArchiveCost;
  modelled: ArchiveCost;
  batch: ArchiveBatchModel;
  /** The lowest rate meeting the goal in the model (when the case has a goal and no window). */
  goalRate?: number | undefined;
  /**
   * Bytes stored per million events: the segments the run wrote (measured), and the run's
   * records gzipped in segments of a modelled AWS batch's events (as many as the run has).
   */
  stored: { measured: number; modelled: number; modelledSegmentEvents: number };
  /** Their S3 Standard storage kept each of {@link STORAGE_DAYS}, USD per million events a month. */
  storage: Array<{ days: number; measured: number; modelled: number }>;
  added: { publish: number; forwards: number };
  /** Publish latencies (ms) of the requests to the two topics alternating. */
  paired: { on: number[]; off: number[] };
}

/** What a case's result is made of: its runs, the archive read back and the latency phase. */
export interface ArchiveCaseInput {
  case: ArchiveCase;
  on: ArchiveRun;
  off: ArchiveRun;
  check: ArchiveCheck;
  /** The run's records as read back from the archive. */
  records: readonly ArchivedRecord[];
  paired: { on: number[]; off: number[] };
}

/** A case's costs, model and checks, from its two runs and the archive read back. */
export function archiveCaseResult(input: ArchiveCaseInput): ArchiveCaseResult {
  const { case: archiveCase, on, off, check, records, paired } = input;
  const rate = runRate(on);
  const { cost: modelled, batch } = modelledArchiveCost(on, rate);
  const perMillion = (bytes: number) => (bytes / Math.max(1, on.events)) * 1_000_000;
  const repacked = segmentBytesOf(records, batch.events);
  const stored = {
    measured: perMillion(on.counts.segments.bytes),
    modelled: perMillion(repacked.bytes),
    modelledSegmentEvents: repacked.eventsPerSegment,
  };
  return {
    case: archiveCase,
    on,
    off,
    check,
    rate,
    measured: measuredArchiveCost(on),
    modelled,
    batch,
    // With a window the forwards per event follow the rate (its batches fill with it): not held fixed.
    ...(archiveCase.goalUsd === undefined || archiveCase.deliveryWindow !== undefined
      ? {}
      : { goalRate: lowestRateMeeting(on, archiveCase.goalUsd) }),
    stored,
    storage: STORAGE_DAYS.map((days) => ({
      days,
      measured: storageUsd(stored.measured, days),
      modelled: storageUsd(stored.modelled, days),
    })),
    added: addedDurationPerMillion(on, off),
    paired,
  };
}

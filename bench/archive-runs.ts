/**
 * The archive scenario's runs (`scenarios/archive.ts`): a case's publishes to a topic without an
 * archive and to one with, each waited for at the sink and in the archive's segments, what the
 * meter and the stack counted, the archive read back, and the publish latency of requests to
 * the two topics alternating. A case with a delivery batching window runs on a stack of its own
 * (`measureOnOwnStack`), started as the bill starts its stacks with a window.
 */
import { LAMBDA_RECEIVE_WAIT_SECONDS } from '../local/poller';
import { ArchiveBucket, type ArchivedRecord } from '../shared/storage/archive';
import {
  type ArchiveCase,
  type ArchiveCaseResult,
  type ArchiveRun,
  archiveCaseResult,
  checkArchived,
} from './archive';
import { ArchiveMeter } from './archive-meter';
import {
  type Pace,
  type PublishRequest,
  publishAll,
  requestIds,
  sleep,
  startTrailing,
  type TrailingTopic,
} from './archive-publish';
import type { LambdaUsage } from './cost';
import { type LiveStack, liveStack } from './harness/live-stack';
import { log } from './harness/log';
import type { Sink } from './load';
import type { ArchivedEvents } from './replay-rate';
import { LAMBDA_INITIAL_POLLERS } from './scenarios/bill-setup';

/** The retention the archived topics are given (it does not change what is written). */
export const RETENTION_DAYS = 7;
/** Requests to each topic in a case's latency phase, at most. */
export const PAIRED_REQUESTS = 1000;

/**
 * What a case runs on: the stack, the sink, the meter on the stack's clients, and where traffic
 * goes on after the publishes of a case with a delivery batching window.
 */
export interface ArchiveRig {
  live: LiveStack;
  sink: Sink;
  meter: ArchiveMeter;
  trailing?: TrailingTopic;
}

/** A meter on `live`'s archive queue, delivery queue and archive bucket, counting from now. */
export function meterOn(live: LiveStack): ArchiveMeter {
  const meter = new ArchiveMeter({
    archiveQueueUrl: live.stack.resources.queueUrls.archive,
    deliveryQueueUrl: live.stack.resources.queueUrls.delivery,
    archiveBucket: live.stack.resources.archiveBucketName,
  });
  meter.attach(live.stack.clients);
  return meter;
}

/** How a case's requests are sent. */
const paceOf = (archiveCase: ArchiveCase): Pace => ({
  inFlight: archiveCase.inFlight,
  requestsPerSecond: archiveCase.requestsPerSecond,
});

/** A topic (with an archive or not) and its one subscription on the sink; its key and creation time. */
async function topicOnSink(
  live: LiveStack,
  topic: string,
  sinkUrl: string,
  archived: boolean,
  matching: boolean,
) {
  const created = (await live.call('PUT', `/admin/topics/${topic}`, {
    properties: {
      inputSchema: 'EventGridSchema',
      ...(archived ? { archive: { retentionInDays: RETENTION_DAYS } } : {}),
    },
  })) as { systemData: { createdAt: string } };
  await live.call('PUT', `/admin/topics/${topic}/eventSubscriptions/sink`, {
    properties: {
      destination: { endpointType: 'WebHook', properties: { endpointUrl: sinkUrl } },
      // Matching none of the events: the publish then sends no message its copy could ride on.
      ...(matching ? {} : { filter: { includedEventTypes: ['Bench.NeverPublished'] } }),
    },
  });
  const keys = (await live.call('POST', `/admin/topics/${topic}/listKeys`)) as { key1: string };
  return { key: keys.key1, createdAt: created.systemData.createdAt };
}

/**
 * Waits until the sink has `delivered` more events and the archive's segments `archived` (as the
 * meter counts them), then a second more (a repeat, or a late delete, would come in it), and one
 * more for the pollers' last deletes; at most 90 s. Stops the phase's trailing traffic once they
 * are there (or at the end). Answers the events the sink acknowledged (those carrying their
 * publish time) and their publish-to-webhook latencies.
 */
async function settle(
  rig: ArchiveRig,
  label: string,
  delivered: number,
  archived: number,
  stopTrailing: () => Promise<void> = async () => {},
) {
  const { sink, meter } = rig;
  const latencies: number[] = [];
  const take = async () => {
    for (const ms of (await sink.take()).latencies) latencies.push(ms);
  };
  const deadline = performance.now() + 90_000;
  let quietUntil = Number.POSITIVE_INFINITY;
  let lastLog = 0;
  while (performance.now() < Math.min(deadline, quietUntil)) {
    await sleep(200);
    await take();
    const written = meter.peekSegmentEvents();
    if (performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      const of = (n: number, total: number) =>
        `${n.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`;
      log(`  ${label}: delivered ${of(latencies.length, delivered)}, archived ${of(written, archived)}`);
    }
    if (latencies.length >= delivered && written >= archived && quietUntil === Number.POSITIVE_INFINITY) {
      await stopTrailing();
      quietUntil = performance.now() + 1000;
    }
  }
  await stopTrailing();
  await sleep(1000);
  await take();
  return { delivered: latencies.length, latencies };
}

/**
 * Sends `requests` at the case's pace; on a stack with a delivery batching window, then starts
 * publishing to the trailing topic at the same pace (`startTrailing`). Answers what `publishAll`
 * answers, the publish function's SQS sends before the trailing traffic (all of them without
 * it), the stack's usage taken when the trailing traffic began (none without it), and how to
 * stop the trailing traffic.
 */
async function publishCase(rig: ArchiveRig, archiveCase: ArchiveCase, requests: readonly PublishRequest[]) {
  const pace = paceOf(archiveCase);
  const published = await publishAll(rig.live, requests, pace);
  if (rig.trailing === undefined) return { published };
  const publishFunctionSends = rig.meter.peekPublishFunctionSends();
  const early = rig.live.usage.take();
  const stopTrailing = startTrailing(rig.live, rig.trailing, {
    inFlight: pace.inFlight,
    requestsPerSecond: pace.requestsPerSecond ?? TRAILING_RATE,
  });
  return { published, publishFunctionSends, early, stopTrailing };
}

/** Requests a second of trailing traffic after a case without a set rate (none has a window yet). */
const TRAILING_RATE = 100;

const added = (a: LambdaUsage | undefined, b: LambdaUsage | undefined): LambdaUsage => ({
  invocations: (a?.invocations ?? 0) + (b?.invocations ?? 0),
  gbSeconds: (a?.gbSeconds ?? 0) + (b?.gbSeconds ?? 0),
});

interface RunOptions {
  topic: string;
  archived: boolean;
  archiveCase: ArchiveCase;
  events: number;
}

/**
 * Publishes the case's events to a new topic, at the case's pace; waits until the sink has them
 * (when they match) and, with an archive, until the segments hold them, and takes what was
 * counted. Answers the run, the ids published and the topic's key and creation time.
 */
export async function measureRun(
  rig: ArchiveRig,
  options: RunOptions,
): Promise<{ run: ArchiveRun; ids: string[]; key: string; createdAt: string; startedAt: number }> {
  const { live, sink, meter } = rig;
  const { archiveCase, topic } = options;
  const { key, createdAt } = await topicOnSink(live, topic, sink.url, options.archived, archiveCase.matching);
  // Fresh counts: the sink's, the stack's usage, the meter's.
  sink.configure(0, 0);
  await sink.take();
  live.usage.take();
  meter.take();
  const startedAt = Date.now();
  const per = archiveCase.eventsPerRequest;
  const requests = Array.from({ length: Math.ceil(options.events / per) }, (_, request) => ({
    topic,
    key,
    ids: requestIds(topic, '', request, Math.min(per, options.events - request * per)),
  }));
  const { published, publishFunctionSends, early, stopTrailing } = await publishCase(
    rig,
    archiveCase,
    requests,
  );
  const ids = published.accepted.get(topic) ?? [];
  const settled = await settle(
    rig,
    topic,
    archiveCase.matching ? ids.length : 0,
    options.archived ? ids.length : 0,
    stopTrailing,
  );
  const usage = live.usage.take();
  const counts = meter.take();
  // The trailing publishes' sends are not the run's.
  if (publishFunctionSends !== undefined) counts.publishFunctionSends = publishFunctionSends;
  return {
    run: {
      events: ids.length,
      requests: requests.length,
      failedRequests: published.failed,
      publishSeconds: published.seconds,
      delivered: settled.delivered,
      deliveryLatencies: settled.latencies,
      publishLatencies: published.latencies.get(topic) ?? [],
      counts,
      deadLetter: added(early?.lambda.deadLetter, usage.lambda.deadLetter),
      // Taken before the trailing publishes, when there were some.
      publishGbSeconds: (early ?? usage).lambda.publish?.gbSeconds ?? 0,
      deliveryGbSeconds: added(early?.lambda.delivery, usage.lambda.delivery).gbSeconds,
    },
    ids,
    key,
    createdAt,
    startedAt,
  };
}

/**
 * The publish latency with the archive and without under the same background: requests to the
 * two topics alternating (`pairs` to each), at the case's pace, after the measured runs; the
 * archive's forwards and writes, which locally share the benchmark's process and cores with the
 * publish function, then slow both topics' requests alike. Waits until they are delivered and
 * archived, so that none of it is counted in a later run.
 */
async function measurePaired(
  rig: ArchiveRig,
  archiveCase: ArchiveCase,
  topics: { on: PublishRequest; off: PublishRequest },
  pairs: number,
): Promise<{ on: number[]; off: number[]; onIds: string[] }> {
  const requests = Array.from({ length: pairs * 2 }, (_, index) => {
    const { topic, key } = index % 2 === 0 ? topics.on : topics.off;
    return { topic, key, ids: requestIds(topic, 'paired-', index, archiveCase.eventsPerRequest) };
  });
  const { published, stopTrailing } = await publishCase(rig, archiveCase, requests);
  const on = published.accepted.get(topics.on.topic) ?? [];
  const off = published.accepted.get(topics.off.topic) ?? [];
  await settle(
    rig,
    `archive-${archiveCase.key}, alternating`,
    archiveCase.matching ? on.length + off.length : 0,
    on.length,
    stopTrailing,
  );
  rig.live.usage.take();
  rig.meter.take();
  return {
    on: published.latencies.get(topics.on.topic) ?? [],
    off: published.latencies.get(topics.off.topic) ?? [],
    onIds: on,
  };
}

/** Reads back every segment of the topic's archive since `since`: the ids they hold, and their count and bytes. */
async function readArchive(live: LiveStack, topic: string, createdAt: string, since: number) {
  const bucket = new ArchiveBucket(live.stack.clients.s3, live.stack.resources.archiveBucketName);
  const segments = await bucket.listSegments({ topic, createdAt }, since - 3_600_000, Date.now() + 3_600_000);
  const records: ArchivedRecord[] = [];
  for (const segment of segments) records.push(...(await bucket.readSegment(segment.key)));
  return {
    records,
    ids: records.map((record) => record.eventId),
    count: segments.length,
    bytes: segments.reduce((sum, s) => sum + s.bytes, 0),
  };
}

/** How a case's requests go, for the log. */
const paceLabel = (c: ArchiveCase): string =>
  c.requestsPerSecond !== undefined
    ? `, ${c.requestsPerSecond} requests/s from ${c.inFlight} clients`
    : c.inFlight === 1
      ? ', one request at a time'
      : '';

/** A case: its two runs, the archive read back, the latency phase. */
export async function measureCase(
  rig: ArchiveRig,
  archiveCase: ArchiveCase,
  events: number,
  quick: boolean,
): Promise<{ result: ArchiveCaseResult; archived: ArchivedEvents }> {
  const { live, meter } = rig;
  log(
    `archive (${archiveCase.key}): ${events.toLocaleString('en-US')} events, ${archiveCase.label}${paceLabel(archiveCase)}: without an archive, then with`,
  );
  const off = await measureRun(rig, {
    topic: `archive-${archiveCase.key}-off`,
    archived: false,
    archiveCase,
    events,
  });
  const on = await measureRun(rig, {
    topic: `archive-${archiveCase.key}-on`,
    archived: true,
    archiveCase,
    events,
  });
  const found = await readArchive(live, `archive-${archiveCase.key}-on`, on.createdAt, on.startedAt);
  const check = checkArchived(on.ids, found.ids, found);
  // What reading the archive back made is not the runs' work.
  live.usage.take();
  meter.take();
  const pairs = Math.min(
    Math.ceil(events / archiveCase.eventsPerRequest),
    quick ? PAIRED_REQUESTS / 5 : PAIRED_REQUESTS,
  );
  log(
    `archive (${archiveCase.key}): publish latency, ${pairs.toLocaleString('en-US')} requests to each topic, alternating`,
  );
  const { onIds, ...paired } = await measurePaired(
    rig,
    archiveCase,
    {
      on: { topic: `archive-${archiveCase.key}-on`, key: on.key, ids: [] },
      off: { topic: `archive-${archiveCase.key}-off`, key: off.key, ids: [] },
    },
    pairs,
  );
  return {
    result: archiveCaseResult({
      case: archiveCase,
      on: on.run,
      off: off.run,
      check,
      records: found.records,
      paired,
    }),
    // Every event the topic with the archive accepted, all written to its segments (the waits saw them).
    archived: { topic: `archive-${archiveCase.key}-on`, createdAt: on.createdAt, ids: [...on.ids, ...onIds] },
  };
}

/** The archive's code paths run once before they are measured (20 requests of the case's, archived). */
export async function warmUpCase(rig: ArchiveRig, archiveCase: ArchiveCase): Promise<void> {
  await measureRun(rig, {
    topic: `archive-warm-up-${archiveCase.key}`,
    archived: true,
    archiveCase,
    events: archiveCase.eventsPerRequest * 20,
  });
}

/**
 * A case with a delivery batching window, on a stack of its own started as the bill starts one
 * (`scenarios/bill-cases.ts`): the delivery queue's window and batch size the case's, five
 * pollers a queue at first and each receive waiting 20 s, as Lambda's do, the functions in the
 * benchmark's process as on the shared stack (the meter counts by function there). After each
 * phase's publishes traffic goes on to a topic without an archive (`startTrailing`) until the
 * phase's events have arrived, so its last batches close at the window as its others did.
 * Stopped once measured.
 */
export async function measureOnOwnStack(
  sink: Sink,
  archiveCase: ArchiveCase,
  events: number,
  quick: boolean,
): Promise<ArchiveCaseResult> {
  const window = archiveCase.deliveryWindow;
  if (window === undefined) throw new Error(`archive (${archiveCase.key}): no delivery batching window`);
  log(
    `archive (${archiveCase.key}): a stack whose delivery queue gathers for ${window.seconds} s, up to ${window.batchSize} messages a batch`,
  );
  const live = await liveStack({
    timeScale: 1,
    pollersPerQueue: LAMBDA_INITIAL_POLLERS,
    receiveWaitSeconds: LAMBDA_RECEIVE_WAIT_SECONDS,
    deliveryBatchingWindow: window,
  });
  const meter = meterOn(live);
  try {
    const trailingTopic = 'archive-trailing';
    const { key } = await topicOnSink(live, trailingTopic, `${sink.url}/trailing`, false, true);
    const rig: ArchiveRig = { live, sink, meter, trailing: { topic: trailingTopic, key } };
    log(`archive (${archiveCase.key}): warming up (not measured)`);
    await warmUpCase(rig, archiveCase);
    return (await measureCase(rig, archiveCase, events, quick)).result;
  } finally {
    meter.detach();
    await live.close();
  }
}

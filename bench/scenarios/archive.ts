/**
 * What a topic's archive costs, on the shared stack: the same publishes to a topic without an
 * archive and to one with `archive: {retentionInDays: 7}`, each with one webhook subscription on
 * the sink, at 100 events a publish, at 1 event a publish, at 1 event a publish that matches no
 * subscription (the copy then has no message to ride on and is sent on its own), each one
 * request at a time, and at 1 event a publish with 20 requests in flight. Measured with an SDK
 * middleware of its own (`archive-meter.ts`): the archive queue's sends, receives and deletes,
 * the chunks the copies add to the delivery queue's messages, the segments written and their
 * bytes, the dead-letter function's invocations and duration, the publish function's sends and
 * the publish latency with and without the archive (requests to the two topics alternating);
 * every published event read back from the archive, once each. Priced per million events as
 * measured, and as modelled for AWS, where the archive queue's consumer gathers messages for 60 s
 * (`archive.ts`, its figures `archive-figures.ts`). Then the replay rate (`replay-rate.ts`): the
 * topic that archived the most events replayed whole to a subscription made after them.
 */
import { MAX_SEGMENT_EVENTS } from '../../shared/archive/writer';
import { ARCHIVE_WINDOW_SECONDS, FUNCTIONS, QUEUES } from '../../shared/config/resources';
import { ArchiveBucket, type ArchivedRecord } from '../../shared/storage/archive';
import {
  ARCHIVE_CASES,
  type ArchiveCase,
  type ArchiveCaseResult,
  type ArchiveRun,
  ASSUMED_RECORD_OVERHEAD_BYTES,
  archiveCaseResult,
  checkArchived,
  STORAGE_DAYS,
} from '../archive';
import { archiveBreakdowns, archiveCaseFigures } from '../archive-figures';
import { ArchiveMeter } from '../archive-meter';
import { p50p99, round } from '../harness/figures';
import type { LiveStack } from '../harness/live-stack';
import { log } from '../harness/log';
import type { ReferenceRates, Scenario, ScenarioResult } from '../harness/types';
import type { Sink } from '../load';
import { PRICES } from '../prices';
import {
  type ArchivedEvents,
  measureReplay,
  REPLAY_SUBSCRIPTION,
  type ReplayResult,
  replayFigures,
} from '../replay-rate';

/** The retention the archived topics are given (it does not change what is written). */
const RETENTION_DAYS = 7;
const EVENT_TYPE = 'Bench.Event';
/** Requests to each topic in a case's latency phase, at most. */
const PAIRED_REQUESTS = 1000;

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

/** One publish of `ids`; its status and latency. */
async function publish(live: LiveStack, topic: string, key: string, ids: readonly string[]) {
  const time = new Date().toISOString();
  const t = Date.now();
  const body = ids.map(
    (id) =>
      `{"id":"${id}","subject":"bench/${id}","eventType":"${EVENT_TYPE}","eventTime":"${time}","data":{"t":${t},"order":"${id}","amount":12.5}}`,
  );
  const started = performance.now();
  const response = await fetch(`${live.stack.apiUrl}/topics/${topic}/api/events?api-version=2018-01-01`, {
    method: 'POST',
    headers: { 'aeg-sas-key': key, 'content-type': 'application/json' },
    body: `[${body.join(',')}]`,
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface RunOptions {
  topic: string;
  archived: boolean;
  archiveCase: ArchiveCase;
  events: number;
}

/** One publish request: its topic, the topic's key and the ids it carries. */
interface PublishRequest {
  topic: string;
  key: string;
  ids: string[];
}

/**
 * Sends `requests` with `inFlight` publishers, each sending the next request once its last is
 * answered; the latencies and the ids accepted, by topic, the requests refused and how long it took.
 */
async function publishAll(live: LiveStack, requests: readonly PublishRequest[], inFlight: number) {
  const latencies = new Map<string, number[]>();
  const accepted = new Map<string, string[]>();
  let failed = 0;
  let next = 0;
  const began = performance.now();
  const publisher = async () => {
    for (let index = next++; index < requests.length; index = next++) {
      const request = requests[index] as PublishRequest;
      const answer = await publish(live, request.topic, request.key, request.ids);
      latencies.set(request.topic, [...(latencies.get(request.topic) ?? []), answer.ms]);
      if (answer.status === 200)
        accepted.set(request.topic, [...(accepted.get(request.topic) ?? []), ...request.ids]);
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, publisher));
  return { latencies, accepted, failed, seconds: (performance.now() - began) / 1000 };
}

/** The ids of request `request` to `topic` (`prefix` keeps apart the phases on one topic). */
const requestIds = (topic: string, prefix: string, request: number, events: number): string[] =>
  Array.from({ length: events }, (_, n) => `${topic}-${prefix}${request}-${n}`);

/**
 * Waits until the sink has `delivered` more events and the archive's segments `archived` (as the
 * meter counts them), then a second more (a repeat, or a late delete, would come in it), and one
 * more for the pollers' last deletes; at most 90 s. Answers the events the sink acknowledged.
 */
async function settle(sink: Sink, meter: ArchiveMeter, label: string, delivered: number, archived: number) {
  let got = 0;
  const deadline = performance.now() + 90_000;
  let quietUntil = Number.POSITIVE_INFINITY;
  let lastLog = 0;
  while (performance.now() < Math.min(deadline, quietUntil)) {
    await sleep(200);
    got += (await sink.take()).latencies.length;
    const written = meter.peekSegmentEvents();
    if (performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      const of = (n: number, total: number) =>
        `${n.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`;
      log(`  ${label}: delivered ${of(got, delivered)}, archived ${of(written, archived)}`);
    }
    if (got >= delivered && written >= archived && quietUntil === Number.POSITIVE_INFINITY)
      quietUntil = performance.now() + 1000;
  }
  await sleep(1000);
  return got + (await sink.take()).latencies.length;
}

/**
 * Publishes the case's events to a new topic, `inFlight` requests at a time; waits until the
 * sink has them (when they match) and, with an archive, until the segments hold them, and takes
 * what was counted. Answers the run, the ids published and the topic's key and creation time.
 */
async function measureRun(
  live: LiveStack,
  sink: Sink,
  meter: ArchiveMeter,
  options: RunOptions,
): Promise<{ run: ArchiveRun; ids: string[]; key: string; createdAt: string; startedAt: number }> {
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
  const published = await publishAll(live, requests, archiveCase.inFlight);
  const ids = published.accepted.get(topic) ?? [];
  const delivered = await settle(
    sink,
    meter,
    topic,
    archiveCase.matching ? ids.length : 0,
    options.archived ? ids.length : 0,
  );
  const usage = live.usage.take();
  const counts = meter.take();
  return {
    run: {
      events: ids.length,
      requests: requests.length,
      failedRequests: published.failed,
      publishSeconds: published.seconds,
      delivered,
      publishLatencies: published.latencies.get(topic) ?? [],
      counts,
      deadLetter: usage.lambda.deadLetter ?? { invocations: 0, gbSeconds: 0 },
      publishGbSeconds: usage.lambda.publish?.gbSeconds ?? 0,
      deliveryGbSeconds: usage.lambda.delivery?.gbSeconds ?? 0,
    },
    ids,
    key,
    createdAt,
    startedAt,
  };
}

/**
 * The publish latency with the archive and without under the same background: requests to the
 * two topics alternating (`pairs` to each), `inFlight` at a time, after the measured runs; the
 * archive's forwards and writes, which locally share the benchmark's process and cores with the
 * publish function, then slow both topics' requests alike. Waits until they are delivered and
 * archived, so that none of it is counted in a later run.
 */
async function measurePaired(
  live: LiveStack,
  sink: Sink,
  meter: ArchiveMeter,
  archiveCase: ArchiveCase,
  topics: { on: PublishRequest; off: PublishRequest },
  pairs: number,
): Promise<{ on: number[]; off: number[]; onIds: string[] }> {
  const requests = Array.from({ length: pairs * 2 }, (_, index) => {
    const { topic, key } = index % 2 === 0 ? topics.on : topics.off;
    return { topic, key, ids: requestIds(topic, 'paired-', index, archiveCase.eventsPerRequest) };
  });
  const published = await publishAll(live, requests, archiveCase.inFlight);
  const on = published.accepted.get(topics.on.topic) ?? [];
  const off = published.accepted.get(topics.off.topic) ?? [];
  await settle(
    sink,
    meter,
    `archive-${archiveCase.key}, alternating`,
    archiveCase.matching ? on.length + off.length : 0,
    on.length,
  );
  live.usage.take();
  meter.take();
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

async function measureCase(
  live: LiveStack,
  sink: Sink,
  meter: ArchiveMeter,
  archiveCase: ArchiveCase,
  events: number,
  quick: boolean,
): Promise<{ result: ArchiveCaseResult; archived: ArchivedEvents }> {
  log(
    `archive (${archiveCase.key}): ${events.toLocaleString('en-US')} events, ${archiveCase.label}${archiveCase.inFlight === 1 ? ', one request at a time' : ''}: without an archive, then with`,
  );
  const off = await measureRun(live, sink, meter, {
    topic: `archive-${archiveCase.key}-off`,
    archived: false,
    archiveCase,
    events,
  });
  const on = await measureRun(live, sink, meter, {
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
    live,
    sink,
    meter,
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

async function measureArchive(
  live: LiveStack,
  sink: Sink,
  quick: boolean,
  reference: ReferenceRates | undefined,
): Promise<ScenarioResult> {
  const events = quick ? 2_000 : 10_000;
  const meter = new ArchiveMeter({
    archiveQueueUrl: live.stack.resources.queueUrls.archive,
    deliveryQueueUrl: live.stack.resources.queueUrls.delivery,
    archiveBucket: live.stack.resources.archiveBucketName,
  });
  meter.attach(live.stack.clients);
  try {
    // The archive's code paths run once before they are measured (the stack is warm otherwise).
    log('archive: warming up the copy, the forward and the segment writes (not measured)');
    for (const archiveCase of ARCHIVE_CASES) {
      await measureRun(live, sink, meter, {
        topic: `archive-warm-up-${archiveCase.key}`,
        archived: true,
        archiveCase,
        events: archiveCase.eventsPerRequest * 20,
      });
    }
    const results: ArchiveCaseResult[] = [];
    const archived: ArchivedEvents[] = [];
    for (const archiveCase of ARCHIVE_CASES) {
      const measured = await measureCase(live, sink, meter, archiveCase, events, quick);
      results.push(measured.result);
      archived.push(measured.archived);
    }
    // The replay reads the topic that archived the most events.
    const replayed = archived.reduce((most, topic) => (topic.ids.length > most.ids.length ? topic : most));
    log(
      `archive: replay rate, the ${replayed.ids.length.toLocaleString('en-US')} events archived on ${replayed.topic}, its whole range`,
    );
    const replay = await measureReplay(live, sink, meter, replayed);
    return scenarioResult(results, events, quick, replay, reference);
  } finally {
    meter.detach();
  }
}

function scenarioResult(
  results: readonly ArchiveCaseResult[],
  events: number,
  quick: boolean,
  replay: ReplayResult,
  reference: ReferenceRates | undefined,
): ScenarioResult {
  const pairedRequests = quick ? PAIRED_REQUESTS / 5 : PAIRED_REQUESTS;
  const consumer = QUEUES.archive.consumer;
  const rates = results
    .map((r) => `(${r.case.key}) ${Math.round(r.rate).toLocaleString('en-US')}`)
    .join(', ');
  const runDetails = (run: ArchiveRun) => {
    const { publishLatencies, ...rest } = run;
    return { ...rest, publishP50P99: p50p99(publishLatencies) };
  };
  return {
    name: 'archive',
    description: `What a topic's archive adds, on the shared stack: the same publishes, ${events.toLocaleString('en-US')} events each, from the benchmark's process, to a topic without an archive and then to one with \`archive: {retentionInDays: ${RETENTION_DAYS}}\`, each topic with one webhook subscription on the sink: (a) 100 events a publish and (b) 1 event a publish, both matching the subscription, and (c) 1 event a publish that its subscription's filter does not match (no message is sent for it, so the publish function sends the copy to the archive queue itself), each one request at a time; and (d) as (b) with 20 requests in flight, without a goal: the delivery function forwards once per batch, and its batches (what one receive of the delivery queue returns) hold more messages when publishes come together. Measured, with an SDK middleware on the stack's clients: the archive queue's SendMessageBatch requests by the function that made them (the delivery function's forwards of its batches' copies, the publish function's own sends), its receives that returned messages and its deletes, each SQS request in 64 KiB chunks of its bodies and message attributes (so the chunks the \`gridwire-archive\` attribute adds to the delivery queue's sends and receives are counted too); the archive bucket's PutObject requests, the segments' gzipped bytes and the events they hold; the dead-letter function's invocations and billed duration (at ${FUNCTIONS.deadLetter.memoryMb} MB); the SQS sends the publish function makes per request, with the archive and without (the copy rides on the publish's one message when there is one). The publish request's latency with the archive and without is taken after the measured runs, from requests to the two topics alternating (${pairedRequests.toLocaleString('en-US')} to each, or as many as the run made), so that the archive's forwards and writes, which locally run in the benchmark's process on the same cores as the publish function, slow both alike; the sequential runs' latencies are in the details. The archive queue's empty receives are left out: they are its pollers' long polls, made whether a topic archives or not. Every published event is then read back from the archive's segments (\`ArchiveBucket\`) and must be there exactly once. Priced at list prices (${PRICES.source}, taken ${PRICES.takenOn}: SQS $${(PRICES.sqs.perRequest * 1e6).toFixed(2)} per million requests, S3 PUT $${(PRICES.s3.perPut * 1000).toFixed(3)} per thousand, Lambda $${(PRICES.lambda.perRequest * 1e6).toFixed(2)} per million requests and $${PRICES.lambda.perGbSecond} per GB-second). Measured locally, the archive queue's consumer takes one receive at a time (10 messages at most) and no window, so each invocation writes a segment and deletes its messages; on AWS it gathers up to ${consumer.batchSize.toLocaleString('en-US')} messages for ${consumer.batchingWindowSeconds} s. The AWS figure is a model from the measured counts: the sends, receives and chunks per event as measured (the delivery queue has no window on either, so at the same rate and concurrency its batches, and so the forwards, are as here; a receive returns what the queue holds, window or not), and the invocations, deletes (10 messages each) and segment PUTs (one per 20,000 events, and one more when a batch's messages span an hour's end) of batches of the messages of one ${ARCHIVE_WINDOW_SECONDS} s window at the run's rate (events/s: ${rates}), up to ${consumer.batchSize.toLocaleString('en-US')} messages or Lambda's 6 MB payload (each message's measured bytes plus ${ASSUMED_RECORD_OVERHEAD_BYTES.toLocaleString('en-US')} B assumed per record); assumed: the window's messages make one batch (Lambda may split them between its pollers, a segment and an invocation more each), and the dead-letter function's billed time per event as measured locally (an upper bound: here each invocation's fixed time is shared by ten messages at most). The goals, at most $0.02 per million events at 100 events a publish and $0.10 at 1 event a publish, storage left out, are judged against the AWS figure, never the local one. The run's rate is this machine's, with the case's requests in flight; the lowest rate at which the model meets the goal (holding the requests per event as measured) is given too. Storage is left out of the goals and priced apart: the gzipped bytes per million events of the segments written (measured; locally a segment per receive), and of the same events, read back, gzipped in segments of a modelled batch's events (at most as many as the run published), kept ${STORAGE_DAYS.join(' or ')} days (the daily sweep keeps up to a day more), at S3 Standard's $${PRICES.s3.storagePerGbMonth} per GB-month (30 days). The publish and delivery functions' duration the archive adds (the gzipped copy; the forward's send, which the delivery function awaits before its jobs) is measured locally against the emulators and reported apart, not in the cost. ${replayDescription(replay)}`,
    figures: [...results.flatMap(archiveCaseFigures), ...replayFigures(replay, reference)],
    details: {
      events,
      retentionDays: RETENTION_DAYS,
      assumedRecordOverheadBytes: ASSUMED_RECORD_OVERHEAD_BYTES,
      cases: results.map((r) => ({
        case: r.case,
        rate: round(r.rate, 1),
        on: runDetails(r.on),
        off: runDetails(r.off),
        check: r.check,
        pairedLatency: {
          on: p50p99(r.paired.on),
          off: p50p99(r.paired.off),
          requestsEach: r.paired.on.length,
        },
        measuredPerMillion: r.measured,
        awsModelPerMillion: r.modelled,
        awsBatch: r.batch,
        goalRate: r.goalRate ?? null,
        storage: r.storage,
        addedDurationPerMillion: r.added,
      })),
      replay,
      costBreakdownsPerMillion: archiveBreakdowns(results),
      prices: {
        source: PRICES.source,
        takenOn: PRICES.takenOn,
        sqs: PRICES.sources.sqs,
        s3: PRICES.sources.s3,
      },
    },
  };
}

export const archive: Scenario = {
  name: 'archive',
  description:
    "a topic's archive: SQS, S3 and Lambda requests it adds per event, measured and modelled for AWS, each event archived once, publish latency; the replay rate of its archived events",
  uses: ['sharedStack', 'sink'],
  usesReferenceRates: true,
  async run(ctx) {
    const live = await ctx.sharedStack();
    return {
      results: [await measureArchive(live, await ctx.sink(), ctx.quick, ctx.handedOn.referenceRates)],
    };
  },
};

/** What the replay part measures, for the scenario's description. */
const replayDescription = (replay: ReplayResult) =>
  `Then the replay rate: the topic with an archive that accepted the most events in the run (\`${replay.topic}\`: its ${replay.events.toLocaleString('en-US')} events, the measured run's and the latency phase's, whose segments the waits above saw written) gets a second webhook subscription, \`${REPLAY_SUBSCRIPTION}\`, made after every one of them was published, unbatched (each event a webhook request of its own), on the sink under a path of its own; then one replay of its whole range (\`POST .../eventSubscriptions/${REPLAY_SUBSCRIPTION}/replays\` with \`since\` the topic's creation time and no \`until\`: up to the request), whose pages run on the delivery function a segment at a time and queue the events as fresh deliveries. Measured: the archived events delivered per second, each counted once, from just before the replay's POST to the arrival at the sink of the last event it acknowledged (the sink records each acknowledged event's id and its request's arrival time); every archived event must reach the sink exactly once, counted by event id (repeats, missing ids and ids not archived counted apart); the pages, as the archive bucket's GetObject requests the delivery function made while the replay ran (counted by the meter's SDK middleware; a last page lists and finds no segment), against the segments of the range listed before it started, and the events the replay found per page; the pages read per second from just before the POST to the replay's end (its \`lastModifiedAt\` once it has ended: its last page, which finds no segment after the cursor); the seconds to the first and the last event at the sink, and to the replay's end; the replay's state and counts as \`GET .../replays/{id}\` shows them at the end. The wait ends once the replay has ended and every archived event has arrived, and 2 s more with none (a repeat would come in them), or after a minute (10 ms an event if longer). The rates are also given as multiples of this machine's reference rates (column "x reference"): the events' of loopback HTTP, the pages' of SQS round trips (a page's job is received from the delivery queue and deleted, and it sends the next page's, besides its S3 and DynamoDB requests and the deliveries it queues). Locally a segment is what one dead-letter invocation wrote from one receive of the archive queue (10 messages at most), so pages are smaller and more than on AWS, where a segment holds a ${ARCHIVE_WINDOW_SECONDS} s window's events, up to ${MAX_SEGMENT_EVENTS.toLocaleString('en-US')}.`;

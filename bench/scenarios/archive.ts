/**
 * What a topic's archive costs, on the shared stack: the same publishes to a topic without an
 * archive and to one with `archive: {retentionInDays: 7}`, each with one webhook subscription on
 * the sink, at 100 events a publish, at 1 event a publish, at 1 event a publish that matches no
 * subscription (the copy then has no message to ride on and is sent on its own), each one
 * request at a time, at 1 event a publish with 20 requests in flight, and at 1 event a publish,
 * 100 requests a second, on a stack of its own whose delivery queue has a 1 s batching window
 * (`archive-runs.ts` runs the cases, `archive-publish.ts` sends their publishes). Measured with an SDK
 * middleware of its own (`archive-meter.ts`): the archive queue's sends, receives and deletes,
 * the chunks the copies add to the delivery queue's messages, the segments written and their
 * bytes, the dead-letter function's invocations and duration, the publish function's sends and
 * the publish latency with and without the archive (requests to the two topics alternating), the
 * publish-to-webhook latency at the sink;
 * every published event read back from the archive, once each. Priced per million events as
 * measured, and as modelled for AWS, where the archive queue's consumer gathers messages for 60 s
 * (`archive.ts`, its figures `archive-figures.ts`). Then the replay rate (`replay-rate.ts`): the
 * topic that archived the most events replayed whole to a subscription made after them.
 */
import { MAX_SEGMENT_EVENTS } from '../../shared/archive/writer';
import { ARCHIVE_WINDOW_SECONDS, FUNCTIONS, QUEUES } from '../../shared/config/resources';
import {
  ARCHIVE_CASES,
  type ArchiveCaseResult,
  type ArchiveRun,
  ASSUMED_RECORD_OVERHEAD_BYTES,
  STORAGE_DAYS,
  WINDOWED_DELIVERY,
  WINDOWED_RATE,
} from '../archive';
import { archiveBreakdowns, archiveCaseFigures } from '../archive-figures';
import {
  measureCase,
  measureOnOwnStack,
  meterOn,
  PAIRED_REQUESTS,
  RETENTION_DAYS,
  warmUpCase,
} from '../archive-runs';
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

/** The cases on the shared stack (no delivery batching window), then the replay rate there. */
async function measureOnSharedStack(live: LiveStack, sink: Sink, events: number, quick: boolean) {
  const cases = ARCHIVE_CASES.filter((archiveCase) => archiveCase.deliveryWindow === undefined);
  const meter = meterOn(live);
  const rig = { live, sink, meter };
  try {
    // The archive's code paths run once before they are measured (the stack is warm otherwise).
    log('archive: warming up the copy, the forward and the segment writes (not measured)');
    for (const archiveCase of cases) await warmUpCase(rig, archiveCase);
    const results: ArchiveCaseResult[] = [];
    const archived: ArchivedEvents[] = [];
    for (const archiveCase of cases) {
      const measured = await measureCase(rig, archiveCase, events, quick);
      results.push(measured.result);
      archived.push(measured.archived);
    }
    // The replay reads the topic that archived the most events.
    const replayed = archived.reduce((most, topic) => (topic.ids.length > most.ids.length ? topic : most));
    log(
      `archive: replay rate, the ${replayed.ids.length.toLocaleString('en-US')} events archived on ${replayed.topic}, its whole range`,
    );
    const replay = await measureReplay(live, sink, meter, replayed);
    return { results, replay };
  } finally {
    meter.detach();
  }
}

async function measureArchive(
  live: LiveStack,
  sink: Sink,
  quick: boolean,
  reference: ReferenceRates | undefined,
): Promise<ScenarioResult> {
  const events = quick ? 2_000 : 10_000;
  const { results, replay } = await measureOnSharedStack(live, sink, events, quick);
  // A case with a delivery batching window runs on a stack of its own, after the shared stack's.
  for (const archiveCase of ARCHIVE_CASES.filter((c) => c.deliveryWindow !== undefined)) {
    results.push(await measureOnOwnStack(sink, archiveCase, events, quick));
  }
  return scenarioResult(results, events, quick, replay, reference);
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
    const { publishLatencies, deliveryLatencies, ...rest } = run;
    return {
      ...rest,
      publishP50P99: p50p99(publishLatencies),
      deliveryP50P99: deliveryLatencies.length === 0 ? null : p50p99(deliveryLatencies),
    };
  };
  return {
    name: 'archive',
    description: `What a topic's archive adds, on the shared stack (case (e) on a stack of its own): the same publishes, ${events.toLocaleString('en-US')} events each, from the benchmark's process, to a topic without an archive and then to one with \`archive: {retentionInDays: ${RETENTION_DAYS}}\`, each topic with one webhook subscription on the sink: (a) 100 events a publish and (b) 1 event a publish, both matching the subscription, and (c) 1 event a publish that its subscription's filter does not match (no message is sent for it, so the publish function sends the copy to the archive queue itself), each one request at a time; and (d) as (b) with 20 requests in flight, without a goal: the delivery function forwards once per batch, and its batches (what one receive of the delivery queue returns) hold more messages when publishes come together; and (e) as (b), with a goal, on a stack of its own whose delivery queue has a batching window of ${WINDOWED_DELIVERY.seconds} s and batches of up to ${WINDOWED_DELIVERY.batchSize} messages (\`deliveryBatchingWindow: {seconds: ${WINDOWED_DELIVERY.seconds}, batchSize: ${WINDOWED_DELIVERY.batchSize}}\`, started as the bill starts its stacks with a window: five pollers a queue at first, each receive waiting 20 s as Lambda's do), at a steady ${WINDOWED_RATE} publish requests a second: request i is sent i/${WINDOWED_RATE} s after the first by whichever of ${ARCHIVE_CASES.find((c) => c.deliveryWindow !== undefined)?.inFlight ?? 0} clients is free (at once when it is late), so the rate sent is set, not this machine's; a request the local stack refuses (its admission gate, the stand-in for API Gateway's throttling, refuses once the delivery queue's messages waiting or in flight reach a second's worth at the rate they are drained, 100 at least, and a window keeps its batches' messages in flight for up to a second; the publish function's own gate on AWS counts waiting messages only) is counted and not sent again, and the rate the model takes is the accepted events' (both are given). After each of its phases' publishes the same rate goes on, to a topic without an archive whose events the sink neither counts nor times, until the phase's events have all arrived, so that its last batches close at the window as its others did instead of waiting out a 20 s long poll on a quiet queue (the publish function's sends and the functions' usage are taken before it; the delivery function's duration in the details includes it). The delivery function forwards once per batch that holds copies, so with a window its forwards per event follow the batches the window gathers at that rate; they are measured, as every case's, and given as events per forward send. Measured, with an SDK middleware on the stack's clients: the archive queue's SendMessageBatch requests by the function that made them (the delivery function's forwards of its batches' copies, the publish function's own sends), its receives that returned messages and its deletes, each SQS request in 64 KiB chunks of its bodies and message attributes (so the chunks the \`gridwire-archive\` attribute adds to the delivery queue's sends and receives are counted too); the archive bucket's PutObject requests, the segments' gzipped bytes and the events they hold; the dead-letter function's invocations and billed duration (at ${FUNCTIONS.deadLetter.memoryMb} MB); the SQS sends the publish function makes per request, with the archive and without (the copy rides on the publish's one message when there is one); the publish-to-webhook latency of every event of the two runs, as the sink takes it (each acknowledged event's arrival against the publish time it carries): a window adds up to ${WINDOWED_DELIVERY.seconds} s to it (a batch's first message waits the whole window; on a quiet queue a batch can wait longer, up to the 20 s long poll). The publish request's latency with the archive and without is taken after the measured runs, from requests to the two topics alternating (${pairedRequests.toLocaleString('en-US')} to each, or as many as the run made), so that the archive's forwards and writes, which locally run in the benchmark's process on the same cores as the publish function, slow both alike; the sequential runs' latencies are in the details. The archive queue's empty receives are left out: they are its pollers' long polls, made whether a topic archives or not. Every published event is then read back from the archive's segments (\`ArchiveBucket\`) and must be there exactly once. Priced at list prices (${PRICES.source}, taken ${PRICES.takenOn}: SQS $${(PRICES.sqs.perRequest * 1e6).toFixed(2)} per million requests, S3 PUT $${(PRICES.s3.perPut * 1000).toFixed(3)} per thousand, Lambda $${(PRICES.lambda.perRequest * 1e6).toFixed(2)} per million requests and $${PRICES.lambda.perGbSecond} per GB-second). Measured locally, the archive queue's consumer takes one receive at a time (10 messages at most) and no window, so each invocation writes a segment and deletes its messages; on AWS it gathers up to ${consumer.batchSize.toLocaleString('en-US')} messages for ${consumer.batchingWindowSeconds} s. The AWS figure is a model from the measured counts: the sends, receives and chunks per event as measured (the delivery queue's window is the same on both, none for (a) to (d) and ${WINDOWED_DELIVERY.seconds} s for (e), so at the same rate and concurrency its batches, and so the forwards, are as here; assumed for (e): Lambda's pollers gather as the local ones, each its own batch; a receive returns what the queue holds, window or not), and the invocations, deletes (10 messages each) and segment PUTs (one per 20,000 events, and one more when a batch's messages span an hour's end) of batches of the messages of one ${ARCHIVE_WINDOW_SECONDS} s window at the run's rate (events/s: ${rates}), up to ${consumer.batchSize.toLocaleString('en-US')} messages or Lambda's 6 MB payload (each message's measured bytes plus ${ASSUMED_RECORD_OVERHEAD_BYTES.toLocaleString('en-US')} B assumed per record); assumed: the window's messages make one batch (Lambda may split them between its pollers, a segment and an invocation more each), and the dead-letter function's billed time per event as measured locally (an upper bound: here each invocation's fixed time is shared by ten messages at most). The goals, at most $0.02 per million events at 100 events a publish and $0.10 at 1 event a publish (judged for (b), without a window, and for (e), with one), storage left out, are judged against the AWS figure, never the local one; for the cases with a goal the AWS figure is also given by item (forward sends, the archive queue's receives and deletes, the publish function's own sends with the chunks the copies add to the delivery queue's messages, segment PUTs, the dead-letter function's requests and duration) with the forward sends' share of it. The run's rate is this machine's, with the case's requests in flight ((e)'s is set); the lowest rate at which the model meets the goal (holding the requests per event as measured) is given too, but not for (e), whose forwards per event fall as its batches fill with the rate. Storage is left out of the goals and priced apart: the gzipped bytes per million events of the segments written (measured; locally a segment per receive), and of the same events, read back, gzipped in segments of a modelled batch's events (at most as many as the run published), kept ${STORAGE_DAYS.join(' or ')} days (the daily sweep keeps up to a day more), at S3 Standard's $${PRICES.s3.storagePerGbMonth} per GB-month (30 days). The publish and delivery functions' duration the archive adds (the gzipped copy; the forward's send, which the delivery function awaits before its jobs) is measured locally against the emulators and reported apart, not in the cost. ${replayDescription(replay)}`,
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
    "a topic's archive: SQS, S3 and Lambda requests it adds per event, measured and modelled for AWS, with and without a 1 s delivery batching window, each event archived once, publish and delivery latency; the replay rate of its archived events",
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

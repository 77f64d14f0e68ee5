/**
 * The replay rate, the archive scenario's last part (`scenarios/archive.ts`): the events a topic
 * archived in the run, replayed, its whole range at once, to a webhook subscription made after
 * they were published, on the sink. Measured: events per second from the replay's start (just
 * before its POST) to the last event the sink acknowledged; every archived event at the sink
 * exactly once (counted by event id); the pages, as the segments the delivery function read
 * (`archive-meter.ts`), against the segments of the range, and how many a second until the replay
 * ended; the rates also as multiples of this machine's reference rates: the events' of loopback
 * HTTP (each event replayed is a webhook request of its own), the pages' of SQS round trips (each
 * page a job received from the delivery queue, which sends the next).
 */
import { ArchiveBucket } from '../shared/storage/archive';
import { foundExactlyOnce, type IdTally, tallyIds } from './archive';
import type { ArchiveCounts, ArchiveMeter } from './archive-meter';
import { round, shareOf } from './harness/figures';
import type { LiveStack } from './harness/live-stack';
import { log } from './harness/log';
import type { Figure, ReferenceRates } from './harness/types';
import type { Sink } from './load';

/** The replay as `GET .../replays/{id}` shows it (`eventsDelivered` where the API gives it). */
export interface ReplayDocument {
  id: string;
  state: string;
  eventsFound: number;
  eventsQueued: number;
  eventsDelivered?: number;
  reason?: string;
  /** When it last changed: for an ended replay, when it ended. */
  lastModifiedAt?: string;
}

/** What a replay's run saw: the ids expected and received, when, and what the replay read. */
export interface ReplayObservation {
  topic: string;
  /** The ids the topic accepted in the run: what a replay of its whole range must deliver. */
  expected: readonly string[];
  /** The ids the sink acknowledged, repeats included, and when each one's request arrived (epoch ms). */
  received: readonly string[];
  arrivedAt: readonly number[];
  /** Epoch ms just before the replay's POST. */
  startedAt: number;
  /** Segments of the topic's archive in the range, listed before the replay started. */
  segments: number;
  /** The delivery function's reads of the archive bucket while the replay ran. */
  reads: ArchiveCounts['segmentReads'];
  /** The replay at the end. */
  replay: ReplayDocument;
  /** The wait ended at its deadline, not once every event had arrived. */
  timedOut: boolean;
}

export interface ReplayResult {
  topic: string;
  /** Events archived (expected at the sink). */
  events: number;
  check: IdTally;
  /** Distinct archived events delivered per second, the replay's start to the last event. */
  rate: number;
  /** Seconds from the replay's start to the first and to the last event at the sink. */
  firstSeconds: number;
  lastSeconds: number;
  /** Pages: segments the delivery function read; and its listings (a page's next segment). */
  pages: number;
  listings: number;
  readBytes: number;
  segments: number;
  /** Events the replay found (the records of its segments in the range) per page read. */
  eventsPerPage: number;
  /** Seconds from the replay's start to its end (its last change), and pages read a second in them; unknown while it runs. */
  endedSeconds?: number;
  pageRate?: number;
  replay: ReplayDocument;
  timedOut: boolean;
}

/** Events per second over `[startedAt, lastAt]` (epoch ms); 0 when nothing arrived after the start. */
export const replayRate = (events: number, startedAt: number, lastAt: number): number =>
  events > 0 && lastAt > startedAt ? events / ((lastAt - startedAt) / 1000) : 0;

/** The received ids against the archived ones: every archived id once, and nothing else. */
export const checkReplayed = (expected: readonly string[], received: readonly string[]): IdTally =>
  tallyIds(expected, received);

/** The replay's result from what its run saw. */
export function replayResult(seen: ReplayObservation): ReplayResult {
  const check = checkReplayed(seen.expected, seen.received);
  const firstAt = seen.arrivedAt.reduce((first, at) => (first === 0 ? at : Math.min(first, at)), 0);
  const lastAt = seen.arrivedAt.reduce((last, at) => Math.max(last, at), 0);
  const since = (at: number) => (at === 0 ? 0 : (at - seen.startedAt) / 1000);
  const endedAt =
    seen.replay.state === 'Running' || seen.replay.lastModifiedAt === undefined
      ? Number.NaN
      : Date.parse(seen.replay.lastModifiedAt);
  const ended = Number.isFinite(endedAt) && endedAt > seen.startedAt ? since(endedAt) : undefined;
  return {
    topic: seen.topic,
    events: check.expected,
    check,
    // Each archived event delivered counts once, however often it came.
    rate: replayRate(check.once + check.repeated, seen.startedAt, lastAt),
    firstSeconds: since(firstAt),
    lastSeconds: since(lastAt),
    pages: seen.reads.gets,
    listings: seen.reads.listings,
    readBytes: seen.reads.bytes,
    segments: seen.segments,
    eventsPerPage: seen.reads.gets === 0 ? 0 : seen.replay.eventsFound / seen.reads.gets,
    ...(ended === undefined ? {} : { endedSeconds: ended, pageRate: seen.reads.gets / ended }),
    replay: seen.replay,
    timedOut: seen.timedOut,
  };
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** The replay's figures; its rate also as a multiple of the loopback HTTP reference, when measured. */
export function replayFigures(result: ReplayResult, reference: ReferenceRates | undefined): Figure[] {
  const { check, replay } = result;
  const rate = round(result.rate, 0);
  const off = check.repeated + check.missing + check.unknown > 0;
  const delivered = replay.eventsDelivered === undefined ? '' : ` / ${count(replay.eventsDelivered)}`;
  return [
    {
      metric: `replay: events delivered per second, from the replay's start (its POST) to the last event at the sink: the ${count(result.events)} events one topic archived, its whole range, to a webhook subscription made after they were published`,
      value: rate,
      unit: 'events/s',
      ...shareOf(reference, 'loopbackHttp', rate),
    },
    {
      metric: 'replay: archived events at the sink exactly once (counted by event id) / archived',
      value: `${count(check.once)} / ${count(check.expected)}${off ? ` (${count(check.repeated)} repeated, ${count(check.missing)} missing, ${count(check.unknown)} not archived)` : ''}${result.timedOut ? ', the wait timed out' : ''}`,
      unit: 'events',
      goal: 'all, once each',
      met: foundExactlyOnce(check),
    },
    {
      metric:
        'replay: pages (segments the delivery function read) / segments in the range; events the replay found per page',
      value: `${count(result.pages)} / ${count(result.segments)}; ${count(result.eventsPerPage)}`,
      unit: '',
    },
    {
      metric:
        "replay: pages read per second, from the replay's start to its end (its last change, as its GET shows it), each page a job received from the delivery queue that sends the next",
      value: result.pageRate === undefined ? 'unknown: it did not end' : round(result.pageRate, 1),
      unit: result.pageRate === undefined ? '' : 'pages/s',
      ...(result.pageRate === undefined
        ? {}
        : shareOf(reference, 'sqsRoundTrips', round(result.pageRate, 1))),
    },
    {
      metric: "replay: seconds from the replay's start to the first / last event at the sink (to its end)",
      value: `${round(result.firstSeconds, 2)} / ${round(result.lastSeconds, 2)}${result.endedSeconds === undefined ? '' : ` (${round(result.endedSeconds, 2)})`}`,
      unit: 's',
    },
    {
      metric: `replay: its state, and the events it found / queued${delivered === '' ? '' : ' / delivered'}, as GET .../replays/{id} shows them at the end`,
      value: `${replay.state}${replay.reason === undefined ? '' : ` (${replay.reason})`}, ${count(replay.eventsFound)} / ${count(replay.eventsQueued)}${delivered}`,
      unit: '',
    },
  ];
}

/** The replay's subscription, and the path of the sink it delivers to. */
export const REPLAY_SUBSCRIPTION = 'replay';
/** How long the sink stays quiet after the last event before the run ends (a repeat would come in it). */
const QUIET_MS = 2000;

/** A topic's events, all archived (its segments written) before the replay starts. */
export interface ArchivedEvents {
  topic: string;
  /** The topic's creation time: the archive's, and the replay's `since`. */
  createdAt: string;
  ids: readonly string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Makes the replay's subscription on `archived.topic` (a webhook on the sink, a path of its own),
 * lists the range's segments, starts a replay of the whole range and waits until the replay has
 * ended and the sink has every archived event, then {@link QUIET_MS} more; at most a minute, or
 * 10 ms an event if longer. Answers what it saw.
 */
export async function measureReplay(
  live: LiveStack,
  sink: Sink,
  meter: ArchiveMeter,
  archived: ArchivedEvents,
): Promise<ReplayResult> {
  const { topic, createdAt } = archived;
  const subscription = `/admin/topics/${topic}/eventSubscriptions/${REPLAY_SUBSCRIPTION}`;
  await live.call('PUT', subscription, {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: `${sink.url}/${REPLAY_SUBSCRIPTION}` },
      },
    },
  });
  const bucket = new ArchiveBucket(live.stack.clients.s3, live.stack.resources.archiveBucketName);
  const segments = await bucket.listSegments({ topic, createdAt }, Date.parse(createdAt), Date.now());
  // Fresh counts; the sink keeps each acknowledged id, in order.
  sink.configure(0, 0, true);
  await sink.take();
  meter.take();
  live.usage.take();
  const wanted = new Set(archived.ids);
  const got = new Set<string>();
  const received: string[] = [];
  const arrivedAt: number[] = [];
  const takeSink = async () => {
    const taken = await sink.take();
    received.push(...taken.ids);
    arrivedAt.push(...taken.arrivedAt);
    for (const id of taken.ids) if (wanted.has(id)) got.add(id);
  };
  const startedAt = Date.now();
  let replay = (await live.call('POST', `${subscription}/replays`, { since: createdAt })) as ReplayDocument;
  const show = async () => (await live.call('GET', `${subscription}/replays/${replay.id}`)) as ReplayDocument;
  const deadline = performance.now() + Math.max(60_000, archived.ids.length * 10);
  let quietUntil = Number.POSITIVE_INFINITY;
  let lastShown = performance.now();
  let lastLog = performance.now();
  while (performance.now() < Math.min(deadline, quietUntil)) {
    await sleep(200);
    await takeSink();
    if (performance.now() - lastShown >= 1000) {
      lastShown = performance.now();
      replay = await show();
    }
    if (performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      log(
        `  replay ${replay.state}: found ${count(replay.eventsFound)}, queued ${count(replay.eventsQueued)}, at the sink ${count(got.size)} of ${count(wanted.size)}`,
      );
    }
    const over = replay.state !== 'Running' && (got.size >= wanted.size || replay.state !== 'Completed');
    if (over && quietUntil === Number.POSITIVE_INFINITY) quietUntil = performance.now() + QUIET_MS;
  }
  const timedOut = quietUntil === Number.POSITIVE_INFINITY;
  await takeSink();
  replay = await show();
  sink.configure(0, 0);
  const reads = meter.take().segmentReads;
  live.usage.take();
  return replayResult({
    topic,
    expected: archived.ids,
    received,
    arrivedAt,
    startedAt,
    segments: segments.length,
    reads,
    replay,
    timedOut,
  });
}

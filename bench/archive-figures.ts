/**
 * The archive scenario's figures (`scenarios/archive.ts`): each case's cost per million events
 * as modelled for AWS (with the goal judged, and by item for a case with a goal) and as measured
 * locally, the events per forward send, its requests, the archive check, storage, the publish
 * function's sends, the publish and publish-to-webhook latency with and without the archive, and
 * the lowest rate meeting the goal; and the cost breakdowns the report lists.
 */
import { ARCHIVE_WINDOW_SECONDS } from '../shared/config/resources';
import {
  type ArchiveCaseResult,
  type ArchiveCost,
  type ArchiveRun,
  archivedExactlyOnce,
  STORAGE_DAYS,
} from './archive';
import { p50p99, round } from './harness/figures';
import type { Figure } from './harness/types';
import { PRICES } from './prices';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const usd = (value: number) => `${round(value, 4)}`;

/** A cost per million events by what it pays for, USD. */
export interface CostByItem {
  forwardSends: number;
  receives: number;
  deletes: number;
  /** The publish function's own sends and the chunks the copies add to the delivery queue's messages. */
  publishSendsAndChunks: number;
  puts: number;
  lambdaRequests: number;
  lambdaDuration: number;
  total: number;
  /** The forward sends' share of the total (0 when it is 0). */
  forwardShare: number;
}

/** `cost` by item: each kind of SQS request at the SQS price, the PUTs, Lambda's two parts. */
export function costByItem(cost: ArchiveCost): CostByItem {
  const r = cost.perMillion;
  const sqs = (requests: number) => requests * PRICES.sqs.perRequest;
  const forwardSends = sqs(r.forwardSends);
  return {
    forwardSends,
    receives: sqs(r.receives),
    deletes: sqs(r.deletes),
    publishSendsAndChunks: sqs(r.publishSends + r.deliveryChunksAdded),
    puts: cost.s3,
    lambdaRequests: cost.lambdaRequests,
    lambdaDuration: cost.lambdaDuration,
    total: cost.total,
    forwardShare: cost.total > 0 ? forwardSends / cost.total : 0,
  };
}

/** A case's goal, judged against the AWS model; none when the case has no goal. */
export function goalVerdict(result: ArchiveCaseResult): { goal: string; met: boolean } | undefined {
  const goal = result.case.goalUsd;
  return goal === undefined ? undefined : { goal: `<= ${goal} USD`, met: result.modelled.total <= goal };
}

/**
 * Archived events per forward send: the events of a delivery batch's copies (the delivery
 * function sends once per batch holding any).
 */
export const eventsPerForward = (run: ArchiveRun): number =>
  run.counts.forwards.requests === 0 ? 0 : run.events / run.counts.forwards.requests;

/** The AWS model's cost of a case with a goal by item, and the forward sends' share of it. */
function byItemFigures(name: string, result: ArchiveCaseResult): Figure[] {
  if (result.case.goalUsd === undefined) return [];
  const items = costByItem(result.modelled);
  const parts = [
    items.forwardSends,
    items.receives,
    items.deletes,
    items.publishSendsAndChunks,
    items.puts,
    items.lambdaRequests,
    items.lambdaDuration,
  ];
  return [
    {
      metric: `${name}: AWS model per million events by item: forward sends / archive receives / archive deletes / publish's own sends and chunks added / segment PUTs / dead-letter requests / dead-letter duration (forward sends' share of the total)`,
      value: `${parts.map(usd).join(' / ')} (${Math.round(items.forwardShare * 100)}%)`,
      unit: 'USD',
    },
  ];
}

/** The publish-to-webhook latency of a case whose events reach the sink. */
function deliveryLatencyFigures(name: string, result: ArchiveCaseResult): Figure[] {
  const { case: c, on, off } = result;
  if (!c.matching) return [];
  const window = c.deliveryWindow;
  const bound =
    window === undefined
      ? 'no batching window'
      : `the ${window.seconds} s batching window adds up to ${window.seconds} s, more on a quiet queue`;
  return [
    {
      metric: `${name}: publish-to-webhook latency p50 / p99, archive on (off), every event of the runs at the sink (${bound})`,
      value: `${p50p99(on.deliveryLatencies)} (${p50p99(off.deliveryLatencies)})`,
      unit: 'ms',
    },
  ];
}

/** The publish requests a case's runs had refused, for a case sent at a set rate or any that had some. */
function refusedFigures(name: string, result: ArchiveCaseResult): Figure[] {
  const { case: c, on, off } = result;
  if (c.requestsPerSecond === undefined && on.failedRequests + off.failedRequests === 0) return [];
  return [
    {
      metric: `${name}: publish requests refused (not answered 200, not sent again), archive on (off), of ${count(on.requests)} (${count(off.requests)}) sent${c.requestsPerSecond === undefined ? '' : ` at ${c.requestsPerSecond} a second`}; events accepted a second with the archive`,
      value: `${count(on.failedRequests)} (${count(off.failedRequests)}); ${round(result.rate, 1)}`,
      unit: '',
    },
  ];
}

/** The figures of one case. */
export function archiveCaseFigures(result: ArchiveCaseResult): Figure[] {
  const { case: c, on, off, check, measured, modelled, batch } = result;
  const name = `(${c.key}) ${c.label}`;
  const goal = c.goalUsd;
  const verdict = goalVerdict(result);
  const window = c.deliveryWindow;
  const requests = (cost: ArchiveCost) => {
    const r = cost.perMillion;
    return `${count(r.forwardSends)} / ${count(r.publishSends)} / ${count(r.receives)} / ${count(r.deletes)} / ${count(r.deliveryChunksAdded)} / ${count(r.puts)}`;
  };
  const storage = (which: 'measured' | 'modelled') => result.storage.map((s) => usd(s[which])).join(' / ');
  const mb = (bytes: number) => round(bytes / 1e6, 1);
  const figures: Figure[] = [
    {
      metric: `${name}: archive cost per million events, AWS model (requests per event as measured${window === undefined ? '' : `, the delivery queue gathering for ${window.seconds} s`}; invocations, deletes and PUTs from a ${ARCHIVE_WINDOW_SECONDS} s window at the run's ${count(result.rate)} events/s: ${round(batch.messages, 1).toLocaleString('en-US')} messages, ${count(batch.events)} events a batch)`,
      value: usd(modelled.total),
      unit: 'USD',
      ...(verdict ?? {}),
    },
    ...byItemFigures(name, result),
    ...refusedFigures(name, result),
    {
      metric: `${name}: archived events per forward send, measured (the delivery function sends once per batch holding copies; ${window === undefined ? 'no batching window' : `${window.seconds} s batching window, up to ${window.batchSize} messages a batch`})`,
      value: round(eventsPerForward(on), 1),
      unit: 'events',
    },
    {
      metric: `${name}: archive cost per million events, measured locally (a batch is one receive, at most 10 messages, no window)`,
      value: usd(measured.total),
      unit: 'USD',
    },
    {
      metric: `${name}: SQS requests (64 KiB chunks) per million events, measured: forward sends / publish's own sends / archive receives / archive deletes (local) / chunks added to delivery messages; PUTs (local)`,
      value: requests(measured),
      unit: 'requests',
    },
    {
      metric: `${name}: dead-letter function per million events, measured locally (AWS model): invocations, archive deletes, segment PUTs`,
      value: `${count(measured.perMillion.invocations)}, ${count(measured.perMillion.deletes)}, ${count(measured.perMillion.puts)} (${count(modelled.perMillion.invocations)}, ${count(modelled.perMillion.deletes)}, ${count(modelled.perMillion.puts)})`,
      unit: '',
    },
    {
      metric: `${name}: events in the archive exactly once / published (${count(check.segments)} segments read back)`,
      value: `${count(check.once)} / ${count(check.published)}${check.repeated + check.missing + check.unknown > 0 ? ` (${count(check.repeated)} repeated, ${count(check.missing)} missing, ${count(check.unknown)} not published)` : ''}`,
      unit: 'events',
      goal: 'all, once each',
      met: archivedExactlyOnce(check),
    },
    {
      metric: `${name}: archive stored per million events, and its S3 Standard storage kept ${STORAGE_DAYS.join(' / ')} days: segments written locally, measured (the same events gzipped in segments of ${count(result.stored.modelledSegmentEvents)}, as the AWS model's batches write them)`,
      value: `${mb(result.stored.measured)} MB, ${storage('measured')} USD/month (${mb(result.stored.modelled)} MB, ${storage('modelled')} USD/month)`,
      unit: '',
    },
    {
      metric: `${name}: SQS send requests the publish function made per publish request, archive on (off), measured`,
      value: `${round(on.counts.publishFunctionSends / Math.max(1, on.requests), 2)} (${round(off.counts.publishFunctionSends / Math.max(1, off.requests), 2)})`,
      unit: 'requests',
    },
    {
      metric: `${name}: publish request p50 / p99, archive on (off), ${result.paired.on.length.toLocaleString('en-US')} requests to each topic alternating, ${c.inFlight === 1 ? 'one' : c.inFlight} in flight${c.requestsPerSecond === undefined ? '' : `, ${c.requestsPerSecond} a second`} (locally the archive's forwards and writes share the process and cores)`,
      value: `${p50p99(result.paired.on)} (${p50p99(result.paired.off)})`,
      unit: 'ms',
    },
    ...deliveryLatencyFigures(name, result),
    {
      metric: `${name}: function duration the archive added per million events, measured locally, not in the cost above: publish (on - off) / delivery's forward sends`,
      value: `${usd(result.added.publish)} / ${usd(result.added.forwards)}`,
      unit: 'USD',
    },
  ];
  if (goal !== undefined && window === undefined) {
    figures.push({
      metric: `${name}: lowest rate at which the AWS model meets ${goal} USD (requests per event held as measured)`,
      value:
        result.goalRate === undefined
          ? 'none: the requests per event alone cost more'
          : `${result.goalRate} events/s`,
      unit: '',
    });
  }
  return figures;
}

/** The cost breakdowns the report's "What dominates the cost" lists (AWS model). */
export const archiveBreakdowns = (results: readonly ArchiveCaseResult[]) =>
  Object.fromEntries(
    results.map((r) => {
      const { perMillion: _requests, ...breakdown } = r.modelled;
      return [`what it adds, (${r.case.key}) ${r.case.label}, AWS model`, breakdown];
    }),
  );

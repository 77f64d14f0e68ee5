/**
 * The archive scenario's figures (`scenarios/archive.ts`): each case's cost per million events
 * as modelled for AWS and as measured locally, its requests, the archive check, storage, the
 * publish function's sends and latency with and without the archive, and the lowest rate meeting
 * the goal; and the cost breakdowns the report lists.
 */
import { ARCHIVE_WINDOW_SECONDS } from '../shared/config/resources';
import { type ArchiveCaseResult, type ArchiveCost, archivedExactlyOnce, STORAGE_DAYS } from './archive';
import { p50p99, round } from './harness/figures';
import type { Figure } from './harness/types';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const usd = (value: number) => `${round(value, 4)}`;

/** The figures of one case. */
export function archiveCaseFigures(result: ArchiveCaseResult): Figure[] {
  const { case: c, on, off, check, measured, modelled, batch } = result;
  const name = `(${c.key}) ${c.label}`;
  const goal = c.goalUsd;
  const requests = (cost: ArchiveCost) => {
    const r = cost.perMillion;
    return `${count(r.forwardSends)} / ${count(r.publishSends)} / ${count(r.receives)} / ${count(r.deletes)} / ${count(r.deliveryChunksAdded)} / ${count(r.puts)}`;
  };
  const storage = (which: 'measured' | 'modelled') => result.storage.map((s) => usd(s[which])).join(' / ');
  const mb = (bytes: number) => round(bytes / 1e6, 1);
  const figures: Figure[] = [
    {
      metric: `${name}: archive cost per million events, AWS model (requests per event as measured; invocations, deletes and PUTs from a ${ARCHIVE_WINDOW_SECONDS} s window at the run's ${count(result.rate)} events/s: ${round(batch.messages, 1).toLocaleString('en-US')} messages, ${count(batch.events)} events a batch)`,
      value: usd(modelled.total),
      unit: 'USD',
      ...(goal === undefined ? {} : { goal: `<= ${goal} USD`, met: modelled.total <= goal }),
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
      metric: `${name}: publish request p50 / p99, archive on (off), ${result.paired.on.length.toLocaleString('en-US')} requests to each topic alternating, ${c.inFlight === 1 ? 'one' : c.inFlight} in flight (locally the archive's forwards and writes share the process and cores)`,
      value: `${p50p99(result.paired.on)} (${p50p99(result.paired.off)})`,
      unit: 'ms',
    },
    {
      metric: `${name}: function duration the archive added per million events, measured locally, not in the cost above: publish (on - off) / delivery's forward sends`,
      value: `${usd(result.added.publish)} / ${usd(result.added.forwards)}`,
      unit: 'USD',
    },
  ];
  if (goal !== undefined) {
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

/**
 * Optimistic batching across publishes, as a pure rule: the delivery jobs one invocation received
 * for the same subscription are merged into one job, so the engine cuts them into requests
 * together (`request.ts`, within the subscription's `maxEventsPerBatch` and preferred size) and
 * 1-event publishes that arrive together share batch requests, as the original fills a batch with
 * whatever events are there when it sends.
 *
 * Every event keeps its own state: its attempt count (events share a request only with events of
 * the same count, so `aeg-delivery-count` is true of all of them), its publish time (the time to
 * live is checked per event) and its delivery id (history, message log). Only jobs that are due
 * are merged: one not due yet goes round again on its own, at its own time.
 */
import type { DeliveryJob } from '../../domain/delivery';
import { topicIdOf } from '../../domain/names';

/** One merged job and what it was made of (the callers' handles on the jobs, in order). */
export interface MergedJob<S> {
  readonly job: DeliveryJob;
  readonly sources: readonly S[];
}

/** Jobs for the same subscription (the same one: a re-created subscription has another uid). */
export const mergeKeyOf = (job: DeliveryJob): string =>
  `${topicIdOf(job.target.topic)}\n${job.target.subscription}\n${job.target.uid ?? ''}`;

/** A job whose events may be attempted at `now` (no due time, or one that has come). */
export const isDue = (job: DeliveryJob, now: number): boolean => job.dueAt === undefined || job.dueAt <= now;

/**
 * Merges the due jobs of each subscription into one, in the order the jobs came (the first one's
 * place); a job not due stays on its own. The merged job's target is the newest version any of
 * them asked for (the engine reads the subscription at least at that version); its due time is
 * the latest of theirs, all of which have come.
 */
export function mergeDueJobs<S>(
  entries: readonly { readonly job: DeliveryJob; readonly source: S }[],
  now: number,
): MergedJob<S>[] {
  const merged: { jobs: DeliveryJob[]; sources: S[] }[] = [];
  const open = new Map<string, { jobs: DeliveryJob[]; sources: S[] }>();
  for (const { job, source } of entries) {
    if (!isDue(job, now)) {
      merged.push({ jobs: [job], sources: [source] });
      continue;
    }
    const key = mergeKeyOf(job);
    const group = open.get(key);
    if (group !== undefined) {
      group.jobs.push(job);
      group.sources.push(source);
      continue;
    }
    const started = { jobs: [job], sources: [source] };
    open.set(key, started);
    merged.push(started);
  }
  return merged.map(({ jobs, sources }) => ({ job: joined(jobs), sources }));
}

/** Several due jobs of one subscription as one. */
function joined(jobs: readonly DeliveryJob[]): DeliveryJob {
  const [first, ...rest] = jobs as [DeliveryJob, ...DeliveryJob[]];
  if (rest.length === 0) return first;
  const newest = jobs.reduce((best, job) => (job.target.version > best.target.version ? job : best), first);
  const dueAts = jobs.flatMap((job) => (job.dueAt === undefined ? [] : [job.dueAt]));
  return {
    v: first.v,
    ...(first.kind === undefined ? {} : { kind: first.kind }),
    target: newest.target,
    ...(dueAts.length === 0 ? {} : { dueAt: Math.max(...dueAts) }),
    items: jobs.flatMap((job) => job.items),
  };
}

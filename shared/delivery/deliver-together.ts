/**
 * The delivery jobs of one invocation, worked together: small fan-outs opened into their jobs,
 * then the due jobs of each subscription merged into one (`rules/merge-jobs.ts`) and taken through
 * the engine once, so events published one per request but received together share batch
 * requests (within the subscription's batch policy; an unbatched subscription still gets one
 * event per request). Each message is answered for on its own:
 *
 * - a delivery message is done when every merged job it went into was worked, and comes back
 *   otherwise (its events are attempted again, as at-least-once allows);
 * - a fan-out's jobs that were part of a merged job that failed are queued on their own, as a
 *   fan-out worked in place always did (the jobs that went through are not repeated); only if
 *   that fails too does the fan-out come back whole. A stored or large fan-out is queued as its
 *   jobs for any worker to take (`fan-out.ts`).
 */
import type { DeliveryJob, FanOutJob, StoredFanOutJob } from '../domain/delivery';
import type { LoggerLike } from '../observability/logging';
import type { Clock } from '../platform/clock';
import type { JobQueue } from '../queue/sqs-job-queue';
import { itemCount, type OpenedFanOut, queueJobs } from './fan-out';
import { addReports, emptyReport, type JobReport } from './job-report';
import { mergeDueJobs } from './rules/merge-jobs';

/** The messages worked together: delivery jobs and fan-outs. */
export type TogetherJob = DeliveryJob | FanOutJob | StoredFanOutJob;

/** What became of one message: worked (its report), or to be received again (why). */
export type TogetherResult =
  | { readonly ok: true; readonly report: JobReport }
  | { readonly ok: false; readonly reason: string };

export interface DeliverTogetherDeps {
  clock: Pick<Clock, 'now'>;
  queue: JobQueue;
  logger: LoggerLike;
  /** Works one (merged) delivery job through the engine. */
  deliver(job: DeliveryJob): Promise<JobReport>;
  /** A fan-out message's jobs, and whether they are worked here (`fan-out.ts`). */
  open(job: FanOutJob | StoredFanOutJob): Promise<OpenedFanOut>;
}

const isFanOut = (job: TogetherJob): job is FanOutJob | StoredFanOutJob =>
  job.kind === 'fanout' || job.kind === 'stored-fanout';

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** One delivery job of the invocation: the message it came in (by position), and its job. */
interface Part {
  readonly message: number;
  readonly job: DeliveryJob;
}

/** Works the messages together; one result per message, in order. */
export async function deliverTogether(
  messages: readonly TogetherJob[],
  deps: DeliverTogetherDeps,
): Promise<TogetherResult[]> {
  const failed = new Map<number, string>();
  const reports: JobReport[][] = messages.map(() => []);
  const fanOuts = new Map<number, { fanOut: FanOutJob; failedJobs: DeliveryJob[]; reason?: string }>();

  // Fan-outs opened: their in-place jobs join the invocation's, the others are queued now.
  const opened = await Promise.all(
    messages.map(async (message, index): Promise<readonly Part[]> => {
      if (!isFanOut(message)) return [{ message: index, job: message }];
      try {
        const fanOut = await deps.open(message);
        if (fanOut.kind === 'gone') return [];
        if (fanOut.kind === 'queue') {
          await queueJobs(deps.queue, fanOut.jobs);
          reports[index]?.push({ ...emptyReport(), queued: itemCount(fanOut.jobs) });
          return [];
        }
        fanOuts.set(index, { fanOut: fanOut.fanOut, failedJobs: [] });
        return fanOut.jobs.map((job) => ({ message: index, job }));
      } catch (error) {
        failed.set(index, reasonOf(error));
        return [];
      }
    }),
  );

  const merged = mergeDueJobs(
    opened.flat().map((part) => ({ job: part.job, source: part })),
    deps.clock.now(),
  );
  const worked = await Promise.allSettled(merged.map(({ job }) => deps.deliver(job)));
  worked.forEach((result, position) => {
    const { sources } = merged[position] as (typeof merged)[number];
    if (result.status === 'fulfilled') {
      // The merged job's report is told once, on the first message it was made of.
      const first = sources[0];
      if (first !== undefined) reports[first.message]?.push(result.value);
      return;
    }
    const reason = reasonOf(result.reason);
    for (const part of sources) {
      const fanOut = fanOuts.get(part.message);
      if (fanOut === undefined) failed.set(part.message, reason);
      else {
        fanOut.failedJobs.push(part.job);
        fanOut.reason = reason;
      }
    }
  });

  // A fan-out's failed jobs go on their own; the fan-out comes back only if that fails too.
  await Promise.all(
    [...fanOuts].map(async ([index, { fanOut, failedJobs, reason }]) => {
      if (failedJobs.length === 0) return;
      deps.logger.warn('fan-out jobs failed; queued on their own to be tried again', {
        topic: fanOut.topic,
        subscriptions: failedJobs.map((one) => one.target.subscription),
        error: reason,
      });
      try {
        await queueJobs(deps.queue, failedJobs);
        reports[index]?.push({ ...emptyReport(), queued: itemCount(failedJobs) });
      } catch (error) {
        failed.set(index, reasonOf(error));
      }
    }),
  );

  return messages.map((_, index): TogetherResult => {
    const reason = failed.get(index);
    return reason === undefined
      ? { ok: true, report: addReports(reports[index] ?? []) }
      : { ok: false, reason };
  });
}

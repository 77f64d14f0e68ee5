/**
 * A publish's fan-out (one message standing for the delivery jobs of several subscriptions, see
 * `domain/delivery.ts`) turned back into those jobs. A small one is worked in place, each job as
 * if it had come as its own message; a job of it that fails is queued on its own (so the jobs
 * that went through are not repeated), and only if that fails too does the fan-out come back
 * whole. A large or stored fan-out is queued as its jobs, for any worker to take.
 */
import { QUEUES } from '../config/resources';
import type { DeliveryJob, FanOutJob, StoredFanOutJob } from '../domain/delivery';
import type { FormatOneFanOutJob } from '../domain/job-format-1';
import type { LoggerLike } from '../observability/logging';
import { expandFanOut, isLegacyJob, packJobs, readFanOut, targetGroupId } from '../queue/job-codec';
import type { JobQueue, OutgoingJob } from '../queue/sqs-job-queue';
import type { FanOutStore } from '../storage/fan-out-bucket';
import { addReports, emptyReport, type JobReport } from './job-report';

/**
 * The most delivery jobs a worker takes from one fan-out itself: as many as one batch of queue
 * messages brings. A larger fan-out (or a stored one) is queued as its delivery jobs instead, so
 * its work spreads over workers as the publisher's separate jobs would have.
 */
export const FAN_OUT_IN_PLACE_JOBS = QUEUES.delivery.consumer.batchSize;

export interface FanOutDeps {
  /** Where stored fan-outs are read; without one, a stored fan-out fails (and comes back). */
  fanOuts: Pick<FanOutStore, 'get'> | undefined;
  queue: JobQueue;
  logger: LoggerLike;
  /** Works one delivery job as if it had come as its own message. */
  deliver: (job: DeliveryJob) => Promise<JobReport>;
  /**
   * A fan-out stored before an upgrade, of an earlier format, in the current one
   * (`job-upgrade.ts`); `undefined` when all its subscriptions are gone (their events dropped).
   */
  upgrade: (stored: FormatOneFanOutJob) => Promise<FanOutJob | undefined>;
}

const itemCount = (jobs: readonly DeliveryJob[]): number =>
  jobs.reduce((sum, job) => sum + job.items.length, 0);

export async function workFanOut(job: FanOutJob | StoredFanOutJob, deps: FanOutDeps): Promise<JobReport> {
  let fanOut: FanOutJob;
  if (job.kind === 'stored-fanout') {
    if (deps.fanOuts === undefined) throw new Error('this worker has no fan-out store');
    const stored = readFanOut(await deps.fanOuts.get(job.key));
    const current = isLegacyJob(stored) ? await deps.upgrade(stored) : stored;
    if (current === undefined) return emptyReport();
    fanOut = current;
  } else {
    fanOut = job;
  }
  const jobs = expandFanOut(fanOut);
  if (job.kind === 'stored-fanout' || jobs.length > FAN_OUT_IN_PLACE_JOBS) {
    await queueJobs(deps.queue, jobs);
    return { ...emptyReport(), queued: itemCount(jobs) };
  }
  const settled = await Promise.allSettled(jobs.map((one) => deps.deliver(one)));
  const failed = jobs.filter((_, index) => settled[index]?.status === 'rejected');
  if (failed.length > 0) {
    deps.logger.warn('fan-out jobs failed; queued on their own to be tried again', {
      topic: fanOut.topic,
      subscriptions: failed.map((one) => one.target.subscription),
      error: (
        (settled.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason as Error
      ).message,
    });
    await queueJobs(deps.queue, failed);
  }
  const reports = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  return addReports([...reports, { ...emptyReport(), queued: itemCount(failed) }]);
}

/** Queues delivery jobs as they are, on the delivery queue. */
async function queueJobs(queue: JobQueue, jobs: readonly DeliveryJob[]): Promise<void> {
  const outgoing: OutgoingJob[] = [];
  for (const job of jobs) {
    const groupId = targetGroupId(job.target);
    for (const body of packJobs(job, job.items)) outgoing.push({ body, delaySeconds: 0, groupId });
  }
  await queue.send('delivery', outgoing);
}

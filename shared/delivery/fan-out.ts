/**
 * A publish's fan-out (one message standing for the delivery jobs of several subscriptions, see
 * `domain/delivery.ts`) turned back into those jobs. A small one is worked in place, its jobs
 * with the invocation's other delivery jobs (`deliver-together.ts`); a large or stored one is
 * queued as its jobs, for any worker to take.
 */
import { QUEUES } from '../config/resources';
import type { DeliveryJob, FanOutJob, StoredFanOutJob } from '../domain/delivery';
import type { FormatOneFanOutJob } from '../domain/job-format-1';
import { expandFanOut, isLegacyJob, packJobs, readFanOut, targetGroupId } from '../queue/job-codec';
import type { JobQueue, OutgoingJob } from '../queue/sqs-job-queue';
import type { FanOutStore } from '../storage/fan-out-bucket';

/**
 * The most delivery jobs a worker takes from one fan-out itself: as many as one batch of queue
 * messages brings. A larger fan-out (or a stored one) is queued as its delivery jobs instead, so
 * its work spreads over workers as the publisher's separate jobs would have.
 */
export const FAN_OUT_IN_PLACE_JOBS = QUEUES.delivery.consumer.batchSize;

export interface FanOutDeps {
  /** Where stored fan-outs are read; without one, a stored fan-out fails (and comes back). */
  fanOuts: Pick<FanOutStore, 'get'> | undefined;
  /**
   * A fan-out stored before an upgrade, of an earlier format, in the current one
   * (`job-upgrade.ts`); `undefined` when all its subscriptions are gone (their events dropped).
   */
  upgrade: (stored: FormatOneFanOutJob) => Promise<FanOutJob | undefined>;
}

/**
 * What a fan-out message stands for: nothing left (every subscription of a stored fan-out of an
 * earlier format is gone), delivery jobs to queue for any worker (a stored or large fan-out), or
 * few enough to work in place (`deliver-together.ts`).
 */
export type OpenedFanOut =
  | { readonly kind: 'gone' }
  | { readonly kind: 'queue'; readonly jobs: readonly DeliveryJob[] }
  | { readonly kind: 'inPlace'; readonly fanOut: FanOutJob; readonly jobs: readonly DeliveryJob[] };

/** A fan-out message's delivery jobs, its body read from the fan-out bucket when stored. */
export async function openFanOut(job: FanOutJob | StoredFanOutJob, deps: FanOutDeps): Promise<OpenedFanOut> {
  let fanOut: FanOutJob;
  if (job.kind === 'stored-fanout') {
    if (deps.fanOuts === undefined) throw new Error('this worker has no fan-out store');
    const stored = readFanOut(await deps.fanOuts.get(job.key));
    const current = isLegacyJob(stored) ? await deps.upgrade(stored) : stored;
    if (current === undefined) return { kind: 'gone' };
    fanOut = current;
  } else {
    fanOut = job;
  }
  const jobs = expandFanOut(fanOut);
  if (job.kind === 'stored-fanout' || jobs.length > FAN_OUT_IN_PLACE_JOBS) return { kind: 'queue', jobs };
  return { kind: 'inPlace', fanOut, jobs };
}

/** How many events the jobs hold. */
export const itemCount = (jobs: readonly DeliveryJob[]): number =>
  jobs.reduce((sum, job) => sum + job.items.length, 0);

/** Queues delivery jobs as they are, on the delivery queue. */
export async function queueJobs(queue: JobQueue, jobs: readonly DeliveryJob[]): Promise<void> {
  const outgoing: OutgoingJob[] = [];
  for (const job of jobs) {
    const groupId = targetGroupId(job.target);
    for (const body of packJobs(job, job.items)) outgoing.push({ body, delaySeconds: 0, groupId });
  }
  await queue.send('delivery', outgoing);
}

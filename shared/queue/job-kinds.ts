/**
 * What the queue layer reads of a job of any kind: its kind (a message's claimed kind picks the
 * schema `readJobMessage` reads it by, `JOB_SCHEMAS` in `domain/delivery.ts`; an earlier format's
 * kinds keep these names, `domain/job-format-1.ts`), and the topic, subscription and event count
 * that logs and message groups use, the same for every kind. Which queues carry each kind and the
 * step that runs it there are the job registry's (`delivery/job-registry.ts`).
 */
import { JOB_SCHEMAS, type JobKind, type QueuedJob, type TopicRef } from '../domain/delivery';
import { topicIdOf } from '../domain/names';

export type { JobKind, JobOfKind } from '../domain/delivery';

const isJobKind = (value: unknown): value is JobKind =>
  typeof value === 'string' && Object.hasOwn(JOB_SCHEMAS, value);

/** A job's kind (of any format read: the kinds keep their names across formats). */
export const kindOf = (job: { readonly kind?: JobKind }): JobKind => job.kind ?? 'deliver';

/**
 * The kind a message claims to be, from its parsed JSON: its `kind` when that names a kind, else
 * `deliver` (whose schema then names `kind` as what is wrong, when there is one).
 */
export function claimedKind(json: unknown): JobKind {
  const kind = typeof json === 'object' && json !== null ? (json as { kind?: unknown }).kind : undefined;
  return isJobKind(kind) ? kind : 'deliver';
}

/** The topic a job's events were published to. */
export const jobTopicOf = (job: QueuedJob): TopicRef => ('target' in job ? job.target.topic : job.topic);

/**
 * The subscription a job is for (a replay's page: the subscription replayed to); a fan-out is for
 * several (the engine names them), and an archive job for none.
 */
export const jobSubscriptionOf = (job: QueuedJob): string | undefined =>
  'target' in job ? job.target.subscription : job.kind === 'replay-page' ? job.subscription : undefined;

/** The events the message itself carries (a stored fan-out's are in the bucket). */
export const jobEventCount = (job: QueuedJob): number =>
  'items' in job ? job.items.length : 'ended' in job ? job.ended.length : 0;

/** What logs say about a job: its topic, the subscription it is for and the events it carries. */
export function jobLogFields(job: QueuedJob): { topic: string; subscription?: string; events: number } {
  const subscription = jobSubscriptionOf(job);
  return {
    topic: topicIdOf(jobTopicOf(job)),
    ...(subscription === undefined ? {} : { subscription }),
    events: jobEventCount(job),
  };
}

/**
 * Jobs of an earlier format, brought to the current one when they are received, so a deploy finds
 * nothing to refuse in the queues it inherits. `queue/job-codec.ts` reads them (pure:
 * `readJobMessage` gives a `LegacyJob`); the consumer shell (`lambda/job-consumer.ts`), the one
 * place queue messages are read, hands each to its function's upgrade before the job is worked:
 * the delivery worker's `upgrade` (which drops what this returns as gone), or
 * {@link upgradeEndedJob} in the dead-letter function. A fan-out stored in the bucket before the
 * upgrade is upgraded where it is read (`fan-out.ts`).
 *
 * **Format 1 to 2** (`domain/job-format-1.ts`). Format 1 named the subscription (topic id, name,
 * uid, version); format 2 carries its whole delivery target. The target is built as a fresh
 * publish builds it, `deliveryTargetOf` the subscription read now (at least at the version the
 * job was made for, through the engine's own cached source). A subscription that is gone (not
 * found, or found with another uid: deleted and created again) is what the engine makes of a
 * format-2 job for it: the events are returned as `gone`, for the caller to drop as
 * `SubscriptionDeleted`, and a validation handshake for it is stale, so nothing is left of it.
 * An ended job needs no read: it carried where and how its dead letters are written, and the
 * delivery schema format 2 adds follows from the record format (`deliverySchemaOfFormat`), which
 * is all the dead-letter step reads it for. A stored fan-out's message names only its topic.
 *
 * A later format adds one step here (its predecessor to it) and the reader of its predecessor in
 * `job-codec.ts`; older formats go through the steps in turn.
 */
import {
  type DeliveryItem,
  type DeliveryJob,
  type DeliveryTarget,
  type EndedJob,
  type FanOutJob,
  type FanOutTarget,
  JOB_FORMAT_VERSION,
  type QueuedJob,
  type StoredFanOutJob,
  type ValidationJob,
} from '../domain/delivery';
import type {
  FormatOneDeliveryJob,
  FormatOneEndedJob,
  FormatOneFanOutJob,
  FormatOneStoredFanOutJob,
  FormatOneValidationJob,
} from '../domain/job-format-1';
import { topicRefOf } from '../domain/names';
import type { LegacyJob } from '../queue/job-codec';
import type { SubscriptionSource } from './ports';
import { deliverySchemaOfFormat } from './rules/dead-letter-layout';
import { deliveryTargetOf, isSameSubscription } from './target';

export interface JobUpgradeDeps {
  /**
   * The subscriptions, as the delivery engine reads them: at least at a version asked for, and
   * `undefined` only once a strongly consistent read confirms one is gone.
   */
  subscriptions: SubscriptionSource;
}

/** Events of a job being upgraded whose subscription is gone: to drop as `SubscriptionDeleted`. */
export interface GoneEvents {
  target: Pick<DeliveryTarget, 'topic' | 'subscription'>;
  items: DeliveryItem[];
}

/** A job in the current format, and the events of it whose subscription is gone. */
export interface Upgraded<J extends QueuedJob = QueuedJob> {
  /** Absent when nothing of the job is left to work (its subscription, or all of a fan-out's, gone). */
  job?: J;
  gone: GoneEvents[];
}

/** A job of an earlier format in the current one, by its kind. */
export async function upgradeJob(job: LegacyJob, deps: JobUpgradeDeps): Promise<Upgraded> {
  switch (job.kind) {
    case undefined:
    case 'deliver':
      return upgradeDeliveryJob(job, deps);
    case 'validate':
      return upgradeValidationJob(job, deps);
    case 'fanout':
      return upgradeFanOutJob(job, deps);
    case 'stored-fanout':
      return { job: upgradeStoredFanOutJob(job), gone: [] };
    case 'ended':
      return { job: upgradeEndedJob(job), gone: [] };
  }
}

/** The names a format-1 job gave its subscription. */
interface FormatOneOwner {
  subscription: string;
  subscriptionUid?: string;
  subscriptionVersion?: number;
}

/**
 * The target of the subscription a format-1 job names, built from it as read now (never at an
 * older version than the job's, as the engine builds the targets of the jobs it sends on), or
 * `undefined` when that subscription is gone.
 */
async function currentTarget(
  deps: JobUpgradeDeps,
  topic: string,
  owner: FormatOneOwner,
): Promise<DeliveryTarget | undefined> {
  const subscription = await deps.subscriptions.get(topic, owner.subscription, owner.subscriptionVersion);
  if (subscription === undefined || !isSameSubscription(owner.subscriptionUid, subscription))
    return undefined;
  return {
    ...deliveryTargetOf(subscription),
    version: Math.max(subscription.version, owner.subscriptionVersion ?? 0),
  };
}

/** Events for one subscription: the same events, due at the same time, for its target. */
export async function upgradeDeliveryJob(
  job: FormatOneDeliveryJob,
  deps: JobUpgradeDeps,
): Promise<Upgraded<DeliveryJob>> {
  const target = await currentTarget(deps, job.topic, job);
  if (target === undefined) {
    return {
      gone: [{ target: { topic: topicRefOf(job.topic), subscription: job.subscription }, items: job.items }],
    };
  }
  return {
    job: {
      v: JOB_FORMAT_VERSION,
      target,
      ...(job.dueAt === undefined ? {} : { dueAt: job.dueAt }),
      items: job.items,
    },
    gone: [],
  };
}

/** A validation handshake, for the subscription's target; none when the subscription is gone (stale). */
export async function upgradeValidationJob(
  job: FormatOneValidationJob,
  deps: JobUpgradeDeps,
): Promise<Upgraded<ValidationJob>> {
  const target = await currentTarget(deps, job.topic, job);
  if (target === undefined) return { gone: [] };
  return {
    job: {
      v: JOB_FORMAT_VERSION,
      kind: 'validate',
      target,
      code: job.code,
      validationUrl: job.validationUrl,
    },
    gone: [],
  };
}

/**
 * A publish's fan-out: each subscription's target as read now; the events matched by one that is
 * gone are gone for it. The events stay where they were, so the indexes hold.
 */
export async function upgradeFanOutJob(
  job: FormatOneFanOutJob,
  deps: JobUpgradeDeps,
): Promise<Upgraded<FanOutJob>> {
  const topic = topicRefOf(job.topic);
  const found = await Promise.all(job.targets.map((owner) => currentTarget(deps, job.topic, owner)));
  const targets: FanOutTarget[] = [];
  const gone: GoneEvents[] = [];
  job.targets.forEach(({ subscription, matched }, index) => {
    const target = found[index];
    if (target === undefined) {
      gone.push({
        target: { topic, subscription },
        items: matched.map((at) => job.items[at] as DeliveryItem),
      });
      return;
    }
    const { topic: _topic, ...rest } = target;
    targets.push({ ...rest, matched: [...matched] });
  });
  if (targets.length === 0) return { gone };
  return { job: { v: JOB_FORMAT_VERSION, kind: 'fanout', topic, items: job.items, targets }, gone };
}

/** The message of a stored fan-out: its topic as a structure (the body is upgraded when read). */
export const upgradeStoredFanOutJob = (job: FormatOneStoredFanOutJob): StoredFanOutJob => ({
  v: JOB_FORMAT_VERSION,
  kind: 'stored-fanout',
  topic: topicRefOf(job.topic),
  key: job.key,
  bytes: job.bytes,
});

/**
 * Ended deliveries, upgraded without a read: their target is what the job carried. Format 1's
 * engine always wrote the version on them; a job without one (its schema allowed it) gets 0, which
 * asks for no version (the dead-letter step reads no subscription).
 */
export const upgradeEndedJob = (job: FormatOneEndedJob): EndedJob => ({
  v: JOB_FORMAT_VERSION,
  kind: 'ended',
  target: {
    topic: topicRefOf(job.topic),
    subscription: job.subscription,
    ...(job.subscriptionUid === undefined ? {} : { uid: job.subscriptionUid }),
    version: job.subscriptionVersion ?? 0,
    profile: job.deliveryProfile,
    schema: deliverySchemaOfFormat(job.deadLetter.format),
    deadLetter: { container: job.deadLetter.container, format: job.deadLetter.format },
  },
  ended: job.ended,
});

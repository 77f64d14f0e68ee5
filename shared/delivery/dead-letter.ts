/**
 * The dead-letter step: where deliveries go when the retry engine gives up on them. For a
 * subscription with a dead-letter destination the engine hands them over through a queue
 * (`QUEUES.endedDelivery`, delayed 5 minutes so writes group); the dead-letter function writes them
 * to S3. Without a destination they are dropped: counted (`DroppedEventCount` by `DropReason`)
 * and logged with their event ids.
 */
import type {
  DeadLetterTarget,
  DeliveryItem,
  DeliveryTarget,
  EndedDelivery,
  EndedJob,
} from '../domain/delivery';
import type { DropReason } from '../domain/model';
import { topicIdOf } from '../domain/names';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../observability/metrics';
import type { Clock } from '../platform/clock';
import { packEndedJobs, targetGroupId } from '../queue/job-codec';
import { done, poison, type RecordOutcome, retryLater } from '../queue/record-outcome';
import type { JobQueue } from '../queue/sqs-job-queue';
import { type DeadLetterBucket, DeadLetterDestinationNotFound } from '../storage/dead-letter-bucket';
import { bucketFor, type NamedBucketRef } from '../storage/dead-letter-buckets';
import { eventAsDeadLettered } from './rules/convert';
import {
  type DeadLetterFacts,
  type DeadLetterScope,
  deadLetterBlob,
  deadLetterKey,
  deadLetterPrefix,
  deadLetterRecord,
} from './rules/dead-letter-layout';
import {
  DEAD_LETTER_NOTICES,
  type DeadLetterNotice,
  deadLetterNotices,
  isDeadLetterNoticeTopic,
} from './rules/dead-letter-notice';
import {
  deadLetterGivesUp,
  deadLetterRetryDelayMs,
  deadLetterUnavailableSince,
  type ProfileTable,
} from './rules/profiles';
import { deadLetterScopeOfTarget } from './target';

/** Counts and logs dropped events. */
export class DropRecorder {
  constructor(
    private readonly metrics: MetricBuffer,
    private readonly logger: LoggerLike,
  ) {}

  drop(
    target: Pick<DeliveryTarget, 'topic' | 'subscription'>,
    drops: readonly { item: DeliveryItem; reason: DropReason }[],
  ): void {
    const topic = topicIdOf(target.topic);
    const { subscription } = target;
    const byReason = new Map<DropReason, DeliveryItem[]>();
    for (const { item, reason } of drops) byReason.set(reason, [...(byReason.get(reason) ?? []), item]);
    for (const [reason, items] of byReason) {
      this.metrics.count(METRIC.DroppedEventCount, items.length, {
        ...subscriptionDimensions(topic, subscription),
        DropReason: reason,
      });
      this.logger.warn('events dropped', {
        topic,
        subscription,
        dropReason: reason,
        events: items.map((item) => ({
          id: item.eventId,
          deliveryId: item.deliveryId,
          deliveryAttempts: item.attempts,
          lastDeliveryOutcome: item.lastOutcome,
        })),
      });
    }
  }
}

export interface DeadLetterStepDeps {
  /** The stack's own dead-letter bucket. */
  bucket: Pick<DeadLetterBucket, 'put'>;
  /**
   * The bucket a subscription names (`deadLetter.bucket`), reached as its target says (a role to
   * assume). Absent: such dead letters cannot be written, and wait as for a bucket that refuses.
   */
  namedBucket?: (ref: NamedBucketRef) => Pick<DeadLetterBucket, 'put'>;
  /** Where ended deliveries wait while the bucket cannot be written. */
  queue: JobQueue;
  clock: Clock;
  /** Delivery profiles by name, scaled like the engine's (their dead-letter timing). */
  profiles: ProfileTable;
  drops: DropRecorder;
  metrics: MetricBuffer;
  logger: LoggerLike;
  /** A new unique id (blob names). */
  newId: () => string;
  /**
   * Where dead-letter notices are published (`DEAD_LETTER_NOTICES`); absent: none are. Best effort:
   * the blobs are written either way, and a notice that could not be sent is logged.
   */
  notices?: DeadLetterNotifier;
}

/** Publishes events Gridwire raises itself to one of its own topics (the publisher does). */
export interface DeadLetterNotifier {
  publishOwn(topic: string, events: readonly DeadLetterNotice[]): Promise<unknown>;
}

/** Notices sent in one publish at most. */
export const NOTICES_PER_PUBLISH = 100;

/** What became of a batch of ended-delivery jobs. */
export interface DeadLetterReport {
  written: number;
  blobs: number;
  /** Re-queued to be written again later (the bucket refused). */
  waiting: number;
  dropped: number;
  /**
   * What became of each job, by its index: `done` (written, re-queued or dropped), `retryLater`
   * when it could be neither written nor re-queued, `poison` when it has no dead-letter place.
   */
  outcomes: RecordOutcome[];
}

interface Group {
  /** The target of the group's first job (the others agree on everything a blob depends on). */
  target: DeadLetterTarget;
  scope: DeadLetterScope;
  jobIndexes: Set<number>;
  entries: EndedDelivery[];
}

/**
 * The dead-letter step. It writes the ended deliveries of a batch of jobs grouped by
 * destination and subscription, one blob per group (a JSON array of records), so a burst of
 * failures costs a few S3 writes. The bucket is the stack's own, or the one the subscription
 * names (reached with a role when it says so). When the bucket refuses or does not exist, the
 * deliveries wait on the queue and are tried again on their profile's schedule (classic: every
 * 5 min; namespace: 10 s, 1 min, 5 min, then every 5 min; each delivery counts its failed
 * writes); once the destination has been unavailable for `giveUpAfterMs` (4 h), counted from the
 * delivery's first failed write, they are dropped, counted (`DroppedEventCount`, by the last
 * failure: `DeadLetterDestinationNotFound` for a bucket that does not exist, else
 * `DeadLetterStoreUnavailable`) and logged, as the original drops dead letters whose location is
 * unavailable for four hours or not found. Blob keys and records follow the job's record format:
 * the namespace layout for `namespace`, the classic one otherwise. Each blob written raises its
 * dead-letter notices (`dead-letter-notice.ts`), published once the batch is written.
 */
export class DeadLetterStep {
  constructor(private readonly deps: DeadLetterStepDeps) {}

  /**
   * Writes the jobs' ended deliveries. Groups not started before `deadline` (epoch ms; the
   * function's time is running out) go back on the queue to be written soon, so a slow bucket
   * never makes the whole batch come back and be written twice.
   */
  async write(jobs: readonly EndedJob[], options: { deadline?: number } = {}): Promise<DeadLetterReport> {
    const report: DeadLetterReport = {
      written: 0,
      blobs: 0,
      waiting: 0,
      dropped: 0,
      outcomes: jobs.map(() => done()),
    };
    const { groups, unplaced } = groupByBlob(jobs);
    const notices: DeadLetterNotice[] = [];
    for (const { index, error } of unplaced) {
      // Not a job the engine writes (a namespace format without a namespace topic): its message
      // comes back and, failing again, is parked on the redrive queue, where an alarm sees it.
      this.deps.logger.error('ended deliveries with no dead-letter place', {
        topic: jobs[index]?.target.topic,
        subscription: jobs[index]?.target.subscription,
        error: error.message,
      });
      report.outcomes[index] = poison(`ended deliveries with no dead-letter place: ${error.message}`);
    }
    for (const group of groups) {
      const now = this.deps.clock.now();
      if (options.deadline !== undefined && now >= options.deadline) {
        await this.postpone(group, group.entries, 1, report);
        continue;
      }
      const { target } = group;
      const key = deadLetterKey(target.deadLetter.container, group.scope, now, this.deps.newId());
      const body = deadLetterBlob(
        group.entries.map((entry) =>
          deadLetterRecord(
            target.deadLetter.format,
            eventAsDeadLettered(target.schema, entry.item.eventJson),
            factsOf(entry),
            entry.customDeliveryProperties,
          ),
        ),
      );
      try {
        await bucketFor(target.deadLetter, this.deps.bucket, this.deps.namedBucket).put(
          key,
          body,
          topicIdOf(target.topic),
          target.uid,
        );
      } catch (error) {
        await this.cannotWrite(group, error as Error, report);
        continue;
      }
      report.written += group.entries.length;
      report.blobs += 1;
      this.countDeadLettered(group);
      // The notices' own subscriptions raise none, so a failing one can't feed itself.
      if (!isDeadLetterNoticeTopic(target.topic)) {
        notices.push(
          ...deadLetterNotices({
            container: target.deadLetter.container,
            key,
            ...(target.deadLetter.bucket === undefined ? {} : { bucket: target.deadLetter.bucket }),
            topic: target.topic,
            topicId: topicIdOf(target.topic),
            subscription: target.subscription,
            reasons: group.entries.map((entry) => entry.reason),
            writtenAt: now,
          }),
        );
      }
    }
    await this.sendNotices(notices);
    return report;
  }

  /** Publishes the notices of the blobs written, best effort (a failure is logged). */
  private async sendNotices(notices: readonly DeadLetterNotice[]): Promise<void> {
    const notifier = this.deps.notices;
    if (notifier === undefined || notices.length === 0) return;
    for (let start = 0; start < notices.length; start += NOTICES_PER_PUBLISH) {
      const chunk = notices.slice(start, start + NOTICES_PER_PUBLISH);
      try {
        await notifier.publishOwn(DEAD_LETTER_NOTICES.topic, chunk);
      } catch (error) {
        this.deps.logger.warn('could not send dead-letter notices; the dead letters are written', {
          topic: DEAD_LETTER_NOTICES.topic,
          blobs: [...new Set(chunk.map((notice) => notice.data.blobKey))],
          error: (error as Error).message,
        });
      }
    }
  }

  private countDeadLettered(group: Group): void {
    const dims = subscriptionDimensions(topicIdOf(group.target.topic), group.target.subscription);
    for (const entry of group.entries) {
      this.deps.metrics.count(METRIC.DeadLetteredCount, 1, { ...dims, DeadLetterReason: entry.reason });
    }
  }

  /**
   * The bucket refused, or does not exist: drop what has waited for it for the limit, re-queue
   * the rest to be tried again. The limit counts from each delivery's first failed write.
   */
  private async cannotWrite(group: Group, error: Error, report: DeadLetterReport): Promise<void> {
    const { clock, profiles, logger } = this.deps;
    const { target } = group;
    const missing = error instanceof DeadLetterDestinationNotFound;
    const timing = profiles[target.profile].deadLetter;
    const now = clock.now();
    const pastLimit = (entry: EndedDelivery) => deadLetterGivesUp(timing, entry, now);
    const expired = group.entries.filter(pastLimit);
    const waiting = group.entries.filter((entry) => !pastLimit(entry));
    logger[missing ? 'error' : 'warn']('could not write dead letters', {
      topic: target.topic,
      subscription: target.subscription,
      container: target.deadLetter.container,
      ...(target.deadLetter.bucket === undefined ? {} : { bucket: target.deadLetter.bucket }),
      events: group.entries.length,
      givingUp: expired.length,
      error: error.message,
    });
    if (expired.length > 0) {
      const reason = missing ? 'DeadLetterDestinationNotFound' : 'DeadLetterStoreUnavailable';
      this.deps.drops.drop(
        target,
        expired.map((entry) => ({ item: entry.item, reason })),
      );
      report.dropped += expired.length;
    }
    if (waiting.length === 0) return;
    // Each delivery counts its failed writes; those with the same next delay wait together.
    const byDelay = new Map<number, EndedDelivery[]>();
    for (const entry of waiting) {
      const failedWrites = (entry.failedWrites ?? 0) + 1;
      // At least a second, so a large time scale never turns the wait into a tight loop.
      const delaySeconds = Math.max(1, deadLetterRetryDelayMs(timing, failedWrites) / 1000);
      byDelay.set(delaySeconds, [
        ...(byDelay.get(delaySeconds) ?? []),
        { ...entry, failedWrites, firstFailedWriteAt: deadLetterUnavailableSince(entry, now) },
      ]);
    }
    for (const [delaySeconds, entries] of byDelay) await this.postpone(group, entries, delaySeconds, report);
  }

  /** Puts entries back on the queue, to be written after `delaySeconds`. */
  private async postpone(
    group: Group,
    entries: readonly EndedDelivery[],
    delaySeconds: number,
    report: DeadLetterReport,
  ): Promise<void> {
    const { logger } = this.deps;
    try {
      await this.deps.queue.send(
        'endedDelivery',
        packEndedJobs(group.target, entries).map((body) => ({
          body,
          delaySeconds,
          groupId: targetGroupId(group.target),
        })),
      );
      report.waiting += entries.length;
    } catch (requeueError) {
      const reason = `could neither write nor re-queue dead letters: ${(requeueError as Error).message}`;
      logger.error('could not re-queue dead letters; their messages will be received again', {
        error: (requeueError as Error).message,
      });
      for (const index of group.jobIndexes) report.outcomes[index] = retryLater(reason);
    }
  }
}

/** The record facts of an ended delivery: its final state, with the real attempt times. */
function factsOf(entry: EndedDelivery): DeadLetterFacts {
  const { item, reason } = entry;
  return {
    reason,
    deliveryAttempts: item.attempts,
    ...(item.lastOutcome === undefined ? {} : { lastDeliveryOutcome: item.lastOutcome }),
    publishTime: item.publishedAt,
    ...(item.lastAttemptAt === undefined ? {} : { lastDeliveryAttemptTime: item.lastAttemptAt }),
  };
}

/**
 * Ended deliveries of a batch grouped by the blob they go into: destination, format and
 * subscription (classic or namespace scope, by format); `unplaced` are jobs that have no scope.
 */
function groupByBlob(jobs: readonly EndedJob[]): {
  groups: Group[];
  unplaced: { index: number; error: Error }[];
} {
  const groups = new Map<string, Group>();
  const unplaced: { index: number; error: Error }[] = [];
  jobs.forEach((job, index) => {
    const { target } = job;
    let scope: DeadLetterScope;
    try {
      scope = deadLetterScopeOfTarget(target);
    } catch (error) {
      unplaced.push({ index, error: error as Error });
      return;
    }
    const id = JSON.stringify([
      target.deadLetter.bucket ?? null,
      target.deadLetter.roleArn ?? null,
      target.deadLetter.externalId ?? null,
      target.deadLetter.container,
      target.deadLetter.format,
      target.schema,
      deadLetterPrefix(target.deadLetter.container, scope),
      topicIdOf(target.topic).toLowerCase(),
    ]);
    let group = groups.get(id);
    if (group === undefined) {
      group = { target, scope, jobIndexes: new Set(), entries: [] };
      groups.set(id, group);
    }
    group.jobIndexes.add(index);
    group.entries.push(...job.ended);
  });
  return { groups: [...groups.values()], unplaced };
}

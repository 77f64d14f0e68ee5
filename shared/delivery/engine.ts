/**
 * The delivery engine: takes one delivery job (one SQS message) and carries out the rules of
 * `retry-policy.ts` with real I/O: wait or hop until due, check TTL, attempt, then schedule
 * retries, record failed attempts and hand ended deliveries to the dead-letter sink.
 *
 * Everything effectful is a dependency, so the same engine runs in Lambda, in the local stack
 * and in virtual time.
 */

import type {
  AttemptNext,
  AttemptRecord,
  AttemptResult,
  DeadLetterReason,
  DeliveryItem,
  DeliveryJob,
  Subscription,
} from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../observability/metrics';
import type { Clock, Random } from '../platform/clock';
import { Semaphore } from '../platform/concurrency';
import { packJobs } from '../queue/job-codec';
import type { JobQueue, OutgoingJob } from '../queue/sqs-job-queue';
import type { DeadLetterSink, DropRecorder, EndedDelivery } from './dead-letter';
import { buildDeliveryRequest } from './request';
import {
  baseDelayMs,
  type DeliveryProfile,
  decideAfterFailure,
  expiresAtDue,
  planWait,
  sqsDelaySeconds,
} from './rules/retry';
import type { WebhookSender } from './webhook-sender';

export interface SubscriptionSource {
  /** The subscription, or `undefined` if it (or its topic) no longer exists. */
  get(topic: string, name: string): Promise<Subscription | undefined>;
}

export interface AttemptHistory {
  record(records: readonly AttemptRecord[]): Promise<void>;
}

export interface DeliveryEngineDeps {
  clock: Clock;
  random: Random;
  /** The delivery profile, already scaled by `timeScale`. */
  profile: DeliveryProfile;
  /** Divides TTLs (local mode); 1 on AWS. */
  timeScale: number;
  subscriptions: SubscriptionSource;
  sender: WebhookSender;
  queue: JobQueue;
  history: AttemptHistory;
  deadLetters: DeadLetterSink;
  drops: DropRecorder;
  metrics: MetricBuffer;
  logger: LoggerLike;
  /** Webhook requests in flight at once, across all jobs of this engine. */
  concurrency: number;
}

export interface JobOptions {
  /** Epoch ms after which no new attempt starts; later items go back to the queue untouched. */
  attemptDeadline: number;
}

export interface JobReport {
  /** The job was not due yet and went back to the retry queue. */
  hopped: boolean;
  delivered: number;
  retried: number;
  ended: number;
  /** Not attempted before the deadline; re-queued as they were. */
  deferred: number;
}

type Attempted = { item: DeliveryItem; result: AttemptResult } | { item: DeliveryItem; result: 'deferred' };

export class DeliveryEngine {
  private readonly inFlight: Semaphore;

  constructor(private readonly deps: DeliveryEngineDeps) {
    this.inFlight = new Semaphore(deps.concurrency);
  }

  async processJob(job: DeliveryJob, options: JobOptions): Promise<JobReport> {
    const { clock, queue } = this.deps;
    const report: JobReport = { hopped: false, delivered: 0, retried: 0, ended: 0, deferred: 0 };

    const wait = planWait(job.dueAt, clock.now());
    if (wait.kind === 'hop') {
      await queue.send('retry', [{ body: JSON.stringify(job), delaySeconds: wait.delaySeconds }]);
      return { ...report, hopped: true };
    }
    if (wait.kind === 'sleep') await clock.sleep(wait.ms);

    const subscription = await this.deps.subscriptions.get(job.topic, job.subscription);
    if (subscription === undefined) {
      this.deps.drops.drop(
        job.topic,
        job.subscription,
        job.items.map((item) => ({ item, reason: 'SubscriptionDeleted' as const })),
      );
      return { ...report, ended: job.items.length };
    }

    const dueAt = clock.now();
    const records: AttemptRecord[] = [];
    const ended: EndedDelivery[] = [];
    const live: DeliveryItem[] = [];
    for (const item of job.items) {
      if (expiresAtDue(item.publishedAt, subscription.retryPolicy, dueAt, this.deps.timeScale)) {
        ended.push({ item, reason: 'TimeToLiveExceeded', endedAt: dueAt });
        records.push(
          this.record(subscription, item, item.attempts + 1, dueAt, {
            outcome: 'NotAttempted',
            next: this.endNext(subscription, 'TimeToLiveExceeded'),
          }),
        );
      } else {
        live.push(item);
      }
    }

    const attempted = await Promise.all(live.map((item) => this.attempt(subscription, item, options)));
    const decidedAt = clock.now();
    const retries = new Map<number, DeliveryItem[]>();
    const deferred: DeliveryItem[] = [];
    const draws = new Map<string, number>();
    const dims = subscriptionDimensions(subscription.topic, subscription.name);

    for (const { item, result } of attempted) {
      if (result === 'deferred') {
        deferred.push(item);
        continue;
      }
      this.deps.metrics.duration(METRIC.DestinationProcessingDurationInMs, result.durationMs, dims);
      const attemptNumber = item.attempts + 1;
      if (result.delivered) {
        report.delivered += 1;
        this.deps.metrics.count(METRIC.DeliverySuccessCount, 1, dims);
        if (item.attempts > 0) {
          records.push(
            this.record(subscription, item, attemptNumber, decidedAt, {
              ...result,
              outcome: 'Delivered',
              next: { action: 'none' },
            }),
          );
        }
        continue;
      }
      this.deps.metrics.count(METRIC.DeliveryAttemptFailCount, 1, {
        ...dims,
        Error: result.outcome ?? 'GenericError',
      });
      const failed: DeliveryItem = {
        ...item,
        attempts: attemptNumber,
        ...(result.outcome === undefined ? {} : { lastOutcome: result.outcome }),
        ...(result.httpStatus === undefined ? {} : { lastHttpStatus: result.httpStatus }),
        lastAttemptAt: decidedAt,
      };
      // One jitter draw per group of events that failed alike, so they stay packed together.
      const group = `${attemptNumber}|${baseDelayMs(this.deps.profile, attemptNumber, result)}`;
      let draw = draws.get(group);
      if (draw === undefined) {
        draw = this.deps.random();
        draws.set(group, draw);
      }
      const decision = decideAfterFailure({
        profile: this.deps.profile,
        policy: subscription.retryPolicy,
        attemptsMade: attemptNumber,
        result,
        now: decidedAt,
        random: draw,
      });
      if (decision.action === 'retry') {
        retries.set(decision.dueAt, [...(retries.get(decision.dueAt) ?? []), failed]);
        records.push(
          this.record(subscription, item, attemptNumber, decidedAt, {
            ...result,
            outcome: result.outcome ?? 'GenericError',
            next: { action: 'retry', dueAt: decision.dueAt },
          }),
        );
      } else {
        ended.push({ item: failed, reason: decision.reason, endedAt: decidedAt });
        records.push(
          this.record(subscription, item, attemptNumber, decidedAt, {
            ...result,
            outcome: result.outcome ?? 'GenericError',
            next: this.endNext(subscription, decision.reason),
          }),
        );
      }
    }

    const outgoing: OutgoingJob[] = [];
    const envelope = { topic: job.topic, subscription: job.subscription };
    for (const [retryDueAt, items] of retries) {
      const delaySeconds = sqsDelaySeconds(retryDueAt, clock.now());
      for (const body of packJobs({ ...envelope, dueAt: retryDueAt }, items))
        outgoing.push({ body, delaySeconds });
      report.retried += items.length;
    }
    if (deferred.length > 0) {
      for (const body of packJobs(envelope, deferred)) outgoing.push({ body, delaySeconds: 0 });
      report.deferred = deferred.length;
    }
    // Order matters for "never lost": follow-up jobs are queued before the source message can be
    // deleted (the caller deletes it only when this resolves).
    await queue.send('retry', outgoing);
    if (ended.length > 0) {
      await this.deps.deadLetters.handle(subscription, ended);
      report.ended += ended.length;
    }
    await this.writeHistory(records);
    return report;
  }

  private async attempt(
    subscription: Subscription,
    item: DeliveryItem,
    options: JobOptions,
  ): Promise<Attempted> {
    return this.inFlight.run(async () => {
      if (this.deps.clock.now() >= options.attemptDeadline) return { item, result: 'deferred' as const };
      const result = await this.deps.sender.send(buildDeliveryRequest(subscription, [item]));
      return { item, result };
    });
  }

  private endNext(subscription: Subscription, reason: DeadLetterReason): AttemptNext {
    return this.deps.deadLetters.disposition(subscription) === 'deadLetter'
      ? { action: 'deadLetter', reason }
      : { action: 'dropped', reason };
  }

  /** History is for operators; failing to write it must not fail (and so repeat) deliveries. */
  private async writeHistory(records: readonly AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.deps.history.record(records);
    } catch (error) {
      this.deps.logger.error('could not record delivery attempts', {
        error: (error as Error).message,
        records: records.length,
      });
    }
  }

  private record(
    subscription: Subscription,
    item: DeliveryItem,
    attempt: number,
    at: number,
    detail: Pick<AttemptRecord, 'outcome' | 'next'> &
      Partial<Pick<AttemptResult, 'httpStatus' | 'durationMs' | 'error'>>,
  ): AttemptRecord {
    return {
      topic: subscription.topic,
      subscription: subscription.name,
      eventId: item.event.id,
      deliveryId: item.deliveryId,
      publishedAt: item.publishedAt,
      attempt,
      at,
      outcome: detail.outcome,
      ...(detail.httpStatus === undefined ? {} : { httpStatus: detail.httpStatus }),
      ...(detail.durationMs === undefined ? {} : { durationMs: detail.durationMs }),
      ...(detail.error === undefined ? {} : { error: detail.error }),
      next: detail.next,
    };
  }
}

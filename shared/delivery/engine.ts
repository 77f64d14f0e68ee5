/**
 * The delivery engine: takes one job (one SQS message) through named phases, each small and
 * testable on its own:
 *
 *   resolve -> wait -> gate -> attempt -> decide -> follow-ups -> record
 *
 * - resolve: the subscription (at least at the job's version) and its delivery profile; a
 *   subscription confirmed deleted ends the job here, also mid-wait.
 * - wait: not due yet -> hop (send the job round again, at most 900 s a time) or sleep < 1 s.
 * - gate: the TTL check at the due time, then the endpoint's health (`health.ts`): on probation
 *   the job is held until it ends, without an attempt; a disabled (410) endpoint ends it.
 * - attempt: one POST per request (an event, or a batch), at most `concurrency` counting at once
 *   across jobs, shared round robin by the subscriptions waiting, and at most
 *   `subscriptionConcurrency` per subscription (`FairSlots`), within a window that grows with
 *   each answer and halves when the endpoint pushes back (busy, timed out); a request unanswered for a second
 *   stops counting against `concurrency`, so hanging endpoints hold only their own slots; a
 *   stalled endpoint's further events are held instead of queued, and once an outcome puts the
 *   endpoint on probation the job's remaining events are held too. The requests and their slots
 *   are `engine-attempts.ts`; the gate before them stays here.
 * - decide: pure (`rules/decide.ts`): delivered, retry at a due time, ended, deferred.
 * - follow-ups: retries, deferrals and ended deliveries go out together, before the caller
 *   acknowledges the source message.
 * - With a backlog (`deps.backlog`), events whose endpoint is unhealthy or draining, and waits
 *   too long to hop, go into the subscription's backlog instead of the retry queue
 *   (`rules/backlog.ts` `storeOrQueue`): the wait stores a job not yet due, the gate holds an
 *   unhealthy endpoint's events for it, and the follow-ups route each group. The backlog's own
 *   jobs (`store`, `backlog-tick`) and the sweep are worked here too.
 * - record: metrics and the attempt history (best effort).
 *
 * Everything effectful is a dependency, so the same engine runs in Lambda, in the local stack
 * and in virtual time.
 */

import type { AttemptRecord } from '../domain/attempts';
import type {
  DeliveryItem,
  DeliveryJob,
  DeliveryTarget,
  EndedJob,
  QueuedJob,
  ValidationJob,
} from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { topicIdOf } from '../domain/names';
import type { LoggerLike } from '../observability/logging';
import {
  deliveryFailureDimensions,
  METRIC,
  type MetricBuffer,
  subscriptionDimensions,
} from '../observability/metrics';
import type { Clock, Random } from '../platform/clock';
import type { SecretOpener } from '../platform/sealing';
import { type LegacyJob, packEndedJobs, packJobs, targetGroupId } from '../queue/job-codec';
import type { JobQueue } from '../queue/sqs-job-queue';
import type { FanOutStore } from '../storage/fan-out-bucket';
import type { LateAnswerStore } from '../storage/late-answers';
import type { RateBudgetStore } from '../storage/rate-budget';
import type { SourcedStoreJob, StoreResult } from './backlog-store-step';
import type { BacklogSweepReport } from './backlog-sweep';
import type { DropRecorder } from './dead-letter';
import type { EndpointAuth } from './endpoint-auth';
import { type AttemptOptions, EngineAttempts } from './engine-attempts';
import { type EngineBacklog, EngineBacklogs } from './engine-backlogs';
import { workFanOut } from './fan-out';
import { ALWAYS_QUEUE, HANDOFF_RETRY_DELAY_SECONDS, sendFollowUps } from './follow-ups';
import { type EndpointHandshake, validationKeyOf } from './handshake';
import type { HealthTracker } from './health';
import { emptyReport, type JobReport } from './job-report';
import { type Upgraded, upgradeFanOutJob, upgradeJob } from './job-upgrade';
import { LateAnswers } from './late-answers';
import type { ResourceSender } from './resource-sender';
import { type Attempted, decideJob, type JobDecisions } from './rules/decide';
import { endpointAgreed, UNVALIDATED_ENDPOINT_HOLD_MS } from './rules/handshake';
import { gateOf } from './rules/health';
import type { DeliveryProfile, ProfileTable } from './rules/profiles';
import { expiresAtDue, planWait, waitPrecisionOf } from './rules/retry';
import { deliveryTargetOf, isSameSubscription } from './target';
import type { WebhookSender } from './webhook-sender';

export interface SubscriptionSource {
  /**
   * The subscription, at `minVersion` or newer when it exists at all; `undefined` only when a
   * strongly consistent read confirms it (or its topic) no longer exists.
   */
  get(topic: string, name: string, minVersion?: number): Promise<Subscription | undefined>;
}

export interface AttemptHistory {
  record(records: readonly AttemptRecord[]): Promise<void>;
}

export interface DeliveryEngineDeps {
  clock: Clock;
  random: Random;
  /** Delivery profiles by name, already scaled by the time scale (1 on AWS). */
  profiles: ProfileTable;
  subscriptions: SubscriptionSource;
  sender: WebhookSender;
  queue: JobQueue;
  history: AttemptHistory;
  /** Records events dropped because their subscription was deleted. */
  drops: DropRecorder;
  metrics: MetricBuffer;
  logger: LoggerLike;
  /** Webhook requests in flight at once, across all jobs of this engine. */
  concurrency: number;
  /** Endpoint health: the gate's verdicts, and where attempt outcomes are reported. */
  health: HealthTracker;
  /**
   * Requests in flight at once to one subscription's endpoint (default: a quarter of
   * `concurrency`). Requests left unanswered for `STALL_MS` no longer count against
   * `concurrency`, so no number of hanging endpoints fills a worker.
   */
  subscriptionConcurrency?: number;
  /**
   * Opens sealed (secret) custom header values. Without one, a subscription with a secret header
   * cannot be delivered to (its events are retried, as when a dependency is down).
   */
  sealer?: SecretOpener;
  /**
   * Runs validation jobs (the endpoint validation handshake). Without one, such a job fails and
   * comes back, as a job no worker can take.
   */
  handshake?: Pick<EndpointHandshake, 'run'>;
  /**
   * Reads fan-outs stored because they were too large for one message. Without one, such a job
   * fails and comes back, as a job no worker can take.
   */
  fanOuts?: Pick<FanOutStore, 'get'>;
  /**
   * Records successes answered after their request timed out, for the events' retries to find
   * (`late-answers.ts`). Without it, a request is given up at its timeout.
   */
  lateAnswers?: LateAnswerStore;
  /**
   * Keeps subscriptions' backlogs: without it, long waits hop on the retry queue and held events
   * ride it, and `store` and `backlog-tick` jobs fail and come back, as jobs no worker can take.
   */
  backlog?: EngineBacklog;
  /**
   * The shared budgets of rate-limited endpoints (`maxDeliveriesPerSecond`), so the limit holds
   * across workers. Without it, each engine counts its own requests only.
   */
  rateBudget?: RateBudgetStore;
  /**
   * Puts credentials on the requests of subscriptions with `auth` (token requests, AWS
   * credentials). Without it, such requests fail without being sent, and are retried.
   */
  endpointAuth?: EndpointAuth;
  /**
   * Sends to AWS resource destinations (SQS queues, SNS topics...). Without it, their events
   * fail without a call, and are retried.
   */
  resources?: ResourceSender;
}

export interface JobOptions {
  /** Epoch ms after which no new attempt starts; later items go back to the queue untouched. */
  attemptDeadline: number;
  /**
   * Epoch ms by which this worker stops listening to requests that timed out
   * (`rules/late-answer.ts`); without it none is listened to after its timeout.
   */
  listenUntil?: number;
  /**
   * Collects the job's listens (each settles when its late window closes), for the invocation to
   * wait on before it ends; listens are opened without it only where nothing ends early (tests).
   */
  listens?: Promise<void>[];
}

/** Defined with the handshake rules, so the backlog's wake rule shares it. */
export { UNVALIDATED_ENDPOINT_HOLD_MS };

type Resolved = { kind: 'deleted' } | { kind: 'found'; subscription: Subscription; profile: DeliveryProfile };

export class DeliveryEngine {
  private readonly attempts: EngineAttempts;
  private readonly backlogs: EngineBacklogs | undefined;
  private readonly lateAnswers: LateAnswers | undefined;

  constructor(private readonly deps: DeliveryEngineDeps) {
    this.lateAnswers =
      deps.lateAnswers === undefined
        ? undefined
        : new LateAnswers({
            clock: deps.clock,
            store: deps.lateAnswers,
            history: deps.history,
            metrics: deps.metrics,
            logger: deps.logger,
          });
    this.attempts = new EngineAttempts(deps, this.lateAnswers);
    this.backlogs = deps.backlog === undefined ? undefined : new EngineBacklogs(deps, deps.backlog, this);
  }

  /**
   * Stores the events of `store` jobs in their subscriptions' backlogs, many jobs at once (their
   * events share segments), and arms each backlog's timer. `sourceId` names the message a job
   * came in: the same messages stored again write the same segments.
   */
  storeJobs(jobs: readonly SourcedStoreJob[]): Promise<StoreResult> {
    return this.requireBacklogs().store(jobs);
  }

  /**
   * Stops listening to timed-out requests, at once and from now on: a worker that is shutting
   * down (the local stack stopping) does not wait for late windows to close.
   */
  stopListening(): void {
    this.lateAnswers?.stop();
  }

  /** Sends the ticks of backlogs whose wake is near (the sweeper's job, every minute). */
  sweepBacklogs(): Promise<BacklogSweepReport> {
    return this.requireBacklogs().sweep();
  }

  private requireBacklogs(): EngineBacklogs {
    if (this.backlogs === undefined) throw new Error('this worker keeps no backlogs');
    return this.backlogs;
  }

  /**
   * Works one job of any kind the delivery function takes, by the step `queue/job-kinds.ts` names
   * for it. Rejects when the job could not be finished now (its message then comes back).
   */
  async processJob(job: QueuedJob, options: JobOptions): Promise<JobReport> {
    switch (job.kind) {
      case undefined:
      case 'deliver':
        return this.deliver(job, options);
      case 'validate':
        return this.validate(job);
      case 'fanout':
      case 'stored-fanout':
        return workFanOut(job, {
          fanOuts: this.deps.fanOuts,
          queue: this.deps.queue,
          logger: this.deps.logger,
          deliver: (one) => this.deliver(one, options),
          upgrade: async (stored) => this.dropGone(await upgradeFanOutJob(stored, this.deps)),
        });
      case 'ended':
        return this.handOffAgain(job);
      case 'store':
        return this.requireBacklogs().storeOne(job);
      case 'backlog-tick':
        return this.requireBacklogs().tick(job, options);
    }
  }

  /**
   * A job of an earlier format, in the current one (`job-upgrade.ts`): its target built from its
   * subscription as read now. The events of a subscription that is gone are dropped here, as a
   * deleted subscription's are; `undefined` when nothing of the job is left to work. The consumer
   * shell calls this for every such job before it is worked (`processJob` takes the current format).
   */
  async upgrade(job: LegacyJob): Promise<QueuedJob | undefined> {
    return this.dropGone(await upgradeJob(job, this.deps));
  }

  private dropGone<J extends QueuedJob>({ job, gone }: Upgraded<J>): J | undefined {
    for (const { target, items } of gone) this.dropDeleted(target, items);
    return job;
  }

  /** A delivery job, through the phases. */
  private async deliver(job: DeliveryJob, options: JobOptions): Promise<JobReport> {
    const resolved = await this.resolve(job);
    if (resolved.kind === 'deleted') return this.dropDeleted(job.target, job.items);
    const { subscription, profile } = resolved;
    // The jobs this one leads to are for the subscription as read now, and never ask for an older
    // version than this one did (a read that fell back on a stale cached definition).
    const target = {
      ...deliveryTargetOf(subscription),
      version: Math.max(subscription.version, job.target.version),
    };

    const waited = await this.waitOrHop(job, target, profile);
    if (waited === 'hopped') return { ...emptyReport(), hopped: true };
    if (waited === 'stored') return { ...emptyReport(), stored: job.items.length };

    const dueAt = this.deps.clock.now();
    const { live, expired } = this.gate(subscription, profile, job.items, dueAt);
    const attempted = await this.attemptAll(subscription, profile, live, dueAt, options);
    const decisions = decideJob({
      topic: subscription.topic,
      subscription: subscription.name,
      ...(subscription.uid === undefined ? {} : { uid: subscription.uid }),
      profile,
      limits: subscription.retry,
      attempted,
      expired,
      dueAt,
      now: this.deps.clock.now(),
      random: this.deps.random,
      deadLetters: subscription.deadLetter !== undefined,
      ...(subscription.deliveryLog === undefined ? {} : { deliveryLog: subscription.deliveryLog }),
    });
    const route = this.backlogs?.routeOf(subscription, profile) ?? ALWAYS_QUEUE;
    await sendFollowUps(this.deps, subscription, profile, target, decisions, route);
    await this.record(subscription, target, decisions);
    const count = (groups: ReadonlyMap<number, readonly DeliveryItem[]>) =>
      [...groups.values()].reduce((sum, items) => sum + items.length, 0);
    return {
      hopped: false,
      delivered: decisions.delivered.length + decisions.answeredLate.length,
      retried: count(decisions.retries),
      ended: decisions.ended.length,
      deferred: decisions.deferred.length,
      held: count(decisions.held),
      queued: 0,
      stored: 0,
    };
  }

  /** A subscription's endpoint validation handshake. */
  private async validate(job: ValidationJob): Promise<JobReport> {
    if (this.deps.handshake === undefined) throw new Error('this worker has no endpoint handshake');
    const report = await this.deps.handshake.run(job);
    if (report === 'refused') {
      const { topic, subscription } = validationKeyOf(job);
      this.deps.metrics.count(
        METRIC.EndpointValidationFailCount,
        1,
        subscriptionDimensions(topic, subscription),
      );
    }
    return emptyReport();
  }

  // ---- phases -------------------------------------------------------------------------------

  /** The subscription the job is for, at least as new as the version the job was made for. */
  private async resolve(job: DeliveryJob): Promise<Resolved> {
    const { target } = job;
    const subscription = await this.deps.subscriptions.get(
      topicIdOf(target.topic),
      target.subscription,
      target.version,
    );
    // Deleted, or deleted and created again under the same name: the job's subscription is gone.
    if (subscription === undefined || !isSameSubscription(target.uid, subscription))
      return { kind: 'deleted' };
    return { kind: 'found', subscription, profile: this.deps.profiles[subscription.deliveryProfile] };
  }

  /**
   * A job not due yet goes round again (`hopped`), or, when the engine keeps backlogs and the wait
   * is longer than the threshold, into the subscription's backlog (`stored`); sleeps away a final
   * sub-second when time is scaled, and returns false when the job is due.
   */
  private async waitOrHop(
    job: DeliveryJob,
    target: DeliveryTarget,
    profile: DeliveryProfile,
  ): Promise<'hopped' | 'stored' | false> {
    const now = this.deps.clock.now();
    const wait = planWait(job.dueAt, now, waitPrecisionOf(profile));
    if (wait.kind === 'hop' && job.dueAt !== undefined && this.backlogs?.storesWait(job.dueAt, profile)) {
      await this.backlogs.send(target, job.dueAt, 'wait', job.items);
      return 'stored';
    }
    if (wait.kind === 'hop') {
      const bodies = packJobs({ target, dueAt: job.dueAt }, job.items);
      const groupId = targetGroupId(target);
      await this.deps.queue.send(
        'retry',
        bodies.map((body) => ({ body, delaySeconds: wait.delaySeconds, groupId })),
      );
      return 'hopped';
    }
    if (wait.kind === 'sleep') await this.deps.clock.sleep(wait.ms);
    return false;
  }

  /** Which events may be attempted now. The TTL is checked here, when an attempt comes due. */
  private gate(
    subscription: Subscription,
    profile: DeliveryProfile,
    items: readonly DeliveryItem[],
    now: number,
  ): { live: DeliveryItem[]; expired: DeliveryItem[] } {
    const live: DeliveryItem[] = [];
    const expired: DeliveryItem[] = [];
    for (const item of items) {
      (expiresAtDue(item.publishedAt, subscription.retry, now, profile) ? expired : live).push(item);
    }
    return { live, expired };
  }

  /**
   * The endpoint's health, then one attempt per request: a job that comes due while the endpoint
   * is on probation is held whole; a disabled endpoint's events end without an attempt. Otherwise
   * the events are cut into requests (one event each, or batches when the subscription batches)
   * and every event of a request shares its outcome: a batch succeeds or fails as a whole.
   */
  private async attemptAll(
    subscription: Subscription,
    profile: DeliveryProfile,
    items: readonly DeliveryItem[],
    now: number,
    options: JobOptions,
  ): Promise<Attempted[]> {
    if (items.length === 0) return [];
    if (!endpointAgreed(subscription)) {
      // Aimed at an endpoint that has not agreed yet (the URL changed after these events were
      // matched): nothing goes to it; they wait, without an attempt, until it agrees or they expire.
      const until = now + UNVALIDATED_ENDPOINT_HOLD_MS / profile.timeScale;
      return items.map((item) => ({ kind: 'held', item, until, reason: 'busy' }));
    }
    // (The tracker never throws: a health read that fails or is slow counts as healthy.)
    const health = await this.deps.health.current(subscription, profile);
    const gate = gateOf(health, now);
    // An unhealthy or draining endpoint's events are held for its backlog, attempting none.
    if (gate.kind !== 'disabled' && this.backlogs?.holdsFor(health, now)) {
      const until = gate.kind === 'hold' ? (gate.dueAt ?? gate.until) : now;
      return items.map((item) => ({ kind: 'held', item, until, reason: 'probation' }));
    }
    if (gate.kind === 'hold') {
      return items.map((item) => ({ kind: 'held', item, until: gate.until, reason: 'probation' }));
    }
    if (gate.kind === 'disabled') return items.map((item) => ({ kind: 'disabled', item }));
    return this.attemptItems(subscription, profile, items, options);
  }

  /**
   * Attempts events the caller has already gated (TTL, probation) through this engine's slots,
   * reporting each outcome to the health tracker (`EngineAttempts.attemptItems`). Public so that a
   * backlog's probe and drain share the worker's capacity with its jobs.
   */
  attemptItems(
    subscription: Subscription,
    profile: DeliveryProfile,
    items: readonly DeliveryItem[],
    options: AttemptOptions,
    cap?: number,
  ): Promise<Attempted[]> {
    return this.attempts.attemptItems(subscription, profile, items, options, cap);
  }

  /**
   * Metrics for every attempt; drops of ended deliveries when the subscription has no dead-letter
   * destination; the endpoint's health writes settled; history for failures and what follows
   * them (best effort). Public so that events attempted from elsewhere (a backlog's drain) are
   * counted and recorded as a job's are.
   */
  async record(subscription: Subscription, target: DeliveryTarget, decisions: JobDecisions): Promise<void> {
    const { metrics } = this.deps;
    if (subscription.deadLetter === undefined && decisions.ended.length > 0) {
      this.deps.drops.drop(
        target,
        decisions.ended.map(({ item, reason }) => ({ item, reason })),
      );
    }
    const dims = subscriptionDimensions(subscription.topic, subscription.name);
    // One duration per webhook request: the events of a batch share their request's result.
    const requests = new Set([...decisions.delivered, ...decisions.failed].map(({ result }) => result));
    for (const result of requests) {
      metrics.duration(METRIC.DestinationProcessingDurationInMs, result.durationMs, dims);
    }
    metrics.count(METRIC.DeliverySuccessCount, decisions.delivered.length, dims);
    for (const { result } of decisions.failed) {
      metrics.count(METRIC.DeliveryAttemptFailCount, 1, { ...dims, ...deliveryFailureDimensions(result) });
    }
    const held = [...decisions.held.values()].reduce((sum, items) => sum + items.length, 0);
    if (held > 0) metrics.count(METRIC.DeliveryHeldCount, held, dims);
    // Health writes are advisory and never throw; waiting here keeps them inside the invocation.
    await this.deps.health.settle(subscription);
    if (decisions.records.length === 0) return;
    try {
      await this.deps.history.record(decisions.records);
    } catch (error) {
      // History is for operators; failing to write it must not fail (and so repeat) deliveries.
      this.deps.logger.error('could not record delivery attempts', {
        error: (error as Error).message,
        records: decisions.records.length,
      });
    }
  }

  // ---- jobs that end early ------------------------------------------------------------------

  /** Events whose subscription is gone: dropped (counted and logged), as `SubscriptionDeleted`. */
  private dropDeleted(
    target: Pick<DeliveryTarget, 'topic' | 'subscription'>,
    items: readonly DeliveryItem[],
  ): JobReport {
    this.deps.drops.drop(
      target,
      items.map((item) => ({ item, reason: 'SubscriptionDeleted' as const })),
    );
    return { ...emptyReport(), ended: items.length };
  }

  /** Ended deliveries that were parked on the retry queue: hand them to the dead-letter step. */
  private async handOffAgain(job: EndedJob): Promise<JobReport> {
    // They already waited on the retry queue; the rest of the write delay groups them again.
    const delaySeconds =
      this.deps.profiles[job.target.profile].deadLetter.writeDelayMs / 1000 - HANDOFF_RETRY_DELAY_SECONDS;
    await this.deps.queue.send(
      'endedDelivery',
      packEndedJobs(job.target, job.ended).map((body) => ({
        body,
        delaySeconds,
        groupId: targetGroupId(job.target),
      })),
    );
    return { ...emptyReport(), ended: job.ended.length };
  }
}

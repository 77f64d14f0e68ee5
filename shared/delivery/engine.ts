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
 * - The backlog (`backlog/port.ts`): events whose endpoint is unhealthy or draining, and waits
 *   too long to hop, go into the subscription's backlog instead of the retry queue: the wait
 *   stores a job not yet due, the gate holds an unhealthy endpoint's events for it, and the
 *   follow-ups route each group. The backlog's own jobs are its module's (`backlog/`).
 * - decide, follow-ups, record: `settle.ts`, the one place every path that ends a delivery goes
 *   through.
 *
 * Everything effectful is a dependency (`ports.ts`), so the same engine runs in Lambda, in the
 * local stack and in virtual time. The other job kinds are the job registry's (`job-registry.ts`).
 */

import type { DeliveryItem, DeliveryJob, DeliveryTarget } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { topicIdOf } from '../domain/names';
import { packJobs, targetGroupId } from '../queue/job-codec';
import type { BacklogPort } from './backlog/port';
import type { EngineAttempts } from './engine-attempts';
import { emptyReport, type JobReport } from './job-report';
import type { DeliverySubscriptions, JobOptions, SettleDeps } from './ports';
import type { Attempted } from './rules/decide';
import { endpointAgreed, UNVALIDATED_ENDPOINT_HOLD_MS } from './rules/handshake';
import { gateOf } from './rules/health';
import type { DeliveryProfile } from './rules/profiles';
import { expiresAtDue, planWait, waitPrecisionOf } from './rules/retry';
import { routedFollowUps, settle } from './settle';
import { deliveryTargetOf, isSameSubscription } from './target';

/** What the engine works with: what settling takes, the subscriptions, the request path and the backlog. */
export interface DeliveryEngineDeps extends SettleDeps, DeliverySubscriptions {
  /** The worker's request path (its slots are shared with the backlogs' probes and drains). */
  attempts: Pick<EngineAttempts, 'attemptItems'>;
  /** Where long waits, held jobs and follow-ups go when backlogs are kept. */
  backlog: BacklogPort;
}

type Resolved = { kind: 'deleted' } | { kind: 'found'; subscription: Subscription; profile: DeliveryProfile };

export class DeliveryEngine {
  constructor(private readonly deps: DeliveryEngineDeps) {}

  /** A delivery job, through the phases. */
  async deliver(job: DeliveryJob, options: JobOptions): Promise<JobReport> {
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
    const settlement = { subscription, profile, target, attempted, expired, dueAt };
    const route = this.deps.backlog.route(subscription, profile);
    const decisions = await settle(this.deps, settlement, routedFollowUps(this.deps, settlement, route));
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
    if (
      wait.kind === 'hop' &&
      job.dueAt !== undefined &&
      (await this.deps.backlog.storeWait(target, job.dueAt, job.items, profile))
    ) {
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
    if (gate.kind !== 'disabled' && this.deps.backlog.holds(health, now)) {
      const until = gate.kind === 'hold' ? (gate.dueAt ?? gate.until) : now;
      return items.map((item) => ({ kind: 'held', item, until, reason: 'probation' }));
    }
    if (gate.kind === 'hold') {
      return items.map((item) => ({ kind: 'held', item, until: gate.until, reason: 'probation' }));
    }
    if (gate.kind === 'disabled') return items.map((item) => ({ kind: 'disabled', item }));
    return this.deps.attempts.attemptItems(subscription, profile, items, options);
  }

  // ---- jobs that end early ------------------------------------------------------------------

  /** Events whose subscription is gone: dropped (counted and logged), as `SubscriptionDeleted`. */
  dropDeleted(
    target: Pick<DeliveryTarget, 'topic' | 'subscription'>,
    items: readonly DeliveryItem[],
  ): JobReport {
    this.deps.drops.drop(
      target,
      items.map((item) => ({ item, reason: 'SubscriptionDeleted' as const })),
    );
    return { ...emptyReport(), ended: items.length };
  }
}

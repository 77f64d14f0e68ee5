/**
 * Ordered delivery: the events of an ordered subscription with the same key, one request at a
 * time, in the order they were accepted. Each message of the ordered (FIFO) queue holds one key's
 * events of one publish, in its key's group (`orderedGroupId`); SQS hands a group's messages out
 * one at a time, in the order they were sent, and never the next while one is in flight. So:
 *
 * - a message's events are attempted in order, one request at a time (a batch when the
 *   subscription batches: the next request's worth, in order), each only once the one before is
 *   delivered or ended (dead-lettered or dropped);
 * - when one fails (or the endpoint holds it: probation, an unhealthy endpoint, a rate limit),
 *   the message is not deleted: it is hidden until the retry is due (ChangeMessageVisibility, at
 *   most 12 hours a time; longer waits look again and hide it again), and its progress (events
 *   finished, the next one's attempts) is kept in the table (`storage/ordered-progress.ts`). Its
 *   group, the key, waits; every other key goes on;
 * - later messages of the same group in the same batch (Lambda hands several) are made visible
 *   again at once, untouched, so they stay behind it.
 *
 * Retries follow the subscription's schedule and limits through the same decide and settle as
 * every delivery (`settle.ts`): ended events go to the dead-letter step, metrics and history are
 * recorded alike. The endpoint's health gates as in the engine, but a held key waits in its queue
 * instead of a backlog (the queue is its backlog, in order).
 */
import type { DeliveryItem, DeliveryTarget, OrderedJob } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { topicIdOf } from '../domain/names';
import type {
  OrderedMessageRef,
  OrderedProgress,
  OrderedProgressStore,
  PendingState,
} from '../storage/ordered-progress';
import type { EngineAttempts } from './engine-attempts';
import { sendFollowUps } from './follow-ups';
import { emptyReport, type JobReport } from './job-report';
import type { DeliverySubscriptions, JobOptions, SettleDeps } from './ports';
import type { Attempted, JobDecisions } from './rules/decide';
import { endpointAgreed, UNVALIDATED_ENDPOINT_HOLD_MS } from './rules/handshake';
import { gateOf } from './rules/health';
import type { DeliveryProfile } from './rules/profiles';
import { expiresAtDue } from './rules/retry';
import { settle } from './settle';
import { deliveryTargetOf, isSameSubscription } from './target';

/** The longest SQS hides a received message for (12 hours); a longer wait hides it again. */
export const MAX_HIDE_SECONDS = 43_200;

/** Hides a received message of the ordered queue for `seconds` (0: visible again at once). */
export interface OrderedVisibility {
  hide(receiptHandle: string, seconds: number): Promise<void>;
}

/** Where ordered delivery keeps a waiting message's progress, and how it hides the message. */
export interface OrderedSettings {
  progress: OrderedProgressStore;
  visibility: OrderedVisibility;
}

export interface OrderedDeps extends SettleDeps, DeliverySubscriptions {
  attempts: Pick<EngineAttempts, 'attemptItems'>;
  ordered: OrderedSettings;
}

/** A message of the ordered queue, as received. */
export interface OrderedMessage {
  job: OrderedJob;
  receiptHandle: string;
  /** SQS's count of receives, this one included: a first receive has no progress to read. */
  receiveCount: number;
  /** Its FIFO group (the subscription and key). */
  groupId: string;
}

/** What became of one message: finished (delete it), or waiting in its queue until `until`. */
export type OrderedOutcome =
  | { readonly kind: 'finished'; readonly report: JobReport }
  | { readonly kind: 'waiting'; readonly until: number; readonly report: JobReport };

/**
 * A key held by its endpoint's health (probation, unhealthy, paused) looks again at least this
 * often, so a resume or an enable reaches it soon; a receive and a visibility change each time.
 */
export const HOLD_RECHECK_MS = 5 * 60_000;

/** How long a waiting message's progress is kept beyond its due time at most (then its TTL removes it). */
const PROGRESS_KEPT_MS = 8 * 24 * 60 * 60_000;

/** What changes of an event between attempts, taken from its state after one. */
const pendingOf = (item: DeliveryItem): PendingState => ({
  deliveryId: item.deliveryId,
  attempts: item.attempts,
  ...(item.lastOutcome === undefined ? {} : { lastOutcome: item.lastOutcome }),
  ...(item.lastHttpStatus === undefined ? {} : { lastHttpStatus: item.lastHttpStatus }),
  ...(item.lastAttemptAt === undefined ? {} : { lastAttemptAt: item.lastAttemptAt }),
  ...(item.lateUntil === undefined ? {} : { lateUntil: item.lateUntil }),
});

/** The events of a message still to go, with the attempt state its progress kept. */
export function remainingItems(job: OrderedJob, progress: OrderedProgress | undefined): DeliveryItem[] {
  if (progress === undefined) return [...job.items];
  const finished = new Set(progress.finished);
  const pending = new Map(progress.pending.map((state) => [state.deliveryId, state]));
  return job.items
    .filter((item) => !finished.has(item.deliveryId))
    .map((item) => {
      const state = pending.get(item.deliveryId);
      return state === undefined ? item : { ...item, ...state };
    });
}

/** Seconds to hide a message so it comes back at `until` (at most SQS's 12 hours). */
export const hideSecondsUntil = (until: number, now: number): number =>
  Math.min(MAX_HIDE_SECONDS, Math.max(0, Math.ceil((until - now) / 1000)));

const refOf = (job: OrderedJob): OrderedMessageRef => ({
  topic: topicIdOf(job.target.topic),
  subscription: job.target.subscription,
  firstDeliveryId: (job.items[0] as DeliveryItem).deliveryId,
});

export class OrderedDelivery {
  constructor(private readonly deps: OrderedDeps) {}

  /**
   * A batch of the ordered queue: each group's messages one after another, in the order
   * received; the groups at once. Once a message of a group waits, the group's later ones are
   * made visible again untouched (they stay behind it). One outcome per message, in order.
   */
  async run(messages: readonly OrderedMessage[], options: JobOptions): Promise<OrderedOutcome[]> {
    const outcomes: OrderedOutcome[] = messages.map(() => ({
      kind: 'waiting',
      until: this.deps.clock.now(),
      report: emptyReport(),
    }));
    const groups = new Map<string, number[]>();
    messages.forEach((message, index) => {
      const group = groups.get(message.groupId);
      if (group === undefined) groups.set(message.groupId, [index]);
      else group.push(index);
    });
    await Promise.all(
      [...groups.values()].map(async (indexes) => {
        for (const [position, index] of indexes.entries()) {
          const outcome = await this.one(messages[index] as OrderedMessage, options);
          outcomes[index] = outcome;
          if (outcome.kind === 'finished') continue;
          // Behind a waiting message: back in the queue at once, in their order.
          const behind = indexes.slice(position + 1);
          await Promise.all(
            behind.map((later) =>
              this.deps.ordered.visibility.hide((messages[later] as OrderedMessage).receiptHandle, 0),
            ),
          );
          return;
        }
      }),
    );
    return outcomes;
  }

  /** One message: its events in order, until they are all finished or one has to wait. */
  async one(message: OrderedMessage, options: JobOptions): Promise<OrderedOutcome> {
    const { job } = message;
    const ref = refOf(job);
    const read = message.receiveCount > 1 ? await this.deps.ordered.progress.get(ref) : undefined;
    const report = emptyReport();
    const finished = [...(read?.finished ?? [])];
    let items = remainingItems(job, read);
    if (read !== undefined && read.dueAt > this.deps.clock.now()) {
      // Back before it is due (a wait over 12 hours, or a message shown again early).
      return this.wait(message, ref, read, report);
    }
    const subscription = await this.deps.subscriptions.get(
      topicIdOf(job.target.topic),
      job.target.subscription,
      job.target.version,
    );
    if (subscription === undefined || !isSameSubscription(job.target.uid, subscription)) {
      this.deps.drops.drop(
        job.target,
        items.map((item) => ({ item, reason: 'SubscriptionDeleted' as const })),
      );
      report.ended += items.length;
      return this.finish(ref, read, report);
    }
    const profile = this.deps.profiles[subscription.deliveryProfile];
    const target: DeliveryTarget = {
      ...deliveryTargetOf(subscription),
      version: Math.max(subscription.version, job.target.version),
    };
    while (items.length > 0) {
      const now = this.deps.clock.now();
      if (now >= options.attemptDeadline) {
        // No time left in this invocation: back at once, for the next to go on.
        return this.wait(message, ref, { finished, dueAt: now, pending: items.map(pendingOf) }, report);
      }
      // The time to live is checked when an event comes due; an expired one ends in its turn.
      const expired: DeliveryItem[] = [];
      while (items[0] !== undefined && expiresAtDue(items[0].publishedAt, subscription.retry, now, profile)) {
        expired.push(items.shift() as DeliveryItem);
      }
      const attempted =
        items.length === 0 ? [] : await this.attemptNext(subscription, profile, items, now, options);
      const decisions = await settle(
        this.deps,
        { subscription, profile, target, attempted, expired, dueAt: now },
        (decided) => this.handOffEnded(subscription, profile, target, decided),
      );
      report.delivered += decisions.delivered.length + decisions.answeredLate.length;
      report.ended += decisions.ended.length;
      const waiting = waitingOf(decisions, now);
      const waitingIds = new Set(waiting.items.map((item) => item.deliveryId));
      const attemptedIds = new Set(attempted.map(({ item }) => item.deliveryId));
      for (const { item } of [...expired.map((item) => ({ item })), ...attempted]) {
        if (!waitingIds.has(item.deliveryId)) finished.push(item.deliveryId);
      }
      items = items.filter((item) => !attemptedIds.has(item.deliveryId));
      if (waiting.items.length === 0) continue;
      report.retried += count(decisions.retries);
      report.held += count(decisions.held);
      report.deferred += decisions.deferred.length;
      // The events that wait, with their state after this attempt, and those behind them that
      // carry a state from before.
      const pending = [...waiting.items, ...items]
        .filter((item) => item.attempts > 0 || item.lastOutcome !== undefined)
        .map(pendingOf);
      return this.wait(message, ref, { finished, dueAt: waiting.until, pending }, report);
    }
    return this.finish(ref, read, report);
  }

  /**
   * The next request's worth of events, gated by the endpoint's health as the engine gates a job:
   * an endpoint that has not agreed yet or is held (probation, unhealthy) holds them without an
   * attempt; a disabled one ends them.
   */
  private async attemptNext(
    subscription: Subscription,
    profile: DeliveryProfile,
    items: readonly DeliveryItem[],
    now: number,
    options: JobOptions,
  ): Promise<Attempted[]> {
    const [first] = items as [DeliveryItem];
    if (!endpointAgreed(subscription)) {
      const until = now + UNVALIDATED_ENDPOINT_HOLD_MS / profile.timeScale;
      return [{ kind: 'held', item: first, until, reason: 'busy' }];
    }
    const gate = gateOf(await this.deps.health.current(subscription, profile), now);
    if (gate.kind === 'hold') {
      // Looked at again by the hold's end, and at least every few minutes: a pause, an unhealthy
      // endpoint's long hold or a disable can change in the meantime (resume, enable).
      const until = Math.min(gate.until, now + HOLD_RECHECK_MS / profile.timeScale);
      return [{ kind: 'held', item: first, until, reason: 'probation' }];
    }
    if (gate.kind === 'disabled') return items.map((item) => ({ kind: 'disabled', item }));
    return this.deps.attempts.attemptItems(subscription, profile, items, { ...options, maxRequests: 1 });
  }

  /** Only ended events leave: to the dead-letter step (or dropped by the record step); the rest wait here. */
  private async handOffEnded(
    subscription: Subscription,
    profile: DeliveryProfile,
    target: DeliveryTarget,
    decisions: JobDecisions,
  ): Promise<void> {
    if (decisions.ended.length === 0) return;
    await sendFollowUps(this.deps, subscription, profile, target, {
      ...decisions,
      retries: new Map(),
      held: new Map(),
      deferred: [],
    });
  }

  /** Keeps the progress and hides the message until it is due. */
  private async wait(
    message: OrderedMessage,
    ref: OrderedMessageRef,
    progress: OrderedProgress,
    report: JobReport,
  ): Promise<OrderedOutcome> {
    const now = this.deps.clock.now();
    await this.deps.ordered.progress.put(ref, progress, Math.max(now, progress.dueAt) + PROGRESS_KEPT_MS);
    await this.deps.ordered.visibility.hide(message.receiptHandle, hideSecondsUntil(progress.dueAt, now));
    return { kind: 'waiting', until: progress.dueAt, report };
  }

  private async finish(
    ref: OrderedMessageRef,
    read: OrderedProgress | undefined,
    report: JobReport,
  ): Promise<OrderedOutcome> {
    if (read !== undefined) {
      try {
        await this.deps.ordered.progress.delete(ref);
      } catch (error) {
        // Its time to live removes it; a message that comes back finds its events finished.
        this.deps.logger.warn('could not delete the progress of a finished ordered message', {
          error: (error as Error).message,
        });
      }
    }
    return { kind: 'finished', report };
  }
}

const count = (groups: ReadonlyMap<number, readonly DeliveryItem[]>) =>
  [...groups.values()].reduce((sum, items) => sum + items.length, 0);

/**
 * The events that wait after a request (retried, held, or deferred: due `now`), and when the
 * earliest is due: the message comes back then.
 */
function waitingOf(decisions: JobDecisions, now: number): { items: DeliveryItem[]; until: number } {
  const items: DeliveryItem[] = [];
  let until = Number.POSITIVE_INFINITY;
  for (const [dueAt, group] of [...decisions.retries, ...decisions.held]) {
    items.push(...group);
    until = Math.min(until, dueAt);
  }
  if (decisions.deferred.length > 0) {
    items.push(...decisions.deferred);
    until = now;
  }
  return { items, until: Number.isFinite(until) ? until : now };
}

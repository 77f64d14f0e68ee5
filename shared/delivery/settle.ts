/**
 * The end of a set of attempts, in one place for every path that ends a delivery: a job's
 * attempts (first attempts, retries, resends, replays), a backlog's probe and drain, and the
 * events a backlog tick ends without an attempt (time to live, a disabled endpoint).
 *
 *   decide -> follow-ups -> record
 *
 * - decide: pure (`rules/decide.ts`), from the subscription as read now: its retry limits, its
 *   dead-letter destination and its `deliveryLog` level.
 * - follow-ups: retries, holds and deferrals routed (retry queue or backlog), ended deliveries
 *   handed to the dead-letter step (`follow-ups.ts`); a backlog's drain keeps its retries itself
 *   and passes its own. They go out before anything is recorded or acknowledged.
 * - record: metrics for every request, drops of ended deliveries without a dead-letter
 *   destination, the endpoint's health writes settled, and the attempt history and message log
 *   (best effort: history is for operators, and failing to write it must not repeat deliveries).
 */
import type { DeliveryItem, DeliveryTarget } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { replayIdOfDelivery } from '../domain/replays';
import { deliveryFailureDimensions, METRIC, subscriptionDimensions } from '../observability/metrics';
import { ALWAYS_QUEUE, type FollowUpRoute, sendFollowUps } from './follow-ups';
import type { SettleDeps } from './ports';
import { type Attempted, decideJob, type JobDecisions } from './rules/decide';
import type { DeliveryProfile } from './rules/profiles';

/** The attempts to settle, and for which subscription. */
export interface Settlement {
  readonly subscription: Subscription;
  readonly profile: DeliveryProfile;
  /** Where the jobs that follow go (the subscription as read now). */
  readonly target: DeliveryTarget;
  readonly attempted: readonly Attempted[];
  /** Events whose time to live ran out when they came due (none attempted). */
  readonly expired?: readonly DeliveryItem[];
  /** When the events came due (the time an expiry is recorded at); default now. */
  readonly dueAt?: number;
}

/**
 * What follows the decisions: by default each group is routed by `route` (retry queue or
 * backlog) and ended deliveries handed over; a caller that keeps some groups itself (a backlog's
 * drain stores its retries back) passes its own.
 */
export type FollowUps = (decisions: JobDecisions) => Promise<void>;

/** Sends every follow-up as a job's are, each group routed by `route`. */
export const routedFollowUps =
  (deps: SettleDeps, settlement: Settlement, route: FollowUpRoute = ALWAYS_QUEUE): FollowUps =>
  (decisions) =>
    sendFollowUps(deps, settlement.subscription, settlement.profile, settlement.target, decisions, route);

/**
 * Decides what follows the attempts, sends it (`followUps`), then records it. Rejects only when
 * the follow-ups could not be sent (the caller's message then comes back); recording never does.
 */
export async function settle(
  deps: SettleDeps,
  settlement: Settlement,
  followUps: FollowUps = routedFollowUps(deps, settlement),
): Promise<JobDecisions> {
  const { subscription, profile } = settlement;
  const now = deps.clock.now();
  const decisions = decideJob({
    topic: subscription.topic,
    subscription: subscription.name,
    ...(subscription.uid === undefined ? {} : { uid: subscription.uid }),
    profile,
    limits: subscription.retry,
    attempted: settlement.attempted,
    expired: settlement.expired ?? [],
    dueAt: settlement.dueAt ?? now,
    now,
    random: deps.random,
    deadLetters: subscription.deadLetter !== undefined,
    ...(subscription.deliveryLog === undefined ? {} : { deliveryLog: subscription.deliveryLog }),
  });
  await followUps(decisions);
  await record(deps, subscription, settlement.target, decisions);
  return decisions;
}

/**
 * Metrics for every attempt; drops of ended deliveries when the subscription has no dead-letter
 * destination; the endpoint's health writes settled; history for failures, what follows them and
 * (with `deliveryLog: All`) every success, best effort.
 */
async function record(
  deps: SettleDeps,
  subscription: Subscription,
  target: DeliveryTarget,
  decisions: JobDecisions,
): Promise<void> {
  const { metrics } = deps;
  if (subscription.deadLetter === undefined && decisions.ended.length > 0) {
    deps.drops.drop(
      target,
      decisions.ended.map(({ item, reason }) => ({ item, reason })),
    );
  }
  const dims = subscriptionDimensions(subscription.topic, subscription.name);
  // One duration per request: the events of a batch share their request's result.
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
  await deps.health.settle(subscription);
  await countReplayed(deps, subscription, decisions);
  if (decisions.records.length === 0) return;
  try {
    await deps.history.record(decisions.records);
  } catch (error) {
    deps.logger.error('could not record delivery attempts', {
      error: (error as Error).message,
      records: decisions.records.length,
    });
  }
}

/**
 * Adds the replayed events delivered to their replays' `delivered` counts, one write per replay
 * (best effort, like the history: a count is for operators, and failing to write it must not
 * repeat deliveries).
 */
async function countReplayed(deps: SettleDeps, subscription: Subscription, decisions: JobDecisions) {
  if (deps.replayCounts === undefined) return;
  const byReplay = new Map<string, number>();
  for (const { item } of decisions.delivered) {
    if (item.replayOf !== 'archive') continue;
    const id = replayIdOfDelivery(item.deliveryId);
    byReplay.set(id, (byReplay.get(id) ?? 0) + 1);
  }
  const counts = deps.replayCounts;
  await Promise.all(
    [...byReplay].map(async ([id, events]) => {
      try {
        await counts.addDelivered(subscription.topic, subscription.name, id, events);
      } catch (error) {
        deps.logger.error('could not count delivered replayed events', {
          error: (error as Error).message,
          replay: id,
        });
      }
    }),
  );
}

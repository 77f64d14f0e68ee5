/**
 * Event subscriptions as the management API reads and writes them, for classic and namespace
 * subscriptions alike: expired ones deleted when read, deletes that reset health and wake
 * backlogs, saves with the next version over a strongly consistent read, the validation handshake
 * a new endpoint gets, and the per-topic quota.
 */
import { isDeepStrictEqual } from 'node:util';
import { VALIDATION_PATH } from '../config/routes';
import { newValidation, validationForWrite } from '../delivery/rules/handshake';
import { deliveryTargetOf } from '../delivery/target';
import { isWebhook, nextSubscriptionVersion, type Subscription, subscriptionExpired } from '../domain/model';
import { badRequest } from '../http/errors';
import { targetGroupId, validationJobBody } from '../queue/job-codec';
import { resetHealth } from '../storage/health';
import type { ReadOptions } from '../storage/table';
import { type BacklogWakeDeps, wakeBacklog } from './backlog-wake';
import { changeOverRead } from './change-over-read';
import type {
  ClockDeps,
  HealthDeps,
  IdDeps,
  PropagationDeps,
  QueueDeps,
  SubscriptionStoreDeps,
  ValidationDeps,
} from './deps';
import { sameDestination } from './stored-destination';
import { MAX_SUBSCRIPTIONS_PER_TOPIC } from './subscription-schema';
import { now, propagated } from './timing';

/**
 * What reading, listing and deleting subscriptions uses: a read may find an expired subscription
 * and delete it, which waits for publishers, resets its health and wakes its backlog.
 */
export type SubscriptionRemovalDeps = SubscriptionStoreDeps &
  ClockDeps &
  PropagationDeps &
  HealthDeps &
  BacklogWakeDeps;

/** What saving a subscription uses besides: new ids, and the handshake a new endpoint gets. */
export type SubscriptionOpsDeps = SubscriptionRemovalDeps & IdDeps & ValidationDeps & QueueDeps;

/**
 * Resets a deleted subscription's health, best effort: the delete has happened, and a subscription
 * created again under the name starts healthy either way once workers' copies expire.
 */
export async function forgetHealth(
  deps: ClockDeps & HealthDeps,
  topic: string,
  subscription: string,
): Promise<void> {
  try {
    await resetHealth(deps.healthStore, topic, subscription, deps.clock.now());
  } catch {
    // Best effort, see above.
  }
}

/**
 * Deletes a subscription (`topicId` as subscriptions name it) and answers whether there was one
 * (an expired one is deleted too, but answered as none: it was already gone as far as callers
 * could tell).
 */
export async function deleteSubscription(
  deps: SubscriptionRemovalDeps,
  topicId: string,
  name: string,
): Promise<boolean> {
  const existing = await deps.subscriptions.get(topicId, name, { consistent: true });
  if (existing === undefined) return false;
  const [deleted] = await removeSubscriptions(deps, [existing]);
  return deleted !== undefined && !subscriptionExpired(existing, deps.clock.now());
}

/**
 * Deletes subscriptions just read, each only as the version read (one changed since stays), and
 * answers those deleted. Once publishers have stopped queueing for them, their health is reset and
 * their backlogs, if any, get their tick at once, which drops the held events
 * (`SubscriptionDeleted`) instead of keeping them until the next wake. The tick's target has the
 * version the delete made, so a delivery worker's cached definition is read again and found gone.
 */
async function removeSubscriptions(
  deps: SubscriptionRemovalDeps,
  subscriptions: readonly Subscription[],
): Promise<Subscription[]> {
  const at = deps.clock.now();
  const deleted: Subscription[] = [];
  for (const subscription of subscriptions) {
    const { topic, name, version } = subscription;
    if (await deps.subscriptions.delete(topic, name, new Date(at), version)) deleted.push(subscription);
  }
  if (deleted.length === 0) return deleted;
  // Publishers stop queueing for them once their cached topic shows the change.
  await propagated(deps);
  for (const subscription of deleted) {
    await forgetHealth(deps, subscription.topic, subscription.name);
    const target = { ...deliveryTargetOf(subscription), version: nextSubscriptionVersion(subscription, at) };
    await wakeBacklog(deps, target, 'deleted');
  }
  return deleted;
}

/**
 * A subscription as the management API sees it. One whose expiration time has come
 * (`subscriptionExpired`) is deleted here, as a delete request would delete it, and read as none:
 * the original deletes expired subscriptions, and publishers and delivery workers already treat
 * them as gone.
 */
export async function readSubscription(
  deps: SubscriptionRemovalDeps,
  topicId: string,
  name: string,
  options: ReadOptions = {},
): Promise<Subscription | undefined> {
  const subscription = await deps.subscriptions.get(topicId, name, options);
  if (subscription === undefined || !subscriptionExpired(subscription, deps.clock.now())) return subscription;
  await removeSubscriptions(deps, [subscription]);
  return undefined;
}

/** A topic's subscriptions as the management API sees them: expired ones deleted and left out. */
export async function listSubscriptions(
  deps: SubscriptionRemovalDeps,
  topicId: string,
): Promise<Subscription[]> {
  const subscriptions = await deps.subscriptions.list(topicId);
  const nowMs = deps.clock.now();
  const expired = subscriptions.filter((subscription) => subscriptionExpired(subscription, nowMs));
  if (expired.length === 0) return subscriptions;
  await removeSubscriptions(deps, expired);
  return subscriptions.filter((subscription) => !expired.includes(subscription));
}

/** Refuses a new subscription when its topic (`topicId`, as subscriptions name it) is full. */
export async function checkSubscriptionQuota(
  deps: SubscriptionRemovalDeps,
  topicId: string,
  label: string,
): Promise<void> {
  const count = (await listSubscriptions(deps, topicId)).length;
  if (count >= MAX_SUBSCRIPTIONS_PER_TOPIC) {
    throw badRequest(
      `${label} already has ${count} event subscriptions; the limit is ${MAX_SUBSCRIPTIONS_PER_TOPIC}.`,
      'QuotaExceeded',
    );
  }
}

/** What a subscription change defines; identity, version and times are added when it is saved. */
export type SubscriptionDefinition = Omit<Subscription, 'uid' | 'version' | 'createdAt' | 'updatedAt'>;

/**
 * What a caller defines on a subscription: all but what Gridwire writes on it itself (the state
 * of its endpoint's validation, and with it the version and time of the change).
 */
const definedPart = ({
  validation: _validation,
  version: _version,
  updatedAt: _updatedAt,
  ...defined
}: Subscription) => defined;

/** Whether two reads of a subscription differ only in what Gridwire writes on it itself. */
const sameSubscriptionDefinition = (read: Subscription, current: Subscription): boolean =>
  isDeepStrictEqual(definedPart(read), definedPart(current));

/**
 * Creates or replaces the subscription `name` of `topicId` with what `define` makes of the one
 * stored (read strongly consistently; `undefined`: none; `define` makes its checks too). The
 * subscription keeps the existing name as first written, `uid` and creation time, and takes the
 * next version. A write that lost to a change of the subscription's definition is a 409; one that
 * lost only to Gridwire's own write (the handshake recording its answer) is made again over a fresh
 * read, `define` included, so it keeps the validation recorded when the endpoint is unchanged and
 * starts a new one when it changed, as a request arriving after it would (`changeOverRead`).
 * Answers once publishers see the change; a new endpoint URL also sends the subscription's backlog,
 * if any, its tick at once (the new endpoint starts fresh, so held events need not wait for the old
 * one's hold to end).
 */
export async function saveSubscription(
  deps: SubscriptionOpsDeps,
  topicId: string,
  name: string,
  define: (existing: Subscription | undefined) => Promise<SubscriptionDefinition>,
  /** The API's public base URL, for the validation URL of a new endpoint's handshake. */
  baseUrl: string,
): Promise<{ subscription: Subscription; created: boolean }> {
  const { written: subscription, replaced: existing } = await changeOverRead({
    read: () => readSubscription(deps, topicId, name, { consistent: true }),
    write: async (existing: Subscription | undefined) => {
      const subscription = subscriptionOver(deps, await define(existing), existing);
      await deps.subscriptions.put(subscription, existing?.version);
      return subscription;
    },
    sameDefinition: sameSubscriptionDefinition,
    conflictMessage: `The event subscription '${name}' was changed by another request at the same time; read it again and repeat the change.`,
  });
  if (subscription.validation !== undefined && subscription.validation !== existing?.validation) {
    await queueHandshake(deps, subscription, baseUrl);
  }
  await propagated(deps);
  if (existing !== undefined && !sameDestination(existing.destination, subscription.destination)) {
    await wakeBacklog(deps, deliveryTargetOf(subscription), 'endpointChanged');
  }
  return { subscription, created: existing === undefined };
}

/** The subscription `definition` makes over `existing`, as its next version. */
function subscriptionOver(
  deps: ClockDeps & IdDeps & ValidationDeps,
  definition: SubscriptionDefinition,
  existing: Subscription | undefined,
): Subscription {
  const at = now(deps);
  if (subscriptionExpired(definition, at.getTime())) {
    throw badRequest(
      `properties.expirationTimeUtc: must be in the future (got ${definition.expirationTime}; it is now ${at.toISOString()}).`,
    );
  }
  // An AWS resource needs no handshake: the stack's allow-list decided when it was written.
  const { destination } = definition;
  const validation = isWebhook(destination)
    ? validationForWrite(
        existing,
        destination,
        () => newValidation(destination.endpointUrl, deps.newId(), at.getTime(), deps.validationWindowMs),
        deps.validateEndpoints,
      )
    : undefined;
  const { validation: _ignored, ...defined } = definition;
  return {
    ...defined,
    ...(validation === undefined ? {} : { validation }),
    name: existing?.name ?? definition.name,
    uid: existing === undefined ? deps.newId() : (existing.uid ?? deps.newId()),
    version: nextSubscriptionVersion(existing, at.getTime()),
    createdAt: existing?.createdAt ?? at.toISOString(),
    updatedAt: at.toISOString(),
  };
}

/** The URL whose GET validates `subscription`'s endpoint while its validation waits. */
export function validationUrlOf(baseUrl: string, subscription: Subscription): string {
  const code = subscription.validation?.code;
  if (code === undefined) throw new Error(`subscription ${subscription.name} has no validation`);
  const query = new URLSearchParams({ topic: subscription.topic, subscription: subscription.name, code });
  return `${baseUrl}${VALIDATION_PATH}?${query.toString()}`;
}

/** Queues the handshake that asks the subscription's endpoint to agree (run by a delivery worker). */
export async function queueHandshake(deps: QueueDeps, subscription: Subscription, baseUrl: string) {
  const validation = subscription.validation;
  if (validation === undefined) return;
  const target = deliveryTargetOf(subscription);
  await deps.queue.send('delivery', [
    {
      body: validationJobBody({
        target,
        code: validation.code,
        validationUrl: validationUrlOf(baseUrl, subscription),
      }),
      delaySeconds: 0,
      groupId: targetGroupId(target),
    },
  ]);
}

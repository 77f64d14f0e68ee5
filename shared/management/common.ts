/**
 * What the management operations share: their dependencies, request helpers, subscription
 * versions, health resets and deletes (destinations as stored: `stored-destination.ts`).
 */
import { isDeepStrictEqual } from 'node:util';
import { VALIDATION_PATH } from '../config/resources';
import { newValidation, validationForWrite } from '../delivery/rules/handshake';
import { deliveryTargetOf } from '../delivery/target';
import {
  isWebhook,
  nextSubscriptionVersion,
  type Subscription,
  subscriptionExpired,
  type TopicKeys,
} from '../domain/model';
import { type HttpEvent, type HttpResult, parseJsonBody, pathParam } from '../http/api-gateway';
import { badRequest } from '../http/errors';
import type { LoggerLike } from '../observability/logging';
import type { MetricBuffer } from '../observability/metrics';
import { targetGroupId, validationJobBody } from '../queue/job-codec';
import type { JobQueue } from '../queue/sqs-job-queue';
import type { AttemptHistoryLookup } from '../storage/attempt-history';
import type { BacklogIndexReader } from '../storage/backlog';
import { type HealthStore, resetHealth } from '../storage/health';
import type { NamespaceStore, NamespaceTopicStore } from '../storage/namespaces';
import type { RateBudgetStore } from '../storage/rate-budget';
import type { ReplayClaims } from '../storage/replay-claims';
import type { SubscriptionStore } from '../storage/subscriptions';
import type { ReadOptions } from '../storage/table';
import type { TopicStore } from '../storage/topics';
import { wakeBacklog } from './backlog-wake';
import { changeOverRead } from './change-over-read';
import type { DeadLetterBlobs } from './dead-letters';
import { validateName } from './request-body';
import { type DestinationDeps, sameDestination } from './stored-destination';
import { MAX_SUBSCRIPTIONS_PER_TOPIC } from './subscription-schema';

/** Management request bodies are small; anything larger is a mistake. */
export const MAX_BODY_BYTES = 64 * 1024;

/** What the management operations depend on (those storing a destination takes: {@link DestinationDeps}). */
export interface ManagementDeps extends DestinationDeps {
  topics: TopicStore;
  subscriptions: SubscriptionStore;
  namespaces: NamespaceStore;
  namespaceTopics: NamespaceTopicStore;
  /** The attempt history (the deliveries API); its retention bounds a lookup's window. */
  history: AttemptHistoryLookup;
  /** A new unique id (subscription `uid`s, replay ids). */
  newId: () => string;
  /** The dead-letter bucket (listing, reading and marking blobs replayed). */
  deadLetterBucket: DeadLetterBlobs;
  /** Claims on blobs being replayed, so two replays at once never both replay one (none: unguarded). */
  replayClaims?: ReplayClaims;
  /**
   * The per-subscription counts of resend and replay calls (`call-limits.ts`), kept in the table
   * so the limits hold across management function instances.
   */
  callBudget: RateBudgetStore;
  /**
   * Where replayed dead letters and handshakes are queued (the `delivery` queue), and a backlog's
   * tick sent at once (the retry queue, `BACKLOG_TICK_QUEUE`).
   */
  queue: JobQueue;
  /**
   * New endpoints (a new subscription, or a changed endpoint URL) must pass the validation
   * handshake before events are matched to them.
   */
  validateEndpoints: boolean;
  /** How long a validation URL validates (5 minutes, divided by the time scale). */
  validationWindowMs: number;
  /**
   * The API's public base URL, from configuration (`ENV.publicUrl`: the `publicUrl` prop or
   * the HTTP API's own URL on AWS; `--public-url` or the stack's own address locally): the base of
   * validation URLs and topic `endpoint`s. Never taken from a request.
   */
  publicUrl: () => string;
  /**
   * The base of topic `endpoint` properties when publishing has a front door of its own (the
   * publish function's URL, `ENV.publishUrl`); without it, the public URL.
   */
  publishUrl?: () => string;
  /**
   * How long publishers may keep using a cached topic. Changes that publishers must see
   * (subscriptions, keys) are answered only after this long, so they are live on return.
   */
  propagationDelayMs: number;
  /** Endpoint health (read, and removed by `enable` and when a subscription is deleted). */
  healthStore: HealthStore;
  /**
   * How long delivery workers trust their cached copy of an endpoint's health; `enable` is
   * answered only after this long, so every worker lets deliveries through on return.
   */
  healthCacheMs: number;
  /**
   * Backlogs' index items, from the table alone: what the health view shows as `held`, and the
   * META whose token a tick sent at once carries (`wakeBacklog`).
   */
  backlog: BacklogIndexReader;
  /** The invocation's metric points (replayed dead letters are counted). */
  metrics?: MetricBuffer;
  /** Where best-effort steps that failed are logged (a backlog's tick that could not be sent). */
  logger?: LoggerLike;
}

/** Waits until publishers' cached copies show a change (answers are given only then). */
export const propagated = (deps: ManagementDeps) => deps.clock.sleep(deps.propagationDelayMs);

export type Operation = (event: HttpEvent, deps: ManagementDeps) => Promise<HttpResult>;

export const topicParam = (event: HttpEvent) => validateName('topic', pathParam(event, 'topic'));
export const subscriptionParam = (event: HttpEvent) =>
  validateName('subscription', pathParam(event, 'subscription'));
export const now = (deps: ManagementDeps) => new Date(deps.clock.now());
/** A JSON answer whose body is already JSON text. */
export const textResult = (statusCode: number, json: string): HttpResult => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: json,
});
/** A body that may be absent (`{}` then). */
export const optionalBody = (event: HttpEvent) =>
  event.body === undefined || event.body === null || event.body === ''
    ? {}
    : parseJsonBody(event, MAX_BODY_BYTES);

export const keysOf = (keys: TopicKeys) => ({ key1: keys.key1, key2: keys.key2 });

/** The key a `regenerateKey` request names (`{"keyName": "key1" | "key2"}`). */
export function keyNameOf(event: HttpEvent): keyof TopicKeys {
  const body = optionalBody(event) as { keyName?: unknown };
  if (body === null || typeof body !== 'object' || (body.keyName !== 'key1' && body.keyName !== 'key2')) {
    throw badRequest("keyName: must be 'key1' or 'key2'.");
  }
  return body.keyName;
}

/**
 * Resets a deleted subscription's health, best effort: the delete has happened, and a subscription
 * created again under the name starts healthy either way once workers' copies expire.
 */
export async function forgetHealth(deps: ManagementDeps, topic: string, subscription: string): Promise<void> {
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
  deps: ManagementDeps,
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
  deps: ManagementDeps,
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
  deps: ManagementDeps,
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
export async function listSubscriptions(deps: ManagementDeps, topicId: string): Promise<Subscription[]> {
  const subscriptions = await deps.subscriptions.list(topicId);
  const nowMs = deps.clock.now();
  const expired = subscriptions.filter((subscription) => subscriptionExpired(subscription, nowMs));
  if (expired.length === 0) return subscriptions;
  await removeSubscriptions(deps, expired);
  return subscriptions.filter((subscription) => !expired.includes(subscription));
}

/** Refuses a new subscription when its topic (`topicId`, as subscriptions name it) is full. */
export async function checkSubscriptionQuota(
  deps: ManagementDeps,
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
  deps: ManagementDeps,
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
  deps: ManagementDeps,
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
export async function queueHandshake(deps: ManagementDeps, subscription: Subscription, baseUrl: string) {
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

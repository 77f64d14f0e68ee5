/**
 * The management API of namespaces, their topics and their push subscriptions. A namespace
 * subscription is stored as an ordinary subscription of topic `<namespace>/<topic>` with the
 * `namespace` delivery profile, so delivery resolves it like a classic one (see
 * `shared/storage/table.ts`).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Namespace, NamespaceTopic, Subscription } from '../domain/model';
import { namespaceTopicId } from '../domain/names';
import {
  emptyResult,
  type HttpEvent,
  jsonResult,
  parseJsonBody,
  pathParam,
  publicBaseUrl,
} from '../http/api-gateway';
import { badRequest, notFound } from '../http/errors';
import { isoDurationOf } from '../platform/iso-duration';
import type { NamespaceInput } from '../storage/namespaces';
import type { ReadOptions } from '../storage/table';
import { changeOverRead } from './change-over-read';
import { type DeadLetterRouteDeps, deadLetterOperations } from './dead-letter-routes';
import { checkDeadLetterBucket } from './dead-letters';
import type { TopicStoreDeps } from './deps';
import { type EventTypeRouteDeps, eventTypeOperations } from './event-type-routes';
import { type HealthRouteDeps, healthOperations } from './health-routes';
import { MAX_BODY_BYTES, optionalBody, subscriptionParam, topicParam } from './http-helpers';
import {
  type KeyedResourceApi,
  type KeyedResourceRouteDeps,
  keyedResourceOperations,
  requireResource,
} from './keyed-resource-routes';
import { type MessageLogRouteDeps, messageLogOperations } from './message-log-routes';
import {
  MAX_TOPICS_PER_NAMESPACE,
  namespaceDocument,
  namespaceSubscriptionDocument,
  namespaceTopicDocument,
  PUSH_FIELD,
  parseNamespaceBody,
  parseNamespaceSubscriptionBody,
  parseNamespaceTopicBody,
} from './namespace-schema';
import type { Operations, SubscriptionFinder } from './operation';
import { type RecoverRouteDeps, recoverOperations } from './recover-routes';
import { type ReplayRouteDeps, replayOperations } from './replay-routes';
import { validateName } from './request-body';
import { type SigningRouteDeps, signingOperations } from './signing-routes';
import { type DestinationDeps, destinationOf, fullUrlsDocument } from './stored-destination';
import {
  checkSubscriptionQuota,
  deleteSubscription,
  listSubscriptions,
  readSubscription,
  type SubscriptionOpsDeps,
  saveSubscription,
} from './subscription-store-ops';
import { testEventOperations } from './test-event-routes';
import { now, propagated } from './timing';
import { type ValidationRouteDeps, validationOperations } from './validation-routes';

/**
 * What the namespace routes use: the namespaces and their topics, subscriptions (read, saved with
 * their destinations as stored), and what the routes every subscription has use.
 */
export type NamespaceRouteDeps = TopicStoreDeps &
  SubscriptionOpsDeps &
  DestinationDeps &
  KeyedResourceRouteDeps &
  HealthRouteDeps &
  MessageLogRouteDeps &
  SigningRouteDeps &
  DeadLetterRouteDeps &
  ReplayRouteDeps &
  RecoverRouteDeps &
  ValidationRouteDeps &
  EventTypeRouteDeps;

const namespaceParam = (event: HttpEvent) => validateName('namespace', pathParam(event, 'namespace'));

const NAMESPACES: KeyedResourceApi<Namespace, NamespaceInput, TopicStoreDeps> = {
  label: 'namespace',
  path: '/admin/namespaces',
  nameOf: namespaceParam,
  store: (deps) => deps.namespaces,
  parseBody: parseNamespaceBody,
  document: namespaceDocument,
};

const requireNamespace = (deps: TopicStoreDeps, name: string) => requireResource(NAMESPACES, deps, name);

async function requireNamespaceTopic(deps: TopicStoreDeps, event: HttpEvent): Promise<NamespaceTopic> {
  const namespace = namespaceParam(event);
  const name = topicParam(event);
  const topic = await deps.namespaceTopics.get(namespace, name, { consistent: true });
  if (topic === undefined) {
    // Say which one is missing: the namespace, or the topic in it.
    await requireNamespace(deps, namespace);
    throw notFound(`The topic '${name}' does not exist in namespace '${namespace}'.`);
  }
  return topic;
}

/** The topic identity subscriptions of this namespace topic carry (`<namespace>/<topic>`). */
const topicIdOf = (topic: NamespaceTopic) => namespaceTopicId(topic.namespace, topic.name);

async function requireNamespaceSubscription(
  deps: TopicStoreDeps & SubscriptionOpsDeps,
  event: HttpEvent,
  options: ReadOptions = {},
): Promise<Subscription> {
  const topic = await requireNamespaceTopic(deps, event);
  const name = subscriptionParam(event);
  const subscription = await readSubscription(deps, topicIdOf(topic), name, options);
  if (subscription === undefined) {
    throw notFound(
      `The event subscription '${name}' does not exist on topic '${topic.name}' of namespace '${topic.namespace}'.`,
    );
  }
  return subscription;
}

const NAMESPACE_SUBSCRIPTION_PATH =
  '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}';

const findNamespaceSubscription: SubscriptionFinder<TopicStoreDeps & SubscriptionOpsDeps> = (
  event,
  deps,
  options,
) => requireNamespaceSubscription(deps, event, options);

const minutesOf = (subscription: Subscription) => Math.round(subscription.retry.ttlMs / 60_000);

/**
 * Refuses a namespace topic's `PUT` over `existing` (`undefined`: a new one) that would go over
 * the namespace's topic limit, or shorten the retention below a subscription's time to live.
 */
async function checkNamespaceTopicChange(
  deps: TopicStoreDeps & SubscriptionOpsDeps,
  namespace: string,
  existing: NamespaceTopic | undefined,
  eventRetentionInDays: number,
): Promise<void> {
  if (existing === undefined) {
    const count = (await deps.namespaceTopics.list(namespace)).length;
    if (count >= MAX_TOPICS_PER_NAMESPACE) {
      throw badRequest(
        `Namespace '${namespace}' already has ${count} topics; the limit is ${MAX_TOPICS_PER_NAMESPACE}.`,
        'QuotaExceeded',
      );
    }
  } else if (eventRetentionInDays < existing.eventRetentionInDays) {
    // No subscription's time to live may exceed its topic's retention.
    const retentionMinutes = eventRetentionInDays * 24 * 60;
    const longer = (await listSubscriptions(deps, topicIdOf(existing))).find(
      (subscription) => minutesOf(subscription) > retentionMinutes,
    );
    if (longer !== undefined) {
      throw badRequest(
        `properties.eventRetentionInDays: event subscription '${longer.name}' keeps events for ${isoDurationOf(minutesOf(longer))}, longer than ${eventRetentionInDays} day(s); shorten its eventTimeToLive first.`,
      );
    }
  }
}

/**
 * What a caller defines on a namespace topic: all but what its subscriptions' and its event
 * catalog's changes write on it (`subscriptionsVersion`, `catalogVersion`, and with them `updatedAt`).
 */
const definedTopicPart = ({
  subscriptionsVersion: _subscriptionsVersion,
  catalogVersion: _catalogVersion,
  updatedAt: _updatedAt,
  ...defined
}: NamespaceTopic) => defined;

/** Whether two reads of a namespace topic differ only in what its subscriptions' changes write on it. */
const sameNamespaceTopicDefinition = (read: NamespaceTopic, current: NamespaceTopic): boolean =>
  isDeepStrictEqual(definedTopicPart(read), definedTopicPart(current));

/** Namespace operations by route key; `api.ts` serves them with the classic ones. */
export const namespaceOperations: Readonly<Operations<NamespaceRouteDeps>> = {
  ...keyedResourceOperations(NAMESPACES),

  'GET /admin/namespaces/{namespace}/topics': async (event, deps) => {
    const namespace = await requireNamespace(deps, namespaceParam(event));
    const topics = await deps.namespaceTopics.list(namespace.name);
    return jsonResult(200, { value: topics.map(namespaceTopicDocument) });
  },

  'PUT /admin/namespaces/{namespace}/topics/{topic}': async (event, deps) => {
    const namespace = await requireNamespace(deps, namespaceParam(event));
    const name = topicParam(event);
    const input = parseNamespaceTopicBody(optionalBody(event));
    const { written: topic, replaced: existing } = await changeOverRead({
      read: () => deps.namespaceTopics.get(namespace.name, name, { consistent: true }),
      write: async (existing: NamespaceTopic | undefined) => {
        await checkNamespaceTopicChange(deps, namespace.name, existing, input.eventRetentionInDays);
        const at = now(deps).toISOString();
        const topic: NamespaceTopic = {
          namespace: namespace.name,
          name: existing?.name ?? name,
          eventRetentionInDays: input.eventRetentionInDays,
          ...(input.deduplicationWindowInMinutes > 0
            ? { deduplicationWindowInMinutes: input.deduplicationWindowInMinutes }
            : {}),
          ...(input.archive === undefined ? {} : { archive: input.archive }),
          ...(input.validateEvents ? { validateEvents: true } : {}),
          ...(input.unknownEventTypes === 'reject' ? { unknownEventTypes: 'reject' as const } : {}),
          createdAt: existing?.createdAt ?? at,
          updatedAt: at,
          subscriptionsVersion: existing?.subscriptionsVersion ?? 0,
          ...(existing?.catalogVersion === undefined ? {} : { catalogVersion: existing.catalogVersion }),
        };
        await deps.namespaceTopics.put(topic, existing);
        return topic;
      },
      sameDefinition: sameNamespaceTopicDefinition,
      conflictMessage: `The topic '${name}' was changed by another request at the same time; read it again and repeat the change.`,
    });
    if (existing === undefined) await propagated(deps);
    return jsonResult(existing === undefined ? 201 : 200, namespaceTopicDocument(topic));
  },

  'GET /admin/namespaces/{namespace}/topics/{topic}': async (event, deps) =>
    jsonResult(200, namespaceTopicDocument(await requireNamespaceTopic(deps, event))),

  'DELETE /admin/namespaces/{namespace}/topics/{topic}': async (event, deps) => {
    const deleted = await deps.namespaceTopics.delete(namespaceParam(event), topicParam(event));
    if (deleted) await propagated(deps);
    return emptyResult(deleted ? 200 : 204);
  },

  ...eventTypeOperations(
    '/admin/namespaces/{namespace}/topics/{topic}',
    async (event, deps: TopicStoreDeps) => {
      const topic = await requireNamespaceTopic(deps, event);
      return { id: topicIdOf(topic), label: `topic '${topic.name}' of namespace '${topic.namespace}'` };
    },
  ),

  'GET /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions': async (event, deps) => {
    const topic = await requireNamespaceTopic(deps, event);
    const subscriptions = await listSubscriptions(deps, topicIdOf(topic));
    const nowMs = deps.clock.now();
    return jsonResult(200, {
      value: subscriptions.map((subscription) => namespaceSubscriptionDocument(subscription, nowMs)),
    });
  },

  'PUT /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}': async (
    event,
    deps,
  ) => {
    const topic = await requireNamespaceTopic(deps, event);
    const name = subscriptionParam(event);
    const input = parseNamespaceSubscriptionBody(parseJsonBody(event, MAX_BODY_BYTES), {
      allowHttp: deps.allowHttpEndpoints,
      topic,
    });
    checkDeadLetterBucket(
      input.deadLetter,
      deps.deadLetterBuckets,
      `${PUSH_FIELD}.deadLetterDestinationWithResourceIdentity.deadLetterDestination`,
    );
    const topicId = topicIdOf(topic);
    const { subscription, created } = await saveSubscription(
      deps,
      topicId,
      name,
      async (existing) => {
        if (existing === undefined) {
          await checkSubscriptionQuota(
            deps,
            topicId,
            `Topic '${topic.name}' of namespace '${topic.namespace}'`,
          );
        }
        return {
          topic: topicId,
          name,
          deliveryProfile: 'namespace',
          destination: await destinationOf(
            input,
            deps,
            existing?.destination,
            `${PUSH_FIELD}.destination.properties.deliveryAttributeMappings`,
            `${PUSH_FIELD}.destination.properties.endpointUrl`,
          ),
          filter: input.filter,
          retry: input.retry,
          ...(input.deadLetter === undefined ? {} : { deadLetter: input.deadLetter }),
          ...(input.deliveryLog === undefined ? {} : { deliveryLog: input.deliveryLog }),
          ...(input.disableAfterFailingForMs === undefined
            ? {}
            : { disableAfterFailingForMs: input.disableAfterFailingForMs }),
          eventDeliverySchema: 'CloudEventSchemaV1_0',
          labels: input.labels,
          ...(input.expirationTime === undefined ? {} : { expirationTime: input.expirationTime }),
          ...(input.orderedDelivery === undefined ? {} : { orderedDelivery: input.orderedDelivery }),
        };
      },
      publicBaseUrl(deps.publicUrl()),
    );
    return jsonResult(created ? 201 : 200, namespaceSubscriptionDocument(subscription, deps.clock.now()));
  },

  'GET /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}': async (event, deps) =>
    jsonResult(
      200,
      namespaceSubscriptionDocument(await requireNamespaceSubscription(deps, event), deps.clock.now()),
    ),

  'POST /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl': async (
    event,
    deps,
  ) => {
    const subscription = await requireNamespaceSubscription(deps, event);
    return jsonResult(200, await fullUrlsDocument(deps, subscription.destination));
  },

  'DELETE /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}': async (
    event,
    deps,
  ) => {
    const topicId = namespaceTopicId(namespaceParam(event), topicParam(event));
    const name = subscriptionParam(event);
    const deleted = await deleteSubscription(deps, topicId, name);
    return emptyResult(deleted ? 200 : 204);
  },
  ...healthOperations(NAMESPACE_SUBSCRIPTION_PATH, findNamespaceSubscription),
  ...messageLogOperations(NAMESPACE_SUBSCRIPTION_PATH, findNamespaceSubscription),
  ...testEventOperations(NAMESPACE_SUBSCRIPTION_PATH, findNamespaceSubscription),
  ...signingOperations(NAMESPACE_SUBSCRIPTION_PATH, findNamespaceSubscription),
  ...deadLetterOperations(NAMESPACE_SUBSCRIPTION_PATH, findNamespaceSubscription),
  ...replayOperations(NAMESPACE_SUBSCRIPTION_PATH, findNamespaceSubscription),
  ...recoverOperations(NAMESPACE_SUBSCRIPTION_PATH, findNamespaceSubscription),
  ...validationOperations(
    NAMESPACE_SUBSCRIPTION_PATH,
    findNamespaceSubscription,
    namespaceSubscriptionDocument,
  ),
};

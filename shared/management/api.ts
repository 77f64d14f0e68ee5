/**
 * The management API: topics, keys, event subscriptions, delivery history and dead letters;
 * namespaces, their topics and push subscriptions come from `namespaces.ts`.
 * Authentication happens before a request gets here (IAM on AWS, a bearer token in the local
 * stack).
 */

import { DEAD_LETTER_NOTICES, isDeadLetterNoticeTopic } from '../delivery/rules/dead-letter-notice';
import type { Subscription, Topic } from '../domain/model';
import {
  emptyResult,
  type HttpEvent,
  type HttpResult,
  jsonResult,
  parseJsonBody,
  publicBaseUrl,
} from '../http/api-gateway';
import { ApiError, badRequest, notFound } from '../http/errors';
import type { TopicInput } from '../storage/topics';
import { consoleOperations } from './console-routes';
import { deadLetterOperations } from './dead-letter-routes';
import { checkDeadLetterBucket } from './dead-letters';
import { deliverySchemaFor } from './delivery-schema';
import type { ClockDeps, ManagementDeps, PropagationDeps, SourceDeps, TopicStoreDeps, UrlDeps } from './deps';
import { egressOperations } from './egress-routes';
import { type CatalogTopicFinder, eventTypeOperations } from './event-type-routes';
import { healthOperations } from './health-routes';
import { MAX_BODY_BYTES, subscriptionParam, topicParam } from './http-helpers';
import { type KeyedResourceApi, keyedResourceOperations, requireResource } from './keyed-resource-routes';
import { messageLogOperations } from './message-log-routes';
import { namespaceOperations } from './namespaces';
import type { Operations, SubscriptionFinder } from './operation';
import { recoverOperations } from './recover-routes';
import { replayOperations } from './replay-routes';
import { subscriptionDocument, topicDocument } from './resource-documents';
import { sessionOperations } from './session-routes';
import { signingOperations } from './signing-routes';
import { destinationOf, fullUrlsDocument } from './stored-destination';
import { classicDeadLetterField, parseSubscriptionBody } from './subscription-schema';
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
import { parseTopicBody, sameMapping } from './topic-schema';
import { validationOperations, validationUrlOperations } from './validation-routes';

export type { ManagementDeps } from './deps';

const TOPICS: KeyedResourceApi<Topic, TopicInput, TopicStoreDeps & UrlDeps & SourceDeps> = {
  label: 'topic',
  path: '/admin/topics',
  nameOf: topicParam,
  store: (deps) => deps.topics,
  parseBody: parseTopicBody,
  checkInput: (name, input) => {
    if (isDeadLetterNoticeTopic(name) && input.inputSchema !== 'EventGridSchema') {
      throw badRequest(
        `properties.inputSchema: topic '${name}' carries Gridwire's dead-letter notices, which are Event Grid events; it takes EventGridSchema only.`,
      );
    }
  },
  checkExisting: (topic, input) => {
    if (topic.inputSchema !== input.inputSchema) {
      throw badRequest(
        `properties.inputSchema: topic '${topic.name}' uses ${topic.inputSchema}; the input schema of an existing topic cannot be changed.`,
      );
    }
    if (!sameMapping(topic.inputSchemaMapping, input.inputSchemaMapping)) {
      throw badRequest(
        `properties.inputSchemaMapping: topic '${topic.name}' has another mapping; the mapping of an existing topic cannot be changed (delete and re-create the topic).`,
      );
    }
  },
  document: (topic, deps) => topicDocument(topic, publicBaseUrl(deps.publishUrl()), deps.sources),
};

const requireTopic = (deps: TopicStoreDeps & UrlDeps & SourceDeps, name: string) =>
  requireResource(TOPICS, deps, name);

/**
 * The dead-letter notices' topic, made with its first subscription (an Event Grid schema topic,
 * like one made by a `PUT`).
 */
async function noticesTopic(deps: TopicStoreDeps & ClockDeps & PropagationDeps): Promise<Topic> {
  const { resource, created } = await deps.topics.create(
    DEAD_LETTER_NOTICES.topic,
    { inputSchema: 'EventGridSchema', tags: {} },
    now(deps),
  );
  // Publishers may have cached "no such topic"; go on once they have let it go.
  if (created) await propagated(deps);
  return resource;
}

async function requireSubscription(
  deps: SubscriptionOpsDeps,
  topic: string,
  name: string,
  options: { consistent?: boolean } = {},
): Promise<Subscription> {
  const subscription = await readSubscription(deps, topic, name, options);
  if (subscription === undefined) {
    throw notFound(`The event subscription '${name}' does not exist on topic '${topic}'.`);
  }
  return subscription;
}

const CLASSIC_SUBSCRIPTION_PATH = '/admin/topics/{topic}/eventSubscriptions/{subscription}';

const findClassicTopic: CatalogTopicFinder<TopicStoreDeps & UrlDeps> = async (event, deps) => {
  const topic = await requireTopic(deps, topicParam(event));
  return { id: topic.name, label: `topic '${topic.name}'` };
};

const findClassicSubscription: SubscriptionFinder<SubscriptionOpsDeps> = (event, deps, options) =>
  requireSubscription(deps, topicParam(event), subscriptionParam(event), options);

const operations: Readonly<Operations<ManagementDeps>> = {
  ...namespaceOperations,
  ...keyedResourceOperations(TOPICS),
  ...eventTypeOperations('/admin/topics/{topic}', findClassicTopic),

  'GET /admin/topics/{topic}/eventSubscriptions': async (event, deps) => {
    const topic = await requireTopic(deps, topicParam(event));
    const subscriptions = await listSubscriptions(deps, topic.name);
    const nowMs = deps.clock.now();
    return jsonResult(200, {
      value: subscriptions.map((subscription) => subscriptionDocument(subscription, nowMs)),
    });
  },

  'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}': async (event, deps) => {
    const topicName = topicParam(event);
    // A missing topic is a 404 whatever the body; the notices topic is made only for a good one.
    const found = isDeadLetterNoticeTopic(topicName) ? undefined : await requireTopic(deps, topicName);
    const name = subscriptionParam(event);
    const body = parseJsonBody(event, MAX_BODY_BYTES);
    const input = parseSubscriptionBody(body, { allowHttp: deps.allowHttpEndpoints });
    checkDeadLetterBucket(input.deadLetter, deps.deadLetterBuckets, classicDeadLetterField(body));
    const topic = found ?? (await noticesTopic(deps));
    const eventDeliverySchema = deliverySchemaFor(topic.inputSchema, input.eventDeliverySchema);
    const { subscription, created } = await saveSubscription(
      deps,
      topic.name,
      name,
      async (existing) => {
        if (existing === undefined) await checkSubscriptionQuota(deps, topic.name, `Topic '${topic.name}'`);
        return {
          topic: topic.name,
          name,
          deliveryProfile: 'topic',
          destination: await destinationOf(input, deps, existing?.destination),
          filter: input.filter,
          retry: input.retry,
          ...(input.deadLetter === undefined ? {} : { deadLetter: input.deadLetter }),
          eventDeliverySchema,
          labels: input.labels,
          ...(input.deliveryLog === undefined ? {} : { deliveryLog: input.deliveryLog }),
          ...(input.disableAfterFailingForMs === undefined
            ? {}
            : { disableAfterFailingForMs: input.disableAfterFailingForMs }),
          ...(input.expirationTime === undefined ? {} : { expirationTime: input.expirationTime }),
          ...(input.orderedDelivery === undefined ? {} : { orderedDelivery: input.orderedDelivery }),
        };
      },
      publicBaseUrl(deps.publicUrl()),
    );
    return jsonResult(created ? 201 : 200, subscriptionDocument(subscription, deps.clock.now()));
  },

  'GET /admin/topics/{topic}/eventSubscriptions/{subscription}': async (event, deps) =>
    jsonResult(
      200,
      subscriptionDocument(
        await requireSubscription(deps, topicParam(event), subscriptionParam(event)),
        deps.clock.now(),
      ),
    ),

  'DELETE /admin/topics/{topic}/eventSubscriptions/{subscription}': async (event, deps) => {
    const deleted = await deleteSubscription(deps, topicParam(event), subscriptionParam(event));
    return emptyResult(deleted ? 200 : 204);
  },

  'POST /admin/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl': async (event, deps) => {
    const subscription = await requireSubscription(deps, topicParam(event), subscriptionParam(event));
    return jsonResult(200, await fullUrlsDocument(deps, subscription.destination));
  },

  ...messageLogOperations(CLASSIC_SUBSCRIPTION_PATH, findClassicSubscription),
  ...testEventOperations(CLASSIC_SUBSCRIPTION_PATH, findClassicSubscription),
  ...signingOperations(CLASSIC_SUBSCRIPTION_PATH, findClassicSubscription),
  ...healthOperations(CLASSIC_SUBSCRIPTION_PATH, findClassicSubscription),
  ...deadLetterOperations(CLASSIC_SUBSCRIPTION_PATH, findClassicSubscription),
  ...replayOperations(CLASSIC_SUBSCRIPTION_PATH, findClassicSubscription),
  ...recoverOperations(CLASSIC_SUBSCRIPTION_PATH, findClassicSubscription),
  ...validationOperations(CLASSIC_SUBSCRIPTION_PATH, findClassicSubscription, subscriptionDocument),
  ...validationUrlOperations,
};

/** The admin API's operations, the session routes, and the console's pages and API over them. */
const allOperations: Readonly<Operations<ManagementDeps>> = {
  ...operations,
  ...sessionOperations,
  ...egressOperations,
  ...consoleOperations({ ...operations }),
};

/** Runs the operation for the request's route; unknown routes get a 404. */
export async function handleManagement(event: HttpEvent, deps: ManagementDeps): Promise<HttpResult> {
  const operation = allOperations[event.routeKey];
  if (operation === undefined) throw new ApiError(404, 'NotFound', `No operation for ${event.routeKey}.`);
  return operation(event, deps);
}

/** Route keys this module serves (checked against the route list in tests). */
export const MANAGEMENT_ROUTE_KEYS = Object.keys(allOperations);

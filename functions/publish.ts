/**
 * POST /topics/{topic}/api/events (topic key or SAS token), POST /iam/topics/{topic}/api/events
 * (IAM, authorized by the gateway) and POST /namespaces/{ns}/topics/{topic}:publish (namespace
 * key): accepts events and queues their deliveries. Served by the HTTP API, which routes each
 * request, and by the function's URL (when the stack has one), whose requests are routed here
 * against the same routes; IAM publishing only through the HTTP API.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ROUTES, type RouteDefinition } from '../shared/config/routes';
import { readConfig } from '../shared/config/runtime';
import type { SourceDefinition } from '../shared/config/sources';
import { TRACEPARENT_HEADER } from '../shared/delivery/rules/trace-context';
import { isValidName, namespaceTopicId } from '../shared/domain/names';
import {
  emptyResult,
  errorResult,
  type HttpEvent,
  type HttpResult,
  header,
  jsonResult,
  pathParam,
  rawBody,
} from '../shared/http/api-gateway';
import { type ApiError, badRequest, notFound, payloadTooLarge, tooManyRequests } from '../shared/http/errors';
import { compileRoute } from '../shared/http/routes';
import {
  countPublishFailures,
  flushMetrics,
  httpErrors,
  lazyHandler,
  logContext,
  routeFunctionUrlRequests,
} from '../shared/lambda/middleware';
import { createObservability, type Observability } from '../shared/lambda/wiring/observability';
import { buildDeliveryBacklogGate, buildPublisher } from '../shared/lambda/wiring/publish';
import type { Runtime } from '../shared/lambda/wiring/runtime';
import { METRIC } from '../shared/observability/metrics';
import { createAwsClients } from '../shared/platform/aws';
import type { DeliveryBacklogGate } from '../shared/publish/admission';
import { credentialOf, namespaceKeyOf } from '../shared/publish/authentication';
import type { Publisher, PublishResult } from '../shared/publish/publisher';
import { PublishRejection, type RejectionKind } from '../shared/publish/rejection';
import { ingestSourceMessages } from '../shared/publish/sources';

export interface PublishHandlerDeps {
  publisher: Publisher;
  observability: Observability;
  /**
   * Refuses publishes while the delivery queue is behind (AWS); absent in the local stack, whose
   * gateway and function URL refuse at the door before a request reaches this handler.
   */
  deliveryBacklog?: Pick<DeliveryBacklogGate, 'refusal'>;
}

const isPublishRoute = (route: RouteDefinition) => route.function === 'publish';

/**
 * The routes the function's URL serves: the publish routes whose caller the function checks
 * itself (topic keys, SAS tokens, namespace keys). A function URL has no authorizer, so IAM
 * publishing stays on the HTTP API.
 */
export const FUNCTION_URL_ROUTES = ROUTES.filter(
  (route) => isPublishRoute(route) && route.auth === 'topicKey',
).map(compileRoute);

/** IAM publishing, refused on the function's URL with a message saying where it is served. */
const IAM_ONLY_ROUTES = [
  {
    routes: ROUTES.filter((route) => isPublishRoute(route) && route.auth === 'iam').map(compileRoute),
    reason:
      'Publishing with AWS credentials (/iam/topics/<topic>/api/events) is served by the HTTP API only, whose IAM authorizer checks the signature; this URL takes topic keys, SAS tokens and namespace keys.',
  },
];

/** The route key of namespace topic publishing (`POST /namespaces/{namespace}/topics/{topicAction}`). */
const NAMESPACE_ROUTE_KEYS: ReadonlySet<string> = new Set(
  ROUTES.filter((route) => route.function === 'publish' && route.path.startsWith('/namespaces/')).map(
    (route) => `${route.method} ${route.path}`,
  ),
);

const PUBLISH_ACTION = ':publish';

/** Every header of the request, with lower-case names. */
const headersOf = (event: HttpEvent): Record<string, string> =>
  Object.fromEntries(
    Object.entries(event.headers ?? {}).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), value]],
    ),
  );

/** `POST /namespaces/{ns}/topics/{topic}:publish`, as the namespaces SDK sends it. */
async function publishToNamespace(publisher: Publisher, event: HttpEvent): Promise<HttpResult> {
  const topicAction = pathParam(event, 'topicAction');
  if (!topicAction.endsWith(PUBLISH_ACTION)) {
    throw notFound(
      `No such operation: ${topicAction} (a namespace topic takes POST .../topics/<topic>:publish).`,
    );
  }
  const result = await publisher.publishToNamespace({
    namespace: pathParam(event, 'namespace'),
    topic: topicAction.slice(0, -PUBLISH_ACTION.length),
    key: namespaceKeyOf(event),
    body: rawBody(event),
    headers: headersOf(event),
  });
  // The namespaces SDK reads a JSON body (an empty object) from a 200.
  return jsonResult(200, {}, duplicateHeader(result));
}

/** The header naming a publish's repeats, on topics with a de-duplication window. */
export const DUPLICATE_EVENTS_HEADER = 'gridwire-duplicate-events';

/** `gridwire-duplicate-events: <count>` when the topic has a de-duplication window; nothing otherwise. */
const duplicateHeader = (result: PublishResult): Record<string, string> =>
  result.duplicates === undefined ? {} : { [DUPLICATE_EVENTS_HEADER]: String(result.duplicates) };

/**
 * The topic a publish request names, as `PublishSuccessCount` names it (`<namespace>/<topic>` for
 * a namespace topic); `undefined` when the path names no valid topic.
 */
export function publishedTopicOf(event: HttpEvent): string | undefined {
  try {
    if (NAMESPACE_ROUTE_KEYS.has(event.routeKey)) {
      const namespace = pathParam(event, 'namespace');
      const topic = pathParam(event, 'topicAction').replace(/:publish$/, '');
      return isValidName('namespace', namespace) && isValidName('topic', topic)
        ? namespaceTopicId(namespace, topic)
        : undefined;
    }
    const topic = pathParam(event, 'topic');
    return isValidName('topic', topic) ? topic : undefined;
  } catch {
    return undefined;
  }
}

/** The answer each kind of refusal gets: the original service's status and error code. */
const ANSWER_OF_REJECTION: Record<RejectionKind, (message: string, detailCode: string) => ApiError> = {
  invalid: badRequest,
  tooLarge: payloadTooLarge,
};

/**
 * The HTTP answer to a request the publish rules refused: the status and error code of its kind,
 * its code as the detail and its message. The only place a rejection becomes HTTP.
 */
export const apiErrorOf = (rejection: PublishRejection): ApiError =>
  ANSWER_OF_REJECTION[rejection.kind](rejection.message, rejection.code);

/** The answer to a publish refused because the delivery queue is behind. */
const deliveryBehind = (retryAfterSeconds: number): ApiError =>
  tooManyRequests(
    'Deliveries are behind: nothing of this request was accepted. Send it again after Retry-After.',
    'DeliveryBacklog',
    retryAfterSeconds,
  );

export function createPublishHandler({ publisher, observability, deliveryBacklog }: PublishHandlerDeps) {
  const publish = async (event: HttpEvent): Promise<HttpResult> => {
    // First, before the body is parsed or a key checked: a refusal should cost next to nothing.
    // Answered here rather than thrown, so it counts as a throttle, not as a failed publish.
    const refusal = await deliveryBacklog?.refusal();
    if (refusal !== undefined) {
      observability.buffer.count(METRIC.PublishThrottledCount, 1);
      return errorResult(deliveryBehind(refusal.retryAfterSeconds));
    }
    if (NAMESPACE_ROUTE_KEYS.has(event.routeKey)) return publishToNamespace(publisher, event);
    const result = await publisher.publish({
      topic: pathParam(event, 'topic'),
      credential: credentialOf(event),
      path: event.rawPath,
      body: rawBody(event),
      contentType: header(event, 'content-type'),
      traceparent: header(event, TRACEPARENT_HEADER),
    });
    const duplicates = duplicateHeader(result);
    return Object.keys(duplicates).length === 0
      ? emptyResult(200)
      : { ...emptyResult(200), headers: duplicates };
  };
  // Rejections become their answers here, before the middlewares: the failure count and the
  // error answer then read the same `ApiError` whatever refused the request.
  const answered = async (event: HttpEvent): Promise<HttpResult> => {
    try {
      return await publish(event);
    } catch (error) {
      throw error instanceof PublishRejection ? apiErrorOf(error) : error;
    }
  };
  return middy<HttpEvent, HttpResult>(answered)
    .use(logContext(observability.logger))
    .use(flushMetrics(observability.flusher))
    .use(countPublishFailures(observability.buffer, publishedTopicOf))
    .use(httpErrors(observability.logger))
    .use(routeFunctionUrlRequests(FUNCTION_URL_ROUTES, IAM_ONLY_ROUTES));
}

/**
 * The publish function's other work: the batches of the source queues topics take events from
 * (`topic.addSource`), published as publish requests are, each message reported failed (so it
 * comes back, and reaches its queue's dead-letter queue) when it is refused or a dependency fails.
 */
export function createSourceHandler(deps: {
  publisher: Publisher;
  observability: Observability;
  sources: readonly SourceDefinition[];
}) {
  const { publisher, observability, sources } = deps;
  const ingest = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const outcomes = await ingestSourceMessages(event.Records, {
      sources,
      topicOf: (name) => publisher.topic(name),
      publish: (request) => publisher.publish(request),
      metrics: observability.buffer,
      logger: observability.logger,
    });
    return {
      batchItemFailures: event.Records.flatMap((record, index) =>
        outcomes[index]?.kind === 'published' ? [] : [{ itemIdentifier: record.messageId }],
      ),
    };
  };
  return middy<SQSEvent, SQSBatchResponse>(ingest)
    .use(logContext(observability.logger))
    .use(flushMetrics(observability.flusher));
}

/** Whether an invocation is an SQS batch (a source queue's) rather than an HTTP request. */
export const isSqsBatch = (event: unknown): event is SQSEvent =>
  typeof event === 'object' && event !== null && Array.isArray((event as { Records?: unknown }).Records);

/**
 * The publish function's handlers on `runtime`, sharing one publisher: HTTP requests (behind,
 * when the configuration sets `deliveryBacklogLimit`, its gate on the delivery queue's backlog),
 * and the batches of its source queues.
 */
export function buildPublishHandlers(runtime: Runtime, observability: Observability) {
  const deliveryBacklog = buildDeliveryBacklogGate(runtime, observability);
  const publisher = buildPublisher(runtime, observability);
  return {
    http: createPublishHandler({
      publisher,
      observability,
      ...(deliveryBacklog === undefined ? {} : { deliveryBacklog }),
    }),
    sources: createSourceHandler({ publisher, observability, sources: runtime.config.sources }),
  };
}

/** The publish function's HTTP handler on `runtime`. */
export const buildPublishHandler = (runtime: Runtime, observability: Observability) =>
  buildPublishHandlers(runtime, observability).http;

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const { http, sources } = buildPublishHandlers(runtime, createObservability('publish', runtime.config));
  return (event: HttpEvent | SQSEvent, context: Context): Promise<HttpResult | SQSBatchResponse> =>
    isSqsBatch(event) ? sources(event, context) : http(event, context);
});

/**
 * POST /topics/{topic}/api/events (topic key or SAS token) and POST /iam/topics/{topic}/api/events
 * (IAM, authorized by the gateway): accepts events and queues their deliveries.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { ROUTES } from '../shared/config/resources';
import { readConfig } from '../shared/config/runtime';
import {
  emptyResult,
  type HttpEvent,
  type HttpResult,
  header,
  pathParam,
  rawBody,
} from '../shared/http/api-gateway';
import { flushMetrics, httpErrors, lazyHandler } from '../shared/lambda/middleware';
import { buildPublisher, createObservability, type Observability } from '../shared/lambda/wiring';
import { createAwsClients } from '../shared/platform/aws';
import type { PublishCredential, Publisher } from '../shared/publish/publisher';

export interface PublishHandlerDeps {
  publisher: Publisher;
  observability: Observability;
}

const SAS_AUTHORIZATION = /^SharedAccessSignature\s+(.+)$/i;

/** Route keys (`POST /iam/topics/{topic}/api/events`) of the publish routes the gateway authorizes by IAM. */
const IAM_ROUTE_KEYS: ReadonlySet<string> = new Set(
  ROUTES.filter((route) => route.function === 'publish' && route.auth === 'iam').map(
    (route) => `${route.method} ${route.path}`,
  ),
);

/**
 * The publisher's credential. On an IAM route: the caller the gateway let in (its ARN on AWS,
 * `local` in the local stack), whatever key headers the request carries. Otherwise a key
 * (`aeg-sas-key` header or query) or a SAS token.
 */
export function credentialOf(event: HttpEvent): PublishCredential | undefined {
  if (IAM_ROUTE_KEYS.has(event.routeKey)) {
    return { kind: 'iam', caller: event.requestContext?.authorizer?.iam?.userArn ?? 'local' };
  }
  const key = header(event, 'aeg-sas-key') ?? event.queryStringParameters?.['aeg-sas-key'];
  if (key !== undefined) return { kind: 'key', key };
  const token =
    header(event, 'aeg-sas-token') ?? SAS_AUTHORIZATION.exec(header(event, 'authorization') ?? '')?.[1];
  return token === undefined ? undefined : { kind: 'sas', token };
}

export function createPublishHandler({ publisher, observability }: PublishHandlerDeps) {
  const publish = async (event: HttpEvent): Promise<HttpResult> => {
    await publisher.publish({
      topic: pathParam(event, 'topic'),
      credential: credentialOf(event),
      path: event.rawPath,
      body: rawBody(event),
      contentType: header(event, 'content-type'),
    });
    return emptyResult(200);
  };
  return middy<HttpEvent, HttpResult>(publish)
    .use(injectLambdaContext(observability.logger))
    .use(flushMetrics(observability.buffer, observability.publishMetrics))
    .use(httpErrors(observability.logger));
}

export const handler = lazyHandler(() => {
  const observability = createObservability('publish');
  const runtime = { config: readConfig(), clients: createAwsClients() };
  return createPublishHandler({ publisher: buildPublisher(runtime, observability), observability });
});

/**
 * POST /topics/{topic}/api/events: accepts events and queues their deliveries.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
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
import type { Publisher } from '../shared/publish/publisher';

export interface PublishHandlerDeps {
  publisher: Publisher;
  observability: Observability;
}

export function createPublishHandler({ publisher, observability }: PublishHandlerDeps) {
  const publish = async (event: HttpEvent): Promise<HttpResult> => {
    await publisher.publish({
      topic: pathParam(event, 'topic'),
      accessKey: header(event, 'aeg-sas-key') ?? event.queryStringParameters?.['aeg-sas-key'],
      body: rawBody(event),
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

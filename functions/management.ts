/**
 * /admin/*: topics, keys, event subscriptions and delivery history.
 */
import middy from '@middy/core';
import { readConfig } from '../shared/config/runtime';
import type { HttpEvent, HttpResult } from '../shared/http/api-gateway';
import { flushMetrics, httpErrors, lazyHandler, logContext } from '../shared/lambda/middleware';
import { buildManagementDeps, createObservability, type Observability } from '../shared/lambda/wiring';
import { handleManagement, type ManagementDeps } from '../shared/management/api';
import { createAwsClients } from '../shared/platform/aws';

export interface ManagementHandlerDeps {
  management: ManagementDeps;
  observability: Observability;
}

export function createManagementHandler({ management, observability }: ManagementHandlerDeps) {
  return middy<HttpEvent, HttpResult>((event: HttpEvent) => handleManagement(event, management))
    .use(logContext(observability.logger))
    .use(flushMetrics(observability.flusher))
    .use(httpErrors(observability.logger));
}

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('management', runtime.config);
  return createManagementHandler({ management: buildManagementDeps(runtime, observability), observability });
});

/**
 * /admin/*: topics, keys, event subscriptions and delivery history.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { createAwsClients } from '../shared/aws';
import { readConfig } from '../shared/config';
import type { HttpEvent, HttpResult } from '../shared/http';
import { handleManagement, type ManagementDeps } from '../shared/management';
import { httpErrors, lazyHandler } from '../shared/middleware';
import { buildManagementDeps, createObservability, type Observability } from '../shared/wiring';

export interface ManagementHandlerDeps {
  management: ManagementDeps;
  observability: Observability;
}

export function createManagementHandler({ management, observability }: ManagementHandlerDeps) {
  return middy<HttpEvent, HttpResult>((event: HttpEvent) => handleManagement(event, management))
    .use(injectLambdaContext(observability.logger))
    .use(httpErrors(observability.logger));
}

export const handler = lazyHandler(() => {
  const observability = createObservability('management');
  const runtime = { config: readConfig(), clients: createAwsClients() };
  return createManagementHandler({ management: buildManagementDeps(runtime), observability });
});

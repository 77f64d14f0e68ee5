/**
 * /admin/*: topics, keys, event subscriptions and delivery history. The same function carries out
 * the custom resources that declare topics and subscriptions in a CDK app (CloudFormation's
 * requests, through the provider framework: `shared/management/declared-resources.ts`), with the
 * same operations, so a declared resource is checked and made as one made through the API.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { readConfig } from '../shared/config/runtime';
import type { HttpEvent, HttpResult } from '../shared/http/api-gateway';
import { flushMetrics, httpErrors, lazyHandler, logContext } from '../shared/lambda/middleware';
import { buildManagementDeps } from '../shared/lambda/wiring/management';
import { createObservability, type Observability } from '../shared/lambda/wiring/observability';
import { handleManagement, MANAGEMENT_ROUTE_KEYS, type ManagementDeps } from '../shared/management/api';
import {
  applyDeclaredResource,
  checkDeclaredResource,
  type DeclaredResourceCompletion,
  type DeclaredResourceEvent,
  type DeclaredResourceResult,
  type DeclaredResourcesDeps,
  isCompletionCheck,
} from '../shared/management/declared-resources';
import { openApiOperations } from '../shared/openapi/route';
import { createAwsClients, createSecretsManagerClient } from '../shared/platform/aws';
import { systemClock } from '../shared/platform/clock';

export interface ManagementHandlerDeps {
  management: ManagementDeps;
  observability: Observability;
}

/** The routes the function serves: the admin API's (and the console's), and the API's own description. */
export const MANAGEMENT_FUNCTION_ROUTE_KEYS: readonly string[] = [
  ...MANAGEMENT_ROUTE_KEYS,
  ...Object.keys(openApiOperations),
];

export function createManagementHandler({ management, observability }: ManagementHandlerDeps) {
  const handle = (event: HttpEvent) =>
    openApiOperations[event.routeKey]?.(event, management) ?? handleManagement(event, management);
  return middy<HttpEvent, HttpResult>(handle)
    .use(logContext(observability.logger))
    .use(flushMetrics(observability.flusher))
    .use(httpErrors(observability.logger));
}

/** A custom resource's request, or the provider framework's completion check of one. */
export function createDeclaredResourcesHandler(deps: DeclaredResourcesDeps) {
  return (event: DeclaredResourceEvent): Promise<DeclaredResourceResult | DeclaredResourceCompletion> =>
    isCompletionCheck(event) ? checkDeclaredResource(event, deps) : applyDeclaredResource(event, deps);
}

/** Whether the function was invoked with a custom resource's request rather than an HTTP event. */
export const isDeclaredResourceEvent = (event: unknown): event is DeclaredResourceEvent =>
  typeof event === 'object' && event !== null && 'RequestType' in event && 'ResourceProperties' in event;

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('management', runtime.config);
  const management = buildManagementDeps(runtime, observability);
  const http = createManagementHandler({ management, observability });
  const secrets = createSecretsManagerClient();
  const declared = createDeclaredResourcesHandler({
    management,
    clock: systemClock,
    readSecret: async (arn) => {
      const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
      if (SecretString === undefined || SecretString === '')
        throw new Error(`The secret ${arn} holds no text.`);
      return SecretString;
    },
  });
  return async (event: HttpEvent | DeclaredResourceEvent, context: Context) => {
    if (!isDeclaredResourceEvent(event)) return http(event, context);
    observability.logger.info('declared resource', {
      requestType: event.RequestType,
      kind: event.ResourceProperties.Kind,
      physicalResourceId: event.PhysicalResourceId,
      completionCheck: isCompletionCheck(event),
    });
    return declared(event);
  };
});

/**
 * The event handler of the custom resources that declare topics and event subscriptions in a CDK
 * app (`shared/management/declared-resources.ts`): CloudFormation's provider framework calls it
 * with each create, update and delete, and answers CloudFormation with what it returns, or with
 * the reason it rejected.
 */
import { readConfig } from '../shared/config/runtime';
import { lazyHandler } from '../shared/lambda/middleware';
import { buildManagementDeps, createObservability } from '../shared/lambda/wiring';
import {
  applyDeclaredResource,
  type DeclaredResourceEvent,
  type DeclaredResourceResult,
  type DeclaredResourcesDeps,
} from '../shared/management/declared-resources';
import { createAwsClients } from '../shared/platform/aws';
import { systemClock } from '../shared/platform/clock';

export function createDeclaredResourcesHandler(deps: DeclaredResourcesDeps) {
  return (event: DeclaredResourceEvent): Promise<DeclaredResourceResult> =>
    applyDeclaredResource(event, deps);
}

export const handler = lazyHandler(() => {
  const runtime = { config: readConfig(), clients: createAwsClients() };
  const observability = createObservability('management', runtime.config);
  const apply = createDeclaredResourcesHandler({
    management: buildManagementDeps(runtime, observability),
    clock: systemClock,
  });
  return async (event: DeclaredResourceEvent) => {
    observability.logger.info('declared resource', {
      requestType: event.RequestType,
      kind: event.ResourceProperties.Kind,
      physicalResourceId: event.PhysicalResourceId,
    });
    return apply(event);
  };
});

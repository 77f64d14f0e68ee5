import { CfnOutput } from 'aws-cdk-lib';
import { type FunctionUrl, FunctionUrlAuthType, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { PipelineFunction } from '../pipeline-function';

/**
 * Where publishers reach the publish function:
 * - `httpApi`: the HTTP API's publish routes ($1.00 per million requests, throttled per stage).
 * - `functionUrl`: the function's own URL (no charge beyond the invocation); the HTTP API keeps
 *   the admin routes, the validation URL and IAM publishing, but no key publishing.
 * - `both`: either, with the same paths.
 */
export type PublishIngress = 'httpApi' | 'functionUrl' | 'both';

export const PUBLISH_INGRESSES: readonly PublishIngress[] = ['httpApi', 'functionUrl', 'both'];

/** Whether the HTTP API serves the routes of key publishing (topic keys, SAS, namespace keys). */
export const httpApiServesKeyPublishing = (ingress: PublishIngress): boolean => ingress !== 'functionUrl';

/** Name of the stack output carrying the publish function's URL (after the pipeline's output prefix). */
export const PUBLISH_URL_OUTPUT = 'PublishUrl';

/**
 * The publish function's URL: auth type NONE, since the function checks topic keys, SAS tokens
 * and namespace keys itself (as it does behind the HTTP API, whose publish routes have no
 * authorizer either); buffered responses; no CORS, as the HTTP API has none. It takes the
 * publish paths of `ROUTES` (the function routes them), never IAM publishing, which needs the
 * gateway's IAM authorizer. Outputs its URL as `<outputPrefix>PublishUrl`.
 */
export function addPublishFunctionUrl(
  scope: Construct,
  publishFunction: PipelineFunction,
  outputPrefix = '',
): FunctionUrl {
  const url = publishFunction.addFunctionUrl({
    authType: FunctionUrlAuthType.NONE,
    invokeMode: InvokeMode.BUFFERED,
  });
  new CfnOutput(scope, PUBLISH_URL_OUTPUT, {
    value: url.url,
    description:
      'Base URL of the publish function URL (POST /topics/<topic>/api/events, POST /namespaces/<namespace>/topics/<topic>:publish)',
  }).overrideLogicalId(`${outputPrefix}${PUBLISH_URL_OUTPUT}`);
  return url;
}

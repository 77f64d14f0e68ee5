import { Aws, Fn, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  type HttpRoute,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ROUTES, type RouteAuth, type RouteDefinition } from '../../shared/config/routes';
import type { PipelineFunction } from '../pipeline-function';
import {
  ADMIN_ROUTE_THROTTLE,
  PUBLIC_FILE_ROUTE_THROTTLE,
  SESSION_ROUTE_THROTTLE,
  type StageThrottle,
  VALIDATION_ROUTE_THROTTLE,
} from './capacity';
import { httpApiServesKeyPublishing, type PublishIngress } from './publish-url';

/**
 * The HTTP API, without routes or stage: made before the functions, which are given its URL. It
 * refers to none of them (its routes are added by `addApiRoutes` once they exist), so
 * CloudFormation sees no cycle.
 */
export function createHttpApi(scope: Construct): { readonly api: HttpApi; readonly url: string } {
  const api = new HttpApi(scope, 'Api', {
    description: 'Gridwire: publish events and manage topics and event subscriptions',
    createDefaultStage: false,
  });
  // The $default stage's URL has no stage path; built from the API id, not the stage, which
  // depends on the routes and so on the functions.
  const url = Fn.join('', ['https://', api.apiId, '.execute-api.', Aws.REGION, '.', Aws.URL_SUFFIX]);
  return { api, url };
}

export interface ApiRoutesOptions {
  readonly api: HttpApi;
  /** The functions behind the routes (`RouteDefinition.function`). */
  readonly functions: Readonly<Record<RouteDefinition['function'], PipelineFunction>>;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** With `functionUrl`, key publishing is served by the publish function's URL instead. */
  readonly publishIngress: PublishIngress;
}

/**
 * The routes of `ROUTES` the HTTP API serves: all of them, but for key publishing when the
 * publish function's URL alone serves it. Admin routes, the validation URL, the console's and
 * portal's routes and IAM publishing are always here: they need the gateway's IAM authorizer, or
 * are the management function's.
 */
export const httpApiRoutes = (ingress: PublishIngress): readonly RouteDefinition[] =>
  ROUTES.filter(
    (route) =>
      httpApiServesKeyPublishing(ingress) || !(route.function === 'publish' && route.auth === 'topicKey'),
  );

/**
 * The route-level throttle of a route, when it has its own: every management route (the admin
 * routes, the validation URL, the console's and portal's API, page and files). The others
 * (publishing) take the stage's (`throttle`).
 *
 * API Gateway applies a stage's default throttle to each route on its own (a token bucket per
 * route, as REST APIs apply a stage's to each method), not to the stage's routes together; what
 * all routes of all the account's APIs share is the account's regional quota. So the admin routes
 * were never in the publish routes' bucket: what they lacked was a size of their own, since the
 * stage's is sized for the publish function and can be tiny (see `ADMIN_ROUTE_THROTTLE`). No
 * route setting reserves part of the account's quota for a route.
 */
export function ownRouteThrottle(route: RouteDefinition): StageThrottle | undefined {
  if (route.auth === 'admin') return ADMIN_ROUTE_THROTTLE;
  if (route.auth === 'validationCode') return VALIDATION_ROUTE_THROTTLE;
  if (route.auth === 'session') return SESSION_ROUTE_THROTTLE;
  if (route.auth === 'public') return PUBLIC_FILE_ROUTE_THROTTLE;
  return undefined;
}

/** Whether the gateway's IAM authorizer checks the route: the caller signs with SigV4. */
const gatewayChecked = (auth: RouteAuth): auth is 'admin' | 'iam' => auth === 'admin' || auth === 'iam';

/** Why each kind of route the gateway lets through needs no authorizer there (cdk-nag AwsSolutions-APIG4). */
const NO_AUTHORIZER_REASONS: Readonly<Record<Exclude<RouteAuth, 'admin' | 'iam'>, string>> = {
  topicKey:
    'Publishing with topic keys, as Event Grid clients do: the publish function checks the aeg-sas-key or SAS token against the topic on every request; a gateway authorizer cannot know topic keys.',
  validationCode:
    "The validation URL an endpoint owner opens to consent: the management function checks the subscription's validation code in the URL; there is no caller identity to authorize.",
  session:
    "The console's and portal's API: the management function checks every request's session token (signed with the session key, minted by the IAM-authorized POST /admin/sessions) and its scope against the operation; browsers hold no SigV4 credentials for a gateway authorizer to check.",
  public:
    "The console's and portal's page and static files (HTML, scripts, style sheet), the same for everyone: they hold no secret and no data; every call the page makes goes to the session-checked API.",
};

/** The stage's `RouteSettings`: each route with a throttle of its own, by route key (`METHOD /path`). */
export function routeSettingsOf(
  routes: readonly RouteDefinition[],
): Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> {
  const settings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
  for (const route of routes) {
    const throttle = ownRouteThrottle(route);
    if (throttle === undefined) continue;
    settings[`${route.method} ${route.path}`] = {
      ThrottlingRateLimit: throttle.rateLimit,
      ThrottlingBurstLimit: throttle.burstLimit,
    };
  }
  return settings;
}

/** The `$default` stage (throttled, access-logged) and the routes of `httpApiRoutes`. */
export function addApiRoutes(scope: Construct, options: ApiRoutesOptions): void {
  const stage = addDefaultStage(scope, options);
  const routes = httpApiRoutes(options.publishIngress);
  /** The routes the stage's route settings name: they must exist before the stage refers to them. */
  const named: HttpRoute[] = [];
  // One Lambda permission per function for the whole API (source ARN `<api>/*/*/*`), not one per
  // route: a function's resource policy is limited to 20 KB, and per-route statements fill it as
  // routes are added. Scoping to the route would add no protection: each function checks the
  // route and its authorization itself, and admin and IAM routes are authorized at the gateway.
  const apiScoped = { scopePermissionToRoute: false };
  const integrations = {
    publish: new HttpLambdaIntegration('PublishIntegration', options.functions.publish, apiScoped),
    management: new HttpLambdaIntegration('ManagementIntegration', options.functions.management, apiScoped),
  };
  // Admin routes and IAM publishing: the caller must sign with SigV4 and be allowed
  // `execute-api:Invoke` on the route (for publishing, per topic through the resource ARN). The
  // others are let through: their function checks them (`NO_AUTHORIZER_REASONS`).
  const iamAuthorizer = new HttpIamAuthorizer();
  for (const route of routes) {
    const added = options.api.addRoutes({
      path: route.path,
      // `ANY` (the console's API) is HttpMethod.ANY: one route for every method.
      methods: [HttpMethod[route.method]],
      integration: integrations[route.function],
      ...(gatewayChecked(route.auth) ? { authorizer: iamAuthorizer } : {}),
    });
    if (ownRouteThrottle(route) !== undefined) named.push(...added);
    if (gatewayChecked(route.auth)) continue;
    for (const httpRoute of added) {
      Validations.of(httpRoute).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: NO_AUTHORIZER_REASONS[route.auth],
      });
    }
  }
  // The routes' own throttles. CloudFormation refuses route settings naming a route that does not
  // exist yet ("Unable to find Route by key"), so the stage waits for those routes.
  (stage.node.defaultChild as CfnStage).routeSettings = routeSettingsOf(routes);
  for (const route of named) stage.node.addDependency(route);
}

function addDefaultStage(scope: Construct, options: ApiRoutesOptions): HttpStage {
  const accessLogs = new LogGroup(scope, 'ApiAccessLogs', {
    retention: options.logRetention,
    removalPolicy: options.removalPolicy,
  });
  return new HttpStage(scope, 'DefaultStage', {
    httpApi: options.api,
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit: options.throttle.rateLimit, burstLimit: options.throttle.burstLimit },
    accessLogSettings: {
      destination: new LogGroupLogDestination(accessLogs),
      // One JSON object per request. No query strings: validation URLs carry codes there.
      format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
    },
  });
}

/**
 * The fields of each API access log line (HTTP API `$context` variables): what only the gateway
 * knows, nothing a field here or the functions' logs and metrics already say. Left out: the user
 * agent (the largest field, and no operating question needs it), the protocol, the response
 * length, and the integration's status and latency (the function's own answer is `status`; its
 * duration is Lambda's `Duration` metric).
 */
const ACCESS_LOG_FIELDS = {
  /** The id the caller got back (`apigw-requestid` header): what to search for when one reports a request. */
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  /** Who sent it: a publisher flooding the API, or an address to block. */
  sourceIp: '$context.identity.sourceIp',
  /** The IAM principal of an admin or IAM publish request: who changed what. */
  caller: '$context.identity.caller',
  method: '$context.httpMethod',
  /** The route matched (`-` when none did), beside the path it was asked for. */
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  /** Milliseconds from request to answer, as the caller saw them (less the network). */
  responseLatency: '$context.responseLatency',
  /** Why the function could not be invoked or answered wrongly (timeout, throttle, crash). */
  integrationError: '$context.integrationErrorMessage',
  /** The gateway's own refusal (throttled, IAM denied, no route): the function never ran. */
  error: '$context.error.message',
} as const;

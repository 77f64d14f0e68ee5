/**
 * The console and the portal, served by the management function on AWS and in the local stack:
 * `GET /console` and `GET /portal` (one page shell), `GET /console/<file>` (its scripts and
 * stylesheet), and `/console/api/<the admin path after /admin>`, which runs the admin API's own
 * operation for a session token (`Authorization: Bearer <token>` from `POST /admin/sessions`).
 *
 * An operator session may call every admin route but the session routes (a session cannot make
 * sessions, so revoking them all holds). A portal session reaches only the subscriptions of its
 * topic or namespace whose labels include every label of its scope: the routes below, each
 * checked here on the server; and it reads its topic's (or its namespace's topics') event
 * catalog, never changing it. Anything outside the scope answers as if it did not exist (404);
 * an action the session's permissions leave out is a 403 naming the permission.
 */
import { CONSOLE_API_PATH, CONSOLE_PATH, PORTAL_PATH, ROUTES } from '../config/routes';
import { consoleHeaders, inlineScriptHashes, PAGE_FILE } from '../console/files';
import type { HttpEvent, HttpResult } from '../http/api-gateway';
import { jsonResult, parseJsonBody, pathParam, requestMethod } from '../http/api-gateway';
import { ApiError, badRequest, forbidden, notFound } from '../http/errors';
import { compileRoute, matchRoute } from '../http/routes';
import { labelsInScope, type PortalPermission, type PortalScope, withScopeLabels } from '../sessions/scope';
import { bearerToken, openSessionToken, type Session, SessionRefused } from '../sessions/token';
import type { ClockDeps, ManagementDeps, SessionDeps } from './deps';
import { MAX_BODY_BYTES } from './http-helpers';
import type { Operation, Operations } from './operation';
import { requireSessionKeys } from './session-routes';

/** The admin routes a session may reach (not the session routes themselves). */
const SESSION_REACHABLE = ROUTES.filter(
  (route) => route.auth === 'admin' && !route.path.startsWith('/admin/sessions'),
).map(compileRoute);

/** The console's API route and its pages' routes, by route key. */
export const CONSOLE_ROUTE_KEYS = {
  api: `ANY ${CONSOLE_API_PATH}/{proxy+}`,
  page: `GET ${CONSOLE_PATH}`,
  file: `GET ${CONSOLE_PATH}/{file+}`,
  portal: `GET ${PORTAL_PATH}`,
} as const;

// ---- The pages -------------------------------------------------------------------------------

/** The page shell, with the policy of the console (never framed) or of the portal. */
async function pageAnswer(deps: SessionDeps, portal: boolean): Promise<HttpResult> {
  const file = await deps.consoleFiles.read(PAGE_FILE);
  if (file === undefined) throw notFound('The console page is missing from this deployment.');
  const logo = portal ? deps.portalBranding.logoUrl : undefined;
  return {
    statusCode: 200,
    headers: consoleHeaders(file.contentType, {
      scriptHashes: inlineScriptHashes(file.text),
      ...(portal ? { frameAncestors: deps.portalFrameAncestors } : {}),
      ...(logo === undefined ? {} : { imageOrigins: [new URL(logo).origin] }),
    }),
    body: file.text,
  };
}

async function fileAnswer(event: HttpEvent, deps: SessionDeps): Promise<HttpResult> {
  const name = event.rawPath.slice(`${CONSOLE_PATH}/`.length).replace(/\/$/, '');
  const file = name === PAGE_FILE ? undefined : await deps.consoleFiles.read(name);
  if (file === undefined) throw notFound(`The console has no file '${name}'.`);
  return { statusCode: 200, headers: consoleHeaders(file.contentType), body: file.text };
}

// ---- Sessions --------------------------------------------------------------------------------

/** The request's session: a 401 (code `SessionExpired` or `SessionInvalid`) when there is none. */
async function sessionOf(event: HttpEvent, deps: SessionDeps & ClockDeps): Promise<Session> {
  const token = bearerToken(event.headers?.authorization);
  if (token === undefined) {
    throw new ApiError(
      401,
      'SessionRequired',
      'This route takes a session token: send "Authorization: Bearer <token>" (POST /admin/sessions makes one; gridwire console and gridwire portal-link print a link with one).',
    );
  }
  const keys = requireSessionKeys(deps);
  try {
    return openSessionToken(token, await keys.current(), deps.clock.now());
  } catch (error) {
    if (!(error instanceof SessionRefused)) throw error;
    throw new ApiError(401, error.reason === 'expired' ? 'SessionExpired' : 'SessionInvalid', error.message);
  }
}

/** What the page learns of its session: its role, scope, end and the portal's look. */
function sessionDocument(session: Session, deps: SessionDeps) {
  return {
    id: session.id,
    role: session.scope.role,
    scope: session.scope,
    expiresAt: new Date(session.expiresAt).toISOString(),
    ...(session.scope.role === 'portal' ? { branding: deps.portalBranding } : {}),
  };
}

// ---- The portal's routes ---------------------------------------------------------------------

const CLASSIC = '/admin/topics/{topic}';
const NAMESPACED = '/admin/namespaces/{namespace}/topics/{topic}';
const SUBSCRIPTION = '/eventSubscriptions/{subscription}';

/**
 * What a portal session may do on a subscription's routes, by the route's path after the
 * subscription's and its method: `read` for what only reads, else the permission it needs.
 * Replays from the topic's archive take `replay`, as dead-letter replays do: to start one and to
 * cancel one; listing and showing them only reads.
 * Not here (so a 404 to a portal session): the signing secret read back (`getSigningSecret`: a
 * portal shows a secret once, when it rotates it).
 */
const SUBSCRIPTION_ROUTES: Readonly<Record<string, PortalPermission | 'read'>> = {
  'GET ': 'read',
  'PUT ': 'write',
  'DELETE ': 'write',
  'POST /getFullUrl': 'read',
  'GET /deliveries': 'read',
  'POST /resend': 'resend',
  'POST /rotateSigningSecret': 'rotateSecret',
  'GET /health': 'read',
  'POST /enable': 'pause',
  'POST /pause': 'pause',
  'POST /resume': 'pause',
  'POST /validate': 'write',
  'GET /deadLetters': 'read',
  'GET /deadLetters/blob': 'read',
  'POST /deadLetters/replay': 'replay',
  'GET /replays': 'read',
  'GET /replays/{replayId}': 'read',
  'POST /replays': 'replay',
  'DELETE /replays/{replayId}': 'replay',
  'POST /sendTestEvent': 'sendTest',
};

/** The routes of a topic's event catalog a portal session may read (after the topic's path): never change. */
const CATALOG_ROUTES: readonly string[] = ['/eventTypes', '/eventTypes/{eventType}'];

/** The request's topic when it is the scope's (or in the scope's namespace); a 404 otherwise. */
function checkTopic(event: HttpEvent, scope: PortalScope, namespaced: boolean): void {
  const topic = pathParam(event, 'topic');
  if (namespaced) {
    const namespace = pathParam(event, 'namespace');
    if (scope.namespace !== namespace) throw notFound(`The namespace '${namespace}' does not exist.`);
    return;
  }
  if (scope.topic !== topic) throw notFound(`The topic '${topic}' does not exist.`);
}

type Run = (event: HttpEvent) => Promise<HttpResult>;

/** The admin event for another route of the same request (its path parameters kept). */
const asRoute = (event: HttpEvent, routeKey: string, method: string): HttpEvent => ({
  ...event,
  routeKey,
  body: '',
  isBase64Encoded: false,
  requestContext: { ...event.requestContext, http: { ...event.requestContext.http, method } },
});

/** The labels of the request's subscription, or undefined when it does not exist. */
async function subscriptionLabels(
  event: HttpEvent,
  base: string,
  operations: Operations<ManagementDeps>,
  deps: ManagementDeps,
): Promise<string[] | undefined> {
  const routeKey = `GET ${base}${SUBSCRIPTION}`;
  try {
    const answer = await (operations[routeKey] as Operation)(asRoute(event, routeKey, 'GET'), deps);
    const document = JSON.parse(answer.body ?? '{}') as { properties?: { labels?: unknown } };
    const labels = document.properties?.labels;
    return Array.isArray(labels) ? labels.filter((label): label is string => typeof label === 'string') : [];
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 404) return undefined;
    throw error;
  }
}

/** A subscription outside the scope, worded as the admin API words one that does not exist. */
const subscriptionNotFound = (event: HttpEvent) =>
  notFound(
    `The event subscription '${pathParam(event, 'subscription')}' does not exist on topic '${pathParam(event, 'topic')}'.`,
  );

/**
 * A portal's PUT body: the scope's labels added to the subscription's, and only webhook
 * endpoints (a portal's user owns an HTTPS endpoint, not the stack's AWS resources).
 */
function portalSubscriptionBody(event: HttpEvent, scope: PortalScope): HttpEvent {
  const body = parseJsonBody(event, MAX_BODY_BYTES) as {
    properties?: {
      labels?: unknown;
      destination?: { endpointType?: unknown };
      deliveryConfiguration?: { push?: { destination?: { endpointType?: unknown } } };
    };
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('body: must be a JSON object such as {"properties": {"destination": {...}}}.');
  }
  const properties = body.properties ?? {};
  const destinations: [string, unknown][] = [
    ['properties.destination', properties.destination?.endpointType],
    [
      'properties.deliveryConfiguration.push.destination',
      properties.deliveryConfiguration?.push?.destination?.endpointType,
    ],
  ];
  for (const [field, endpointType] of destinations) {
    if (endpointType !== undefined && endpointType !== 'WebHook') {
      throw badRequest(
        `${field}.endpointType: a portal session makes WebHook endpoints only (got ${JSON.stringify(endpointType)}).`,
      );
    }
  }
  const labels = Array.isArray(properties.labels) ? (properties.labels as string[]) : [];
  return {
    ...event,
    body: JSON.stringify({ ...body, properties: { ...properties, labels: withScopeLabels(scope, labels) } }),
    isBase64Encoded: false,
  };
}

/** Runs a portal session's request, or refuses it: 404 outside the scope, 403 without the permission. */
async function portalRequest(
  event: HttpEvent,
  scope: PortalScope,
  run: Run,
  operations: Operations<ManagementDeps>,
  deps: ManagementDeps,
): Promise<HttpResult> {
  const [method = '', path = ''] = event.routeKey.split(' ');
  const namespaced = path.startsWith(NAMESPACED);
  const base = namespaced ? NAMESPACED : CLASSIC;
  const notInPortal = () =>
    notFound(`No operation for ${method} ${path.replace(/^\/admin/, CONSOLE_API_PATH)} in the portal.`);

  // The namespace's topics (a namespace scope's topic picker).
  if (path === '/admin/namespaces/{namespace}/topics' && method === 'GET') {
    const namespace = pathParam(event, 'namespace');
    if (scope.namespace !== namespace) throw notFound(`The namespace '${namespace}' does not exist.`);
    return run(event);
  }
  if (!path.startsWith(base)) throw notInPortal();
  const rest = path.slice(base.length);
  if (rest === '' && method === 'GET') {
    checkTopic(event, scope, namespaced);
    return run(event);
  }
  // The topic's event catalog, read only: what the events its subscriptions get look like.
  if (CATALOG_ROUTES.includes(rest) && method === 'GET') {
    checkTopic(event, scope, namespaced);
    return run(event);
  }
  if (rest === '/eventSubscriptions' && method === 'GET') {
    checkTopic(event, scope, namespaced);
    return filteredList(await run(event), scope);
  }
  if (!rest.startsWith(SUBSCRIPTION)) throw notInPortal();
  const need = SUBSCRIPTION_ROUTES[`${method} ${rest.slice(SUBSCRIPTION.length)}`];
  if (need === undefined) throw notInPortal();
  checkTopic(event, scope, namespaced);
  const labels = await subscriptionLabels(event, base, operations, deps);
  const creating = method === 'PUT' && labels === undefined;
  if (!creating && (labels === undefined || !labelsInScope(scope, labels))) throw subscriptionNotFound(event);
  if (need !== 'read' && !scope.permissions.includes(need)) {
    throw forbidden(`This portal session may not do this: it needs the '${need}' permission.`);
  }
  return run(method === 'PUT' ? portalSubscriptionBody(event, scope) : event);
}

/** A list of subscriptions with only those in the scope. */
function filteredList(answer: HttpResult, scope: PortalScope): HttpResult {
  if (answer.statusCode !== 200 || typeof answer.body !== 'string') return answer;
  const document = JSON.parse(answer.body) as { value?: { properties?: { labels?: unknown } }[] };
  const value = (document.value ?? []).filter((subscription) => {
    const labels = subscription.properties?.labels;
    return Array.isArray(labels) && labelsInScope(scope, labels as string[]);
  });
  return jsonResult(200, { ...document, value });
}

// ---- The API ---------------------------------------------------------------------------------

/**
 * The console's routes: its pages and files, and its API, which runs `operations` (the admin
 * API's) for a session as its scope allows.
 */
export function consoleOperations(operations: Operations<ManagementDeps>): Operations<ManagementDeps> {
  return {
    [CONSOLE_ROUTE_KEYS.page]: (_event, deps) => pageAnswer(deps, false),
    [CONSOLE_ROUTE_KEYS.portal]: (_event, deps) => pageAnswer(deps, true),
    [CONSOLE_ROUTE_KEYS.file]: (event, deps) => fileAnswer(event, deps),
    [CONSOLE_ROUTE_KEYS.api]: async (event, deps) => {
      const session = await sessionOf(event, deps);
      const method = requestMethod(event);
      const adminPath = `/admin${event.rawPath.slice(CONSOLE_API_PATH.length)}`;
      if (adminPath.replace(/\/$/, '') === '/admin/session' && method === 'GET') {
        return jsonResult(200, sessionDocument(session, deps));
      }
      const found = matchRoute(SESSION_REACHABLE, method, adminPath);
      const operation = found === undefined ? undefined : operations[found.route.routeKey];
      if (found === undefined || operation === undefined) {
        throw notFound(`No operation for ${method} ${event.rawPath}.`);
      }
      const adminEvent: HttpEvent = {
        ...event,
        routeKey: found.route.routeKey,
        pathParameters: { ...found.pathParameters },
      };
      const run: Run = (request) => operation(request, deps);
      if (session.scope.role === 'operator') return run(adminEvent);
      return portalRequest(adminEvent, session.scope, run, operations, deps);
    },
  };
}

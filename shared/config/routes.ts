/**
 * The one list of Gridwire's HTTP routes and who may call each: the HTTP API's routes in the
 * construct (`infra/pipeline/api.ts`), the local gateway's (`local/gateway.ts`), and the routes
 * the publish and management functions serve, all read from here.
 */

/**
 * Who may call a route:
 * - `topicKey`: anyone holding one of the topic's (or the namespace's) keys or a SAS token made
 *   with one; the function checks it itself, and the gateway lets every request through.
 * - `admin`: the admin API. IAM (SigV4) on AWS, through the gateway's IAM authorizer; the admin
 *   bearer token in the local stack. Enforced by the gateway.
 * - `iam`: publishing by AWS principals that sign with their own credentials instead of holding
 *   topic keys. IAM (SigV4) on AWS, through the gateway's IAM authorizer, so which topics a
 *   principal may publish to is an IAM policy (`execute-api:Invoke` on the route's resource);
 *   the admin bearer token in the local stack. Enforced by the gateway; the function ignores keys.
 * - `validationCode`: anyone holding a subscription's validation code (the validation URL sent to
 *   its endpoint in the handshake); the function checks it, the gateway lets every request through.
 * - `session`: the console's and portal's API calls, with a session token minted by
 *   `POST /admin/sessions` (`Authorization: Bearer <token>`); the function checks the token and
 *   its scope, the gateway lets every request through.
 * - `public`: the console's and portal's page and files, which hold no secret.
 */
export type RouteAuth = 'topicKey' | 'admin' | 'iam' | 'validationCode' | 'session' | 'public';

export interface RouteDefinition {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'ANY';
  /**
   * API Gateway route path with `{param}` placeholders; a last `{param+}` takes the rest of the
   * path (one or more segments).
   */
  readonly path: string;
  readonly function: 'publish' | 'management';
  /** See {@link RouteAuth}. */
  readonly auth: RouteAuth;
}

const admin = (method: RouteDefinition['method'], path: string): RouteDefinition => ({
  method,
  path: `/admin${path}`,
  function: 'management',
  auth: 'admin',
});

/** The path of validation URLs (the endpoint handshake's manual way). */
export const VALIDATION_PATH = '/eventSubscriptions/validate';

/** Where the console's page is served (and its files under it). */
export const CONSOLE_PATH = '/console';
/** Where the portal's page is served (its files are the console's). */
export const PORTAL_PATH = '/portal';
/**
 * The prefix of the console's and portal's API: `/console/api/<the admin path after /admin>`,
 * authorised by a session token rather than IAM.
 */
export const CONSOLE_API_PATH = `${CONSOLE_PATH}/api`;

/** Where the API's OpenAPI document is served (`shared/openapi`). */
export const OPENAPI_PATH = '/openapi.json';

export const ROUTES: readonly RouteDefinition[] = [
  { method: 'POST', path: '/topics/{topic}/api/events', function: 'publish', auth: 'topicKey' },
  { method: 'POST', path: '/iam/topics/{topic}/api/events', function: 'publish', auth: 'iam' },
  // `{topicAction}` is `<topic>:publish`, the path the namespaces SDK calls (a route parameter is a whole segment).
  {
    method: 'POST',
    path: '/namespaces/{namespace}/topics/{topicAction}',
    function: 'publish',
    auth: 'topicKey',
  },
  // The validation URL of the endpoint handshake; the query carries topic, subscription and code.
  { method: 'GET', path: VALIDATION_PATH, function: 'management', auth: 'validationCode' },
  // The console and portal: the API behind session tokens first (the more specific path), then
  // the pages and their files.
  { method: 'ANY', path: `${CONSOLE_API_PATH}/{proxy+}`, function: 'management', auth: 'session' },
  { method: 'GET', path: CONSOLE_PATH, function: 'management', auth: 'public' },
  { method: 'GET', path: `${CONSOLE_PATH}/{file+}`, function: 'management', auth: 'public' },
  { method: 'GET', path: PORTAL_PATH, function: 'management', auth: 'public' },
  { method: 'GET', path: OPENAPI_PATH, function: 'management', auth: 'public' },
  admin('GET', '/egress'),
  admin('POST', '/sessions'),
  admin('POST', '/sessions/revokeAll'),
  admin('GET', '/topics'),
  admin('PUT', '/topics/{topic}'),
  admin('GET', '/topics/{topic}'),
  admin('DELETE', '/topics/{topic}'),
  admin('POST', '/topics/{topic}/listKeys'),
  admin('POST', '/topics/{topic}/regenerateKey'),
  admin('GET', '/topics/{topic}/eventTypes'),
  admin('PUT', '/topics/{topic}/eventTypes/{eventType}'),
  admin('GET', '/topics/{topic}/eventTypes/{eventType}'),
  admin('DELETE', '/topics/{topic}/eventTypes/{eventType}'),
  admin('GET', '/topics/{topic}/eventSubscriptions'),
  admin('PUT', '/topics/{topic}/eventSubscriptions/{subscription}'),
  admin('GET', '/topics/{topic}/eventSubscriptions/{subscription}'),
  admin('DELETE', '/topics/{topic}/eventSubscriptions/{subscription}'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl'),
  admin('GET', '/topics/{topic}/eventSubscriptions/{subscription}/deliveries'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/resend'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/getSigningSecret'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/rotateSigningSecret'),
  admin('GET', '/topics/{topic}/eventSubscriptions/{subscription}/health'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/enable'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/pause'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/resume'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/validate'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/sendTestEvent'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/replays'),
  admin('GET', '/topics/{topic}/eventSubscriptions/{subscription}/replays'),
  admin('GET', '/topics/{topic}/eventSubscriptions/{subscription}/replays/{replayId}'),
  admin('DELETE', '/topics/{topic}/eventSubscriptions/{subscription}/replays/{replayId}'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/recover'),
  admin('GET', '/topics/{topic}/eventSubscriptions/{subscription}/deadLetters'),
  admin('GET', '/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/blob'),
  admin('POST', '/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/replay'),
  admin('GET', '/namespaces'),
  admin('PUT', '/namespaces/{namespace}'),
  admin('GET', '/namespaces/{namespace}'),
  admin('DELETE', '/namespaces/{namespace}'),
  admin('POST', '/namespaces/{namespace}/listKeys'),
  admin('POST', '/namespaces/{namespace}/regenerateKey'),
  admin('GET', '/namespaces/{namespace}/topics'),
  admin('PUT', '/namespaces/{namespace}/topics/{topic}'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}'),
  admin('DELETE', '/namespaces/{namespace}/topics/{topic}'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventTypes'),
  admin('PUT', '/namespaces/{namespace}/topics/{topic}/eventTypes/{eventType}'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventTypes/{eventType}'),
  admin('DELETE', '/namespaces/{namespace}/topics/{topic}/eventTypes/{eventType}'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions'),
  admin('PUT', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}'),
  admin('DELETE', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}'),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/health'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deliveries'),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/resend'),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/getSigningSecret'),
  admin(
    'POST',
    '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/rotateSigningSecret',
  ),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/enable'),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/pause'),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/resume'),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/validate'),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/sendTestEvent'),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/replays'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/replays'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/replays/{replayId}'),
  admin(
    'DELETE',
    '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/replays/{replayId}',
  ),
  admin('POST', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/recover'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters'),
  admin('GET', '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/blob'),
  admin(
    'POST',
    '/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/deadLetters/replay',
  ),
];

/**
 * The OpenAPI 3.1 document of Gridwire's HTTP API, generated from the routes
 * (`shared/config/routes.ts`) and the zod schemas they validate with: every route is in it, or
 * generating it fails naming the route. Served at `GET /openapi.json` and committed as
 * `docs/openapi.json` (`npm run openapi` writes it; a test holds the two equal).
 *
 * The console's API (`/console/api/<admin path>`) is described route by route: each admin route
 * a console session may call, with the session's bearer token.
 */

import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from 'zod-openapi';
import { CONSOLE_API_PATH, ROUTES, type RouteAuth, type RouteDefinition } from '../config/routes';
import { OPERATIONS } from './operations';
import { CONSOLE_SESSION_OPERATION } from './paths/pages';
import {
  type AnswerSpec,
  type ErrorStatus,
  errorBodySchema,
  gatewayErrorSchema,
  type OperationSpec,
} from './spec';

/** The document's version: the package's. */
export const API_VERSION = '0.1.0';

/** What each path parameter names. */
const PATH_PARAMETERS: Readonly<Record<string, string>> = {
  topic: 'The topic name (3-50 letters, digits and hyphens).',
  namespace: 'The namespace name (3-50 letters, digits and hyphens).',
  subscription: 'The event subscription name (3-64 letters, digits and hyphens).',
  topicAction: '`<topic>:publish`: the namespace topic to publish to, then `:publish`.',
  replayId: 'The replay id, as `POST .../replays` answered it.',
  eventType: 'The event type name.',
  file: "A file of the console (its scripts and stylesheet), the path's rest.",
};

/** The security schemes, by name. */
const SECURITY_SCHEMES = {
  topicKey: {
    type: 'apiKey',
    in: 'header',
    name: 'aeg-sas-key',
    description: "One of the topic's (or namespace's) two keys (`listKeys`).",
  },
  topicKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'aeg-sas-key',
    description: 'A topic key as a query parameter, for clients that cannot set headers.',
  },
  sasToken: {
    type: 'apiKey',
    in: 'header',
    name: 'aeg-sas-token',
    description:
      'A shared access signature made with a topic key (`r=<resource>&e=<expiry>&s=<signature>`); also taken as `Authorization: SharedAccessSignature <token>`.',
  },
  sigv4: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      'AWS Signature Version 4 (service `execute-api`): on AWS the admin API and IAM publishing are authorised by IAM.',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: "The local stack's admin token (`Authorization: Bearer <token>`), where AWS asks for SigV4.",
  },
  session: {
    type: 'http',
    scheme: 'bearer',
    description: 'A console or portal session token minted by `POST /admin/sessions`.',
  },
} as const;

const SECURITY: Readonly<Record<RouteAuth, ReadonlyArray<Record<string, string[]>>>> = {
  topicKey: [{ topicKey: [] }, { topicKeyQuery: [] }, { sasToken: [] }],
  admin: [{ sigv4: [] }, { adminToken: [] }],
  iam: [{ sigv4: [] }, { adminToken: [] }],
  validationCode: [],
  session: [{ session: [] }],
  public: [],
};

/** The errors every route with this authorisation may answer. */
const AUTH_ERRORS: Readonly<Record<RouteAuth, readonly ErrorStatus[]>> = {
  topicKey: [401, 429],
  admin: [401, 403, 429],
  iam: [401, 403, 429],
  validationCode: [400, 401],
  // A portal session's request outside its scope is answered as if nothing were there: 404.
  session: [401, 403, 404],
  public: [],
};

/** Statuses API Gateway itself may answer with its own body (`{"message": ...}`). */
const GATEWAY_STATUSES: ReadonlySet<ErrorStatus> = new Set([401, 403, 404, 413, 429]);

const ERROR_DESCRIPTIONS: Readonly<Record<ErrorStatus, string>> = {
  400: 'The request is not valid: the message names the field and the limit.',
  401: 'No credentials, or credentials that are not valid.',
  403: 'The credentials may not do this.',
  404: 'The resource (or route) does not exist.',
  409: 'The resource is in a state that refuses this.',
  413: 'The body is larger than the route takes.',
  415: 'The content type is not one the route takes.',
  422: 'The stored resource cannot be read as the route reads it.',
  429: 'Too many requests: wait as `Retry-After` says.',
  503: 'A dependency is unavailable: try again as `Retry-After` says.',
};

const jsonContent = (schema: z.ZodType, contentType = 'application/json') => ({
  [contentType]: { schema },
});

function answerObject(answer: AnswerSpec) {
  return {
    description: answer.description,
    ...(answer.schema !== undefined
      ? { content: jsonContent(answer.schema, answer.contentType) }
      : answer.contentType === undefined
        ? {}
        : { content: { [answer.contentType]: {} } }),
    ...(answer.headers === undefined
      ? {}
      : {
          headers: Object.fromEntries(
            Object.entries(answer.headers).map(([name, description]) => [
              name,
              { description, schema: { type: 'string' as const } },
            ]),
          ),
        }),
  };
}

/** Error answers, one component each (`#/components/responses/Error404`), made once. */
const errorObjects = new Map<ErrorStatus, ZodOpenApiResponseObject>();

function errorObject(status: ErrorStatus): ZodOpenApiResponseObject {
  let made = errorObjects.get(status);
  if (made === undefined) {
    const schema = GATEWAY_STATUSES.has(status)
      ? z.union([errorBodySchema, gatewayErrorSchema])
      : errorBodySchema;
    made = {
      id: `Error${status}`,
      description: ERROR_DESCRIPTIONS[status],
      content: jsonContent(schema),
      ...(status === 429 || status === 503
        ? {
            headers: {
              'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' as const } },
            },
          }
        : {}),
    };
    errorObjects.set(status, made);
  }
  return made;
}

/** The path as OpenAPI writes it: a greedy `{name+}` is `{name}` (its value may hold `/`). */
export const openApiPath = (path: string): string => path.replace(/\{(\w+)\+\}/g, '{$1}');

const pathParameterNames = (path: string): string[] =>
  [...path.matchAll(/\{(\w+)\+?\}/g)].map((match) => match[1] as string);

/** Every route the document describes, with the operation describing it. */
export interface DescribedRoute {
  readonly method: Exclude<RouteDefinition['method'], 'ANY'>;
  /** The route's path as the gateway matches it (`{name+}` greedy). */
  readonly path: string;
  readonly auth: RouteAuth;
  readonly spec: OperationSpec;
  /** The admin route it serves, for a console API route. */
  readonly adminRouteKey?: string;
  /** A route of the console's API of its own (no admin route's). */
  readonly consoleOwn?: boolean;
}

/**
 * The routes: each of `ROUTES` with its operation (fails naming any route without one), the
 * console's API expanded into the admin routes a session may call, and the document's own.
 */
export function describedRoutes(
  operations: Readonly<Record<string, OperationSpec>> = OPERATIONS,
): DescribedRoute[] {
  const missing: string[] = [];
  const routes: DescribedRoute[] = [];
  const consoleApi = `ANY ${CONSOLE_API_PATH}/{proxy+}`;
  for (const route of ROUTES) {
    const key = `${route.method} ${route.path}`;
    if (key === consoleApi) continue;
    const spec = operations[key];
    if (spec === undefined || route.method === 'ANY') {
      missing.push(key);
      continue;
    }
    routes.push({ method: route.method, path: route.path, auth: route.auth, spec });
  }
  if (missing.length > 0) {
    throw new Error(
      `routes without an OpenAPI description (shared/openapi/operations.ts): ${missing.join(', ')}`,
    );
  }
  for (const route of [...routes]) {
    if (route.auth !== 'admin' || route.path.startsWith('/admin/sessions')) continue;
    routes.push({
      method: route.method,
      path: `${CONSOLE_API_PATH}${route.path.slice('/admin'.length)}`,
      auth: 'session',
      spec: { ...route.spec, tags: ['Console API'] },
      adminRouteKey: `${route.method} ${route.path}`,
    });
  }
  // The console's own route beside the admin routes it reaches.
  routes.push({
    method: 'GET',
    path: `${CONSOLE_API_PATH}/session`,
    auth: 'session',
    spec: CONSOLE_SESSION_OPERATION,
    consoleOwn: true,
  });
  return routes;
}

/** Operation ids: the method and the path's words (`putAdminTopicsTopic`). */
const operationId = (method: string, path: string): string =>
  method.toLowerCase() +
  path
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');

function operationObject(route: DescribedRoute): ZodOpenApiOperationObject {
  const { spec } = route;
  const names = pathParameterNames(route.path);
  const pathParams =
    names.length === 0
      ? undefined
      : z.object(
          Object.fromEntries(
            names.map((name) => [name, z.string().meta({ description: PATH_PARAMETERS[name] ?? name })]),
          ),
        );
  const errors = new Set<ErrorStatus>([...AUTH_ERRORS[route.auth], ...(spec.errors ?? [])]);
  if (names.length > 0 && route.auth !== 'public') {
    // A path parameter naming nothing (404), or not a valid name or not validly percent-encoded (400).
    errors.add(404);
    errors.add(400);
  }
  if (spec.body !== undefined || spec.query !== undefined) errors.add(400);
  // Every route reads its body with a limit, and refuses a larger one.
  if (spec.body !== undefined) errors.add(413);
  if (route.auth !== 'public') errors.add(503);
  const body =
    spec.body === undefined
      ? undefined
      : 'content' in spec.body && !(spec.body instanceof z.ZodType)
        ? {
            required: spec.body.required ?? true,
            content: Object.fromEntries(
              Object.entries(spec.body.content).map(([type, schema]) => [type, { schema }]),
            ),
          }
        : { required: true, content: jsonContent(spec.body as z.ZodType) };
  return {
    operationId: operationId(route.method, openApiPath(route.path)),
    summary: spec.summary,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    tags: [...spec.tags],
    security: SECURITY[route.auth].map((entry) => ({ ...entry })),
    ...(pathParams === undefined && spec.query === undefined && spec.headers === undefined
      ? {}
      : {
          requestParams: {
            ...(pathParams === undefined ? {} : { path: pathParams }),
            ...(spec.query === undefined ? {} : { query: spec.query }),
            ...(spec.headers === undefined ? {} : { header: spec.headers }),
          },
        }),
    ...(body === undefined ? {} : { requestBody: body }),
    responses: {
      ...Object.fromEntries(
        Object.entries(spec.answers).map(([status, answer]) => [status, answerObject(answer)]),
      ),
      ...Object.fromEntries(
        [...errors].sort((a, b) => a - b).map((status) => [String(status), errorObject(status)]),
      ),
    },
  };
}

/** The document; `serverUrl` (the API's public base URL) as its one server, when known. */
export function openApiDocument(serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const route of describedRoutes()) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationObject(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Gridwire',
      version: API_VERSION,
      description:
        "Gridwire's HTTP API: publishing events to topics, the admin API (topics, namespaces, event subscriptions and their operations), the console's sessions and its API.",
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    ...(serverUrl === undefined ? {} : { servers: [{ url: serverUrl }] }),
    paths: paths as ZodOpenApiPathsObject,
    components: { securitySchemes: { ...SECURITY_SCHEMES } },
  }) as unknown as Record<string, unknown>;
}

/**
 * Matching a request path against the routes of `shared/config/routes.ts`, as API Gateway
 * matches its routes: the one matcher of both front doors. The local stand-in for the HTTP API
 * routes every request with it, and the publish function routes the requests a Lambda function
 * URL hands it (which carry the path only: `routeKey` `$default`, no `pathParameters`).
 */
import type { RouteDefinition } from '../config/routes';
import { type HttpEvent, requestMethod } from './api-gateway';
import { notFound } from './errors';

/** A route with its path turned into a pattern; `params` names the pattern's groups in order. */
export interface CompiledRoute {
  readonly route: RouteDefinition;
  /** `POST /topics/{topic}/api/events`: the route key API Gateway gives the function. */
  readonly routeKey: string;
  readonly pattern: RegExp;
  readonly params: readonly string[];
}

/** A route that matched a request, and its path parameters as they stood in the path. */
export interface RouteMatch {
  readonly route: CompiledRoute;
  readonly pathParameters: Readonly<Record<string, string>>;
}

/**
 * A route's path as a pattern: a `{param}` segment takes one whole path segment (never a `/`),
 * a last `{param+}` segment the rest of the path, other segments match as written, and a
 * trailing `/` is allowed, as on API Gateway. An `ANY` route takes every method.
 */
export function compileRoute(route: RouteDefinition): CompiledRoute {
  const params: string[] = [];
  const source = route.path
    .split('/')
    .map((segment, index, segments) => {
      const greedy = /^\{(\w+)\+\}$/.exec(segment);
      if (greedy?.[1] !== undefined && index === segments.length - 1) {
        params.push(greedy[1]);
        return '(.+?)';
      }
      const match = /^\{(\w+)\}$/.exec(segment);
      if (match?.[1] === undefined) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(match[1]);
      return '([^/]+)';
    })
    .join('/');
  return {
    route,
    routeKey: `${route.method} ${route.path}`,
    pattern: new RegExp(`^${source}/?$`),
    params,
  };
}

/**
 * The first of `routes` that takes `method` on `path`, with its path parameters. `path` is the
 * path as sent, percent-encoding and all: a parameter keeps its encoding, and `pathParam`
 * decodes it, so `/topics/%6Frders/...` names topic `orders` through either front door.
 */
export function matchRoute(
  routes: readonly CompiledRoute[],
  method: string,
  path: string,
): RouteMatch | undefined {
  for (const route of routes) {
    if (route.route.method !== method && route.route.method !== 'ANY') continue;
    const match = route.pattern.exec(path);
    if (match === null) continue;
    const pathParameters: Record<string, string> = {};
    route.params.forEach((name, index) => {
      pathParameters[name] = match[index + 1] ?? '';
    });
    return { route, pathParameters };
  }
  return undefined;
}

/** The route key of every request a Lambda function URL hands its function. */
export const FUNCTION_URL_ROUTE_KEY = '$default';

/** Whether `event` came through a Lambda function URL rather than an HTTP API route. */
export const isFunctionUrlEvent = (event: HttpEvent): boolean => event.routeKey === FUNCTION_URL_ROUTE_KEY;

/**
 * A function URL event as the HTTP API would have given it: `routeKey` the matched route's key
 * and `pathParameters` filled in. Only `routes` are served there: a request that matches none
 * (another path, another method, or a route the HTTP API alone may serve, such as IAM
 * publishing, whose caller only the gateway's IAM authorizer can vouch for) is a 404 in the
 * error body shape, its message saying why when `refusedHere` knows the path.
 */
export function routeFunctionUrlEvent(
  event: HttpEvent,
  routes: readonly CompiledRoute[],
  refusedHere: readonly { readonly routes: readonly CompiledRoute[]; readonly reason: string }[] = [],
): HttpEvent {
  const method = requestMethod(event);
  const found = matchRoute(routes, method, event.rawPath);
  if (found === undefined) {
    const refusal = refusedHere.find(
      (entry) => matchRoute(entry.routes, method, event.rawPath) !== undefined,
    );
    throw notFound(
      refusal?.reason ??
        `No route takes ${method} ${event.rawPath} here: this URL serves ${routes.map((route) => route.routeKey).join(', ')}.`,
    );
  }
  return {
    ...event,
    routeKey: found.route.routeKey,
    pathParameters: { ...found.pathParameters },
  };
}

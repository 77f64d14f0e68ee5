/**
 * The one route matcher (`shared/http/routes.ts`) and the routing of function URL requests the
 * publish function serves: which paths match which publish route, parameters kept as sent (then
 * decoded by `pathParam` as on the HTTP API), unknown paths and IAM publishing refused with a 404.
 */
import { FUNCTION_URL_ROUTES } from '../../../functions/publish';
import { ROUTES } from '../../../shared/config/routes';
import { type HttpEvent, pathParam } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import {
  compileRoute,
  FUNCTION_URL_ROUTE_KEY,
  isFunctionUrlEvent,
  matchRoute,
  routeFunctionUrlEvent,
} from '../../../shared/http/routes';

const ALL = ROUTES.map(compileRoute);

/** A request as a function URL hands it over: `$default`, the path as sent, no path parameters. */
const functionUrlEvent = (method: string, rawPath: string): HttpEvent =>
  ({
    version: '2.0',
    routeKey: FUNCTION_URL_ROUTE_KEY,
    rawPath,
    rawQueryString: '',
    headers: {},
    requestContext: { routeKey: FUNCTION_URL_ROUTE_KEY, http: { method, path: rawPath } },
  }) as unknown as HttpEvent;

const refusalOf = (run: () => unknown): { status: number; body: unknown } => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.statusCode, body: error.toBody() };
    throw error;
  }
  throw new Error('not refused');
};

describe('matchRoute', () => {
  it.each([
    ['POST', '/topics/orders/api/events', 'POST /topics/{topic}/api/events', { topic: 'orders' }],
    ['POST', '/topics/orders/api/events/', 'POST /topics/{topic}/api/events', { topic: 'orders' }],
    ['POST', '/iam/topics/orders/api/events', 'POST /iam/topics/{topic}/api/events', { topic: 'orders' }],
    [
      'POST',
      '/namespaces/shop/topics/orders:publish',
      'POST /namespaces/{namespace}/topics/{topicAction}',
      { namespace: 'shop', topicAction: 'orders:publish' },
    ],
    ['PUT', '/admin/topics/orders', 'PUT /admin/topics/{topic}', { topic: 'orders' }],
    ['GET', '/eventSubscriptions/validate', 'GET /eventSubscriptions/validate', {}],
  ])('%s %s is %s with %j', (method, path, routeKey, params) => {
    const found = matchRoute(ALL, method, path);
    expect(found?.route.routeKey).toBe(routeKey);
    expect(found?.pathParameters).toEqual(params);
  });

  it.each([
    ['GET', '/topics/orders/api/events'],
    ['POST', '/topics/orders/api/events/extra'],
    ['POST', '/topics//api/events'],
    ['POST', '/topics/a/b/api/events'],
    ['POST', '/Topics/orders/api/events'],
    ['POST', '/'],
  ])('%s %s matches no route', (method, path) => {
    expect(matchRoute(ALL, method, path)).toBeUndefined();
  });

  it('keeps a parameter percent-encoded as sent; pathParam decodes it, as behind the HTTP API', () => {
    const found = matchRoute(ALL, 'POST', '/topics/%6Frders%2Deu/api/events');
    expect(found?.pathParameters).toEqual({ topic: '%6Frders%2Deu' });
    expect(pathParam({ pathParameters: found?.pathParameters } as unknown as HttpEvent, 'topic')).toBe(
      'orders-eu',
    );
    // An encoded slash stays inside its segment: it never splits the path into other routes.
    expect(matchRoute(ALL, 'POST', '/topics/a%2Fb/api/events')?.pathParameters).toEqual({ topic: 'a%2Fb' });
  });

  it('keeps the case of a parameter as sent (topic names are looked up without regard to case)', () => {
    expect(matchRoute(ALL, 'POST', '/topics/Orders/api/events')?.pathParameters).toEqual({ topic: 'Orders' });
  });
});

describe('routeFunctionUrlEvent with the publish function URL routes', () => {
  it('serves key publishing and namespace publishing only', () => {
    expect(FUNCTION_URL_ROUTES.map((route) => route.routeKey)).toEqual([
      'POST /topics/{topic}/api/events',
      'POST /namespaces/{namespace}/topics/{topicAction}',
    ]);
  });

  it('gives a routed event the route key and path parameters the HTTP API would give', () => {
    const event = functionUrlEvent('POST', '/topics/%6Frders/api/events');
    expect(isFunctionUrlEvent(event)).toBe(true);
    const routed = routeFunctionUrlEvent(event, FUNCTION_URL_ROUTES);
    expect(routed).toMatchObject({
      routeKey: 'POST /topics/{topic}/api/events',
      rawPath: '/topics/%6Frders/api/events',
      pathParameters: { topic: '%6Frders' },
    });
    expect(isFunctionUrlEvent(routed)).toBe(false);
    expect(
      routeFunctionUrlEvent(
        functionUrlEvent('POST', '/namespaces/shop/topics/orders:publish'),
        FUNCTION_URL_ROUTES,
      ),
    ).toMatchObject({
      routeKey: 'POST /namespaces/{namespace}/topics/{topicAction}',
      pathParameters: { namespace: 'shop', topicAction: 'orders:publish' },
    });
  });

  it.each([
    ['POST', '/admin/topics/orders'],
    ['GET', '/topics/orders/api/events'],
    ['POST', '/eventSubscriptions/validate'],
    ['POST', '/nothing'],
  ])('answers %s %s with a 404 in the error body shape, naming what is served', (method, path) => {
    expect(
      refusalOf(() => routeFunctionUrlEvent(functionUrlEvent(method, path), FUNCTION_URL_ROUTES)),
    ).toEqual({
      status: 404,
      body: {
        error: {
          code: 'NotFound',
          message: `No route takes ${method} ${path} here: this URL serves POST /topics/{topic}/api/events, POST /namespaces/{namespace}/topics/{topicAction}.`,
        },
      },
    });
  });
});

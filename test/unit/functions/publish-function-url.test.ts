/**
 * The publish handler behind a Lambda function URL: it routes `$default` events against the
 * publish routes itself and hands the publisher exactly what the HTTP API's events give it, for
 * encoded and differently cased topic names too; IAM publishing and unknown paths are 404s that
 * reach no publisher.
 */
import { createPublishHandler } from '../../../functions/publish';
import { lambdaContext } from '../../../local/lambda-context';
import { FUNCTIONS } from '../../../shared/config/resources';
import type { HttpEvent, HttpResult } from '../../../shared/http/api-gateway';
import { FUNCTION_URL_ROUTE_KEY } from '../../../shared/http/routes';
import { createObservability } from '../../../shared/lambda/wiring/observability';
import type { NamespacePublishRequest, PublishRequest } from '../../../shared/publish/publish-request';
import type { Publisher } from '../../../shared/publish/publisher';

const KEY_ROUTE = 'POST /topics/{topic}/api/events';
const NAMESPACE_ROUTE = 'POST /namespaces/{namespace}/topics/{topicAction}';

const event = (
  routeKey: string,
  method: string,
  rawPath: string,
  headers: Record<string, string>,
  pathParameters?: Record<string, string>,
): HttpEvent =>
  ({
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: '',
    headers,
    ...(pathParameters === undefined ? {} : { pathParameters }),
    body: '[]',
    isBase64Encoded: false,
    requestContext: { routeKey, http: { method, path: rawPath } },
  }) as unknown as HttpEvent;

/** The handler around a publisher that records what it is asked to publish. */
function recordingHandler() {
  const published: (PublishRequest | NamespacePublishRequest)[] = [];
  const publisher = {
    publish: async (request: PublishRequest) => {
      published.push(request);
      return { deliveries: 0 };
    },
    publishToNamespace: async (request: NamespacePublishRequest) => {
      published.push(request);
      return { deliveries: 0 };
    },
  } as unknown as Publisher;
  const observability = createObservability('publish', { logLevel: 'SILENT', publishMetrics: () => {} });
  const handler = createPublishHandler({ publisher, observability });
  const call = (e: HttpEvent) => handler(e, lambdaContext(FUNCTIONS.publish)) as Promise<HttpResult>;
  return { call, published };
}

describe('publish handler behind a function URL', () => {
  it.each([
    ['/topics/orders/api/events', { topic: 'orders' }],
    ['/topics/%6Frders/api/events', { topic: '%6Frders' }],
    ['/topics/ORDERS/api/events/', { topic: 'ORDERS' }],
  ])('publishes %s as the HTTP API route does', async (rawPath, pathParameters) => {
    const headers = { 'aeg-sas-key': 'k1', 'content-type': 'application/json' };
    const viaApi = recordingHandler();
    const viaUrl = recordingHandler();
    const api = await viaApi.call(event(KEY_ROUTE, 'POST', rawPath, headers, pathParameters));
    const url = await viaUrl.call(event(FUNCTION_URL_ROUTE_KEY, 'POST', rawPath, headers));
    expect(url.statusCode).toBe(200);
    expect(api.statusCode).toBe(200);
    expect(viaUrl.published).toEqual(viaApi.published);
    expect(viaUrl.published[0]).toMatchObject({ credential: { kind: 'key', key: 'k1' }, path: rawPath });
  });

  it('publishes to a namespace topic as the HTTP API route does', async () => {
    const rawPath = '/namespaces/shop/topics/orders:publish';
    const headers = { authorization: 'SharedAccessKey k1', 'content-type': 'application/cloudevents+json' };
    const viaApi = recordingHandler();
    const viaUrl = recordingHandler();
    await viaApi.call(
      event(NAMESPACE_ROUTE, 'POST', rawPath, headers, { namespace: 'shop', topicAction: 'orders:publish' }),
    );
    const url = await viaUrl.call(event(FUNCTION_URL_ROUTE_KEY, 'POST', rawPath, headers));
    expect(url.statusCode).toBe(200);
    expect(viaUrl.published).toEqual(viaApi.published);
    expect(viaUrl.published[0]).toMatchObject({ namespace: 'shop', topic: 'orders', key: 'k1' });
  });

  it('refuses IAM publishing with a 404 saying where it is served, whatever the request claims', async () => {
    const { call, published } = recordingHandler();
    const answer = await call(
      event(FUNCTION_URL_ROUTE_KEY, 'POST', '/iam/topics/orders/api/events', {
        authorization: 'AWS4-HMAC-SHA256 Credential=forged',
      }),
    );
    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(answer.body ?? '')).toEqual({
      error: { code: 'NotFound', message: expect.stringMatching(/served by the HTTP API only/) },
    });
    expect(published).toEqual([]);
  });

  it.each([
    ['POST', '/admin/topics/orders'],
    ['GET', '/topics/orders/api/events'],
    ['POST', '/topics/orders'],
  ])('answers %s %s with a 404 in the error body shape, publishing nothing', async (method, rawPath) => {
    const { call, published } = recordingHandler();
    const answer = await call(event(FUNCTION_URL_ROUTE_KEY, method, rawPath, { 'aeg-sas-key': 'k1' }));
    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(answer.body ?? '')).toEqual({
      error: {
        code: 'NotFound',
        message: expect.stringContaining(`No route takes ${method} ${rawPath} here`),
      },
    });
    expect(published).toEqual([]);
  });
});

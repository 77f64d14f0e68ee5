/**
 * The publish handler, middlewares and all, around a publisher: called with API Gateway events as
 * the gateway sends them, it shows what a caller gets back over HTTP (status, headers, body) and
 * the metric points the request left, without starting a stack.
 */
import { createPublishHandler } from '../../functions/publish';
import { lambdaContext } from '../../local/lambda-context';
import { FUNCTIONS } from '../../shared/config/resources';
import type { HttpEvent, HttpResult } from '../../shared/http/api-gateway';
import { createObservability } from '../../shared/lambda/wiring';
import type { MetricPoint } from '../../shared/observability/metrics';
import type { Publisher } from '../../shared/publish/publisher';

/** One publish request, as the gateway hands it to the handler. */
export interface PublishCall {
  /** The matched route, e.g. `POST /topics/{topic}/api/events`. */
  routeKey: string;
  rawPath: string;
  pathParameters: Record<string, string>;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | Buffer;
}

/** A publish to a classic topic with one of its keys. */
export const topicPublish = (topic: string, key: string, contentType: string, body: string | Buffer) => ({
  routeKey: 'POST /topics/{topic}/api/events',
  rawPath: `/topics/${topic}/api/events`,
  pathParameters: { topic },
  headers: { 'aeg-sas-key': key, 'content-type': contentType },
  body,
});

/** A publish to a namespace topic (`<topic>:publish`) with one of the namespace's keys. */
export const namespacePublish = (
  namespace: string,
  topic: string,
  key: string,
  headers: Record<string, string>,
  body: string | Buffer,
) => ({
  routeKey: 'POST /namespaces/{namespace}/topics/{topicAction}',
  rawPath: `/namespaces/${namespace}/topics/${topic}:publish`,
  pathParameters: { namespace, topicAction: `${topic}:publish` },
  headers: { ...headers, authorization: `SharedAccessKey ${key}` },
  body,
});

export function publishHandler(publisher: Publisher) {
  const points: MetricPoint[] = [];
  const observability = createObservability('publish', {
    logLevel: 'SILENT',
    publishMetrics: (flushed) => points.push(...flushed),
  });
  const handler = createPublishHandler({ publisher, observability });
  /** The answer to one request; the body travels base64-encoded, so any bytes arrive as sent. */
  const call = async ({
    routeKey,
    rawPath,
    pathParameters,
    headers,
    body,
  }: PublishCall): Promise<HttpResult> => {
    const event = {
      version: '2.0',
      routeKey,
      rawPath,
      rawQueryString: '',
      headers,
      pathParameters,
      body: (typeof body === 'string' ? Buffer.from(body) : body).toString('base64'),
      isBase64Encoded: true,
      requestContext: { routeKey },
    } as unknown as HttpEvent;
    return handler(event, lambdaContext(FUNCTIONS.publish));
  };
  return { call, points };
}

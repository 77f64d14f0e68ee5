/**
 * The publish handler with the delivery backlog gate as the function builds it from its
 * environment, over an SQS client that answers `GetQueueAttributes` with a depth the test sets:
 * 429 with `Retry-After` and `PublishThrottledCount` while jobs wait from the limit on, and the
 * publisher never asked; publishes go through below it, when the gate is off, and when the depth
 * can't be read.
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createPublishHandler } from '../../../functions/publish';
import { lambdaContext } from '../../../local/lambda-context';
import { ENV, FUNCTIONS, QUEUES } from '../../../shared/config/resources';
import { readConfig } from '../../../shared/config/runtime';
import type { HttpEvent, HttpResult } from '../../../shared/http/api-gateway';
import { createObservability } from '../../../shared/lambda/wiring/observability';
import { buildDeliveryBacklogGate } from '../../../shared/lambda/wiring/publish';
import { METRIC, type MetricPoint } from '../../../shared/observability/metrics';
import type { AwsClients } from '../../../shared/platform/aws';
import type { PublishRequest } from '../../../shared/publish/publish-request';
import type { Publisher } from '../../../shared/publish/publisher';
import { VirtualClock } from '../../support/fakes';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/delivery';

const publishEvent = {
  version: '2.0',
  routeKey: 'POST /topics/{topic}/api/events',
  rawPath: '/topics/orders/api/events',
  rawQueryString: '',
  headers: { 'aeg-sas-key': 'key', 'content-type': 'application/json' },
  pathParameters: { topic: 'orders' },
  body: '[]',
  isBase64Encoded: false,
  requestContext: { routeKey: 'POST /topics/{topic}/api/events' },
} as unknown as HttpEvent;

/** The handler as `functions/publish.ts` builds it, over a stubbed SQS client. */
function setup(limit: string | undefined) {
  const depth = { waiting: 0, fail: false };
  const sqsCalls: GetQueueAttributesCommand[] = [];
  const sqs = {
    send: async (command: unknown) => {
      if (!(command instanceof GetQueueAttributesCommand)) throw new Error('unexpected SQS command');
      sqsCalls.push(command);
      if (depth.fail) throw Object.assign(new Error('Access denied'), { name: 'AccessDenied' });
      return { Attributes: { ApproximateNumberOfMessages: String(depth.waiting) } };
    },
  } as unknown as SQSClient;
  const clock = new VirtualClock();
  const config = readConfig({
    [QUEUES.delivery.urlEnv]: QUEUE_URL,
    ...(limit === undefined ? {} : { [ENV.deliveryBacklogLimit]: limit }),
  });
  const points: MetricPoint[] = [];
  const observability = createObservability('publish', {
    logLevel: 'SILENT',
    publishMetrics: (flushed) => points.push(...flushed),
  });
  const runtime = { config, clients: { sqs } as AwsClients, clock };
  const published: PublishRequest[] = [];
  const publisher = {
    publish: async (request: PublishRequest) => {
      published.push(request);
      return { deliveries: 0 };
    },
  } as unknown as Publisher;
  const gate = buildDeliveryBacklogGate(runtime, observability);
  const handler = createPublishHandler({
    publisher,
    observability,
    ...(gate === undefined ? {} : { deliveryBacklog: gate }),
  });
  const call = () => handler(publishEvent, lambdaContext(FUNCTIONS.publish)) as Promise<HttpResult>;
  return { call, depth, sqsCalls, points, published, clock, gate };
}

const throttled = (points: readonly MetricPoint[]) =>
  points.filter((point) => point.name === METRIC.PublishThrottledCount);

describe('publish handler with the delivery backlog gate', () => {
  it('answers 429 with Retry-After while the jobs waiting reach the limit, counting the refusal, without publishing', async () => {
    const { call, depth, sqsCalls, points, published } = setup('1000');
    depth.waiting = 1000;
    const answer = await call();
    expect(answer.statusCode).toBe(429);
    expect(answer.headers).toMatchObject({ 'retry-after': '5' });
    expect(JSON.parse(answer.body ?? '')).toEqual({
      error: {
        code: 'TooManyRequests',
        message: expect.stringContaining('Deliveries are behind'),
        details: [{ code: 'DeliveryBacklog', message: expect.any(String) }],
      },
    });
    expect(published).toEqual([]);
    expect(sqsCalls.map((command) => command.input)).toEqual([
      { QueueUrl: QUEUE_URL, AttributeNames: ['ApproximateNumberOfMessages'] },
    ]);
    expect(throttled(points)).toEqual([
      { name: METRIC.PublishThrottledCount, unit: 'Count', dimensions: {}, values: [1] },
    ]);
    expect(points.filter((point) => point.name === METRIC.PublishFailCount)).toEqual([]);
  });

  it('publishes below the limit, and reads the depth again only after 2 s', async () => {
    const { call, depth, sqsCalls, published, clock, points } = setup('1000');
    depth.waiting = 999;
    expect((await call()).statusCode).toBe(200);
    depth.waiting = 5000;
    clock.advance(1999);
    expect((await call()).statusCode).toBe(200);
    expect(sqsCalls).toHaveLength(1);
    clock.advance(1);
    expect((await call()).statusCode).toBe(429);
    expect(sqsCalls).toHaveLength(2);
    expect(published).toHaveLength(2);
    expect(throttled(points)).toHaveLength(1);
  });

  it('lets publishes in when the depth cannot be read (fail-open)', async () => {
    const { call, depth, published } = setup('1000');
    depth.fail = true;
    expect((await call()).statusCode).toBe(200);
    expect(published).toHaveLength(1);
  });

  it.each([[undefined], ['0']])(
    'is off with %s as the limit (the local stack sets none): no read, no refusal',
    async (limit) => {
      const { call, depth, sqsCalls, gate } = setup(limit);
      depth.waiting = 1_000_000;
      expect(gate).toBeUndefined();
      expect((await call()).statusCode).toBe(200);
      expect(sqsCalls).toEqual([]);
    },
  );
});

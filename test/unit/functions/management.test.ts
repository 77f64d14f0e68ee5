/**
 * The management function's handler: its routes answered through the middleware chain (errors as
 * the original's error body, metrics flushed), with in-memory stores behind it.
 */
import { createManagementHandler } from '../../../functions/management';
import type { HttpEvent, HttpResult } from '../../../shared/http/api-gateway';
import { routeTestDeps } from '../../support/management-routes';
import { memoryStores } from '../../support/memory-stores';
import { lambdaContext, quietObservability } from '../../support/sqs-events';

const NOW = Date.parse('2026-11-25T12:00:00.000Z');

function handlerWithTopic() {
  const stores = memoryStores();
  const ready = stores.topics.create('orders', { inputSchema: 'EventGridSchema', tags: {} }, new Date(NOW));
  const publicUrl = () => 'https://events.example.test/';
  const management = routeTestDeps(stores, {
    clock: { now: () => NOW, sleep: async () => {} },
    publicUrl,
    publishUrl: publicUrl,
  });
  const handler = createManagementHandler({ management, observability: quietObservability('management') });
  const call = async (event: Partial<HttpEvent>): Promise<HttpResult> => {
    await ready;
    return (await handler(event as HttpEvent, lambdaContext())) as HttpResult;
  };
  return { call };
}

describe('the management handler', () => {
  it('answers a route with its document', async () => {
    const { call } = handlerWithTopic();

    const answer = await call({ routeKey: 'GET /admin/topics/{topic}', pathParameters: { topic: 'orders' } });

    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body as string)).toMatchObject({ name: 'orders' });
  });

  it('answers a missing topic with 404 in the error body shape, not a crash', async () => {
    const { call } = handlerWithTopic();

    const answer = await call({
      routeKey: 'GET /admin/topics/{topic}',
      pathParameters: { topic: 'nowhere' },
    });

    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(answer.body as string)).toEqual({
      error: { code: 'NotFound', message: expect.stringContaining('nowhere') },
    });
  });

  it('answers a route it does not serve with 404 naming it', async () => {
    const { call } = handlerWithTopic();

    const answer = await call({ routeKey: 'PATCH /admin/nothing' });

    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(answer.body as string).error.message).toBe('No operation for PATCH /admin/nothing.');
  });

  it('answers a malformed body with 400 naming what is wrong', async () => {
    const { call } = handlerWithTopic();

    const answer = await call({
      routeKey: 'PUT /admin/topics/{topic}',
      pathParameters: { topic: 'invoices' },
      body: '{"properties": ',
    });

    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body as string).error.code).toBe('BadRequest');
  });
});

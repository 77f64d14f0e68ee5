import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpResult } from '../../../shared/http/api-gateway';
import { badRequest, isDependencyFailure } from '../../../shared/http/errors';
import { httpErrors } from '../../../shared/lambda/middleware';

const sdkError = (name: string, status: number, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status }, ...extra });

describe('dependency failures', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a reset connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['a request timeout', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
    ['a 500 answer', sdkError('InternalServerError', 500)],
    [
      'throttling',
      sdkError('ProvisionedThroughputExceededException', 400, { $retryable: { throttling: true } }),
    ],
    ['SQS throttling', sdkError('ThrottlingException', 400)],
    [
      'a foreign error the SDK wrapped',
      new Error('AWS SDK error wrapper for TimeoutError: connect ECONNRESET 127.0.0.1:1'),
    ],
    [
      'a foreign refusal the SDK wrapped',
      new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:1'),
    ],
    [
      'several addresses refused',
      new AggregateError([Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })], 'connect failed'),
    ],
  ])('counts %s', (_what, error) => {
    expect(isDependencyFailure(error)).toBe(true);
  });

  it.each([
    ['a bug', new TypeError('x is undefined')],
    ['a refused condition', sdkError('ConditionalCheckFailedException', 400)],
    ['a validation refusal', sdkError('ValidationException', 400)],
    ['a non-error', 'text'],
    ['a foreign bug the SDK wrapped', new Error('AWS SDK error wrapper for TypeError: x is undefined')],
  ])('does not count %s', (_what, error) => {
    expect(isDependencyFailure(error)).toBe(false);
  });

  const answer = async (error: unknown): Promise<HttpResult> => {
    const logger = { error: jest.fn(), warn: jest.fn(), info: jest.fn(), debug: jest.fn() };
    const handler = middy<HttpEvent, HttpResult>(async () => {
      throw error;
    }).use(httpErrors(logger));
    return handler({ routeKey: 'GET /admin/topics' } as HttpEvent, {} as Context);
  };

  it('answers 503 with Retry-After when a dependency is down, 500 for anything else', async () => {
    const down = await answer(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(down.statusCode).toBe(503);
    expect(down.headers?.['retry-after']).toBe('5');
    expect(JSON.parse(down.body as string).error).toMatchObject({
      code: 'ServiceUnavailable',
      details: [{ code: 'DependencyUnavailable' }],
    });
    const bug = await answer(new TypeError('x is undefined'));
    expect(bug.statusCode).toBe(500);
    expect(bug.headers?.['retry-after']).toBeUndefined();
    const refused = await answer(badRequest('name: too long'));
    expect(refused.statusCode).toBe(400);
    expect(refused.headers?.['retry-after']).toBeUndefined();
  });
});

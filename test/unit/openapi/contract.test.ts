/**
 * The contract check the test stacks run on every exchange (`test/support/api-contract.ts`):
 * what it passes and what it names as a mismatch.
 */
import type { HttpExchange } from '../../../local/gateway';
import { contractProblem } from '../../support/api-contract';

const topic = {
  id: '/subscriptions/local/resourceGroups/gridwire/providers/Microsoft.EventGrid/topics/orders',
  name: 'orders',
  type: 'Microsoft.EventGrid/topics',
  tags: {},
  properties: {
    provisioningState: 'Succeeded',
    endpoint: 'http://127.0.0.1:4000/topics/orders/api/events',
    inputSchema: 'EventGridSchema',
    deduplicationWindowInMinutes: 0,
    archive: null,
    validateEvents: false,
    unknownEventTypes: 'allow',
  },
  systemData: { createdAt: '2026-12-01T10:00:00.000Z', lastModifiedAt: '2026-12-01T10:00:00.000Z' },
};

const exchange = (overrides: Partial<HttpExchange> & { status: number; answer?: unknown }): HttpExchange => {
  const { status, answer, ...rest } = overrides;
  return {
    routeKey: 'GET /admin/topics/{topic}',
    method: 'GET',
    path: '/admin/topics/orders',
    query: '',
    requestContentType: undefined,
    cloudEventHeaders: false,
    requestBody: Buffer.alloc(0),
    gateway: false,
    result: {
      statusCode: status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: answer === undefined ? '' : JSON.stringify(answer),
    },
    ...rest,
  };
};

describe('holding an exchange to the OpenAPI document', () => {
  it('passes an answer as described', () => {
    expect(contractProblem(exchange({ status: 200, answer: topic }))).toEqual({
      operation: 'GET /admin/topics/{topic}',
      status: 200,
    });
  });

  it('names a member the description does not have', () => {
    const found = contractProblem(exchange({ status: 200, answer: { ...topic, colour: 'blue' } }));
    expect(found.operation).toBe('GET /admin/topics/{topic}');
    expect(found.problem).toMatch(/^answer: \(root\) must NOT have additional properties .*colour/);
  });

  it('names a member of the wrong type, with its path', () => {
    const answer = { ...topic, properties: { ...topic.properties, deduplicationWindowInMinutes: '5' } };
    expect(contractProblem(exchange({ status: 200, answer })).problem).toMatch(
      /^answer: \/properties\/deduplicationWindowInMinutes must be integer/,
    );
  });

  it('names a status the operation does not describe', () => {
    expect(contractProblem(exchange({ status: 418, answer: { error: {} } })).problem).toMatch(
      /^status 418 is not described \(described: 200, 400, 401, 403, 404, 429, 503\)/,
    );
  });

  it('holds errors to the error body, shared by every operation', () => {
    const notFound = { error: { code: 'NotFound', message: "The topic 'orders' does not exist." } };
    expect(contractProblem(exchange({ status: 404, answer: notFound })).problem).toBeUndefined();
    expect(contractProblem(exchange({ status: 404, answer: { error: 'gone' } })).problem).toMatch(
      /^answer: /,
    );
    // API Gateway's own refusals have its shape.
    expect(
      contractProblem(exchange({ status: 403, answer: { message: 'Forbidden' } })).problem,
    ).toBeUndefined();
  });

  it('holds the body of a request answered 2xx to the request schema, not that of one refused', () => {
    const put = (body: unknown, status: number) =>
      contractProblem(
        exchange({
          routeKey: 'PUT /admin/topics/{topic}',
          method: 'PUT',
          requestContentType: 'application/json',
          requestBody: Buffer.from(JSON.stringify(body)),
          status,
          answer: status === 201 ? topic : { error: { code: 'BadRequest', message: 'x' } },
        }),
      );
    expect(put({ properties: { inputSchema: 'EventGridSchema' } }, 201).problem).toBeUndefined();
    expect(put({ properties: { colour: 'blue' } }, 201).problem).toMatch(
      /^request: \/properties must NOT have additional properties/,
    );
    expect(put({ properties: { colour: 'blue' } }, 400).problem).toBeUndefined();
  });

  it("holds the console's API to the admin route it runs", () => {
    const viaConsole = exchange({
      routeKey: 'ANY /console/api/{proxy+}',
      path: '/console/api/topics/orders',
      status: 200,
      answer: topic,
    });
    expect(contractProblem(viaConsole)).toEqual({
      operation: 'GET /console/api/topics/{topic}',
      status: 200,
    });
    expect(
      contractProblem({ ...viaConsole, result: { ...viaConsole.result, body: '{"name":1}' } }).problem,
    ).toMatch(/^answer: /);
  });

  it("holds the console's own session route to its description", () => {
    const session = (answer: unknown) =>
      contractProblem(
        exchange({
          routeKey: 'ANY /console/api/{proxy+}',
          path: '/console/api/session',
          status: 200,
          answer,
        }),
      );
    const operator = {
      id: 's1',
      role: 'operator',
      scope: { role: 'operator' },
      expiresAt: '2026-12-01T10:00:00.000Z',
    };
    expect(session(operator)).toEqual({ operation: 'GET /console/api/session', status: 200 });
    expect(session({ ...operator, role: 'admin' }).problem).toMatch(
      /^answer: \/role must be equal to one of the allowed values/,
    );
  });

  it('names an answer with a body where none is described', () => {
    const deleted = exchange({
      routeKey: 'DELETE /admin/topics/{topic}',
      method: 'DELETE',
      status: 200,
      answer: { ok: true },
    });
    expect(contractProblem(deleted).problem).toMatch(/^the answer has a body, none is described/);
  });
});

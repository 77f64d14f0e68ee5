/**
 * The management API fuzzed (`bench/management-fuzz.ts`): a few thousand requests generated with
 * fast-check over every admin route and the validation URL, through the admin token and the
 * console's API, with valid-ish bodies from the OpenAPI document's request schemas and those
 * mutated (wrong types, huge and strange strings, deep nesting, prototype keys, invalid JSON and
 * UTF-8, odd content types, path parameters and query strings). No answer may be a 5xx, every 4xx
 * carries the API's JSON error body, and the stack answers known-good requests afterwards. A
 * failure is shrunk to a small request and printed with the seed and path that replay it
 * (`runFuzz(..., { seed })`).
 *
 * The stack records every exchange for the contract check (`test/iam/api-contract.test.ts`) like
 * every other test stack: the statuses the fuzz provokes are ones the document describes. Below
 * the run, what it found, each as the request that found it. `npm run bench -- --only fuzz` runs
 * the same fuzz with many more requests.
 */
import { checkAlive, FIXTURES, FuzzFixtures, fuzzedRoutes, runFuzz } from '../../bench/management-fuzz';
import { event, startTestStack, type TestStack } from '../support/local-stack';

/**
 * Requests at random over all routes, after one to each route: every route many times over (the
 * few that wait half a second by design, fewer), in about half a minute.
 */
const RUNS = 1_500;

let api: TestStack;
let fixtures: FuzzFixtures;

beforeAll(async () => {
  api = await startTestStack();
  fixtures = await FuzzFixtures.prepare(api.stack);
}, 60_000);

afterAll(async () => {
  await fixtures?.stop();
  await api?.close();
});

it('answers generated requests over every admin route, one to each and 1,500 at random, without a 5xx and each 4xx with the error body', async () => {
  const report = await runFuzz(api.stack, fixtures, { runs: RUNS, mode: 'assert', timeLimitMs: 120_000 });
  expect(report.serverErrors).toBe(0);
  const routes = fuzzedRoutes().map((route) => route.key);
  // Fewer: the time limit stopped the run (a machine far slower than this file is sized for).
  expect(report.sent).toBeGreaterThanOrEqual(routes.length + RUNS);
  // Every route was requested, and many requests got through to the operations.
  expect(report.routes).toEqual(
    fuzzedRoutes()
      .map((route) => route.key)
      .sort(),
  );
  expect(report.byClass['2xx'] ?? 0).toBeGreaterThan(RUNS / 10);
}, 180_000);

it('answers known-good requests after the fuzz', async () => {
  await checkAlive(api.stack, fixtures);
}, 30_000);

describe('what the fuzz found', () => {
  const classic = `/admin/topics/${FIXTURES.topic}/eventSubscriptions/${FIXTURES.subscription}`;
  const namespaced = `/admin/namespaces/${FIXTURES.namespace}/topics/${FIXTURES.namespaceTopic}/eventSubscriptions/${FIXTURES.subscription}`;

  it('answers a replay id too long to be part of a table key as a replay that does not exist, not with a 500', async () => {
    const id = 'a'.repeat(1_200);
    for (const subscription of [classic, namespaced]) {
      for (const method of ['GET', 'DELETE']) {
        const answer = await api.call(method, `${subscription}/replays/${id}`);
        expect(answer.status).toBe(404);
        expect(answer.body.error.code).toBe('NotFound');
      }
    }
  });

  it('refuses an event type schema that refers to itself without end, not with a 500', async () => {
    const types = `/admin/topics/${FIXTURES.topic}/eventTypes`;
    for (const schema of [{ $ref: '#' }, { $dynamicRef: '#x' }]) {
      const answer = await api.call('PUT', `${types}/Fz.Looped`, { schema, example: {} });
      expect(answer.status).toBe(400);
      expect(answer.body.error.details[0].code).toBe('InvalidSchema');
      expect(answer.body.error.message).toMatch(/schema: the schema refers to itself without end/);
    }
  });

  it('refuses an event type schema whose $schema is an object with a toString member, not with a 500', async () => {
    const answer = await api.call('PUT', `/admin/topics/${FIXTURES.topic}/eventTypes/Fz.Odd`, {
      schema: { $schema: { toString: 'nope' } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/^schema: \$schema must be /);
  });

  it('refuses an event whose data its type’s schema is endless for, not with a 500', async () => {
    // Endless only for data with a member `loop`, so the schema is taken when it is put.
    const schema = {
      properties: { loop: { $ref: '#/$defs/l' } },
      $defs: { l: { allOf: [{ $ref: '#/$defs/l' }] } },
    };
    const put = await api.call('PUT', '/admin/topics/fz-endless', {
      properties: { inputSchema: 'EventGridSchema', validateEvents: true },
    });
    expect(put.status).toBe(201);
    expect((await api.call('PUT', '/admin/topics/fz-endless/eventTypes/Fz.Looped', { schema })).status).toBe(
      201,
    );
    const example = await api.call('PUT', '/admin/topics/fz-endless/eventTypes/Fz.Other', {
      schema,
      example: { loop: 1 },
    });
    expect(example.status).toBe(400);
    expect(example.body.error.message).toMatch(/^example: cannot be checked: the schema refers to itself/);
    const key = (await api.call('POST', '/admin/topics/fz-endless/listKeys')).body.key1 as string;
    expect((await api.publish('fz-endless', key, [event('e-1', 'Fz.Looped', {})])).status).toBe(200);
    const refused = await api.publish('fz-endless', key, [event('e-2', 'Fz.Looped', { loop: 1 })]);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /data cannot be checked: the schema refers to itself without end/,
    );
  });
});

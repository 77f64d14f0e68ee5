/**
 * The OpenAPI document as a contract: every request the integration and browser tests' stacks
 * took and every answer they gave matched the document (`test/support/api-contract.ts` held each
 * to it as it happened), and every route of the API but those listed below was called. Run the
 * integration project first (`npm test` does).
 */

import { CONSOLE_API_PATH } from '../../shared/config/routes';
import { describedRoutes, openApiPath } from '../../shared/openapi/document';
import { readContractRecords } from '../support/api-contract';

/**
 * The routes the suite never calls through a stack's API, and why. The console's API
 * (`/console/api/...`) runs the admin routes' own operations: a call through it counts as a call
 * of its admin route, and its own routes are not required to be called one by one.
 */
const NOT_CALLED: Readonly<Record<string, string>> = {};

const records = readContractRecords();

describe('the API as its OpenAPI document describes it', () => {
  it('has exchanges recorded by the integration run', () => {
    expect(records.length).toBeGreaterThan(0);
  });

  it('answered every request as described, and took every request answered 2xx as described', () => {
    const problems = records
      .filter((record) => record.problem !== undefined)
      .map((record) => `${record.operation} -> ${record.status}: ${record.problem}`)
      .sort();
    expect(problems).toEqual([]);
  });

  it('had every route called but those listed, with the list holding no route that was called', () => {
    // A call through the console's API runs the admin route's own operation: it calls that route.
    const called = new Set(
      records.map((record) =>
        record.operation.replace(/^(\w+) \/console\/api\//, (_all, method: string) => `${method} /admin/`),
      ),
    );
    const routes = describedRoutes()
      .filter((route) => !route.path.startsWith(`${CONSOLE_API_PATH}/`))
      .map((route) => `${route.method} ${openApiPath(route.path)}`);
    const uncalled = routes.filter((route) => !called.has(route)).sort();
    expect(uncalled).toEqual(Object.keys(NOT_CALLED).sort());
  });
});

/**
 * The OpenAPI document: committed up to date as `docs/openapi.json`, valid OpenAPI 3.1 by an
 * outside validator, and describing every route (the integration run holds the stacks' real
 * exchanges to it: `test/iam/api-contract.test.ts`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPENAPI_FILE, openApiText } from '../../../scripts/openapi';
import { ROUTES } from '../../../shared/config/routes';
import { describedRoutes, openApiDocument, openApiPath } from '../../../shared/openapi/document';
import { OPERATIONS } from '../../../shared/openapi/operations';

type Document = { paths: Record<string, Record<string, { operationId: string; security: unknown[] }>> };

describe('the OpenAPI document', () => {
  const document = openApiDocument() as unknown as Document;

  it('is committed as docs/openapi.json as generated (npm run openapi writes it)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8') === openApiText()).toBe(true);
  });

  it("is committed with the client's generated types up to date (npm run openapi --check)", () => {
    const tsx = join(__dirname, '..', '..', '..', 'node_modules', '.bin', 'tsx');
    const script = join(__dirname, '..', '..', '..', 'scripts', 'openapi.ts');
    const run = spawnSync(tsx, [script, '--check'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('is valid OpenAPI 3.1 by @seriousme/openapi-schema-validator', () => {
    // The validator is an ES module: run it as node runs it.
    const script = `import { Validator } from '@seriousme/openapi-schema-validator';
const validator = new Validator();
const result = await validator.validate(process.argv[1]);
console.log(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));`;
    const answer = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script, OPENAPI_FILE], {
        encoding: 'utf8',
      }),
    );
    expect(answer).toEqual({ valid: true, version: '3.1', errors: null });
  });

  it('the validator refuses a document that is not valid (the check can fail)', () => {
    const script = `import { Validator } from '@seriousme/openapi-schema-validator';
const result = await new Validator().validate({ openapi: '3.1.0', info: { title: 'x' }, paths: { '/a': { get: { responses: { 200: { content: 1 } } } } } });
console.log(JSON.stringify({ valid: result.valid }));`;
    expect(
      JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })),
    ).toEqual({
      valid: false,
    });
  });

  it('describes every route, each operation with its own id', () => {
    const described = new Set(
      describedRoutes().map((route) => `${route.method.toLowerCase()} ${openApiPath(route.path)}`),
    );
    for (const route of ROUTES) {
      if (route.method === 'ANY') continue;
      expect(described.has(`${route.method.toLowerCase()} ${openApiPath(route.path)}`)).toBe(true);
      expect(document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()]).toBeDefined();
    }
    const ids = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("describes the console's API route by route, with the session's token", () => {
    const operation = document.paths['/console/api/topics/{topic}']?.get;
    expect(operation?.security).toEqual([{ session: [] }]);
    expect(document.paths['/console/api/sessions']).toBeUndefined();
    expect(document.paths['/admin/topics/{topic}']?.get?.security).toEqual([
      { sigv4: [] },
      { adminToken: [] },
    ]);
  });

  it('fails naming a route no operation describes', () => {
    const { 'GET /admin/topics': _left, ...others } = OPERATIONS;
    expect(() => describedRoutes(others)).toThrow(/GET \/admin\/topics(,|$)/);
  });

  it('names this stack as its server when served', () => {
    expect((openApiDocument('https://events.example.com') as { servers?: unknown }).servers).toEqual([
      { url: 'https://events.example.com' },
    ]);
    expect((document as { servers?: unknown }).servers).toBeUndefined();
  });
});

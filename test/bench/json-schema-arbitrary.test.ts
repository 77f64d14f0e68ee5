/**
 * The fuzz's generators (`bench/json-schema-arbitrary.ts`, `bench/management-fuzz.ts`): values made
 * from each admin request body schema of the OpenAPI document are valid by that schema, as Ajv
 * reads it; a lone surrogate is percent-encoded as the bytes a decoder must refuse; and each
 * fuzzed route's requests are made for that route, with the body's excerpt in their description.
 */
import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import { arbitraryAt, type JsonSchema } from '../../bench/json-schema-arbitrary';
import { fuzzedRoutes, percentEncode, routeRequests } from '../../bench/management-fuzz';
import { openApiDocument, openApiPath } from '../../shared/openapi/document';

const document = openApiDocument() as { paths: Record<string, Record<string, unknown>> };

describe('values made from a JSON Schema', () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ ...document, $id: 'gridwire' });
  const bodies = fuzzedRoutes(document).filter((route) => route.body !== undefined);

  it('come from every admin route that takes a body', () => {
    expect(bodies.length).toBeGreaterThan(15);
  });

  it.each(bodies.map((route) => [route.key, route]))('are valid by %s', (_key, route) => {
    const pointer = [
      'paths',
      openApiPath(route.path),
      route.method.toLowerCase(),
      'requestBody',
      'content',
      'application/json',
      'schema',
    ]
      .map((token) => token.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    const validate = ajv.getSchema(`gridwire#/${pointer}`);
    if (validate === undefined) throw new Error(`no schema at ${pointer}`);
    const schema = route.body as JsonSchema;
    const invalid = fc
      .sample(arbitraryAt(schema, { document }), { numRuns: 100, seed: 7 })
      .filter((value) => !validate(value));
    expect(invalid).toEqual([]);
  });

  it('leave out optional members as often as asked', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'string' } },
      required: ['b'],
    };
    const values = fc.sample(arbitraryAt(schema, { document, optionalChance: 0 }), { numRuns: 50, seed: 1 });
    expect(values.every((value) => Object.keys(value as object).join() === 'b')).toBe(true);
  });

  it('follow $refs, enums, consts, alternatives, bounds and patterns', () => {
    const schema = {
      type: 'object',
      properties: {
        ref: { $ref: '#/components/schemas/RegenerateKeyRequest' },
        kind: { enum: ['x', 'y'] },
        fixed: { const: 3 },
        either: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 5, maximum: 6 }] },
        short: { type: 'string', minLength: 2, maxLength: 3 },
        colour: { type: 'string', pattern: '^#[0-9a-f]{6}$' },
        list: { type: 'array', items: { type: 'boolean' }, minItems: 1, maxItems: 2 },
      },
      required: ['ref', 'kind', 'fixed', 'either', 'short', 'colour', 'list'],
    };
    for (const value of fc.sample(arbitraryAt(schema, { document }), { numRuns: 50, seed: 3 })) {
      const v = value as Record<string, unknown>;
      expect(['key1', 'key2']).toContain((v.ref as { keyName: string }).keyName);
      expect(['x', 'y']).toContain(v.kind);
      expect(v.fixed).toBe(3);
      expect(v.either === null || v.either === 5 || v.either === 6).toBe(true);
      expect((v.short as string).length).toBeGreaterThanOrEqual(2);
      expect((v.short as string).length).toBeLessThanOrEqual(3);
      expect(v.colour).toMatch(/^#[0-9a-f]{6}$/);
      expect((v.list as unknown[]).length).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('the fuzz', () => {
  it('percent-encodes a lone surrogate as bytes no UTF-8 decoder takes, and pairs as their code point', () => {
    expect(percentEncode('a\ud800b')).toBe('a%ED%A0%80b');
    expect(() => decodeURIComponent(percentEncode('\udfff'))).toThrow(URIError);
    expect(decodeURIComponent(percentEncode('\u{1F600}/é'))).toBe('\u{1F600}/é');
  });

  it('makes each route’s requests for that route, with their method, and describes them briefly', () => {
    const routes = routeRequests('http://127.0.0.1:9');
    expect(routes.map((route) => route.route).sort()).toEqual(
      fuzzedRoutes(document)
        .map((route) => route.key)
        .sort(),
    );
    for (const { route, arbitrary } of routes) {
      for (const request of fc.sample(arbitrary, { numRuns: 5, seed: 11 })) {
        expect(request.route).toBe(route);
        expect(route.startsWith(`${request.method} `)).toBe(true);
        const described = String(request[fc.toStringMethod]());
        expect(described.startsWith(`${request.method} `)).toBe(true);
        expect(described.length).toBeLessThan(1_500);
      }
    }
  });
});

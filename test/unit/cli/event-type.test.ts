/**
 * `gridwire event-type create|list|show|delete` and the event validation flags of `gridwire topic
 * update` (`--validate-events`, `--no-validate-events`, `--unknown-event-types`): the bodies sent,
 * the files read, the text and `--json` printed, refusals naming the flag, run through the
 * program against a scripted API on a local port.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedApi } from '../../support/scripted-api';

const { answers, seen, gridwire } = scriptedApi();

const dir = mkdtempSync(join(tmpdir(), 'gridwire-event-type-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const SCHEMA = { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } };

const typeDocument = (properties: Record<string, unknown>) => ({
  id: '/gridwire/topics/orders/eventTypes/Order.Created',
  name: 'Order.Created',
  type: 'Gridwire/topics/eventTypes',
  properties: { description: null, schema: null, ...properties },
  systemData: { createdAt: '2026-12-01T00:00:00.000Z', lastModifiedAt: '2026-12-01T00:00:00.000Z' },
});

const requests = () => seen.map(({ method, path, body }) => [method, path, body]);

describe('gridwire event-type create', () => {
  it('puts the schema, example and description files give, and prints the type with its schema', async () => {
    answers['PUT /admin/topics/orders/eventTypes/Order.Created'] = {
      status: 201,
      body: typeDocument({ description: 'Placed.', schema: SCHEMA, example: { orderId: 'o-1' } }),
    };
    const printed = await gridwire(
      'event-type',
      'create',
      '--topic',
      'orders',
      '--name',
      'Order.Created',
      '--schema',
      file('order.json', JSON.stringify(SCHEMA)),
      '--example',
      file('example.json', '{"orderId": "o-1"}'),
      '--description',
      'Placed.',
    );
    expect(requests()).toEqual([
      [
        'PUT',
        '/admin/topics/orders/eventTypes/Order.Created',
        { description: 'Placed.', schema: SCHEMA, example: { orderId: 'o-1' } },
      ],
    ]);
    const lines = printed.split('\n');
    expect(lines[0]).toBe('Created event type Order.Created in the event catalog of topic orders.');
    expect(lines).toContain('description: Placed.');
    expect(printed).toContain('schema:\n  {\n    "type": "object",');
    expect(printed).toContain('example:\n  {\n    "orderId": "o-1"\n  }');
  });

  it('puts a namespace topic’s type, and says Replaced for a type that was there', async () => {
    answers['PUT /admin/namespaces/shop/topics/carts/eventTypes/Cart.Updated'] = {
      status: 200,
      body: { ...typeDocument({}), name: 'Cart.Updated' },
    };
    const printed = await gridwire(
      'event-type',
      'create',
      '--topic',
      'carts',
      '--namespace',
      'shop',
      '--name',
      'Cart.Updated',
    );
    expect(requests()).toEqual([['PUT', '/admin/namespaces/shop/topics/carts/eventTypes/Cart.Updated', {}]]);
    expect(printed).toContain(
      'Replaced event type Cart.Updated in the event catalog of namespace shop, topic carts.',
    );
    expect(printed).toContain('schema:      (none: its events pass unchecked)');
  });

  it('refuses a schema file that is not JSON, or missing, naming the flag and file, before any request', async () => {
    const bad = file('bad.json', '{"type": ');
    await expect(
      gridwire('event-type', 'create', '--topic', 'orders', '--name', 'A', '--schema', bad),
    ).rejects.toThrow(`--schema ${bad}: is not valid JSON`);
    await expect(
      gridwire(
        'event-type',
        'create',
        '--topic',
        'orders',
        '--name',
        'A',
        '--example',
        join(dir, 'none.json'),
      ),
    ).rejects.toThrow(`--example ${join(dir, 'none.json')}: cannot be read (ENOENT)`);
    expect(seen).toEqual([]);
  });

  it('passes on the API’s refusal, naming the field', async () => {
    answers['PUT /admin/topics/orders/eventTypes/A'] = {
      status: 400,
      body: {
        error: {
          code: 'BadRequest',
          message: 'schema: does not compile: strict mode: unknown keyword: "x".',
        },
      },
    };
    await expect(
      gridwire(
        'event-type',
        'create',
        '--topic',
        'orders',
        '--name',
        'A',
        '--schema',
        file('x.json', '{"x": 1}'),
      ),
    ).rejects.toThrow('schema: does not compile: strict mode: unknown keyword: "x".');
  });

  it('requires --topic and --name', async () => {
    await expect(gridwire('event-type', 'create', '--name', 'A')).rejects.toThrow(
      "required option '--topic <name>' not specified",
    );
    await expect(gridwire('event-type', 'create', '--topic', 'orders')).rejects.toThrow(
      "required option '--name <eventType>' not specified",
    );
  });
});

describe('gridwire event-type list, show and delete', () => {
  it('lists the catalog as a table, and as JSON', async () => {
    const value = [
      {
        ...typeDocument({}),
        properties: { description: 'Placed.', hasSchema: true, hasExample: false },
      },
    ];
    answers['GET /admin/topics/orders/eventTypes'] = { status: 200, body: { value } };
    const printed = await gridwire('event-type', 'list', '--topic', 'orders');
    expect(printed.split('\n')).toEqual([
      'NAME           SCHEMA  EXAMPLE  DESCRIPTION',
      'Order.Created  yes     no       Placed.',
    ]);
    expect(JSON.parse(await gridwire('event-type', 'list', '--topic', 'orders', '--json'))).toEqual(value);
  });

  it('shows a type, and says how to list them when there is none', async () => {
    answers['GET /admin/topics/orders/eventTypes/Order.Created'] = {
      status: 200,
      body: typeDocument({ schema: SCHEMA }),
    };
    const printed = await gridwire('event-type', 'show', '--topic', 'orders', '--name', 'Order.Created');
    expect(printed).toContain('name:        Order.Created');
    expect(printed).toContain('example:     (none)');
    await expect(gridwire('event-type', 'show', '--topic', 'orders', '--name', 'Nope')).rejects.toThrow(
      'no event type Nope in the event catalog of topic orders (gridwire event-type list --topic orders shows them)',
    );
  });

  it('deletes a type, or says there was none', async () => {
    answers['DELETE /admin/topics/orders/eventTypes/Order.Created'] = { status: 200 };
    answers['DELETE /admin/topics/orders/eventTypes/Gone'] = { status: 204 };
    expect(await gridwire('event-type', 'delete', '--topic', 'orders', '--name', 'Order.Created')).toBe(
      'Deleted event type Order.Created from the event catalog of topic orders.',
    );
    expect(await gridwire('event-type', 'delete', '--topic', 'orders', '--name', 'Gone', '--json')).toBe(
      JSON.stringify({ deleted: false }, null, 2),
    );
  });
});

describe('gridwire topic update and event validation', () => {
  const existing = {
    name: 'orders',
    tags: {},
    properties: {
      endpoint: 'https://gw.example/topics/orders/api/events',
      inputSchema: 'EventGridSchema',
      deduplicationWindowInMinutes: 0,
      archive: { retentionInDays: 7 },
      validateEvents: false,
      unknownEventTypes: 'allow',
    },
  };
  const puts = () => seen.filter(({ method }) => method === 'PUT').map(({ body }) => body);

  it('turns validation on with --validate-events, keeping the rest', async () => {
    answers['GET /admin/topics/orders'] = { status: 200, body: existing };
    answers['PUT /admin/topics/orders'] = {
      status: 200,
      body: {
        ...existing,
        properties: { ...existing.properties, validateEvents: true, unknownEventTypes: 'reject' },
      },
    };
    const printed = await gridwire(
      'topic',
      'update',
      'orders',
      '--validate-events',
      '--unknown-event-types',
      'REJECT',
    );
    expect(puts()).toEqual([
      {
        properties: {
          inputSchema: 'EventGridSchema',
          deduplicationWindowInMinutes: 0,
          archive: { retentionInDays: 7 },
          validateEvents: true,
          unknownEventTypes: 'reject',
        },
      },
    ]);
    expect(printed.split('\n')).toContain('validation:    on, unknown types rejected');
  });

  it('turns it off with --no-validate-events, and keeps it otherwise', async () => {
    const on = { ...existing, properties: { ...existing.properties, validateEvents: true } };
    answers['GET /admin/namespaces/shop/topics/carts'] = { status: 200, body: { ...on, name: 'carts' } };
    answers['PUT /admin/namespaces/shop/topics/carts'] = { status: 200, body: { ...on, name: 'carts' } };
    await gridwire('topic', 'update', 'carts', '--namespace', 'shop', '--no-validate-events');
    await gridwire('topic', 'update', 'carts', '--namespace', 'shop', '--deduplication-window', '5');
    expect(
      puts().map((body) => (body as { properties: Record<string, unknown> }).properties.validateEvents),
    ).toEqual([false, true]);
  });

  it('refuses an --unknown-event-types that is neither allow nor reject, before any request', async () => {
    await expect(gridwire('topic', 'update', 'orders', '--unknown-event-types', 'deny')).rejects.toThrow(
      '--unknown-event-types must be allow or reject.',
    );
    expect(seen).toEqual([]);
  });
});

/**
 * `gridwire topic create`, `show` and `list` and the de-duplication window: `--deduplication-window`
 * checked against its limits, sent in the body, carried over (with the rest of an existing
 * topic's definition) by a `create` that does not name it, and printed, run through the program
 * against a scripted API on a local port (with `--api`, so each request is signed as on AWS).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { gridwireProgram, runGridwire } from '../../../cli/program';
import { DEDUPLICATION_WINDOW_IN_MINUTES } from '../../../shared/domain/model';

interface Seen {
  method: string;
  path: string;
  body: unknown;
}

/** The API's answers by `METHOD /path`; anything else is a 404. */
let answers: Record<string, { status: number; body: unknown }> = {};
let seen: Seen[] = [];
let server: Server;
let api: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const key = `${request.method} ${request.url}`;
      seen.push({
        method: request.method ?? '',
        path: request.url ?? '',
        body: text === '' ? undefined : JSON.parse(text),
      });
      const answer = answers[key] ?? { status: 404, body: { error: { message: `no route ${key}` } } };
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Requests with --api are signed with the SDK's default credentials: these, from the environment.
  delete process.env.AWS_PROFILE;
  process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
  process.env.AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
});

afterAll(async () => {
  process.env = savedEnv;
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  answers = {};
  seen = [];
});

/** The program, its errors thrown instead of ending the process, and commander's own output kept quiet. */
function testProgram(): Command {
  const quiet = (command: Command) => {
    command.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
    for (const sub of command.commands) quiet(sub);
  };
  const program = gridwireProgram();
  quiet(program);
  return program;
}

/** Runs a command against the scripted API; what it printed. */
async function gridwire(...args: string[]): Promise<string> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    lines.push(parts.map(String).join(' '));
  });
  try {
    await runGridwire([...args, '--api', api, '--region', 'eu-west-1'], testProgram());
  } finally {
    log.mockRestore();
  }
  return lines.join('\n');
}

/** The bodies of the PUTs the command sent, by path. */
const puts = () => seen.filter((request) => request.method === 'PUT').map(({ path, body }) => [path, body]);

/** A classic topic's document as the API shows it. */
const classicDocument = (properties: Record<string, unknown>, tags: Record<string, string> = {}) => ({
  name: 'orders',
  type: 'Microsoft.EventGrid/topics',
  tags,
  properties: {
    provisioningState: 'Succeeded',
    endpoint: 'https://gw.example/topics/orders/api/events',
    deduplicationWindowInMinutes: 0,
    ...properties,
  },
});

/** A namespace topic's document as the API shows it. */
const namespaceDocument = (properties: Record<string, unknown>) => ({
  name: 'carts',
  type: 'Microsoft.EventGrid/namespaces/topics',
  properties: {
    provisioningState: 'Succeeded',
    publisherType: 'Custom',
    inputSchema: 'CloudEventSchemaV1_0',
    eventRetentionInDays: 1,
    deduplicationWindowInMinutes: 0,
    ...properties,
  },
});

describe('--deduplication-window', () => {
  it.each(['1441', '-1', '1.5', 'an hour', ''])(
    'refuses %j naming the flag and the limit, before any request',
    async (value) => {
      await expect(gridwire('topic', 'create', 'orders', '--deduplication-window', value)).rejects.toThrow(
        `--deduplication-window must be an integer from ${DEDUPLICATION_WINDOW_IN_MINUTES.min} to ${DEDUPLICATION_WINDOW_IN_MINUTES.max}.`,
      );
      expect(seen).toEqual([]);
    },
  );

  it('is an option of topic create, its limits in its help', () => {
    const create = gridwireProgram()
      .commands.find((command) => command.name() === 'topic')
      ?.commands.find((command) => command.name() === 'create');
    const help = create?.helpInformation() ?? '';
    expect(help).toMatch(/--deduplication-window <minutes>\s+minutes a repeated event id/);
    expect(help.replace(/\s+/g, ' ')).toContain('0 (off) to 1440');
  });
});

describe('gridwire topic create of a classic topic', () => {
  it('sends the window for a new topic, and prints it', async () => {
    answers['PUT /admin/topics/orders'] = {
      status: 201,
      body: classicDocument({ inputSchema: 'EventGridSchema', deduplicationWindowInMinutes: 60 }),
    };
    const printed = await gridwire('topic', 'create', 'orders', '--deduplication-window', '60');
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        { properties: { inputSchema: 'EventGridSchema', deduplicationWindowInMinutes: 60 } },
      ],
    ]);
    expect(printed).toContain('Created topic orders.');
    expect(printed).toContain('dedup window:  60 min');
  });

  it('leaves the window to the API for a new topic without the flag (off)', async () => {
    answers['PUT /admin/topics/orders'] = {
      status: 201,
      body: classicDocument({ inputSchema: 'EventGridSchema' }),
    };
    const printed = await gridwire('topic', 'create', 'orders');
    expect(puts()).toEqual([['/admin/topics/orders', { properties: { inputSchema: 'EventGridSchema' } }]]);
    expect(printed).toContain('dedup window:  off');
  });

  it('keeps the window, schema and tags of an existing topic when the flag is not given', async () => {
    const existing = classicDocument(
      { inputSchema: 'CloudEventSchemaV1_0', deduplicationWindowInMinutes: 30 },
      { team: 'shop' },
    );
    answers['GET /admin/topics/orders'] = { status: 200, body: existing };
    answers['PUT /admin/topics/orders'] = { status: 200, body: existing };
    const printed = await gridwire('topic', 'create', 'orders');
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        {
          tags: { team: 'shop' },
          properties: { inputSchema: 'CloudEventSchemaV1_0', deduplicationWindowInMinutes: 30 },
        },
      ],
    ]);
    expect(printed).toContain('Updated topic orders.');
  });

  it("keeps a custom schema topic's mapping, and changes only the window the flag gives", async () => {
    const inputSchemaMapping = {
      inputSchemaMappingType: 'Json',
      properties: { eventType: { sourceField: 'kind' }, subject: { defaultValue: 'shop' } },
    };
    answers['GET /admin/topics/orders'] = {
      status: 200,
      body: classicDocument({
        inputSchema: 'CustomEventSchema',
        inputSchemaMapping,
        deduplicationWindowInMinutes: 30,
      }),
    };
    answers['PUT /admin/topics/orders'] = {
      status: 200,
      body: classicDocument({ inputSchema: 'CustomEventSchema', inputSchemaMapping }),
    };
    const printed = await gridwire('topic', 'create', 'orders', '--deduplication-window', '0');
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        {
          properties: {
            inputSchema: 'CustomEventSchema',
            inputSchemaMapping,
            deduplicationWindowInMinutes: 0,
          },
        },
      ],
    ]);
    expect(printed).toContain('dedup window:  off');
  });
});

describe('gridwire topic create of a namespace topic', () => {
  it('keeps the retention and window of an existing topic when their flags are not given', async () => {
    answers['GET /admin/namespaces/shop'] = { status: 200, body: { name: 'shop', properties: {} } };
    const existing = namespaceDocument({ eventRetentionInDays: 2, deduplicationWindowInMinutes: 15 });
    answers['GET /admin/namespaces/shop/topics/carts'] = { status: 200, body: existing };
    answers['PUT /admin/namespaces/shop/topics/carts'] = { status: 200, body: existing };
    await gridwire('topic', 'create', 'carts', '--namespace', 'shop');
    expect(puts()).toEqual([
      [
        '/admin/namespaces/shop/topics/carts',
        { properties: { eventRetentionInDays: 2, deduplicationWindowInMinutes: 15 } },
      ],
    ]);

    seen = [];
    answers['PUT /admin/namespaces/shop/topics/carts'] = {
      status: 200,
      body: namespaceDocument({ eventRetentionInDays: 2, deduplicationWindowInMinutes: 1440 }),
    };
    const printed = await gridwire(
      'topic',
      'create',
      'carts',
      '--namespace',
      'shop',
      '--deduplication-window',
      '1440',
    );
    expect(puts()).toEqual([
      [
        '/admin/namespaces/shop/topics/carts',
        { properties: { eventRetentionInDays: 2, deduplicationWindowInMinutes: 1440 } },
      ],
    ]);
    expect(printed).toContain('dedup window:  1440 min');
  });

  it('sends the window for a topic of a namespace it makes, without reading the topic', async () => {
    answers['PUT /admin/namespaces/shop'] = { status: 201, body: { name: 'shop', properties: {} } };
    answers['PUT /admin/namespaces/shop/topics/carts'] = {
      status: 201,
      body: namespaceDocument({ deduplicationWindowInMinutes: 5 }),
    };
    const printed = await gridwire(
      'topic',
      'create',
      'carts',
      '--namespace',
      'shop',
      '--deduplication-window',
      '5',
    );
    expect(puts()).toEqual([
      ['/admin/namespaces/shop', { properties: {} }],
      ['/admin/namespaces/shop/topics/carts', { properties: { deduplicationWindowInMinutes: 5 } }],
    ]);
    expect(seen.map(({ method, path }) => `${method} ${path}`)).not.toContain(
      'GET /admin/namespaces/shop/topics/carts',
    );
    expect(printed.split('\n')[0]).toBe('Created namespace shop.');
  });
});

describe('gridwire topic show and list', () => {
  it('show the window: off, or its minutes', async () => {
    answers['GET /admin/topics/orders'] = {
      status: 200,
      body: classicDocument({ inputSchema: 'EventGridSchema', deduplicationWindowInMinutes: 90 }),
    };
    expect((await gridwire('topic', 'show', 'orders')).split('\n')).toContain('dedup window:  90 min');

    answers['GET /admin/topics'] = {
      status: 200,
      body: {
        value: [
          classicDocument({ inputSchema: 'EventGridSchema', deduplicationWindowInMinutes: 90 }),
          { ...classicDocument({ inputSchema: 'CloudEventSchemaV1_0' }), name: 'audit' },
        ],
      },
    };
    const rows = (await gridwire('topic', 'list')).split('\n');
    expect(rows[0]).toMatch(/^NAME\s+INPUT SCHEMA\s+DEDUP WINDOW\s+PUBLISH URL$/);
    expect(rows[1]).toMatch(/^orders\s+EventGridSchema\s+90 min\s+https:/);
    expect(rows[2]).toMatch(/^audit\s+CloudEventSchemaV1_0\s+off\s+https:/);
  });
});

/**
 * `gridwire topic create`, `update`, `show` and `list`, the de-duplication window and the archive:
 * `--deduplication-window` and `--archive-retention` checked against their limits, sent in the
 * body, carried over (with the rest of an existing topic's definition) by a `create` or `update`
 * that does not name them, `--no-archive`, and both printed, run through the program against a
 * scripted API on a local port (with `--api`, so each request is signed as on AWS).
 */
import { gridwireProgram } from '../../../cli/program';
import { ARCHIVE_RETENTION_IN_DAYS, DEDUPLICATION_WINDOW_IN_MINUTES } from '../../../shared/domain/model';
import { scriptedApi } from '../../support/scripted-api';

const { answers, seen, gridwire } = scriptedApi();

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
    archive: null,
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
    archive: null,
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

    seen.length = 0;
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
    expect(rows[0]).toMatch(/^NAME\s+INPUT SCHEMA\s+DEDUP WINDOW\s+ARCHIVE\s+PUBLISH URL$/);
    expect(rows[1]).toMatch(/^orders\s+EventGridSchema\s+90 min\s+off\s+https:/);
    expect(rows[2]).toMatch(/^audit\s+CloudEventSchemaV1_0\s+off\s+off\s+https:/);
  });
});

/** A subcommand of `gridwire topic`, for its help. */
const topicSubcommand = (name: string) =>
  gridwireProgram()
    .commands.find((command) => command.name() === 'topic')
    ?.commands.find((command) => command.name() === name);

describe('--archive-retention and --no-archive', () => {
  const { min, max } = ARCHIVE_RETENTION_IN_DAYS;

  it.each([
    ['create', '0'],
    ['create', '366'],
    ['create', '1.5'],
    ['create', 'a week'],
    ['create', ''],
    ['update', '0'],
    ['update', '366'],
  ])('%s refuses %j naming the flag and the limit, before any request', async (command, value) => {
    await expect(gridwire('topic', command, 'orders', '--archive-retention', value)).rejects.toThrow(
      `--archive-retention must be an integer from ${min} to ${max}.`,
    );
    expect(seen).toEqual([]);
  });

  it.each(['create', 'update'])('%s refuses both flags together, before any request', async (command) => {
    await expect(
      gridwire('topic', command, 'orders', '--archive-retention', '7', '--no-archive'),
    ).rejects.toThrow("option '--no-archive' cannot be used with option '--archive-retention <days>'");
    expect(seen).toEqual([]);
  });

  it.each(['create', 'update'])('are options of topic %s, the limits in its help', (command) => {
    const help = (topicSubcommand(command)?.helpInformation() ?? '').replace(/\s+/g, ' ');
    expect(help).toMatch(/--archive-retention <days> keep every event the topic accepts/);
    expect(help).toContain(`${min} to ${max}`);
    expect(help).toMatch(/--no-archive keep no archive/);
    expect(help).toContain('--deduplication-window <minutes>');
  });
});

describe('the archive of gridwire topic create', () => {
  it('is sent for a new classic topic, and printed', async () => {
    answers['PUT /admin/topics/orders'] = {
      status: 201,
      body: classicDocument({ inputSchema: 'EventGridSchema', archive: { retentionInDays: 7 } }),
    };
    const printed = await gridwire('topic', 'create', 'orders', '--archive-retention', '7');
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        { properties: { inputSchema: 'EventGridSchema', archive: { retentionInDays: 7 } } },
      ],
    ]);
    expect(printed.split('\n')).toContain('archive:       7 days');
    expect(printed).toMatch(/^dedup window: {2}off\narchive: {7}7 days\n/m);
  });

  it('is printed off for a new topic without the flag, and left out of the body', async () => {
    answers['PUT /admin/topics/orders'] = {
      status: 201,
      body: classicDocument({ inputSchema: 'EventGridSchema' }),
    };
    const printed = await gridwire('topic', 'create', 'orders');
    expect(puts()).toEqual([['/admin/topics/orders', { properties: { inputSchema: 'EventGridSchema' } }]]);
    expect(printed.split('\n')).toContain('archive:       off');
  });

  it('is kept, with the rest of an existing topic, by a create that does not name it', async () => {
    const existing = classicDocument(
      {
        inputSchema: 'CloudEventSchemaV1_0',
        deduplicationWindowInMinutes: 30,
        archive: { retentionInDays: 30 },
      },
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
          properties: {
            inputSchema: 'CloudEventSchemaV1_0',
            deduplicationWindowInMinutes: 30,
            archive: { retentionInDays: 30 },
          },
        },
      ],
    ]);
    expect(printed).toContain('Updated topic orders.');
    expect(printed.split('\n')).toContain('archive:       30 days');

    // Another flag changes its setting only.
    seen.length = 0;
    await gridwire('topic', 'create', 'orders', '--deduplication-window', '0');
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        {
          tags: { team: 'shop' },
          properties: {
            inputSchema: 'CloudEventSchemaV1_0',
            deduplicationWindowInMinutes: 0,
            archive: { retentionInDays: 30 },
          },
        },
      ],
    ]);
  });

  it('is changed by --archive-retention and turned off by --no-archive on an existing topic', async () => {
    answers['GET /admin/topics/orders'] = {
      status: 200,
      body: classicDocument({ inputSchema: 'EventGridSchema', archive: { retentionInDays: 30 } }),
    };
    answers['PUT /admin/topics/orders'] = {
      status: 200,
      body: classicDocument({ inputSchema: 'EventGridSchema', archive: { retentionInDays: 1 } }),
    };
    const changed = await gridwire('topic', 'create', 'orders', '--archive-retention', '1');
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        {
          properties: {
            inputSchema: 'EventGridSchema',
            deduplicationWindowInMinutes: 0,
            archive: { retentionInDays: 1 },
          },
        },
      ],
    ]);
    expect(changed.split('\n')).toContain('archive:       1 day');

    seen.length = 0;
    answers['PUT /admin/topics/orders'] = {
      status: 200,
      body: classicDocument({ inputSchema: 'EventGridSchema' }),
    };
    const off = await gridwire('topic', 'create', 'orders', '--no-archive');
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        { properties: { inputSchema: 'EventGridSchema', deduplicationWindowInMinutes: 0, archive: null } },
      ],
    ]);
    expect(off.split('\n')).toContain('archive:       off');
  });

  it('of a namespace topic is kept by a create that does not name it, and set by the flag', async () => {
    answers['GET /admin/namespaces/shop'] = { status: 200, body: { name: 'shop', properties: {} } };
    const existing = namespaceDocument({ eventRetentionInDays: 2, archive: { retentionInDays: 2 } });
    answers['GET /admin/namespaces/shop/topics/carts'] = { status: 200, body: existing };
    answers['PUT /admin/namespaces/shop/topics/carts'] = { status: 200, body: existing };
    await gridwire('topic', 'create', 'carts', '--namespace', 'shop', '--event-retention-in-days', '3');
    expect(puts()).toEqual([
      [
        '/admin/namespaces/shop/topics/carts',
        {
          properties: {
            eventRetentionInDays: 3,
            deduplicationWindowInMinutes: 0,
            archive: { retentionInDays: 2 },
          },
        },
      ],
    ]);

    seen.length = 0;
    answers['PUT /admin/namespaces/shop/topics/carts'] = {
      status: 200,
      body: namespaceDocument({ eventRetentionInDays: 2, archive: { retentionInDays: 90 } }),
    };
    const printed = await gridwire(
      'topic',
      'create',
      'carts',
      '--namespace',
      'shop',
      '--archive-retention',
      '90',
    );
    expect(puts()).toEqual([
      [
        '/admin/namespaces/shop/topics/carts',
        {
          properties: {
            eventRetentionInDays: 2,
            deduplicationWindowInMinutes: 0,
            archive: { retentionInDays: 90 },
          },
        },
      ],
    ]);
    expect(printed).toMatch(/^retention: {5}2 days\ndedup window: {2}off\narchive: {7}90 days\n/m);
  });

  it('of a topic of a namespace it makes is sent as the flag gives it', async () => {
    answers['PUT /admin/namespaces/shop'] = { status: 201, body: { name: 'shop', properties: {} } };
    answers['PUT /admin/namespaces/shop/topics/carts'] = {
      status: 201,
      body: namespaceDocument({ archive: { retentionInDays: 14 } }),
    };
    await gridwire('topic', 'create', 'carts', '--namespace', 'shop', '--archive-retention', '14');
    expect(puts()).toEqual([
      ['/admin/namespaces/shop', { properties: {} }],
      ['/admin/namespaces/shop/topics/carts', { properties: { archive: { retentionInDays: 14 } } }],
    ]);
  });
});

describe('gridwire topic update', () => {
  const inputSchemaMapping = {
    inputSchemaMappingType: 'Json',
    properties: { eventType: { sourceField: 'kind' }, subject: { defaultValue: 'shop' } },
  };
  /** An existing custom schema topic with tags, a window and an archive. */
  const existingClassic = () =>
    classicDocument(
      {
        inputSchema: 'CustomEventSchema',
        inputSchemaMapping,
        deduplicationWindowInMinutes: 30,
        archive: { retentionInDays: 30 },
      },
      { team: 'shop' },
    );

  it('changes the archive only, keeping schema, mapping, tags and window', async () => {
    answers['GET /admin/topics/orders'] = { status: 200, body: existingClassic() };
    answers['PUT /admin/topics/orders'] = {
      status: 200,
      body: {
        ...existingClassic(),
        properties: { ...existingClassic().properties, archive: { retentionInDays: 7 } },
      },
    };
    const printed = await gridwire('topic', 'update', 'orders', '--archive-retention', '7');
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        {
          tags: { team: 'shop' },
          properties: {
            inputSchema: 'CustomEventSchema',
            inputSchemaMapping,
            deduplicationWindowInMinutes: 30,
            archive: { retentionInDays: 7 },
          },
        },
      ],
    ]);
    const lines = printed.split('\n');
    expect(lines[0]).toBe('Updated topic orders.');
    expect(lines).toContain('dedup window:  30 min');
    expect(lines).toContain('archive:       7 days');
    // Not a create: no word about its keys.
    expect(printed).not.toContain('Its keys');
  });

  it('turns the archive off with --no-archive, and changes the window only with --deduplication-window', async () => {
    answers['GET /admin/topics/orders'] = { status: 200, body: existingClassic() };
    answers['PUT /admin/topics/orders'] = { status: 200, body: existingClassic() };
    await gridwire('topic', 'update', 'orders', '--no-archive');
    await gridwire('topic', 'update', 'orders', '--deduplication-window', '5');
    const common = { inputSchema: 'CustomEventSchema', inputSchemaMapping };
    expect(puts()).toEqual([
      [
        '/admin/topics/orders',
        {
          tags: { team: 'shop' },
          properties: { ...common, deduplicationWindowInMinutes: 30, archive: null },
        },
      ],
      [
        '/admin/topics/orders',
        {
          tags: { team: 'shop' },
          properties: { ...common, deduplicationWindowInMinutes: 5, archive: { retentionInDays: 30 } },
        },
      ],
    ]);
  });

  it("keeps a namespace topic's retention and window, without making or reading its namespace", async () => {
    const existing = namespaceDocument({ eventRetentionInDays: 5, deduplicationWindowInMinutes: 15 });
    answers['GET /admin/namespaces/shop/topics/carts'] = { status: 200, body: existing };
    answers['PUT /admin/namespaces/shop/topics/carts'] = {
      status: 200,
      body: namespaceDocument({
        eventRetentionInDays: 5,
        deduplicationWindowInMinutes: 15,
        archive: { retentionInDays: 365 },
      }),
    };
    const printed = await gridwire(
      'topic',
      'update',
      'carts',
      '--namespace',
      'shop',
      '--archive-retention',
      '365',
    );
    expect(seen.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'GET /admin/namespaces/shop/topics/carts',
      'PUT /admin/namespaces/shop/topics/carts',
    ]);
    expect(puts()).toEqual([
      [
        '/admin/namespaces/shop/topics/carts',
        {
          properties: {
            eventRetentionInDays: 5,
            deduplicationWindowInMinutes: 15,
            archive: { retentionInDays: 365 },
          },
        },
      ],
    ]);
    expect(printed.split('\n')[0]).toBe('Updated namespace shop, topic carts.');
    expect(printed.split('\n')).toContain('archive:       365 days');
  });

  it('prints the document with --json', async () => {
    answers['GET /admin/topics/orders'] = { status: 200, body: existingClassic() };
    answers['PUT /admin/topics/orders'] = { status: 200, body: existingClassic() };
    expect(
      JSON.parse(await gridwire('topic', 'update', 'orders', '--deduplication-window', '30', '--json')),
    ).toEqual(existingClassic());
  });

  it('refuses a topic that does not exist, naming it, and puts nothing', async () => {
    await expect(gridwire('topic', 'update', 'orders', '--archive-retention', '7')).rejects.toThrow(
      "no topic named 'orders' (gridwire topic list shows them)",
    );
    await expect(gridwire('topic', 'update', 'carts', '--namespace', 'shop', '--no-archive')).rejects.toThrow(
      "no topic named 'carts' in namespace 'shop' (gridwire topic list shows them)",
    );
    expect(puts()).toEqual([]);
  });

  it('refuses to run without a flag naming a setting, before any request', async () => {
    await expect(gridwire('topic', 'update', 'orders')).rejects.toThrow(
      'topic update changes what its flags name: give --archive-retention, --no-archive, --deduplication-window, --validate-events, --no-validate-events or --unknown-event-types',
    );
    expect(seen).toEqual([]);
  });

  it('takes no flag of the settings it does not change', async () => {
    await expect(gridwire('topic', 'update', 'orders', '--input-schema', 'EventGridSchema')).rejects.toThrow(
      "unknown option '--input-schema'",
    );
    expect(seen).toEqual([]);
  });
});

describe('the archive in gridwire topic show and list', () => {
  it('is off or its days', async () => {
    answers['GET /admin/topics/orders'] = {
      status: 200,
      body: classicDocument({ inputSchema: 'EventGridSchema', archive: { retentionInDays: 7 } }),
    };
    expect((await gridwire('topic', 'show', 'orders')).split('\n')).toContain('archive:       7 days');

    answers['GET /admin/namespaces/shop/topics'] = {
      status: 200,
      body: {
        value: [
          namespaceDocument({ archive: { retentionInDays: 1 } }),
          // An API older than the setting shows none.
          { ...namespaceDocument({ archive: undefined }), name: 'baskets' },
        ],
      },
    };
    const rows = (await gridwire('topic', 'list', '--namespace', 'shop')).split('\n');
    expect(rows[0]).toMatch(/^NAME\s+INPUT SCHEMA\s+DEDUP WINDOW\s+ARCHIVE\s+PUBLISH URL$/);
    expect(rows[1]).toMatch(/^carts\s+CloudEventSchemaV1_0\s+off\s+1 day\s+https?:/);
    expect(rows[2]).toMatch(/^baskets\s+CloudEventSchemaV1_0\s+off\s+off\s+https?:/);
  });
});

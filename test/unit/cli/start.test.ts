import type { OptionValueSource } from 'commander';
import { CliError } from '../../../cli/errors';
import { checkDeliveryBatching, resolveAdminToken, startCommand } from '../../../cli/start';
import { ENV, LOCAL_ENV } from '../../../shared/config/resources';

type Key = 'adminToken' | 'adminTokenFile';

/** Resolves with the given option values and where each came from; returns the token and warnings. */
async function resolve(
  given: Partial<Record<Key, [string, OptionValueSource]>>,
  files: Record<string, string> = {},
) {
  const warnings: string[] = [];
  const token = await resolveAdminToken(
    { adminToken: given.adminToken?.[0], adminTokenFile: given.adminTokenFile?.[0] },
    (key) => given[key]?.[1],
    (line) => warnings.push(line),
    async (path) => {
      const content = files[path];
      if (content === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      return content;
    },
  );
  return { token, warnings };
}

/** The options `args` parse to, the stack not started. */
async function parsed(args: string[], env: Record<string, string> = {}) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const command = startCommand()
      .exitOverride()
      .configureOutput({ writeErr: () => {} });
    command.action(() => {});
    await command.parseAsync(args, { from: 'user' });
    return command.opts();
  } finally {
    process.env = saved;
  }
}

describe('the admin token of gridwire start', () => {
  it('is none when nothing is given (the one in the data directory is used)', async () => {
    expect(await resolve({})).toEqual({ token: undefined, warnings: [] });
  });

  it('comes from the environment without a warning', async () => {
    expect(await resolve({ adminToken: ['from-env', 'env'] })).toEqual({ token: 'from-env', warnings: [] });
  });

  it('still comes from the command line, with a warning that ps shows it', async () => {
    const { token, warnings } = await resolve({ adminToken: ['on-the-line', 'cli'] });
    expect(token).toBe('on-the-line');
    expect(warnings).toEqual([
      expect.stringMatching(/--admin-token is visible .*\(ps\).*--admin-token-file/),
    ]);
  });

  it.each([['cli'], ['env']] as const)('is read from a file named by the %s, trimmed', async (source) => {
    expect(
      await resolve({ adminTokenFile: ['/run/token', source] }, { '/run/token': '  s3cret-Token_1\n' }),
    ).toEqual({ token: 's3cret-Token_1', warnings: [] });
  });

  it('takes the command line over the environment', async () => {
    const files = { '/run/token': 'from-file\n' };
    expect(
      (await resolve({ adminToken: ['env-token', 'env'], adminTokenFile: ['/run/token', 'cli'] }, files))
        .token,
    ).toBe('from-file');
    const fromLine = await resolve(
      { adminToken: ['line-token', 'cli'], adminTokenFile: ['/run/token', 'env'] },
      files,
    );
    expect(fromLine.token).toBe('line-token');
    expect(fromLine.warnings).toHaveLength(1);
  });

  it.each([
    ['cli', /--admin-token and --admin-token-file both given/],
    ['env', new RegExp(`${LOCAL_ENV.adminToken} and ${LOCAL_ENV.adminTokenFile} both set`)],
  ] as const)('refuses both from the %s', async (source, message) => {
    const error = await resolve(
      { adminToken: ['a', source], adminTokenFile: ['/run/token', source] },
      { '/run/token': 'b' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    ['/missing', /could not read the admin token file \/missing \(ENOENT\)/],
    ['/empty', /the admin token file \/empty is empty/],
    ['/two-lines', /\/two-lines must hold the token alone on one line, in visible ASCII characters/],
    ['/spaced', /\/spaced must hold the token alone on one line/],
    ['/long', /the admin token in \/long is 1025 characters long; the limit is 1024/],
  ])('says what is wrong with the file %s', async (path, message) => {
    const files = {
      '/empty': ' \n',
      '/two-lines': 'one\ntwo\n',
      '/spaced': 'a b',
      '/long': 'x'.repeat(1025),
    };
    const error = await resolve({ adminTokenFile: [path, 'cli'] }, files).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(message);
  });
});

describe("gridwire start's delivery batching window", () => {
  it('defaults to no window and batches of 10, as the construct does', async () => {
    expect(await parsed([])).toMatchObject({ deliveryBatchingWindow: 0, deliveryBatchSize: 10 });
  });

  it('takes both from flags or the environment', async () => {
    expect(await parsed(['--delivery-batching-window', '5', '--delivery-batch-size', '50'])).toMatchObject({
      deliveryBatchingWindow: 5,
      deliveryBatchSize: 50,
    });
    expect(
      await parsed([], { [LOCAL_ENV.deliveryBatchingWindow]: '0', [LOCAL_ENV.deliveryBatchSize]: '3' }),
    ).toMatchObject({ deliveryBatchingWindow: 0, deliveryBatchSize: 3 });
  });

  it('refuses values out of range, and a batch above 10 without a window', async () => {
    await expect(parsed(['--delivery-batching-window', '301'])).rejects.toThrow(/0 to 300/);
    await expect(parsed(['--delivery-batch-size', '101'])).rejects.toThrow(/1 to 100/);
    expect(() => checkDeliveryBatching({ deliveryBatchingWindow: 0, deliveryBatchSize: 50 })).toThrow(
      new CliError('--delivery-batch-size must be at most 10 when --delivery-batching-window is 0 (got 50)'),
    );
    expect(() => checkDeliveryBatching({ deliveryBatchingWindow: 1, deliveryBatchSize: 50 })).not.toThrow();
  });
});

describe("gridwire start's portal flags", () => {
  const BRANDING = {
    title: 'Acme events',
    logoUrl: 'https://cdn.acme.example/logo.svg',
    accentColor: '#0a7cff',
  };

  it('leave the portal unframed, with its own look, by default', async () => {
    const options = await parsed([]);
    expect(options.portalFrameAncestors).toBeUndefined();
    expect(options.portalBranding).toBeUndefined();
  });

  it('take origins separated by spaces or commas, over words and repeats, or from the variable', async () => {
    const origins = ['https://app.acme.example', 'https://*.acme.example:8443', 'https://b.example'];
    expect(
      await parsed([
        '--portal-frame-ancestors',
        'https://app.acme.example',
        'https://*.acme.example:8443',
        '--portal-frame-ancestors',
        'https://b.example',
      ]),
    ).toMatchObject({ portalFrameAncestors: origins });
    expect(await parsed(['--portal-frame-ancestors', origins.join(',')])).toMatchObject({
      portalFrameAncestors: origins,
    });
    expect(await parsed([], { [ENV.portalFrameAncestors]: origins.join(' ') })).toMatchObject({
      portalFrameAncestors: origins,
    });
    expect(
      await parsed([], { [ENV.portalFrameAncestors]: ' https://a.example , https://b.example ' }),
    ).toMatchObject({ portalFrameAncestors: ['https://a.example', 'https://b.example'] });
    expect(
      await parsed(['--portal-frame-ancestors', 'https://cli.example'], {
        [ENV.portalFrameAncestors]: 'https://env.example',
      }),
    ).toMatchObject({ portalFrameAncestors: ['https://cli.example'] });
  });

  it('take the branding as JSON, from the flag or the variable', async () => {
    expect(await parsed(['--portal-branding', JSON.stringify(BRANDING)])).toMatchObject({
      portalBranding: BRANDING,
    });
    expect(await parsed([], { [ENV.portalBranding]: '{"title":"Acme"}' })).toMatchObject({
      portalBranding: { title: 'Acme' },
    });
  });

  it.each([
    [
      ['--portal-frame-ancestors', 'http://app.acme.example'],
      /--portal-frame-ancestors\[0\]: 'http:\/\/app.acme.example' is not an https origin/,
    ],
    [
      ['--portal-frame-ancestors', 'https://a.example,https://a.example/embed'],
      /--portal-frame-ancestors\[1\]: /,
    ],
    [['--portal-branding', '{title: Acme}'], /--portal-branding must be a JSON object such as/],
    [
      ['--portal-branding', JSON.stringify({ title: 'Acme '.repeat(17) })],
      /--portal-branding.title: at most 80 characters/,
    ],
    [
      ['--portal-branding', '{"logoUrl":"http://cdn.acme.example/logo.svg"}'],
      /--portal-branding.logoUrl: an https URL/,
    ],
    [['--portal-branding', '{"accentColor":"blue"}'], /--portal-branding.accentColor: a colour as #rrggbb/],
    [['--portal-branding', '{"colour":"#000000"}'], /--portal-branding/],
    [['--portal-branding', '"Acme"'], /--portal-branding/],
  ])('refuse %j, naming the flag', async (args, message) => {
    await expect(parsed(args)).rejects.toThrow(message);
  });

  it('refuse a bad value from the variable, naming it', async () => {
    await expect(parsed([], { [ENV.portalFrameAncestors]: 'app.acme.example' })).rejects.toThrow(
      new RegExp(`from env '${ENV.portalFrameAncestors}' is invalid\\. --portal-frame-ancestors\\[0\\]: `),
    );
    await expect(parsed([], { [ENV.portalBranding]: '{"accentColor":"#abc"}' })).rejects.toThrow(
      new RegExp(`from env '${ENV.portalBranding}' is invalid\\. --portal-branding.accentColor: `),
    );
  });
});

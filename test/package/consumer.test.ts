/**
 * The package as a team gets it: `npm run package` builds and packs it, a fresh CDK app in a
 * temporary directory installs the tarball beside aws-cdk-lib and constructs (offline, from npm's
 * cache, at this repository's locked versions: see `consumer-lock.ts`), type-checks its code
 * against the package's declarations, and synthesizes a stack with two pipelines and a topic, a
 * subscription and a namespace declared in code, with the real `cdk` command line and real
 * bundling (the package's prebuilt function code). The installed command line answers, and the
 * installed local stack delivers an event to a webhook written with the package's client pieces.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPackage, type PackedTarball, packPackage, sizeLine } from '../../scripts/build-package';
import { CONSOLE_BUNDLE_FILES } from '../../shared/console/files';
import { consumerLockfile, type Lockfile, type PackedPackage } from '../support/consumer-lock';
import { deployProblems, type TemplateJson } from '../support/deploy-rules';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');

let app: string;
let packed: PackedTarball;
let install: { status: number | null; output: string };
let template: {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Outputs: Record<string, unknown>;
};
let templateText: string;

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 300_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function mustRun(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const result = run(command, args, cwd, env);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.output}`);
  return result.output;
}

const APP_SOURCE = `import { App, Stack } from 'aws-cdk-lib';
import { DeliveryPipeline } from 'gridwire';

const app = new App();
const stack = new Stack(app, 'Consumer', { env: { account: '123456789012', region: 'eu-west-1' } });

const events = new DeliveryPipeline(stack, 'Events', {});
const orders = events.addTopic('orders');
orders.addSubscription('billing', {
  endpointUrl: 'https://billing.example.com/hook',
  includedEventTypes: ['Order.Created'],
  maxDeliveryAttempts: 10,
});
events.addNamespace('shop').addTopic('carts', { eventRetentionInDays: 2 })
  .addSubscription('analytics', { endpointUrl: 'https://analytics.example.com/hook', maxDeliveryCount: 5 });

// A second pipeline in the same stack keeps its outputs, metrics and names apart.
new DeliveryPipeline(stack, 'Audit', { outputPrefix: 'Audit' });
app.synth();
`;

/** Starts the installed local stack, delivers one event to a webhook made with gridwire/client. */
const LOCAL_SOURCE = `import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSasToken, validationAnswer } from 'gridwire/client';
import { startLocalStack } from 'gridwire/local';

let delivered;
const arrived = new Promise((resolve) => { delivered = resolve; });
const webhook = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => { body += chunk; });
  request.on('end', () => {
    const events = JSON.parse(body);
    const answer = validationAnswer(events);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(answer === undefined ? '' : JSON.stringify(answer));
    if (answer === undefined) delivered(events);
  });
});
await new Promise((resolve) => webhook.listen(0, '127.0.0.1', resolve));
const hook = 'http://127.0.0.1:' + webhook.address().port + '/hook';

const stack = await startLocalStack({ dataDir: mkdtempSync(join(tmpdir(), 'gridwire-consumer-')), port: 0, logLevel: 'SILENT' });
try {
  const admin = (method, path, body) => fetch(stack.apiUrl + path, {
    method, headers: { authorization: 'Bearer ' + stack.adminToken, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (response) => {
    if (!response.ok) throw new Error(method + ' ' + path + ': ' + response.status + ' ' + await response.text());
    return response.json();
  });
  await admin('PUT', '/admin/topics/orders', { properties: { inputSchema: 'EventGridSchema' } });
  const { key1 } = await admin('POST', '/admin/topics/orders/listKeys');
  await admin('PUT', '/admin/topics/orders/eventSubscriptions/hook', {
    properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl: hook } } },
  });
  const publishUrl = stack.apiUrl + '/topics/orders/api/events';
  const published = await fetch(publishUrl, {
    method: 'POST',
    headers: { 'aeg-sas-token': createSasToken(publishUrl, key1, new Date(Date.now() + 3_600_000)), 'content-type': 'application/json' },
    body: JSON.stringify([{ id: 'order-1', subject: 'orders/1', eventType: 'Order.Created', eventTime: new Date().toISOString(), data: { total: 42 }, dataVersion: '1.0' }]),
  });
  if (published.status !== 200) throw new Error('publish answered ' + published.status + ' ' + await published.text());
  const events = await arrived;
  console.log(JSON.stringify({ delivered: events.map((event) => event.id) }));
  const consoleFiles = ['', '/app.js', '/common.js', '/log.js', '/dead-letters.js', '/style.css', '/vendor/preact.js', '/vendor/hooks.js', '/vendor/htm.js', '/vendor/openapi-fetch.js'];
  const served = await Promise.all(
    consoleFiles.map(async (file) => (await fetch(stack.apiUrl + '/console' + file)).status),
  );
  console.log(JSON.stringify({ console: served }));
} finally {
  await stack.stop();
  webhook.close();
}
`;

/**
 * The `cdk.json` docs/packaging.md tells a new app to write (installing before the package is
 * published): the app here synthesizes with it, so the guide's command is the one tested.
 */
function guideCdkJson(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'packaging.md'), 'utf8');
  const written = /^echo '(\{"app": .*\})' > cdk\.json$/m.exec(doc);
  if (written === null)
    throw new Error('docs/packaging.md writes no cdk.json (echo \'{"app": ...}\' > cdk.json)');
  return written[1] as string;
}

/**
 * The README's deploy example as a reader copies it: the `ts` block of its "Deploy" section, and
 * the `cdk.json` its steps write (which must be the packaging guide's).
 */
function readmeDeployExample(): { source: string; cdkJson: string; steps: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /^## Deploy\n([\s\S]*?)^## /m.exec(readme)?.[1];
  const source = section === undefined ? undefined : /^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1];
  const cdkJson =
    section === undefined ? undefined : /^echo '(\{"app": .*\})' > cdk\.json$/m.exec(section)?.[1];
  if (source === undefined || cdkJson === undefined) {
    throw new Error('README.md\'s "Deploy" section has no ts block or no cdk.json line');
  }
  // Its shell blocks, in order: what a reader runs.
  const steps = [...(section ?? '').matchAll(/^```bash\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1])
    .join('\n');
  return { source, cdkJson, steps };
}

let readmeTemplate: TemplateJson;
let readmeSynthOutput: string;

beforeAll(() => {
  buildPackage();
  packed = packPackage();
  app = mkdtempSync(join(tmpdir(), 'gridwire-app-'));
  const manifest = JSON.parse(readFileSync(join(ROOT, 'dist', 'package', 'package.json'), 'utf8'));
  const repoLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
  const versionOf = (name: string) => repoLock.packages[`node_modules/${name}`]?.version as string;
  const appDependencies = { 'aws-cdk-lib': versionOf('aws-cdk-lib'), constructs: versionOf('constructs') };
  const tarball: PackedPackage = { spec: `file:${packed.tarball}`, integrity: packed.integrity, manifest };
  const lock = consumerLockfile(repoLock, 'consumer-app', appDependencies, tarball);
  const pkg = {
    name: 'consumer-app',
    private: true,
    type: 'module',
    dependencies: lock.packages['']?.dependencies,
  };
  writeFileSync(join(app, 'package.json'), JSON.stringify(pkg, null, 2));
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify(lock, null, 2));
  writeFileSync(join(app, 'app.ts'), APP_SOURCE);
  writeFileSync(join(app, 'cdk.json'), guideCdkJson());
  writeFileSync(join(app, 'local.mjs'), LOCAL_SOURCE);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        target: 'es2022',
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['app.ts'],
    }),
  );
  install = run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], app);
  if (install.status !== 0) throw new Error(`npm ci in the app failed:\n${install.output}`);
  mustRun(join(BIN, 'cdk'), ['synth', '--output', 'cdk.out', '--quiet'], app, {
    CDK_DISABLE_VERSION_CHECK: 'true',
  });
  templateText = readFileSync(join(app, 'cdk.out', 'Consumer.template.json'), 'utf8');
  template = JSON.parse(templateText);
  // The README's example, synthesized in the same app as its cdk.json runs an app.
  const readme = readmeDeployExample();
  writeFileSync(join(app, 'readme-app.ts'), readme.source);
  const command = (JSON.parse(readme.cdkJson) as { app: string }).app.replace(/\bapp\.ts\b/, 'readme-app.ts');
  readmeSynthOutput = mustRun(
    join(BIN, 'cdk'),
    ['synth', '--app', command, '--output', 'cdk.out.readme', '--quiet'],
    app,
    { CDK_DISABLE_VERSION_CHECK: 'true' },
  );
  readmeTemplate = JSON.parse(readFileSync(join(app, 'cdk.out.readme', 'Events.template.json'), 'utf8'));
}, 600_000);

afterAll(() => {
  if (app !== undefined) rmSync(app, { recursive: true, force: true });
});

/** A Lambda function's code key (its asset's hash and `.zip`). */
const codeKey = (fn: { Properties?: Record<string, unknown> }): string =>
  (fn.Properties as { Code: { S3Key: string } }).Code.S3Key;

const resourcesOfType = (type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

describe('the packed package', () => {
  it('holds the compiled code, declarations, function bundles, README and LICENSE, and no tests, bench or CI', () => {
    const listing = mustRun('tar', ['-tzf', packed.tarball], ROOT).split('\n').filter(Boolean);
    const files = listing.map((file) => file.replace(/^package\//, ''));
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'bin/gridwire.js',
        'infra/index.js',
        'infra/index.d.ts',
        'cli/program.d.ts',
        'local/stack.d.ts',
        'shared/client/index.d.ts',
        'lambda/PublishFunction/index.js',
        'lambda/DeliveryFunction/index.js',
        'lambda/ManagementFunction/index.js',
        'lambda/DeadLetterFunction/index.js',
        'console/index.html',
        'console/app.js',
        'console/common.js',
        'console/log.js',
        'console/dead-letters.js',
        'console/style.css',
      ]),
    );
    expect(
      files.filter(
        (file) =>
          /^(test|bench|\.ci|scripts|docs|node_modules)\/|\.ts$/.test(file) && !file.endsWith('.d.ts'),
      ),
    ).toEqual([]);
    expect(packed.size).toBeLessThan(10 * 1024 * 1024);
  });

  it("is the size docs/packaging.md gives, within 10%, so the guide's figures can't go stale", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'packaging.md'), 'utf8');
    const quoted = /\*\*([\d.]+) MB packed,\s+([\d.]+) MB\s+unpacked,\s+(\d+) files\*\*/.exec(doc);
    expect(quoted).not.toBeNull();
    const [packedMb, unpackedMb, files] = (quoted as RegExpExecArray).slice(1).map(Number) as [
      number,
      number,
      number,
    ];
    const within = (built: number, documented: number) => Math.abs(built - documented) / documented;
    const drift = {
      packed: within(packed.size / 1_000_000, packedMb),
      unpacked: within(packed.unpackedSize / 1_000_000, unpackedMb),
      files: within(packed.files, files),
    };
    const stale = Object.entries(drift).filter(([, share]) => share > 0.1);
    // On failure, the line to put in the guide.
    expect(
      stale.length === 0 ? 'current' : `stale (${stale.map(([name]) => name)}); built: ${sizeLine(packed)}`,
    ).toBe('current');
  });

  it("rehearses the README's deploy: its example, built from the tarball as its steps say, passes every deploy rule", () => {
    expect(readmeDeployExample().cdkJson).toBe(guideCdkJson());
    // The steps a new account needs, in order: the package from the tarball (it is not on the
    // registry), then bootstrap, then deploy.
    const steps = readmeDeployExample().steps;
    expect(steps).toMatch(/npm run package/);
    expect(steps).toMatch(/npm install \S+\/dist\/gridwire-[\d.]+\.tgz aws-cdk-lib constructs/);
    expect(steps).not.toMatch(/npm install gridwire\b/);
    expect(steps.indexOf('cdk bootstrap')).toBeGreaterThan(-1);
    expect(steps.indexOf('cdk bootstrap')).toBeLessThan(steps.indexOf('cdk deploy'));
    expect(deployProblems(readmeTemplate)).toEqual([]);
    // Its subscription's endpoint (a placeholder) is validated without holding up the stack.
    const [subscription] = Object.values(readmeTemplate.Resources).filter(
      (resource) => resource.Type === 'Custom::GridwireSubscription',
    );
    expect(subscription?.Properties).toMatchObject({ Validation: 'async' });
    expect(readmeSynthOutput).not.toMatch(/reserved concurrency/);
    // The alarm e-mail it gives is subscribed to the alarm topic.
    expect(
      Object.values(readmeTemplate.Resources).filter(
        (resource) => resource.Type === 'AWS::SNS::Subscription' && resource.Properties?.Protocol === 'email',
      ),
    ).toHaveLength(1);
  });

  it('installs on this Node with no engine warning, and its engines say the Node it needs', () => {
    expect(install.output).not.toMatch(/EBADENGINE/);
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', 'gridwire', 'package.json'), 'utf8'));
    expect(installed.engines).toEqual({ node: '>=22.13' });
    expect(installed.peerDependencies).toEqual({
      'aws-cdk-lib': expect.any(String),
      constructs: expect.any(String),
    });
    expect(Object.keys(installed.dependencies)).not.toEqual(expect.arrayContaining(['tsx']));
    expect(existsSync(join(app, 'node_modules', 'esbuild'))).toBe(false);
  });

  it("type-checks the app against the package's declarations", () => {
    expect(() => mustRun(join(BIN, 'tsc'), ['-p', '.'], app)).not.toThrow();
    writeFileSync(
      join(app, 'app.ts'),
      APP_SOURCE.replace('maxDeliveryAttempts: 10', "maxDeliveryAttempts: 'ten'"),
    );
    const wrong = run(join(BIN, 'tsc'), ['-p', '.'], app);
    writeFileSync(join(app, 'app.ts'), APP_SOURCE);
    expect(wrong.status).not.toBe(0);
    expect(wrong.output).toMatch(/app\.ts\(\d+,\d+\): error TS2322/);
  });

  it('runs its command line with node', () => {
    const help = mustRun(join(app, 'node_modules', '.bin', 'gridwire'), ['--help'], app);
    for (const command of ['start', 'webhook', 'parked', 'deadletters', 'health', 'status']) {
      expect(help).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });

  it('delivers an event through the installed local stack to a webhook made with gridwire/client, and serves the console', () => {
    const local = mustRun('node', ['local.mjs'], app);
    expect(local).toContain('{"delivered":["order-1"]}');
    // The console's page and the preact, htm and openapi-fetch modules, found as the installed package lays them out.
    expect(local).toContain('{"console":[200,200,200,200,200,200,200,200,200,200]}');
  });
});

describe("the consumer app's synthesized stack", () => {
  it('has both pipelines, each with its four functions, whose code is the prebuilt bundles (the management function’s with the console)', () => {
    const functions = resourcesOfType('AWS::Lambda::Function').filter(([id]) =>
      /Function[0-9A-F]{8}$/.test(id),
    );
    const gridwire = functions.filter(([id]) =>
      /^(Events|Audit)(Publish|Management|Delivery|DeadLetter)Function/.test(id),
    );
    expect(gridwire).toHaveLength(8);
    const assets = JSON.parse(readFileSync(join(app, 'cdk.out', 'Consumer.assets.json'), 'utf8')) as {
      files: Record<string, { source: { path: string } }>;
    };
    for (const [id, fn] of gridwire) {
      const key = codeKey(fn).replace(/\.zip$/, '');
      const asset = assets.files[key];
      expect(asset).toBeDefined();
      const dir = join(app, 'cdk.out', asset?.source.path as string);
      expect(statSync(join(dir, 'index.js')).size).toBeGreaterThan(100_000);
      // The management function serves the console's page and files from console/ beside it.
      const management = id.includes('ManagementFunction');
      expect([id, readdirSync(dir).sort()]).toEqual([
        id,
        management ? ['console', 'index.js', 'index.js.map'] : ['index.js', 'index.js.map'],
      ]);
      if (management) {
        const files = readdirSync(join(dir, 'console'), { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => join(entry.parentPath, entry.name).slice(join(dir, 'console').length + 1));
        expect(files.sort()).toEqual([...CONSOLE_BUNDLE_FILES].sort());
      }
    }
    // The two pipelines run the same code: one bundle per function, not per pipeline.
    const keys = new Set(gridwire.map(([, fn]) => codeKey(fn)));
    expect(keys.size).toBe(4);
  });

  it('declares the topic, the subscription and the namespace as custom resources, with no key in the template', () => {
    const kinds = Object.values(template.Resources)
      .map((resource) => resource.Type)
      .filter((type) => type.startsWith('Custom::Gridwire'))
      .sort();
    expect(kinds).toEqual([
      'Custom::GridwireNamespace',
      'Custom::GridwireNamespaceSubscription',
      'Custom::GridwireNamespaceTopic',
      'Custom::GridwireSubscription',
      'Custom::GridwireTopic',
    ]);
    const [, subscription] = resourcesOfType('Custom::GridwireSubscription')[0] ?? [];
    expect(subscription?.Properties).toMatchObject({
      Kind: 'Subscription',
      Topic: 'orders',
      Subscription: 'billing',
    });
    expect(JSON.parse(subscription?.Properties?.Body as string)).toMatchObject({
      properties: {
        destination: { properties: { endpointUrl: 'https://billing.example.com/hook' } },
        filter: { includedEventTypes: ['Order.Created'] },
        retryPolicy: { maxDeliveryAttempts: 10 },
      },
    });
    expect(templateText).not.toMatch(/"key[12]"/);
  });

  it("keeps the two pipelines' outputs apart", () => {
    const outputs = Object.keys(template.Outputs);
    expect(outputs.filter((id) => id.startsWith('Audit')).length).toBeGreaterThan(3);
    expect(outputs.filter((id) => !id.startsWith('Audit')).length).toBe(
      outputs.filter((id) => id.startsWith('Audit')).length,
    );
  });
});

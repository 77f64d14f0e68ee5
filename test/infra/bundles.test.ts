/**
 * The function bundles `cdk synth` produces load under plain Node.js and export a handler: the
 * ESM-only dependencies (middy) and the AWS SDK bundle cleanly into what Lambda runs. The
 * management function's bundle carries the console's page and files, where it serves them from.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { BUNDLE_CONSOLE_DIR } from '../../infra/function-bundle';
import { GridwireStack } from '../../infra/gridwire-stack';
import { FUNCTIONS } from '../../shared/config/resources';
import { CONSOLE_BUNDLE_FILES, consoleFiles, consoleSourcePaths } from '../../shared/console/files';

const ROOT = join(__dirname, '..', '..');

const outdir = mkdtempSync(join(tmpdir(), 'gridwire-synth-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

it('bundles every function into a module that exports `handler`, the console beside the management function', async () => {
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  new GridwireStack(app, 'Bundled');
  const assembly = app.synth();
  const template = JSON.parse(readFileSync(join(assembly.directory, 'Bundled.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
  };
  const functions = Object.entries(template.Resources).filter(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  );
  const bundled = functions.filter(([id]) =>
    Object.values(FUNCTIONS).some((definition) => id.includes(definition.id)),
  );
  expect(bundled).toHaveLength(Object.keys(FUNCTIONS).length);

  for (const [id, resource] of bundled) {
    const assetPath = resource.Metadata?.['aws:asset:path'];
    expect(assetPath).toBeDefined();
    const entry = join(assembly.directory, assetPath ?? '', 'index.js');
    const exported = execFileSync(
      process.execPath,
      ['-e', `process.stdout.write(typeof require(${JSON.stringify(entry)}).handler)`],
      {
        encoding: 'utf8',
      },
    );
    expect([id, exported]).toEqual([id, 'function']);

    // The console's files: in the management function's bundle, and no other.
    const consoleDir = join(assembly.directory, assetPath ?? '', BUNDLE_CONSOLE_DIR);
    const management = id.includes(FUNCTIONS.management.id);
    expect([id, existsSync(consoleDir)]).toEqual([id, management]);
    if (!management) continue;
    const sources = consoleSourcePaths(ROOT);
    expect(Object.keys(sources).sort()).toEqual([...CONSOLE_BUNDLE_FILES].sort());
    for (const name of CONSOLE_BUNDLE_FILES) {
      expect([name, existsSync(join(consoleDir, name))]).toEqual([name, true]);
      expect([name, statSync(join(consoleDir, name)).size > 0]).toEqual([name, true]);
    }
    // The vendor modules are the packages' own files, copied as they ship.
    for (const name of CONSOLE_BUNDLE_FILES.filter((file) => file.startsWith('vendor/'))) {
      expect([name, readFileSync(join(consoleDir, name), 'utf8')]).toEqual([
        name,
        readFileSync(sources[name] as string, 'utf8'),
      ]);
    }
    const page = await consoleFiles(consoleDir).read('index.html');
    expect(page?.text).toBe(readFileSync(join(ROOT, 'console', 'index.html'), 'utf8'));
    expect(page?.contentType).toMatch(/^text\/html/);
  }
}, 60_000);

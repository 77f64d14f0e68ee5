/**
 * The function bundles `cdk synth` produces load under plain Node.js and export a handler: the
 * ESM-only dependencies (middy) and the AWS SDK bundle cleanly into what Lambda runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { GridwireStack } from '../../infra/gridwire-stack';
import { FUNCTIONS } from '../../shared/config/resources';

const outdir = mkdtempSync(join(tmpdir(), 'gridwire-synth-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

it('bundles every function into a module that exports `handler`', () => {
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
  }
}, 60_000);

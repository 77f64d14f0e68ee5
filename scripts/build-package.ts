/**
 * Builds the gridwire npm package into `dist/package` and packs it (`npm run package`):
 *
 * 1. compiles `infra`, `functions`, `shared`, `local`, `cli` and `bin` to CommonJS with their
 *    declarations (`tsconfig.build.json`; this repository's own CDK app and its cdk-nag checks
 *    stay out);
 * 2. bundles each Lambda function with esbuild into `lambda/<function id>/`, where the construct
 *    takes its code from (`infra/function-bundle.ts`): a consumer's synth needs no bundler; the
 *    management function's bundle also holds the console's page and files (`console/`), which it
 *    serves on AWS;
 * 3. writes the package's own `package.json` (from this one: no scripts, no development
 *    dependencies, no Node binaries; aws-cdk-lib and constructs as peers), README and LICENSE,
 *    and copies the console's page (`console/`, served by the local stack);
 * 4. refuses a package whose compiled code requires a module it does not declare;
 * 5. packs it to `dist/gridwire-<version>.tgz` and reports its size.
 *
 * `--no-pack` stops after step 4.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { bundleFunction, prebuiltBundleDir } from '../infra/function-bundle';
import { FUNCTIONS } from '../shared/config/resources';

const ROOT = join(__dirname, '..');
const DIST = join(ROOT, 'dist');
const PACKAGE = join(DIST, 'package');

/** Modules the construct's users install beside it, as the README's `npm install` line says. */
const PEERS = ['aws-cdk-lib', 'constructs'];
/** This repository's tools, not needed by the compiled package. */
const NOT_SHIPPED = ['tsx'];

/** What users import: the constructs, the command line, the local stack, the client pieces. */
const ENTRY_POINTS = {
  '.': 'infra/index',
  './cli': 'cli/program',
  './local': 'local/stack',
  './client': 'shared/client/index',
} as const;

interface RootManifest {
  name: string;
  version: string;
  description: string;
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
}

function run(command: string, args: string[], cwd = ROOT): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status})`);
  return result.stdout;
}

function manifest(root: RootManifest) {
  const pick = (names: (name: string) => boolean) =>
    Object.fromEntries(Object.entries(root.dependencies).filter(([name]) => names(name)));
  const files = (path: string) => ({ types: `./${path}.d.ts`, default: `./${path}.js` });
  return {
    name: root.name,
    version: root.version,
    description: root.description,
    license: root.license,
    keywords: ['aws', 'cdk', 'webhooks', 'event-grid', 'events', 'sqs', 'lambda'],
    engines: root.engines,
    main: `${ENTRY_POINTS['.']}.js`,
    types: `${ENTRY_POINTS['.']}.d.ts`,
    exports: {
      ...Object.fromEntries(Object.entries(ENTRY_POINTS).map(([entry, path]) => [entry, files(path)])),
      './package.json': './package.json',
    },
    bin: { gridwire: 'bin/gridwire.js' },
    files: ['infra', 'functions', 'shared', 'local', 'cli', 'bin', 'lambda', 'console'],
    dependencies: pick((name) => !PEERS.includes(name) && !NOT_SHIPPED.includes(name)),
    peerDependencies: pick((name) => PEERS.includes(name)),
  };
}

function* javascriptFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* javascriptFiles(path);
    else if (entry.name.endsWith('.js')) yield path;
  }
}

/** The package each bare `require` or `import()` names (`@scope/name`, `name`), but Node's own. */
function requiredPackages(source: string): string[] {
  const names = [...source.matchAll(/\b(?:require|import)\(\s*["']([^"'./][^"']*)["']\s*\)/g)].map(
    ([, specifier]) => specifier as string,
  );
  return names
    .filter((name) => !name.startsWith('node:') && !builtinModules.includes(name))
    .map((name) =>
      name
        .split('/')
        .slice(0, name.startsWith('@') ? 2 : 1)
        .join('/'),
    );
}

/** Throws naming every compiled file that requires a package the manifest does not declare. */
function checkDeclaredModules(declared: Set<string>): void {
  const missing: string[] = [];
  for (const file of javascriptFiles(PACKAGE)) {
    if (file.startsWith(join(PACKAGE, 'lambda'))) continue; // bundles require nothing outside
    for (const name of requiredPackages(readFileSync(file, 'utf8'))) {
      // esbuild is loaded only when running from the TypeScript sources (function-bundle.ts).
      if (!declared.has(name) && name !== 'esbuild') missing.push(`${relative(PACKAGE, file)}: ${name}`);
    }
  }
  if (missing.length > 0) {
    throw new Error(`the compiled package requires modules it does not declare:\n  ${missing.join('\n  ')}`);
  }
}

export function buildPackage(): void {
  rmSync(PACKAGE, { recursive: true, force: true });
  run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json']);
  for (const definition of Object.values(FUNCTIONS)) {
    bundleFunction(definition, prebuiltBundleDir(definition, PACKAGE), ROOT);
  }
  // The command runs on node in the package (tsx runs it from the sources here).
  const bin = join(PACKAGE, 'bin', 'gridwire.js');
  writeFileSync(bin, readFileSync(bin, 'utf8').replace(/^#!.*\n/, '#!/usr/bin/env node\n'));
  chmodSync(bin, 0o755);
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as RootManifest;
  const pkg = manifest(root);
  writeFileSync(join(PACKAGE, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  // The console's page, as the local stack serves it (`local/console.ts` reads it beside `local/`).
  cpSync(join(ROOT, 'console'), join(PACKAGE, 'console'), { recursive: true });
  copyFileSync(join(ROOT, 'LICENSE'), join(PACKAGE, 'LICENSE'));
  copyFileSync(join(ROOT, 'docs', 'package-readme.md'), join(PACKAGE, 'README.md'));
  checkDeclaredModules(new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]));
}

export interface PackedTarball {
  tarball: string;
  integrity: string;
  size: number;
  unpackedSize: number;
  files: number;
}

/**
 * The size line `npm run package` prints, in npm's own units (1 MB = 1,000,000 bytes, as
 * `npm pack` and the registry show sizes): docs/packaging.md quotes it, and the package test
 * checks the quote against the build.
 */
export function sizeLine(packed: PackedTarball): string {
  const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${mb(packed.size)} packed, ${mb(packed.unpackedSize)} unpacked, ${packed.files} files`;
}

/** Packs `dist/package` into `dist/`; the tarball's path, integrity, size and file count. */
export function packPackage(): PackedTarball {
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', DIST], PACKAGE)) as [
    { filename: string; integrity: string; size: number; unpackedSize: number; entryCount: number },
  ];
  return {
    tarball: join(DIST, packed.filename),
    integrity: packed.integrity,
    size: packed.size,
    unpackedSize: packed.unpackedSize,
    files: packed.entryCount,
  };
}

if (require.main === module) {
  buildPackage();
  if (!process.argv.includes('--no-pack')) {
    const packed = packPackage();
    console.log(`${relative(ROOT, packed.tarball)}: ${sizeLine(packed)}`);
  }
}

/**
 * Where each function's deployed code comes from, and the one set of esbuild options that makes it.
 *
 * - In the published package, the code was bundled when the package was built (`npm run package`)
 *   and sits beside the compiled construct in `lambda/<function id>/`: a consumer's `cdk synth`
 *   only zips that directory. It needs neither esbuild, nor Docker, nor this repository's lockfile,
 *   and the code that runs is the code this repository tested, whatever versions the consumer's
 *   own dependencies resolve to.
 * - Run from the TypeScript sources (this repository), the code is bundled at synth time with the
 *   same options by the local esbuild, unless the synth skips bundling (`bundlingStacks`, as the
 *   template tests do).
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { FUNCTIONS, type FunctionDefinition } from '../shared/config/resources';
import { consoleSourcePaths } from '../shared/console/files';

/** The handler every bundle exports, as Lambda names it (`index.js`, export `handler`). */
export const BUNDLE_HANDLER = 'index.handler';

/** The folder of the prebuilt bundles, relative to the package's root. */
export const BUNDLES_DIR = 'lambda';

/**
 * The esbuild options of every function. The AWS SDK is bundled too: the tested versions run.
 * The source map carries positions, not the sources: enough for stack traces that name the
 * TypeScript file and line (`--enable-source-maps`), at a third of the size.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
  // shared/console/files.ts finds the console's vendor modules with require.resolve only when run
  // from the sources; a bundle reads them from the console/ folder bundling puts beside it.
  logOverride: { 'require-resolve-not-external': 'silent' },
} as const;

/** The root of the sources or of the installed package (the folder above `infra/`). */
const ROOT = path.join(__dirname, '..');

/** The folder beside a bundle's `index.js` holding the console's files (management only). */
export const BUNDLE_CONSOLE_DIR = 'console';

/**
 * Bundles one function's handler into `outDir/index.js` (and its source map), with esbuild; the
 * management function's bundle also carries the console's page and files in `outDir/console/`,
 * where it serves them from (`consoleFiles` in shared/console/files.ts).
 */
export function bundleFunction(definition: FunctionDefinition, outDir: string, root = ROOT): void {
  // Loaded only here: esbuild is a development dependency, absent from the package.
  const esbuild = require('esbuild') as typeof import('esbuild');
  esbuild.buildSync({
    ...BUNDLE_OPTIONS,
    entryPoints: [path.join(root, definition.entry)],
    outfile: path.join(outDir, 'index.js'),
    absWorkingDir: root,
  });
  if (definition.id === FUNCTIONS.management.id)
    copyConsoleFiles(path.join(outDir, BUNDLE_CONSOLE_DIR), root);
}

/**
 * Copies every file the console's page needs (`CONSOLE_BUNDLE_FILES`: `console/` and the vendor
 * modules) into `consoleDir`; throws naming any that is missing, since the page would fail
 * without it.
 */
function copyConsoleFiles(consoleDir: string, root: string): void {
  const sources = Object.entries(consoleSourcePaths(root));
  const missing = sources.filter(([, source]) => !existsSync(source));
  if (missing.length > 0) {
    throw new Error(
      `The management function's bundle needs the console's files, and these are missing: ${missing.map(([name, source]) => `${name} (${source})`).join(', ')}`,
    );
  }
  for (const [name, source] of sources) {
    const target = path.join(consoleDir, name);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(source, target);
  }
}

/** The directory holding a function's prebuilt bundle in the package. */
export const prebuiltBundleDir = (definition: FunctionDefinition, root = ROOT): string =>
  path.join(root, BUNDLES_DIR, definition.id);

/** The function's code: its prebuilt bundle when there is one, else bundled now from the sources. */
export function functionCode(definition: FunctionDefinition, root = ROOT): Code {
  const prebuilt = prebuiltBundleDir(definition, root);
  if (existsSync(path.join(prebuilt, 'index.js'))) return Code.fromAsset(prebuilt);
  const entry = path.join(root, definition.entry);
  if (!existsSync(entry)) {
    throw new Error(
      `Gridwire's ${definition.id} code is missing: neither ${path.join(prebuilt, 'index.js')} (the package's bundle) nor ${entry} (its source) exists; reinstall the gridwire package`,
    );
  }
  return Code.fromAsset(path.dirname(entry), {
    // The hash of what was bundled, so a change to any imported file (not only this folder)
    // deploys, and a synth that skips bundling does not read the sources at all.
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or throws (no Docker is needed or tried).
      image: DockerImage.fromRegistry('gridwire-bundles-locally'),
      // Part of the asset's cache key: every function bundles from the same folder with the same
      // options, so without its entry here they would all share the first one's bundle.
      command: ['esbuild', definition.entry],
      local: {
        tryBundle(outputDir: string): boolean {
          bundleFunction(definition, outputDir, root);
          return true;
        },
      },
    },
  });
}

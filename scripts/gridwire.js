#!/usr/bin/env node
// @ts-check
/**
 * `npm run gridwire -- <command>`: this repository's command line (`bin/gridwire.ts`), run by
 * node from one JavaScript bundle of it and of everything it imports from this repository (the
 * packages stay in node_modules), so that a call compiles no TypeScript.
 *
 * The bundle is never run stale. It lists every file it was built from with the time and size
 * each had when the build read it; before each run those files are looked at again (a stat each,
 * a few milliseconds for all of them), and when one changed or is gone, or this file or
 * `tsconfig.json` changed, the bundle is built again first (esbuild, about a second). An edit to
 * `cli/` or `shared/` is thus in the very next call. A build that fails (a syntax error) says why
 * and the call fails, as tsx would.
 *
 * `start` (what `npm start` runs) runs from the bundle too, for its memory rather than its speed:
 * tsx kept its compiler, the source maps of every module it compiled and, whenever a source had
 * changed, an esbuild process of its own alive for as long as the stack ran (about 40 MB in all,
 * and as much again for the `tsx` command's own process under the former `npm start`). The
 * emulator host, which the stack runs in a child process, is built beside the bundle
 * (`emulator-host.js`, declared to the bundle as `__gridwireEmulatorHost`) and run by node as it
 * is. Only modules `start --lambda name=module` names are compiled at run time: with that flag,
 * tsx is loaded first, so they may be TypeScript.
 *
 * The bundle lives in `node_modules/.cache/gridwire/` (`npm ci` removes it; the next call builds
 * it again). Each module in it sees the `__dirname` and `__filename` of its source file, so the
 * files it reads beside itself (`package.json`, the console's page) are found as from the
 * sources.
 */

const { existsSync, mkdirSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve, sep } = require('node:path');

const ROOT = resolve(__dirname, '..');
const ENTRY = join(ROOT, 'bin', 'gridwire.ts');
const CACHE = join(ROOT, 'node_modules', '.cache', 'gridwire');
const BUNDLE = join(CACHE, 'cli.js');
/** V8's compiled code of the bundle and the packages it loads, kept between calls (Node's compile cache). */
const COMPILE_CACHE = join(CACHE, 'compiled');
/** Builds in one call at most, when sources keep changing while the bundle is built. */
const MAX_BUILDS = 3;

/**
 * A file as the bundle was built from it: its path from the repository's root (`/`-separated),
 * and its modification time (ms) and size when the build read it.
 * @typedef {{ path: string, mtimeMs: number, size: number }} Input
 */
/** @typedef {{ inputs: Input[] }} Manifest */
/** @typedef {{ manifest: Manifest, main: () => void }} Bundle */
/** @typedef {(path: string) => { mtimeMs: number, size: number } | undefined} Stat */

/** @type {Stat} */
function statOf(path) {
  try {
    const { mtimeMs, size } = statSync(path);
    return { mtimeMs, size };
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return undefined;
    throw error;
  }
}

const posixPath = (/** @type {string} */ path) => path.split(sep).join('/');

/**
 * The inputs of a bundle that are no longer as it was built from them (changed, or gone).
 * @param {Manifest} manifest
 * @param {string} [root]
 * @param {Stat} [stat]
 * @returns {string[]}
 */
function changedInputs(manifest, root = ROOT, stat = statOf) {
  return manifest.inputs
    .filter((input) => {
      const now = stat(join(root, input.path));
      return now === undefined || now.mtimeMs !== input.mtimeMs || now.size !== input.size;
    })
    .map((input) => input.path);
}

/**
 * The source with `__dirname` and `__filename` replaced by its own directory and path, found at
 * run time from where the bundle is (`__gridwireSource`, defined at the bundle's top).
 * @param {string} source
 * @param {string} file the source's path from the repository's root, `/`-separated
 */
function withSourcePaths(source, file) {
  return source.replace(/(?<![\w$.])__(dirname|filename)(?![\w$])/g, (_, which) =>
    which === 'dirname'
      ? `__gridwireSource(${JSON.stringify(posixPath(dirname(file)))})`
      : `__gridwireSource(${JSON.stringify(file)})`,
  );
}

const LOADERS = /** @type {const} */ ({ '.ts': 'ts', '.js': 'js', '.json': 'json' });

/**
 * Builds the bundle of `entry` into `bundle`, and the emulator host (`hostEntry`, if it exists)
 * into `emulator-host.js` beside it, recording each source's time and size as read, and those of
 * the files the build depends on besides: this file, which holds its options, and the TypeScript
 * options esbuild reads (`tsconfig.json`). One manifest, in the bundle, lists the sources of both.
 * @param {{ root?: string, entry?: string, bundle?: string, hostEntry?: string }} [paths]
 */
async function buildBundle({
  root = ROOT,
  entry = ENTRY,
  bundle = BUNDLE,
  hostEntry = join(root, 'local', 'emulator-host.ts'),
} = {}) {
  const esbuild = require('esbuild');
  const { readFile, stat } = require('node:fs/promises');
  /** @type {Map<string, Input>} */
  const read = new Map();
  const record = async (/** @type {string} */ path) => {
    const { mtimeMs, size } = await stat(path);
    const input = { path: posixPath(relative(root, path)), mtimeMs, size };
    read.set(input.path, input);
    return input;
  };
  // Recorded before the build starts: an edit while it runs makes the next call build again.
  for (const file of [__filename, join(root, 'tsconfig.json')]) {
    if (statOf(file) !== undefined) await record(file);
  }
  /** @type {import('esbuild').Plugin} */
  const sources = {
    name: 'gridwire-sources',
    setup(build) {
      build.onLoad({ filter: /\.(ts|js|json)$/ }, async ({ path }) => {
        // Time and size first: a change after this is seen by the next check.
        const { path: file } = await record(path);
        const source = await readFile(path, 'utf8');
        const extension = /** @type {keyof typeof LOADERS} */ (path.slice(path.lastIndexOf('.')));
        return {
          contents: extension === '.json' ? source : withSourcePaths(source, file),
          loader: LOADERS[extension],
        };
      });
    },
  };
  const host = existsSync(hostEntry) ? join(dirname(bundle), 'emulator-host.js') : undefined;
  const sourcePaths = `const __gridwireSource = (path) => require("node:path").join(__dirname, ${JSON.stringify(posixPath(relative(dirname(bundle), root)))}, path);`;
  /** @type {import('esbuild').BuildOptions} */
  const common = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    packages: 'external',
    // Beside the bundle, for stack traces: `NODE_OPTIONS=--enable-source-maps npm run gridwire ...`
    // names the TypeScript sources (not on by default: reading the map takes a tenth of a call).
    sourcemap: 'linked',
    sourcesContent: false,
    write: false,
    logLevel: 'silent',
    plugins: [sources],
  };
  /** The output's code and source map. @param {import('esbuild').BuildResult} result */
  const outputs = (result) => {
    const code = result.outputFiles?.find((file) => file.path.endsWith('.js'));
    const map = result.outputFiles?.find((file) => file.path.endsWith('.js.map'));
    if (code === undefined || map === undefined) throw new Error('esbuild wrote no bundle');
    return { code: code.text, map: map.text };
  };
  /** @type {{ code: string, map: string }} */
  let cli;
  /** @type {{ code: string, map: string } | undefined} */
  let hostOutputs;
  try {
    cli = outputs(
      await esbuild.build({
        ...common,
        stdin: {
          // The entry runs only when the launcher calls `main`, after the check.
          contents: `exports.main = () => require(${JSON.stringify(`./${posixPath(relative(root, entry))}`)});`,
          resolveDir: root,
          sourcefile: 'gridwire-launcher-entry.js',
          loader: 'js',
        },
        outfile: bundle,
        banner: {
          js:
            host === undefined
              ? sourcePaths
              : `${sourcePaths}\nconst __gridwireEmulatorHost = require("node:path").join(__dirname, "emulator-host.js");`,
        },
      }),
    );
    if (host !== undefined) {
      hostOutputs = outputs(
        await esbuild.build({
          ...common,
          entryPoints: [hostEntry],
          outfile: host,
          banner: { js: sourcePaths },
        }),
      );
    }
  } finally {
    // esbuild's service process would otherwise live as long as this one (a stack runs for hours).
    await esbuild.stop();
  }
  /** @type {Manifest} */
  const manifest = { inputs: [...read.values()].sort((a, b) => a.path.localeCompare(b.path)) };
  // Before the source map's comment, which ends the file.
  const text = cli.code.replace(
    /\/\/# sourceMappingURL=\S+\s*$/,
    (comment) => `module.exports.manifest = ${JSON.stringify(manifest)};\n${comment}`,
  );
  mkdirSync(dirname(bundle), { recursive: true });
  // Each written whole under another name, then renamed: a concurrent call reads one bundle or the
  // other. The bundle last: once it is there, so is the host it names.
  /** @type {Array<[string, string]>} */
  const files = [
    ...(host === undefined || hostOutputs === undefined
      ? []
      : /** @type {Array<[string, string]>} */ ([
          [`${host}.map`, hostOutputs.map],
          [host, hostOutputs.code],
        ])),
    [`${bundle}.map`, cli.map],
    [bundle, text],
  ];
  for (const [path, contents] of files) {
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, contents);
    renameSync(temporary, path);
  }
}

/**
 * The bundle, if there is one (loaded afresh); loading it runs nothing of the command line.
 * @returns {Bundle | undefined}
 */
function loadBundle(bundle = BUNDLE) {
  if (!existsSync(bundle)) return undefined;
  delete require.cache[bundle];
  return require(bundle);
}

/**
 * Whether the command is `start` with local functions (`--lambda name=module`), whose modules may
 * be TypeScript.
 * @param {readonly string[]} args the command line's words after the script
 */
const startsLocalFunctions = (args) =>
  args[0] === 'start' && args.slice(1).some((arg) => arg === '--lambda' || arg.startsWith('--lambda='));

/** Runs the command line (`process.argv`) from a bundle as new as its sources. */
async function runCommandLine() {
  if (startsLocalFunctions(process.argv.slice(2))) await import('tsx');
  require('node:module').enableCompileCache?.(COMPILE_CACHE);
  for (let builds = 0; builds <= MAX_BUILDS; builds += 1) {
    const bundle = loadBundle();
    if (bundle !== undefined && changedInputs(bundle.manifest).length === 0) {
      bundle.main();
      return;
    }
    if (builds === MAX_BUILDS) break;
    try {
      await buildBundle();
    } catch (error) {
      const { errors } = /** @type {{ errors?: import('esbuild').Message[] }} */ (error);
      if (errors === undefined) throw error;
      const esbuild = require('esbuild');
      const text = await esbuild.formatMessages(errors, { kind: 'error', color: process.stderr.isTTY });
      process.stderr.write(text.join(''));
      process.exit(1);
    }
  }
  throw new Error(`the sources kept changing while ${relative(ROOT, BUNDLE)} was built; try again`);
}

module.exports = { BUNDLE, buildBundle, changedInputs, loadBundle, startsLocalFunctions, withSourcePaths };

if (require.main === module) {
  runCommandLine().catch((/** @type {Error} */ error) => {
    console.error(`gridwire: ${error.stack ?? error.message}`);
    process.exit(1);
  });
}

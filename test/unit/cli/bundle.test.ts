/**
 * `npm run gridwire` runs the command line from a bundle (`scripts/gridwire.js`) that must never
 * be stale: it lists each source with the time and size it had when the build read it, and a
 * source changed or gone since means building again before the next run. Built here from a small
 * tree of its own, as the launcher builds `bin/gridwire.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';

interface Input {
  path: string;
  mtimeMs: number;
  size: number;
}
interface Launcher {
  BUNDLE: string;
  buildBundle(paths: { root: string; entry: string; bundle: string }): Promise<void>;
  changedInputs(
    manifest: { inputs: Input[] },
    root?: string,
    stat?: (path: string) => { mtimeMs: number; size: number } | undefined,
  ): string[];
  loadBundle(bundle: string): { manifest: { inputs: Input[] }; main(): unknown } | undefined;
  startsLocalFunctions(args: readonly string[]): boolean;
  withSourcePaths(source: string, file: string): string;
}

const ROOT = resolve(__dirname, '../../..');
const launcher = require('../../../scripts/gridwire') as Launcher;

describe('the stale-bundle check', () => {
  const manifest = {
    inputs: [
      { path: 'cli/program.ts', mtimeMs: 1_000.25, size: 300 },
      { path: 'shared/config/resources.ts', mtimeMs: 2_000, size: 900 },
    ],
  };
  const files = (entries: Record<string, { mtimeMs: number; size: number }>) => (path: string) =>
    entries[path.slice('/repo/'.length)];

  it('passes a bundle whose sources are as it read them', () => {
    const stat = files({
      'cli/program.ts': { mtimeMs: 1_000.25, size: 300 },
      'shared/config/resources.ts': { mtimeMs: 2_000, size: 900 },
    });
    expect(launcher.changedInputs(manifest, '/repo', stat)).toEqual([]);
  });

  it('names a source written since (a newer or an older time, another size) or gone', () => {
    expect(
      launcher.changedInputs(
        manifest,
        '/repo',
        files({
          'cli/program.ts': { mtimeMs: 1_000.5, size: 300 },
          'shared/config/resources.ts': { mtimeMs: 2_000, size: 900 },
        }),
      ),
    ).toEqual(['cli/program.ts']);
    // A file put back with an older time (a checkout of an older version, a copy keeping times).
    expect(
      launcher.changedInputs(
        manifest,
        '/repo',
        files({
          'cli/program.ts': { mtimeMs: 1_000.25, size: 300 },
          'shared/config/resources.ts': { mtimeMs: 1_500, size: 900 },
        }),
      ),
    ).toEqual(['shared/config/resources.ts']);
    expect(
      launcher.changedInputs(
        manifest,
        '/repo',
        files({
          'cli/program.ts': { mtimeMs: 1_000.25, size: 301 },
          'shared/config/resources.ts': { mtimeMs: 2_000, size: 900 },
        }),
      ),
    ).toEqual(['cli/program.ts']);
    expect(
      launcher.changedInputs(
        manifest,
        '/repo',
        files({ 'cli/program.ts': { mtimeMs: 1_000.25, size: 300 } }),
      ),
    ).toEqual(['shared/config/resources.ts']);
  });

  it("gives each module its own source's directory and path, not the bundle's", () => {
    const source = [
      'const a = join(__dirname, "..", "package.json");',
      'const b = __filename.endsWith(".ts");',
      'const c = options.__dirname ?? my__dirname ?? __dirnames;',
    ].join('\n');
    expect(launcher.withSourcePaths(source, 'local/emulators.ts').split('\n')).toEqual([
      'const a = join(__gridwireSource("local"), "..", "package.json");',
      'const b = __gridwireSource("local/emulators.ts").endsWith(".ts");',
      'const c = options.__dirname ?? my__dirname ?? __dirnames;',
    ]);
  });
});

describe('a bundle built by the launcher', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const paths = () => ({
    root,
    entry: join(root, 'bin', 'entry.ts'),
    bundle: join(root, 'node_modules', '.cache', 'gridwire', 'cli.js'),
  });
  /** Loads the bundle afresh: jest keeps modules in a registry of its own, which `require.cache` does not reach. */
  const load = () => {
    jest.resetModules();
    const bundle = launcher.loadBundle(paths().bundle);
    if (bundle === undefined) throw new Error('no bundle');
    return bundle;
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gridwire-bundle-'));
    write('tsconfig.json', '{}\n');
    write(
      'bin/entry.ts',
      "import { word } from '../lib/word';\nexport const said: string = word;\nexport const dir = __dirname;\n",
    );
    write('lib/word.ts', "export const word = 'one';\n");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lists its sources with their times and sizes, the launcher and tsconfig.json beside them', async () => {
    expect(launcher.loadBundle(paths().bundle)).toBeUndefined();
    await launcher.buildBundle(paths());
    const { manifest } = load();
    const launcherInput = relative(root, join(ROOT, 'scripts', 'gridwire.js'))
      .split(sep)
      .join('/');
    expect(manifest.inputs.map((input) => input.path).sort()).toEqual(
      ['bin/entry.ts', 'lib/word.ts', 'tsconfig.json', launcherInput].sort(),
    );
    expect(manifest.inputs.find((input) => input.path === 'lib/word.ts')?.size).toBe(
      readFileSync(join(root, 'lib', 'word.ts')).length,
    );
    expect(launcher.changedInputs(manifest, root)).toEqual([]);
  });

  it("runs the entry only when asked, each module seeing its source's directory", async () => {
    await launcher.buildBundle(paths());
    const bundle = load();
    expect(bundle.main()).toEqual(expect.objectContaining({ said: 'one', dir: join(root, 'bin') }));
  });

  it('is stale once a source is edited, and the bundle built again runs the edit', async () => {
    await launcher.buildBundle(paths());
    const built = load().manifest;
    write('lib/word.ts', "export const word = 'two';\n");
    // Same size: the time tells (set apart from the build's, whatever the file system's precision).
    const later = new Date(Date.now() + 10_000);
    utimesSync(join(root, 'lib', 'word.ts'), later, later);
    expect(launcher.changedInputs(built, root)).toEqual(['lib/word.ts']);
    await launcher.buildBundle(paths());
    const rebuilt = load();
    expect(launcher.changedInputs(rebuilt.manifest, root)).toEqual([]);
    expect(rebuilt.main()).toEqual(expect.objectContaining({ said: 'two' }));
  });

  it('builds the emulator host beside it, declared to the bundle, both listed in one manifest', async () => {
    write(
      'bin/entry.ts',
      "declare const __gridwireEmulatorHost: string | undefined;\nexport const host = typeof __gridwireEmulatorHost === 'string' ? __gridwireEmulatorHost : undefined;\n",
    );
    write(
      'local/emulator-host.ts',
      "import { word } from '../lib/word';\nexport const hosted = word;\nexport const file = __filename;\n",
    );
    await launcher.buildBundle(paths());
    const bundle = load();
    const hostFile = join(root, 'node_modules', '.cache', 'gridwire', 'emulator-host.js');
    expect(bundle.main()).toEqual(expect.objectContaining({ host: hostFile }));
    expect(bundle.manifest.inputs.map((input) => input.path)).toEqual(
      expect.arrayContaining(['bin/entry.ts', 'lib/word.ts', 'local/emulator-host.ts']),
    );
    jest.resetModules();
    expect(require(hostFile)).toEqual(
      expect.objectContaining({ hosted: 'one', file: join(root, 'local', 'emulator-host.ts') }),
    );
    // A host edited since is a stale bundle.
    write('local/emulator-host.ts', "export const hosted = 'edited';\n");
    expect(launcher.changedInputs(bundle.manifest, root)).toEqual(['local/emulator-host.ts']);
  });

  it('declares no emulator host when there is none to build', async () => {
    write(
      'bin/entry.ts',
      "declare const __gridwireEmulatorHost: string | undefined;\nexport const host = typeof __gridwireEmulatorHost === 'string' ? __gridwireEmulatorHost : 'none';\n",
    );
    await launcher.buildBundle(paths());
    expect(load().main()).toEqual(expect.objectContaining({ host: 'none' }));
  });

  it('is stale once a source is gone', async () => {
    write('lib/other.ts', "export const other = 'x';\n");
    write('lib/word.ts', "export { other as word } from './other';\n");
    await launcher.buildBundle(paths());
    const built = load().manifest;
    rmSync(join(root, 'lib', 'other.ts'));
    expect(launcher.changedInputs(built, root)).toEqual(['lib/other.ts']);
  });
});

describe('which calls load tsx first', () => {
  it('only start with local functions, whose modules may be TypeScript', () => {
    expect(launcher.startsLocalFunctions(['start', '--lambda', 'orders=./orders.ts'])).toBe(true);
    expect(launcher.startsLocalFunctions(['start', '--port', '0', '--lambda=orders=./orders.ts'])).toBe(true);
    expect(launcher.startsLocalFunctions(['start', '--port', '0'])).toBe(false);
    expect(launcher.startsLocalFunctions(['status', '--lambda'])).toBe(false);
    expect(launcher.startsLocalFunctions([])).toBe(false);
  });
});

describe("this repository's bundle", () => {
  it('lists what the command line is built from: bin/, cli/, shared/ and local/', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'gridwire.js'), '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const manifest = /^module\.exports\.manifest = (.*);$/m.exec(readFileSync(launcher.BUNDLE, 'utf8'))?.[1];
    const inputs = (JSON.parse(manifest ?? '{}') as { inputs: Input[] }).inputs.map((input) => input.path);
    for (const path of [
      'bin/gridwire.ts',
      'cli/program.ts',
      'cli/parked/peek.ts',
      'shared/config/resources.ts',
      'local/data-dir-lock.ts',
      'local/emulator-host.ts',
      'scripts/gridwire.js',
      'tsconfig.json',
    ]) {
      expect(inputs).toContain(path);
    }
  });
});

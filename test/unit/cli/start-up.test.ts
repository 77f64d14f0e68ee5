/**
 * What the command line loads to start. Building the program loads commander and the command
 * definitions only (`cli/program.ts`): `gridwire --help` loads no AWS SDK, no local stack and no
 * management API code, run from the sources module by module (as the package runs its compiled
 * files) or from this repository's bundle (`scripts/gridwire.js`, what `npm run gridwire` runs).
 * The bundle prints every help word for word as the sources do. Speed itself is measured, not
 * asserted (docs/cli.md, "Start-up time").
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/** Modules `--help` must not load: the AWS SDK, the local stack, the handlers and the API behind them. */
const NOT_FOR_HELP = [
  /\/node_modules\/@aws-sdk\//,
  /\/node_modules\/@smithy\//,
  /\/node_modules\/@aws-lambda-powertools\//,
  /\/node_modules\/@middy\//,
  /\/node_modules\/(fauxqs|dynalite)\//,
  /\/local\/stack\.ts$/,
  /\/functions\//,
  /\/shared\/(storage|management|delivery\/(?!rules\/)|lambda)\//,
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gridwire-start-up-'));
  // Preloaded into the command's process: writes every module it loaded when it exits.
  writeFileSync(
    join(dir, 'record.js'),
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(Object.keys(require.cache))));",
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `node ...args` in the repository; its output and the modules it loaded. */
function run(name: string, args: readonly string[]): { stdout: string; loaded: string[] } {
  const loaded = join(dir, `${name}.json`);
  const result = spawnSync(process.execPath, ['--require', join(dir, 'record.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, LOADED_MODULES_FILE: loaded },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return { stdout: result.stdout, loaded: JSON.parse(readFileSync(loaded, 'utf8')) as string[] };
}

const heavy = (loaded: readonly string[]) =>
  loaded.filter((path) => NOT_FOR_HELP.some((rule) => rule.test(path)));

/** Commands whose help the bundle must print as the sources do: the top and some of every kind. */
const HELPS: readonly (readonly string[])[] = [
  [],
  ['subscription', 'create'],
  ['topic', 'update'],
  ['parked', 'list'],
  ['deadletters', 'replay'],
  ['sessions', 'revoke-all'],
];

describe('gridwire --help', () => {
  let sources: ReturnType<typeof run> | undefined;
  /** `--help` run from the TypeScript sources through tsx, as `npm run gridwire` ran it before the bundle. */
  const fromSources = () => {
    sources ??= run('sources', ['--import', 'tsx', 'bin/gridwire.ts', '--help']);
    return sources;
  };

  it('from the sources: loads commander and the command definitions, not the AWS SDK or the local stack', () => {
    const { stdout, loaded } = fromSources();
    expect(stdout).toMatch(/^Usage: gridwire \[options\] \[command\]\n/);
    expect(loaded).toContain(join(ROOT, 'cli', 'program.ts'));
    expect(loaded.some((path) => path.includes('/node_modules/commander/'))).toBe(true);
    expect(heavy(loaded)).toEqual([]);
  });

  it("from this repository's bundle: the same help, and no AWS SDK either", () => {
    const { stdout, loaded } = run('bundle', ['scripts/gridwire.js', '--help']);
    expect(stdout).toBe(fromSources().stdout);
    expect(loaded.some((path) => path.includes('/node_modules/commander/'))).toBe(true);
    expect(heavy(loaded)).toEqual([]);
  });

  it("prints each command's help from the bundle word for word as from the sources", () => {
    // The sources' help of each command as `--help` prints it, by one process (not a terminal: 80 columns).
    writeFileSync(
      join(dir, 'helps.js'),
      `const { runGridwire } = require(${JSON.stringify(join(ROOT, 'cli', 'program.ts'))});
(async () => {
  const [write, exit] = [process.stdout.write.bind(process.stdout), process.exit];
  const helps = [];
  for (const names of ${JSON.stringify(HELPS)}) {
    let text = '';
    process.stdout.write = (chunk) => ((text += chunk), true);
    process.exit = () => { throw new Error('help shown'); };
    await runGridwire([...names, '--help']).catch((error) => { if (error.message !== 'help shown') throw error; });
    [process.stdout.write, process.exit] = [write, exit];
    helps.push(text);
  }
  write(JSON.stringify(helps));
})();`,
    );
    const helps = JSON.parse(run('helps', ['--import', 'tsx', join(dir, 'helps.js')]).stdout) as string[];
    for (const [index, names] of HELPS.entries()) {
      expect(helps[index]).toMatch(new RegExp(`^Usage: gridwire ${names.join(' ')}`));
      expect(run(`bundle-${index}`, ['scripts/gridwire.js', ...names, '--help']).stdout).toBe(helps[index]);
    }
  });
});

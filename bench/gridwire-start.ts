/**
 * `gridwire start` as a user runs it, in a child process of its own process group (as a terminal
 * runs it), for scenarios that measure the whole command rather than the stack in this process:
 * its API's address and admin token read from what it prints, stopped with Ctrl-C's signal.
 *
 * By default it is started as `npm start` starts it, without npm: the command of the `start`
 * script in package.json with the variables it sets, run by this Node (which under `npm run
 * bench` is the Node npm puts first on the path, as for `npm start`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..');

export interface RunningGridwire {
  child: ChildProcess;
  /** The pid of the process started: the root of the command's process tree. */
  pid: number;
  apiUrl: string;
  adminToken: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Calls the API with the admin token; the parsed answer, or throws on a status of 300 or more. */
  call(method: string, path: string, body?: unknown): Promise<unknown>;
  /** Sends SIGINT (Ctrl-C) to its process group and waits for it to exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** How to run the `start` script: the program and its arguments, and the variables it sets. */
export interface StartCommand {
  command: string[];
  env: Record<string, string>;
}

/**
 * The `start` script in package.json as a command: the variables it sets first (`NAME=value`),
 * then the program with `node` as this Node, e.g. `{ command: [process.execPath,
 * 'scripts/gridwire.js', 'start'], env: {} }`; a script that is not a `node` or `tsx` command is
 * run through `sh -c`.
 */
export function startScriptCommand(packageJson = join(ROOT, 'package.json')): StartCommand {
  const script = (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts: Record<string, string> })
    .scripts.start;
  if (script === undefined) throw new Error('package.json has no start script');
  const words = script.split(/\s+/).filter((word) => word !== '');
  const env: Record<string, string> = {};
  while (words[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(words[0])) {
    const [name, ...value] = (words.shift() as string).split('=');
    env[name as string] = value.join('=');
  }
  if (words[0] === 'node') return { command: [process.execPath, ...words.slice(1)], env };
  if (words[0] === 'tsx') {
    return { command: [join(dirname(packageJson), 'node_modules', '.bin', 'tsx'), ...words.slice(1)], env };
  }
  return { command: ['sh', '-c', script], env: {} };
}

/**
 * Starts `gridwire start` on `dataDir` with the API on a free port (`command`: default the `start`
 * script's, with the variables it sets, see {@link startScriptCommand}), `args` after; resolves
 * once it serves.
 */
export async function startGridwire(
  dataDir: string,
  options: {
    command?: readonly string[];
    args?: readonly string[];
    /** Where to run it (default this repository; another checkout, to measure an earlier version). */
    cwd?: string;
    startTimeoutMs?: number;
  } = {},
): Promise<RunningGridwire> {
  const cwd = options.cwd ?? ROOT;
  const start =
    options.command === undefined
      ? startScriptCommand(join(cwd, 'package.json'))
      : { command: [...options.command], env: {} };
  const [program, ...words] = [
    ...start.command,
    '--data-dir',
    dataDir,
    '--port',
    '0',
    ...(options.args ?? []),
  ];
  // The Node npm would run first on the path, as `npm start` does.
  const path = `${join(cwd, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`;
  const child = spawn(program as string, words, {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...start.env, PATH: path },
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ apiUrl: string; adminToken: string }>((resolve, reject) => {
    const timeout = options.startTimeoutMs ?? 60_000;
    const timer = setTimeout(
      () => reject(new Error(`gridwire start did not start in ${timeout} ms:\n${output}`)),
      timeout,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const apiUrl = /API\s+(http:\/\/\S+)/.exec(output)?.[1];
      const adminToken = /Admin token\s+(\S+)/.exec(output)?.[1];
      if (apiUrl !== undefined && adminToken !== undefined && output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve({ apiUrl, adminToken });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`gridwire start exited (${child.exitCode}) before it started:\n${output}`));
    });
  }).catch((error: Error) => {
    killGroup(child);
    throw error;
  });
  const { apiUrl, adminToken } = started;
  return {
    child,
    pid: child.pid as number,
    apiUrl,
    adminToken,
    output: () => output,
    call: async (method, path, body) => {
      const response = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return text === '' ? undefined : JSON.parse(text);
    },
    stop: async (graceMs = 30_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signalGroup(child, 'SIGINT');
      const timer = setTimeout(() => killGroup(child), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    // Already gone.
  }
}

/** Kills what is left of the command's process group. */
function killGroup(child: ChildProcess): void {
  signalGroup(child, 'SIGKILL');
}

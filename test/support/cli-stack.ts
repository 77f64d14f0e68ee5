/**
 * `gridwire start` as a user runs it, in its own process group (like a terminal session), for
 * tests that kill it or parts of it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './webhook-server';

const ROOT = join(__dirname, '..', '..');

export interface RunningCli {
  child: ChildProcess;
  apiUrl: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with its exit code and signal once it has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The command line of `gridwire start` on `dataDir` with the API on a free port, plus `args`. */
export const cliStartCommand = (dataDir: string, args: readonly string[]): string[] => [
  process.execPath,
  '--import',
  'tsx',
  'bin/gridwire.ts',
  'start',
  '--data-dir',
  dataDir,
  '--port',
  '0',
  ...args,
];

/** Starts `gridwire start` on `dataDir` (API on a free port); resolves once it serves. */
export async function startCli(
  dataDir: string,
  options: { adminToken: string; timeScale?: number },
): Promise<RunningCli> {
  const [node, ...args] = cliStartCommand(dataDir, [
    '--admin-token',
    options.adminToken,
    '--time-scale',
    String(options.timeScale ?? 1),
  ]);
  const child = spawn(node as string, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const apiUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the stack did not start:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /API\s+(http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined && output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then(({ code }) =>
      reject(new Error(`the stack exited (${code}) before it started:\n${output}`)),
    );
  });
  return { child, apiUrl, output: () => output, exited };
}

/** Waits until no process of the stack's process group is left (the emulator child included). */
export async function groupGone(running: RunningCli): Promise<void> {
  await eventually(
    () => {
      try {
        process.kill(-(running.child.pid as number), 0);
        return false;
      } catch {
        return true;
      }
    },
    15_000,
    'the process group to be gone',
  );
}

/** Sends `signal` to the stack's whole process group and waits until its processes are gone. */
export async function signalGroup(running: RunningCli, signal: NodeJS.Signals): Promise<void> {
  process.kill(-(running.child.pid as number), signal);
  await running.exited;
  await groupGone(running);
}

/** The pid of the stack's emulator process (the child of `gridwire start` running the emulator host). */
export async function emulatorPid(running: RunningCli): Promise<number> {
  const run = promisify(execFile);
  const { stdout } = await run('pgrep', ['-P', String(running.child.pid)]);
  const hosts: number[] = [];
  // Its other children are helpers (tsx's esbuild service).
  for (const pid of stdout.split('\n').filter((line) => line.trim() !== '')) {
    const { stdout: command } = await run('ps', ['-o', 'args=', '-p', pid]);
    if (command.includes('emulator-host')) hosts.push(Number(pid));
  }
  if (hosts.length !== 1)
    throw new Error(`expected one emulator process, found: ${hosts.join(', ') || 'none'}`);
  return hosts[0] as number;
}

/** Kills what is left of the stack's process group (a test that failed half-way). */
export function killGroup(running: RunningCli | undefined): void {
  if (running === undefined) return;
  try {
    process.kill(-(running.child.pid as number), 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Calls a stack's API with `token` as the admin token; the answer's status and parsed body. */
export const apiCaller =
  (token: string) =>
  async (
    apiUrl: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests read API answers freely and assert on them.
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as any };
  };

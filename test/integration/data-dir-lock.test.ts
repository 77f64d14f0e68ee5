/**
 * One local stack per data directory, with a lock the kernel releases when its holder dies: after
 * a hang-up followed by a kill of the whole process group, `gridwire start` with the same data
 * directory starts at once (its processes dead, perhaps not yet reaped), ten times in a row; a
 * second stack beside a live one is still refused. The admin token comes from a file here, so it
 * never shows in the process list.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliStartCommand } from '../support/cli-stack';
import { eventually } from '../support/webhook-server';

const ROOT = join(__dirname, '..', '..');
const TOKEN = 'lock-test-token';
let dataDir: string;
let tokenFile: string;
/** What a test started: the process spawned, and the stack's process id once known. */
interface Started {
  child: ChildProcess;
  stackPid: () => number | undefined;
}
const started: Started[] = [];

interface Running {
  /** The `gridwire start` process, leader of its own process group. */
  pid: number;
  apiUrl: string;
  output: () => string;
  /** What this test started: the stack itself, or the parent that never reaps it. */
  spawned: Started;
}

const cliCommand = (args: string[]) => cliStartCommand(dataDir, args);

function collect(child: ChildProcess): () => string {
  let text = '';
  const read = (chunk: Buffer) => {
    text += chunk.toString('utf8');
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  return () => text;
}

/** `gridwire start` as its own process group, like a terminal session. */
function spawnCli(args: string[]): { child: ChildProcess; output: () => string; entry: Started } {
  const [node, ...rest] = cliCommand(args);
  const child = spawn(node as string, rest, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const entry = { child, stackPid: () => child.pid };
  started.push(entry);
  return { child, output: collect(child), entry };
}

/**
 * `gridwire start` in a session and process group of its own, under a parent that never reaps
 * it (the shell turns into `sleep`): killed, the stack stays a zombie, dead but with its process
 * id still taken, as when what started it (npm, a terminal) is slow to collect it.
 */
function spawnUnreaped(args: string[]): { output: () => string; entry: Started } {
  const parent = spawn(
    '/bin/sh',
    ['-c', 'setsid "$@" & echo "stack pid $!"; exec sleep 600', 'sh', ...cliCommand(args)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = collect(parent);
  const entry = {
    child: parent,
    stackPid: () => {
      const pid = /stack pid (\d+)/.exec(output())?.[1];
      return pid === undefined ? undefined : Number(pid);
    },
  };
  started.push(entry);
  return { output, entry };
}

/** Resolves once the stack's output says it serves; fails at once if it has exited. */
function served(output: () => string, hasExited: () => boolean): Promise<string> {
  return eventually(
    () => {
      const apiUrl = output().includes('Press Ctrl-C') && /API\s+(http:\/\/\S+)/.exec(output())?.[1];
      if (!apiUrl && hasExited()) throw new Error(`the stack exited before it started:\n${output()}`);
      return apiUrl;
    },
    30_000,
    'the stack to start',
  );
}

/** Whether a process has exited: reaped, or a zombie. */
const isDead = (pid: number) => ['Z', 'X', undefined].includes(statFields(pid)?.state);

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', resolve));

async function startCli(args = ['--admin-token-file', tokenFile]): Promise<Running> {
  const { child, output, entry } = spawnCli(args);
  const apiUrl = await served(output, () => child.exitCode !== null || child.signalCode !== null);
  return { pid: child.pid as number, apiUrl, output, spawned: entry };
}

async function startUnreaped(args = ['--admin-token-file', tokenFile]): Promise<Running> {
  const { output, entry } = spawnUnreaped(args);
  const pid = await eventually(entry.stackPid, 10_000, 'the stack process id');
  // Its exit is not seen here (its parent is sleep): it has exited once it is a zombie or gone.
  const apiUrl = await served(output, () => isDead(pid));
  return { pid, apiUrl, output, spawned: entry };
}

/** Processes of the group `pgid` that are alive: present and not zombies (dead, not yet reaped). */
function liveMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields !== undefined && Number(fields.pgrp) === pgid && !['Z', 'X'].includes(fields.state)) {
      live.push(Number(entry));
    }
  }
  return live;
}

/** State and process group of a process, from /proc/<pid>/stat; undefined once it is reaped. */
function statFields(pid: number): { state: string; pgrp: string } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
  const [state = '', , pgrp = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, pgrp };
}

/** SIGHUP, then at once SIGKILL, to the stack's whole group; resolves once none of it runs any more. */
async function hangUpAndKill(running: Running): Promise<void> {
  process.kill(-running.pid, 'SIGHUP');
  process.kill(-running.pid, 'SIGKILL');
  await eventually(() => liveMembers(running.pid).length === 0, 15_000, 'the process group to be dead');
}

/** Stops what a test started: the stack's group if it still runs (gently), then a parent left sleeping. */
async function stopStarted({ child, stackPid }: Started): Promise<void> {
  const pgid = stackPid();
  if (pgid !== undefined && liveMembers(pgid).length > 0) {
    process.kill(-pgid, 'SIGTERM');
    await eventually(() => liveMembers(pgid).length === 0, 15_000, 'the stack to stop');
  }
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = exitOf(child);
  child.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gridwire-lock-'));
  tokenFile = join(await mkdtemp(join(tmpdir(), 'gridwire-token-')), 'admin-token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
});

afterEach(async () => {
  await Promise.all(started.splice(0).map(stopStarted));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(join(tokenFile, '..'), { recursive: true, force: true });
});

const canRun = existsSync('/proc/self/stat') && existsSync('/usr/bin/setsid');
if (!canRun) console.warn('skipped the crash restarts: they need /proc and setsid (Linux)');

(canRun ? it : it.skip)(
  'starts at once after a hang-up and a kill of the whole process group, ten times in a row',
  async () => {
    let running = await startUnreaped();
    for (let round = 1; round <= 10; round += 1) {
      await hangUpAndKill(running);
      // Dead but not reaped: its process id still answers signal 0, as a pid lock would see.
      expect(statFields(running.pid)?.state).toBe('Z');
      const killed = running;
      running = await startUnreaped().catch((error: Error) => {
        throw new Error(`restart ${round} failed: ${error.message}`);
      });
      await stopStarted(killed.spawned);
    }
    // The last one serves, with the token from the file, and printed no warning about it.
    const status = await fetch(`${running.apiUrl}/admin/topics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(status.status).toBe(200);
    expect(running.output()).not.toMatch(/warning/i);
    await hangUpAndKill(running);
  },
  120_000,
);

it('refuses a second stack while the first runs, and warns about a token on the command line', async () => {
  const first = await startCli();
  const second = spawnCli(['--admin-token', 'visible-in-ps']);
  const code = await exitOf(second.child);
  expect(code).toBe(1);
  expect(second.output()).toMatch(/warning: the admin token given with --admin-token is visible/);
  expect(second.output()).toContain(
    `The data directory ${dataDir} is in use by another Gridwire local stack (process ${first.pid}). Stop it, or use another --data-dir.`,
  );
  // The refused start left the running one alone.
  const status = await fetch(`${first.apiUrl}/admin/topics`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(status.status).toBe(200);
}, 60_000);

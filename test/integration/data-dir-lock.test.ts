/**
 * One local stack per data directory, with a lock the kernel releases when its holder dies: after
 * a hang-up followed by a kill of the whole process group, `gridwire start` with the same data
 * directory starts at once (its processes dead, perhaps not yet reaped), ten times in a row; a
 * second stack beside a live one is still refused. The admin token comes from a file here, so it
 * never shows in the process list.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/webhook-server';

const ROOT = join(__dirname, '..', '..');
const TOKEN = 'lock-test-token';
let dataDir: string;
let tokenFile: string;
const started: ChildProcess[] = [];

interface Running {
  child: ChildProcess;
  apiUrl: string;
  output: () => string;
}

function spawnCli(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bin/gridwire.ts', 'start', '--data-dir', dataDir, '--port', '0', ...args],
    { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started.push(child);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { child, output: () => text };
}

/** `gridwire start` as its own process group, like a terminal session; resolves once it serves. */
async function startCli(args = ['--admin-token-file', tokenFile]): Promise<Running> {
  const { child, output } = spawnCli(args);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`the stack exited (${code}) before it started:\n${output()}`)),
    ),
  );
  const apiUrl = await Promise.race([
    exited,
    eventually(
      () => output().includes('Press Ctrl-C') && /API\s+(http:\/\/\S+)/.exec(output())?.[1],
      30_000,
      'the stack to start',
    ),
  ]);
  return { child, apiUrl, output };
}

/** Processes of the group `pgid` that are alive: present and not zombies (dead, not yet reaped). */
function liveMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') live.push(Number(entry));
  }
  return live;
}

/** SIGHUP, then at once SIGKILL, to the whole group; resolves once none of it runs any more. */
async function hangUpAndKill(running: Running): Promise<void> {
  const pgid = running.child.pid as number;
  const exited = new Promise<void>((resolve) => running.child.once('exit', () => resolve()));
  process.kill(-pgid, 'SIGHUP');
  process.kill(-pgid, 'SIGKILL');
  await exited;
  await eventually(() => liveMembers(pgid).length === 0, 15_000, 'the process group to be dead');
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-(child.pid as number), 'SIGTERM');
  } catch {
    return;
  }
  await exited;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gridwire-lock-'));
  tokenFile = join(await mkdtemp(join(tmpdir(), 'gridwire-token-')), 'admin-token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
});

afterEach(async () => {
  await Promise.all(started.splice(0).map(stopGroup));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(join(tokenFile, '..'), { recursive: true, force: true });
});

const hasProc = readdirSync('/').includes('proc') && readdirSync('/proc').includes('self');
if (!hasProc) console.warn('skipped the crash restarts: they read process states from /proc, absent here');

(hasProc ? it : it.skip)(
  'starts at once after a hang-up and a kill of the whole process group, ten times in a row',
  async () => {
    let running = await startCli();
    for (let round = 1; round <= 10; round += 1) {
      await hangUpAndKill(running);
      running = await startCli().catch((error: Error) => {
        throw new Error(`restart ${round} failed: ${error.message}`);
      });
    }
    // The last one serves, with the token from the file, and printed no warning about it.
    const status = await fetch(`${running.apiUrl}/admin/topics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(status.status).toBe(200);
    expect(running.output()).not.toMatch(/warning/i);
  },
  120_000,
);

it('refuses a second stack while the first runs, and warns about a token on the command line', async () => {
  const first = await startCli();
  const second = spawnCli(['--admin-token', 'visible-in-ps']);
  const code = await new Promise<number | null>((resolve) => second.child.once('exit', resolve));
  expect(code).toBe(1);
  expect(second.output()).toMatch(/warning: the admin token given with --admin-token is visible/);
  expect(second.output()).toContain(
    `The data directory ${dataDir} is in use by another Gridwire local stack (process ${first.child.pid}). Stop it, or use another --data-dir.`,
  );
  // The refused start left the running one alone.
  const status = await fetch(`${first.apiUrl}/admin/topics`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(status.status).toBe(200);
}, 60_000);

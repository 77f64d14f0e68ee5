/**
 * The memory of `gridwire start` as a user runs it: the resident memory of its whole process
 * tree (the stack's process, the emulators' child process, any helper), idle, under a steady
 * load, and a while after the load stopped. The command runs as a child process
 * (`gridwire-start.ts`); the load generator and the webhook sink are the benchmark's own child
 * processes, outside the measured tree.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGridwire } from './gridwire-start';
import type { Publishers, Sink } from './load';
import { type ProcessMemory, sampleTree, type TreeMemory } from './process-tree-memory';
import type { PublishOutcome } from './publisher-protocol';

/** What a process of the tree is there for. */
export type ProcessRole = 'stack' | 'emulators' | 'compiler' | 'other';

export interface StackMemoryOptions {
  /** Seconds after start before idle is measured (the stack gives back what starting left). */
  settleSeconds: number;
  /** Seconds idle is sampled over (the median is reported). */
  idleSeconds: number;
  eventsPerSecond: number;
  eventsPerRequest: number;
  loadSeconds: number;
  /** Seconds after the load's last request at which "after" is measured (the median of the last 10 s). */
  afterSeconds: number;
  /** How often the tree is sampled. */
  sampleEveryMs: number;
  /** Another checkout to start `gridwire start` in, as its own `start` script says (an earlier version). */
  checkout?: string;
}

/** A sample of the tree, in MB (2^20 bytes), by role and in total. */
export interface TreeFigure {
  totalMb: number;
  pssMb: number;
  byRole: Partial<Record<ProcessRole, number>>;
  processes: Array<{ pid: number; role: ProcessRole; command: string; rssMb: number; pssMb?: number }>;
}

export interface StackMemoryRun {
  /** The command that was started. */
  command: string;
  idle: TreeFigure;
  /** The sample with the largest total while the load ran. */
  peak: TreeFigure;
  /** The median total while the load ran. */
  loadMedianMb: number;
  after: TreeFigure;
  /** Every sample's total and totals by role, seconds from the load's start. */
  timeline: Array<{ second: number; totalMb: number; byRole: Partial<Record<ProcessRole, number>> }>;
  published: Omit<PublishOutcome, 'publishLatencies'>;
  /** Events the webhook acknowledged from the load's start to the end of the run. */
  delivered: number;
  /** CPU seconds (user and system) each role used while the load ran. */
  loadCpuSeconds: Partial<Record<ProcessRole, number>>;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process's role, from its place in the tree and its command line. */
export function roleOf(entry: Pick<ProcessMemory, 'pid' | 'command'>, rootPid: number): ProcessRole {
  if (/emulator-host/.test(entry.command)) return 'emulators';
  if (/esbuild/.test(entry.command)) return 'compiler';
  if (entry.pid === rootPid || /gridwire/.test(entry.command)) return 'stack';
  return 'other';
}

export function treeFigure(tree: TreeMemory): TreeFigure {
  const byRole: Partial<Record<ProcessRole, number>> = {};
  const rss: Partial<Record<ProcessRole, number>> = {};
  const processes = tree.processes.map((entry) => {
    const role = roleOf(entry, tree.rootPid);
    rss[role] = (rss[role] ?? 0) + entry.rssBytes;
    return {
      pid: entry.pid,
      role,
      command: entry.command.slice(0, 120),
      rssMb: mb(entry.rssBytes),
      ...(entry.pssBytes === undefined ? {} : { pssMb: mb(entry.pssBytes) }),
    };
  });
  for (const [role, bytes] of Object.entries(rss)) byRole[role as ProcessRole] = mb(bytes);
  return { totalMb: mb(tree.totalRssBytes), pssMb: mb(tree.totalPssBytes), byRole, processes };
}

/** The sample whose total is the median of `trees` (the lower middle one of an even count). */
export function medianTree(trees: readonly TreeMemory[]): TreeMemory {
  const sorted = [...trees].sort((a, b) => a.totalRssBytes - b.totalRssBytes);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (middle === undefined) throw new Error('no samples');
  return middle;
}

/** CPU seconds (user and system) a process has used, from /proc/<pid>/stat; 0 once it is gone. */
async function cpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function cpuByRole(tree: TreeMemory): Promise<Map<number, { role: ProcessRole; seconds: number }>> {
  const entries = await Promise.all(
    tree.processes.map(
      async (entry) =>
        [entry.pid, { role: roleOf(entry, tree.rootPid), seconds: await cpuSeconds(entry.pid) }] as const,
    ),
  );
  return new Map(entries);
}

/** Samples `rootPid`'s tree every `everyMs` for `seconds`; the samples. */
async function sampleFor(rootPid: number, seconds: number, everyMs: number): Promise<TreeMemory[]> {
  const samples: TreeMemory[] = [];
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    samples.push(await sampleTree(rootPid));
    await sleep(Math.min(everyMs, Math.max(0, until - Date.now())));
  }
  return samples;
}

/**
 * Starts `gridwire start` on a data directory of its own, measures it idle, under
 * `eventsPerSecond` published to one topic with one webhook subscription on `sink` (which
 * answers at once), and `afterSeconds` after; stops it.
 */
export async function measureStackMemory(
  sink: Sink,
  publishers: Publishers,
  options: StackMemoryOptions,
  log: (line: string) => void = () => {},
): Promise<StackMemoryRun> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gridwire-stack-memory-'));
  const gridwire = await startGridwire(dataDir, {
    args: ['--log-level', 'ERROR'],
    ...(options.checkout === undefined ? {} : { cwd: options.checkout }),
  });
  try {
    const rootPid = gridwire.pid;
    const command = (await sampleTree(rootPid, { pss: false })).processes[0]?.command ?? '';
    log(`stack-memory: started ${command}; settling for ${options.settleSeconds} s`);
    await sleep(options.settleSeconds * 1000);
    const idle = medianTree(await sampleFor(rootPid, options.idleSeconds, options.sampleEveryMs));
    log(`stack-memory: idle ${mb(idle.totalRssBytes)} MB`);

    await gridwire.call('PUT', '/admin/topics/memory', { properties: { inputSchema: 'EventGridSchema' } });
    await gridwire.call('PUT', '/admin/topics/memory/eventSubscriptions/sink', {
      properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl: sink.url } } },
    });
    const { key1: key } = (await gridwire.call('POST', '/admin/topics/memory/listKeys')) as { key1: string };
    sink.configure(0, 0);
    await sink.take();

    const started = Date.now();
    const cpuBefore = await cpuByRole(await sampleTree(rootPid, { pss: false }));
    const during: TreeMemory[] = [];
    let loading = true;
    const sampling = (async () => {
      while (loading) {
        during.push(await sampleTree(rootPid));
        await sleep(options.sampleEveryMs);
      }
    })();
    const { publishLatencies: _latencies, ...published } = await publishers.run({
      apiUrl: gridwire.apiUrl,
      topic: 'memory',
      key,
      eventsPerRequest: options.eventsPerRequest,
      requestsPerSecond: options.eventsPerSecond / options.eventsPerRequest,
      durationMs: options.loadSeconds * 1000,
      prefix: 'memory',
    });
    loading = false;
    await sampling;
    const cpuAfter = await cpuByRole(await sampleTree(rootPid, { pss: false }));
    const loadCpuSeconds: Partial<Record<ProcessRole, number>> = {};
    for (const [pid, { role, seconds }] of cpuAfter) {
      const used = seconds - (cpuBefore.get(pid)?.seconds ?? 0);
      loadCpuSeconds[role] = Math.round(((loadCpuSeconds[role] ?? 0) + used) * 10) / 10;
    }
    const peak = during.reduce((most, tree) => (tree.totalRssBytes > most.totalRssBytes ? tree : most));
    log(
      `stack-memory: ${published.accepted} events accepted in ${options.loadSeconds} s, peak ${mb(peak.totalRssBytes)} MB`,
    );

    const afterwards = await sampleFor(rootPid, options.afterSeconds - 10, options.sampleEveryMs);
    const last = await sampleFor(rootPid, 10, options.sampleEveryMs);
    const after = medianTree(last);
    const { delivered } = await sink.take();
    log(`stack-memory: ${options.afterSeconds} s after the load ${mb(after.totalRssBytes)} MB`);

    const timeline = [...during, ...afterwards, ...last].map((tree) => {
      const figure = treeFigure(tree);
      return {
        second: Math.round((tree.at - started) / 100) / 10,
        totalMb: figure.totalMb,
        byRole: figure.byRole,
      };
    });
    return {
      command,
      idle: treeFigure(idle),
      peak: treeFigure(peak),
      loadMedianMb: mb(medianTree(during).totalRssBytes),
      after: treeFigure(after),
      timeline,
      published,
      delivered,
      loadCpuSeconds,
    };
  } finally {
    await gridwire.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Resident memory of a process and all its descendants, read from Linux's /proc: what a stack
 * started as `gridwire start` holds in all (its own process, the emulator child, helpers such as
 * tsx's esbuild service), per process and in total.
 *
 *   const tree = await sampleTree(child.pid);
 *   console.log(formatTree(tree));   // 'total 182.4 MB RSS (151.0 MB PSS): 4711 node ... 96.1 MB, ...'
 *
 *   const sampler = sampleTreeEvery(child.pid, 60_000, (tree) => log(formatTree(tree)));
 *   ...
 *   const samples = sampler.stop();  // every sample taken, in order
 *
 * RSS (`VmRSS` in /proc/<pid>/status) counts every page a process has in memory, shared ones
 * (the `node` binary, libraries) in each process that maps them, so a tree's total RSS counts
 * them more than once. PSS (`Pss` in /proc/<pid>/smaps_rollup) divides each shared page among
 * the processes sharing it: the tree's total PSS is a fairer share of the machine's memory. Both
 * are read; a process whose PSS cannot be read (another user's) reports none.
 *
 * Processes are found by walking every /proc/<pid>/stat for its parent's pid, so a process that
 * has been re-parented (its parent exited) is no longer in the tree. A process that exits while
 * it is read is left out. Linux only: elsewhere `sampleTree` rejects.
 */
import { readdir, readFile } from 'node:fs/promises';

export interface ProcessMemory {
  pid: number;
  /** Its parent's pid. */
  ppid: number;
  /** Its command line (arguments joined by spaces, at most 200 characters). */
  command: string;
  /** Resident set size, bytes. */
  rssBytes: number;
  /** Proportional set size (shared pages divided among their sharers), bytes; absent if unreadable. */
  pssBytes?: number;
}

export interface TreeMemory {
  /** When the sample was taken (epoch ms). */
  at: number;
  rootPid: number;
  /** The sum of the processes' RSS, bytes. */
  totalRssBytes: number;
  /** The sum of the processes' PSS (those whose PSS was read), bytes. */
  totalPssBytes: number;
  /** The root first, then its descendants, parents before their children. */
  processes: ProcessMemory[];
}

const COMMAND_LENGTH = 200;

const ignoringGone = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await read();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Gone (ENOENT, ESRCH) or not ours to read (EACCES): not part of what can be measured.
    if (code === 'ENOENT' || code === 'ESRCH' || code === 'EACCES') return undefined;
    throw error;
  }
};

/** The parent's pid from the text of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
export function parentPid(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[1]);
}

/** A `kB` field (such as `VmRSS:    123 kB`) of a /proc status or smaps_rollup text, in bytes. */
export function kilobytesField(text: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
}

/** Every process's parent, from /proc. */
async function parents(): Promise<Map<number, number>> {
  const entries = await readdir('/proc');
  const found = new Map<number, number>();
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const stat = await ignoringGone(() => readFile(`/proc/${entry}/stat`, 'utf8'));
        if (stat !== undefined) found.set(Number(entry), parentPid(stat));
      }),
  );
  return found;
}

/** `rootPid` and the pids of all its descendants, parents before their children. */
export async function treePids(rootPid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of await parents()) {
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const pids = [rootPid];
  for (let i = 0; i < pids.length; i += 1) {
    pids.push(...(children.get(pids[i] as number) ?? []).sort((a, b) => a - b));
  }
  return pids;
}

/** One process's memory; undefined if it is gone. */
export async function processMemory(
  pid: number,
  options: { pss?: boolean } = {},
): Promise<ProcessMemory | undefined> {
  const [status, stat, cmdline] = await Promise.all([
    ignoringGone(() => readFile(`/proc/${pid}/status`, 'utf8')),
    ignoringGone(() => readFile(`/proc/${pid}/stat`, 'utf8')),
    ignoringGone(() => readFile(`/proc/${pid}/cmdline`, 'utf8')),
  ]);
  if (status === undefined || stat === undefined) return undefined;
  // A zombie has no VmRSS line: it holds no memory.
  const rssBytes = kilobytesField(status, 'VmRSS') ?? 0;
  const rollup =
    options.pss === false
      ? undefined
      : await ignoringGone(() => readFile(`/proc/${pid}/smaps_rollup`, 'utf8'));
  const pssBytes = rollup === undefined ? undefined : kilobytesField(rollup, 'Pss');
  const name = /\((.*)\)/s.exec(stat)?.[1] ?? '';
  const command =
    (cmdline ?? '')
      .split('\0')
      .filter((word) => word !== '')
      .join(' ') || `[${name}]`;
  return {
    pid,
    ppid: parentPid(stat),
    command: command.length > COMMAND_LENGTH ? `${command.slice(0, COMMAND_LENGTH - 1)}…` : command,
    rssBytes,
    ...(pssBytes === undefined ? {} : { pssBytes }),
  };
}

/**
 * The memory of `rootPid` and all its descendants, per process and in total. `pss: false` skips
 * reading PSS (smaps_rollup walks the process's page tables: about a millisecond per 100 MB).
 * Rejects if `rootPid` is not running.
 */
export async function sampleTree(rootPid: number, options: { pss?: boolean } = {}): Promise<TreeMemory> {
  const at = Date.now();
  const found = await Promise.all((await treePids(rootPid)).map((pid) => processMemory(pid, options)));
  const processes = found.filter((entry) => entry !== undefined);
  if (processes[0]?.pid !== rootPid) throw new Error(`process ${rootPid} is not running`);
  return {
    at,
    rootPid,
    totalRssBytes: processes.reduce((sum, entry) => sum + entry.rssBytes, 0),
    totalPssBytes: processes.reduce((sum, entry) => sum + (entry.pssBytes ?? 0), 0),
    processes,
  };
}

export interface TreeSampler {
  /** The samples taken so far, oldest first. */
  samples(): readonly TreeMemory[];
  /** The sample with the highest total RSS so far. */
  peak(): TreeMemory | undefined;
  /** Stops sampling (a sample under way is still recorded); the samples taken. */
  stop(): readonly TreeMemory[];
}

/**
 * Samples the tree of `rootPid` now and every `intervalMs` after, each sample kept and passed to
 * `onSample`; a sample that fails (the root exited) is passed to `onError` (default: ignored), and
 * sampling goes on. The timer does not keep the process alive. Keeps every sample: at one a
 * minute, a day is 1,440 of them.
 */
export function sampleTreeEvery(
  rootPid: number,
  intervalMs: number,
  onSample?: (sample: TreeMemory) => void,
  options: { pss?: boolean; onError?: (error: Error) => void } = {},
): TreeSampler {
  const taken: TreeMemory[] = [];
  let stopped = false;
  const sample = () => {
    sampleTree(rootPid, options).then(
      (tree) => {
        taken.push(tree);
        onSample?.(tree);
      },
      (error: Error) => options.onError?.(error),
    );
  };
  sample();
  const timer = setInterval(() => {
    if (!stopped) sample();
  }, intervalMs);
  timer.unref();
  return {
    samples: () => taken,
    peak: () =>
      taken.reduce<TreeMemory | undefined>(
        (peak, tree) => (peak === undefined || tree.totalRssBytes > peak.totalRssBytes ? tree : peak),
        undefined,
      ),
    stop() {
      stopped = true;
      clearInterval(timer);
      return taken;
    },
  };
}

const MB = 1024 * 1024;
const megabytes = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

/** One line for a log: the total, then each process's pid, command (cut to `commandLength`) and RSS. */
export function formatTree(tree: TreeMemory, commandLength = 60): string {
  const each = tree.processes.map(
    (entry) =>
      `${entry.pid} ${entry.command.length > commandLength ? `${entry.command.slice(0, commandLength - 1)}…` : entry.command} ${megabytes(entry.rssBytes)}`,
  );
  return `total ${megabytes(tree.totalRssBytes)} RSS (${megabytes(tree.totalPssBytes)} PSS): ${each.join(', ')}`;
}

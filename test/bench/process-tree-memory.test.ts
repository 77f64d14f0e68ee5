import { spawn } from 'node:child_process';
import {
  formatTree,
  kilobytesField,
  parentPid,
  sampleTree,
  sampleTreeEvery,
  treePids,
} from '../../bench/process-tree-memory';

describe('process tree memory', () => {
  it('reads the parent from a stat line whose command name holds spaces and parentheses', () => {
    expect(parentPid('4711 (node (x) y) S 42 4711 4711 0 -1 4194560')).toBe(42);
  });

  it('reads kB fields in bytes', () => {
    const status = 'Name:\tnode\nVmPeak:\t  900 kB\nVmRSS:\t   123456 kB\nRssAnon:\t 1 kB\n';
    expect(kilobytesField(status, 'VmRSS')).toBe(123456 * 1024);
    expect(kilobytesField(status, 'VmSwap')).toBeUndefined();
    expect(kilobytesField('Rss:  10 kB\nPss:      7 kB\n', 'Pss')).toBe(7 * 1024);
  });

  it('samples a process and its children, per process and in total', async () => {
    // A shell with a child of its own: the tree is the shell and the sleep it waits on.
    const shell = spawn('sh', ['-c', 'sleep 30 & wait'], { stdio: 'ignore' });
    try {
      const pid = shell.pid as number;
      let pids: number[] = [];
      for (let tries = 0; tries < 50 && pids.length < 2; tries += 1) {
        pids = await treePids(pid);
        if (pids.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(pids[0]).toBe(pid);
      expect(pids).toHaveLength(2);

      const tree = await sampleTree(pid);
      expect(tree.rootPid).toBe(pid);
      expect(tree.processes.map((entry) => entry.pid)).toEqual(pids);
      expect(tree.processes[1]?.ppid).toBe(pid);
      expect(tree.processes[1]?.command).toBe('sleep 30');
      expect(tree.totalRssBytes).toBe(tree.processes.reduce((sum, entry) => sum + entry.rssBytes, 0));
      expect(tree.totalRssBytes).toBeGreaterThan(0);
      expect(tree.totalPssBytes).toBeGreaterThan(0);
      expect(tree.totalPssBytes).toBeLessThanOrEqual(tree.totalRssBytes);
      expect(formatTree(tree)).toMatch(/^total \d+\.\d MB RSS \(\d+\.\d MB PSS\): \d+ sh -c/);

      const withoutPss = await sampleTree(pid, { pss: false });
      expect(withoutPss.totalPssBytes).toBe(0);
      expect(withoutPss.processes[0]?.pssBytes).toBeUndefined();
    } finally {
      shell.kill('SIGKILL');
    }
  });

  it('samples periodically, keeping each sample, and rejects for a process that is gone', async () => {
    const seen: number[] = [];
    const sampler = sampleTreeEvery(process.pid, 20, (tree) => seen.push(tree.totalRssBytes));
    // Until three samples were taken, however long a busy machine makes that: no race with the timer.
    while (seen.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const samples = sampler.stop();
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(seen).toHaveLength(samples.length);
    expect(sampler.peak()?.totalRssBytes).toBe(Math.max(...seen));

    const gone = spawn('true');
    await new Promise((resolve) => gone.once('exit', resolve));
    await expect(sampleTree(gone.pid as number)).rejects.toThrow(/is not running/);
  });
});

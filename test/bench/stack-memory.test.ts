/**
 * The stack-memory scenario's arithmetic (`bench/stack-memory.ts`, `bench/scenarios/stack-memory.ts`):
 * which process of `gridwire start`'s tree is which, the median sample, and the figures against
 * the goals.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptCommand } from '../../bench/gridwire-start';
import type { TreeMemory } from '../../bench/process-tree-memory';
import { STACK_MEMORY_GOALS, stackMemoryFigures } from '../../bench/scenarios/stack-memory';
import { medianTree, roleOf, type StackMemoryRun, treeFigure } from '../../bench/stack-memory';
import { STACK_ENV, STACK_NODE_FLAGS } from '../../local/emulators';

const MB = 1024 * 1024;

const tree = (at: number, stackMb: number, emulatorsMb: number): TreeMemory => ({
  at,
  rootPid: 100,
  totalRssBytes: (stackMb + emulatorsMb) * MB,
  totalPssBytes: (stackMb + emulatorsMb - 40) * MB,
  processes: [
    { pid: 100, ppid: 1, command: 'node scripts/gridwire.js start --port 0', rssBytes: stackMb * MB },
    {
      pid: 101,
      ppid: 100,
      command: 'node --no-warnings node_modules/.cache/gridwire/emulator-host.js',
      rssBytes: emulatorsMb * MB,
      pssBytes: (emulatorsMb - 40) * MB,
    },
  ],
});

describe('the stack-memory scenario', () => {
  it('names each process of the tree by what it is there for', () => {
    expect(roleOf({ pid: 7, command: 'node scripts/gridwire.js start' }, 7)).toBe('stack');
    // Under the tsx command, its child runs the program.
    expect(
      roleOf({ pid: 8, command: 'node --import file:///x/tsx/dist/loader.mjs bin/gridwire.ts start' }, 7),
    ).toBe('stack');
    expect(roleOf({ pid: 9, command: 'node --import tsx /repo/local/emulator-host.ts' }, 7)).toBe(
      'emulators',
    );
    expect(
      roleOf({ pid: 10, command: '/repo/node_modules/@esbuild/linux-x64/bin/esbuild --service=0.28.2' }, 7),
    ).toBe('compiler');
    expect(roleOf({ pid: 11, command: 'sh -c something' }, 7)).toBe('other');
  });

  it('sums each role and takes the median sample', () => {
    const figure = treeFigure(tree(0, 110, 90));
    expect(figure).toMatchObject({ totalMb: 200, pssMb: 160, byRole: { stack: 110, emulators: 90 } });
    expect(figure.processes[1]).toMatchObject({ pid: 101, role: 'emulators', rssMb: 90, pssMb: 50 });
    expect(medianTree([tree(0, 150, 90), tree(1, 100, 90), tree(2, 120, 90)]).at).toBe(2);
    expect(medianTree([tree(0, 150, 90), tree(1, 100, 90)]).at).toBe(1);
  });

  it('holds the tree to the goals: idle, at load, and a minute after within a fifth of idle', () => {
    const run = (idle: number, peak: number, after: number): StackMemoryRun => ({
      command: 'node scripts/gridwire.js start',
      idle: treeFigure(tree(0, idle - 90, 90)),
      peak: treeFigure(tree(1, peak - 100, 100)),
      loadMedianMb: peak - 20,
      after: treeFigure(tree(2, after - 95, 95)),
      timeline: [],
      published: {
        requests: 600,
        accepted: 60_000,
        failedRequests: 0,
        elapsedMs: 60_000,
        answers: { 200: 600 },
        refusalsWithRetryAfter: 0,
      },
      delivered: 60_000,
      loadCpuSeconds: { stack: 18.5, emulators: 5 },
    });
    const met = (figures: ReturnType<typeof stackMemoryFigures>) =>
      figures.filter((figure) => figure.goal !== undefined).map((figure) => figure.met);
    const good = stackMemoryFigures(run(190, 380, 220), 1000);
    expect(met(good)).toEqual([true, true, true]);
    expect(good[2]).toMatchObject({ value: 220, goal: 'within 20% of idle (<= 228 MB)' });
    expect(good.find((figure) => figure.metric.startsWith('stack process'))?.value).toBe('100 / 280 / 125');
    expect(good.find((figure) => figure.metric.startsWith('events'))?.value).toBe('60000 / 60000');
    expect(met(stackMemoryFigures(run(210, 420, 260), 1000))).toEqual([false, false, false]);
    expect(STACK_MEMORY_GOALS).toEqual({ idleMb: 200, loadMb: 400, afterShareOfIdle: 1.2 });
  });

  it('starts gridwire as the start script says, with this Node and the variables it sets', () => {
    const { command } = startScriptCommand();
    expect(command[0]).toBe(process.execPath);
    expect(command).toContain('scripts/gridwire.js');
    expect(command.at(-1)).toBe('start');
    const dir = mkdtempSync(join(tmpdir(), 'gridwire-start-script-'));
    try {
      const script = (start: string) => {
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { start } }));
        return startScriptCommand(join(dir, 'package.json'));
      };
      expect(script('A_B=8192 X=a=b node --flag scripts/gridwire.js start')).toEqual({
        command: [process.execPath, '--flag', 'scripts/gridwire.js', 'start'],
        env: { A_B: '8192', X: 'a=b' },
      });
      expect(script('tsx bin/gridwire.ts start').command.slice(1)).toEqual(['bin/gridwire.ts', 'start']);
      expect(script('echo start && node x')).toEqual({
        command: ['sh', '-c', 'echo start && node x'],
        env: {},
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs npm start with the memory settings the soak's stack and the docs name", () => {
    const { command, env } = startScriptCommand();
    expect(command.slice(1, 1 + STACK_NODE_FLAGS.length)).toEqual([...STACK_NODE_FLAGS]);
    expect(env).toEqual({ ...STACK_ENV });
  });
});

/**
 * The local stack's memory as a user runs it (`gridwire start`, as `npm start` starts it, in a
 * child process): the resident memory of its whole process tree idle, at 1,000 events/s (100 per
 * request, one topic, one webhook subscription answering at once), and a minute after the load
 * stopped, against the goals of docs/local-stack.md ("Memory"). `../stack-memory.ts` measures.
 */
import { round } from '../harness/figures';
import { log } from '../harness/log';
import type { Figure, Scenario } from '../harness/types';
import { measureStackMemory, type ProcessRole, type StackMemoryRun } from '../stack-memory';

/** The goals, MB of resident memory of the whole process tree. */
export const STACK_MEMORY_GOALS = { idleMb: 200, loadMb: 400, afterShareOfIdle: 1.2 } as const;

const ROLES: readonly ProcessRole[] = ['stack', 'emulators', 'compiler', 'other'];

/** Figures of a run: the tree's totals against the goals, then each kind of process. */
export function stackMemoryFigures(run: StackMemoryRun, eventsPerSecond: number): Figure[] {
  const afterLimit = round(run.idle.totalMb * STACK_MEMORY_GOALS.afterShareOfIdle, 1);
  const figures: Figure[] = [
    {
      metric: 'idle, whole process tree (RSS)',
      value: run.idle.totalMb,
      unit: 'MB',
      goal: `<= ${STACK_MEMORY_GOALS.idleMb} MB`,
      met: run.idle.totalMb <= STACK_MEMORY_GOALS.idleMb,
    },
    {
      metric: `peak at ${eventsPerSecond.toLocaleString('en-US')} events/s, whole process tree (RSS)`,
      value: run.peak.totalMb,
      unit: 'MB',
      goal: `<= ${STACK_MEMORY_GOALS.loadMb} MB`,
      met: run.peak.totalMb <= STACK_MEMORY_GOALS.loadMb,
    },
    {
      metric: 'a minute after the load, whole process tree (RSS)',
      value: run.after.totalMb,
      unit: 'MB',
      goal: `within 20% of idle (<= ${afterLimit} MB)`,
      met: run.after.totalMb <= afterLimit,
    },
    {
      metric: 'idle / peak / a minute after, whole process tree (PSS)',
      value: `${run.idle.pssMb} / ${run.peak.pssMb} / ${run.after.pssMb}`,
      unit: 'MB',
    },
  ];
  for (const role of ROLES) {
    const values = [run.idle, run.peak, run.after].map((figure) => figure.byRole[role]);
    if (values.every((value) => value === undefined)) continue;
    figures.push({
      metric: `${role} process${role === 'stack' ? '' : 'es'}: idle / peak / a minute after (RSS)`,
      value: values.map((value) => value ?? 0).join(' / '),
      unit: 'MB',
    });
  }
  figures.push(
    {
      metric: 'events accepted / delivered',
      value: `${run.published.accepted} / ${run.delivered}`,
      unit: 'events',
    },
    {
      metric: 'CPU while loaded: stack / emulators',
      value: `${run.loadCpuSeconds.stack ?? 0} / ${run.loadCpuSeconds.emulators ?? 0}`,
      unit: 's',
    },
  );
  return figures;
}

export const stackMemory: Scenario = {
  name: 'stack-memory',
  description:
    'gridwire start as a user runs it: resident memory of its whole process tree idle, at 1,000 events/s, and a minute after',
  uses: ['sink', 'loadGenerator'],
  async run(ctx) {
    const options = {
      settleSeconds: ctx.quick ? 20 : 30,
      idleSeconds: 10,
      eventsPerSecond: 1000,
      eventsPerRequest: 100,
      loadSeconds: ctx.quick ? 30 : 60,
      afterSeconds: 60,
      sampleEveryMs: 2000,
    };
    const run = await measureStackMemory(await ctx.sink(), await ctx.loadGenerator(), options, log);
    return {
      results: [
        {
          name: 'stack-memory',
          description: `gridwire start as npm start starts it (${run.command}), in a child process: the resident memory (RSS, /proc/<pid>/status; PSS beside it, shared pages divided among their sharers) of its whole process tree, sampled every ${options.sampleEveryMs / 1000} s. Idle is the median over ${options.idleSeconds} s after ${options.settleSeconds} s settling; the load is ${options.eventsPerSecond.toLocaleString('en-US')} events/s in requests of ${options.eventsPerRequest} to one topic for ${options.loadSeconds} s, with one webhook subscription on the benchmark's sink answering at once (the load generator and the sink are processes of their own, outside the tree); peak is the largest sample while it ran; "a minute after" is the median of the samples ${options.afterSeconds - 10} to ${options.afterSeconds} s after its last request.`,
          figures: stackMemoryFigures(run, options.eventsPerSecond),
          details: {
            options,
            command: run.command,
            idle: run.idle,
            peak: run.peak,
            loadMedianMb: run.loadMedianMb,
            after: run.after,
            published: run.published,
            delivered: run.delivered,
            loadCpuSeconds: run.loadCpuSeconds,
            timeline: run.timeline,
          },
        },
      ],
    };
  },
};

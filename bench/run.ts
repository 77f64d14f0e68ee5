/**
 * `npm run bench [-- --quick] [-- --only <scenarios> [--merge]]`: measures the local stack and
 * models AWS cost. `--merge` keeps the last results file's other scenarios, replacing only those
 * run (the report says which were measured when).
 *
 * The scenarios are registered in `harness/registry.ts`, one file each in `scenarios/`, and run
 * in this order: this machine's reference rates, the retry-engine simulation and a day-long hold
 * (virtual time), publish-to-webhook latency, sustained throughput with the happy-path cost model,
 * the batched ladder, filtered subscriptions, the delivery log, de-duplication, a topic's archive
 * (what it costs, and the rate of a replay of its archived events), ordered delivery per key and
 * per subscription, overload, retries with 30% of answers failing, dead endpoints and a crowd of
 * them beside healthy subscriptions, a dead-letter burst, a rate-limited endpoint, an SQS
 * destination, an unhealthy endpoint's backlog parked and drained once it answers again, the
 * all-in AWS bill, and the delivery function's memory. Results go to bench/results/latest.json
 * and docs/BENCHMARKS.md (with an SVG chart).
 */
import { execSync } from 'node:child_process';
import { cpus } from 'node:os';
import { Command } from 'commander';
import { silenceNodeVersionNotice } from '../local/quiet-warnings';
import { log } from './harness/log';
import { SCENARIOS } from './harness/registry';
import { mergeResults, type Results, readLastResults, writeReports } from './harness/report';
import { runScenarios, selectScenarios } from './harness/runner';

silenceNodeVersionNotice();

function gitCommit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const names = SCENARIOS.map((scenario) => scenario.name);
  const program = new Command()
    .option('--quick', 'smaller runs that finish in under a minute')
    .option('--only <scenarios>', `comma-separated: ${names.join(',')}`)
    .option('--merge', "with --only: keep the last results' other scenarios, replacing those run")
    .option('--minutes <n>', "the soak's minutes of load (default 30)")
    .addHelpText(
      'after',
      `\nScenarios, in run order (* only when --only names it):\n${SCENARIOS.map((s) => `  ${s.name.padEnd(14)} ${s.onlyWhenNamed === true ? '* ' : ''}${s.description}`).join('\n')}`,
    )
    .parse(process.argv);
  const options = program.opts<{ quick?: boolean; only?: string; merge?: boolean; minutes?: string }>();
  const minutes = options.minutes === undefined ? undefined : Number(options.minutes);
  if (minutes !== undefined && !(Number.isFinite(minutes) && minutes >= 1 && minutes <= 24 * 60)) {
    throw new Error(`--minutes must be a number of minutes from 1 to 1440, not ${options.minutes}`);
  }
  const base = options.merge === true ? await readLastResults() : undefined;
  if (options.merge === true && (options.only === undefined || base === undefined)) {
    throw new Error('--merge needs --only and a results file of an earlier run (bench/results/latest.json)');
  }
  if (base !== undefined && base.quick !== (options.quick === true)) {
    throw new Error('--merge: the earlier run and this one must both be quick, or neither');
  }
  const quick = options.quick === true;
  const only = options.only?.split(',').map((name) => name.trim());
  const chosen = selectScenarios(SCENARIOS, only);
  const started = Date.now();
  const { results: scenarios, handedOn } = await runScenarios(chosen, quick, minutes);
  // A run of every scenario keeps the last results of those it leaves out (the soak), which say
  // when they were measured.
  const longRuns = SCENARIOS.filter((scenario) => scenario.onlyWhenNamed === true).map(
    (scenario) => scenario.name,
  );
  const carried =
    only === undefined && base === undefined
      ? ((await readLastResults())?.scenarios ?? []).filter(
          (scenario) =>
            longRuns.includes(scenario.name) && !scenarios.some((ran) => ran.name === scenario.name),
        )
      : [];
  const results: Results = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    quick,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version },
    referenceRates: handedOn.referenceRates ?? null,
    durationSeconds: Math.round((Date.now() - started) / 1000),
    scenarios: [...scenarios, ...carried],
  };
  const table = await writeReports(base === undefined ? results : mergeResults(base, results, names), names);
  log('');
  log(table);
  log('');
  log('Wrote bench/results/latest.json and docs/BENCHMARKS.md');
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});

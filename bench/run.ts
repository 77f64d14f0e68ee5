/**
 * `npm run bench [-- --quick] [-- --only <scenarios>]`: measures the local stack and models AWS
 * cost.
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
import { type Results, writeReports } from './harness/report';
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
    .addHelpText(
      'after',
      `\nScenarios, in run order:\n${SCENARIOS.map((s) => `  ${s.name.padEnd(14)} ${s.description}`).join('\n')}`,
    )
    .parse(process.argv);
  const options = program.opts<{ quick?: boolean; only?: string }>();
  const quick = options.quick === true;
  const only = options.only?.split(',').map((name) => name.trim());
  const chosen = selectScenarios(SCENARIOS, only);
  const started = Date.now();
  const { results: scenarios, handedOn } = await runScenarios(chosen, quick);
  const results: Results = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    quick,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version },
    referenceRates: handedOn.referenceRates ?? null,
    durationSeconds: Math.round((Date.now() - started) / 1000),
    scenarios,
  };
  const table = await writeReports(results, names);
  log('');
  log(table);
  log('');
  log('Wrote bench/results/latest.json and docs/BENCHMARKS.md');
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});

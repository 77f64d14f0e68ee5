/**
 * `npm test`: every check, the independent ones side by side, so a 2-core machine is kept busy.
 *
 * 1. `scripts/ensure-browser.sh` (Chromium for the browser test).
 * 2. One jest run of the unit, benchmark-model, end-to-end, browser and package tests over three
 *    workers, the longest files first (`test/support/sequencer.js`): the end-to-end files mostly
 *    wait on webhooks and scaled retries, so the others fill the time.
 * 3. Then the isolation file (`npm run test:isolation`), the only local stack running, and beside
 *    it one jest run of the infrastructure tests (CDK synthesis, no stacks) and the IAM check of
 *    the AWS calls step 2's stacks recorded (`npm run test:iam`; the isolation file records its
 *    own calls apart).
 *
 * Lint and type-check (`npm run lint`), from the start, and step 3's infrastructure and IAM run
 * run at a low CPU priority: they take the time the tests leave idle (the isolation file uses
 * about half of one core) and never slow them. The output of a step run beside another is kept
 * and printed at the end. A step after a failed one is skipped (lint still ends and is printed);
 * the command fails if any step failed. Each jest step also writes its results to
 * `.test-output/jest/<step>.json`, which `npm run test:durations` reads.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './test-results';

const ROOT = join(__dirname, '..');
const JEST = join(ROOT, 'node_modules', '.bin', 'jest');

interface Step {
  name: string;
  command: string[];
  env?: Record<string, string>;
}

interface Outcome {
  name: string;
  /** `null`: not run, because an earlier step failed. */
  code: number | null;
  seconds: number;
  output?: string;
}

const jestStep = (name: string, args: string[], env?: Record<string, string>): Step => ({
  name,
  command: [JEST, ...args, '--json', `--outputFile=${join(RESULTS_DIR, `${name}.json`)}`],
  ...(env === undefined ? {} : { env }),
});

/** At a low CPU priority: what the tests leave idle. */
const idle = (step: Step): Step => ({ ...step, command: ['nice', '-n', '10', ...step.command] });

const LINT = idle({ name: 'lint', command: ['npm', 'run', 'lint'] });
const BROWSER_CHECK: Step = { name: 'browser-check', command: ['bash', 'scripts/ensure-browser.sh'] };
const TESTS = jestStep('tests', [
  '--selectProjects',
  'unit',
  'bench',
  'integration',
  'browser',
  'package',
  '--maxWorkers=3',
]);
const INFRA_IAM = idle(jestStep('infra-iam', ['--selectProjects', 'infra', 'iam', '--maxWorkers=2']));
/** Where the isolation file records its AWS calls, apart from those the IAM check reads beside it. */
const ISOLATION_CALLS = join(ROOT, '.test-output', 'aws-calls-isolation');
/** Where it records its API exchanges, apart from those the contract check reads beside it. */
const ISOLATION_EXCHANGES = join(ROOT, '.test-output', 'api-contract-isolation');
const ISOLATION = jestStep('isolation', ['--selectProjects', 'isolation', '--runInBand'], {
  TEST_AWS_CALLS_DIR: ISOLATION_CALLS,
  TEST_API_CONTRACT_DIR: ISOLATION_EXCHANGES,
});

const running = new Set<ChildProcess>();

/** Runs `step`: its output shown as it comes, or kept (`keep`) and handed back. */
function run(step: Step, keep: boolean): Promise<Outcome> {
  const started = Date.now();
  const [command, ...args] = step.command as [string, ...string[]];
  // Kept output: the step runs in a process group of its own, so stopping it stops its children.
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...step.env },
    stdio: keep ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    detached: keep,
  });
  running.add(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return new Promise((resolve) => {
    const done = (code: number) => {
      running.delete(child);
      const seconds = (Date.now() - started) / 1000;
      resolve({ name: step.name, code, seconds, ...(keep ? { output } : {}) });
    };
    child.once('error', (error) => {
      output += `${error.message}\n`;
      done(1);
    });
    child.once('exit', (code, signal) => done(code ?? (signal === null ? 1 : 128)));
  });
}

const skipped = (step: Step): Outcome => ({ name: step.name, code: null, seconds: 0 });
const passed = (outcomes: Outcome[]) => outcomes.every((outcome) => outcome.code === 0);

function stopAll(): void {
  for (const child of running) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopAll();
    process.exit(130);
  });
}

/** A kept output under a heading saying whose it is and how it ended. */
function printKept({ name, code, output }: Outcome, command: string): void {
  if (output === undefined) return;
  console.log(`\n==== ${command}: ${code === 0 ? 'passed' : 'FAILED'} ====`);
  process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
  console.log(`==== end of ${name} ====`);
}

async function main(): Promise<number> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const started = Date.now();
  const lint = run(LINT, true);
  const outcomes: Outcome[] = [await run(BROWSER_CHECK, false)];
  outcomes.push(passed(outcomes) ? await run(TESTS, false) : skipped(TESTS));
  if (passed(outcomes)) {
    rmSync(ISOLATION_CALLS, { recursive: true, force: true });
    outcomes.push(...(await Promise.all([run(ISOLATION, false), run(INFRA_IAM, true)])));
  } else {
    outcomes.push(skipped(ISOLATION), skipped(INFRA_IAM));
  }
  const linted = await lint;
  printKept(
    outcomes.find((outcome) => outcome.name === INFRA_IAM.name) as Outcome,
    'jest --selectProjects infra iam',
  );
  printKept(linted, 'npm run lint');
  console.log('\n==== summary ====');
  const all = [linted, ...outcomes];
  for (const { name, code, seconds } of all) {
    const result = code === null ? 'skipped' : code === 0 ? 'passed' : `FAILED (exit code ${code})`;
    console.log(`${name.padEnd(14)} ${result.padEnd(22)} ${seconds.toFixed(0).padStart(4)} s`);
  }
  const failed = all.filter((outcome) => outcome.code !== 0 && outcome.code !== null);
  const took = `${((Date.now() - started) / 1000).toFixed(0)} s`;
  console.log(
    failed.length === 0
      ? `all passed in ${took}`
      : `failed: ${failed.map(({ name }) => name).join(', ')} (${took})`,
  );
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error);
    stopAll();
    process.exit(1);
  },
);

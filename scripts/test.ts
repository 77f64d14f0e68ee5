/**
 * `npm test`: every check, the independent ones side by side.
 *
 * 1. `scripts/ensure-browser.sh` (Chromium for the browser test).
 * 2. In the background, lint and type-check (`npm run lint`); its output is kept and printed at
 *    the end.
 * 3. Beside it, one jest run of the unit, benchmark-model, infrastructure, end-to-end, browser and
 *    package tests over three workers, the longest files first (`test/support/sequencer.js`):
 *    the end-to-end files mostly wait on webhooks and scaled retries, so the others fill the time.
 * 4. Then the IAM check of the AWS calls step 3's stacks recorded (`npm run test:iam`).
 * 5. Then, alone, the isolation file (`npm run test:isolation`): the pipeline under its own load.
 *
 * A step after a failed one is skipped (lint still ends and is printed); the command fails if
 * any step failed. Each jest step also writes its results to `.test-output/jest/<step>.json`,
 * which `npm run test:durations` reads.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './test-results';

const ROOT = join(__dirname, '..');
const JEST = join(ROOT, 'node_modules', '.bin', 'jest');

interface Step {
  name: string;
  command: string;
  args: string[];
}

interface Outcome {
  name: string;
  /** `null`: not run, because an earlier step failed. */
  code: number | null;
  seconds: number;
}

const jestStep = (name: string, args: string[]): Step => ({
  name,
  command: JEST,
  args: [...args, '--json', `--outputFile=${join(RESULTS_DIR, `${name}.json`)}`],
});

const LINT: Step = { name: 'lint', command: 'npm', args: ['run', 'lint'] };
/** Run one after the other, beside lint. */
const STEPS: Step[] = [
  { name: 'browser-check', command: 'bash', args: ['scripts/ensure-browser.sh'] },
  jestStep('tests', [
    '--selectProjects',
    'unit',
    'bench',
    'infra',
    'integration',
    'browser',
    'package',
    '--maxWorkers=3',
  ]),
  jestStep('iam', ['--selectProjects', 'iam']),
  jestStep('isolation', ['--selectProjects', 'isolation', '--runInBand']),
];

const running = new Set<ChildProcess>();

/** Runs `step`: its output shown as it comes, or kept (`keep`) and handed back. */
function run(step: Step, keep: boolean): Promise<Outcome & { output: string }> {
  const started = Date.now();
  // Kept output: the step runs in a process group of its own, so stopping it stops its children.
  const child = spawn(step.command, step.args, {
    cwd: ROOT,
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
      resolve({ name: step.name, code, seconds: (Date.now() - started) / 1000, output });
    };
    child.once('error', (error) => {
      output += `${error.message}\n`;
      done(1);
    });
    child.once('exit', (code, signal) => done(code ?? (signal === null ? 1 : 128)));
  });
}

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

async function main(): Promise<number> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const started = Date.now();
  const lint = run(LINT, true);
  const outcomes: Outcome[] = [];
  for (const step of STEPS) {
    if (outcomes.some((outcome) => outcome.code !== 0)) {
      outcomes.push({ name: step.name, code: null, seconds: 0 });
      continue;
    }
    outcomes.push(await run(step, false));
  }
  const linted = await lint;
  const lintOk = linted.code === 0;
  console.log(`\n==== npm run lint: ${lintOk ? 'passed' : 'FAILED'} ====`);
  process.stdout.write(linted.output.endsWith('\n') ? linted.output : `${linted.output}\n`);
  console.log('==== summary ====');
  for (const { name, code, seconds } of [linted, ...outcomes]) {
    const result = code === null ? 'skipped' : code === 0 ? 'passed' : `FAILED (exit code ${code})`;
    console.log(`${name.padEnd(14)} ${result.padEnd(22)} ${seconds.toFixed(0).padStart(4)} s`);
  }
  const failed = [linted, ...outcomes].filter((outcome) => outcome.code !== 0 && outcome.code !== null);
  console.log(
    `${failed.length === 0 ? 'all passed' : `failed: ${failed.map((outcome) => outcome.name).join(', ')}`} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
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

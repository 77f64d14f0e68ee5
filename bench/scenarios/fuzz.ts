/**
 * The management API fuzzed at length (`npm run bench -- --only fuzz`; left out of a plain
 * `npm run bench`): the fuzz of `test/integration/management-fuzz.test.ts` (`../management-fuzz.ts`)
 * with many more requests (20,000), on a local stack of its own, every request sent and judged however
 * many fail, and the first failures kept with the request that caused each. Its goal is no answer
 * of 500 or more; the figures say what was sent, how it was answered and how fast.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../../local/stack';
import { round } from '../harness/figures';
import { log } from '../harness/log';
import type { Figure, Scenario } from '../harness/types';
import { checkAlive, FuzzFixtures, type FuzzReport, runFuzz } from '../management-fuzz';

/** Requests of a full run and of a quick one (beside one to each route first). */
const RUNS = { full: 20_000, quick: 1_000 } as const;

/** The figures of a run; `alive`: whether the stack answered known-good requests after it. */
export function fuzzFigures(report: FuzzReport, alive: boolean): Figure[] {
  const count = (statusClass: string) => report.byClass[statusClass] ?? 0;
  const otherFailures = report.failureCount - report.serverErrors;
  return [
    { metric: 'requests sent', value: report.sent, unit: 'requests' },
    { metric: 'answered 2xx', value: count('2xx'), unit: 'requests' },
    { metric: 'answered 4xx', value: count('4xx'), unit: 'requests' },
    {
      metric: 'answered 500 or more',
      value: report.serverErrors,
      unit: 'requests',
      goal: '0',
      met: report.serverErrors === 0,
    },
    {
      metric: 'other failed checks (a 4xx without the error body, no answer)',
      value: otherFailures,
      unit: 'requests',
      goal: '0',
      met: otherFailures === 0,
    },
    {
      metric: 'requests per second (one at a time)',
      value: round(report.sent / report.seconds, 1),
      unit: 'req/s',
    },
    {
      metric: 'answer time p50 / p99',
      value: `${round(report.latencyMs.p50, 1)} / ${round(report.latencyMs.p99, 1)}`,
      unit: 'ms',
    },
    {
      metric: 'stack answered known-good requests after the run',
      value: alive ? 'yes' : 'no',
      unit: '',
      goal: 'yes',
      met: alive,
    },
  ];
}

export const fuzz: Scenario = {
  name: 'fuzz',
  description: `The management API fuzzed: ${RUNS.full.toLocaleString('en-US')} generated requests over every admin route, no 5xx`,
  uses: [],
  onlyWhenNamed: true,
  async run(ctx) {
    const runs = ctx.quick ? RUNS.quick : RUNS.full;
    const dataDir = await mkdtemp(join(tmpdir(), 'gridwire-bench-fuzz-'));
    // The stack's defaults (topics read afresh on every publish, so a change is answered at once);
    // an unhandled error is logged, with its stack, beside the request the report keeps.
    const stack = await startLocalStack({ dataDir, port: 0, logLevel: 'ERROR' });
    const fixtures = await FuzzFixtures.prepare(stack);
    try {
      log(
        `fuzz: ${runs.toLocaleString('en-US')} requests at random over every admin route, after one to each`,
      );
      const report = await runFuzz(stack, fixtures, { runs, mode: 'survey' });
      let alive = true;
      let aliveProblem: string | undefined;
      try {
        await checkAlive(stack, fixtures);
      } catch (error) {
        alive = false;
        aliveProblem = (error as Error).message;
      }
      log(
        `fuzz: ${report.sent} requests in ${round(report.seconds, 1)} s, ${report.serverErrors} answered 500 or more, ${report.failureCount} failed a check (seed ${report.seed})`,
      );
      for (const failure of report.failures.slice(0, 3)) log(`fuzz: ${failure.problem}\n${failure.request}`);
      return {
        results: [
          {
            name: 'fuzz',
            description: `Requests generated with fast-check (seed ${report.seed}) over the ${report.routes.length} management routes (every admin route through the admin token, and through the console's API with an operator's and a portal's session, and the validation URL), one to each route and then ${runs.toLocaleString('en-US')} at random, sent one at a time to a local stack of its own: bodies made from the OpenAPI document's request schemas and those mutated (values of other types, huge and odd strings, deep nesting, prototype keys, invalid JSON and UTF-8), odd content types, path parameters and query strings. Checked: no answer of 500 or more, every 4xx with the API's JSON error body, an answer to each, and the stack answering known-good requests afterwards. Requests per second include making again the fixtures a request deleted (${round(report.restoreSeconds, 1)} s of ${round(report.seconds, 1)} s).`,
            figures: fuzzFigures(report, alive),
            details: {
              seed: report.seed,
              byStatus: report.byStatus,
              routesWithout2xx: report.routesWithout2xx,
              slowestRoutes: report.slowestRoutes,
              latencyMs: report.latencyMs,
              fixtureRequests: fixtures.setupRequests,
              failures: report.failures,
              ...(aliveProblem === undefined ? {} : { aliveProblem }),
            },
          },
        ],
      };
    } finally {
      await fixtures.stop();
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};

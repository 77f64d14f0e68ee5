/**
 * The fuzz scenario's figures (`bench/scenarios/fuzz.ts`): what was sent and how it was answered,
 * the goals of no answer of 500 or more, no other failed check and a stack that still answers.
 */
import type { FuzzReport } from '../../bench/management-fuzz';
import { fuzzFigures } from '../../bench/scenarios/fuzz';

const report = (over: Partial<FuzzReport> = {}): FuzzReport => ({
  seed: 1,
  sent: 2_000,
  byClass: { '2xx': 600, '4xx': 1_400 },
  byStatus: { '200': 600, '400': 1_400 },
  failureCount: 0,
  failures: [],
  serverErrors: 0,
  routes: [],
  routesWithout2xx: [],
  seconds: 40,
  restoreSeconds: 4,
  slowestRoutes: [],
  latencyMs: { mean: 12, p50: 5.04, p90: 20, p99: 240.26, max: 800 },
  ...over,
});

const byMetric = (figures: ReturnType<typeof fuzzFigures>) =>
  Object.fromEntries(figures.map((figure) => [figure.metric, figure]));

it('reports the requests, their answers and their rate, with every goal met on a clean run', () => {
  const figures = byMetric(fuzzFigures(report(), true));
  expect(figures['requests sent']?.value).toBe(2_000);
  expect(figures['answered 2xx']?.value).toBe(600);
  expect(figures['answered 4xx']?.value).toBe(1_400);
  expect(figures['requests per second (one at a time)']?.value).toBe(50);
  expect(figures['answer time p50 / p99']?.value).toBe('5 / 240.3');
  expect(
    Object.values(figures)
      .filter((figure) => figure.goal !== undefined)
      .map((figure) => figure.met),
  ).toEqual([true, true, true]);
});

it('misses its goals on a 5xx, on another failed check, and on a stack that no longer answers', () => {
  const figures = byMetric(
    fuzzFigures(report({ serverErrors: 2, failureCount: 3, byClass: { '5xx': 2 } }), false),
  );
  expect(figures['answered 500 or more']).toMatchObject({ value: 2, met: false });
  expect(figures['other failed checks (a 4xx without the error body, no answer)']).toMatchObject({
    value: 1,
    met: false,
  });
  expect(figures['stack answered known-good requests after the run']).toMatchObject({
    value: 'no',
    met: false,
  });
});

import { shareOf, throughputFigures } from '../../bench/harness/figures';
import { SCENARIOS } from '../../bench/harness/registry';
import { markdown, mergeResults, type Results } from '../../bench/harness/report';
import { runScenarios, selectScenarios } from '../../bench/harness/runner';
import type { ReferenceRate, ReferenceRates, Scenario, ScenarioResult } from '../../bench/harness/types';
import type { PublishOutcome } from '../../bench/publisher-protocol';

const rate = (value: number, unit: string): ReferenceRate => ({
  rate: value,
  unit,
  label: unit,
  count: value * 5,
  failed: 0,
  warmUpSeconds: 2,
  measuredSeconds: 5,
  concurrency: 8,
  method: 'test',
});
const REFERENCE: ReferenceRates = {
  loopbackHttp: rate(20_000, 'requests/s'),
  sqsRoundTrips: rate(400, 'round trips/s'),
};

const names = (scenarios: readonly Scenario[]) => scenarios.map((scenario) => scenario.name);

describe('scenario selection', () => {
  it('runs every registered scenario but the long ones, the reference rates first, when none is named', () => {
    const all = selectScenarios(SCENARIOS, undefined);
    expect(names(all)).toEqual(names(SCENARIOS.filter((scenario) => scenario.onlyWhenNamed !== true)));
    expect(names(all)).not.toContain('soak');
    expect(all[0]?.measuresReferenceRates).toBe(true);
  });

  it('runs a long scenario when it is named', () => {
    expect(names(selectScenarios(SCENARIOS, ['soak']))).toEqual(['soak']);
  });

  it('adds the reference rates, first, to a throughput scenario', () => {
    expect(names(selectScenarios(SCENARIOS, ['overload', 'throughput']))).toEqual([
      'reference',
      'throughput',
      'overload',
    ]);
  });

  it('leaves the reference out when no chosen scenario uses its rates', () => {
    expect(names(selectScenarios(SCENARIOS, ['crowd', 'latency']))).toEqual(['latency', 'crowd']);
  });

  it('runs the reference alone when it is named alone', () => {
    expect(names(selectScenarios(SCENARIOS, ['reference']))).toEqual(['reference']);
  });

  it('refuses a name it does not know, listing the known ones', () => {
    expect(() => selectScenarios(SCENARIOS, ['latency', 'nope'])).toThrow(
      /unknown scenario: nope \(known: reference, simulation, /,
    );
  });

  it('registers each name once, and every throughput scenario after the reference', () => {
    expect(new Set(names(SCENARIOS)).size).toBe(SCENARIOS.length);
    const referenceAt = SCENARIOS.findIndex((scenario) => scenario.measuresReferenceRates === true);
    SCENARIOS.forEach((scenario, index) => {
      if (scenario.usesReferenceRates === true) expect(index).toBeGreaterThan(referenceAt);
    });
  });

  it('keeps the scenarios that share a stack next to each other, so it is started once', () => {
    const sharing = SCENARIOS.flatMap((scenario, index) =>
      scenario.uses.includes('sharedStack') ? [index] : [],
    );
    expect(sharing.length).toBeGreaterThan(0);
    const [from = 0] = sharing;
    expect(sharing).toEqual(sharing.map((_, offset) => from + offset));
  });
});

describe('running scenarios', () => {
  it('hands what one scenario measured to the ones after it, as typed values', async () => {
    const seen: unknown[] = [];
    const first: Scenario = {
      name: 'first',
      description: '',
      uses: [],
      run: async () => ({
        results: [{ name: 'first', description: '', figures: [], details: {} }],
        handOn: { latencyP99: { ms: 12.5 } },
      }),
    };
    const second: Scenario = {
      name: 'second',
      description: '',
      uses: [],
      run: async (ctx) => {
        seen.push(ctx.handedOn.latencyP99);
        return { results: [{ name: 'second', description: '', figures: [], details: {} }] };
      },
    };

    const { results, handedOn } = await runScenarios([first, second], true);

    expect(seen).toEqual([{ ms: 12.5 }]);
    expect(results.map((result) => result.name)).toEqual(['first', 'second']);
    expect(handedOn).toEqual({ latencyP99: { ms: 12.5 } });
  });
});

describe('shares of the reference rates', () => {
  it('divides a rate by the reference, per unit of its work', () => {
    expect(shareOf(REFERENCE, 'loopbackHttp', 5000)).toEqual({
      share: { of: 'loopbackHttp', value: 0.25, eventsPerUnit: 1 },
    });
    expect(shareOf(REFERENCE, 'sqsRoundTrips', 20_000, 100)).toEqual({
      share: { of: 'sqsRoundTrips', value: 0.5, eventsPerUnit: 100 },
    });
  });

  it('gives each rate of a two-rate figure, in its order', () => {
    expect(shareOf(REFERENCE, 'loopbackHttp', [5000, 3000])).toEqual({
      share: { of: 'loopbackHttp', value: '0.25 / 0.15', eventsPerUnit: 1 },
    });
    expect(shareOf(REFERENCE, 'sqsRoundTrips', [44_000, 39_200], 100)).toEqual({
      share: { of: 'sqsRoundTrips', value: '1.10 / 0.98', eventsPerUnit: 100 },
    });
  });

  it('adds nothing when the reference was not measured', () => {
    expect(shareOf(undefined, 'loopbackHttp', 5000)).toEqual({});
  });
});

describe('the throughput block', () => {
  const published: PublishOutcome = {
    requests: 10,
    accepted: 1000,
    failedRequests: 0,
    elapsedMs: 1000,
    publishLatencies: [1, 2, 3, 4],
    answers: { '200': 10 },
    refusalsWithRetryAfter: 0,
  };
  const run = { published, steadyRate: 5012.4, steadyMin: 4800, latencies: [10, 20, 30, 40] };

  it('reports the delivered rate against its goal, with shares of the loopback HTTP reference', () => {
    const figures = throughputFigures(run, { goal: '>= 5,000', met: true }, REFERENCE);

    expect(figures.deliveredMean).toEqual({
      metric: 'delivered per second while publishing (mean)',
      value: 5012,
      unit: 'events/s',
      goal: '>= 5,000',
      met: true,
      share: { of: 'loopbackHttp', value: 0.25, eventsPerUnit: 1 },
    });
    expect(figures.slowest.share).toEqual({ of: 'loopbackHttp', value: 0.24, eventsPerUnit: 1 });
    expect(figures.accepted.value).toBe(1000);
    expect(figures.latencyUnderLoad.value).toBe('20 / 40');
    expect(figures.publishP99.value).toBe(4);
  });

  it('leaves the goal unjudged on a quick run, and the shares out without a reference', () => {
    const figures = throughputFigures(run, { goal: '>= 5,000', met: undefined }, undefined);

    expect(figures.deliveredMean).not.toHaveProperty('met');
    expect(figures.deliveredMean).not.toHaveProperty('share');
  });
});

describe('merging a later run of some scenarios', () => {
  const scenario = (name: string, value: number): ScenarioResult => ({
    name,
    description: `${name} scenario`,
    figures: [{ metric: `${name} rate`, value, unit: 'events/s' }],
    details: {},
  });
  const run = (date: string, commit: string, scenarios: ScenarioResult[]): Results => ({
    date,
    commit,
    quick: false,
    machine: { cpus: 2, cpuModel: 'test', node: 'v24' },
    referenceRates: null,
    durationSeconds: 100,
    scenarios,
  });
  // `machine reference` is no registered scenario: it keeps its place.
  const base = run('2026-12-01T10:00:00.000Z', 'aaaa', [
    scenario('machine reference', 0),
    scenario('latency', 1),
    scenario('archive', 2),
  ]);

  it("replaces the run scenarios' results, keeps the others, in the registry's order, and notes the run", () => {
    const later = run('2026-12-02T10:00:00.000Z', 'bbbb', [
      scenario('validation', 3),
      scenario('latency', 4),
    ]);
    const merged = mergeResults(base, later, ['latency', 'validation', 'archive']);
    expect(merged.scenarios.map((s) => [s.name, s.figures[0]?.value])).toEqual([
      ['machine reference', 0],
      ['latency', 4],
      ['validation', 3],
      ['archive', 2],
    ]);
    expect(merged.date).toBe(base.date);
    expect(merged.commit).toBe('aaaa');
    expect(merged.merged).toEqual([
      { scenarios: ['validation', 'latency'], date: later.date, commit: 'bbbb', durationSeconds: 100 },
    ]);
    const page = markdown(merged, ['latency', 'validation', 'archive']);
    expect(page).toContain('commit `aaaa`');
    expect(page).toContain(
      'Scenarios `validation`, `latency` measured later, by `npm run bench -- --only validation,latency --merge` on 2026-12-02T10:00:00.000Z (commit `bbbb`, 100 s)',
    );
    expect(markdown(base, ['latency', 'archive'])).not.toContain('measured later');
  });
});

/**
 * Runs the chosen scenarios in order: gives each a context with the shared resources (started on
 * first use, stopped once no scenario left to run uses them) and what the scenarios before it
 * handed on, and gathers their results.
 */
import { Publishers, Sink } from '../load';
import { type LiveStack, liveStack, type Rig } from './live-stack';
import { warmUp } from './load-run';
import type { BenchContext, HandOn, Scenario, ScenarioResult, SharedResource } from './types';

/** A resource started on first use; `stop` stops it if it started (a later use starts it again). */
class Lazy<T> {
  private value: Promise<T> | undefined;

  constructor(
    private readonly start: () => Promise<T>,
    private readonly stopValue: (value: T) => Promise<void>,
  ) {}

  get(): Promise<T> {
    this.value ??= this.start();
    return this.value;
  }

  async stop(): Promise<void> {
    const value = this.value;
    this.value = undefined;
    // A start that failed left nothing to stop (its error reached the scenario that asked).
    const started = await value?.catch(() => undefined);
    if (started !== undefined) await this.stopValue(started);
  }
}

class Context implements BenchContext {
  readonly handedOn: Partial<HandOn> = {};
  private readonly resources = {
    sink: new Lazy(
      () => Sink.start(),
      (sink) => sink.stop(),
    ),
    loadGenerator: new Lazy(
      () => Publishers.start(),
      (publishers) => publishers.stop(),
    ),
    sharedStack: new Lazy(
      async () => {
        const live = await liveStack({ timeScale: 1 });
        try {
          await warmUp(await this.rig(live));
        } catch (error) {
          await live.close();
          throw error;
        }
        return live;
      },
      (live) => live.close(),
    ),
  } satisfies Record<SharedResource, { stop(): Promise<void> }>;

  constructor(
    readonly quick: boolean,
    readonly minutes: number | undefined,
  ) {}

  sink(): Promise<Sink> {
    return this.resources.sink.get();
  }

  loadGenerator(): Promise<Publishers> {
    return this.resources.loadGenerator.get();
  }

  sharedStack(): Promise<LiveStack> {
    return this.resources.sharedStack.get();
  }

  async rig(live: LiveStack): Promise<Rig> {
    return { live, sink: await this.sink(), publishers: await this.loadGenerator() };
  }

  /** Stops what is not in `kept`: the shared stack first, since it delivers to the sink. */
  async release(kept: ReadonlySet<SharedResource>): Promise<void> {
    for (const resource of ['sharedStack', 'sink', 'loadGenerator'] as const) {
      if (!kept.has(resource)) await this.resources[resource].stop();
    }
  }
}

/** Runs `scenarios` in the order given; their results in that order, and what they handed on. */
export async function runScenarios(
  scenarios: readonly Scenario[],
  quick: boolean,
  minutes?: number,
): Promise<{ results: ScenarioResult[]; handedOn: Partial<HandOn> }> {
  const context = new Context(quick, minutes);
  const results: ScenarioResult[] = [];
  try {
    for (const [index, scenario] of scenarios.entries()) {
      await context.release(new Set(scenarios.slice(index).flatMap((s) => s.uses)));
      const run = await scenario.run(context);
      results.push(...run.results);
      Object.assign(context.handedOn, run.handOn);
    }
  } finally {
    await context.release(new Set());
  }
  return { results, handedOn: context.handedOn };
}

/**
 * The scenarios `only` names (when undefined, every one but those run only when named), in the order of `all`, with the
 * scenario that measures the reference rates whenever a chosen one uses them (it comes first in
 * `all`, so it runs first). Throws on a name that is not in `all`.
 */
export function selectScenarios(all: readonly Scenario[], only: readonly string[] | undefined): Scenario[] {
  const known = all.map((scenario) => scenario.name);
  const unknown = only?.filter((name) => !known.includes(name)) ?? [];
  if (unknown.length > 0)
    throw new Error(`unknown scenario: ${unknown.join(', ')} (known: ${known.join(', ')})`);
  const chosen = all.filter((scenario) =>
    only === undefined ? scenario.onlyWhenNamed !== true : only.includes(scenario.name),
  );
  const referenceWanted = chosen.some((scenario) => scenario.usesReferenceRates === true);
  return all.filter(
    (scenario) => chosen.includes(scenario) || (referenceWanted && scenario.measuresReferenceRates === true),
  );
}

/**
 * The benchmark's words: a scenario (registered in `registry.ts`, one file each in
 * `../scenarios/`), what it reports (results made of figures), what it hands on to the scenarios
 * after it, and this machine's reference rates.
 */
import type { Publishers, Sink } from '../load';
import type { LiveStack, Rig } from './live-stack';

/** This machine's reference rates, measured in the same run (`scenarios/reference.ts`). */
export type ReferenceKey = 'loopbackHttp' | 'sqsRoundTrips';

export interface ReferenceRate {
  /** Per second, in `unit`. */
  rate: number;
  unit: string;
  /** What was measured, for the report. */
  label: string;
  /** Completed in the measured window; `failed` did not complete or were not answered 200. */
  count: number;
  failed: number;
  warmUpSeconds: number;
  measuredSeconds: number;
  /** Requests (or round trips) kept in flight at once. */
  concurrency: number;
  /** How it was measured, in a sentence. */
  method: string;
}

export type ReferenceRates = Record<ReferenceKey, ReferenceRate>;

/**
 * A figure as a multiple of one of this machine's reference rates: `value` (a number, or
 * `a / b` when the figure holds two rates) is the figure's rate, in units of the reference's
 * work (`eventsPerUnit` events per request or round trip), divided by the reference rate.
 */
export interface Share {
  of: ReferenceKey;
  value: number | string;
  eventsPerUnit: number;
}

export interface Figure {
  metric: string;
  value: number | string;
  unit: string;
  goal?: string;
  met?: boolean;
  share?: Share;
}

export interface TimelinePoint {
  second: number;
  delivered: number;
  p50: number;
  p99: number;
}

export interface ScenarioResult {
  name: string;
  description: string;
  figures: Figure[];
  details: Record<string, unknown>;
  timeline?: TimelinePoint[];
}

/** The latency scenario's publish-to-webhook p99, which the dead-endpoint scenario's goal cites. */
export interface LatencyP99 {
  ms: number;
  /** The date (`yyyy-mm-dd`) of the earlier run it was read from; absent when measured in this run. */
  earlierRun?: string;
}

/** What scenarios hand on to the scenarios after them in the same run. */
export interface HandOn {
  referenceRates: ReferenceRates;
  latencyP99: LatencyP99;
}

/** A scenario's run: the results it reports, and what it hands on. */
export interface ScenarioRun {
  results: ScenarioResult[];
  handOn?: Partial<HandOn>;
}

/**
 * What a scenario uses that outlives it: the webhook sink and the load generator (child
 * processes), and the local stack that consecutive scenarios share (warmed up once). The harness
 * starts each on first use and stops it once no scenario left to run uses it.
 */
export type SharedResource = 'sink' | 'loadGenerator' | 'sharedStack';

/** What the harness gives each scenario. */
export interface BenchContext {
  /** `--quick`: shorter runs. */
  readonly quick: boolean;
  /** `--minutes`: the length of a long-running scenario's load (the soak's), when given. */
  readonly minutes: number | undefined;
  /** What the scenarios run before this one handed on. */
  readonly handedOn: Readonly<Partial<HandOn>>;
  sink(): Promise<Sink>;
  loadGenerator(): Promise<Publishers>;
  /** The local stack shared by consecutive scenarios: time scale 1, warmed up once. */
  sharedStack(): Promise<LiveStack>;
  /** `live` with the sink and the load generator: what a load run needs. */
  rig(live: LiveStack): Promise<Rig>;
}

export interface Scenario {
  /** The name `--only` selects it by. */
  readonly name: string;
  /** One line for `--help`. */
  readonly description: string;
  readonly uses: readonly SharedResource[];
  /** It hands on this machine's reference rates; chosen too whenever a scenario uses them. */
  readonly measuresReferenceRates?: boolean;
  /** Its throughput figures are also given as shares of the reference rates, measured before it. */
  readonly usesReferenceRates?: boolean;
  /** Run only when `--only` names it (a long run that `npm run bench` leaves out). */
  readonly onlyWhenNamed?: boolean;
  run(ctx: BenchContext): Promise<ScenarioRun>;
}

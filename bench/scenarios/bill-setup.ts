/**
 * The bill scenario's set-up (`bill.ts`): what it assumes, the construct's settings read from the
 * synthesized template, and the functions' cold starts, measured as the construct bundles them.
 */
import { ENV, type FunctionKey } from '../../shared/config/resources';
import { type ColdStart, measureColdStarts } from '../cold-start';
import type { BillSettings, SystemLogLevel } from '../cost';
import { log } from '../harness/log';
import { readStackSettings, type StackSettings } from '../stack-settings';

/**
 * Cold starts of each function per million events (an assumption: at a steady few hundred events
 * a second a million events take under an hour, and Lambda recycles instances every few hours and
 * adds some as load varies; ten each is on the generous side).
 */
export const COLD_STARTS_PER_MILLION_EVENTS = 10;
/** X-Ray's default sampling rule: the first request each second, then 5% of the rest. */
const DEFAULT_SAMPLING = { reservoirPerSecond: 1, rate: 0.05 };
/**
 * Secrets Manager reads per cold start: the publish function opens sealed topic keys (one
 * secret, kept for the container's life); delivery reads its secret only for subscriptions with
 * secret headers, which these runs do not have.
 */
const SECRET_READS_PER_COLD_START: Record<FunctionKey, number> = {
  publish: 1,
  management: 2,
  delivery: 0,
  deadLetter: 0,
};
/** Stored over ingested log bytes: 1, the upper bound (CloudWatch stores them compressed). */
const LOG_STORED_SHARE = 1;

/**
 * The configuration priced beside the default for small publishes: the publish function's URL
 * (`publishIngress: 'functionUrl'`) and metric points kept across invocations for this many
 * seconds (`metricsFlushSeconds`).
 */
export const KEPT_METRICS_SECONDS = 60;

/** Pollers Lambda's SQS event source starts with (more are added while a backlog builds). */
export const LAMBDA_INITIAL_POLLERS = 5;

/**
 * Hours a month a management instance serves the console or portal, assumed: one instance kept
 * busy all month (a 30-day month) by a page left open, which reads the session key once per its
 * cache period (`SESSION_KEY_CACHE_SECONDS`). An upper bound for one open page; with no one
 * using the console or portal nothing reads the key.
 */
export const ASSUMED_CONSOLE_INSTANCE_HOURS = 30 * 24;

/** Billed time of one idle backlog sweep (four small index queries), assumed: no run measures it. */
export const ASSUMED_SWEEP_MS = 30;
/**
 * Instances Lambda keeps taking a function's invocations, over the concurrency the rate needs
 * (invocations a second times their mean duration): an assumption, as Lambda spreads a steady
 * load over more warm instances than it needs at any one moment.
 */
export const INSTANCES_OVER_CONCURRENCY = 4;

/** What the bill is priced with, before any case runs. */
export interface BillSetUp {
  stackSettings: StackSettings;
  coldStarts: Record<FunctionKey, ColdStart | undefined>;
  /** A function's measured cold start, ms (0 when not measured). */
  initMs(fn: FunctionKey): number;
  settings: BillSettings;
  /** The application log level Lambda gives the loggers: INFO when the function sets none. */
  applicationLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Per subscription or per topic, as the construct's functions count them. */
  subscriptionMetrics: boolean;
}

/** Lambda's system log level as the bill takes it: unset is INFO; WARN and above drop the platform records. */
const systemLevel = (level: string | undefined): SystemLogLevel =>
  level === undefined || level === 'INFO' ? 'INFO' : level === 'DEBUG' ? 'DEBUG' : 'WARN';

/** Reads the stack's settings and measures the cold starts (`quick`: one each, else three). */
export async function billSetUp(quick: boolean): Promise<BillSetUp> {
  log('bill: reading the stack settings from the synthesized template');
  const stackSettings = readStackSettings();
  log('bill: cold starts of the publish and delivery functions, bundled as the construct bundles them');
  const coldStarts = await measureColdStarts(['publish', 'delivery'], quick ? 1 : 3);
  const initMs = (fn: FunctionKey) => (coldStarts[fn] as ColdStart | undefined)?.initMs ?? 0;
  const delivery = stackSettings.functions.delivery;
  const settings: BillSettings = {
    systemLogLevel: systemLevel(delivery.systemLogLevel),
    tracing: delivery.tracing,
    sampling: DEFAULT_SAMPLING,
    accessLogFormat: stackSettings.accessLogFormat,
    coldStartsPerMillionEvents: COLD_STARTS_PER_MILLION_EVENTS,
    initMs: { publish: initMs('publish'), management: 0, delivery: initMs('delivery'), deadLetter: 0 },
    secretReadsPerColdStart: SECRET_READS_PER_COLD_START,
    logRetentionMonths: Math.max(...stackSettings.logRetentionDays) / 30,
    logStoredShare: LOG_STORED_SHARE,
  };
  return {
    stackSettings,
    coldStarts,
    initMs,
    settings,
    applicationLevel: (delivery.applicationLogLevel ?? 'INFO') as BillSetUp['applicationLevel'],
    subscriptionMetrics: delivery.environment[ENV.subscriptionMetrics] === 'true',
  };
}

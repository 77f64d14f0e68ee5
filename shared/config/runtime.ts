/**
 * Function configuration, read once at cold start from the environment variables named in
 * `shared/config/resources.ts`. On AWS the environment is the process's, set by CDK; the local
 * stack passes a record built from its options, so every setting is read and checked the same
 * way in both places. A missing or malformed variable fails fast, naming it and the rule.
 */

import { isValidMetricsNamespace, METRICS_NAMESPACE, METRICS_NAMESPACE_RULE } from '../observability/metrics';
import { firstControlCharacter } from '../platform/control-characters';
import { checkProxyUrl } from './egress';
import { type PortalBranding, parseFrameAncestors, parsePortalBranding } from './portal';
import { ARCHIVE_WINDOW_SECONDS, ENV, QUEUES, type QueueKey } from './resources';
import { parseSources, type SourceDefinition } from './sources';

/** Environment variables as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

export interface RuntimeConfig {
  /** The state table; every function but the dead-letter one uses it. */
  tableName?: string;
  /**
   * URLs of the queues this function was given (each queue's `urlEnv`); a function gets only the
   * queues it sends to or reads from, none for the management function.
   */
  queueUrls: Partial<Record<QueueKey, string>>;
  /** Divides every delivery delay and TTL; 1 on AWS. */
  timeScale: number;
  allowHttpEndpoints: boolean;
  /** How long a delivery function trusts a cached subscription. */
  subscriptionCacheMs: number;
  /**
   * How long a publish function trusts a cached topic (keys and subscription-list version). The
   * management API waits this long after a change before it answers, so a change is live when
   * the call returns.
   */
  topicCacheMs: number;
  /**
   * Jobs waiting in the delivery queue from which the publish function refuses publishes (429,
   * `Retry-After`), until half as many; 0 never refuses (see `shared/publish/admission.ts`).
   */
  deliveryBacklogLimit: number;
  deliveryConcurrency: number;
  /**
   * Requests a backlog's drain has in flight to its endpoint at most (its window starts at 2 and
   * doubles while the endpoint answers). Default a quarter of `deliveryConcurrency`, as much as
   * one subscription gets of a worker.
   */
  drainConcurrency: number;
  /**
   * Whether events are routed into subscriptions' backlogs (unhealthy endpoints, long waits).
   * Off, long waits hop on the retry queue as SQS delays; backlogs that hold events still drain.
   */
  backlog: boolean;
  /** Waits longer than this (ms, before the time scale) are kept in the backlog instead of hopping. */
  backlogAfterMs: number;
  /**
   * How long a delivery function trusts its copy of an endpoint's health. A probation another
   * worker began reaches this one within this long; an admin's `enable` waits this long.
   */
  healthCacheMs: number;
  historyRetentionDays: number;
  /** How long after its publish an event is surely in its topic's archive (ms). */
  archiveLagMs: number;
  publicUrl?: string;
  /** The base of topic `endpoint` properties, when not the public URL (`ENV.publishUrl`). */
  publishUrl?: string;
  /** The dead-letter bucket, for the functions that write or read dead letters. */
  deadLetterBucket?: string;
  /** The fan-out bucket, for the publish (writes) and delivery (reads) functions. */
  fanOutBucket?: string;
  /** The backlog bucket, for the delivery function (segments of stored events). */
  backlogBucket?: string;
  /** The archive bucket, for the dead-letter function (writes) and the management function (replays). */
  archiveBucket?: string;
  /**
   * Where the key that seals secret delivery header values comes from: a Secrets Manager secret
   * (AWS) or the key's text (the local stack). Neither: secret header values can't be used.
   */
  headerKeySecretArn?: string;
  headerKey?: string;
  /**
   * Where the key that seals topic and namespace access keys comes from, as for `headerKey`.
   * Neither: keys are written unsealed, and sealed ones can't be read.
   */
  topicKeySecretArn?: string;
  topicKey?: string;
  /**
   * Where the key that signs console and portal session tokens is kept: a Secrets Manager secret
   * (AWS) or a file (the local stack). Neither: no session can be made or opened.
   */
  sessionKeySecretArn?: string;
  sessionKeyFile?: string;
  /** The origins that may frame the portal (none: it may not be framed). */
  portalFrameAncestors: string[];
  /** The portal's title, logo and accent colour. */
  portalBranding: PortalBranding;
  /** Whether endpoints must pass the validation handshake before events are matched to them. */
  validateEndpoints: boolean;
  /** Whether endpoint URLs aimed at non-public addresses are refused (SSRF protection). */
  blockPrivateEndpoints: boolean;
  /** The HTTP proxy requests to endpoints go through (`ENV.egressProxyUrl`); absent: direct. */
  egressProxyUrl?: string;
  /** The fixed public addresses requests to endpoints leave from (`ENV.egressAddresses`); empty: none. */
  egressAddresses: string[];
  /** The queues topics take events from (`ENV.sources`); empty: none. */
  sources: SourceDefinition[];
  /**
   * The AWS resources subscriptions may deliver to: ARNs, `*` standing for any run of characters
   * within one segment, `<resource>|<role>` pairing a resource with another account's role
   * (`shared/delivery/rules/resource-destinations.ts`). Empty: none.
   */
  resourceDestinations: string[];
  /**
   * The S3 buckets dead letters may be written to beside the stack's own: bucket ARN patterns,
   * `<bucket>|<role>` pairing one with another account's role. Empty: the stack's bucket only.
   */
  deadLetterBuckets: string[];
  /**
   * Whether metrics about a subscription's events are counted per subscription; otherwise per
   * topic (see `METRIC_DIMENSION_SETS`).
   */
  subscriptionMetrics: boolean;
  /**
   * Seconds metric points may wait across invocations before they are written (0: after every
   * invocation); see `MetricFlusher`.
   */
  metricsFlushSeconds: number;
  /** The CloudWatch namespace metrics are written to (`ENV.metricsNamespace`). */
  metricsNamespace: string;
}

/** Values used when a variable is absent (or empty). */
export const CONFIG_DEFAULTS = {
  timeScale: 1,
  allowHttpEndpoints: false,
  subscriptionCacheSeconds: 10,
  topicCacheMs: 1000,
  /** Off unless set: the AWS construct sets it (its `deliveryBacklogLimit` prop); locally the stack's own gate refuses. */
  deliveryBacklogLimit: 0,
  deliveryConcurrency: 256,
  /** A quarter of `deliveryConcurrency`'s default; when only that is set, a quarter of it. */
  drainConcurrency: 64,
  backlog: true,
  /** More than one 900 s hop plus the 15 min a wake releases ahead (`BACKLOG_AFTER_MS`). */
  backlogAfterSeconds: 1200,
  healthCacheMs: 2000,
  historyRetentionDays: 7,
  /** The archive queue's window twice over (a copy may just miss one), and half a minute to write. */
  archiveLagSeconds: 2 * ARCHIVE_WINDOW_SECONDS + 30,
  /** Off unless set: the AWS construct sets both to `true` by default (see its props). */
  validateEndpoints: false,
  blockPrivateEndpoints: false,
  /** Each subscription's series is a billed custom metric: off unless asked for. */
  subscriptionMetrics: false,
  /** One metric record per invocation: nothing waits, nothing is lost with an instance. */
  metricsFlushSeconds: 0,
  metricsNamespace: METRICS_NAMESPACE,
} as const;

/** The values a numeric setting may take. */
export interface SettingRange {
  readonly min: number;
  /** Absent: no upper bound. */
  readonly max?: number;
  /** Whole numbers only. */
  readonly integer: boolean;
}

/**
 * The values each numeric setting may take, defined once: `readConfig` checks the environment
 * variable against it when a function starts, and the CDK construct checks its prop of the same
 * name (`DeliveryPipeline` props) at synth time, so a value the one accepts the other accepts too.
 */
export const SETTING_RANGES = {
  timeScale: { min: 1, integer: false },
  subscriptionCacheSeconds: { min: 0, max: 300, integer: false },
  topicCacheMs: { min: 0, integer: false },
  deliveryBacklogLimit: { min: 0, integer: true },
  deliveryConcurrency: { min: 1, max: 1000, integer: true },
  drainConcurrency: { min: 1, max: 1000, integer: true },
  /** At least the longest SQS delay plus the release-ahead window, so nothing stored hops; at most the longest TTL. */
  backlogAfterSeconds: { min: 1200, max: 7 * 24 * 3600, integer: true },
  healthCacheMs: { min: 0, integer: false },
  historyRetentionDays: { min: 1, max: 365, integer: true },
  /** At most one SQS delay: a replay's first page waits no longer. */
  archiveLagSeconds: { min: 0, max: 900, integer: true },
  metricsFlushSeconds: { min: 0, max: 300, integer: true },
} as const satisfies Record<string, SettingRange>;

/** The numeric settings, each named like its `ENV` variable and `CONFIG_DEFAULTS` value. */
export type NumericSetting = keyof typeof SETTING_RANGES;

/** Whether `value` is a finite number within `range`. */
export function isInRange(value: number, range: SettingRange): boolean {
  return (
    Number.isFinite(value) &&
    value >= range.min &&
    (range.max === undefined || value <= range.max) &&
    (!range.integer || Number.isInteger(value))
  );
}

/** `range` in words, for error messages: `an integer from 1 to 1000`, `a number >= 0`. */
export function describeRange(range: SettingRange): string {
  const kind = range.integer ? 'an integer' : 'a number';
  return range.max === undefined ? `${kind} >= ${range.min}` : `${kind} from ${range.min} to ${range.max}`;
}

/** An on/off setting as text: `true`, `false`, `1` or `0` (any case); undefined for anything else. */
export function parseSwitch(raw: string): boolean | undefined {
  const value = raw.trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return undefined;
}

/** Typed readers over one environment; each throws naming the variable and the rule it breaks. */
const readers = (env: Environment) => {
  /** The trimmed value, or undefined when the variable is absent or empty. */
  const optional = (key: string): string | undefined => {
    const value = env[key]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const number = (key: string, fallback: number, range: SettingRange): number => {
    const raw = optional(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!isInRange(value, range)) {
      throw new Error(`Environment variable ${key} must be ${describeRange(range)} (got ${raw})`);
    }
    return value;
  };
  const boolean = (key: string, fallback: boolean): boolean => {
    const raw = optional(key);
    if (raw === undefined) return fallback;
    const value = parseSwitch(raw);
    if (value === undefined)
      throw new Error(`Environment variable ${key} must be true, false, 1 or 0 (got ${raw})`);
    return value;
  };
  return { optional, number, boolean };
};

/**
 * Reads the function configuration from `env` (by default the process environment). Optional
 * values that are absent stay absent, so `requireSetting` can name them where they are needed.
 */
export function readConfig(env: Environment = process.env): RuntimeConfig {
  const read = readers(env);
  /** A numeric setting: its variable (named like it in `ENV`), default and range. */
  const setting = (name: NumericSetting) =>
    read.number(ENV[name], CONFIG_DEFAULTS[name], SETTING_RANGES[name]);
  const publicUrl = read.optional(ENV.publicUrl);
  if (publicUrl !== undefined) checkPublicUrl(ENV.publicUrl, publicUrl);
  const publishUrl = read.optional(ENV.publishUrl);
  if (publishUrl !== undefined) checkPublicUrl(ENV.publishUrl, publishUrl);
  const egressProxyUrl = read.optional(ENV.egressProxyUrl);
  if (egressProxyUrl !== undefined) checkProxyUrl(ENV.egressProxyUrl, egressProxyUrl);
  const deadLetterBucket = read.optional(ENV.deadLetterBucket);
  const fanOutBucket = read.optional(ENV.fanOutBucket);
  const backlogBucket = read.optional(ENV.backlogBucket);
  const archiveBucket = read.optional(ENV.archiveBucket);
  const tableName = read.optional(ENV.tableName);
  const headerKeySecretArn = read.optional(ENV.headerKeySecretArn);
  const headerKey = read.optional(ENV.headerKey);
  const topicKeySecretArn = read.optional(ENV.topicKeySecretArn);
  const topicKey = read.optional(ENV.topicKey);
  const sessionKeySecretArn = read.optional(ENV.sessionKeySecretArn);
  const sessionKeyFile = read.optional(ENV.sessionKeyFile);
  const portalFrameAncestors = parseFrameAncestors(
    (read.optional(ENV.portalFrameAncestors) ?? '').split(/\s+/).filter((origin) => origin !== ''),
    ENV.portalFrameAncestors,
  );
  const portalBranding = parsePortalBranding(
    jsonSetting(ENV.portalBranding, read.optional(ENV.portalBranding)),
    ENV.portalBranding,
  );
  const queueUrls: Partial<Record<QueueKey, string>> = {};
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    const url = read.optional(QUEUES[key].urlEnv);
    if (url !== undefined) queueUrls[key] = url;
  }
  const deliveryConcurrency = setting('deliveryConcurrency');
  const metricsNamespace = read.optional(ENV.metricsNamespace) ?? CONFIG_DEFAULTS.metricsNamespace;
  if (!isValidMetricsNamespace(metricsNamespace)) {
    throw new Error(
      `Environment variable ${ENV.metricsNamespace} must be a CloudWatch namespace: ${METRICS_NAMESPACE_RULE} (got ${metricsNamespace})`,
    );
  }
  return {
    ...(tableName === undefined ? {} : { tableName }),
    queueUrls,
    timeScale: setting('timeScale'),
    allowHttpEndpoints: read.boolean(ENV.allowHttpEndpoints, CONFIG_DEFAULTS.allowHttpEndpoints),
    subscriptionCacheMs: setting('subscriptionCacheSeconds') * 1000,
    topicCacheMs: setting('topicCacheMs'),
    deliveryBacklogLimit: setting('deliveryBacklogLimit'),
    deliveryConcurrency,
    drainConcurrency: read.number(
      ENV.drainConcurrency,
      // Unset: the same share of the worker as one subscription's own cap.
      Math.ceil(deliveryConcurrency / 4),
      SETTING_RANGES.drainConcurrency,
    ),
    backlog: read.boolean(ENV.backlog, CONFIG_DEFAULTS.backlog),
    backlogAfterMs: setting('backlogAfterSeconds') * 1000,
    healthCacheMs: setting('healthCacheMs'),
    historyRetentionDays: setting('historyRetentionDays'),
    archiveLagMs: setting('archiveLagSeconds') * 1000,
    validateEndpoints: read.boolean(ENV.validateEndpoints, CONFIG_DEFAULTS.validateEndpoints),
    blockPrivateEndpoints: read.boolean(ENV.blockPrivateEndpoints, CONFIG_DEFAULTS.blockPrivateEndpoints),
    egressAddresses: listSetting(read.optional(ENV.egressAddresses)),
    sources: parseSources(ENV.sources, read.optional(ENV.sources)),
    resourceDestinations: listSetting(read.optional(ENV.resourceDestinations)),
    deadLetterBuckets: listSetting(read.optional(ENV.deadLetterBuckets)),
    subscriptionMetrics: read.boolean(ENV.subscriptionMetrics, CONFIG_DEFAULTS.subscriptionMetrics),
    metricsFlushSeconds: setting('metricsFlushSeconds'),
    metricsNamespace,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(egressProxyUrl === undefined ? {} : { egressProxyUrl }),
    ...(publishUrl === undefined ? {} : { publishUrl }),
    ...(deadLetterBucket === undefined ? {} : { deadLetterBucket }),
    ...(fanOutBucket === undefined ? {} : { fanOutBucket }),
    ...(backlogBucket === undefined ? {} : { backlogBucket }),
    ...(archiveBucket === undefined ? {} : { archiveBucket }),
    ...(headerKeySecretArn === undefined ? {} : { headerKeySecretArn }),
    ...(headerKey === undefined ? {} : { headerKey }),
    ...(topicKeySecretArn === undefined ? {} : { topicKeySecretArn }),
    ...(topicKey === undefined ? {} : { topicKey }),
    ...(sessionKeySecretArn === undefined ? {} : { sessionKeySecretArn }),
    ...(sessionKeyFile === undefined ? {} : { sessionKeyFile }),
    portalFrameAncestors,
    portalBranding,
  };
}

/** A comma-separated list setting, entries trimmed, empty ones left out. */
const listSetting = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** A variable holding JSON (`{}` when unset); throws naming the variable when it is not JSON. */
function jsonSetting(variable: string, text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`Environment variable ${variable} must be JSON: ${(error as Error).message}`);
  }
}

/**
 * A public URL (`ENV.publicUrl`, `ENV.publishUrl`) must be an absolute http(s) URL without query
 * or fragment (validation URLs and topic endpoints are built on it); throws naming the variable
 * otherwise.
 */
function checkPublicUrl(variable: string, value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    !['http:', 'https:'].includes(url.protocol) ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== '' ||
    value.includes(' ') ||
    firstControlCharacter(value) !== undefined
  ) {
    throw new Error(
      `Environment variable ${variable} must be an http or https URL without query, fragment or credentials, such as https://events.example.com (got ${value})`,
    );
  }
}

/** A setting this function needs; throws naming the environment variable when it is absent. */
export function requireSetting<T>(value: T | undefined, envName: string): T {
  if (value === undefined) {
    throw new Error(
      `Environment variable ${envName} is required by this function (set by the Gridwire stack)`,
    );
  }
  return value;
}

/**
 * The local functions' settings, given to them as the environment variables CDK sets on AWS and
 * read by the same `readConfig`, so the local stack and AWS share one reader and its defaults.
 */

import { parseFrameAncestors, parsePortalBranding, portalEnvironment } from '../shared/config/portal';
import {
  ARCHIVE_BUCKET,
  BACKLOG_BUCKET,
  BUCKET,
  ENV,
  FAN_OUT_BUCKET,
  QUEUES,
  type QueueKey,
  TABLE,
} from '../shared/config/resources';
import { type RuntimeConfig, readConfig } from '../shared/config/runtime';
import type { SealingKeys } from './data-dir';
import type { LocalResources } from './provision';
import { LocalStackError } from './stack-error';
import type { LocalStackOptions } from './stack-options';

/** Seconds after a publish by which the local stack has written the archive copy (no window: a receive and a write). */
export const LOCAL_ARCHIVE_LAG_SECONDS = 2;

/** Settings whose local default differs from the functions' default on AWS (`CONFIG_DEFAULTS`). */
export const LOCAL_CONFIG_DEFAULTS = {
  /** Publish reads the topic on every request, so admin calls answer at once. */
  topicCacheMs: 0,
  subscriptionCacheSeconds: 2,
  /** One process, one health tracker: its own verdicts are seen at once; `enable` waits this long. */
  healthCacheMs: 500,
  /**
   * One delivery engine serves every local invocation (on AWS each invocation has its own 32), so
   * it gets more request slots: one subscription may use a quarter of them.
   */
  deliveryConcurrency: 128,
} as const;

/**
 * The function settings the local stack derives from its options, as the environment variables
 * CDK sets on AWS (resource names and URLs are added once they exist). Options left out are left
 * out here too, so `readConfig` applies the same defaults as on AWS.
 */
export function localFunctionSettings(options: LocalStackOptions): Record<string, string> {
  const number = (key: string, value: number | undefined) =>
    value === undefined ? {} : { [key]: String(value) };
  return {
    ...number(ENV.timeScale, options.timeScale),
    [ENV.allowHttpEndpoints]: 'true',
    [ENV.validateEndpoints]: String(options.validateEndpoints ?? false),
    [ENV.blockPrivateEndpoints]: String(options.blockPrivateEndpoints ?? false),
    ...(options.egressProxyUrl === undefined ? {} : { [ENV.egressProxyUrl]: options.egressProxyUrl }),
    // The emulators' queues and topics are this machine's own: any of them.
    [ENV.resourceDestinations]: (options.resourceDestinations ?? ['*']).join(','),
    // Every bucket of the emulator, with any role (kept, not assumed): it has no accounts to keep apart.
    [ENV.deadLetterBuckets]: (options.deadLetterBuckets ?? ['arn:aws:s3:::*', 'arn:aws:s3:::*|*']).join(','),
    [ENV.topicCacheMs]: String(options.topicCacheMs ?? LOCAL_CONFIG_DEFAULTS.topicCacheMs),
    [ENV.subscriptionCacheSeconds]: String(
      options.subscriptionCacheSeconds ?? LOCAL_CONFIG_DEFAULTS.subscriptionCacheSeconds,
    ),
    [ENV.deliveryConcurrency]: String(
      options.deliveryConcurrency ?? LOCAL_CONFIG_DEFAULTS.deliveryConcurrency,
    ),
    [ENV.healthCacheMs]: String(LOCAL_CONFIG_DEFAULTS.healthCacheMs),
    ...(options.backlog === undefined ? {} : { [ENV.backlog]: String(options.backlog) }),
    ...number(ENV.backlogAfterSeconds, options.backlogAfterSeconds),
    // In-memory metrics cost nothing, and `gridwire status` shows them per subscription.
    [ENV.subscriptionMetrics]: String(options.subscriptionMetrics ?? true),
    ...number(ENV.historyRetentionDays, options.historyRetentionDays),
    // The local archive queue's consumer takes what one receive returns, with no window.
    [ENV.archiveLagSeconds]: String(LOCAL_ARCHIVE_LAG_SECONDS),
    ...(options.publicUrl === undefined ? {} : { [ENV.publicUrl]: options.publicUrl }),
    ...portalEnvironment(options),
  };
}

/**
 * `portalFrameAncestors` and `portalBranding` checked by the management function's own parsers
 * (`shared/config/portal.ts`), so a wrong one is refused naming the option and its limit.
 */
export function checkPortalOptions(
  options: Pick<LocalStackOptions, 'portalFrameAncestors' | 'portalBranding'>,
): void {
  const ancestors: unknown = options.portalFrameAncestors;
  try {
    if (ancestors !== undefined) {
      if (!Array.isArray(ancestors) || ancestors.some((origin) => typeof origin !== 'string')) {
        throw new Error(
          `portalFrameAncestors must be a list of https origins (got ${JSON.stringify(ancestors)})`,
        );
      }
      parseFrameAncestors(ancestors, 'portalFrameAncestors');
    }
    if (options.portalBranding !== undefined) parsePortalBranding(options.portalBranding, 'portalBranding');
  } catch (error) {
    throw new LocalStackError(`Invalid local stack setting: ${(error as Error).message}`);
  }
}

/**
 * The settings of `options`, checked before anything starts by the same reader the functions
 * use; a `LocalStackError` naming the setting when one is wrong.
 */
export function checkedFunctionSettings(options: LocalStackOptions): Record<string, string> {
  checkPortalOptions(options);
  const settings = localFunctionSettings(options);
  try {
    readConfig({ ...settings, [TABLE.nameEnv]: TABLE.localName });
  } catch (error) {
    throw new LocalStackError(`Invalid local stack setting: ${(error as Error).message}`);
  }
  return settings;
}

/**
 * The functions' configuration: the settings plus the table, bucket, queues and the data
 * directory's sealing keys, read as the functions read their environment.
 */
export function localFunctionConfig(
  settings: Record<string, string>,
  resources: LocalResources,
  keys: SealingKeys,
): RuntimeConfig {
  const env: Record<string, string> = {
    ...settings,
    [ENV.headerKey]: keys.headerKey,
    [ENV.topicKey]: keys.topicKey,
    [ENV.sessionKeyFile]: keys.sessionKeyFile,
    [TABLE.nameEnv]: resources.tableName,
    [BUCKET.nameEnv]: resources.bucketName,
    [FAN_OUT_BUCKET.nameEnv]: resources.fanOutBucketName,
    [BACKLOG_BUCKET.nameEnv]: resources.backlogBucketName,
    [ARCHIVE_BUCKET.nameEnv]: resources.archiveBucketName,
  };
  for (const key of Object.keys(QUEUES) as QueueKey[]) env[QUEUES[key].urlEnv] = resources.queueUrls[key];
  return readConfig(env);
}

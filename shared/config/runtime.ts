/**
 * Function configuration, read once at cold start from the environment variables named in
 * `shared/config/resources.ts`. A missing or malformed variable fails fast with its name.
 */
import {
  getBooleanFromEnv,
  getNumberFromEnv,
  getStringFromEnv,
} from '@aws-lambda-powertools/commons/utils/env';
import { ENV } from './resources';

export interface RuntimeConfig {
  tableName: string;
  /** Set for functions that send to or read from the queue (not for the management function). */
  deliveryQueueUrl?: string;
  retryQueueUrl?: string;
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
  deliveryConcurrency: number;
  historyRetentionDays: number;
  publicUrl?: string;
}

export const CONFIG_DEFAULTS = {
  timeScale: 1,
  subscriptionCacheSeconds: 10,
  topicCacheMs: 1000,
  deliveryConcurrency: 32,
  historyRetentionDays: 7,
} as const;

const positive = (key: string, value: number, min = 1): number => {
  if (!Number.isFinite(value) || value < min) {
    throw new Error(`Environment variable ${key} must be a number >= ${min} (got ${value})`);
  }
  return value;
};

export function readConfig(): RuntimeConfig {
  const required = (key: string) =>
    getStringFromEnv({
      key,
      errorMessage: `Environment variable ${key} is required (set by the Gridwire stack)`,
    });
  const optional = (key: string) => {
    const value = getStringFromEnv({ key, defaultValue: '' });
    return value === '' ? undefined : value;
  };
  const publicUrl = optional(ENV.publicUrl);
  const deliveryQueueUrl = optional(ENV.deliveryQueueUrl);
  const retryQueueUrl = optional(ENV.retryQueueUrl);
  return {
    tableName: required(ENV.tableName),
    ...(deliveryQueueUrl === undefined ? {} : { deliveryQueueUrl }),
    ...(retryQueueUrl === undefined ? {} : { retryQueueUrl }),
    timeScale: positive(
      ENV.timeScale,
      getNumberFromEnv({ key: ENV.timeScale, defaultValue: CONFIG_DEFAULTS.timeScale }),
    ),
    allowHttpEndpoints: getBooleanFromEnv({ key: ENV.allowHttpEndpoints, defaultValue: false }),
    subscriptionCacheMs:
      positive(
        ENV.subscriptionCacheSeconds,
        getNumberFromEnv({
          key: ENV.subscriptionCacheSeconds,
          defaultValue: CONFIG_DEFAULTS.subscriptionCacheSeconds,
        }),
        0,
      ) * 1000,
    topicCacheMs: positive(
      ENV.topicCacheMs,
      getNumberFromEnv({ key: ENV.topicCacheMs, defaultValue: CONFIG_DEFAULTS.topicCacheMs }),
      0,
    ),
    deliveryConcurrency: positive(
      ENV.deliveryConcurrency,
      getNumberFromEnv({ key: ENV.deliveryConcurrency, defaultValue: CONFIG_DEFAULTS.deliveryConcurrency }),
    ),
    historyRetentionDays: positive(
      ENV.historyRetentionDays,
      getNumberFromEnv({ key: ENV.historyRetentionDays, defaultValue: CONFIG_DEFAULTS.historyRetentionDays }),
    ),
    ...(publicUrl === undefined ? {} : { publicUrl }),
  };
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

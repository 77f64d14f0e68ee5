/**
 * What every function's wiring builds on: the runtime (configuration, AWS clients, clock) and the
 * stores, queues, buckets and sealers more than one function uses, each checking for the settings
 * it needs.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { ENV, QUEUES, type QueueKey } from '../../config/resources';
import { type RuntimeConfig, requireSetting } from '../../config/runtime';
import { type AwsClients, createSecretsManagerClient } from '../../platform/aws';
import { type Clock, type Random, systemClock } from '../../platform/clock';
import { AesGcmSealer, type KeySource, keyText } from '../../platform/sealing';
import { SqsJobQueue } from '../../queue/sqs-job-queue';
import { ArchiveBucket } from '../../storage/archive';
import { AttemptHistoryTable } from '../../storage/attempt-history';
import { FanOutBucket } from '../../storage/fan-out-bucket';
import { DynamoHealthStore } from '../../storage/health';
import { tableStores } from '../../storage/store';

export interface Runtime {
  config: RuntimeConfig;
  clients: AwsClients;
  clock?: Clock;
  random?: Random;
}

/** The topics, subscriptions and namespaces of the stack's table (access keys sealed when there is a key). */
export const storesOf = (runtime: Runtime) =>
  tableStores(
    runtime.clients.dynamo,
    requireSetting(runtime.config.tableName, ENV.tableName),
    buildTopicKeySealer(runtime),
  );

/** The attempt history: packed per job and subscription, kept `historyRetentionDays`. */
export const historyOf = (runtime: Runtime) => {
  const clock = runtime.clock ?? systemClock;
  return new AttemptHistoryTable(
    runtime.clients.dynamo,
    requireSetting(runtime.config.tableName, ENV.tableName),
    { retentionDays: runtime.config.historyRetentionDays, now: () => clock.now() },
  );
};

/** The job queue; a function only needs (and checks for) the URLs of the queues it sends to. */
export const queueOf = (runtime: Runtime, sendsTo: readonly QueueKey[]) => {
  const urls: Partial<Record<QueueKey, string>> = {};
  for (const key of sendsTo) urls[key] = requireSetting(runtime.config.queueUrls[key], QUEUES[key].urlEnv);
  return new SqsJobQueue(runtime.clients.sqs, urls);
};

/** The sealing key is read once per container: it changes only with the stack. */
const KEY_CACHE_SECONDS = 365 * 24 * 3600;

/** The sealing key's text from a Secrets Manager secret, through Powertools Parameters. */
export function secretKeySource(
  secretArn: string,
  provider?: SecretsProvider,
  /** The variable that named the secret, and what its key seals, for error messages. */
  named: { env: string; seals: string } = { env: ENV.headerKeySecretArn, seals: 'secret header values' },
): KeySource {
  let secrets = provider;
  return {
    keyText: async () => {
      secrets ??= new SecretsProvider({ awsSdkV3Client: createSecretsManagerClient() });
      let value: unknown;
      try {
        value = await secrets.get(secretArn, { maxAge: KEY_CACHE_SECONDS });
      } catch (error) {
        throw new Error(
          `could not read the key that seals ${named.seals} from ${secretArn} (${named.env}): ${(error as Error).message}`,
        );
      }
      if (typeof value !== 'string' || value === '') {
        throw new Error(`the secret ${secretArn} (${named.env}) must hold the sealing key as non-empty text`);
      }
      return value;
    },
  };
}

/**
 * The sealer of secret delivery header values: its key from the stack's secret (AWS) or given
 * inline (the local stack); undefined when there is neither, and secret values can't be used.
 */
export function buildSealer(runtime: Runtime): AesGcmSealer | undefined {
  const { headerKeySecretArn, headerKey } = runtime.config;
  if (headerKeySecretArn !== undefined) return new AesGcmSealer(secretKeySource(headerKeySecretArn));
  if (headerKey !== undefined) return new AesGcmSealer(keyText(headerKey));
  return undefined;
}

/**
 * The sealer of topic and namespace access keys (the publish and management functions): its key
 * from its own secret, so the functions that may open secret header values can't open access
 * keys, and the other way round. Undefined when there is none: keys are then written unsealed.
 */
export function buildTopicKeySealer(runtime: Runtime): AesGcmSealer | undefined {
  const { topicKeySecretArn, topicKey } = runtime.config;
  if (topicKeySecretArn !== undefined) {
    return new AesGcmSealer(
      secretKeySource(topicKeySecretArn, undefined, {
        env: ENV.topicKeySecretArn,
        seals: 'topic access keys',
      }),
    );
  }
  if (topicKey !== undefined) return new AesGcmSealer(keyText(topicKey));
  return undefined;
}

/** The archive bucket: topics' archives. */
export const archiveOf = (runtime: Runtime): ArchiveBucket =>
  new ArchiveBucket(runtime.clients.s3, requireSetting(runtime.config.archiveBucket, ENV.archiveBucket));

/** The fan-out bucket: publishes too large for one message. */
export const fanOutsOf = (runtime: Runtime): FanOutBucket =>
  new FanOutBucket(runtime.clients.s3, requireSetting(runtime.config.fanOutBucket, ENV.fanOutBucket));

/** The endpoint-health items of the stack's table. */
export const healthStoreOf = (runtime: Runtime): DynamoHealthStore =>
  new DynamoHealthStore(runtime.clients.dynamo, requireSetting(runtime.config.tableName, ENV.tableName));

/**
 * The management function's wiring: every capability group of the management API
 * (`shared/management/deps.ts`), built from configuration. What the local stack has otherwise (its
 * emulator's resource types, its own address as the public URL) comes in as values, never as a
 * capability left out.
 */
import { randomUUID } from 'node:crypto';
import { ENV } from '../../config/resources';
import { requireSetting } from '../../config/runtime';
import { consoleFiles } from '../../console/files';
import { VALIDATION_WINDOW_MS } from '../../delivery/rules/handshake';
import { RESOURCE_ENDPOINT_TYPES } from '../../domain/model';
import type { ManagementDeps } from '../../management/deps';
import { createSecretsManagerClient } from '../../platform/aws';
import { systemClock } from '../../platform/clock';
import { resourceTypesOf } from '../../platform/resource-clients';
import { BACKLOG_TICK_QUEUE } from '../../queue/job-codec';
import { FileSessionKeys, type SessionKeys } from '../../sessions/keys';
import { DynamoBacklogIndex } from '../../storage/backlog';
import { DynamoDeclaredDestinations } from '../../storage/declared-destinations';
import { DynamoRateBudget } from '../../storage/rate-budget';
import { DynamoRecoveryMarks } from '../../storage/recoveries';
import { DynamoReplayClaims } from '../../storage/replay-claims';
import { DynamoReplayStore } from '../../storage/replays';
import { SecretSessionKeys } from '../../storage/session-keys';
import { deadLetterBucketsOf } from './dead-letter-buckets';
import type { Observability } from './observability';
import { buildSealer, healthStoreOf, historyOf, queueOf, type Runtime, storesOf } from './runtime';

const constant =
  <T>(value: T) =>
  (): T =>
    value;

export interface ManagementWiringOptions {
  /** The public URL when it is known only later (the local stack's own address); else the setting. */
  publicUrl?: () => string;
}

/** The management API's dependencies on `runtime`: each capability group, every one present. */
export function buildManagementDeps(
  runtime: Runtime,
  observability: Observability,
  options: ManagementWiringOptions = {},
): ManagementDeps {
  const sealer = buildSealer(runtime);
  const { topics, subscriptions, namespaces, namespaceTopics, eventTypes } = storesOf(runtime);
  const history = historyOf(runtime);
  const table = () => requireSetting(runtime.config.tableName, ENV.tableName);
  const deadLetterBuckets = deadLetterBucketsOf(runtime);
  const declaredDestinations = new DynamoDeclaredDestinations(runtime.clients.dynamo, table());
  const replayClaims = new DynamoReplayClaims(runtime.clients.dynamo, table());
  // Resend and replay calls per subscription and minute, counted where every instance sees them.
  const callBudget = new DynamoRateBudget(runtime.clients.dynamo, table());
  // Replayed dead letters go out as fresh deliveries; a backlog's tick is sent at once on a change.
  const queue = queueOf(runtime, ['delivery', BACKLOG_TICK_QUEUE]);
  const healthStore = healthStoreOf(runtime);
  // The index alone: the management function reads no backlog segment.
  const backlog = new DynamoBacklogIndex(runtime.clients.dynamo, table());
  const publicUrl = options.publicUrl ?? constant(requireSetting(runtime.config.publicUrl, ENV.publicUrl));
  return {
    // Stores.
    topics,
    subscriptions,
    namespaces,
    namespaceTopics,
    eventTypes,
    history,
    // Time and ids.
    clock: runtime.clock ?? systemClock,
    newId: randomUUID,
    // Dead letters, with the claims that keep two replays of one blob apart, and the call limits.
    deadLetterBucket: deadLetterBuckets.own,
    deadLetterBuckets: runtime.config.deadLetterBuckets,
    namedDeadLetterBucket: deadLetterBuckets.named,
    replayClaims,
    callBudget,
    replays: new DynamoReplayStore(runtime.clients.dynamo, table()),
    archiveLagMs: runtime.config.archiveLagMs,
    recoveries: new DynamoRecoveryMarks(runtime.clients.dynamo, table(), runtime.config.historyRetentionDays),
    queue,
    // The validation handshake, endpoint rules, and the AWS resources subscriptions may deliver to.
    validateEndpoints: runtime.config.validateEndpoints,
    validationWindowMs: VALIDATION_WINDOW_MS / runtime.config.timeScale,
    allowHttpEndpoints: runtime.config.allowHttpEndpoints,
    blockPrivateEndpoints: runtime.config.blockPrivateEndpoints,
    egressAddresses: runtime.config.egressAddresses,
    egressProxy: runtime.config.egressProxyUrl !== undefined,
    sources: runtime.config.sources,
    resourceDestinations: runtime.config.resourceDestinations,
    declaredDestinations,
    // The local stack brings its emulator's clients (SQS and SNS); on AWS every type is reachable.
    resourceTypes:
      runtime.clients.resources === undefined
        ? RESOURCE_ENDPOINT_TYPES
        : resourceTypesOf(runtime.clients.resources),
    // Without a sealing key, what needs one is refused and all else works.
    sealing: sealer === undefined ? { kind: 'noKey' } : { kind: 'sealed', sealer },
    // How long answers wait for publishers and delivery workers to see a change.
    propagationDelayMs: runtime.config.topicCacheMs,
    healthStore,
    healthCacheMs: runtime.config.healthCacheMs,
    backlog,
    // Topic endpoints name the publish function's own URL when there is one.
    publicUrl,
    publishUrl: runtime.config.publishUrl === undefined ? publicUrl : constant(runtime.config.publishUrl),
    metrics: observability.buffer,
    logger: observability.logger,
    // Console and portal sessions: their key, the page's files, the portal's look and framing.
    sessionKeys: sessionKeysOf(runtime),
    consoleFiles: consoleFiles(),
    portalFrameAncestors: runtime.config.portalFrameAncestors,
    portalBranding: runtime.config.portalBranding,
  };
}

/** The session key: the stack's secret (AWS), the data directory's file (local), or none. */
function sessionKeysOf(runtime: Runtime): SessionKeys | undefined {
  const { sessionKeySecretArn, sessionKeyFile } = runtime.config;
  if (sessionKeySecretArn !== undefined) {
    return new SecretSessionKeys(sessionKeySecretArn, createSecretsManagerClient());
  }
  if (sessionKeyFile !== undefined) return new FileSessionKeys(sessionKeyFile);
  return undefined;
}

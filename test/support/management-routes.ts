/**
 * The management API as route tests call it: every capability group over in-memory fakes (a stack
 * on AWS: https endpoints only, no validation handshake, no address checks, no propagation wait,
 * no sealing key, an empty message log), and a call that answers the status and JSON body, a
 * refusal as the error body the API would send.
 */

import { consoleFiles } from '../../shared/console/files';
import { RESOURCE_ENDPOINT_TYPES } from '../../shared/domain/model';
import type { HttpEvent } from '../../shared/http/api-gateway';
import { ApiError } from '../../shared/http/errors';
import { handleManagement } from '../../shared/management/api';
import type { HistoryDeps, ManagementDeps } from '../../shared/management/deps';
import { silentLogger } from '../../shared/observability/logging';
import { MetricBuffer } from '../../shared/observability/metrics';
import type { Clock } from '../../shared/platform/clock';
import { newSessionKey, type SessionKeys } from '../../shared/sessions/keys';
import { MemoryDeclaredDestinations } from '../../shared/storage/declared-destinations';
import { InProcessRateBudget } from '../../shared/storage/rate-budget';
import type { TableStores } from '../../shared/storage/store';
import { RecordingQueue } from './fakes';
import { MemoryDeadLetterBucket } from './memory-dead-letter-bucket';
import {
  MemoryBacklogStore,
  MemoryHealthStore,
  MemoryRecoveryMarks,
  MemoryReplayClaims,
  MemoryReplayStore,
} from './memory-stores';

/** A message log that holds nothing: every lookup searched its whole window and found no record. */
export const emptyHistory = (retentionDays = 7): HistoryDeps['history'] => ({
  retentionDays,
  find: async (_owner, _eventId, window) => ({ records: [], searched: window, truncated: false }),
  list: async (_owner, window) => ({ records: [], searched: window, more: false }),
});

/** A session key held in memory (`replace` gives a new one at once). */
export class MemorySessionKeys implements SessionKeys {
  readonly revocationDelaySeconds = 0;
  private key = newSessionKey();
  async current(): Promise<string> {
    return this.key;
  }
  async replace(): Promise<void> {
    this.key = newSessionKey();
  }
}

/** Route-test dependencies over `stores`; `overrides` set what a test needs besides. */
export function routeTestDeps(stores: TableStores, overrides: Partial<ManagementDeps> = {}): ManagementDeps {
  const clock: Clock = overrides.clock ?? { now: () => 0, sleep: async () => {} };
  const publicUrl = () => 'https://events.example.test';
  return {
    topics: stores.topics,
    subscriptions: stores.subscriptions,
    namespaces: stores.namespaces,
    namespaceTopics: stores.namespaceTopics,
    eventTypes: stores.eventTypes,
    history: emptyHistory(),
    clock,
    newId: () => 'uid-1',
    deadLetterBucket: new MemoryDeadLetterBucket(),
    deadLetterBuckets: [],
    replayClaims: new MemoryReplayClaims(),
    replays: new MemoryReplayStore(),
    archiveLagMs: 0,
    recoveries: new MemoryRecoveryMarks(),
    callBudget: new InProcessRateBudget(),
    queue: new RecordingQueue(clock),
    validateEndpoints: false,
    validationWindowMs: 5 * 60_000,
    allowHttpEndpoints: false,
    blockPrivateEndpoints: false,
    resourceDestinations: [],
    declaredDestinations: new MemoryDeclaredDestinations(),
    resourceTypes: RESOURCE_ENDPOINT_TYPES,
    sealing: { kind: 'noKey' },
    propagationDelayMs: 0,
    healthStore: new MemoryHealthStore(),
    healthCacheMs: 0,
    backlog: new MemoryBacklogStore(),
    publicUrl,
    publishUrl: publicUrl,
    logger: silentLogger,
    metrics: new MetricBuffer(),
    sessionKeys: new MemorySessionKeys(),
    consoleFiles: consoleFiles(),
    portalFrameAncestors: [],
    portalBranding: {},
    ...overrides,
  };
}

/** One call of a route: its status and JSON body; a refusal (`ApiError`) as its status and error body. */
export async function callRoute(
  deps: ManagementDeps,
  routeKey: string,
  pathParameters: Record<string, string>,
  body?: unknown,
) {
  try {
    const answer = await handleManagement(
      {
        routeKey,
        pathParameters,
        requestContext: {},
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      } as unknown as HttpEvent,
      deps,
    );
    return { status: answer.statusCode as number, body: JSON.parse(answer.body as string) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.statusCode, body: { error: { message: error.message } } };
  }
}

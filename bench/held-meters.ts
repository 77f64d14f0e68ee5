/**
 * What the held-for-a-day bench (`held.ts`) counts with: health items that count their reads and
 * writes, usage as plain numbers split by phase of a held event's life, and what a run reports
 * (`HeldRun`, with backlogs `HeldBacklogCounts`). Apart from the run's loop so that the loop
 * reads as the pipeline's steps, not as bookkeeping.
 */
import type { HealthStore } from '../shared/storage/health';
import { HEALTH_SK, healthPk } from '../shared/storage/table';
import { MemoryHealthStore } from '../test/support/memory-stores';
import { emptyLambdaUsage, type Usage } from './cost';
import type { BacklogStoreCounts, HeldMarkCounts } from './counting-backlog-store';
import { writeUnitsOf } from './dynamo-size';
import type { BacklogQueueCounts, VirtualBacklog } from './virtual-backlog';

/** A month as S3 bills storage: 30 days. */
const MONTH_MS = 30 * 24 * 3600 * 1000;

/** Health items in memory, counting reads and writes (lost races included: they are billed). */
export class CountingHealthStore implements HealthStore {
  private readonly inner = new MemoryHealthStore();
  readUnits = 0;
  writes = 0;
  conflicts = 0;
  writeUnits = 0;

  async get(topic: string, subscription: string, options: { consistent?: boolean } = {}) {
    this.readUnits += options.consistent === true ? 1 : 0.5;
    return this.inner.get(topic, subscription);
  }

  async put(health: Parameters<HealthStore['put']>[0], expectedRev: number | undefined): Promise<boolean> {
    this.writes += 1;
    this.writeUnits += writeUnitsOf({
      pk: healthPk(health.topic, health.subscription),
      sk: HEALTH_SK,
      kind: 'health',
      ...health,
    });
    const written = await this.inner.put(health, expectedRev);
    if (!written) this.conflicts += 1;
    return written;
  }
}

/** The parts of a held run's cost, for the split of a run with backlogs. */
export type HeldPhase = 'into' | 'holding' | 'wakes';
export const HELD_PHASES: readonly HeldPhase[] = ['into', 'holding', 'wakes'];

/** Usage counted as plain numbers, so a phase's share is a difference of two of them. */
export interface Meter {
  sqsBilled: number;
  invocations: number;
  gbSeconds: number;
  writeUnits: number;
  readUnits: number;
  s3Puts: number;
  s3Gets: number;
  s3Deletes: number;
}
export const emptyMeter = (): Meter => ({
  sqsBilled: 0,
  invocations: 0,
  gbSeconds: 0,
  writeUnits: 0,
  readUnits: 0,
  s3Puts: 0,
  s3Gets: 0,
  s3Deletes: 0,
});
export const addMeter = (into: Meter, delta: Meter, share = 1): void => {
  for (const key of Object.keys(into) as (keyof Meter)[]) into[key] += delta[key] * share;
};

/** A meter as the cost model's usage, spread over `events`; `storageByteMs` is the segments' storage. */
export function usageOfMeter(meter: Meter, events: number, storageByteMs: number): Usage {
  const lambdaUsage = emptyLambdaUsage();
  lambdaUsage.delivery = { invocations: meter.invocations, gbSeconds: meter.gbSeconds };
  return {
    events,
    httpRequests: 0,
    lambda: lambdaUsage,
    sqsBilledRequests: meter.sqsBilled,
    dynamoWriteUnits: meter.writeUnits,
    dynamoReadUnits: meter.readUnits,
    s3Puts: meter.s3Puts,
    s3Gets: meter.s3Gets,
    s3Deletes: meter.s3Deletes,
    s3GbMonths: storageByteMs / 1e9 / MONTH_MS,
  };
}

/** What a run with backlogs counted of them. */
export interface HeldBacklogCounts {
  /** Distinct events stored in the backlog at least once. */
  heldEvents: number;
  queue: BacklogQueueCounts;
  store: BacklogStoreCounts;
  /** Ticks worked (claimed or stale), and those that found the endpoint held and did nothing else. */
  ticks: number;
  holdingTicks: number;
  /** Sweeps: a cost of the stack (every minute, whatever the traffic), not of the events. */
  sweeps: VirtualBacklog['sweeps'];
  /** Events per segment written. */
  eventsPerSegment: number;
  /** Publishes sent straight to the backlog (the subscription held), of all the run's publishes. */
  publishesToBacklog: number;
  publishes: number;
  /** The held marks' writes and the publishers' reads of them. */
  heldMarks: HeldMarkCounts;
  /** DynamoDB write requests of the backlog (index items, META, held marks) per held event. */
  backlogWritesPerHeldEvent: number;
  /** Every DynamoDB write request (backlog, health, history) per held event. */
  writesPerHeldEvent: number;
  /** The usage by phase (sweeps left out), over all the run's events. */
  phases: Record<HeldPhase, Usage>;
  /** The sweeps' usage (invocations, their reads and the ticks they sent), over the same events. */
  sweepUsage: Usage;
}

/** What a held run counted, and its usage for the cost model. */
export interface HeldRun {
  eventsPerJob: number;
  events: number;
  /** When the last event ended, hours after publish. */
  lastEndedAfterHours: number;
  ended: Record<string, number>;
  webhookRequests: number;
  /** Webhook requests in the first 24 hours. */
  webhookRequestsIn24h: number;
  /** Jobs sent round again because they were not due yet (SQS delays are at most 15 min). */
  hops: number;
  /** Events sent back to the retry queue without an attempt (probation), counted per hold. */
  holds: number;
  sqs: {
    sendRequests: number;
    receiveRequests: number;
    deleteRequests: number;
    billedRequests: number;
    messagesSent: number;
    /** Messages per receive of the delivery and retry queues (f_d). */
    messagesPerReceive: number;
  };
  dynamo: {
    healthWrites: number;
    healthWriteConflicts: number;
    healthWriteUnits: number;
    healthReadUnits: number;
    subscriptionReadUnits: number;
    historyItems: number;
    historyWriteUnits: number;
    historyRequests: number;
  };
  lambda: { invocations: number; invocationsWithRequests: number; sleptMs: number; gbSeconds: number };
  /** With backlogs: what they did and cost. */
  backlog: HeldBacklogCounts | undefined;
  /** The usage, for the cost model (spread over `events`; sweeps left out). */
  usage: Usage;
  wallMs: number;
}

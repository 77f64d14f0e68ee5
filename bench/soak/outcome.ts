/**
 * What a soak run is given and what it reports (`run.ts` runs it; `scenarios/soak.ts` and
 * `harness/soak-report.ts` read the outcome).
 */
import type { TreeMemory } from '../process-tree-memory';
import type { FaultKind } from './faults';
import type { LedgerClose } from './ledger';
import type { TrafficCounts } from './traffic';
import type { WebhookCounts } from './webhook';

export interface SoakOptions {
  /** Minutes of load. */
  minutes: number;
  /** Events offered per second. */
  eventsPerSecond: number;
  /** Requests of one event per second (part of `eventsPerSecond`). */
  singlesPerSecond: number;
  /** The stack's time scale (retry waits and holds divided by it). */
  timeScale: number;
  /** After the load, give up waiting for the ledger to close once nothing settled for this long. */
  drainStallMs: number;
}

/** What happened to one fault. */
export interface FaultRecord {
  kind: FaultKind;
  description: string;
  /** Seconds after the load began. */
  startedAtSeconds: number;
  /** Seconds it lasted, including a restart where there was one. */
  lastedSeconds: number;
  /** Seconds from the stack gone to serving again, for a restart. */
  restartSeconds?: number;
  /** How the killed stack exited, for an emulator kill. */
  exit?: string;
  error?: string;
}

/** One minute of the run. */
export interface SoakMinute {
  minute: number;
  /** Events accepted (answered 200) in that minute. */
  accepted: number;
  /** Events delivered (or found dead-lettered) for the first time in that minute. */
  settled: number;
  /** The stack's process tree, resident, MB (at the minute's end; absent while it was down). */
  rssMb?: number;
  pssMb?: number;
  /** The most overdue accepted event of an immediate subscription, s, worst sample of the minute. */
  worstUnattemptedSeconds: number;
  /** The stack's own oldest overdue wake, s (its status), worst sample of the minute. */
  worstStackOverdueSeconds?: number;
  /** Subscriptions whose backlog wake the stack's status named overdue in the minute. */
  overdueWakes: string[];
  /** The subscription of the worst sample's waiting event, if one waited. */
  worstUnattemptedSubscription?: string;
  /** Messages visible in the delivery queues (not yet taken), most at once in the minute's samples. */
  worstVisibleMessages: number;
  /** The queue with the most visible messages in the sample that had the most. */
  worstVisibleQueue?: string;
  faults: string[];
}

export interface SoakOutcome {
  options: SoakOptions;
  faults: FaultRecord[];
  minutes: SoakMinute[];
  ledger: LedgerClose;
  traffic: TrafficCounts;
  webhook: WebhookCounts;
  unplannedExits: string[];
  /** Seconds from the load's end until the ledger closed (or the drain gave up). */
  drainSeconds: number;
  drainedAll: boolean;
  /** The stack's process tree at idle, before the load, and a minute after it (settled). */
  memory: {
    idleBefore?: TreeMemory;
    peakRssBytes: number;
    peakAt?: number;
    afterMinute?: TreeMemory;
  };
  /** Events overdue (accepted, not attempted, immediate subscription) for more than a minute, most at once. */
  worstUnattemptedSeconds: number;
  worstUnattemptedId: string | undefined;
  /** Undefined when the stack's status never reported it. */
  worstStackOverdueSeconds: number | undefined;
  /** History lookups made for events not found delivered or dead-lettered. */
  historyLookups: number;
}

/**
 * What the held-for-a-day bench (`held.ts`) assumes and takes: the Lambda time it does not
 * measure, the size of each event, the dead endpoint's status, the subscription's limits, and the
 * options of a run.
 */
import { retryLimitsOf } from '../shared/domain/model';

/**
 * Billed time per delivery invocation besides the measured sleeps: its AWS calls (a read, an
 * SQS send, a write or two), and the dead endpoint's 503 when the invocation makes requests
 * (requests in flight together count once).
 */
export const ASSUMED_MS = { perInvocation: 25, webhookAnswer: 100 } as const;

/** Size of each event as published (its JSON text), a typical event with some data. */
export const EVENT_BYTES = 1024;

/** The status the dead endpoint answers with. */
export const DEAD_STATUS = 503;

/** The default limits of a subscription: 30 attempts, 24 hours. */
export const DEFAULT_LIMITS = retryLimitsOf({ maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 });

export interface HeldOptions {
  eventsPerJob: number;
  seed?: number;
  /** Hours after the first publish by which every event must have ended (default 72). */
  maxHours?: number;
  /** Keep backlogs as on AWS (`virtual-backlog.ts`); default false, the engine as before them. */
  backlog?: boolean;
  /**
   * Publish this many events in all, in jobs of `eventsPerJob` spread evenly over `streamHours`
   * (default: one job, at the start).
   */
  streamEvents?: number;
  /** Default 24. */
  streamHours?: number;
  /**
   * With backlogs, publishes to the subscription while it is held go straight to its backlog, as
   * the publisher sends them (default true); false sends every publish to the delivery queue.
   */
  heldPublishes?: boolean;
}

/**
 * The backlog sweep's invocation: not a queued job but the event a schedule invokes the delivery
 * function with (an EventBridge rule on AWS), every {@link BACKLOG_SWEEP_EVERY_MINUTES} minute.
 * The rule's constant input and the handler that recognises it both read it from here.
 */
import { type BacklogSweepJob, JOB_FORMAT_VERSION } from '../domain/delivery';

/** The event that asks the delivery function for one sweep (`BacklogTick.sweep`). */
export const BACKLOG_SWEEP_EVENT: Readonly<BacklogSweepJob> = Object.freeze({
  v: JOB_FORMAT_VERSION,
  kind: 'backlog-sweep',
});

/**
 * Minutes between two sweeps. The sweeper sends the ticks of wakes up to 15 minutes ahead, so a
 * wake's tick leaves at most this late, and a lost one is found (more than 5 minutes late) soon.
 */
export const BACKLOG_SWEEP_EVERY_MINUTES = 1;

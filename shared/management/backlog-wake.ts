/**
 * "Tick now": a change an operator makes that a subscription's backlog should act on at once (the
 * endpoint enabled, the endpoint URL changed, the subscription deleted) sends the backlog's tick
 * with no delay, instead of leaving its events until the next wake, which may be hours away.
 *
 * The tick carries META's current token, so it is the timer itself, not a second one: whichever
 * of it and an already armed tick arrives first acts, and the other finds the token taken. A
 * backlog whose tick is at work (a live lease) is left alone: a second tick with that token would
 * work the same events at the same time; the tick at work re-arms when it ends.
 *
 * Best effort: the change has been made, and a tick that could not be sent still comes at the
 * backlog's next wake (the sweeper re-arms a lost one). A failure is logged, never answered.
 */
import type { DeliveryTarget } from '../domain/delivery';
import { topicIdOf } from '../domain/names';
import { BACKLOG_TICK_QUEUE, backlogTickBody, targetGroupId } from '../queue/job-codec';
import type { BacklogDeps, ClockDeps, LoggingDeps, QueueDeps } from './deps';

/** What waking a backlog uses: its index, the tick's queue, the time and the log. */
export type BacklogWakeDeps = BacklogDeps & QueueDeps & ClockDeps & LoggingDeps;

/** What made the tick go now, for the log. */
export type BacklogWakeReason = 'enabled' | 'resumed' | 'endpointChanged' | 'deleted';

/** What `wakeBacklog` did. */
export type BacklogWakeOutcome =
  /** No META, or an idle one: nothing is held. */
  | 'nothingHeld'
  /** A tick is at work (live lease); it re-arms on its own. */
  | 'leased'
  | 'sent'
  /** Reading META or sending failed (logged). */
  | 'failed';

/**
 * Sends the backlog's tick of `target`'s subscription at once, if it has a backlog. `target` is
 * the subscription as the change left it (for a delete, the version the delete made, so a
 * delivery worker's cached definition is read again and found gone).
 */
export async function wakeBacklog(
  deps: BacklogWakeDeps,
  target: DeliveryTarget,
  reason: BacklogWakeReason,
): Promise<BacklogWakeOutcome> {
  const topic = topicIdOf(target.topic);
  const subscription = target.subscription;
  try {
    const meta = await deps.backlog.getMeta(topic, subscription);
    if (meta === undefined || meta.state === 'idle') return 'nothingHeld';
    if (meta.lease !== undefined && meta.lease.until > deps.clock.now()) return 'leased';
    await deps.queue.send(BACKLOG_TICK_QUEUE, [
      { body: backlogTickBody(target, meta.token), delaySeconds: 0, groupId: targetGroupId(target) },
    ]);
    return 'sent';
  } catch (error) {
    deps.logger.warn('could not send the backlog its tick now; it wakes at its next wake', {
      topic,
      subscription,
      reason,
      error: error instanceof Error ? error.message : String(error),
    });
    return 'failed';
  }
}

/**
 * Setting a backlog's timer, in the one order that neither loses a wake nor lets a tick arrive
 * before its META: META first, with the new wake and token (compare-and-set on the token read),
 * then the tick message when the wake is near, then META marked armed (`armedToken`).
 *
 * A tick sent before its META is written could arrive first (a wake due now is sent with no
 * delay), find another token and be dropped as stale, and the wake would be lost. Written first,
 * META is current when any tick for it arrives. A crash between the write and the send leaves
 * META unmarked: the sweeper sends every near wake that is not marked armed, at its next pass.
 * A duplicate tick (the sweeper's and this one) carries the same token: the first to claim the
 * backlog moves the token on, and the other is stale.
 */
import type { BacklogMeta } from '../../domain/backlog';
import type { DeliveryTarget } from '../../domain/delivery';
import { BACKLOG_TICK_QUEUE, backlogTickBody, targetGroupId } from '../../queue/job-codec';
import type { JobQueue } from '../../queue/sqs-job-queue';
import type { BacklogStore } from '../../storage/backlog';

export interface TimerDeps {
  readonly store: Pick<BacklogStore, 'putMeta'>;
  readonly queue: JobQueue;
}

/** The tick a near wake sends: the target it carries and its delay. */
export interface TickToSend {
  readonly target: DeliveryTarget;
  readonly delaySeconds: number;
}

/**
 * Writes `next` (its `token` and wake) if META's token is still `expectedToken`, then sends the
 * tick for it when there is one and marks it armed. False when another writer changed META
 * first (nothing was sent).
 */
export async function setTimer(
  deps: TimerDeps,
  next: BacklogMeta,
  expectedToken: string | undefined,
  tick: TickToSend | undefined,
): Promise<boolean> {
  const { armedToken: _armed, ...unarmed } = next;
  if (!(await deps.store.putMeta(unarmed, expectedToken))) return false;
  if (tick === undefined) return true;
  await deps.queue.send(BACKLOG_TICK_QUEUE, [
    {
      body: backlogTickBody(tick.target, next.token),
      delaySeconds: tick.delaySeconds,
      groupId: targetGroupId(tick.target),
    },
  ]);
  // Not marked (a tick claimed it meanwhile, or this write failed): at worst the sweeper sends a
  // duplicate with the same token, which finds the token moved on.
  await deps.store.putMeta({ ...unarmed, armedToken: next.token }, next.token).catch(() => false);
  return true;
}

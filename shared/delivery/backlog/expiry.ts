/**
 * The expire and release-ahead steps of a backlog tick (see `tick.ts` for the whole tick),
 * and the modes the tick's gate hands them. Apart from the tick's control flow because this is
 * where events leave a segment without an attempt: ended by their time to live or a disabled
 * endpoint, or sent back to the retry queue to be attempted when due. Everything goes out before
 * the tick marks a line done, so a crash sends an event twice and never loses it.
 */
import type { BacklogLine, BacklogMeta } from '../../domain/backlog';
import type { DeliveryItem, DeliveryTarget } from '../../domain/delivery';
import type { Subscription } from '../../domain/model';
import { packJobs, targetGroupId } from '../../queue/job-codec';
import type { OutgoingJob } from '../../queue/sqs-job-queue';
import type { SettleDeps } from '../ports';
import { byDueOrder, classifyAtTick, isDone, probationStamp, releaseGroups } from '../rules/backlog';
import type { Attempted } from '../rules/decide';
import type { DeliveryProfile } from '../rules/profiles';
import { waitPrecisionOf } from '../rules/retry';
import { settle } from '../settle';
import type { DueEvent, ReadSegment, Taken } from './drain';

/** What the expire and release-ahead steps need of a tick's dependencies: what settling takes. */
export type BacklogExpiryDeps = SettleDeps;

/** What the gate lets a tick do with due events. */
export type TickMode =
  /** On probation: nothing is read, expired or sent; wake when the hold ends. */
  | { readonly kind: 'hold'; readonly until: number }
  /** The endpoint has not agreed yet: expire, keep the rest (the wake waits for it). */
  | { readonly kind: 'unagreed' }
  /** Answered 410 Gone: due events end as `EndpointDisabled`; the rest wait until due. */
  | { readonly kind: 'disabled' }
  /** Right after a probation: one request finds out whether the endpoint answers again. */
  | { readonly kind: 'probe' }
  /** Open: due events are drained; those due within the window go back to the retry queue. */
  | { readonly kind: 'open' };

/**
 * Ends the due events whose time to live ran out (and, for a disabled endpoint, every due
 * event), sends back those due within the window but not yet due, and notes in `read` which
 * lines left. Everything is sent before the caller marks anything done. Returns the due events
 * left for the probe and the drain (when the endpoint may be sent to), in due order.
 */
export async function expireAndRelease(
  deps: BacklogExpiryDeps,
  subscription: Subscription,
  profile: DeliveryProfile,
  target: DeliveryTarget,
  meta: BacklogMeta,
  mode: Exclude<TickMode, { kind: 'hold' }>,
  read: readonly ReadSegment[],
  now: number,
): Promise<{ released: number; ended: number; due: DueEvent[] }> {
  const expired: DeliveryItem[] = [];
  const due: DueEvent[] = [];
  const disabled: Attempted[] = [];
  const releasing: Array<{ dueAt: number; item: DeliveryItem }> = [];
  const taken: Taken[] = [];
  read.forEach((segment, segmentIndex) => {
    // `classifyAtTick` hands back the very lines it is given, so each finds its index here.
    const indexOf = new Map(segment.lines.map((line, index) => [line, index]));
    const live = segment.lines.filter((_, index) => !isDone(segment.ref, index));
    const classes = classifyAtTick(live, now, subscription.retry, profile);
    const take = (line: BacklogLine) =>
      taken.push({ segment: segmentIndex, index: indexOf.get(line) as number });
    for (const line of classes.expired) {
      // The stamp of a hold that kept the event past its due time, as a held job gets it.
      expired.push(probationStamp(line, now, meta.heldUntil));
      take(line);
    }
    if (mode.kind === 'disabled') {
      for (const line of classes.due) {
        disabled.push({ kind: 'disabled', item: line.item });
        take(line);
      }
    }
    if (mode.kind === 'probe' || mode.kind === 'open') {
      for (const line of classes.due) {
        due.push({
          segment: segmentIndex,
          index: indexOf.get(line) as number,
          line,
          item: probationStamp(line, now, meta.heldUntil),
        });
      }
    }
    // Only to an endpoint that answers: while it is being probed, events sent back to the queue
    // would be held and stored again when due. They wait for the next wake instead.
    if (mode.kind === 'open') {
      for (const line of classes.soon) {
        releasing.push({ dueAt: line.dueAt, item: probationStamp(line, now, meta.heldUntil) });
        take(line);
      }
    }
  });

  if (releasing.length > 0) {
    const jobs: OutgoingJob[] = [];
    const groupId = targetGroupId(target);
    // Delays count from the moment of sending, so no event arrives before it is due.
    const groups = releaseGroups(releasing, deps.clock.now(), waitPrecisionOf(profile));
    for (const group of groups) {
      for (const body of packJobs({ target, dueAt: group.dueAt }, group.items)) {
        jobs.push({ body, delaySeconds: group.delaySeconds, groupId });
      }
    }
    await deps.queue.send('retry', jobs);
  }
  if (expired.length > 0 || disabled.length > 0) {
    // Ended without an attempt, settled as a job's ended events are (`settle.ts`).
    await settle(deps, { subscription, profile, target, attempted: disabled, expired, dueAt: now });
  }
  for (const { segment, index } of taken) read[segment]?.done.push(index);
  due.sort((a, b) => byDueOrder(a.line, b.line));
  return { released: releasing.length, ended: expired.length + disabled.length, due };
}

/**
 * The follow-ups of a delivery job, sent together before the caller acknowledges its message:
 * retries, held and deferred events back to the retry queue at their due times (or, when the
 * engine keeps backlogs, into the subscription's backlog: see {@link FollowUpRoute}), and ended
 * deliveries to the ended-delivery queue (the dead-letter step's input).
 */
import type { DeadLetterTarget, DeliveryTarget, EndedDelivery, EndedJob } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import type { Clock } from '../platform/clock';
import { endedDeliveryFits, packEndedJobs, packJobs, packStoreJobs, targetGroupId } from '../queue/job-codec';
import type { JobQueue, OutgoingJob } from '../queue/sqs-job-queue';
import { emptyReport, type JobReport } from './job-report';
import { eventInDeliverySchema } from './rules/convert';
import type { JobDecisions } from './rules/decide';
import { customHeaderValues, nonSecretCustomHeaders } from './rules/headers';
import type { DeliveryProfile, ProfileTable } from './rules/profiles';
import { sqsDelaySeconds, waitPrecisionOf } from './rules/retry';

/** Seconds before ended deliveries parked on the retry queue are handed to the dead-letter step again. */
export const HANDOFF_RETRY_DELAY_SECONDS = 60;

/**
 * Where events due at `dueAt` go: `queue`, the retry queue with their delay; `store`, the
 * subscription's backlog (the backlog queue's store step), for an endpoint that is unhealthy or
 * draining, or a wait too long to hop (`storeOrQueue` in `rules/backlog.ts`).
 */
export type FollowUpRoute = (dueAt: number) => 'store' | 'queue';

/** Every group rides the retry queue (an engine that keeps no backlogs). */
export const ALWAYS_QUEUE: FollowUpRoute = () => 'queue';

export interface FollowUpDeps {
  queue: JobQueue;
  clock: Clock;
  logger: LoggerLike;
}

/**
 * Sends every follow-up of the job in one step: retries and deferrals to the retry queue,
 * ended deliveries of a subscription with a dead-letter destination to the ended-delivery queue
 * (the dead-letter step's input), delayed by the profile's write delay (5 min) so that writes
 * group. The caller acknowledges the source message only when this resolves.
 *
 * If the ended-delivery queue refuses, the ended deliveries are parked on the retry queue instead
 * (as an `ended` job the engine hands over again later): the retries already sent stay the only
 * chain, and no delivered event is sent again. Only when the retry queue itself refuses does
 * this reject (SQS is then down, and the source message comes back).
 */
export async function sendFollowUps(
  deps: FollowUpDeps,
  subscription: Subscription,
  profile: DeliveryProfile,
  target: DeliveryTarget,
  decisions: JobDecisions,
  route: FollowUpRoute = ALWAYS_QUEUE,
): Promise<void> {
  const { queue, clock, logger } = deps;
  const groupId = targetGroupId(target);
  const retryJobs: OutgoingJob[] = [];
  const storeJobs: OutgoingJob[] = [];
  // Retries, then events held back (probation, a stalled endpoint): each group at its due time,
  // on the retry queue or into the backlog.
  const groups = [
    ...[...decisions.retries].map(([dueAt, items]) => ({ dueAt, items, heldBy: 'wait' as const })),
    ...[...decisions.held].map(([dueAt, items]) => ({ dueAt, items, heldBy: 'probation' as const })),
  ];
  for (const { dueAt, items, heldBy } of groups) {
    if (route(dueAt) === 'store') {
      for (const body of packStoreJobs({ target, dueAt, heldBy }, items))
        storeJobs.push({ body, delaySeconds: 0, groupId });
      continue;
    }
    const delaySeconds = sqsDelaySeconds(dueAt, clock.now(), waitPrecisionOf(profile));
    for (const body of packJobs({ target, dueAt }, items)) retryJobs.push({ body, delaySeconds, groupId });
  }
  for (const body of packJobs({ target }, decisions.deferred))
    retryJobs.push({ body, delaySeconds: 0, groupId });
  const { deadLetter } = target;
  const writeDelaySeconds = profile.deadLetter.writeDelayMs / 1000;
  let endedJobs: OutgoingJob[] = [];
  if (deadLetter !== undefined && decisions.ended.length > 0) {
    const endedTarget: DeadLetterTarget = { ...target, deadLetter };
    endedJobs = packEndedJobs(
      endedTarget,
      withDeliveryProperties(logger, subscription, endedTarget, decisions.ended),
    ).map((body) => ({ body, delaySeconds: writeDelaySeconds, groupId }));
  }

  const [retried, stored, handedOff] = await Promise.allSettled([
    queue.send('retry', retryJobs),
    queue.send('backlog', storeJobs),
    queue.send('endedDelivery', endedJobs),
  ]);
  if (handedOff.status === 'rejected') {
    logger.warn('could not hand ended deliveries to the dead-letter step; parking them on the retry queue', {
      topic: target.topic,
      subscription: target.subscription,
      ended: decisions.ended.length,
      error: (handedOff.reason as Error).message,
    });
    await queue.send(
      'retry',
      endedJobs.map((job) => ({ ...job, delaySeconds: HANDOFF_RETRY_DELAY_SECONDS })),
    );
  }
  if (retried.status === 'rejected') throw retried.reason;
  // The backlog queue refused (its events were sent nowhere else): the source message comes back.
  if (stored.status === 'rejected') throw stored.reason;
}

/**
 * Namespace dead letters show the subscription's custom header values for each event
 * (`customDeliveryProperties`): computed here, from the subscription the delivery ended under,
 * secret values left out and never opened, and carried on each ended delivery, so the
 * dead-letter step still reads nothing. Values too large to travel with an event that is
 * itself near the message limit are left out (and logged) rather than failing the hand-over.
 */
function withDeliveryProperties(
  logger: LoggerLike,
  subscription: Subscription,
  target: DeadLetterTarget,
  ended: readonly EndedDelivery[],
): readonly EndedDelivery[] {
  const mappings = subscription.destination.deliveryAttributeMappings ?? [];
  if (target.deadLetter.format !== 'namespace' || mappings.length === 0) return ended;
  const headers = nonSecretCustomHeaders(mappings);
  if (headers.length === 0) return ended;
  return ended.map((entry) => {
    const eventText = eventInDeliverySchema(target.schema, entry.item.eventJson);
    const values = customHeaderValues(headers, eventText);
    if (Object.keys(values).length === 0) return entry;
    const withValues: EndedDelivery = { ...entry, customDeliveryProperties: values };
    if (endedDeliveryFits(target, withValues)) return withValues;
    logger.warn('custom delivery properties left out of a dead letter: too large to queue', {
      topic: target.topic,
      subscription: target.subscription,
      deliveryId: entry.item.deliveryId,
    });
    return entry;
  });
}

/**
 * Ended deliveries that were parked on the retry queue (the ended-delivery queue refused them),
 * handed to the dead-letter step again. They already waited on the retry queue; the rest of the
 * write delay groups them again.
 */
export async function handOffAgain(
  deps: { queue: JobQueue; profiles: ProfileTable },
  job: EndedJob,
): Promise<JobReport> {
  const delaySeconds =
    deps.profiles[job.target.profile].deadLetter.writeDelayMs / 1000 - HANDOFF_RETRY_DELAY_SECONDS;
  await deps.queue.send(
    'endedDelivery',
    packEndedJobs(job.target, job.ended).map((body) => ({
      body,
      delaySeconds,
      groupId: targetGroupId(job.target),
    })),
  );
  return { ...emptyReport(), ended: job.ended.length };
}

/**
 * Where a publish's events for ordered subscriptions go: per subscription and key, one `ordered`
 * job in its key's FIFO group of the ordered queue (`delivery/ordered.ts` works them).
 */
import { createHash } from 'node:crypto';
import { eventInDeliverySchema } from '../delivery/rules/convert';
import { valueAtPath } from '../delivery/rules/headers';
import type { DeliveryItem, DeliveryTarget } from '../domain/delivery';
import { type FanOutDestination, orderedGroupId, packOrderedJobs } from '../queue/job-codec';
import type { OutgoingJob } from '../queue/sqs-job-queue';

/**
 * The ordered subscriptions' share of a publish: per ordered target, its matched events grouped
 * by their key (in publish order within each key), packed as `ordered` jobs for the ordered
 * queue, each in its key's FIFO group, with a de-duplication id of its own (an SDK retry of the
 * send adds nothing).
 */
export function orderedJobsOf(
  publishId: string,
  /** Each ordered target's key path, split at its dots; the others are not routed here. */
  paths: ReadonlyMap<DeliveryTarget, readonly string[]>,
  destinations: readonly FanOutDestination[],
  items: readonly DeliveryItem[],
): { targets: ReadonlySet<DeliveryTarget>; jobs: OutgoingJob[] } {
  const orderedTargets = new Set<DeliveryTarget>();
  const jobs: OutgoingJob[] = [];
  for (const { target, matched } of destinations) {
    const path = paths.get(target);
    if (path === undefined) continue;
    orderedTargets.add(target);
    const byKey = new Map<string, DeliveryItem[]>();
    for (const position of matched) {
      const item = items[position] as DeliveryItem;
      const key = orderedKeyOf(target, path, item);
      const keyed = byKey.get(key);
      if (keyed === undefined) byKey.set(key, [item]);
      else keyed.push(item);
    }
    for (const [key, keyed] of byKey) {
      const groupId = orderedGroupId(target, key);
      packOrderedJobs({ target, key }, keyed).forEach((body, part) => {
        jobs.push({
          body,
          delaySeconds: 0,
          groupId,
          deduplicationId: deduplicationIdOf(publishId, groupId, part),
        });
      });
    }
  }
  return { targets: orderedTargets, jobs };
}

/**
 * The key of an event for an ordered subscription: the text at its key path in the event as the
 * subscription receives it (a string as itself, a number or boolean as written); "" when the path
 * is missing or leads to null, an object or an array (such events share the empty key).
 */
export const orderedKeyOf = (target: DeliveryTarget, path: readonly string[], item: DeliveryItem): string =>
  valueAtPath(eventInDeliverySchema(target.schema, item.eventJson), path) ?? '';

/** One ordered message's SQS de-duplication id: its publish, group and part (a hash, 43 characters). */
const deduplicationIdOf = (publishId: string, groupId: string, part: number): string =>
  createHash('sha256').update(`${publishId}\n${groupId}\n${part}`, 'utf8').digest('base64url');

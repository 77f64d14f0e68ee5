/**
 * Held marks: one item per subscription whose backlog holds its endpoint's events while the
 * endpoint is unhealthy, in the subscription's topic partition (`TOPIC#<topic>` /
 * `HELD#<subscription>`). A publisher reads them with the subscription list, and only when the
 * topic's `subscriptionsVersion` moved, so a publish that goes to that one subscription is sent
 * straight to the backlog queue: no extra read per publish, and no delivery-queue round trip
 * for an event that would only be stored.
 *
 * A mark is advice, never the truth about the endpoint: a publisher that has not seen it yet
 * sends to the delivery queue (whose worker stores the events, as before), and one that still
 * sees a removed mark sends to the backlog (whose tick drains or releases them). Either way every
 * event is delivered; only its path differs. The backlog's tick is the one writer.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { type ItemKey, itemAttributes, parseItem, Table, topicPk } from './table';

export const HELD_MARK_SK_PREFIX = 'HELD#';

/** A held mark: which subscription (its uid: a re-created one of the same name is not held). */
export const heldMarkSchema = z.object({
  topic: z.string().min(1),
  subscription: z.string().min(1),
  uid: z.string().optional(),
  /** Epoch ms the mark was set. */
  since: z.number(),
});
export type HeldMark = z.infer<typeof heldMarkSchema>;

const heldMarkItemSchema = heldMarkSchema.extend(itemAttributes('held-mark'));

export const heldMarkKey = (topic: string, subscription: string): ItemKey => ({
  pk: topicPk(topic),
  sk: `${HELD_MARK_SK_PREFIX}${subscription.toLowerCase()}`,
});

/** A topic's held subscriptions, by lower-case name, each with the uid it was held for. */
export type HeldSubscriptions = ReadonlyMap<string, string | undefined>;

/** Whether a subscription (by name and uid) is held, as `marks` say. */
export function isHeld(marks: HeldSubscriptions, subscription: string, uid: string | undefined): boolean {
  const name = subscription.toLowerCase();
  if (!marks.has(name)) return false;
  const heldUid = marks.get(name);
  return heldUid === undefined || uid === undefined || heldUid === uid;
}

export interface HeldMarks {
  /**
   * Sets the mark (`held`) or removes it, and moves the topic's `subscriptionsVersion` when that
   * changed anything, so publishers read the marks again. True when it changed something.
   */
  set(mark: Omit<HeldMark, 'since'>, held: boolean, now: number): Promise<boolean>;
  /** A topic's marks, read strongly consistently (with its subscription list). */
  list(topic: string): Promise<HeldSubscriptions>;
}

export const heldSubscriptionsOf = (marks: readonly HeldMark[]): HeldSubscriptions =>
  new Map(marks.map((mark) => [mark.subscription.toLowerCase(), mark.uid]));

export class DynamoHeldMarks implements HeldMarks {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async set(mark: Omit<HeldMark, 'since'>, held: boolean, now: number): Promise<boolean> {
    const key = heldMarkKey(mark.topic, mark.subscription);
    const changed = held
      ? await this.table.putIf(
          { ...key, kind: 'held-mark', ...mark, since: now },
          // A mark for the same uid stays as it is (and its topic's version with it).
          mark.uid === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: 'attribute_not_exists(pk) OR attribute_not_exists(#uid) OR #uid <> :uid',
                ExpressionAttributeNames: { '#uid': 'uid' },
                ExpressionAttributeValues: { ':uid': mark.uid },
              },
        )
      : await this.table.deleteIf(key, { ConditionExpression: 'attribute_exists(pk)' });
    if (!changed) return false;
    const bumped = await this.table.bumpSubscriptionsVersion(mark.topic, new Date(now).toISOString());
    // The topic was deleted meanwhile (its partition with it): a mark written after that goes too.
    if (!bumped && held) await this.table.delete(key);
    return true;
  }

  async list(topic: string): Promise<HeldSubscriptions> {
    const items = await this.table.queryPartition(topicPk(topic), HELD_MARK_SK_PREFIX);
    return heldSubscriptionsOf(items.map((item) => parseItem(heldMarkItemSchema, item, 'held mark')));
  }
}

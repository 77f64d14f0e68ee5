/**
 * How far an ordered message's events have got while the message waits for a retry: one item per
 * waiting message (`ORDERED#<topic>#<sub>#<first delivery id>` / `#PROGRESS`), written when an
 * attempt fails or the endpoint holds the events, read when the message comes back, deleted once
 * the message is done. The message itself can't change (SQS keeps its body), so what changes
 * lives here: which of its events are finished (delivered or ended), and the attempt state of
 * those still to go. A message that never failed has no item and costs no read or write.
 *
 * One partition per message: a burst of failures on one subscription's keys spreads over the table.
 * DynamoDB's time to live removes an item left behind (its message parked or its subscription
 * gone) a day after its events' time to live runs out at the latest.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { TABLE } from '../config/resources';
import { deliveryItemSchema } from '../domain/delivery';
import { type ItemKey, parseItem, Table } from './table';

/** What changes of an event between its attempts (the rest is in the message). */
export const pendingStateSchema = deliveryItemSchema.pick({
  deliveryId: true,
  attempts: true,
  lastOutcome: true,
  lastHttpStatus: true,
  lastAttemptAt: true,
  lateUntil: true,
});
export type PendingState = z.infer<typeof pendingStateSchema>;

export const orderedProgressSchema = z.object({
  /** The delivery ids of the message's events finished so far (delivered or ended). */
  finished: z.array(z.string()),
  /** Epoch ms before which the next event is not attempted. */
  dueAt: z.number(),
  /** The attempt state of the events still to go that have one (attempted or held before). */
  pending: z.array(pendingStateSchema),
});
export type OrderedProgress = z.infer<typeof orderedProgressSchema>;

/** Which message: its subscription (topic id and name) and its first event's delivery id. */
export interface OrderedMessageRef {
  topic: string;
  subscription: string;
  firstDeliveryId: string;
}

export interface OrderedProgressStore {
  get(message: OrderedMessageRef): Promise<OrderedProgress | undefined>;
  /** Replaces the message's progress; kept until `keepUntil` (epoch ms) at the latest. */
  put(message: OrderedMessageRef, progress: OrderedProgress, keepUntil: number): Promise<void>;
  delete(message: OrderedMessageRef): Promise<void>;
}

export const orderedProgressKey = ({ topic, subscription, firstDeliveryId }: OrderedMessageRef): ItemKey => ({
  pk: `ORDERED#${topic.toLowerCase()}#${subscription.toLowerCase()}#${firstDeliveryId}`,
  sk: '#PROGRESS',
});

const itemSchema = orderedProgressSchema.passthrough();

export class DynamoOrderedProgress implements OrderedProgressStore {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async get(message: OrderedMessageRef): Promise<OrderedProgress | undefined> {
    // Strongly consistent: the write before the message was hidden must be what is read.
    const item = await this.table.get(orderedProgressKey(message), { consistent: true });
    if (item === undefined) return undefined;
    const { finished, dueAt, pending } = parseItem(itemSchema, item, 'ordered progress');
    return { finished, dueAt, pending };
  }

  async put(message: OrderedMessageRef, progress: OrderedProgress, keepUntil: number): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.name,
        Item: {
          ...orderedProgressKey(message),
          kind: 'ordered-progress',
          ...progress,
          [TABLE.ttlAttribute]: Math.ceil(keepUntil / 1000),
        },
      }),
    );
  }

  async delete(message: OrderedMessageRef): Promise<void> {
    await this.table.delete(orderedProgressKey(message));
  }
}

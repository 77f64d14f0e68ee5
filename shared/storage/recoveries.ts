/**
 * Deliveries a bulk recovery (`POST <subscription>/recover`) sent again from the message log
 * (`RECOVERED#<topic>#<subscription>#<delivery id>` / `MARK`): one conditional write per delivery
 * before it is queued, so two recoveries of overlapping ranges, or the same call retried, send a
 * dropped delivery once. A mark whose event could not then be queued is taken back, so a later
 * recovery sends it. Kept a day longer than the message log keeps the delivery's records.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../config/resources';
import { type ItemKey, Table } from './table';

const DAY_S = 86_400;

/** Whose delivery: the subscription (by topic and name) and the delivery's id. */
export interface RecoveredDelivery {
  readonly topic: string;
  readonly subscription: string;
  readonly deliveryId: string;
}

export const recoveryMarkKey = ({ topic, subscription, deliveryId }: RecoveredDelivery): ItemKey => ({
  pk: `RECOVERED#${topic}#${subscription}#${deliveryId}`,
  sk: 'MARK',
});

export interface RecoveryMarks {
  /** Marks the delivery recovered by `recovery`; false when an earlier recovery marked it. */
  mark(delivery: RecoveredDelivery, recovery: string, now: number): Promise<boolean>;
  /** Takes back `recovery`'s mark (its event could not be queued); another's is left. */
  unmark(delivery: RecoveredDelivery, recovery: string): Promise<void>;
}

export class DynamoRecoveryMarks implements RecoveryMarks {
  private readonly table: Table;

  constructor(
    doc: DynamoDBDocumentClient,
    tableName: string,
    /** Days the message log keeps records: a mark outlives the records it stands for. */
    private readonly keepDays: number,
  ) {
    this.table = new Table(doc, tableName);
  }

  mark(delivery: RecoveredDelivery, recovery: string, now: number): Promise<boolean> {
    return this.table.putIf(
      {
        ...recoveryMarkKey(delivery),
        kind: 'recovered',
        recovery,
        at: now,
        [TABLE.ttlAttribute]: Math.ceil(now / 1000) + (this.keepDays + 1) * DAY_S,
      },
      { ConditionExpression: 'attribute_not_exists(pk)' },
    );
  }

  async unmark(delivery: RecoveredDelivery, recovery: string): Promise<void> {
    await this.table.deleteIf(recoveryMarkKey(delivery), {
      ConditionExpression: 'recovery = :recovery',
      ExpressionAttributeValues: { ':recovery': recovery },
    });
  }
}

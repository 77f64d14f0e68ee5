/**
 * The parts a replay queued, as received (`REPLAYSENT#<part>` / `SENT`): the first message that
 * arrives with a part's name claims it with its SQS message id, so the same message received
 * again (its invocation failed) is worked again, and another message with the same name (the
 * part queued twice by a page worked twice) is not. Kept 15 days, longer than a message lives.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../config/resources';
import { Table } from './table';

const KEEP_DAYS = 15;

export interface ReplaySends {
  /** Whether the message `messageId` is the first (or only) one received with part `chunk`. */
  firstCopy(chunk: string, messageId: string, now: number): Promise<boolean>;
}

export class DynamoReplaySends implements ReplaySends {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  firstCopy(chunk: string, messageId: string, now: number): Promise<boolean> {
    return this.table.putIf(
      {
        pk: `REPLAYSENT#${chunk}`,
        sk: 'SENT',
        kind: 'replay-sent',
        messageId,
        [TABLE.ttlAttribute]: Math.ceil(now / 1000) + KEEP_DAYS * 86_400,
      },
      {
        ConditionExpression: 'attribute_not_exists(pk) OR messageId = :messageId',
        ExpressionAttributeValues: { ':messageId': messageId },
      },
    );
  }
}

/**
 * Replay claims: one item per dead-letter blob while a replay works on it (`REPLAY#<blob key>` /
 * `CLAIM`), written conditionally before the blob's marker is read and its events are queued.
 * Two replays running at once therefore never both replay a blob: the second finds the claim and
 * leaves the blob alone, and one that comes after the first is done reads the first's marker. A
 * claim is deleted once its blob is marked; one a dying replay leaves runs out with its lease
 * (and DynamoDB's time to live removes the item).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../config/resources';
import { type ItemKey, Table } from './table';

/** How long a claim holds a blob: longer than a replay takes over one blob. */
export const REPLAY_CLAIM_LEASE_MS = 5 * 60_000;

export const replayClaimKey = (blobKey: string): ItemKey => ({ pk: `REPLAY#${blobKey}`, sk: 'CLAIM' });

export interface ReplayClaims {
  /** Claims the blob for `owner` until `until`; false while another owner's claim has not run out. */
  claim(blobKey: string, owner: string, now: number, until: number): Promise<boolean>;
  /** Gives up `owner`'s claim (another owner's is left as it is). */
  release(blobKey: string, owner: string): Promise<void>;
}

export class DynamoReplayClaims implements ReplayClaims {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  claim(blobKey: string, owner: string, now: number, until: number): Promise<boolean> {
    return this.table.putIf(
      {
        ...replayClaimKey(blobKey),
        kind: 'replay-claim',
        owner,
        until,
        [TABLE.ttlAttribute]: Math.ceil(until / 1000),
      },
      {
        ConditionExpression: 'attribute_not_exists(pk) OR #until <= :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': now },
      },
    );
  }

  async release(blobKey: string, owner: string): Promise<void> {
    await this.table.deleteIf(replayClaimKey(blobKey), {
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':owner': owner },
    });
  }
}

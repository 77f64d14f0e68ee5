/**
 * The event ids a topic with a de-duplication window accepted: one item per id
 * (`ACCEPTED#<topic>#<created>#<hash of the id>` / `#ID`), written conditionally by the publish
 * that accepts it, so one of two publishes of an id wins and the other learns it is a repeat.
 *
 * One conditional put per event, and nothing else on the way: under 1 KB, it is one write unit
 * (a put whose condition fails costs one too). An id's item has its own partition, so a burst of
 * publishes spreads over the table. The topic's creation time is part of the key: a topic deleted
 * and made again has forgotten what its namesake accepted. The window is read when a publish
 * checks, not when the item was written, so a window made shorter applies at once; DynamoDB's
 * time to live removes an item once the window it was written under has passed.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../config/resources';
import { type ItemKey, Table } from './table';

/** The topic whose ids are checked: its id (`<namespace>/<topic>` for a namespace topic) and creation time. */
export interface AcceptingTopic {
  id: string;
  createdAt: string;
}

/** What one publish asks: are these ids new on the topic within the window? */
export interface AcceptedIdClaim {
  topic: AcceptingTopic;
  /** Each event's identity (`eventIdentity`), distinct within the claim. */
  ids: readonly string[];
  /** The publish making the claim; its own claim, written again (a retried request), is not a repeat. */
  owner: string;
  now: number;
  windowMs: number;
}

export interface AcceptedIds {
  /**
   * Claims every id for `owner`; answers, per id, whether another publish already accepted it
   * within the window (a repeat). Throws an `AcceptedIdsUnavailable` when any id could not be
   * checked, having tried to give back the claims it made.
   */
  claim(claim: AcceptedIdClaim): Promise<boolean[]>;
  /**
   * Gives back `owner`'s claims on `ids` (a publish that was then not queued), best effort:
   * answers the ids it could not give back, which stay repeats until the window passes.
   */
  release(topic: AcceptingTopic, ids: readonly string[], owner: string): Promise<string[]>;
}

/** The key of one accepted id: hashed, as ids can be long and hold any character. */
export const acceptedIdKey = (topic: AcceptingTopic, id: string): ItemKey => {
  const hash = createHash('sha256').update(id).digest('base64url');
  return { pk: `${TABLE.acceptedIdPrefix}${topic.id.toLowerCase()}#${topic.createdAt}#${hash}`, sk: '#ID' };
};

/** The ids could not all be checked; `kept` are the claims this publish could not give back. */
export class AcceptedIdsUnavailable extends Error {
  constructor(
    override readonly cause: unknown,
    readonly kept: readonly string[],
  ) {
    super(`the accepted event ids could not be checked: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'AcceptedIdsUnavailable';
  }
}

export class DynamoAcceptedIds implements AcceptedIds {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async claim({ topic, ids, owner, now, windowMs }: AcceptedIdClaim): Promise<boolean[]> {
    const settled = await Promise.allSettled(
      ids.map((id) =>
        this.table.putIf(
          {
            ...acceptedIdKey(topic, id),
            kind: 'accepted-id',
            owner,
            acceptedAt: now,
            [TABLE.ttlAttribute]: Math.ceil((now + windowMs) / 1000),
          },
          {
            // New, older than the window, or this publish's own (an SDK retry of a put whose
            // answer was lost).
            ConditionExpression: 'attribute_not_exists(pk) OR acceptedAt <= :cutoff OR #owner = :owner',
            ExpressionAttributeNames: { '#owner': 'owner' },
            ExpressionAttributeValues: { ':cutoff': now - windowMs, ':owner': owner },
          },
        ),
      ),
    );
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed !== undefined) {
      const claimed = ids.filter((_, index) => {
        const result = settled[index];
        return result?.status === 'fulfilled' && result.value;
      });
      throw new AcceptedIdsUnavailable(failed.reason, await this.release(topic, claimed, owner));
    }
    return settled.map((result) => result.status === 'fulfilled' && !result.value);
  }

  async release(topic: AcceptingTopic, ids: readonly string[], owner: string): Promise<string[]> {
    const settled = await Promise.allSettled(
      ids.map((id) =>
        this.table.deleteIf(acceptedIdKey(topic, id), {
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
    return ids.filter((_, index) => settled[index]?.status === 'rejected');
  }
}

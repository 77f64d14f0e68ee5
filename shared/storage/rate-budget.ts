/**
 * The shared budget of a rate-limited endpoint (`delivery/rules/rate-limit.ts`): one counter item
 * per subscription and second (`RATE#<topic>#<sub>` / `WINDOW#<epoch second>`), which every worker
 * adds its slice to in one unconditional update, reading the sum back. What the sum leaves under
 * the limit is the worker's; a worker that comes after the budget is spent gets nothing (the
 * counter only grows past the limit, harmlessly). One write per slice, never a read or a retry.
 * Items expire (DynamoDB TTL) minutes after their second.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../config/resources';
import { RATE_WINDOW_KEEP_MS, RATE_WINDOW_MS } from '../delivery/rules/rate-limit';
import type { ItemKey } from './table';

export interface RateBudgetStore {
  /**
   * Takes up to `want` requests of `window`'s budget (epoch seconds) for a subscription whose
   * endpoint takes `limit` per second; resolves to how many it got (0..want).
   */
  take(topic: string, subscription: string, window: number, want: number, limit: number): Promise<number>;
}

const lower = (name: string) => name.toLowerCase();

export const rateWindowKey = (topic: string, subscription: string, window: number): ItemKey => ({
  pk: `RATE#${lower(topic)}#${lower(subscription)}`,
  sk: `WINDOW#${window}`,
});

/** What a slice gets of what was taken before it and after: the part of it still under the limit. */
export const grantedOf = (takenAfter: number, want: number, limit: number): number =>
  Math.max(0, Math.min(want, limit - (takenAfter - want)));

export class DynamoRateBudget implements RateBudgetStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(topic: string, subscription: string, window: number, want: number, limit: number) {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: rateWindowKey(topic, subscription, window),
        UpdateExpression: 'ADD taken :want SET kind = :kind, #ttl = :ttl',
        ExpressionAttributeNames: { '#ttl': TABLE.ttlAttribute },
        ExpressionAttributeValues: {
          ':want': want,
          ':kind': 'rate-window',
          ':ttl': Math.ceil(((window + 1) * RATE_WINDOW_MS + RATE_WINDOW_KEEP_MS) / 1000),
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const taken = Number(Attributes?.taken ?? want);
    return grantedOf(taken, want, limit);
  }
}

/**
 * The budget kept in this process: exact for one worker (the local stack's, tests), and what an
 * engine without a shared store counts against.
 */
export class InProcessRateBudget implements RateBudgetStore {
  private readonly taken = new Map<string, number>();

  async take(topic: string, subscription: string, window: number, want: number, limit: number) {
    const { pk, sk } = rateWindowKey(topic, subscription, window);
    const key = `${pk}/${sk}`;
    const after = (this.taken.get(key) ?? 0) + want;
    this.taken.set(key, after);
    // Earlier windows are never asked for again.
    if (this.taken.size > 1000) {
      for (const old of [...this.taken.keys()].slice(0, 500)) this.taken.delete(old);
    }
    return grantedOf(after, want, limit);
  }
}

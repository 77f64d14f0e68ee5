/**
 * The shared budget of a rate-limited endpoint (`delivery/rules/rate-limit.ts`): one counter item
 * per subscription and second (`RATE#<topic>#<sub>` / `WINDOW#<epoch second>`), which every worker
 * adds its slice to in one unconditional update, reading the sum back. What the sum leaves under
 * the limit is the worker's, and its place in the second's order; a worker that comes after the budget is spent gets nothing (the
 * counter only grows past the limit, harmlessly). One write per slice, never a read or a retry.
 * Items expire (DynamoDB TTL) minutes after their second.
 *
 * The same counters, named and in windows of their own length ({@link RateCounter}), count the
 * management calls a subscription is allowed per minute (`management/call-limits.ts`): one write
 * per call, shared by every management function instance.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../config/resources';
import { RATE_WINDOW_MS } from '../domain/destination';
import type { ItemKey } from './table';

/** How long a budget window's counter is kept after its second (DynamoDB TTL; it is never read again). */
const RATE_WINDOW_KEEP_MS = 10 * 60_000;

/** A slice of a second's budget: `count` requests (0..want), the first being the second's `first` (0-based). */
export interface RateSlice {
  readonly first: number;
  readonly count: number;
}

/**
 * A count kept beside the delivery rate's, under the same subscription, in windows of its own
 * length: the management API's per-subscription call limits.
 */
export interface RateCounter {
  /** Part of its windows' sort key (`WINDOW#<name>#<window>`), so its counts never mix with others'. */
  readonly name: string;
  /** The length of its windows: `window` is the epoch ms divided by this. */
  readonly windowMs: number;
}

export interface RateBudgetStore {
  /**
   * Takes up to `want` requests of `window`'s budget (epoch seconds) for a subscription whose
   * endpoint takes `limit` per second: how many it got, and where in the second's order they are.
   * With `counter`, the window is that counter's (its length, its own count) instead.
   */
  take(
    topic: string,
    subscription: string,
    window: number,
    want: number,
    limit: number,
    counter?: RateCounter,
  ): Promise<RateSlice>;
}

const lower = (name: string) => name.toLowerCase();

export const rateWindowKey = (
  topic: string,
  subscription: string,
  window: number,
  counter?: RateCounter,
): ItemKey => ({
  pk: `RATE#${lower(topic)}#${lower(subscription)}`,
  sk: counter === undefined ? `WINDOW#${window}` : `WINDOW#${counter.name}#${window}`,
});

/** When a window's item expires (epoch seconds): a while after the window ends. */
const expiryOf = (window: number, counter?: RateCounter): number =>
  Math.ceil(((window + 1) * (counter?.windowMs ?? RATE_WINDOW_MS) + RATE_WINDOW_KEEP_MS) / 1000);

/** What a slice gets, from the sum taken after it: the part of it still under the limit. */
export const sliceOf = (takenAfter: number, want: number, limit: number): RateSlice => {
  const first = takenAfter - want;
  return { first, count: Math.max(0, Math.min(want, limit - first)) };
};

export class DynamoRateBudget implements RateBudgetStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(
    topic: string,
    subscription: string,
    window: number,
    want: number,
    limit: number,
    counter?: RateCounter,
  ) {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: rateWindowKey(topic, subscription, window, counter),
        UpdateExpression: 'ADD taken :want SET kind = :kind, #ttl = :ttl',
        ExpressionAttributeNames: { '#ttl': TABLE.ttlAttribute },
        ExpressionAttributeValues: {
          ':want': want,
          ':kind': 'rate-window',
          ':ttl': expiryOf(window, counter),
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const taken = Number(Attributes?.taken ?? want);
    return sliceOf(taken, want, limit);
  }
}

/**
 * The budget kept in this process: exact for one worker (the local stack's, tests), and what an
 * engine without a shared store counts against.
 */
export class InProcessRateBudget implements RateBudgetStore {
  private readonly taken = new Map<string, number>();

  async take(
    topic: string,
    subscription: string,
    window: number,
    want: number,
    limit: number,
    counter?: RateCounter,
  ) {
    const { pk, sk } = rateWindowKey(topic, subscription, window, counter);
    const key = `${pk}/${sk}`;
    const after = (this.taken.get(key) ?? 0) + want;
    this.taken.set(key, after);
    // Earlier windows are never asked for again.
    if (this.taken.size > 1000) {
      for (const old of [...this.taken.keys()].slice(0, 500)) this.taken.delete(old);
    }
    return sliceOf(after, want, limit);
  }
}

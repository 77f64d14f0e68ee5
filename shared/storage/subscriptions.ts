/**
 * Event subscriptions: one item each, in their topic's partition (`TOPIC#<topic>` /
 * `SUB#<subscription>`; a namespace topic's are under `TOPIC#<namespace>/<topic>`). Every change
 * bumps the `subscriptionsVersion` of the topic's item, which tells publishers to read the list
 * again.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { TABLE } from '../config/resources';
import {
  retryLimitsOf,
  retryLimitsSchema,
  retryPolicyOf,
  retryPolicySchema,
  type Subscription,
  subscriptionSchema,
} from '../domain/model';
import {
  ConcurrentChangeError,
  itemAttributes,
  parseItem,
  type ReadOptions,
  SUBSCRIPTION_SK_PREFIX,
  subscriptionKey,
  Table,
  topicPk,
  withoutItemAttributes,
} from './table';

export interface SubscriptionStore {
  get(topic: string, name: string, options?: ReadOptions): Promise<Subscription | undefined>;
  /** Always a strongly consistent read: publishers act on it right after a change. */
  list(topic: string): Promise<Subscription[]>;
  /**
   * Creates or replaces a subscription and bumps its topic's `subscriptionsVersion`. `replaces` is
   * the version the caller read (`undefined`: it found none); if the stored item changed since,
   * nothing is written and this throws {@link ConcurrentChangeError}, so two racing changes can't
   * leave versions out of order.
   */
  put(subscription: Subscription, replaces: number | undefined): Promise<void>;
  /**
   * Deletes a subscription (bumping its topic's version); false when there was none, or, with
   * `version`, when the one stored is not that version (it was changed since it was read).
   */
  delete(topic: string, name: string, now: Date, version?: number): Promise<boolean>;
}

const shape = subscriptionSchema.shape;

/**
 * A subscription item as stored. It also keeps the retry limits in the API's shape
 * (`retryPolicy`), so an earlier Gridwire version can still read it. Items written before
 * subscriptions had a version, a profile and normalised retry limits are read with version 0, the
 * `topic` profile and their `retryPolicy` converted; items written before batching and delivery
 * headers have neither. A subscription with an expiration time also carries the table's TTL
 * attribute, in epoch seconds, so DynamoDB deletes it once expired.
 */
export const subscriptionItemSchema = subscriptionSchema
  .extend({
    ...itemAttributes('subscription'),
    version: shape.version.default(0),
    deliveryProfile: shape.deliveryProfile.default('topic'),
    filter: shape.filter.default({}),
    retry: retryLimitsSchema.optional(),
    retryPolicy: retryPolicySchema.optional(),
    eventDeliverySchema: shape.eventDeliverySchema.default('EventGridSchema'),
    labels: shape.labels.default([]),
  })
  .transform(({ retry, retryPolicy, ...rest }, context): Subscription => {
    const limits = retry ?? (retryPolicy === undefined ? undefined : retryLimitsOf(retryPolicy));
    if (limits === undefined) {
      context.addIssue({ code: 'custom', message: 'retry is required' });
      return z.NEVER;
    }
    return { ...withoutItemAttributes(rest), retry: limits };
  });
export type SubscriptionItem = z.input<typeof subscriptionItemSchema>;

const toSubscription = (item: Record<string, unknown>): Subscription =>
  parseItem(subscriptionItemSchema, item, 'subscription');

/**
 * The condition that the subscription stored is `version`: items written before subscriptions
 * had a version read as version 0, so 0 also matches an item without one (but not a missing item).
 */
const storedVersionIs = (version: number) => ({
  ConditionExpression:
    version === 0 ? 'attribute_exists(pk) AND (attribute_not_exists(#v) OR #v = :v)' : '#v = :v',
  ExpressionAttributeNames: { '#v': 'version' },
  ExpressionAttributeValues: { ':v': version },
});

export class DynamoSubscriptionStore implements SubscriptionStore {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async get(topic: string, name: string, options: ReadOptions = {}): Promise<Subscription | undefined> {
    const item = await this.table.get(subscriptionKey(topic, name), options);
    return item === undefined ? undefined : toSubscription(item);
  }

  async list(topic: string): Promise<Subscription[]> {
    const items = await this.table.queryPartition(topicPk(topic), SUBSCRIPTION_SK_PREFIX);
    return items.map(toSubscription);
  }

  async put(subscription: Subscription, replaces: number | undefined): Promise<void> {
    const item: SubscriptionItem = {
      ...subscriptionKey(subscription.topic, subscription.name),
      kind: 'subscription',
      ...subscription,
      retryPolicy: retryPolicyOf(subscription.retry),
    };
    const expiring =
      subscription.expirationTime === undefined
        ? item
        : // DynamoDB deletes an expired subscription nobody reads again (within days, on AWS).
          { ...item, [TABLE.ttlAttribute]: Math.ceil(Date.parse(subscription.expirationTime) / 1000) };
    const written = await this.table.putIf(
      expiring,
      replaces === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : storedVersionIs(replaces),
    );
    if (!written) throw new ConcurrentChangeError(`subscription ${subscription.topic}/${subscription.name}`);
    await this.table.bumpSubscriptionsVersion(subscription.topic, subscription.updatedAt);
  }

  async delete(topic: string, name: string, now: Date, version?: number): Promise<boolean> {
    const key = subscriptionKey(topic, name);
    const deleted =
      version === undefined
        ? await this.table.delete(key)
        : await this.table.deleteIf(key, storedVersionIs(version));
    if (!deleted) return false;
    await this.table.bumpSubscriptionsVersion(topic, now.toISOString());
    return true;
  }
}

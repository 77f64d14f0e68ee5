/**
 * Gridwire's DynamoDB table: topics, subscriptions and failed-attempt history in one table.
 *
 * | item          | pk                                         | sk                                  |
 * |---------------|--------------------------------------------|-------------------------------------|
 * | topic         | `TOPIC#<topic>`                            | `#TOPIC` (also `gsi1pk = TOPIC`)    |
 * | subscription  | `TOPIC#<topic>`                            | `SUB#<subscription>`                |
 * | attempts      | `HISTORY#<topic>#<sub>#<UTC hour>#<shard>` | `<newest at, 15 digits>#<random>`   |
 *
 * Attempt history items (one per delivery job and subscription, the records packed and
 * compressed) are written and searched by `attempt-history.ts`.
 * Names are case-insensitive (keys use lower case); items keep the name as first written.
 */
import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { TABLE } from '../config/resources';
import {
  DELIVERY_PROFILE_NAMES,
  EVENT_DELIVERY_SCHEMAS,
  type InputSchema,
  type InputSchemaMapping,
  retryLimitsOf,
  retryPolicyOf,
  type Subscription,
  type Topic,
  type TopicKeys,
} from '../domain/model';

const TOPICS_INDEX = TABLE.topicsIndex;

const lower = (name: string) => name.toLowerCase();
export const topicPk = (topic: string) => `TOPIC#${lower(topic)}`;
export const TOPIC_SK = '#TOPIC';
export const subscriptionSk = (subscription: string) => `SUB#${lower(subscription)}`;
/** A new access key: 32 random bytes, base64, like the original service's keys. */
export const newAccessKey = (): string => randomBytes(32).toString('base64');

/** An item changed between the caller's read and its write. */
export class ConcurrentChangeError extends Error {
  override readonly name = 'ConcurrentChangeError';
  constructor(readonly what: string) {
    super(`${what} was changed by another request at the same time`);
  }
}

export interface ReadOptions {
  /** A strongly consistent read. */
  consistent?: boolean;
}

export class Store {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  // ---- topics -------------------------------------------------------------------------------

  /** `consistent`: a strongly consistent read (sees every change that has returned). */
  async getTopic(name: string, options: ReadOptions = {}): Promise<Topic | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.topicKey(name),
        ...(options.consistent === true ? { ConsistentRead: true } : {}),
      }),
    );
    return Item === undefined ? undefined : toTopic(Item);
  }

  /**
   * Creates the topic with fresh keys, or returns the existing one. `created` tells which.
   */
  async createTopic(
    name: string,
    input: {
      inputSchema: InputSchema;
      inputSchemaMapping?: InputSchemaMapping;
      tags: Record<string, string>;
    },
    now: Date,
  ): Promise<{ topic: Topic; created: boolean }> {
    const topic: Topic = {
      name,
      inputSchema: input.inputSchema,
      ...(input.inputSchemaMapping === undefined ? {} : { inputSchemaMapping: input.inputSchemaMapping }),
      keys: { key1: newAccessKey(), key2: newAccessKey() },
      tags: input.tags,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      subscriptionsVersion: 0,
    };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...this.topicKey(name),
            [TOPICS_INDEX.partitionKey]: 'TOPIC',
            [TOPICS_INDEX.sortKey]: lower(name),
            kind: 'topic',
            ...topic,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return { topic, created: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const existing = await this.getTopic(name);
      if (existing === undefined) return this.createTopic(name, input, now);
      return { topic: existing, created: false };
    }
  }

  /** Updates the mutable parts of a topic (tags). */
  async updateTopicTags(name: string, tags: Record<string, string>, now: Date): Promise<Topic | undefined> {
    return this.updateTopic(name, 'SET tags = :tags, updatedAt = :now', {
      ':tags': tags,
      ':now': now.toISOString(),
    });
  }

  async listTopics(): Promise<Topic[]> {
    const items = await this.queryAll({
      TableName: this.tableName,
      IndexName: TOPICS_INDEX.name,
      KeyConditionExpression: '#g = :topic',
      ExpressionAttributeNames: { '#g': TOPICS_INDEX.partitionKey },
      ExpressionAttributeValues: { ':topic': 'TOPIC' },
    });
    return items.map(toTopic);
  }

  /** Deletes the topic and all its subscriptions. Returns false when there was no such topic. */
  async deleteTopic(name: string): Promise<boolean> {
    const items = await this.queryAll({
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': topicPk(name) },
      ProjectionExpression: 'pk, sk',
    });
    if (!items.some((item) => item.sk === TOPIC_SK)) return false;
    // Subscriptions first, the topic last: a half-finished delete can simply be repeated.
    for (const item of items) {
      if (item.sk === TOPIC_SK) continue;
      await this.doc.send(
        new DeleteCommand({ TableName: this.tableName, Key: { pk: item.pk, sk: item.sk } }),
      );
    }
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: this.topicKey(name) }));
    return true;
  }

  async regenerateKey(name: string, keyName: keyof TopicKeys, now: Date): Promise<Topic | undefined> {
    return this.updateTopic(
      name,
      `SET #keys.#k = :key, updatedAt = :now`,
      { ':key': newAccessKey(), ':now': now.toISOString() },
      {
        '#keys': 'keys',
        '#k': keyName,
      },
    );
  }

  // ---- subscriptions ------------------------------------------------------------------------

  /** `consistent`: a strongly consistent read (sees every change that has returned). */
  async getSubscription(
    topic: string,
    name: string,
    options: ReadOptions = {},
  ): Promise<Subscription | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: topicPk(topic), sk: subscriptionSk(name) },
        ...(options.consistent === true ? { ConsistentRead: true } : {}),
      }),
    );
    return Item === undefined ? undefined : toSubscription(Item);
  }

  /** Always a strongly consistent read: publishers act on it right after a change. */
  async listSubscriptions(topic: string): Promise<Subscription[]> {
    const items = await this.queryAll({
      TableName: this.tableName,
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sub)',
      ExpressionAttributeValues: { ':pk': topicPk(topic), ':sub': 'SUB#' },
    });
    return items.map(toSubscription);
  }

  /**
   * Creates or replaces a subscription and bumps the topic's `subscriptionsVersion`, which tells
   * publishers to re-read the list. `replaces` is the version the caller read (`undefined`: it
   * found none); if the stored item changed since, nothing is written and this throws
   * {@link ConcurrentChangeError}, so two racing changes can't leave versions out of order.
   */
  async putSubscription(subscription: Subscription, replaces: number | undefined): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: topicPk(subscription.topic),
            sk: subscriptionSk(subscription.name),
            kind: 'subscription',
            ...subscription,
            // Also in the API's shape, so an earlier Gridwire version can still read the item.
            retryPolicy: retryPolicyOf(subscription.retry),
          },
          ...(replaces === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : replaces === 0
              ? {
                  ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#v) OR #v = :v)',
                  ExpressionAttributeNames: { '#v': 'version' },
                  ExpressionAttributeValues: { ':v': 0 },
                }
              : {
                  ConditionExpression: '#v = :v',
                  ExpressionAttributeNames: { '#v': 'version' },
                  ExpressionAttributeValues: { ':v': replaces },
                }),
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConcurrentChangeError(`subscription ${subscription.topic}/${subscription.name}`);
      }
      throw error;
    }
    await this.bumpSubscriptionsVersion(subscription.topic, subscription.updatedAt);
  }

  async deleteSubscription(topic: string, name: string, now: Date): Promise<boolean> {
    const { Attributes } = await this.doc.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: { pk: topicPk(topic), sk: subscriptionSk(name) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (Attributes === undefined) return false;
    await this.bumpSubscriptionsVersion(topic, now.toISOString());
    return true;
  }

  // ---- helpers ------------------------------------------------------------------------------

  private topicKey(name: string) {
    return { pk: topicPk(name), sk: TOPIC_SK };
  }

  private async updateTopic(
    name: string,
    update: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<Topic | undefined> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.topicKey(name),
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: values,
          ...(names === undefined ? {} : { ExpressionAttributeNames: names }),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes === undefined ? undefined : toTopic(Attributes);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  private async bumpSubscriptionsVersion(topic: string, at: string): Promise<void> {
    await this.updateTopic(topic, 'ADD subscriptionsVersion :one SET updatedAt = :now', {
      ':one': 1,
      ':now': at,
    });
  }

  private async queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return items;
  }
}

function toTopic(item: Record<string, unknown>): Topic {
  return {
    name: item.name as string,
    inputSchema: item.inputSchema as InputSchema,
    ...(item.inputSchemaMapping === undefined
      ? {}
      : { inputSchemaMapping: item.inputSchemaMapping as InputSchemaMapping }),
    keys: item.keys as TopicKeys,
    tags: (item.tags as Record<string, string> | undefined) ?? {},
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
    subscriptionsVersion: Number(item.subscriptionsVersion ?? 0),
  };
}

/** A stored delivery attribute mapping; a secret one holds only its sealed value. */
const deliveryAttributeMappingItemSchema = z.union([
  z.object({ name: z.string(), type: z.literal('Static'), isSecret: z.literal(false), value: z.string() }),
  z.object({
    name: z.string(),
    type: z.literal('Static'),
    isSecret: z.literal(true),
    sealedValue: z.string(),
  }),
  z.object({ name: z.string(), type: z.literal('Dynamic'), sourceField: z.string() }),
]);

/**
 * A subscription item as stored. Items written before subscriptions had a version, a profile
 * and normalised retry limits are read with version 0, the `topic` profile and their
 * `retryPolicy` converted; items written before batching and delivery headers have neither.
 */
const subscriptionItemSchema = z
  .object({
    topic: z.string(),
    name: z.string(),
    uid: z.string().optional(),
    version: z.number().default(0),
    deliveryProfile: z.enum(DELIVERY_PROFILE_NAMES).default('topic'),
    destination: z.object({
      endpointType: z.literal('WebHook'),
      endpointUrl: z.string(),
      maxEventsPerBatch: z.number().optional(),
      preferredBatchSizeInKilobytes: z.number().optional(),
      deliveryAttributeMappings: z.array(deliveryAttributeMappingItemSchema).optional(),
    }),
    filter: z.object({ includedEventTypes: z.array(z.string()).optional() }).default({}),
    retry: z.object({ maxAttempts: z.number(), ttlMs: z.number() }).optional(),
    retryPolicy: z
      .object({ maxDeliveryAttempts: z.number(), eventTimeToLiveInMinutes: z.number() })
      .optional(),
    deadLetter: z.object({ container: z.string(), resourceId: z.string().optional() }).optional(),
    eventDeliverySchema: z.enum(EVENT_DELIVERY_SCHEMAS).default('EventGridSchema'),
    labels: z.array(z.string()).default([]),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .transform(({ retry, retryPolicy, ...rest }, context): Subscription => {
    const limits = retry ?? (retryPolicy === undefined ? undefined : retryLimitsOf(retryPolicy));
    if (limits === undefined) {
      context.addIssue({ code: 'custom', message: 'retry is required' });
      return z.NEVER;
    }
    return { ...rest, retry: limits };
  });

function toSubscription(item: Record<string, unknown>): Subscription {
  const parsed = subscriptionItemSchema.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `stored subscription ${String(item.pk)}/${String(item.sk)} is malformed at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

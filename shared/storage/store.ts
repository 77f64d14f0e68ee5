/**
 * Gridwire's DynamoDB table: topics, subscriptions and failed-attempt history in one table.
 *
 * | item          | pk                                         | sk                                  |
 * |---------------|--------------------------------------------|-------------------------------------|
 * | topic         | `TOPIC#<topic>`                            | `#TOPIC` (also `gsi1pk = TOPIC`)    |
 * | subscription  | `TOPIC#<topic>`                            | `SUB#<subscription>`                |
 * | namespace     | `NAMESPACE#<namespace>`                    | `#NAMESPACE` (`gsi1pk = NAMESPACE`) |
 * | ns topic      | `NAMESPACE#<namespace>`                    | `TOPIC#<topic>`                     |
 * | ns subscription | `TOPIC#<namespace>/<topic>`              | `SUB#<subscription>`                |
 * | attempts      | `HISTORY#<topic>#<sub>#<UTC hour>#<shard>` | `<newest at, 15 digits>#<random>`   |
 *
 * Attempt history items (one per delivery job and subscription, the records packed and
 * compressed) are written and searched by `attempt-history.ts`.
 * Names are case-insensitive (keys use lower case); items keep the name as first written.
 * A namespace subscription is an ordinary subscription item whose topic is `<namespace>/<topic>`
 * (`namespaceTopicId`): classic names hold no `/`, so it can't collide with a classic topic, and
 * delivery reads it like any other. Its topic's item lives in the namespace's partition, so a
 * namespace's topics are listed (and deleted with it) by one strongly consistent query.
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
  type Namespace,
  type NamespaceTopic,
  retryLimitsOf,
  retryPolicyOf,
  type Subscription,
  type SubscriptionFilter,
  type Topic,
  type TopicKeys,
} from '../domain/model';
import { namespaceTopicId, splitNamespaceTopicId } from '../domain/names';
import type { SecretSealer } from '../platform/sealing';

const TOPICS_INDEX = TABLE.topicsIndex;

const lower = (name: string) => name.toLowerCase();
export const topicPk = (topic: string) => `TOPIC#${lower(topic)}`;
export const TOPIC_SK = '#TOPIC';
export const subscriptionSk = (subscription: string) => `SUB#${lower(subscription)}`;
export const namespacePk = (namespace: string) => `NAMESPACE#${lower(namespace)}`;
export const NAMESPACE_SK = '#NAMESPACE';
export const namespaceTopicSk = (topic: string) => `TOPIC#${lower(topic)}`;
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

/** A topic as the topics index lists it: everything but its keys (the index holds no secrets). */
export type TopicSummary = Omit<Topic, 'keys'>;
export type NamespaceSummary = Omit<Namespace, 'keys'>;

export class Store {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    /**
     * Seals topic and namespace access keys before they are written, and opens them when read.
     * Without one, keys are written as they are (tests, and stacks older than sealed keys); sealed
     * keys can then not be read.
     */
    private readonly keySealer?: SecretSealer,
  ) {}

  /** Access keys as they are written: sealed when the store has a sealer. */
  private async storedKeys(keys: TopicKeys): Promise<{ sealedKeys: TopicKeys } | { keys: TopicKeys }> {
    if (this.keySealer === undefined) return { keys };
    const [key1, key2] = await Promise.all([this.keySealer.seal(keys.key1), this.keySealer.seal(keys.key2)]);
    return { sealedKeys: { key1, key2 } };
  }

  /** An item's access keys: opened when sealed, as they are otherwise (items written before sealing). */
  private async keysOf(item: Record<string, unknown>): Promise<TopicKeys> {
    const sealed = item.sealedKeys as TopicKeys | undefined;
    if (sealed === undefined) return item.keys as TopicKeys;
    if (this.keySealer === undefined) {
      throw new Error(
        `the access keys of ${String(item.pk)} are sealed and this function has no key to open them`,
      );
    }
    const [key1, key2] = await Promise.all([
      this.keySealer.open(sealed.key1),
      this.keySealer.open(sealed.key2),
    ]);
    return { key1, key2 };
  }

  /**
   * Replaces one access key of the item at `key` with a fresh one, writing both keys in the current
   * form (sealed, when the store has a sealer). Made over the item's `updatedAt` as read, so two
   * changes at once can't lose each other's key; `undefined` when there is no such item.
   */
  private async replaceKey(
    key: Record<string, string>,
    keyName: keyof TopicKeys,
    now: Date,
  ): Promise<Record<string, unknown> | undefined> {
    for (let tries = 1; ; tries++) {
      const { Item } = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
      );
      if (Item === undefined) return undefined;
      const keys = { ...(await this.keysOf(Item)), [keyName]: newAccessKey() };
      const stored = await this.storedKeys(keys);
      try {
        const { Attributes } = await this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression:
              'sealedKeys' in stored
                ? 'SET sealedKeys = :keys, updatedAt = :now REMOVE #plain'
                : 'SET #plain = :keys, updatedAt = :now',
            ConditionExpression: 'updatedAt = :read',
            ExpressionAttributeNames: { '#plain': 'keys' },
            ExpressionAttributeValues: {
              ':keys': 'sealedKeys' in stored ? stored.sealedKeys : stored.keys,
              ':now': now.toISOString(),
              ':read': Item.updatedAt,
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { ...(Attributes ?? {}), keys };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException) || tries >= 3) throw error;
      }
    }
  }

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
    return Item === undefined ? undefined : { ...toTopic(Item), keys: await this.keysOf(Item) };
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
    const { keys, ...described }: Topic = {
      name,
      inputSchema: input.inputSchema,
      ...(input.inputSchemaMapping === undefined ? {} : { inputSchemaMapping: input.inputSchemaMapping }),
      keys: { key1: newAccessKey(), key2: newAccessKey() },
      tags: input.tags,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      subscriptionsVersion: 0,
    };
    const topic: Topic = { ...described, keys };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...this.topicKey(name),
            [TOPICS_INDEX.partitionKey]: 'TOPIC',
            [TOPICS_INDEX.sortKey]: lower(name),
            kind: 'topic',
            ...described,
            ...(await this.storedKeys(keys)),
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
  async updateTopicTags(
    name: string,
    tags: Record<string, string>,
    now: Date,
  ): Promise<TopicSummary | undefined> {
    return this.updateTopic(name, 'SET tags = :tags, updatedAt = :now', {
      ':tags': tags,
      ':now': now.toISOString(),
    });
  }

  async listTopics(): Promise<TopicSummary[]> {
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
    const item = await this.replaceKey(this.topicKey(name), keyName, now);
    return item === undefined ? undefined : { ...toTopic(item), keys: item.keys as TopicKeys };
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

  // ---- namespaces ---------------------------------------------------------------------------

  /** `consistent`: a strongly consistent read (sees every change that has returned). */
  async getNamespace(name: string, options: ReadOptions = {}): Promise<Namespace | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: namespacePk(name), sk: NAMESPACE_SK },
        ...(options.consistent === true ? { ConsistentRead: true } : {}),
      }),
    );
    return Item === undefined
      ? undefined
      : { ...parseItem(namespaceItemSchema, Item), keys: await this.keysOf(Item) };
  }

  /** Creates the namespace with fresh keys, or returns the existing one. `created` tells which. */
  async createNamespace(
    name: string,
    input: { tags: Record<string, string> },
    now: Date,
  ): Promise<{ namespace: Namespace; created: boolean }> {
    const { keys, ...described }: Namespace = {
      name,
      keys: { key1: newAccessKey(), key2: newAccessKey() },
      tags: input.tags,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    const namespace: Namespace = { ...described, keys };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: namespacePk(name),
            sk: NAMESPACE_SK,
            [TOPICS_INDEX.partitionKey]: 'NAMESPACE',
            [TOPICS_INDEX.sortKey]: lower(name),
            kind: 'namespace',
            ...described,
            ...(await this.storedKeys(keys)),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return { namespace, created: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const existing = await this.getNamespace(name, { consistent: true });
      if (existing === undefined) return this.createNamespace(name, input, now);
      return { namespace: existing, created: false };
    }
  }

  async updateNamespaceTags(
    name: string,
    tags: Record<string, string>,
    now: Date,
  ): Promise<NamespaceSummary | undefined> {
    const item = await this.updateItem(
      { pk: namespacePk(name), sk: NAMESPACE_SK },
      'SET tags = :tags, updatedAt = :now',
      { ':tags': tags, ':now': now.toISOString() },
    );
    return item === undefined ? undefined : parseItem(namespaceItemSchema, item);
  }

  async listNamespaces(): Promise<NamespaceSummary[]> {
    const items = await this.queryAll({
      TableName: this.tableName,
      IndexName: TOPICS_INDEX.name,
      KeyConditionExpression: '#g = :namespace',
      ExpressionAttributeNames: { '#g': TOPICS_INDEX.partitionKey },
      ExpressionAttributeValues: { ':namespace': 'NAMESPACE' },
    });
    return items.map((item) => parseItem(namespaceItemSchema, item));
  }

  async regenerateNamespaceKey(
    name: string,
    keyName: keyof TopicKeys,
    now: Date,
  ): Promise<Namespace | undefined> {
    const item = await this.replaceKey({ pk: namespacePk(name), sk: NAMESPACE_SK }, keyName, now);
    return item === undefined
      ? undefined
      : { ...parseItem(namespaceItemSchema, item), keys: item.keys as TopicKeys };
  }

  /** Deletes the namespace, its topics and their subscriptions. False when there was no such namespace. */
  async deleteNamespace(name: string): Promise<boolean> {
    return this.deletePartition(namespacePk(name), NAMESPACE_SK, async (sk) => {
      if (sk.startsWith('TOPIC#')) {
        await this.deletePartition(topicPk(namespaceTopicId(name, sk.slice('TOPIC#'.length))));
      }
    });
  }

  /** `consistent`: a strongly consistent read (sees every change that has returned). */
  async getNamespaceTopic(
    namespace: string,
    name: string,
    options: ReadOptions = {},
  ): Promise<NamespaceTopic | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: namespacePk(namespace), sk: namespaceTopicSk(name) },
        ...(options.consistent === true ? { ConsistentRead: true } : {}),
      }),
    );
    return Item === undefined ? undefined : parseItem(namespaceTopicItemSchema, Item);
  }

  /**
   * Creates the namespace topic, or sets the retention of the existing one. `replaces`: the
   * existing topic the caller read (`undefined`: it found none); if that changed meanwhile,
   * nothing is written and this throws {@link ConcurrentChangeError}.
   */
  async putNamespaceTopic(
    topic: NamespaceTopic,
    replaces: Pick<NamespaceTopic, 'updatedAt'> | undefined,
  ): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: namespacePk(topic.namespace),
            sk: namespaceTopicSk(topic.name),
            kind: 'namespaceTopic',
            ...topic,
          },
          ...(replaces === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: 'updatedAt = :was',
                ExpressionAttributeValues: { ':was': replaces.updatedAt },
              }),
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConcurrentChangeError(`namespace topic ${topic.namespace}/${topic.name}`);
      }
      throw error;
    }
  }

  /** Always a strongly consistent read. */
  async listNamespaceTopics(namespace: string): Promise<NamespaceTopic[]> {
    const items = await this.queryAll({
      TableName: this.tableName,
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :topic)',
      ExpressionAttributeValues: { ':pk': namespacePk(namespace), ':topic': 'TOPIC#' },
    });
    return items.map((item) => parseItem(namespaceTopicItemSchema, item));
  }

  /** Deletes the namespace topic and its subscriptions. False when there was no such topic. */
  async deleteNamespaceTopic(namespace: string, name: string): Promise<boolean> {
    const existing = await this.getNamespaceTopic(namespace, name, { consistent: true });
    if (existing === undefined) return false;
    // Subscriptions first, the topic last: a half-finished delete can simply be repeated.
    await this.deletePartition(topicPk(namespaceTopicId(namespace, name)));
    const { Attributes } = await this.doc.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: { pk: namespacePk(namespace), sk: namespaceTopicSk(name) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes !== undefined;
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
  ): Promise<TopicSummary | undefined> {
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

  /** Bumps the version on the subscription's topic: a classic topic's item or a namespace topic's. */
  private async bumpSubscriptionsVersion(topic: string, at: string): Promise<void> {
    const namespaced = splitNamespaceTopicId(topic);
    await this.updateItem(
      namespaced === undefined
        ? this.topicKey(topic)
        : { pk: namespacePk(namespaced.namespace), sk: namespaceTopicSk(namespaced.topic) },
      'ADD subscriptionsVersion :one SET updatedAt = :now',
      { ':one': 1, ':now': at },
    );
  }

  /** An update of an existing item; `undefined` when there is none. */
  private async updateItem(
    key: { pk: string; sk: string },
    update: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: values,
          ...(names === undefined ? {} : { ExpressionAttributeNames: names }),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /**
   * Deletes every item of a partition, `keep` (the item that says the resource exists) last;
   * false, deleting nothing, when `keep` is named and absent. `before` runs before each other item goes.
   */
  private async deletePartition(
    pk: string,
    keep?: string,
    before?: (sk: string) => Promise<void>,
  ): Promise<boolean> {
    const items = await this.queryAll({
      TableName: this.tableName,
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'pk, sk',
    });
    if (keep !== undefined && !items.some((item) => item.sk === keep)) return false;
    // The rest first, the item that says it exists last: a half-finished delete can be repeated.
    for (const item of items) {
      if (item.sk === keep) continue;
      await before?.(item.sk as string);
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk, sk: item.sk } }));
    }
    if (keep !== undefined) {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk, sk: keep } }));
    }
    return true;
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

/** A topic item without its keys (which may be sealed: see `Store.keysOf`). */
function toTopic(item: Record<string, unknown>): TopicSummary {
  return {
    name: item.name as string,
    inputSchema: item.inputSchema as InputSchema,
    ...(item.inputSchemaMapping === undefined
      ? {}
      : { inputSchemaMapping: item.inputSchemaMapping as InputSchemaMapping }),
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
      sealedQuery: z.string().optional(),
      maxEventsPerBatch: z.number().optional(),
      preferredBatchSizeInKilobytes: z.number().optional(),
      deliveryAttributeMappings: z.array(deliveryAttributeMappingItemSchema).optional(),
    }),
    // Checked by the filter rules when it was saved; kept whole here (a plain object would drop fields).
    filter: z
      .looseObject({ includedEventTypes: z.array(z.string()).optional() })
      .default({})
      .transform((filter) => filter as SubscriptionFilter),
    retry: z.object({ maxAttempts: z.number(), ttlMs: z.number() }).optional(),
    retryPolicy: z
      .object({ maxDeliveryAttempts: z.number(), eventTimeToLiveInMinutes: z.number() })
      .optional(),
    deadLetter: z.object({ container: z.string(), resourceId: z.string().optional() }).optional(),
    eventDeliverySchema: z.enum(EVENT_DELIVERY_SCHEMAS).default('EventGridSchema'),
    labels: z.array(z.string()).default([]),
    validation: z
      .object({
        endpointUrl: z.string(),
        code: z.string(),
        startedAt: z.number(),
        expiresAt: z.number(),
        validatedAt: z.number().optional(),
        handshakeError: z.string().optional(),
      })
      .optional(),
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

/** A namespace item without its keys (which may be sealed: see `Store.keysOf`). */
const namespaceItemSchema = z.object({
  name: z.string(),
  tags: z.record(z.string(), z.string()).default({}),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const namespaceTopicItemSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  eventRetentionInDays: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  subscriptionsVersion: z.number().default(0),
});

/** A stored item parsed by its schema (only the schema's fields); throws naming the item and field. */
function parseItem<T>(schema: z.ZodType<T>, item: Record<string, unknown>): T {
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `stored item ${String(item.pk)}/${String(item.sk)} is malformed at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

/**
 * Gridwire's one DynamoDB table: the key layout of every item kind, and what the stores of the
 * aggregates share to read and write it.
 *
 * | item            | pk                                         | sk                                  |
 * |-----------------|--------------------------------------------|-------------------------------------|
 * | topic           | `TOPIC#<topic>`                            | `#TOPIC` (also `gsi1pk = TOPIC`)    |
 * | subscription    | `TOPIC#<topic>`                            | `SUB#<subscription>`                |
 * | namespace       | `NAMESPACE#<namespace>`                    | `#NAMESPACE` (`gsi1pk = NAMESPACE`) |
 * | ns topic        | `NAMESPACE#<namespace>`                    | `TOPIC#<topic>`                     |
 * | ns subscription | `TOPIC#<namespace>/<topic>`                | `SUB#<subscription>`                |
 * | held mark       | `TOPIC#<topic>` (or `<namespace>/<topic>`) | `HELD#<subscription>`               |
 * | event type      | `TOPIC#<topic>` (or `<namespace>/<topic>`) | `EVENTTYPE#<event type>`            |
 * | health          | `HEALTH#<topic>#<sub>`                     | `#HEALTH`                           |
 * | attempts        | `HISTORY#<topic>#<sub>#<UTC hour>#<shard>` | `<newest at, 15 digits>#<random>`   |
 * | backlog segment | `BACKLOG#<topic>#<sub>`                    | `SEG#<min due at, 13 digits>#<id>`  |
 * | backlog meta    | `BACKLOG#<topic>#<sub>`                    | `#META` (`gsi1pk = WAKE#<0..3>`)    |
 * | late answer     | `LATE#<topic>#<sub>`                       | `ANSWER#<deliveryId>`               |
 * | rate window     | `RATE#<topic>#<sub>`                       | `WINDOW#<epoch second>`             |
 * | accepted id     | `ACCEPTED#<topic>#<created>#<id hash>`     | `#ID`                               |
 *
 * Names are case-insensitive (keys use lower case); items keep the name as first written.
 * A namespace subscription is an ordinary subscription item whose topic is `<namespace>/<topic>`
 * (`namespaceTopicId`): classic names hold no `/`, so it can't collide with a classic topic, and
 * delivery reads it like any other. Its topic's item lives in the namespace's partition, so a
 * namespace's topics are listed (and deleted with it) by one strongly consistent query. Endpoint
 * health has a partition per subscription, so a failing endpoint's writes never share a partition
 * with its topic or another subscription. Attempt history items are laid out by
 * `attempt-history.ts`. A subscription's backlog has a partition of its own too: an index item
 * per stored segment, sorted by due time so the due ones are one query, and its `#META` item
 * (timer, lease, state). While a backlog has a wake, its META is also in gsi1, under one of four
 * `WAKE#<n>` partitions sorted by the wake time (13 digits): gsi1 is then the backlogs' timer
 * index as well as the topics' list, the two kept apart by partition. Backlog items are laid out
 * by `backlog.ts`. A held mark says a subscription's backlog holds its events while its endpoint
 * is unhealthy (`held-marks.ts`): it sits with the subscription list publishers read, so they
 * send that subscription's publishes straight to the backlog. A late answer is a success that came
 * after its request timed out, which the event's retries look up (`late-answers.ts`). A rate window
 * counts the requests a rate-limited endpoint was given in one second (`rate-budget.ts`); one
 * whose sort key names a counter (`WINDOW#<counter>#<minute>`) counts the resend or replay calls
 * made on the subscription in one minute (`management/call-limits.ts`). An accepted id is an event
 * id a topic with a de-duplication window accepted, one partition each (`accepted-ids.ts`). An
 * event type is one entry of a topic's event catalog (`event-types.ts`), in the topic's partition
 * so the catalog is one query and goes with the topic.
 *
 * Each item is the domain object (`shared/domain/model.ts`) plus its key attributes and `kind`;
 * the item schemas extend the domain schemas, so whatever the domain holds is read back.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { TABLE } from '../config/resources';
import { splitNamespaceTopicId } from '../domain/names';
import { malformedMessage } from '../platform/zod-issues';

const lower = (name: string) => name.toLowerCase();
export const topicPk = (topic: string) => `TOPIC#${lower(topic)}`;
export const TOPIC_SK = '#TOPIC';
export const SUBSCRIPTION_SK_PREFIX = 'SUB#';
export const subscriptionSk = (subscription: string) => `${SUBSCRIPTION_SK_PREFIX}${lower(subscription)}`;
export const namespacePk = (namespace: string) => `NAMESPACE#${lower(namespace)}`;
export const NAMESPACE_SK = '#NAMESPACE';
export const NAMESPACE_TOPIC_SK_PREFIX = 'TOPIC#';
export const namespaceTopicSk = (topic: string) => `${NAMESPACE_TOPIC_SK_PREFIX}${lower(topic)}`;
export const healthPk = (topic: string, subscription: string) =>
  `HEALTH#${lower(topic)}#${lower(subscription)}`;
export const HEALTH_SK = '#HEALTH';
export const backlogPk = (topic: string, subscription: string) =>
  `BACKLOG#${lower(topic)}#${lower(subscription)}`;
export const BACKLOG_META_SK = '#META';
export const BACKLOG_SEGMENT_SK_PREFIX = 'SEG#';
/**
 * Epoch ms as 13 digits, so that sort keys sort by time (good until the year 2286). Rounded up:
 * due times may hold fractions of a millisecond (jitter), and a key must never sort before the
 * time it stands for, or a query for what is due by then would find it early.
 */
export const epochKey = (ms: number) => String(Math.max(0, Math.ceil(ms))).padStart(13, '0');
export const backlogSegmentSk = (minDueAt: number, segmentId: string) =>
  `${BACKLOG_SEGMENT_SK_PREFIX}${epochKey(minDueAt)}#${segmentId}`;
/** The gsi1 partitions of the backlogs' timer index: four, so no one partition takes every wake. */
export const BACKLOG_WAKE_SHARDS = 4;
export const backlogWakePartition = (shard: number) => `WAKE#${shard}`;

export interface ItemKey {
  pk: string;
  sk: string;
}

export const topicKey = (topic: string): ItemKey => ({ pk: topicPk(topic), sk: TOPIC_SK });
export const namespaceKey = (namespace: string): ItemKey => ({
  pk: namespacePk(namespace),
  sk: NAMESPACE_SK,
});
export const namespaceTopicKey = (namespace: string, topic: string): ItemKey => ({
  pk: namespacePk(namespace),
  sk: namespaceTopicSk(topic),
});
/** `topic` is a classic topic's name or a namespace topic's `<namespace>/<topic>`. */
export const subscriptionKey = (topic: string, subscription: string): ItemKey => ({
  pk: topicPk(topic),
  sk: subscriptionSk(subscription),
});
export const healthKey = (topic: string, subscription: string): ItemKey => ({
  pk: healthPk(topic, subscription),
  sk: HEALTH_SK,
});
export const backlogMetaKey = (topic: string, subscription: string): ItemKey => ({
  pk: backlogPk(topic, subscription),
  sk: BACKLOG_META_SK,
});

/**
 * The item that counts a subscription's topic's changes (`subscriptionsVersion`): a classic
 * topic's, or for `<namespace>/<topic>` the namespace topic's.
 */
export function subscriptionsParentKey(topicId: string): ItemKey {
  const namespaced = splitNamespaceTopicId(topicId);
  return namespaced === undefined
    ? topicKey(topicId)
    : namespaceTopicKey(namespaced.namespace, namespaced.topic);
}

/**
 * The sparse index that lists topics and namespaces without a scan, and backlogs by wake time
 * (under partitions of their own, see the key table above).
 */
export const TOPICS_INDEX = TABLE.topicsIndex;

/**
 * The attributes an item adds to the domain object it holds: its keys and its `kind`. Item
 * schemas are `<domain schema>.extend(itemAttributes(kind))`.
 */
export const itemAttributes = <Kind extends string>(kind: Kind) => ({
  pk: z.string(),
  sk: z.string(),
  kind: z.literal(kind),
});

/** The attributes of an item listed by the topics index (topics and namespaces). */
export const indexedItemAttributes = <Kind extends string, Partition extends string>(
  kind: Kind,
  partition: Partition,
) => ({
  ...itemAttributes(kind),
  [TOPICS_INDEX.partitionKey]: z.literal(partition),
  [TOPICS_INDEX.sortKey]: z.string(),
});

const ITEM_ATTRIBUTES = ['pk', 'sk', 'kind', TOPICS_INDEX.partitionKey, TOPICS_INDEX.sortKey] as const;
type ItemAttribute = (typeof ITEM_ATTRIBUTES)[number];

/** The domain object an item holds: the item without its keys and `kind`. */
export function withoutItemAttributes<T extends object>(item: T): Omit<T, ItemAttribute> {
  const rest = { ...item } as Record<string, unknown>;
  for (const attribute of ITEM_ATTRIBUTES) delete rest[attribute];
  return rest as Omit<T, ItemAttribute>;
}

/** An item changed between the caller's read and its write. */
export class ConcurrentChangeError extends Error {
  override readonly name = 'ConcurrentChangeError';
  constructor(readonly what: string) {
    super(`${what} was changed by another request at the same time`);
  }
}

export interface ReadOptions {
  /** A strongly consistent read (sees every change that has returned). */
  consistent?: boolean;
}

/** A stored item parsed by its schema (only the schema's fields); throws naming the item and field. */
export function parseItem<T>(schema: z.ZodType<T>, item: Record<string, unknown>, what = 'item'): T {
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    throw new Error(malformedMessage(`stored ${what} ${String(item.pk)}/${String(item.sk)}`, parsed.error));
  }
  return parsed.data;
}

/** The table as the stores use it: the client and the table's name, and the requests they share. */
export class Table {
  constructor(
    readonly doc: DynamoDBDocumentClient,
    readonly name: string,
  ) {}

  async get(key: ItemKey, options: ReadOptions = {}): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.name,
        Key: key,
        ...(options.consistent === true ? { ConsistentRead: true } : {}),
      }),
    );
    return Item;
  }

  /**
   * Writes `item` only if `condition` holds for what is stored; false, writing nothing, when it
   * does not.
   */
  async putIf(
    item: Record<string, unknown>,
    condition: Pick<
      PutCommandInput,
      'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
  ): Promise<boolean> {
    try {
      await this.doc.send(new PutCommand({ TableName: this.name, Item: item, ...condition }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** An update made only if `condition` holds for what is stored; false, changing nothing, when not. */
  async updateIf(
    key: ItemKey,
    update: string,
    condition: Pick<
      UpdateCommandInput,
      'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({ TableName: this.name, Key: key, UpdateExpression: update, ...condition }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** An update of an existing item, returning the item as updated; `undefined` when there is none. */
  async updateExisting(
    key: ItemKey,
    update: string,
    values: Record<string, unknown>,
    /** `#name` placeholders of the expression (for attribute names DynamoDB reserves, such as `archive`). */
    names?: Record<string, string>,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.name,
          Key: key,
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: values,
          ...(names === undefined || Object.keys(names).length === 0
            ? {}
            : { ExpressionAttributeNames: names }),
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
   * Deletes one item only if `condition` holds for what is stored; false, deleting nothing, when
   * it does not (or there is no item).
   */
  async deleteIf(
    key: ItemKey,
    condition: Pick<
      PutCommandInput,
      'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
  ): Promise<boolean> {
    try {
      await this.doc.send(new DeleteCommand({ TableName: this.name, Key: key, ...condition }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Deletes one item; true when there was one. */
  async delete(key: ItemKey): Promise<boolean> {
    const { Attributes } = await this.doc.send(
      new DeleteCommand({ TableName: this.name, Key: key, ReturnValues: 'ALL_OLD' }),
    );
    return Attributes !== undefined;
  }

  /**
   * Moves the `subscriptionsVersion` of a subscription's topic (a classic topic's item or a
   * namespace topic's), which tells publishers to read its subscriptions again. False when the
   * topic is gone.
   */
  async bumpSubscriptionsVersion(topicId: string, at: string): Promise<boolean> {
    const updated = await this.updateExisting(
      subscriptionsParentKey(topicId),
      'ADD subscriptionsVersion :one SET updatedAt = :now',
      { ':one': 1, ':now': at },
    );
    return updated !== undefined;
  }

  /** Every page of a query (the table's name is added). */
  async queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({ ...input, TableName: this.name, ExclusiveStartKey: startKey }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return items;
  }

  /** Every item of a partition whose sort key begins with `prefix`, read strongly consistently. */
  queryPartition(pk: string, prefix: string): Promise<Record<string, unknown>[]> {
    return this.queryAll({
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
    });
  }

  /** The items the topics index lists under `partition` (`TOPIC` or `NAMESPACE`). */
  queryIndex(partition: string): Promise<Record<string, unknown>[]> {
    return this.queryAll({
      IndexName: TOPICS_INDEX.name,
      KeyConditionExpression: '#g = :partition',
      ExpressionAttributeNames: { '#g': TOPICS_INDEX.partitionKey },
      ExpressionAttributeValues: { ':partition': partition },
    });
  }

  /**
   * Deletes every item of a partition, `keep` (the item that says the resource exists) last;
   * false, deleting nothing, when `keep` is named and absent. `before` runs before each other item goes.
   */
  async deletePartition(pk: string, keep?: string, before?: (sk: string) => Promise<void>): Promise<boolean> {
    const items = await this.queryAll({
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
      await this.doc.send(new DeleteCommand({ TableName: this.name, Key: { pk, sk: item.sk } }));
    }
    if (keep !== undefined) {
      await this.doc.send(new DeleteCommand({ TableName: this.name, Key: { pk, sk: keep } }));
    }
    return true;
  }
}

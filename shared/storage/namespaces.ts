/**
 * Namespaces and their topics. A namespace is one item (`NAMESPACE#<namespace>` / `#NAMESPACE`),
 * listed by the topics index; its topics live in its partition (`TOPIC#<topic>`), so they are
 * listed, and deleted with it, by one strongly consistent query. A namespace topic's
 * subscriptions are subscriptions of `<namespace>/<topic>` (`subscriptions.ts`).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { type Namespace, type NamespaceTopic, namespaceSchema, namespaceTopicSchema } from '../domain/model';
import { namespaceTopicId } from '../domain/names';
import type { SecretSealer } from '../platform/sealing';
import {
  type Described,
  DynamoKeyedResources,
  type KeyedResourceLayout,
  type KeyedResourceStore,
} from './keyed-resources';
import {
  ConcurrentChangeError,
  indexedItemAttributes,
  itemAttributes,
  NAMESPACE_SK,
  NAMESPACE_TOPIC_SK_PREFIX,
  namespaceKey,
  namespacePk,
  namespaceTopicKey,
  parseItem,
  type ReadOptions,
  Table,
  topicPk,
  withoutItemAttributes,
} from './table';

/** What a new namespace is made of (its keys are generated). */
export interface NamespaceInput {
  tags: Record<string, string>;
}

/** A namespace as the topics index lists it: everything but its keys. */
export type NamespaceSummary = Described<Namespace>;

export type NamespaceStore = KeyedResourceStore<Namespace, NamespaceInput>;

export interface NamespaceTopicStore {
  get(namespace: string, name: string, options?: ReadOptions): Promise<NamespaceTopic | undefined>;
  /**
   * Creates the namespace topic, or replaces the existing one. `replaces`: the existing topic the
   * caller read (`undefined`: it found none); if that changed meanwhile, nothing is written and
   * this throws {@link ConcurrentChangeError}.
   */
  put(topic: NamespaceTopic, replaces: Pick<NamespaceTopic, 'updatedAt'> | undefined): Promise<void>;
  /** Always a strongly consistent read. */
  list(namespace: string): Promise<NamespaceTopic[]>;
  /** Deletes the namespace topic and its subscriptions. False when there was no such topic. */
  delete(namespace: string, name: string): Promise<boolean>;
}

/**
 * A namespace item as stored, without its keys (`keys`, or `sealedKeys`: see
 * `keyed-resources.ts`). Tags read as empty when absent.
 */
export const namespaceItemSchema = namespaceSchema.omit({ keys: true }).extend({
  ...indexedItemAttributes('namespace', 'NAMESPACE'),
  tags: namespaceSchema.shape.tags.default({}),
});
export type NamespaceItem = z.input<typeof namespaceItemSchema>;

/** A namespace topic item as stored; the subscriptions version reads as 0 when absent. */
export const namespaceTopicItemSchema = namespaceTopicSchema.extend({
  ...itemAttributes('namespaceTopic'),
  subscriptionsVersion: namespaceTopicSchema.shape.subscriptionsVersion.default(0),
});
export type NamespaceTopicItem = z.input<typeof namespaceTopicItemSchema>;

const namespaceLayout: KeyedResourceLayout<Namespace, NamespaceInput> = {
  kind: 'namespace',
  indexPartition: 'NAMESPACE',
  key: namespaceKey,
  describe: (name, input, now) => ({
    name,
    tags: input.tags,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  }),
  parse: (item) => withoutItemAttributes(parseItem(namespaceItemSchema, item, 'namespace')),
  withKeys: (described, keys) => ({ ...described, keys }),
  // Its topics' subscriptions go with each topic, the namespace's own item last.
  delete: (table, name) =>
    table.deletePartition(namespacePk(name), NAMESPACE_SK, async (sk) => {
      if (sk.startsWith(NAMESPACE_TOPIC_SK_PREFIX)) {
        await table.deletePartition(
          topicPk(namespaceTopicId(name, sk.slice(NAMESPACE_TOPIC_SK_PREFIX.length))),
        );
      }
    }),
};

export class DynamoNamespaceStore
  extends DynamoKeyedResources<Namespace, NamespaceInput>
  implements NamespaceStore
{
  constructor(doc: DynamoDBDocumentClient, tableName: string, keySealer?: SecretSealer) {
    super(doc, tableName, namespaceLayout, keySealer);
  }
}

const toNamespaceTopic = (item: Record<string, unknown>): NamespaceTopic =>
  withoutItemAttributes(parseItem(namespaceTopicItemSchema, item, 'namespace topic'));

export class DynamoNamespaceTopicStore implements NamespaceTopicStore {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async get(namespace: string, name: string, options: ReadOptions = {}): Promise<NamespaceTopic | undefined> {
    const item = await this.table.get(namespaceTopicKey(namespace, name), options);
    return item === undefined ? undefined : toNamespaceTopic(item);
  }

  async put(topic: NamespaceTopic, replaces: Pick<NamespaceTopic, 'updatedAt'> | undefined): Promise<void> {
    const item: NamespaceTopicItem = {
      ...namespaceTopicKey(topic.namespace, topic.name),
      kind: 'namespaceTopic',
      ...topic,
    };
    const written = await this.table.putIf(
      item,
      replaces === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: 'updatedAt = :was',
            ExpressionAttributeValues: { ':was': replaces.updatedAt },
          },
    );
    if (!written) throw new ConcurrentChangeError(`namespace topic ${topic.namespace}/${topic.name}`);
  }

  async list(namespace: string): Promise<NamespaceTopic[]> {
    const items = await this.table.queryPartition(namespacePk(namespace), NAMESPACE_TOPIC_SK_PREFIX);
    return items.map(toNamespaceTopic);
  }

  async delete(namespace: string, name: string): Promise<boolean> {
    if ((await this.get(namespace, name, { consistent: true })) === undefined) return false;
    // Subscriptions first, the topic last: a half-finished delete can simply be repeated.
    await this.table.deletePartition(topicPk(namespaceTopicId(namespace, name)));
    return this.table.delete(namespaceTopicKey(namespace, name));
  }
}

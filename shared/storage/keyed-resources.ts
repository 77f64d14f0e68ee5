/**
 * Resources that hold two access keys: classic topics and namespaces. Both are one item, listed by
 * the topics index, created with fresh keys (or found already there), retagged, given a new key
 * one at a time, and deleted with everything under them; their keys are sealed at rest when the
 * store has a sealer. This is that code, once; `topics.ts` and `namespaces.ts` say what differs.
 */
import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { type TopicKeys, topicKeysSchema } from '../domain/model';
import type { SecretSealer } from '../platform/sealing';
import { type ItemKey, parseItem, type ReadOptions, Table, TOPICS_INDEX } from './table';

/** A new access key: 32 random bytes, base64, like the original service's keys. */
export const newAccessKey = (): string => randomBytes(32).toString('base64');

/** What every resource with access keys has. */
export interface KeyedResource {
  name: string;
  keys: TopicKeys;
  tags: Record<string, string>;
  updatedAt: string;
}

/** A resource without its keys: what listings and tag updates return (the index holds no secrets). */
export type Described<R extends KeyedResource> = Omit<R, 'keys'>;

/** A store of resources with access keys. Names are case-insensitive. */
export interface KeyedResourceStore<R extends KeyedResource, Input> {
  get(name: string, options?: ReadOptions): Promise<R | undefined>;
  /** Creates the resource with fresh keys, or returns the existing one. `created` tells which. */
  create(name: string, input: Input, now: Date): Promise<{ resource: R; created: boolean }>;
  /**
   * Sets what a `PUT` may change on an existing resource (its tags, and the settings its layout
   * names); `undefined` when there is none.
   */
  update(name: string, input: Input, now: Date): Promise<Described<R> | undefined>;
  list(): Promise<Described<R>[]>;
  /**
   * Replaces one access key with a fresh one and keeps the other; `undefined` when there is no
   * such resource. Two changes at once can't lose each other's key.
   */
  regenerateKey(name: string, keyName: keyof TopicKeys, now: Date): Promise<R | undefined>;
  /** Deletes the resource and everything under it; false when there was no such resource. */
  delete(name: string): Promise<boolean>;
}

/** What tells one kind of keyed resource from another in the table. */
export interface KeyedResourceLayout<R extends KeyedResource, Input> {
  /** The items' `kind`. */
  kind: string;
  /** Their partition in the topics index. */
  indexPartition: string;
  key(name: string): ItemKey;
  /** A new resource, without its keys. */
  describe(name: string, input: Input, now: Date): Described<R>;
  /**
   * What a `PUT` may change besides the tags, as item attributes (one that is `undefined` is
   * removed); none when absent.
   */
  changeable?(input: Input): Record<string, unknown>;
  /** An item read back, without its keys (which may be sealed). */
  parse(item: Record<string, unknown>): Described<R>;
  withKeys(described: Described<R>, keys: TopicKeys): R;
  /** Deletes the resource's items (and whatever else it owns); false when there was none. */
  delete(table: Table, name: string): Promise<boolean>;
}

/** The keys as an item holds them: sealed, or (written without a sealer) as they are. */
const storedKeysSchema = z.object({
  keys: topicKeysSchema.optional(),
  sealedKeys: topicKeysSchema.optional(),
});

/** Replacing a key is tried this many times when another change races it. */
const KEY_WRITE_TRIES = 3;

export class DynamoKeyedResources<R extends KeyedResource, Input extends { tags: Record<string, string> }>
  implements KeyedResourceStore<R, Input>
{
  private readonly table: Table;

  constructor(
    doc: DynamoDBDocumentClient,
    tableName: string,
    private readonly layout: KeyedResourceLayout<R, Input>,
    /**
     * Seals access keys before they are written, and opens them when read. Without one, keys are
     * written as they are (tests, and stacks older than sealed keys); sealed keys can then not be read.
     */
    private readonly keySealer?: SecretSealer,
  ) {
    this.table = new Table(doc, tableName);
  }

  async get(name: string, options: ReadOptions = {}): Promise<R | undefined> {
    const item = await this.table.get(this.layout.key(name), options);
    return item === undefined
      ? undefined
      : this.layout.withKeys(this.layout.parse(item), await this.keysOf(item));
  }

  async create(name: string, input: Input, now: Date): Promise<{ resource: R; created: boolean }> {
    const described = this.layout.describe(name, input, now);
    const keys = { key1: newAccessKey(), key2: newAccessKey() };
    const created = await this.table.putIf(
      {
        ...this.layout.key(name),
        [TOPICS_INDEX.partitionKey]: this.layout.indexPartition,
        [TOPICS_INDEX.sortKey]: name.toLowerCase(),
        kind: this.layout.kind,
        ...described,
        ...(await this.storedKeys(keys)),
      },
      { ConditionExpression: 'attribute_not_exists(pk)' },
    );
    if (created) return { resource: this.layout.withKeys(described, keys), created: true };
    const existing = await this.get(name, { consistent: true });
    // Deleted again since: try once more.
    if (existing === undefined) return this.create(name, input, now);
    return { resource: existing, created: false };
  }

  async update(name: string, input: Input, now: Date): Promise<Described<R> | undefined> {
    const settings = Object.entries(this.layout.changeable?.(input) ?? {});
    const set = settings.filter(([, value]) => value !== undefined);
    const removed = settings.filter(([, value]) => value === undefined);
    const item = await this.table.updateExisting(
      this.layout.key(name),
      [
        `SET ${['tags = :tags', 'updatedAt = :now', ...set.map(([field]) => `#${field} = :${field}`)].join(', ')}`,
        ...(removed.length === 0 ? [] : [`REMOVE ${removed.map(([field]) => `#${field}`).join(', ')}`]),
      ].join(' '),
      {
        ':tags': input.tags,
        ':now': now.toISOString(),
        ...Object.fromEntries(set.map(([field, value]) => [`:${field}`, value])),
      },
      // Names by placeholder: some settings' names are words DynamoDB reserves (`archive`).
      Object.fromEntries(settings.map(([field]) => [`#${field}`, field])),
    );
    return item === undefined ? undefined : this.layout.parse(item);
  }

  async list(): Promise<Described<R>[]> {
    const items = await this.table.queryIndex(this.layout.indexPartition);
    return items.map((item) => this.layout.parse(item));
  }

  async regenerateKey(name: string, keyName: keyof TopicKeys, now: Date): Promise<R | undefined> {
    const key = this.layout.key(name);
    for (let tries = 1; ; tries++) {
      const item = await this.table.get(key, { consistent: true });
      if (item === undefined) return undefined;
      const keys = { ...(await this.keysOf(item)), [keyName]: newAccessKey() };
      const stored = await this.storedKeys(keys);
      try {
        // Made over the `updatedAt` read, and writing both keys in the current form (sealed when
        // the store has a sealer): an item written unsealed is sealed by it.
        const { Attributes } = await this.table.doc.send(
          new UpdateCommand({
            TableName: this.table.name,
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
              ':read': item.updatedAt,
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return this.layout.withKeys(this.layout.parse(Attributes ?? {}), keys);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException) || tries >= KEY_WRITE_TRIES) throw error;
      }
    }
  }

  delete(name: string): Promise<boolean> {
    return this.layout.delete(this.table, name);
  }

  /** Access keys as they are written: sealed when the store has a sealer. */
  private async storedKeys(keys: TopicKeys): Promise<{ sealedKeys: TopicKeys } | { keys: TopicKeys }> {
    if (this.keySealer === undefined) return { keys };
    const [key1, key2] = await Promise.all([this.keySealer.seal(keys.key1), this.keySealer.seal(keys.key2)]);
    return { sealedKeys: { key1, key2 } };
  }

  /** An item's access keys: opened when sealed, as they are otherwise (items written before sealing). */
  private async keysOf(item: Record<string, unknown>): Promise<TopicKeys> {
    const { keys, sealedKeys: sealed } = parseItem(storedKeysSchema, item);
    if (sealed === undefined) {
      if (keys === undefined) throw new Error(`the item ${String(item.pk)} has no access keys`);
      return keys;
    }
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
}

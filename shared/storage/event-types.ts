/**
 * Topics' event catalogs: one item per event type, in its topic's partition
 * (`TOPIC#<topic id>` / `EVENTTYPE#<type>`), so a catalog is one strongly consistent query and is
 * deleted with its topic. Every change moves the topic's `catalogVersion` (on the classic topic's
 * item, or the namespace topic's) after the entry is written, so a publisher that sees the new
 * version reads a catalog that holds the change.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { type CatalogSchema, type EventType, eventTypeSchema } from '../domain/event-types';
import {
  type ItemKey,
  itemAttributes,
  parseItem,
  type ReadOptions,
  subscriptionsParentKey,
  Table,
  topicPk,
  withoutItemAttributes,
} from './table';

export const EVENT_TYPE_SK_PREFIX = 'EVENTTYPE#';

/** An event type's item key: in its topic's partition, the name lower case. */
export const eventTypeKey = (topicId: string, name: string): ItemKey => ({
  pk: topicPk(topicId),
  sk: `${EVENT_TYPE_SK_PREFIX}${name.toLowerCase()}`,
});

export const eventTypeItemSchema = eventTypeSchema.extend(itemAttributes('eventType'));
export type EventTypeItem = z.input<typeof eventTypeItemSchema>;

export interface EventTypeStore {
  get(topicId: string, name: string, options?: ReadOptions): Promise<EventType | undefined>;
  /** The topic's catalog, sorted by name; always a strongly consistent read. */
  list(topicId: string): Promise<EventType[]>;
  /**
   * Writes the entry (a new one, or over the one of the same name) and moves the topic's catalog
   * version. False when the topic is gone: the entry is then taken away again.
   */
  put(entry: EventType): Promise<boolean>;
  /** Deletes the entry and moves the topic's catalog version; false when there was none. */
  delete(topicId: string, name: string, now: Date): Promise<boolean>;
  /** Each type's name and schema (what publishers compile); strongly consistent. */
  schemas(topicId: string): Promise<CatalogSchema[]>;
}

const byName = (a: { name: string }, b: { name: string }) =>
  a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0;

export class DynamoEventTypeStore implements EventTypeStore {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async get(topicId: string, name: string, options: ReadOptions = {}): Promise<EventType | undefined> {
    const item = await this.table.get(eventTypeKey(topicId, name), options);
    return item === undefined ? undefined : toEventType(item);
  }

  async list(topicId: string): Promise<EventType[]> {
    const items = await this.table.queryPartition(topicPk(topicId), EVENT_TYPE_SK_PREFIX);
    return items.map(toEventType).sort(byName);
  }

  async put(entry: EventType): Promise<boolean> {
    const key = eventTypeKey(entry.topic, entry.name);
    const item: EventTypeItem = { ...key, kind: 'eventType', ...entry };
    await this.table.doc.send(new PutCommand({ TableName: this.table.name, Item: item }));
    if (await this.bumpVersion(entry.topic, entry.updatedAt)) return true;
    await this.table.delete(key);
    return false;
  }

  async delete(topicId: string, name: string, now: Date): Promise<boolean> {
    if (!(await this.table.delete(eventTypeKey(topicId, name)))) return false;
    await this.bumpVersion(topicId, now.toISOString());
    return true;
  }

  async schemas(topicId: string): Promise<CatalogSchema[]> {
    const items = await this.table.queryAll({
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': topicPk(topicId), ':prefix': EVENT_TYPE_SK_PREFIX },
      // The descriptions and examples are not needed to validate.
      ProjectionExpression: '#name, schemaJson',
      ExpressionAttributeNames: { '#name': 'name' },
    });
    return items.map((item) => ({
      name: String(item.name),
      ...(typeof item.schemaJson === 'string' ? { schemaJson: item.schemaJson } : {}),
    }));
  }

  /** Moves the topic's catalog version (and `updatedAt`, as a subscription change does); false when the topic is gone. */
  private async bumpVersion(topicId: string, at: string): Promise<boolean> {
    const updated = await this.table.updateExisting(
      subscriptionsParentKey(topicId),
      'ADD catalogVersion :one SET updatedAt = :now',
      { ':one': 1, ':now': at },
    );
    return updated !== undefined;
  }
}

const toEventType = (item: Record<string, unknown>): EventType =>
  withoutItemAttributes(parseItem(eventTypeItemSchema, item, 'event type'));

/**
 * Classic topics: one item each (`TOPIC#<topic>` / `#TOPIC`), listed by the topics index, their
 * subscriptions and event catalog in the same partition (`subscriptions.ts`, `event-types.ts`),
 * deleted with it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import {
  type InputSchema,
  type InputSchemaMapping,
  type Topic,
  type TopicArchive,
  topicSchema,
  type UnknownEventTypes,
} from '../domain/model';
import type { SecretSealer } from '../platform/sealing';
import {
  type Described,
  DynamoKeyedResources,
  type KeyedResourceLayout,
  type KeyedResourceStore,
} from './keyed-resources';
import {
  indexedItemAttributes,
  parseItem,
  TOPIC_SK,
  topicKey,
  topicPk,
  withoutItemAttributes,
} from './table';

/** What a new topic is made of (its keys are generated). */
export interface TopicInput {
  inputSchema: InputSchema;
  inputSchemaMapping?: InputSchemaMapping;
  tags: Record<string, string>;
  /**
   * 0 (off, also when absent) to 1440; with `archive`, the only settings a `PUT` changes on an
   * existing topic besides its tags.
   */
  deduplicationWindowInMinutes?: number;
  /** Its archive; absent: none (a `PUT` without it turns the archive off). */
  archive?: TopicArchive;
  /** Whether events are checked against the topic's event catalog; absent: false (a `PUT` without it turns it off). */
  validateEvents?: boolean;
  /** What an event of a type the catalog does not list gets; absent: `allow`. */
  unknownEventTypes?: UnknownEventTypes;
}

/** A topic as the topics index lists it: everything but its keys. */
export type TopicSummary = Described<Topic>;

export type TopicStore = KeyedResourceStore<Topic, TopicInput>;

/**
 * A topic item as stored, without its keys (`keys`, or `sealedKeys`: see `keyed-resources.ts`).
 * Tags and the subscriptions version read as empty and 0 when absent.
 */
export const topicItemSchema = topicSchema.omit({ keys: true }).extend({
  ...indexedItemAttributes('topic', 'TOPIC'),
  tags: topicSchema.shape.tags.default({}),
  subscriptionsVersion: topicSchema.shape.subscriptionsVersion.default(0),
});
export type TopicItem = z.input<typeof topicItemSchema>;

/** The window as an item holds it: absent when off, so topics without one read as they always did. */
const dedupOf = (input: TopicInput): { deduplicationWindowInMinutes?: number } =>
  (input.deduplicationWindowInMinutes ?? 0) > 0
    ? { deduplicationWindowInMinutes: input.deduplicationWindowInMinutes as number }
    : {};

/** The validation settings as an item holds them: absent at their defaults (off, `allow`). */
const validationOf = (
  input: TopicInput,
): { validateEvents?: boolean; unknownEventTypes?: UnknownEventTypes } => ({
  ...(input.validateEvents === true ? { validateEvents: true } : {}),
  ...(input.unknownEventTypes === 'reject' ? { unknownEventTypes: 'reject' } : {}),
});

const topicLayout: KeyedResourceLayout<Topic, TopicInput> = {
  kind: 'topic',
  indexPartition: 'TOPIC',
  key: topicKey,
  describe: (name, input, now) => ({
    name,
    inputSchema: input.inputSchema,
    ...(input.inputSchemaMapping === undefined ? {} : { inputSchemaMapping: input.inputSchemaMapping }),
    tags: input.tags,
    ...dedupOf(input),
    ...(input.archive === undefined ? {} : { archive: input.archive }),
    ...validationOf(input),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    subscriptionsVersion: 0,
    catalogVersion: 0,
  }),
  changeable: (input) => ({
    deduplicationWindowInMinutes: dedupOf(input).deduplicationWindowInMinutes,
    archive: input.archive,
    validateEvents: validationOf(input).validateEvents,
    unknownEventTypes: validationOf(input).unknownEventTypes,
  }),
  parse: (item) => withoutItemAttributes(parseItem(topicItemSchema, item, 'topic')),
  withKeys: (described, keys) => ({ ...described, keys }),
  // Subscriptions first, the topic last: a half-finished delete can simply be repeated.
  delete: (table, name) => table.deletePartition(topicPk(name), TOPIC_SK),
};

export class DynamoTopicStore extends DynamoKeyedResources<Topic, TopicInput> implements TopicStore {
  constructor(doc: DynamoDBDocumentClient, tableName: string, keySealer?: SecretSealer) {
    super(doc, tableName, topicLayout, keySealer);
  }
}

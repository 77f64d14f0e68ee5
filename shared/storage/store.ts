/**
 * The table's aggregates built together. Callers take the one store they need (`TopicStore`,
 * `SubscriptionStore`, `NamespaceStore`, `NamespaceTopicStore`, `HeldMarks`; `HealthStore` and the attempt
 * history are built on their own); `Store` is the view across them that publishing reads, since
 * one publish resolves a topic or a namespace topic and lists its subscriptions.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SecretSealer } from '../platform/sealing';
import { DynamoEventTypeStore, type EventTypeStore } from './event-types';
import { DynamoHeldMarks, type HeldMarks } from './held-marks';
import {
  DynamoNamespaceStore,
  DynamoNamespaceTopicStore,
  type NamespaceStore,
  type NamespaceTopicStore,
} from './namespaces';
import { DynamoSubscriptionStore, type SubscriptionStore } from './subscriptions';
import { DynamoTopicStore, type TopicStore } from './topics';

export interface TableStores {
  topics: TopicStore;
  subscriptions: SubscriptionStore;
  namespaces: NamespaceStore;
  namespaceTopics: NamespaceTopicStore;
  /** Subscriptions whose backlog holds their events, marked in their topics' partitions. */
  heldMarks: HeldMarks;
  /** Topics' event catalogs, in their topics' partitions. */
  eventTypes: EventTypeStore;
}

/**
 * The stores of one table. `keySealer` seals topic and namespace access keys at rest (see
 * `keyed-resources.ts`).
 */
export function tableStores(doc: DynamoDBDocumentClient, tableName: string, keySealer?: SecretSealer) {
  return {
    topics: new DynamoTopicStore(doc, tableName, keySealer),
    subscriptions: new DynamoSubscriptionStore(doc, tableName),
    namespaces: new DynamoNamespaceStore(doc, tableName, keySealer),
    namespaceTopics: new DynamoNamespaceTopicStore(doc, tableName),
    heldMarks: new DynamoHeldMarks(doc, tableName),
    eventTypes: new DynamoEventTypeStore(doc, tableName),
  } satisfies TableStores;
}

/** What publishing reads, across the aggregates. */
export interface Store {
  getTopic: TopicStore['get'];
  getNamespace: NamespaceStore['get'];
  getNamespaceTopic: NamespaceTopicStore['get'];
  listSubscriptions: SubscriptionStore['list'];
}

/** The publishing view of a table's stores. */
export const publishingStore = (stores: TableStores): Store => ({
  getTopic: (name, options) => stores.topics.get(name, options),
  getNamespace: (name, options) => stores.namespaces.get(name, options),
  getNamespaceTopic: (namespace, name, options) => stores.namespaceTopics.get(namespace, name, options),
  listSubscriptions: (topic) => stores.subscriptions.list(topic),
});

/**
 * The storage interfaces kept in memory: the in-memory twin of the DynamoDB stores, with the same
 * rules (names case-insensitive, creation that finds an existing resource, conditional writes that
 * throw `ConcurrentChangeError`, `subscriptionsVersion` bumped by subscription changes, deletes
 * that take what is under them). `storage-conformance.ts` holds both to the same suite. Values are
 * copied in and out, so a caller can't change what is stored by changing what it holds.
 */

import type {
  BacklogCheckpoint,
  BacklogMeta,
  BacklogSegmentRef,
  BacklogSummary,
} from '../../shared/domain/backlog';
import type { CatalogSchema, EventType } from '../../shared/domain/event-types';
import type { EndpointHealth } from '../../shared/domain/health';
import type { Namespace, NamespaceTopic, Subscription, Topic, TopicKeys } from '../../shared/domain/model';
import { namespaceTopicId, splitNamespaceTopicId } from '../../shared/domain/names';
import type { Replay } from '../../shared/domain/replays';
import {
  type AcceptedIdClaim,
  type AcceptedIds,
  AcceptedIdsUnavailable,
  type AcceptingTopic,
  acceptedIdKey,
} from '../../shared/storage/accepted-ids';
import {
  type ArchivedRecord,
  type ArchivedTopic,
  type ArchiveStore,
  byPublishOrder,
  OverlappingRun,
  type SegmentInfo,
  segmentKey,
  segmentRange,
  topicPrefix,
} from '../../shared/storage/archive';
import {
  type BacklogOverview,
  type BacklogStore,
  decodeSegment,
  encodeSegment,
  hasWake,
  type ListSegmentsOptions,
  type NewSegment,
  type StoredSegment,
  storedFor,
  summaryOf,
} from '../../shared/storage/backlog';
import type { EventTypeStore } from '../../shared/storage/event-types';
import type { HealthStore } from '../../shared/storage/health';
import {
  type HeldMark,
  type HeldMarks,
  type HeldSubscriptions,
  heldSubscriptionsOf,
} from '../../shared/storage/held-marks';
import {
  type Described,
  type KeyedResource,
  type KeyedResourceStore,
  newAccessKey,
} from '../../shared/storage/keyed-resources';
import {
  type LateAnswer,
  type LateAnswerStore,
  lateAnswerKey,
  type RecordedLateAnswer,
} from '../../shared/storage/late-answers';
import type { NamespaceInput, NamespaceTopicStore } from '../../shared/storage/namespaces';
import {
  type OrderedMessageRef,
  type OrderedProgress,
  type OrderedProgressStore,
  orderedProgressKey,
} from '../../shared/storage/ordered-progress';
import type { RecoveredDelivery, RecoveryMarks } from '../../shared/storage/recoveries';
import type { ReplayClaims } from '../../shared/storage/replay-claims';
import type { ReplaySends } from '../../shared/storage/replay-sends';
import type { ReplayPageProgress, ReplayStore } from '../../shared/storage/replays';
import type { TableStores } from '../../shared/storage/store';
import type { SubscriptionStore } from '../../shared/storage/subscriptions';
import { backlogPk, backlogSegmentSk, ConcurrentChangeError, healthPk } from '../../shared/storage/table';
import type { TopicInput } from '../../shared/storage/topics';

const lower = (name: string) => name.toLowerCase();
const copy = <T>(value: T): T => structuredClone(value);
const byName = <T extends { name: string }>(a: T, b: T) => (lower(a.name) < lower(b.name) ? -1 : 1);
const withoutKeys = <R extends KeyedResource>({ keys: _keys, ...described }: R): Described<R> =>
  copy(described) as Described<R>;

/** Everything the in-memory stores hold, shared by them as the table is shared by the DynamoDB ones. */
class MemoryState {
  readonly topics = new Map<string, Topic>();
  readonly namespaces = new Map<string, Namespace>();
  /** By `<namespace>#<topic>`, lower case. */
  readonly namespaceTopics = new Map<string, NamespaceTopic>();
  /** By `<topic id>#<subscription>`, lower case. */
  readonly subscriptions = new Map<string, Subscription>();

  /** By `<topic id>#<subscription>`, lower case. */
  readonly heldMarks = new Map<string, HeldMark>();

  /** By `<topic id>#<event type>`, lower case. */
  readonly eventTypes = new Map<string, EventType>();

  /**
   * Deletes what is in a topic's partition besides the topic: every subscription and held mark of
   * a topic (a classic topic's name, or `<namespace>/<topic>`).
   */
  deleteUnderTopic(topicId: string): void {
    for (const [key, subscription] of this.subscriptions) {
      if (lower(subscription.topic) === lower(topicId)) this.subscriptions.delete(key);
    }
    for (const [key, mark] of this.heldMarks) {
      if (lower(mark.topic) === lower(topicId)) this.heldMarks.delete(key);
    }
    for (const [key, entry] of this.eventTypes) {
      if (lower(entry.topic) === lower(topicId)) this.eventTypes.delete(key);
    }
  }

  /** The item a topic's changes are counted on: a classic topic's, or a namespace topic's. */
  parentOf(topicId: string): Topic | NamespaceTopic | undefined {
    const namespaced = splitNamespaceTopicId(topicId);
    return namespaced === undefined
      ? this.topics.get(lower(topicId))
      : this.namespaceTopics.get(lower(`${namespaced.namespace}#${namespaced.topic}`));
  }

  /** What a catalog change does to its topic's item, when there is one. */
  bumpCatalogVersion(topicId: string, at: string): boolean {
    const parent = this.parentOf(topicId);
    if (parent === undefined) return false;
    parent.catalogVersion = (parent.catalogVersion ?? 0) + 1;
    parent.updatedAt = at;
    return true;
  }

  /** What a subscription change does to its topic's item, when there is one. */
  bumpSubscriptionsVersion(topicId: string, at: string): boolean {
    const namespaced = splitNamespaceTopicId(topicId);
    const parent =
      namespaced === undefined
        ? this.topics.get(lower(topicId))
        : this.namespaceTopics.get(lower(`${namespaced.namespace}#${namespaced.topic}`));
    if (parent === undefined) return false;
    parent.subscriptionsVersion += 1;
    parent.updatedAt = at;
    return true;
  }
}

/** Topics' event catalogs, as `DynamoEventTypeStore` keeps them in the topics' partitions. */
class MemoryEventTypes implements EventTypeStore {
  constructor(private readonly state: MemoryState) {}

  private key = (topicId: string, name: string) => lower(`${topicId}#${name}`);

  async get(topicId: string, name: string): Promise<EventType | undefined> {
    const entry = this.state.eventTypes.get(this.key(topicId, name));
    return entry === undefined ? undefined : copy(entry);
  }

  async list(topicId: string): Promise<EventType[]> {
    return [...this.state.eventTypes.values()]
      .filter((entry) => lower(entry.topic) === lower(topicId))
      .sort(byName)
      .map(copy);
  }

  async put(entry: EventType): Promise<boolean> {
    const key = this.key(entry.topic, entry.name);
    this.state.eventTypes.set(key, copy(entry));
    if (this.state.bumpCatalogVersion(entry.topic, entry.updatedAt)) return true;
    this.state.eventTypes.delete(key);
    return false;
  }

  async delete(topicId: string, name: string, now: Date): Promise<boolean> {
    if (!this.state.eventTypes.delete(this.key(topicId, name))) return false;
    this.state.bumpCatalogVersion(topicId, now.toISOString());
    return true;
  }

  async schemas(topicId: string): Promise<CatalogSchema[]> {
    return (await this.list(topicId)).map(({ name, schemaJson }) => ({
      name,
      ...(schemaJson === undefined ? {} : { schemaJson }),
    }));
  }
}

/** Keyed resources (topics, namespaces) in a map, as `DynamoKeyedResources` keeps them in the table. */
class MemoryKeyedResources<R extends KeyedResource, Input> implements KeyedResourceStore<R, Input> {
  constructor(
    private readonly items: Map<string, R>,
    private readonly make: (name: string, input: Input, now: Date, keys: TopicKeys) => R,
    private readonly deleteUnder: (name: string) => void,
    /** What a `PUT` changes on an existing one: its tags, and its layout's settings. */
    private readonly change: (item: R, input: Input) => void,
  ) {}

  async get(name: string): Promise<R | undefined> {
    const item = this.items.get(lower(name));
    return item === undefined ? undefined : copy(item);
  }

  async create(name: string, input: Input, now: Date): Promise<{ resource: R; created: boolean }> {
    const existing = this.items.get(lower(name));
    if (existing !== undefined) return { resource: copy(existing), created: false };
    const resource = this.make(name, copy(input), now, { key1: newAccessKey(), key2: newAccessKey() });
    this.items.set(lower(name), resource);
    return { resource: copy(resource), created: true };
  }

  async update(name: string, input: Input, now: Date): Promise<Described<R> | undefined> {
    const item = this.items.get(lower(name));
    if (item === undefined) return undefined;
    this.change(item, copy(input));
    item.updatedAt = now.toISOString();
    return withoutKeys(item);
  }

  async list(): Promise<Described<R>[]> {
    return [...this.items.values()].sort(byName).map(withoutKeys);
  }

  async regenerateKey(name: string, keyName: keyof TopicKeys, now: Date): Promise<R | undefined> {
    const item = this.items.get(lower(name));
    if (item === undefined) return undefined;
    item.keys = { ...item.keys, [keyName]: newAccessKey() };
    item.updatedAt = now.toISOString();
    return copy(item);
  }

  async delete(name: string): Promise<boolean> {
    if (!this.items.has(lower(name))) return false;
    this.deleteUnder(name);
    this.items.delete(lower(name));
    return true;
  }
}

class MemoryNamespaceTopics implements NamespaceTopicStore {
  constructor(private readonly state: MemoryState) {}

  private key = (namespace: string, name: string) => lower(`${namespace}#${name}`);

  async get(namespace: string, name: string): Promise<NamespaceTopic | undefined> {
    const topic = this.state.namespaceTopics.get(this.key(namespace, name));
    return topic === undefined ? undefined : copy(topic);
  }

  async put(topic: NamespaceTopic, replaces: Pick<NamespaceTopic, 'updatedAt'> | undefined): Promise<void> {
    const key = this.key(topic.namespace, topic.name);
    const stored = this.state.namespaceTopics.get(key);
    if (replaces === undefined ? stored !== undefined : stored?.updatedAt !== replaces.updatedAt) {
      throw new ConcurrentChangeError(`namespace topic ${topic.namespace}/${topic.name}`);
    }
    this.state.namespaceTopics.set(key, copy(topic));
  }

  async list(namespace: string): Promise<NamespaceTopic[]> {
    return [...this.state.namespaceTopics.values()]
      .filter((topic) => lower(topic.namespace) === lower(namespace))
      .sort(byName)
      .map(copy);
  }

  async delete(namespace: string, name: string): Promise<boolean> {
    const key = this.key(namespace, name);
    if (!this.state.namespaceTopics.has(key)) return false;
    this.state.deleteUnderTopic(namespaceTopicId(namespace, name));
    this.state.namespaceTopics.delete(key);
    return true;
  }
}

class MemorySubscriptions implements SubscriptionStore {
  constructor(private readonly state: MemoryState) {}

  private key = (topic: string, name: string) => lower(`${topic}#${name}`);

  async get(topic: string, name: string): Promise<Subscription | undefined> {
    const subscription = this.state.subscriptions.get(this.key(topic, name));
    return subscription === undefined ? undefined : copy(subscription);
  }

  async list(topic: string): Promise<Subscription[]> {
    return [...this.state.subscriptions.values()]
      .filter((subscription) => lower(subscription.topic) === lower(topic))
      .sort(byName)
      .map(copy);
  }

  async put(subscription: Subscription, replaces: number | undefined): Promise<void> {
    const key = this.key(subscription.topic, subscription.name);
    const stored = this.state.subscriptions.get(key);
    if (replaces === undefined ? stored !== undefined : stored?.version !== replaces) {
      throw new ConcurrentChangeError(`subscription ${subscription.topic}/${subscription.name}`);
    }
    this.state.subscriptions.set(key, copy(subscription));
    this.state.bumpSubscriptionsVersion(subscription.topic, subscription.updatedAt);
  }

  async delete(topic: string, name: string, now: Date, version?: number): Promise<boolean> {
    const key = this.key(topic, name);
    if (version !== undefined && this.state.subscriptions.get(key)?.version !== version) return false;
    if (!this.state.subscriptions.delete(key)) return false;
    this.state.bumpSubscriptionsVersion(topic, now.toISOString());
    return true;
  }
}

/** Held marks in the topics' partitions, as `DynamoHeldMarks` keeps them. */
class MemoryHeldMarks implements HeldMarks {
  constructor(private readonly state: MemoryState) {}

  async set(mark: Omit<HeldMark, 'since'>, held: boolean, now: number): Promise<boolean> {
    const key = lower(`${mark.topic}#${mark.subscription}`);
    const stored = this.state.heldMarks.get(key);
    if (held) {
      if (stored !== undefined && (mark.uid === undefined || stored.uid === mark.uid)) return false;
      this.state.heldMarks.set(key, { ...copy(mark), since: now });
    } else if (!this.state.heldMarks.delete(key)) {
      return false;
    }
    if (!this.state.bumpSubscriptionsVersion(mark.topic, new Date(now).toISOString()) && held) {
      this.state.heldMarks.delete(key);
    }
    return true;
  }

  async list(topic: string): Promise<HeldSubscriptions> {
    return heldSubscriptionsOf(
      [...this.state.heldMarks.values()].filter((mark) => lower(mark.topic) === lower(topic)),
    );
  }
}

/** The topics, subscriptions, namespaces, namespace topics and held marks of one in-memory table. */
export function memoryStores(): TableStores {
  const state = new MemoryState();
  const subscriptions = new MemorySubscriptions(state);
  const namespaceTopics = new MemoryNamespaceTopics(state);
  const topics = new MemoryKeyedResources<Topic, TopicInput>(
    state.topics,
    (name, input, now, keys) => ({
      name,
      inputSchema: input.inputSchema,
      ...(input.inputSchemaMapping === undefined ? {} : { inputSchemaMapping: input.inputSchemaMapping }),
      keys,
      tags: input.tags,
      ...((input.deduplicationWindowInMinutes ?? 0) > 0
        ? { deduplicationWindowInMinutes: input.deduplicationWindowInMinutes }
        : {}),
      ...(input.archive === undefined ? {} : { archive: input.archive }),
      ...(input.validateEvents === true ? { validateEvents: true } : {}),
      ...(input.unknownEventTypes === 'reject' ? { unknownEventTypes: 'reject' as const } : {}),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      subscriptionsVersion: 0,
      catalogVersion: 0,
    }),
    (name) => state.deleteUnderTopic(name),
    (item, input) => {
      item.tags = input.tags;
      if (input.deduplicationWindowInMinutes !== undefined && input.deduplicationWindowInMinutes > 0) {
        item.deduplicationWindowInMinutes = input.deduplicationWindowInMinutes;
      } else delete item.deduplicationWindowInMinutes;
      if (input.archive !== undefined) item.archive = input.archive;
      else delete item.archive;
      if (input.validateEvents === true) item.validateEvents = true;
      else delete item.validateEvents;
      if (input.unknownEventTypes === 'reject') item.unknownEventTypes = 'reject';
      else delete item.unknownEventTypes;
    },
  );
  const namespaces = new MemoryKeyedResources<Namespace, NamespaceInput>(
    state.namespaces,
    (name, input, now, keys) => ({
      name,
      keys,
      tags: input.tags,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    }),
    (name) => {
      for (const topic of [...state.namespaceTopics.values()]) {
        if (lower(topic.namespace) !== lower(name)) continue;
        state.deleteUnderTopic(namespaceTopicId(topic.namespace, topic.name));
        state.namespaceTopics.delete(lower(`${topic.namespace}#${topic.name}`));
      }
    },
    (item, input) => {
      item.tags = input.tags;
    },
  );
  return {
    topics,
    subscriptions,
    namespaces,
    namespaceTopics,
    heldMarks: new MemoryHeldMarks(state),
    eventTypes: new MemoryEventTypes(state),
  };
}

/**
 * Creates a topic in `stores`: a classic topic (Event Grid schema), or with a `namespace/topic`
 * name that namespace and its topic (retention 1 day), all made at epoch 0.
 */
export async function seedTopic(stores: TableStores, topic: string): Promise<void> {
  if (!topic.includes('/')) {
    await stores.topics.create(topic, { inputSchema: 'EventGridSchema', tags: {} }, new Date(0));
    return;
  }
  const [namespace = '', name = ''] = topic.split('/');
  if ((await stores.namespaces.get(namespace)) === undefined) {
    await stores.namespaces.create(namespace, { tags: {} }, new Date(0));
  }
  await stores.namespaceTopics.put(
    {
      namespace,
      name,
      eventRetentionInDays: 1,
      subscriptionsVersion: 0,
      createdAt: new Date(0).toISOString(),
      updatedAt: new Date(0).toISOString(),
    },
    undefined,
  );
}

/** Health kept in memory, with the same conditional writes (simulations and tests). */
export class MemoryHealthStore implements HealthStore {
  readonly items = new Map<string, EndpointHealth>();
  writes = 0;
  conflicts = 0;

  async get(topic: string, subscription: string): Promise<EndpointHealth | undefined> {
    const item = this.items.get(healthPk(topic, subscription));
    return item === undefined ? undefined : { ...item };
  }

  async put(health: EndpointHealth, expectedRev: number | undefined): Promise<boolean> {
    const key = healthPk(health.topic, health.subscription);
    if (this.items.get(key)?.rev !== expectedRev) {
      this.conflicts += 1;
      return false;
    }
    this.writes += 1;
    this.items.set(key, { ...health });
    return true;
  }
}

/**
 * Backlogs kept in memory, with the same rules as the table and bucket: objects hold the same
 * text, index items are created only where none is, META writes are conditional on the token.
 * `objects` is open so tests can see what is stored (an orphan object, a segment's bytes).
 */
export class MemoryBacklogStore implements BacklogStore {
  /** Segment text by object key. */
  readonly objects = new Map<string, string>();
  /** Index entries by partition, then sort key. */
  private readonly index = new Map<string, Map<string, BacklogSegmentRef>>();
  private readonly metas = new Map<string, BacklogMeta>();

  private partition(topic: string, subscription: string): Map<string, BacklogSegmentRef> {
    const pk = backlogPk(topic, subscription);
    let partition = this.index.get(pk);
    if (partition === undefined) {
      partition = new Map();
      this.index.set(pk, partition);
    }
    return partition;
  }

  private static sk = (ref: BacklogSegmentRef) => backlogSegmentSk(ref.minDueAt, ref.segmentId);

  async putSegment(segment: NewSegment): Promise<BacklogSegmentRef> {
    const { text, ref } = encodeSegment(copy(segment));
    this.objects.set(ref.key, text);
    const partition = this.partition(ref.topic, ref.subscription);
    const stored = partition.get(MemoryBacklogStore.sk(ref));
    if (stored !== undefined) return copy(stored);
    partition.set(MemoryBacklogStore.sk(ref), copy(ref));
    return ref;
  }

  async listSegments(
    topic: string,
    subscription: string,
    options: ListSegmentsOptions = {},
  ): Promise<BacklogSegmentRef[]> {
    const { dueBy } = options;
    return [...this.partition(topic, subscription).entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, ref]) => ref)
      .filter((ref) => dueBy === undefined || Math.ceil(ref.minDueAt) <= dueBy)
      .map(copy);
  }

  async readSegment(ref: BacklogSegmentRef): Promise<StoredSegment> {
    const text = this.objects.get(ref.key);
    if (text === undefined) throw new Error(`backlog segment ${ref.key} does not exist`);
    return decodeSegment(ref.key, text);
  }

  async updateCheckpoint(ref: BacklogSegmentRef, checkpoint: BacklogCheckpoint): Promise<boolean> {
    const partition = this.partition(ref.topic, ref.subscription);
    const stored = partition.get(MemoryBacklogStore.sk(ref));
    if (stored === undefined) return false;
    partition.set(MemoryBacklogStore.sk(ref), {
      ...stored,
      doneThrough: checkpoint.doneThrough,
      doneAfter: [...checkpoint.doneAfter],
    });
    return true;
  }

  async deleteSegment(ref: BacklogSegmentRef): Promise<void> {
    this.partition(ref.topic, ref.subscription).delete(MemoryBacklogStore.sk(ref));
    this.objects.delete(ref.key);
  }

  async getMeta(topic: string, subscription: string): Promise<BacklogMeta | undefined> {
    const meta = this.metas.get(backlogPk(topic, subscription));
    return meta === undefined ? undefined : copy(meta);
  }

  async putMeta(meta: BacklogMeta, expectedToken: string | undefined): Promise<boolean> {
    const pk = backlogPk(meta.topic, meta.subscription);
    if (this.metas.get(pk)?.token !== expectedToken) return false;
    this.metas.set(pk, copy(meta));
    return true;
  }

  async deleteMeta(topic: string, subscription: string, expectedToken: string): Promise<boolean> {
    const pk = backlogPk(topic, subscription);
    if (this.metas.get(pk)?.token !== expectedToken) return false;
    this.metas.delete(pk);
    return true;
  }

  async summary(topic: string, subscription: string): Promise<BacklogSummary> {
    return summaryOf(await this.listSegments(topic, subscription));
  }

  async overview(topic: string, subscription: string, uid: string | undefined): Promise<BacklogOverview> {
    const segments = await this.listSegments(topic, subscription);
    return {
      meta: await this.getMeta(topic, subscription),
      summary: summaryOf(segments.filter((ref) => storedFor(ref, uid))),
    };
  }

  async wakesBy(until: number): Promise<BacklogMeta[]> {
    return [...this.metas.values()]
      .filter((meta) => hasWake(meta) && Math.ceil(meta.wakeAt) <= until)
      .sort((a, b) => (a.wakeAt ?? 0) - (b.wakeAt ?? 0))
      .map(copy);
  }
}

/** Late answers kept in memory, keyed as the table keys them (case-insensitive names). */
export class MemoryLateAnswers implements LateAnswerStore {
  readonly items = new Map<string, LateAnswer>();
  /** Every call fails with this error. */
  failWith: Error | undefined;
  lookups = 0;

  private keyOf(topic: string, subscription: string, deliveryId: string): string {
    const key = lateAnswerKey(topic, subscription, deliveryId);
    return `${key.pk}/${key.sk}`;
  }

  async record(answers: readonly LateAnswer[]): Promise<void> {
    if (this.failWith !== undefined) throw this.failWith;
    for (const answer of answers) {
      this.items.set(this.keyOf(answer.topic, answer.subscription, answer.deliveryId), { ...answer });
    }
  }

  async find(
    topic: string,
    subscription: string,
    deliveryIds: readonly string[],
  ): Promise<Map<string, RecordedLateAnswer>> {
    this.lookups += 1;
    if (this.failWith !== undefined) throw this.failWith;
    const found = new Map<string, RecordedLateAnswer>();
    for (const id of deliveryIds) {
      const answer = this.items.get(this.keyOf(topic, subscription, id));
      if (answer !== undefined) {
        const { expiresAt: _expiresAt, ...recorded } = answer;
        found.set(id, recorded);
      }
    }
    return found;
  }
}

/**
 * Accepted event ids in memory, as `DynamoAcceptedIds` keeps them. `failing` makes every claim
 * and release throw (the store down), after the claims made before it in the same call, as the
 * table's parallel puts may be.
 */
export class MemoryAcceptedIds implements AcceptedIds {
  readonly items = new Map<string, { owner: string; acceptedAt: number }>();
  /** Claims written so far (each a write unit, as a put is). */
  writes = 0;
  failing: Error | undefined;

  async claim({ topic, ids, owner, now, windowMs }: AcceptedIdClaim): Promise<boolean[]> {
    const repeats: boolean[] = [];
    const claimed: string[] = [];
    for (const id of ids) {
      if (this.failing !== undefined) {
        throw new AcceptedIdsUnavailable(this.failing, await this.release(topic, claimed, owner));
      }
      const key = acceptedIdKey(topic, id).pk;
      const held = this.items.get(key);
      this.writes += 1;
      if (held !== undefined && held.acceptedAt > now - windowMs && held.owner !== owner) {
        repeats.push(true);
        continue;
      }
      this.items.set(key, { owner, acceptedAt: now });
      claimed.push(id);
      repeats.push(false);
    }
    return repeats;
  }

  async release(topic: AcceptingTopic, ids: readonly string[], owner: string): Promise<string[]> {
    if (this.failing !== undefined) return [...ids];
    for (const id of ids) {
      const key = acceptedIdKey(topic, id).pk;
      if (this.items.get(key)?.owner === owner) this.items.delete(key);
    }
    return [];
  }
}

/** Ordered messages' progress in memory, as `DynamoOrderedProgress` keeps it. */
export class MemoryOrderedProgress implements OrderedProgressStore {
  readonly items = new Map<string, { progress: OrderedProgress; keepUntil: number }>();
  reads = 0;
  writes = 0;
  /** Every read and write fails with this (the table down). */
  failing: Error | undefined;

  async get(message: OrderedMessageRef): Promise<OrderedProgress | undefined> {
    if (this.failing !== undefined) throw this.failing;
    this.reads += 1;
    const found = this.items.get(orderedProgressKey(message).pk);
    return found === undefined ? undefined : structuredClone(found.progress);
  }

  async put(message: OrderedMessageRef, progress: OrderedProgress, keepUntil: number): Promise<void> {
    if (this.failing !== undefined) throw this.failing;
    this.writes += 1;
    this.items.set(orderedProgressKey(message).pk, { progress: structuredClone(progress), keepUntil });
  }

  async delete(message: OrderedMessageRef): Promise<void> {
    if (this.failing !== undefined) throw this.failing;
    this.writes += 1;
    this.items.delete(orderedProgressKey(message).pk);
  }
}

/** Replay claims in memory, as `DynamoReplayClaims` keeps them. */
export class MemoryReplayClaims implements ReplayClaims {
  readonly claims = new Map<string, { owner: string; until: number }>();

  async claim(blobKey: string, owner: string, now: number, until: number): Promise<boolean> {
    const held = this.claims.get(blobKey);
    if (held !== undefined && held.until > now) return false;
    this.claims.set(blobKey, { owner, until });
    return true;
  }

  async release(blobKey: string, owner: string): Promise<void> {
    if (this.claims.get(blobKey)?.owner === owner) this.claims.delete(blobKey);
  }
}

/** The archive bucket in memory: segments by key, as `ArchiveBucket` lays them out. */
export class MemoryArchive implements ArchiveStore {
  readonly segments = new Map<string, { topic: ArchivedTopic; records: ArchivedRecord[] }>();
  /** Set to make the next writes fail with this message. */
  failWrites: string | undefined;

  async putSegment(topic: ArchivedTopic, records: readonly ArchivedRecord[]): Promise<string> {
    if (this.failWrites !== undefined) throw new Error(this.failWrites);
    const sorted = [...records].sort(byPublishOrder);
    const first = sorted[0];
    const last = sorted.at(-1);
    if (first === undefined || last === undefined) throw new Error('a segment holds at least one event');
    const key = segmentKey(topic, first.publishedAt, last.publishedAt, `m${this.segments.size}`);
    this.segments.set(key, { topic, records: sorted });
    return key;
  }

  async listSegments(topic: ArchivedTopic, since: number, until: number): Promise<SegmentInfo[]> {
    const prefix = topicPrefix(topic);
    return [...this.segments.keys()]
      .filter((key) => key.startsWith(prefix))
      .flatMap((key) => {
        const range = segmentRange(key);
        return range === undefined || range.last < since || range.first >= until
          ? []
          : [{ key, ...range, bytes: 0 }];
      })
      .sort((a, b) => a.first - b.first || a.key.localeCompare(b.key));
  }

  async nextSegments(
    topic: ArchivedTopic,
    after: string | undefined,
    since: number,
    until: number,
    limit: number,
  ): Promise<SegmentInfo[]> {
    const prefix = topicPrefix(topic);
    const run = new OverlappingRun(since, until, limit);
    for (const key of [...this.segments.keys()].filter((key) => key.startsWith(prefix)).sort()) {
      if (after !== undefined && key <= after) continue;
      if (!run.take(key, 0)) break;
    }
    return run.segments;
  }

  async readSegment(key: string): Promise<ArchivedRecord[]> {
    const segment = this.segments.get(key);
    if (segment === undefined) throw new Error(`no segment ${key}`);
    return segment.records;
  }

  async deleteBefore(topic: ArchivedTopic, before: number): Promise<number> {
    const day = 24 * 3_600_000;
    let deleted = 0;
    for (const key of [...this.segments.keys()]) {
      const range = segmentRange(key);
      if (
        key.startsWith(topicPrefix(topic)) &&
        range !== undefined &&
        Math.floor(range.first / day) * day + day <= before
      ) {
        this.segments.delete(key);
        deleted += 1;
      }
    }
    return deleted;
  }

  async deleteTopic(topic: ArchivedTopic): Promise<number> {
    const keys = [...this.segments.keys()].filter((key) => key.startsWith(topicPrefix(topic)));
    for (const key of keys) this.segments.delete(key);
    return keys.length;
  }

  async listTopics(): Promise<ArchivedTopic[]> {
    const topics = new Map<string, ArchivedTopic>();
    for (const { topic } of this.segments.values()) topics.set(topicPrefix(topic), topic);
    return [...topics.values()];
  }
}

/** Replays in memory, as `DynamoReplayStore` keeps them (cursor moved by conditional writes). */
export class MemoryReplayStore implements ReplayStore {
  readonly replays = new Map<string, Replay>();
  private readonly keyOf = (topic: string, subscription: string, id: string) =>
    `${topic.toLowerCase()}\n${subscription.toLowerCase()}\n${id}`;

  async put(replay: Replay): Promise<void> {
    this.replays.set(this.keyOf(replay.topic, replay.subscription, replay.id), structuredClone(replay));
  }

  async get(topic: string, subscription: string, id: string): Promise<Replay | undefined> {
    const replay = this.replays.get(this.keyOf(topic, subscription, id));
    return replay === undefined ? undefined : structuredClone(replay);
  }

  async list(topic: string, subscription: string): Promise<Replay[]> {
    const prefix = this.keyOf(topic, subscription, '');
    return [...this.replays]
      .filter(([key]) => key.startsWith(prefix))
      .map(([, replay]) => structuredClone(replay))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  async advance(
    replay: Replay,
    from: string | undefined,
    page: ReplayPageProgress,
    now: Date,
  ): Promise<boolean> {
    const stored = this.replays.get(this.keyOf(replay.topic, replay.subscription, replay.id));
    if (stored === undefined || stored.cursor !== from) return false;
    stored.cursor = page.cursor;
    stored.found += page.found;
    stored.queued += page.queued;
    stored.updatedAt = now.toISOString();
    return true;
  }

  async end(
    replay: Replay,
    state: 'Completed' | 'Cancelled' | 'Failed',
    now: Date,
    reason?: string,
  ): Promise<boolean> {
    const stored = this.replays.get(this.keyOf(replay.topic, replay.subscription, replay.id));
    if (stored === undefined || stored.state !== 'Running') return false;
    stored.state = state;
    stored.updatedAt = now.toISOString();
    if (reason !== undefined) stored.reason = reason;
    return true;
  }

  async addDelivered(topic: string, subscription: string, id: string, events: number): Promise<void> {
    const stored = this.replays.get(this.keyOf(topic, subscription, id));
    if (stored !== undefined) stored.delivered += events;
  }
}

/** The parts of replays received, in memory: the first message with a part claims it. */
export class MemoryReplaySends implements ReplaySends {
  readonly claims = new Map<string, string>();

  async firstCopy(chunk: string, messageId: string, _now?: number): Promise<boolean> {
    const holder = this.claims.get(chunk);
    if (holder !== undefined) return holder === messageId;
    this.claims.set(chunk, messageId);
    return true;
  }
}

/** Deliveries marked recovered, in memory, as `DynamoRecoveryMarks` keeps them. */
export class MemoryRecoveryMarks implements RecoveryMarks {
  readonly marks = new Map<string, string>();

  private keyOf(delivery: RecoveredDelivery): string {
    return `${delivery.topic}#${delivery.subscription}#${delivery.deliveryId}`;
  }

  async mark(delivery: RecoveredDelivery, recovery: string, _now?: number): Promise<boolean> {
    const key = this.keyOf(delivery);
    if (this.marks.has(key)) return false;
    this.marks.set(key, recovery);
    return true;
  }

  async unmark(delivery: RecoveredDelivery, recovery: string): Promise<void> {
    const key = this.keyOf(delivery);
    if (this.marks.get(key) === recovery) this.marks.delete(key);
  }
}

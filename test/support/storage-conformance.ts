/**
 * One suite for the storage interfaces, run against the in-memory stores (`test/unit/storage`) and
 * the DynamoDB ones through the emulator (`test/integration`): whatever passes here behaves alike.
 * Every stored shape makes a round trip with each of its optional fields set, and a check that the
 * fixture does set every field of the domain schema, so a field added to the model without the
 * store keeping it fails here.
 */
import { z } from 'zod';
import { segmentIdOf } from '../../shared/delivery/rules/backlog';
import {
  type BacklogLine,
  type BacklogMeta,
  backlogLineSchema,
  backlogMetaSchema,
  backlogSegmentHeaderSchema,
} from '../../shared/domain/backlog';
import { type EventType, eventTypeSchema } from '../../shared/domain/event-types';
import { type EndpointHealth, endpointHealthSchema } from '../../shared/domain/health';
import {
  type NamespaceTopic,
  namespaceSchema,
  namespaceTopicSchema,
  type Subscription,
  subscriptionSchema,
  type TopicKeys,
  topicSchema,
} from '../../shared/domain/model';
import { namespaceTopicId, topicIdOf } from '../../shared/domain/names';
import type { AcceptedIds } from '../../shared/storage/accepted-ids';
import { type BacklogStore, type NewSegment, replaceSegments } from '../../shared/storage/backlog';
import type { DeclaredDestinationsStore } from '../../shared/storage/declared-destinations';
import { type HealthStore, resetHealth } from '../../shared/storage/health';
import type { KeyedResource, KeyedResourceStore } from '../../shared/storage/keyed-resources';
import type { LateAnswer, LateAnswerStore } from '../../shared/storage/late-answers';
import type { OrderedProgressStore } from '../../shared/storage/ordered-progress';
import type { RateBudgetStore } from '../../shared/storage/rate-budget';
import type { ReplayClaims } from '../../shared/storage/replay-claims';
import type { TableStores } from '../../shared/storage/store';
import { ConcurrentChangeError } from '../../shared/storage/table';
import type { TopicInput } from '../../shared/storage/topics';
import { deliveryTarget, item, subscription as subscriptionOf } from './fakes';

export interface StorageUnderTest {
  stores: TableStores;
  health: HealthStore;
  backlog: BacklogStore;
  lateAnswers: LateAnswerStore;
  replayClaims: ReplayClaims;
  acceptedIds: AcceptedIds;
  orderedProgress: OrderedProgressStore;
  rateBudget: RateBudgetStore;
  declaredDestinations: DeclaredDestinationsStore;
}

/**
 * The fields of `schema` that `value` leaves unset (paths, dotted), looking into nested objects,
 * array elements and the union member a value is.
 */
export function unsetFields(schema: z.ZodType, value: unknown, path = ''): string[] {
  if (value === undefined) return [path];
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return unsetFields(schema.unwrap() as z.ZodType, value, path);
  }
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodReadonly) {
    return unsetFields(schema.def.innerType as z.ZodType, value, path);
  }
  if (schema instanceof z.ZodArray && Array.isArray(value)) {
    return value.flatMap((element, index) =>
      unsetFields(schema.element as z.ZodType, element, `${path}${path === '' ? '' : '.'}${index}`),
    );
  }
  if (schema instanceof z.ZodUnion) {
    const member = (schema.options as z.ZodType[]).find((option) => option.safeParse(value).success);
    return member === undefined ? [] : unsetFields(member, value, path);
  }
  if (schema instanceof z.ZodObject && typeof value === 'object' && value !== null) {
    return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([field, fieldSchema]) =>
      unsetFields(
        fieldSchema,
        (value as Record<string, unknown>)[field],
        path === '' ? field : `${path}.${field}`,
      ),
    );
  }
  return [];
}

const AT = new Date('2026-03-01T00:00:00.000Z');
const LATER = new Date('2026-03-02T00:00:00.000Z');
const ISO = AT.toISOString();
/** A dead-letter destination with every field set: a bucket of the team's own, reached with a role. */
const FULL_DEAD_LETTER = {
  container: 'dead',
  resourceId: 'arn:aws:s3:::team-dead-letters',
  bucket: 'team-dead-letters',
  roleArn: 'arn:aws:iam::222222222222:role/dead-letter-writer',
  externalId: 'gw-1',
};

/** A subscription with every optional field set. */
const fullSubscription = (topic: string, name: string): Subscription =>
  subscriptionOf({
    topic,
    name,
    uid: 'uid-full',
    version: 7,
    deliveryProfile: 'namespace',
    destination: {
      endpointType: 'WebHook',
      endpointUrl: 'https://hooks.example.test/in',
      sealedQuery: 'v1.sealed.query',
      maxEventsPerBatch: 50,
      preferredBatchSizeInKilobytes: 128,
      maxDeliveriesPerSecond: 50,
      auth: {
        type: 'OAuth2ClientCredentials',
        tokenUrl: 'https://auth.example.test/token',
        clientId: 'gridwire',
        sealedClientSecret: 'v1.sealed.client',
        sealedTokenQuery: 'v1.sealed.token-query',
        scope: 'hooks.write',
      },
      deliveryAttributeMappings: [
        { name: 'X-Plain', type: 'Static', isSecret: false, value: 'hello' },
        { name: 'Authorization', type: 'Static', isSecret: true, sealedValue: 'v1.aaa.bbb' },
        { name: 'X-Tenant', type: 'Dynamic', sourceField: 'data.tenant' },
      ],
      signing: {
        // Every field set: a secret with the expiry only earlier secrets have.
        secrets: [{ sealed: 'v1.sealed.old', publicKey: 'whpk_public', createdAt: 1, expiresAt: 3 }],
      },
      tls: {
        clientCertificate: '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n',
        sealedClientKey: 'v1.sealed.client-key',
        caCertificates: '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n',
        trustPublicCas: false,
      },
    },
    filter: {
      includedEventTypes: ['Order.Created'],
      subjectBeginsWith: 'orders/',
      subjectEndsWith: '.json',
      isSubjectCaseSensitive: true,
      enableAdvancedFilteringOnArrays: true,
      advancedFilters: [
        { operatorType: 'NumberInRange', key: 'data.total', values: [[1, 10]] },
        { operatorType: 'StringIn', key: 'data.color', values: ['blue'] },
        { operatorType: 'IsNotNull', key: 'data.id' },
      ],
    },
    retry: { maxAttempts: 5, ttlMs: 3_600_000, scheduleMs: [10_000, 60_000] },
    deadLetter: FULL_DEAD_LETTER,
    eventDeliverySchema: 'CloudEventSchemaV1_0',
    labels: ['a', 'b'],
    deliveryLog: 'All',
    disableAfterFailingForMs: 3_600_000,
    validation: {
      endpointUrl: 'https://hooks.example.test/in',
      code: 'code-1',
      startedAt: 1,
      expiresAt: 2,
      validatedAt: 3,
      handshakeError: 'HTTP 500',
    },
    expirationTime: '2027-01-01T00:00:00.000Z',
    orderedDelivery: { key: 'data.orderId' },
    createdAt: ISO,
    updatedAt: ISO,
  });

/** Endpoint health with every optional field set. */
const fullHealth = (topic: string, subscription: string): EndpointHealth => ({
  topic,
  subscription,
  endpointUrl: 'https://hooks.example.test/in',
  consecutiveFailures: 12,
  probations: 2,
  probationUntil: 1_000,
  probationOutcome: 'Busy',
  lastOutcome: 'Delivered',
  lastFailureAt: 900,
  lastSuccessAt: 950,
  unhealthySince: 800,
  resetAt: 700,
  disabledAt: 960,
  disabledReason: 'FailingTooLong',
  failingSince: 100,
  pausedAt: 965,
  drainingUntil: 1_020,
  rev: 1,
});

const FULL_TOPIC_INPUT: TopicInput = {
  deduplicationWindowInMinutes: 30,
  archive: { retentionInDays: 9 },
  validateEvents: true,
  unknownEventTypes: 'reject',
  inputSchema: 'CustomEventSchema',
  inputSchemaMapping: {
    id: { sourceField: 'orderId' },
    topic: { sourceField: 'source' },
    eventTime: { sourceField: 'at' },
    subject: { sourceField: 'path', defaultValue: 'orders' },
    eventType: { sourceField: 'kind', defaultValue: 'Order.Created' },
    dataVersion: { sourceField: 'schema', defaultValue: '1.0' },
  },
  tags: { team: 'checkout' },
};

const nsTopic = (
  namespace: string,
  name: string,
  overrides: Partial<NamespaceTopic> = {},
): NamespaceTopic => ({
  namespace,
  name,
  eventRetentionInDays: 3,
  createdAt: ISO,
  updatedAt: ISO,
  subscriptionsVersion: 0,
  ...overrides,
});

/**
 * Event text that a re-serialisation would change: a number beyond a double's precision, a
 * `__proto__` member, escapes written the long way, characters beyond U+FFFF, a line separator,
 * a newline inside a string and spacing the publisher chose.
 */
const AWKWARD_EVENT_JSON = String.raw`{"id":"odd","data":{"big":123456789012345678901234567890,"__proto__":{"x":1},"exp":1E+2},"subject":"caf\u00e9 \"quoted\" \ud83d\ude00 😀 \u2028 ln\nend",  "eventType":"T" ,"metadataVersion":"1"}`;

/** A stored event with every optional field of a line and its item set. */
const fullLine = (
  id: string,
  dueAt: number,
  publishedAt: number,
  heldBy: BacklogLine['heldBy'] = 'wait',
): BacklogLine => ({
  dueAt,
  heldBy,
  item: item(id, publishedAt, {
    attempts: 3,
    lastOutcome: 'Busy',
    lastHttpStatus: 503,
    lastAttemptAt: publishedAt + 1,
    lateUntil: publishedAt + 180_001,
    resendOf: `first-${id}`,
    replayOf: 'archive',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  }),
});

/** A segment of `lines` for subscription `audit` of `topic`, its id made from `messageIds`. */
const segmentOf = (
  topic: string,
  lines: readonly BacklogLine[],
  messageIds: readonly string[] = lines.map((line) => `m-${line.item.deliveryId}`),
  uid = 'uid-1',
): NewSegment => ({
  target: deliveryTarget({
    topic,
    uid,
    version: 4,
    deadLetter: FULL_DEAD_LETTER,
  }),
  segmentId: segmentIdOf(messageIds),
  lines,
  createdAt: AT.getTime(),
});

/** A backlog META with every optional field set. */
const fullMeta = (topic: string, overrides: Partial<BacklogMeta> = {}): BacklogMeta => ({
  topic,
  subscription: 'audit',
  uid: 'uid-1',
  endpointUrl: 'https://hooks.example.test/in',
  token: 't-1',
  wakeAt: AT.getTime() + 60_000,
  armedToken: 't-1',
  lease: { until: AT.getTime() + 240_000 },
  heldUntil: AT.getTime() + 30_000,
  state: 'holding',
  held: true,
  summary: { events: 7, oldestPublishedAt: AT.getTime() - 3_600_000 },
  // A wake the sweep armed again keeps when it first fell due.
  overdueSince: AT.getTime() - 600_000,
  updatedAt: AT.getTime(),
  ...overrides,
});

const isAccessKey = (key: string) => /^[A-Za-z0-9+/]{43}=$/.test(key);

export function describeStorageConformance(setup: () => Promise<StorageUnderTest>): void {
  let s: StorageUnderTest;
  beforeAll(async () => {
    s = await setup();
  });
  // One table serves every test: each test works with names no other one uses.
  let counter = 0;
  const unique = (base: string) => `${base}${++counter}`;

  describeKeyedResources('topics', () => s.stores.topics, {
    inputSchema: 'EventGridSchema',
    tags: { team: 'a' },
  });
  describeKeyedResources('namespaces', () => s.stores.namespaces, { tags: { team: 'a' } });

  /** What topics and namespaces share: `store` is called once the stores are set up. */
  function describeKeyedResources<R extends KeyedResource, Input extends { tags: Record<string, string> }>(
    label: string,
    store: () => KeyedResourceStore<R, Input>,
    input: Input,
  ) {
    describe(`${label} (resources with access keys)`, () => {
      it('creates one with two fresh keys and reads it back as created, whatever the case of its name', async () => {
        const name = unique('Keyed-');
        const { resource, created } = await store().create(name, input, AT);

        expect(created).toBe(true);
        expect(resource).toMatchObject({ name, tags: input.tags, createdAt: ISO, updatedAt: ISO });
        expect(isAccessKey(resource.keys.key1) && isAccessKey(resource.keys.key2)).toBe(true);
        expect(resource.keys.key1).not.toBe(resource.keys.key2);
        expect(await store().get(name.toUpperCase(), { consistent: true })).toEqual(resource);
        expect(await store().get(unique('missing-'), { consistent: true })).toBeUndefined();
      });

      it('returns the existing one, unchanged, when it is created again', async () => {
        const name = unique('again-');
        const first = await store().create(name, input, AT);
        const second = await store().create(name.toUpperCase(), { ...input, tags: { other: 'x' } }, LATER);

        expect(second).toEqual({ resource: first.resource, created: false });
      });

      it('sets tags and updatedAt, answering without keys; nothing for a missing one', async () => {
        const name = unique('tags-');
        const { resource } = await store().create(name, input, AT);

        const updated = await store().update(name, { ...input, tags: { team: 'b' } }, LATER);

        const { keys: _keys, ...described } = resource;
        expect(updated).toEqual({ ...described, tags: { team: 'b' }, updatedAt: LATER.toISOString() });
        expect(await store().get(name, { consistent: true })).toEqual({
          ...resource,
          tags: { team: 'b' },
          updatedAt: LATER.toISOString(),
        });
        expect(
          await store().update(unique('missing-'), { ...input, tags: { team: 'b' } }, LATER),
        ).toBeUndefined();
      });

      it('lists them without their keys', async () => {
        const names = [unique('list-b-'), unique('list-a-')];
        for (const name of names) await store().create(name, input, AT);

        const listed = (await store().list()).filter((resource) => names.includes(resource.name));

        expect(listed.map((resource) => resource.name).sort()).toEqual([...names].sort());
        for (const resource of listed) expect(resource).not.toHaveProperty('keys');
      });

      it.each<keyof TopicKeys>(['key1', 'key2'])('regenerates %s and keeps the other', async (keyName) => {
        const name = unique('regen-');
        const { resource } = await store().create(name, input, AT);
        const other = keyName === 'key1' ? 'key2' : 'key1';

        const regenerated = await store().regenerateKey(name, keyName, LATER);

        expect(regenerated?.keys[other]).toBe(resource.keys[other]);
        expect(regenerated?.keys[keyName]).not.toBe(resource.keys[keyName]);
        expect(isAccessKey(regenerated?.keys[keyName] ?? '')).toBe(true);
        expect(regenerated?.updatedAt).toBe(LATER.toISOString());
        expect(await store().get(name, { consistent: true })).toEqual(regenerated);
        expect(await store().regenerateKey(unique('missing-'), keyName, LATER)).toBeUndefined();
      });

      it('deletes one, and says whether there was one', async () => {
        const name = unique('gone-');
        await store().create(name, input, AT);

        expect(await store().delete(name.toUpperCase())).toBe(true);
        expect(await store().get(name, { consistent: true })).toBeUndefined();
        expect(await store().delete(name)).toBe(false);
      });
    });
  }

  describe('topics', () => {
    it('make a round trip with every field set', async () => {
      const name = unique('Full-');
      const { resource } = await s.stores.topics.create(name, FULL_TOPIC_INPUT, AT);

      expect(unsetFields(topicSchema, resource)).toEqual([]);
      expect(await s.stores.topics.get(name, { consistent: true })).toEqual(resource);
      const { keys: _keys, ...described } = resource;
      expect((await s.stores.topics.list()).find((topic) => topic.name === name)).toEqual(described);
    });

    it('take a new de-duplication window by update, and lose it when it is set to 0', async () => {
      const name = unique('window-');
      await s.stores.topics.create(name, FULL_TOPIC_INPUT, AT);

      const updated = await s.stores.topics.update(
        name,
        { ...FULL_TOPIC_INPUT, deduplicationWindowInMinutes: 1440 },
        LATER,
      );
      expect(updated?.deduplicationWindowInMinutes).toBe(1440);
      await s.stores.topics.update(name, { ...FULL_TOPIC_INPUT, deduplicationWindowInMinutes: 0 }, LATER);
      const read = await s.stores.topics.get(name, { consistent: true });
      expect(read).toMatchObject({ name, inputSchema: 'CustomEventSchema' });
      expect(read).not.toHaveProperty('deduplicationWindowInMinutes');
    });

    it('take a new archive by update, and lose it when it is left out', async () => {
      const name = unique('kept-');
      await s.stores.topics.create(name, FULL_TOPIC_INPUT, AT);
      const updated = await s.stores.topics.update(
        name,
        { ...FULL_TOPIC_INPUT, archive: { retentionInDays: 365 } },
        LATER,
      );
      expect(updated?.archive).toEqual({ retentionInDays: 365 });
      const { archive: _archive, ...withoutArchive } = FULL_TOPIC_INPUT;
      await s.stores.topics.update(name, withoutArchive, LATER);
      const read = await s.stores.topics.get(name, { consistent: true });
      expect(read).toMatchObject({ name, deduplicationWindowInMinutes: 30 });
      expect(read).not.toHaveProperty('archive');
    });

    it('are deleted with their subscriptions, not with a namespace topic of the same name', async () => {
      const name = unique('orders-');
      await s.stores.topics.create(name, { inputSchema: 'EventGridSchema', tags: {} }, AT);
      await s.stores.subscriptions.put(subscriptionOf({ topic: name, name: 'audit' }), undefined);
      const namespacedId = namespaceTopicId('shop', name);
      await s.stores.subscriptions.put(subscriptionOf({ topic: namespacedId, name: 'audit' }), undefined);

      expect(await s.stores.topics.delete(name)).toBe(true);

      expect(await s.stores.subscriptions.list(name)).toEqual([]);
      expect(await s.stores.subscriptions.list(namespacedId)).toHaveLength(1);
    });
  });

  describe('namespaces', () => {
    it('make a round trip with every field set', async () => {
      const name = unique('Shop-');
      const { resource } = await s.stores.namespaces.create(name, { tags: { team: 'a' } }, AT);

      expect(unsetFields(namespaceSchema, resource)).toEqual([]);
      expect(await s.stores.namespaces.get(name, { consistent: true })).toEqual(resource);
    });

    it('are deleted with their topics and those topics’ subscriptions', async () => {
      const namespace = unique('shop-');
      await s.stores.namespaces.create(namespace, { tags: {} }, AT);
      await s.stores.namespaceTopics.put(nsTopic(namespace, 'orders'), undefined);
      await s.stores.namespaceTopics.put(nsTopic(namespace, 'carts'), undefined);
      const ordersId = namespaceTopicId(namespace, 'orders');
      await s.stores.subscriptions.put(subscriptionOf({ topic: ordersId, name: 'push' }), undefined);

      expect(await s.stores.namespaces.delete(namespace)).toBe(true);

      expect(await s.stores.namespaceTopics.list(namespace)).toEqual([]);
      expect(await s.stores.subscriptions.list(ordersId)).toEqual([]);
      expect(await s.stores.namespaces.delete(namespace)).toBe(false);
    });
  });

  describe('namespace topics', () => {
    it('make a round trip with every field set, whatever the case of the names', async () => {
      const namespace = unique('Shop-');
      const topic = nsTopic(namespace, 'Orders', {
        subscriptionsVersion: 4,
        deduplicationWindowInMinutes: 15,
        archive: { retentionInDays: 3 },
        validateEvents: true,
        unknownEventTypes: 'reject',
        catalogVersion: 2,
      });
      await s.stores.namespaceTopics.put(topic, undefined);

      expect(unsetFields(namespaceTopicSchema, topic)).toEqual([]);
      expect(
        await s.stores.namespaceTopics.get(namespace.toLowerCase(), 'ORDERS', { consistent: true }),
      ).toEqual(topic);
    });

    it('are replaced over the version read, and refuse a write over another one', async () => {
      const namespace = unique('shop-');
      const first = nsTopic(namespace, 'orders');
      await s.stores.namespaceTopics.put(first, undefined);
      const second = { ...first, eventRetentionInDays: 5, updatedAt: LATER.toISOString() };
      await s.stores.namespaceTopics.put(second, first);

      // Another writer that also read `first` loses; creating what exists loses too.
      await expect(
        s.stores.namespaceTopics.put({ ...first, eventRetentionInDays: 7 }, first),
      ).rejects.toBeInstanceOf(ConcurrentChangeError);
      await expect(s.stores.namespaceTopics.put(first, undefined)).rejects.toBeInstanceOf(
        ConcurrentChangeError,
      );
      // Replacing one that does not exist loses as well.
      await expect(s.stores.namespaceTopics.put(nsTopic(namespace, 'never'), first)).rejects.toBeInstanceOf(
        ConcurrentChangeError,
      );
      expect(await s.stores.namespaceTopics.get(namespace, 'orders', { consistent: true })).toEqual(second);
    });

    it('are listed by namespace, in name order', async () => {
      const namespace = unique('shop-');
      await s.stores.namespaceTopics.put(nsTopic(namespace, 'b'), undefined);
      await s.stores.namespaceTopics.put(nsTopic(namespace, 'a'), undefined);
      await s.stores.namespaceTopics.put(nsTopic(unique('other-'), 'c'), undefined);

      expect((await s.stores.namespaceTopics.list(namespace)).map((topic) => topic.name)).toEqual(['a', 'b']);
    });

    it('are deleted with their subscriptions, and say whether there was one', async () => {
      const namespace = unique('shop-');
      await s.stores.namespaceTopics.put(nsTopic(namespace, 'orders'), undefined);
      const topicId = namespaceTopicId(namespace, 'orders');
      await s.stores.subscriptions.put(subscriptionOf({ topic: topicId, name: 'push' }), undefined);

      expect(await s.stores.namespaceTopics.delete(namespace, 'ORDERS')).toBe(true);

      expect(await s.stores.namespaceTopics.get(namespace, 'orders', { consistent: true })).toBeUndefined();
      expect(await s.stores.subscriptions.list(topicId)).toEqual([]);
      expect(await s.stores.namespaceTopics.delete(namespace, 'orders')).toBe(false);
    });
  });

  describe('event types', () => {
    const entry = (topic: string, name: string, overrides: Partial<EventType> = {}): EventType => ({
      topic,
      name,
      description: 'An order was placed.',
      schemaJson: '{"type":"object","required":["orderId"]}',
      exampleJson: '{"orderId":"o-1","total":1.50}',
      createdAt: ISO,
      updatedAt: ISO,
      ...overrides,
    });

    it('make a round trip with every field set, each change moving the topic’s catalog version', async () => {
      const topic = unique('Catalog-');
      await s.stores.topics.create(topic, { inputSchema: 'EventGridSchema', tags: {} }, AT);
      const version = async () => (await s.stores.topics.get(topic, { consistent: true }))?.catalogVersion;
      expect(await version()).toBe(0);
      const full = entry(topic, 'Order.Created');
      expect(unsetFields(eventTypeSchema, full)).toEqual([]);
      expect(await s.stores.eventTypes.put(full)).toBe(true);
      expect(
        await s.stores.eventTypes.get(topic.toLowerCase(), 'ORDER.CREATED', { consistent: true }),
      ).toEqual(full);
      expect(await version()).toBe(1);
      await s.stores.eventTypes.put({ topic, name: 'A.Bare', createdAt: ISO, updatedAt: ISO });
      expect((await s.stores.eventTypes.list(topic)).map((each) => each.name)).toEqual([
        'A.Bare',
        'Order.Created',
      ]);
      expect(await s.stores.eventTypes.schemas(topic)).toEqual(
        expect.arrayContaining([{ name: 'A.Bare' }, { name: 'Order.Created', schemaJson: full.schemaJson }]),
      );
      expect(await s.stores.eventTypes.delete(topic, 'a.bare', LATER)).toBe(true);
      expect(await s.stores.eventTypes.delete(topic, 'a.bare', LATER)).toBe(false);
      expect(await version()).toBe(3);
    });

    it('belong to a namespace topic by its id, move its version, and go with their topic', async () => {
      const namespace = unique('shop-');
      await s.stores.namespaceTopics.put(nsTopic(namespace, 'carts'), undefined);
      const topicId = namespaceTopicId(namespace, 'carts');
      expect(await s.stores.eventTypes.put(entry(topicId, 'Cart.Updated'))).toBe(true);
      expect(
        (await s.stores.namespaceTopics.get(namespace, 'carts', { consistent: true }))?.catalogVersion,
      ).toBe(1);
      expect(await s.stores.namespaceTopics.delete(namespace, 'carts')).toBe(true);
      expect(await s.stores.eventTypes.list(topicId)).toEqual([]);
    });

    it('are not kept for a topic that does not exist', async () => {
      const topic = unique('gone-');
      expect(await s.stores.eventTypes.put(entry(topic, 'A'))).toBe(false);
      expect(await s.stores.eventTypes.list(topic)).toEqual([]);
    });
  });

  describe('subscriptions', () => {
    it('make a round trip with every field set', async () => {
      const full = fullSubscription(unique('orders-'), 'Audit');
      await s.stores.subscriptions.put(full, undefined);

      expect(unsetFields(subscriptionSchema, full)).toEqual([]);
      expect(
        await s.stores.subscriptions.get(full.topic.toUpperCase(), 'audit', { consistent: true }),
      ).toEqual(full);
      expect(await s.stores.subscriptions.list(full.topic)).toEqual([full]);
    });

    it('make a round trip to an AWS resource with every field of its destination set', async () => {
      const full: Subscription = {
        ...fullSubscription(unique('orders-'), 'Stream'),
        destination: {
          endpointType: 'AwsKinesisStream',
          resourceArn: 'arn:aws:kinesis:eu-west-1:210987654321:stream/orders',
          maxEventsPerBatch: 100,
          preferredBatchSizeInKilobytes: 512,
          deliveryAttributeMappings: [{ name: 'ExplicitHashKey', type: 'Dynamic', sourceField: 'data.hash' }],
          maxDeliveriesPerSecond: 20,
          invocationType: 'Event',
          partitionKeyField: 'data.tenant',
          roleArn: 'arn:aws:iam::210987654321:role/gridwire-sender',
          externalId: 'gridwire-orders-7f3a',
        },
      };
      await s.stores.subscriptions.put(full, undefined);

      expect(unsetFields(subscriptionSchema, full)).toEqual([]);
      expect(await s.stores.subscriptions.get(full.topic, 'stream', { consistent: true })).toEqual(full);
    });

    it('are replaced over the version read, and refuse a write over another one', async () => {
      const topic = unique('orders-');
      await s.stores.subscriptions.put(subscriptionOf({ topic, name: 'raced', version: 10 }), undefined);
      await s.stores.subscriptions.put(subscriptionOf({ topic, name: 'raced', version: 20 }), 10);

      // A second writer that also read version 10 loses, and nothing it wrote is kept.
      await expect(
        s.stores.subscriptions.put(subscriptionOf({ topic, name: 'raced', version: 15 }), 10),
      ).rejects.toBeInstanceOf(ConcurrentChangeError);
      // Creating what already exists loses too, and so does replacing what is not there.
      await expect(
        s.stores.subscriptions.put(subscriptionOf({ topic, name: 'raced', version: 30 }), undefined),
      ).rejects.toBeInstanceOf(ConcurrentChangeError);
      await expect(
        s.stores.subscriptions.put(subscriptionOf({ topic, name: 'never', version: 2 }), 1),
      ).rejects.toBeInstanceOf(ConcurrentChangeError);
      expect((await s.stores.subscriptions.get(topic, 'raced', { consistent: true }))?.version).toBe(20);
    });

    it('are deleted only as the version read, when the delete names one', async () => {
      const topic = unique('orders-');
      await s.stores.subscriptions.put(subscriptionOf({ topic, name: 'kept', version: 10 }), undefined);
      await s.stores.subscriptions.put(subscriptionOf({ topic, name: 'kept', version: 20 }), 10);

      // A delete that read version 10 finds 20: nothing is deleted.
      expect(await s.stores.subscriptions.delete(topic, 'kept', LATER, 10)).toBe(false);
      expect((await s.stores.subscriptions.get(topic, 'kept', { consistent: true }))?.version).toBe(20);
      expect(await s.stores.subscriptions.delete(topic, 'never', LATER, 1)).toBe(false);
      expect(await s.stores.subscriptions.delete(topic, 'KEPT', LATER, 20)).toBe(true);
      expect(await s.stores.subscriptions.get(topic, 'kept', { consistent: true })).toBeUndefined();
    });

    it('are listed by topic, in name order', async () => {
      const topic = unique('orders-');
      await s.stores.subscriptions.put(subscriptionOf({ topic, name: 'b' }), undefined);
      await s.stores.subscriptions.put(subscriptionOf({ topic, name: 'a' }), undefined);
      await s.stores.subscriptions.put(subscriptionOf({ topic: unique('other-'), name: 'c' }), undefined);

      expect((await s.stores.subscriptions.list(topic)).map((subscription) => subscription.name)).toEqual([
        'a',
        'b',
      ]);
    });

    it("move their classic topic's subscriptionsVersion on every change", async () => {
      const topic = unique('orders-');
      await s.stores.topics.create(topic, { inputSchema: 'EventGridSchema', tags: {} }, AT);
      const changedAt = '2026-03-01T01:00:00.000Z';

      await s.stores.subscriptions.put(
        subscriptionOf({ topic, name: 'audit', updatedAt: changedAt }),
        undefined,
      );
      expect(await s.stores.topics.get(topic, { consistent: true })).toMatchObject({
        subscriptionsVersion: 1,
        updatedAt: changedAt,
      });

      expect(await s.stores.subscriptions.delete(topic, 'AUDIT', LATER)).toBe(true);
      expect(await s.stores.topics.get(topic, { consistent: true })).toMatchObject({
        subscriptionsVersion: 2,
        updatedAt: LATER.toISOString(),
      });
      expect(await s.stores.subscriptions.get(topic, 'audit', { consistent: true })).toBeUndefined();

      // Deleting what is not there changes nothing.
      expect(await s.stores.subscriptions.delete(topic, 'audit', new Date('2026-03-03T00:00:00.000Z'))).toBe(
        false,
      );
      expect((await s.stores.topics.get(topic, { consistent: true }))?.subscriptionsVersion).toBe(2);
    });

    it("move their namespace topic's subscriptionsVersion, not a classic topic's of the same name", async () => {
      const namespace = unique('shop-');
      const name = unique('orders-');
      await s.stores.namespaceTopics.put(nsTopic(namespace, name), undefined);
      await s.stores.topics.create(name, { inputSchema: 'EventGridSchema', tags: {} }, AT);
      const classicBefore = await s.stores.topics.get(name, { consistent: true });

      await s.stores.subscriptions.put(
        subscriptionOf({
          topic: namespaceTopicId(namespace, name),
          name: 'push',
          updatedAt: LATER.toISOString(),
        }),
        undefined,
      );

      expect(await s.stores.namespaceTopics.get(namespace, name, { consistent: true })).toMatchObject({
        subscriptionsVersion: 1,
        updatedAt: LATER.toISOString(),
      });
      expect(await s.stores.topics.get(name, { consistent: true })).toEqual(classicBefore);
    });
  });

  describe('held marks', () => {
    const version = async (topic: string) =>
      (await s.stores.topics.get(topic, { consistent: true }))?.subscriptionsVersion;

    it("are set and removed once each, moving their topic's subscriptionsVersion only when they change", async () => {
      const topic = unique('orders-');
      await s.stores.topics.create(topic, { inputSchema: 'EventGridSchema', tags: {} }, AT);
      const mark = { topic, subscription: 'Audit', uid: 'uid-1' };
      expect(await s.stores.heldMarks.list(topic)).toEqual(new Map());

      expect(await s.stores.heldMarks.set(mark, true, AT.getTime())).toBe(true);
      expect(await version(topic)).toBe(1);
      expect(await s.stores.heldMarks.list(topic.toUpperCase())).toEqual(new Map([['audit', 'uid-1']]));
      // Set again for the same uid: nothing changes, and publishers need not read again.
      expect(await s.stores.heldMarks.set(mark, true, LATER.getTime())).toBe(false);
      expect(await version(topic)).toBe(1);
      // For a subscription created again under the name (another uid), it is set anew.
      expect(await s.stores.heldMarks.set({ ...mark, uid: 'uid-2' }, true, LATER.getTime())).toBe(true);
      expect(await s.stores.heldMarks.list(topic)).toEqual(new Map([['audit', 'uid-2']]));
      expect(await version(topic)).toBe(2);

      expect(await s.stores.heldMarks.set({ ...mark, subscription: 'AUDIT' }, false, LATER.getTime())).toBe(
        true,
      );
      expect(await s.stores.heldMarks.list(topic)).toEqual(new Map());
      expect(await version(topic)).toBe(3);
      expect(await s.stores.heldMarks.set(mark, false, LATER.getTime())).toBe(false);
      expect(await version(topic)).toBe(3);
      // They are not subscriptions.
      expect(await s.stores.subscriptions.list(topic)).toEqual([]);
    });

    it("mark a namespace topic's subscriptions under it, and go with the topic", async () => {
      const namespace = unique('shop-');
      const name = unique('orders-');
      await s.stores.namespaceTopics.put(nsTopic(namespace, name), undefined);
      const topicId = namespaceTopicId(namespace, name);
      expect(await s.stores.heldMarks.set({ topic: topicId, subscription: 'push' }, true, AT.getTime())).toBe(
        true,
      );
      expect(await s.stores.heldMarks.list(topicId)).toEqual(new Map([['push', undefined]]));
      expect(
        (await s.stores.namespaceTopics.get(namespace, name, { consistent: true }))?.subscriptionsVersion,
      ).toBe(1);
      await s.stores.namespaceTopics.delete(namespace, name);
      expect(await s.stores.heldMarks.list(topicId)).toEqual(new Map());
    });

    it('are not left behind in the partition of a topic that is gone', async () => {
      const topic = unique('gone-');
      expect(await s.stores.heldMarks.set({ topic, subscription: 'audit' }, true, AT.getTime())).toBe(true);
      expect(await s.stores.heldMarks.list(topic)).toEqual(new Map());

      const deleted = unique('deleted-');
      await s.stores.topics.create(deleted, { inputSchema: 'EventGridSchema', tags: {} }, AT);
      await s.stores.heldMarks.set({ topic: deleted, subscription: 'audit' }, true, AT.getTime());
      await s.stores.topics.delete(deleted);
      expect(await s.stores.heldMarks.list(deleted)).toEqual(new Map());
    });
  });

  describe('endpoint health', () => {
    it('makes a round trip with every field set, whatever the case of the names', async () => {
      const health = fullHealth(unique('Orders-'), 'Audit');
      expect(await s.health.put(health, undefined)).toBe(true);

      expect(unsetFields(endpointHealthSchema, health)).toEqual([]);
      expect(await s.health.get(health.topic.toLowerCase(), 'AUDIT', { consistent: true })).toEqual(health);
    });

    it('is written only over the revision read', async () => {
      const topic = unique('orders-');
      const first = { ...fullHealth(topic, 'audit'), rev: 1 };
      expect(await s.health.get(topic, 'audit', { consistent: true })).toBeUndefined();

      expect(await s.health.put(first, undefined)).toBe(true);
      expect(await s.health.put({ ...first, consecutiveFailures: 99 }, undefined)).toBe(false);
      expect(await s.health.put({ ...first, rev: 2, consecutiveFailures: 13 }, 1)).toBe(true);
      expect(await s.health.put({ ...first, rev: 2, consecutiveFailures: 50 }, 1)).toBe(false);

      expect(await s.health.get(topic, 'audit', { consistent: true })).toEqual({
        ...first,
        rev: 2,
        consecutiveFailures: 13,
      });
    });

    it('is reset to a fresh record one revision up', async () => {
      const topic = unique('orders-');
      await s.health.put({ ...fullHealth(topic, 'audit'), rev: 4 }, undefined);

      await resetHealth(s.health, topic, 'audit', 5_000);

      expect(await s.health.get(topic, 'audit', { consistent: true })).toEqual({
        topic,
        subscription: 'audit',
        endpointUrl: '',
        consecutiveFailures: 0,
        probations: 0,
        resetAt: 5_000,
        rev: 5,
      });
    });
  });

  describe('backlogs', () => {
    const T = AT.getTime();

    it("keep a segment's events and their text exactly as stored, in due order", async () => {
      // A namespace topic, so the target has every field set.
      const topic = namespaceTopicId(unique('Shop-'), 'Orders');
      const awkward: BacklogLine = {
        dueAt: T + 5_000,
        heldBy: 'probation',
        item: { ...fullLine('odd', 0, T - 10).item, eventJson: AWKWARD_EVENT_JSON },
      };
      // Given out of order: by due time, then publish time, then delivery id.
      const lines = [
        fullLine('c', T + 9_000, T - 5),
        awkward,
        fullLine('b', T + 1_000, T - 20),
        fullLine('a', T + 1_000, T - 20),
      ];
      const segment = segmentOf(topic, lines);

      const ref = await s.backlog.putSegment(segment);
      const stored = await s.backlog.readSegment(ref);

      expect(unsetFields(backlogLineSchema, awkward)).toEqual([]);
      expect(stored.lines.map((line) => line.item.deliveryId)).toEqual(['d-a', 'd-b', 'd-odd', 'd-c']);
      expect(stored.lines).toEqual([lines[3], lines[2], awkward, lines[0]]);
      expect(stored.lines[2]?.item.eventJson).toBe(AWKWARD_EVENT_JSON);
      expect(unsetFields(backlogSegmentHeaderSchema, stored.header)).toEqual([]);
      expect(stored.header).toEqual({
        v: 1,
        target: segment.target,
        createdAt: T,
        count: 4,
        minDueAt: T + 1_000,
        maxDueAt: T + 9_000,
        minPublishedAt: T - 20,
      });
      expect(ref).toEqual({
        topic: topicIdOf(segment.target.topic),
        subscription: 'audit',
        uid: 'uid-1',
        segmentId: segment.segmentId,
        key: `backlog/${topic.toLowerCase()}/audit/uid-1/${segment.segmentId}.jsonl`,
        count: 4,
        bytes: expect.any(Number),
        minDueAt: T + 1_000,
        maxDueAt: T + 9_000,
        minPublishedAt: T - 20,
        doneThrough: 0,
        doneAfter: [],
      });
      expect(ref.bytes).toBeGreaterThan(AWKWARD_EVENT_JSON.length);
      expect(await s.backlog.listSegments(topic.toUpperCase(), 'AUDIT')).toEqual([ref]);
    });

    it('keep the index item and its checkpoint when the same segment is written again', async () => {
      const topic = unique('orders-');
      const segment = segmentOf(topic, [fullLine('a', T, T - 1), fullLine('b', T + 1, T - 1)]);
      const first = await s.backlog.putSegment(segment);
      expect(await s.backlog.updateCheckpoint(first, { doneThrough: 1, doneAfter: [] })).toBe(true);

      const again = await s.backlog.putSegment({ ...segment, createdAt: T + 99 });

      expect(again).toEqual({ ...first, doneThrough: 1 });
      expect(await s.backlog.listSegments(topic, 'audit')).toEqual([{ ...first, doneThrough: 1 }]);
      expect((await s.backlog.readSegment(again)).lines).toEqual(segment.lines);
    });

    it('list segments by earliest due time, and only those due by a time when asked', async () => {
      const topic = unique('orders-');
      const late = await s.backlog.putSegment(segmentOf(topic, [fullLine('late', T + 2_000, T)]));
      const early = await s.backlog.putSegment(
        segmentOf(topic, [fullLine('early', T, T), fullLine('x', T + 5_000, T)]),
      );
      const edge = await s.backlog.putSegment(segmentOf(topic, [fullLine('edge', T + 1_000, T)]));
      await s.backlog.putSegment({
        ...segmentOf(topic, [fullLine('other', T, T)]),
        target: deliveryTarget({ topic, name: 'other' }),
      });

      expect(await s.backlog.listSegments(topic, 'audit')).toEqual([early, edge, late]);
      expect(await s.backlog.listSegments(topic, 'audit', { dueBy: T + 1_000 })).toEqual([early, edge]);
      expect(await s.backlog.listSegments(topic, 'audit', { dueBy: T + 999 })).toEqual([early]);
      expect(await s.backlog.listSegments(topic, 'audit', { dueBy: T - 1 })).toEqual([]);
    });

    it('list a segment due at a fraction of a millisecond only once that whole millisecond is due', async () => {
      const topic = unique('orders-');
      const ref = await s.backlog.putSegment(segmentOf(topic, [fullLine('jittered', T + 1_500.25, T)]));

      expect(await s.backlog.listSegments(topic, 'audit', { dueBy: T + 1_500 })).toEqual([]);
      expect(await s.backlog.listSegments(topic, 'audit', { dueBy: T + 1_500.5 })).toEqual([]);
      expect(await s.backlog.listSegments(topic, 'audit', { dueBy: T + 1_501 })).toEqual([ref]);
      expect(ref.minDueAt).toBe(T + 1_500.25);
    });

    it("record a drain's checkpoint, and count only the events not done", async () => {
      const topic = unique('orders-');
      const ref = await s.backlog.putSegment(
        segmentOf(topic, [fullLine('a', T, T - 30), fullLine('b', T, T - 20), fullLine('c', T, T - 10)]),
      );
      const other = await s.backlog.putSegment(segmentOf(topic, [fullLine('d', T + 1, T - 40)]));
      expect(await s.backlog.summary(topic, 'audit')).toEqual({ events: 4, oldestPublishedAt: T - 40 });

      expect(await s.backlog.updateCheckpoint(ref, { doneThrough: 1, doneAfter: [2] })).toBe(true);
      await s.backlog.deleteSegment(other);

      expect(await s.backlog.listSegments(topic, 'audit')).toEqual([
        { ...ref, doneThrough: 1, doneAfter: [2] },
      ]);
      expect(await s.backlog.summary(topic, 'audit')).toEqual({ events: 1, oldestPublishedAt: T - 30 });
      expect(await s.backlog.updateCheckpoint(other, { doneThrough: 1, doneAfter: [] })).toBe(false);
      expect(await s.backlog.summary(unique('empty-'), 'audit')).toEqual({ events: 0 });
    });

    it('delete a segment, index item and object, and deleting it again does nothing', async () => {
      const topic = unique('orders-');
      const ref = await s.backlog.putSegment(segmentOf(topic, [fullLine('a', T, T)]));

      await s.backlog.deleteSegment(ref);
      await s.backlog.deleteSegment(ref);

      expect(await s.backlog.listSegments(topic, 'audit')).toEqual([]);
      await expect(s.backlog.readSegment(ref)).rejects.toThrow();
    });

    it('replace segments by a merged one', async () => {
      const topic = unique('orders-');
      const a = await s.backlog.putSegment(segmentOf(topic, [fullLine('a', T, T)]));
      const b = await s.backlog.putSegment(segmentOf(topic, [fullLine('b', T + 1, T)]));
      const merged = segmentOf(
        topic,
        [fullLine('a', T, T), fullLine('b', T + 1, T)],
        [a.segmentId, b.segmentId],
      );

      const ref = await replaceSegments(s.backlog, merged, [a, b]);

      expect(await s.backlog.listSegments(topic, 'audit')).toEqual([ref]);
      expect((await s.backlog.readSegment(ref)).lines.map((line) => line.item.deliveryId)).toEqual([
        'd-a',
        'd-b',
      ]);
      await expect(s.backlog.readSegment(a)).rejects.toThrow();
      await expect(s.backlog.readSegment(b)).rejects.toThrow();
    });

    it('keep a META with every field set, written only over the token read', async () => {
      const topic = unique('Orders-');
      const meta = fullMeta(topic);
      expect(unsetFields(backlogMetaSchema, meta)).toEqual([]);
      expect(await s.backlog.getMeta(topic, 'audit')).toBeUndefined();

      expect(await s.backlog.putMeta(meta, undefined)).toBe(true);
      expect(await s.backlog.putMeta({ ...meta, token: 't-x' }, undefined)).toBe(false);
      expect(await s.backlog.putMeta({ ...meta, token: 't-2' }, 't-1')).toBe(true);
      expect(await s.backlog.putMeta({ ...meta, token: 't-3' }, 't-1')).toBe(false);

      expect(await s.backlog.getMeta(topic.toLowerCase(), 'AUDIT')).toEqual({ ...meta, token: 't-2' });
    });

    it('delete a META only over the token read', async () => {
      const topic = unique('Orders-');
      const meta = fullMeta(topic);
      expect(await s.backlog.deleteMeta(topic, 'audit', 't-1')).toBe(false);
      expect(await s.backlog.putMeta(meta, undefined)).toBe(true);

      expect(await s.backlog.deleteMeta(topic, 'audit', 't-other')).toBe(false);
      expect(await s.backlog.getMeta(topic, 'audit')).toEqual(meta);
      expect(await s.backlog.deleteMeta(topic.toLowerCase(), 'AUDIT', 't-1')).toBe(true);

      expect(await s.backlog.getMeta(topic, 'audit')).toBeUndefined();
      expect(await s.backlog.deleteMeta(topic, 'audit', 't-1')).toBe(false);
    });

    it("show a backlog's META and what it holds for one subscription uid, from the index", async () => {
      const topic = unique('Orders-');
      expect(await s.backlog.overview(topic, 'audit', 'uid-1')).toEqual({
        meta: undefined,
        summary: { events: 0 },
      });
      const meta = fullMeta(topic);
      await s.backlog.putMeta(meta, undefined);
      const current = await s.backlog.putSegment(
        segmentOf(topic, [fullLine('a', T, T - 30), fullLine('b', T, T - 20), fullLine('c', T + 1, T - 10)]),
      );
      // Stored for the subscription of the same name that was deleted before.
      await s.backlog.putSegment(segmentOf(topic, [fullLine('old', T, T - 90)], ['m-old'], 'uid-0'));
      expect(await s.backlog.updateCheckpoint(current, { doneThrough: 1, doneAfter: [] })).toBe(true);

      expect(await s.backlog.overview(topic.toLowerCase(), 'AUDIT', 'uid-1')).toEqual({
        meta,
        summary: { events: 2, oldestPublishedAt: T - 30 },
      });
      expect(await s.backlog.overview(topic, 'audit', 'uid-0')).toEqual({
        meta,
        summary: { events: 1, oldestPublishedAt: T - 90 },
      });
      // Without a uid to compare, every segment counts.
      expect((await s.backlog.overview(topic, 'audit', undefined)).summary).toEqual({
        events: 3,
        oldestPublishedAt: T - 90,
      });
    });

    it('list the backlogs whose wake is due by a time, earliest first, and not idle ones', async () => {
      // Far in the future, so no other test's META is listed.
      const far = T + 1_000 * 86_400_000;
      const [first, second, idle, later] = [
        unique('wake-'),
        unique('wake-'),
        unique('wake-'),
        unique('wake-'),
      ];
      await s.backlog.putMeta(fullMeta(second, { wakeAt: far + 2_000 }), undefined);
      await s.backlog.putMeta(fullMeta(first, { wakeAt: far + 1_000 }), undefined);
      await s.backlog.putMeta(fullMeta(later, { wakeAt: far + 3_000 }), undefined);
      await s.backlog.putMeta(fullMeta(idle, { wakeAt: far + 1_500 }), undefined);
      // Gone idle: out of the timer index.
      expect(
        await s.backlog.putMeta(
          fullMeta(idle, { state: 'idle', token: 't-2', summary: { events: 0 } }),
          't-1',
        ),
      ).toBe(true);

      const wakes = (await s.backlog.wakesBy(far + 2_000)).filter((meta) => (meta.wakeAt ?? 0) > far);

      expect(wakes.map((meta) => meta.topic)).toEqual([first, second]);
      expect(wakes[0]).toEqual(fullMeta(first, { wakeAt: far + 1_000 }));
    });
  });

  describe('replay claims', () => {
    const T = AT.getTime();

    it('lets one owner at a time hold a blob, until it releases it or its lease runs out', async () => {
      const blob = `dead/${unique('CLAIM-')}/2026/11/22/10/b.json`;
      expect(await s.replayClaims.claim(blob, 'call-a', T, T + 60_000)).toBe(true);
      expect(await s.replayClaims.claim(blob, 'call-b', T + 1_000, T + 61_000)).toBe(false);
      // Another owner's release leaves the claim; its own removes it.
      await s.replayClaims.release(blob, 'call-b');
      expect(await s.replayClaims.claim(blob, 'call-b', T + 2_000, T + 62_000)).toBe(false);
      await s.replayClaims.release(blob, 'call-a');
      expect(await s.replayClaims.claim(blob, 'call-b', T + 3_000, T + 63_000)).toBe(true);
      // A claim whose lease ran out (its replay died) is taken over.
      expect(await s.replayClaims.claim(blob, 'call-c', T + 63_000, T + 123_000)).toBe(true);
      // Another blob is another claim.
      expect(await s.replayClaims.claim(`${blob}x`, 'call-a', T, T + 60_000)).toBe(true);
    });
  });

  describe('accepted event ids', () => {
    const T = AT.getTime();
    const WINDOW = 10 * 60_000;
    const topic = () => ({ id: unique('dedup-'), createdAt: AT.toISOString() });

    it('answers which ids another publish accepted within the window, and claims the new ones', async () => {
      const orders = topic();
      const first = await s.acceptedIds.claim({
        topic: orders,
        ids: ['a', 'b'],
        owner: 'p1',
        now: T,
        windowMs: WINDOW,
      });
      expect(first).toEqual([false, false]);
      const second = await s.acceptedIds.claim({
        topic: orders,
        ids: ['b', 'c', 'a'],
        owner: 'p2',
        now: T + 1_000,
        windowMs: WINDOW,
      });
      expect(second).toEqual([true, false, true]);
      // The same publish claiming again (a put retried after its answer was lost) is no repeat.
      expect(
        await s.acceptedIds.claim({
          topic: orders,
          ids: ['a'],
          owner: 'p1',
          now: T + 2_000,
          windowMs: WINDOW,
        }),
      ).toEqual([false]);
      // Ids are exact: another case or another topic is another id.
      expect(
        await s.acceptedIds.claim({ topic: orders, ids: ['A'], owner: 'p3', now: T, windowMs: WINDOW }),
      ).toEqual([false]);
      expect(
        await s.acceptedIds.claim({ topic: topic(), ids: ['a'], owner: 'p3', now: T, windowMs: WINDOW }),
      ).toEqual([false]);
    });

    it('forgets an id once the window read at the check has passed, and for a topic made again', async () => {
      const orders = topic();
      await s.acceptedIds.claim({ topic: orders, ids: ['x'], owner: 'p1', now: T, windowMs: WINDOW });
      const check = (now: number, windowMs: number, owner: string) =>
        s.acceptedIds.claim({ topic: orders, ids: ['x'], owner, now, windowMs });
      expect(await check(T + WINDOW - 1, WINDOW, 'p2')).toEqual([true]);
      // A window made shorter applies at once.
      expect(await check(T + 60_000, 60_000, 'p3')).toEqual([false]);
      // The id is now p3's, accepted at T + 60 s.
      expect(await check(T + 60_000 + WINDOW, WINDOW, 'p4')).toEqual([false]);
      expect(
        await s.acceptedIds.claim({
          topic: { ...orders, createdAt: LATER.toISOString() },
          ids: ['x'],
          owner: 'p5',
          now: T + 60_000 + WINDOW + 1,
          windowMs: WINDOW,
        }),
      ).toEqual([false]);
    });

    it("gives back only the owner's own claims", async () => {
      const orders = topic();
      await s.acceptedIds.claim({ topic: orders, ids: ['a', 'b'], owner: 'p1', now: T, windowMs: WINDOW });
      expect(await s.acceptedIds.release(orders, ['a'], 'p2')).toEqual([]);
      expect(await s.acceptedIds.release(orders, ['b'], 'p1')).toEqual([]);
      expect(
        await s.acceptedIds.claim({
          topic: orders,
          ids: ['a', 'b'],
          owner: 'p3',
          now: T + 1,
          windowMs: WINDOW,
        }),
      ).toEqual([true, false]);
    });
  });

  describe('ordered progress', () => {
    it('keeps, replaces and deletes one waiting message’s progress, apart from another’s', async () => {
      const ref = { topic: 'Orders', subscription: unique('Audit-'), firstDeliveryId: 'p-1.0' };
      const other = { ...ref, firstDeliveryId: 'p-2.0' };
      expect(await s.orderedProgress.get(ref)).toBeUndefined();
      const progress = {
        finished: ['p-1.0'],
        dueAt: 1_000,
        pending: [
          {
            deliveryId: 'p-1.1',
            attempts: 2,
            lastOutcome: 'TimedOut' as const,
            lastHttpStatus: 504,
            lastAttemptAt: 900,
            lateUntil: 1_100,
          },
        ],
      };
      await s.orderedProgress.put(ref, progress, 10_000);
      expect(await s.orderedProgress.get({ ...ref, topic: 'orders' })).toEqual(progress);
      expect(await s.orderedProgress.get(other)).toBeUndefined();
      await s.orderedProgress.put(ref, { finished: ['p-1.0', 'p-1.1'], dueAt: 2_000, pending: [] }, 10_000);
      expect(await s.orderedProgress.get(ref)).toEqual({
        finished: ['p-1.0', 'p-1.1'],
        dueAt: 2_000,
        pending: [],
      });
      await s.orderedProgress.delete(ref);
      expect(await s.orderedProgress.get(ref)).toBeUndefined();
    });
  });

  describe('declared destinations', () => {
    it('keeps the list a deploy puts, replaced whole by the next, and forgets it on clear', async () => {
      expect(await s.declaredDestinations.get()).toEqual([]);
      const queue = 'arn:aws:sqs:eu-west-1:123456789012:billing';
      const role = 'arn:aws:iam::210987654321:role/gridwire-sender';
      await s.declaredDestinations.put([queue, role]);
      expect(await s.declaredDestinations.get()).toEqual([queue, role]);
      await s.declaredDestinations.put([role]);
      expect(await s.declaredDestinations.get()).toEqual([role]);
      await s.declaredDestinations.clear();
      expect(await s.declaredDestinations.get()).toEqual([]);
    });
  });

  describe('rate budget', () => {
    const window = Math.floor(AT.getTime() / 1000);

    it('grants slices of a second up to the limit, in order, then nothing, whatever the case of the names', async () => {
      const topic = unique('Rate-');
      expect(await s.rateBudget.take(topic, 'Audit', window, 20, 50)).toEqual({ first: 0, count: 20 });
      expect(await s.rateBudget.take(topic.toUpperCase(), 'AUDIT', window, 20, 50)).toEqual({
        first: 20,
        count: 20,
      });
      // Only ten are left of the second's fifty.
      expect(await s.rateBudget.take(topic, 'audit', window, 20, 50)).toEqual({ first: 40, count: 10 });
      expect((await s.rateBudget.take(topic, 'audit', window, 1, 50)).count).toBe(0);
      // The next second, and another subscription, have budgets of their own.
      expect(await s.rateBudget.take(topic, 'audit', window + 1, 50, 50)).toEqual({ first: 0, count: 50 });
      expect(await s.rateBudget.take(topic, 'billing', window, 5, 50)).toEqual({ first: 0, count: 5 });
    });

    it('counts a named counter in its own windows, apart from the second of the same number', async () => {
      const topic = unique('Calls-');
      const resends = { name: 'resend', windowMs: 60_000 };
      const minute = Math.floor(AT.getTime() / 60_000);
      expect(await s.rateBudget.take(topic, 'Audit', minute, 1, 2, resends)).toEqual({ first: 0, count: 1 });
      expect(await s.rateBudget.take(topic.toUpperCase(), 'AUDIT', minute, 1, 2, resends)).toEqual({
        first: 1,
        count: 1,
      });
      expect(await s.rateBudget.take(topic, 'audit', minute, 1, 2, resends)).toEqual({ first: 2, count: 0 });
      // The delivery rate's window of the same number, and another counter's, count apart.
      expect(await s.rateBudget.take(topic, 'audit', minute, 1, 2)).toEqual({ first: 0, count: 1 });
      const replays = { name: 'replay', windowMs: 60_000 };
      expect(await s.rateBudget.take(topic, 'audit', minute, 1, 2, replays)).toEqual({ first: 0, count: 1 });
      expect(await s.rateBudget.take(topic, 'audit', minute + 1, 1, 2, resends)).toEqual({
        first: 0,
        count: 1,
      });
    });

    it('never grants more than the limit to takers at the same moment, nor a place twice', async () => {
      const topic = unique('rate-race-');
      const slices = await Promise.all(
        Array.from({ length: 12 }, () => s.rateBudget.take(topic, 'audit', window, 3, 25)),
      );
      const places = slices.flatMap((slice) =>
        Array.from({ length: slice.count }, (_, i) => slice.first + i),
      );
      expect(places.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    });
  });

  describe('late answers', () => {
    const T = AT.getTime();
    const answer = (topic: string, subscription: string, deliveryId: string): LateAnswer => ({
      topic,
      subscription,
      deliveryId,
      attempt: 2,
      startedAt: T,
      answeredAt: T + 45_000,
      httpStatus: 202,
      expiresAt: T + 86_400_000,
    });

    it('finds the recorded answers among delivery ids, whatever the case of the names, and only those', async () => {
      const topic = unique('Late-');
      await s.lateAnswers.record([answer(topic, 'Audit', 'd-1'), answer(topic, 'Audit', 'd-3')]);
      await s.lateAnswers.record([answer(topic, 'other', 'd-2')]);

      const found = await s.lateAnswers.find(topic.toUpperCase(), 'AUDIT', [
        'd-1',
        'd-2',
        'd-3',
        'd-4',
        'd-1',
      ]);

      expect([...found.keys()].sort()).toEqual(['d-1', 'd-3']);
      const { expiresAt: _expiresAt, ...recorded } = answer(topic, 'Audit', 'd-1');
      expect(found.get('d-1')).toEqual(recorded);
      expect((await s.lateAnswers.find(topic, 'audit', [])).size).toBe(0);
    });

    it('looks up more ids than one batch read takes, and records more than one batch write', async () => {
      const topic = unique('late-many-');
      const ids = Array.from({ length: 230 }, (_, i) => `d-${i}`);
      await s.lateAnswers.record(ids.filter((_, i) => i % 2 === 0).map((id) => answer(topic, 'audit', id)));

      const found = await s.lateAnswers.find(topic, 'audit', ids);

      expect(found.size).toBe(115);
      expect(found.has('d-228')).toBe(true);
      expect(found.has('d-229')).toBe(false);
    });
  });
}

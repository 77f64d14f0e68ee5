/**
 * The table's items through the real DynamoDB emulator: each kind is written with the attributes
 * and keys the table has always held, items written by earlier versions still read, and access
 * keys are sealed at rest. (What every store does is in the conformance suite,
 * `storage-conformance.test.ts`.)
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Emulators, startEmulators } from '../../local/emulators';
import { provisionLocalResources } from '../../local/provision';
import { BACKLOG_BUCKET, TABLE } from '../../shared/config/resources';
import { segmentIdOf } from '../../shared/delivery/rules/backlog';
import type { BacklogMeta } from '../../shared/domain/backlog';
import { type AwsClients, createAwsClients } from '../../shared/platform/aws';
import { AesGcmSealer, keyText } from '../../shared/platform/sealing';
import { DynamoBacklogStore, IDLE_META_RETENTION_DAYS, wakeShardOf } from '../../shared/storage/backlog';
import { DynamoHealthStore } from '../../shared/storage/health';
import { type TableStores, tableStores } from '../../shared/storage/store';
import { subscriptionSk, topicPk } from '../../shared/storage/table';
import { deliveryTarget, item, subscription } from '../support/fakes';

let emulators: Emulators;
let clients: AwsClients;
/** The stores of a stack without a topic key: access keys written as they are. */
let store: TableStores;

const rawItem = async (pk: string, sk: string) =>
  (
    await clients.dynamo.send(
      new GetCommand({ TableName: TABLE.localName, Key: { pk, sk }, ConsistentRead: true }),
    )
  ).Item as Record<string, unknown>;

beforeAll(async () => {
  emulators = await startEmulators();
  clients = createAwsClients(emulators.endpoints);
  await provisionLocalResources(clients);
  store = tableStores(clients.dynamo, TABLE.localName);
  await store.topics.create('orders', { inputSchema: 'EventGridSchema', tags: {} }, new Date());
}, 30_000);

afterAll(async () => {
  await emulators?.stop();
});

describe('item layout', () => {
  const at = '2026-03-01T00:00:00.000Z';

  it('keeps every kind of item under its keys, with its kind and the domain fields as attributes', async () => {
    const { resource: topic } = await store.topics.create(
      'Layout',
      {
        inputSchema: 'CustomEventSchema',
        inputSchemaMapping: { id: { sourceField: 'orderId' } },
        tags: { a: 'b' },
      },
      new Date(at),
    );
    const { resource: namespace } = await store.namespaces.create('LayoutNs', { tags: {} }, new Date(at));
    const nsTopic = {
      namespace: 'LayoutNs',
      name: 'Carts',
      eventRetentionInDays: 2,
      createdAt: at,
      updatedAt: at,
      subscriptionsVersion: 0,
    };
    await store.namespaceTopics.put(nsTopic, undefined);
    const sub = subscription({ topic: 'LayoutNs/Carts', name: 'Push', updatedAt: at, createdAt: at });
    await store.subscriptions.put(sub, undefined);
    const health = {
      topic: 'LayoutNs/Carts',
      subscription: 'Push',
      endpointUrl: 'https://hooks.example.test/in',
      consecutiveFailures: 1,
      probations: 0,
      rev: 1,
    };
    await new DynamoHealthStore(clients.dynamo, TABLE.localName).put(health, undefined);

    expect(await rawItem('TOPIC#layout', '#TOPIC')).toEqual({
      pk: 'TOPIC#layout',
      sk: '#TOPIC',
      gsi1pk: 'TOPIC',
      gsi1sk: 'layout',
      kind: 'topic',
      ...topic,
    });
    expect(await rawItem('NAMESPACE#layoutns', '#NAMESPACE')).toEqual({
      pk: 'NAMESPACE#layoutns',
      sk: '#NAMESPACE',
      gsi1pk: 'NAMESPACE',
      gsi1sk: 'layoutns',
      kind: 'namespace',
      ...namespace,
    });
    // The subscription's put moved its topic's version.
    expect(await rawItem('NAMESPACE#layoutns', 'TOPIC#carts')).toEqual({
      pk: 'NAMESPACE#layoutns',
      sk: 'TOPIC#carts',
      kind: 'namespaceTopic',
      ...nsTopic,
      subscriptionsVersion: 1,
    });
    expect(await rawItem('TOPIC#layoutns/carts', 'SUB#push')).toEqual({
      pk: 'TOPIC#layoutns/carts',
      sk: 'SUB#push',
      kind: 'subscription',
      ...sub,
      retryPolicy: { maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 },
    });
    expect(await rawItem('HEALTH#layoutns/carts#push', '#HEALTH')).toEqual({
      pk: 'HEALTH#layoutns/carts#push',
      sk: '#HEALTH',
      kind: 'health',
      ...health,
    });
  });
});

describe('backlog items', () => {
  const T = Date.UTC(2026, 2, 1);
  const backlogOf = () =>
    new DynamoBacklogStore(clients.dynamo, TABLE.localName, clients.s3, BACKLOG_BUCKET.localName);

  it("keeps a segment's index item in the backlog's partition, sorted by its earliest due time", async () => {
    const segment = {
      target: deliveryTarget({ topic: 'Orders', name: 'Audit', uid: 'u-1' }),
      segmentId: segmentIdOf(['m-1']),
      lines: [{ dueAt: T, heldBy: 'wait' as const, item: item('a', T - 5) }],
      createdAt: T,
    };

    const ref = await backlogOf().putSegment(segment);

    expect(
      await rawItem('BACKLOG#orders#audit', `SEG#${String(T).padStart(13, '0')}#${segment.segmentId}`),
    ).toEqual({
      pk: 'BACKLOG#orders#audit',
      sk: `SEG#${String(T).padStart(13, '0')}#${segment.segmentId}`,
      kind: 'backlog-segment',
      ...ref,
    });
  });

  it('lists a META in the timer index while it has a wake, and gives it a TTL once idle', async () => {
    const backlog = backlogOf();
    const meta: BacklogMeta = {
      topic: 'Orders',
      subscription: 'Timer',
      endpointUrl: 'https://hooks.example.test/in',
      token: 't-1',
      wakeAt: T + 60_000,
      state: 'waiting',
      summary: { events: 1, oldestPublishedAt: T },
      updatedAt: T,
    };
    await backlog.putMeta(meta, undefined);
    const waiting = await rawItem('BACKLOG#orders#timer', '#META');

    await backlog.putMeta({ ...meta, token: 't-2', state: 'idle', summary: { events: 0 } }, 't-1');
    const idle = await rawItem('BACKLOG#orders#timer', '#META');

    expect(waiting).toEqual({
      pk: 'BACKLOG#orders#timer',
      sk: '#META',
      kind: 'backlog-meta',
      gsi1pk: `WAKE#${wakeShardOf('Orders', 'Timer')}`,
      gsi1sk: String(T + 60_000).padStart(13, '0'),
      ...meta,
    });
    expect(idle).toEqual({
      pk: 'BACKLOG#orders#timer',
      sk: '#META',
      kind: 'backlog-meta',
      ...meta,
      token: 't-2',
      state: 'idle',
      summary: { events: 0 },
      expiresAt: T / 1000 + IDLE_META_RETENTION_DAYS * 86_400,
    });
  });
});

describe('subscription items', () => {
  it('reads an item written before subscriptions had a version, a uid and normalised limits', async () => {
    await clients.dynamo.send(
      new PutCommand({
        TableName: TABLE.localName,
        Item: {
          pk: topicPk('orders'),
          sk: subscriptionSk('legacy'),
          kind: 'subscription',
          topic: 'orders',
          name: 'legacy',
          destination: { endpointType: 'WebHook', endpointUrl: 'https://hooks.example.test/in' },
          filter: {},
          retryPolicy: { maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 60 },
          eventDeliverySchema: 'EventGridSchema',
          labels: [],
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
      }),
    );

    const read = await store.subscriptions.get('orders', 'legacy', { consistent: true });

    expect(read).toMatchObject({
      version: 0,
      deliveryProfile: 'topic',
      retry: { maxAttempts: 5, ttlMs: 3_600_000 },
    });
    expect(read?.uid).toBeUndefined();
    // The first change of such an item goes through (its missing version counts as 0).
    await store.subscriptions.put({ ...subscription({ name: 'legacy', uid: 'u-legacy', version: 5 }) }, 0);
    expect((await store.subscriptions.get('orders', 'legacy', { consistent: true }))?.version).toBe(5);
  });

  it('deletes an item written before subscriptions had a version as the version 0 it was read as', async () => {
    await clients.dynamo.send(
      new PutCommand({
        TableName: TABLE.localName,
        Item: {
          pk: topicPk('orders'),
          sk: subscriptionSk('unversioned'),
          kind: 'subscription',
          topic: 'orders',
          name: 'unversioned',
          destination: { endpointType: 'WebHook', endpointUrl: 'https://hooks.example.test/in' },
          retryPolicy: { maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 60 },
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
      }),
    );
    const read = await store.subscriptions.get('orders', 'unversioned', { consistent: true });
    expect(read?.version).toBe(0);
    expect(await store.subscriptions.delete('orders', 'unversioned', new Date(), 1)).toBe(false);
    expect(await store.subscriptions.delete('orders', 'unversioned', new Date(), 0)).toBe(true);
    expect(await store.subscriptions.get('orders', 'unversioned', { consistent: true })).toBeUndefined();
    // Nothing there: a delete naming version 0 deletes nothing.
    expect(await store.subscriptions.delete('orders', 'unversioned', new Date(), 0)).toBe(false);
  });

  it('keeps the API-shaped retry policy in the item, so an earlier version can still read it', async () => {
    await store.subscriptions.put(
      subscription({ name: 'both', retry: { maxAttempts: 3, ttlMs: 120_000 } }),
      undefined,
    );
    const { Item } = await clients.dynamo.send(
      new GetCommand({
        TableName: TABLE.localName,
        Key: { pk: topicPk('orders'), sk: subscriptionSk('both') },
      }),
    );
    expect(Item?.retryPolicy).toEqual({ maxDeliveryAttempts: 3, eventTimeToLiveInMinutes: 2 });
  });

  it('gives a subscription with an expiration time the TTL attribute, so DynamoDB deletes it once expired', async () => {
    const expirationTime = '2027-01-01T00:00:00.500Z';
    await store.subscriptions.put(subscription({ name: 'expiring', expirationTime }), undefined);
    const stored = await rawItem(topicPk('orders'), subscriptionSk('expiring'));
    expect(stored[TABLE.ttlAttribute]).toBe(Math.ceil(Date.parse(expirationTime) / 1000));
    expect(stored.expirationTime).toBe(expirationTime);
    const read = await store.subscriptions.get('orders', 'expiring', { consistent: true });
    expect(read?.expirationTime).toBe(expirationTime);
    expect(read).not.toHaveProperty(TABLE.ttlAttribute);
    // One without an expiration time has none.
    await store.subscriptions.put(subscription({ name: 'lasting' }), undefined);
    expect(await rawItem(topicPk('orders'), subscriptionSk('lasting'))).not.toHaveProperty(
      TABLE.ttlAttribute,
    );
  });

  it('keeps the batch settings and delivery attribute mappings of the destination', async () => {
    const destination = {
      endpointType: 'WebHook' as const,
      endpointUrl: 'https://hooks.example.test/in',
      maxEventsPerBatch: 50,
      preferredBatchSizeInKilobytes: 128,
      deliveryAttributeMappings: [
        { name: 'X-Plain', type: 'Static' as const, isSecret: false as const, value: 'hello' },
        {
          name: 'Authorization',
          type: 'Static' as const,
          isSecret: true as const,
          sealedValue: 'v1.aaa.bbb',
        },
        { name: 'X-Tenant', type: 'Dynamic' as const, sourceField: 'data.tenant' },
      ],
    };
    await store.subscriptions.put(subscription({ name: 'headers', destination }), undefined);
    expect((await store.subscriptions.get('orders', 'headers', { consistent: true }))?.destination).toEqual(
      destination,
    );
    // Items written before these settings read without them.
    await store.subscriptions.put(subscription({ name: 'plain' }), undefined);
    expect((await store.subscriptions.get('orders', 'plain', { consistent: true }))?.destination).toEqual({
      endpointType: 'WebHook',
      endpointUrl: 'https://hooks.example.test/in',
    });
  });
});

describe('namespace items', () => {
  const at = new Date('2026-03-01T00:00:00.000Z');
  const nsTopic = (namespace: string, name: string) => ({
    namespace,
    name,
    eventRetentionInDays: 1,
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    subscriptionsVersion: 0,
  });

  it('stores a namespace subscription as a subscription of <namespace>/<topic>, read back with its profile', async () => {
    await store.namespaces.create('Shop', { tags: {} }, at);
    await store.namespaceTopics.put(nsTopic('Shop', 'Orders'), undefined);
    await store.subscriptions.put(
      subscription({
        topic: 'Shop/Orders',
        name: 'audit',
        deliveryProfile: 'namespace',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        retry: { maxAttempts: 10, ttlMs: 20 * 60_000 },
        version: 1,
      }),
      undefined,
    );
    // Names are case-insensitive, as for classic topics; the item keeps them as written.
    const read = await store.subscriptions.get('shop/orders', 'AUDIT', { consistent: true });
    expect(read).toMatchObject({
      topic: 'Shop/Orders',
      deliveryProfile: 'namespace',
      retry: { maxAttempts: 10, ttlMs: 20 * 60_000 },
    });
    // Its topic's subscriptionsVersion moved, as a classic topic's does.
    expect(
      (await store.namespaceTopics.get('shop', 'orders', { consistent: true }))?.subscriptionsVersion,
    ).toBe(1);
    // The classic topic 'orders' is another partition.
    expect((await store.subscriptions.list('orders')).map((sub) => sub.topic)).not.toContain('Shop/Orders');
  });
});

describe('access keys', () => {
  const sealer = new AesGcmSealer(keyText('topic key for tests'));
  const sealingStores = (keySealer = sealer) => tableStores(clients.dynamo, TABLE.localName, keySealer);

  it('are written sealed (never as plain text) and read back opened', async () => {
    const sealing = sealingStores();
    const { resource: topic } = await sealing.topics.create(
      'sealed',
      { inputSchema: 'EventGridSchema', tags: {} },
      new Date(),
    );
    const item = await rawItem(topicPk('sealed'), '#TOPIC');
    expect(item).not.toHaveProperty('keys');
    expect(JSON.stringify(item)).not.toContain(topic.keys.key1);
    expect(JSON.stringify(item)).not.toContain(topic.keys.key2);
    expect((await sealing.topics.get('sealed'))?.keys).toEqual(topic.keys);
    // Listing shows no keys at all.
    expect((await sealing.topics.list()).find((t) => t.name === 'sealed')).not.toHaveProperty('keys');
    // A function without the key can't read them.
    await expect(store.topics.get('sealed')).rejects.toThrow(/sealed and this function has no key/);
    // Nor can one with another key.
    const other = sealingStores(new AesGcmSealer(keyText('another key')));
    await expect(other.topics.get('sealed')).rejects.toThrow();

    const namespace = (await sealing.namespaces.create('sealedns', { tags: {} }, new Date())).resource;
    const nsItem = await rawItem('NAMESPACE#sealedns', '#NAMESPACE');
    expect(nsItem).not.toHaveProperty('keys');
    expect(JSON.stringify(nsItem)).not.toContain(namespace.keys.key1);
    expect((await sealing.namespaces.get('sealedns'))?.keys).toEqual(namespace.keys);
  });

  it('regenerating one key keeps the other; an item written unsealed is sealed by it', async () => {
    // Written by a stack without sealing: plain keys.
    const { resource: topic } = await store.topics.create(
      'plain',
      { inputSchema: 'EventGridSchema', tags: {} },
      new Date(),
    );
    expect((await rawItem(topicPk('plain'), '#TOPIC')).keys).toEqual(topic.keys);
    const sealing = sealingStores();
    expect((await sealing.topics.get('plain'))?.keys).toEqual(topic.keys);

    const regenerated = await sealing.topics.regenerateKey('plain', 'key2', new Date(Date.now() + 1000));
    expect(regenerated?.keys.key1).toBe(topic.keys.key1);
    expect(regenerated?.keys.key2).not.toBe(topic.keys.key2);
    const item = await rawItem(topicPk('plain'), '#TOPIC');
    expect(item).not.toHaveProperty('keys');
    expect(JSON.stringify(item)).not.toContain(topic.keys.key1);
    expect((await sealing.topics.get('plain'))?.keys).toEqual(regenerated?.keys);
  });
});

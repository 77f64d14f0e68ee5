/**
 * The table through the real DynamoDB emulator: subscription items written by earlier versions
 * still read, and racing changes to one subscription can't both win.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Emulators, startEmulators } from '../../local/emulators';
import { provisionLocalResources } from '../../local/provision';
import { TABLE } from '../../shared/config/resources';
import { type AwsClients, createAwsClients } from '../../shared/platform/aws';
import { AesGcmSealer, keyText } from '../../shared/platform/sealing';
import { ConcurrentChangeError, Store, subscriptionSk, topicPk } from '../../shared/storage/store';
import { subscription } from '../support/fakes';

let emulators: Emulators;
let clients: AwsClients;
let store: Store;

beforeAll(async () => {
  emulators = await startEmulators();
  clients = createAwsClients(emulators.endpoints);
  await provisionLocalResources(clients);
  store = new Store(clients.dynamo, TABLE.localName);
  await store.createTopic('orders', { inputSchema: 'EventGridSchema', tags: {} }, new Date());
}, 30_000);

afterAll(async () => {
  await emulators?.stop();
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

    const read = await store.getSubscription('orders', 'legacy', { consistent: true });

    expect(read).toMatchObject({
      version: 0,
      deliveryProfile: 'topic',
      retry: { maxAttempts: 5, ttlMs: 3_600_000 },
    });
    expect(read?.uid).toBeUndefined();
    // The first change of such an item goes through (its missing version counts as 0).
    await store.putSubscription({ ...subscription({ name: 'legacy', uid: 'u-legacy', version: 5 }) }, 0);
    expect((await store.getSubscription('orders', 'legacy', { consistent: true }))?.version).toBe(5);
  });

  it('keeps the API-shaped retry policy in the item, so an earlier version can still read it', async () => {
    await store.putSubscription(
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
    await store.putSubscription(subscription({ name: 'headers', destination }), undefined);
    expect((await store.getSubscription('orders', 'headers', { consistent: true }))?.destination).toEqual(
      destination,
    );
    // Items written before these settings read without them.
    await store.putSubscription(subscription({ name: 'plain' }), undefined);
    expect((await store.getSubscription('orders', 'plain', { consistent: true }))?.destination).toEqual({
      endpointType: 'WebHook',
      endpointUrl: 'https://hooks.example.test/in',
    });
  });

  it('refuses a change based on a version that is no longer stored', async () => {
    await store.putSubscription(subscription({ name: 'raced', version: 10 }), undefined);
    await store.putSubscription(subscription({ name: 'raced', version: 20 }), 10);

    // A second writer that also read version 10 loses, and nothing it wrote is kept.
    await expect(
      store.putSubscription(subscription({ name: 'raced', version: 15 }), 10),
    ).rejects.toBeInstanceOf(ConcurrentChangeError);
    // Creating what already exists loses too.
    await expect(
      store.putSubscription(subscription({ name: 'raced', version: 30 }), undefined),
    ).rejects.toBeInstanceOf(ConcurrentChangeError);
    expect((await store.getSubscription('orders', 'raced', { consistent: true }))?.version).toBe(20);
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
    await store.createNamespace('Shop', { tags: {} }, at);
    await store.putNamespaceTopic(nsTopic('Shop', 'Orders'), undefined);
    await store.putSubscription(
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
    const read = await store.getSubscription('shop/orders', 'AUDIT', { consistent: true });
    expect(read).toMatchObject({
      topic: 'Shop/Orders',
      deliveryProfile: 'namespace',
      retry: { maxAttempts: 10, ttlMs: 20 * 60_000 },
    });
    // Its topic's subscriptionsVersion moved, as a classic topic's does.
    expect(
      (await store.getNamespaceTopic('shop', 'orders', { consistent: true }))?.subscriptionsVersion,
    ).toBe(1);
    // The classic topic 'orders' is another partition.
    expect((await store.listSubscriptions('orders')).map((sub) => sub.topic)).not.toContain('Shop/Orders');
  });

  it('refuses a topic change over a version that is no longer stored', async () => {
    const stale = { ...nsTopic('Shop', 'Orders'), updatedAt: '2000-01-01T00:00:00.000Z' };
    await expect(store.putNamespaceTopic(stale, stale)).rejects.toBeInstanceOf(ConcurrentChangeError);
  });

  it('deletes a namespace with its topics and their subscriptions', async () => {
    expect(await store.deleteNamespace('shop')).toBe(true);
    expect(await store.getNamespace('shop', { consistent: true })).toBeUndefined();
    expect(await store.listNamespaceTopics('shop')).toEqual([]);
    expect(await store.listSubscriptions('shop/orders')).toEqual([]);
    expect(await store.deleteNamespace('shop')).toBe(false);
  });
});

describe('access keys', () => {
  const sealer = new AesGcmSealer(keyText('topic key for tests'));
  const rawItem = async (pk: string, sk: string) =>
    (
      await clients.dynamo.send(
        new GetCommand({ TableName: TABLE.localName, Key: { pk, sk }, ConsistentRead: true }),
      )
    ).Item as Record<string, unknown>;

  it('are written sealed (never as plain text) and read back opened', async () => {
    const sealing = new Store(clients.dynamo, TABLE.localName, sealer);
    const { topic } = await sealing.createTopic(
      'sealed',
      { inputSchema: 'EventGridSchema', tags: {} },
      new Date(),
    );
    const item = await rawItem(topicPk('sealed'), '#TOPIC');
    expect(item).not.toHaveProperty('keys');
    expect(JSON.stringify(item)).not.toContain(topic.keys.key1);
    expect(JSON.stringify(item)).not.toContain(topic.keys.key2);
    expect((await sealing.getTopic('sealed'))?.keys).toEqual(topic.keys);
    // Listing shows no keys at all.
    expect((await sealing.listTopics()).find((t) => t.name === 'sealed')).not.toHaveProperty('keys');
    // A function without the key can't read them.
    await expect(store.getTopic('sealed')).rejects.toThrow(/sealed and this function has no key/);
    // Nor can one with another key.
    const other = new Store(clients.dynamo, TABLE.localName, new AesGcmSealer(keyText('another key')));
    await expect(other.getTopic('sealed')).rejects.toThrow();

    const namespace = (await sealing.createNamespace('sealedns', { tags: {} }, new Date())).namespace;
    const nsItem = await rawItem('NAMESPACE#sealedns', '#NAMESPACE');
    expect(JSON.stringify(nsItem)).not.toContain(namespace.keys.key1);
    expect((await sealing.getNamespace('sealedns'))?.keys).toEqual(namespace.keys);
  });

  it('regenerating one key keeps the other; an item written unsealed is sealed by it', async () => {
    // Written by a stack without sealing: plain keys.
    const { topic } = await store.createTopic(
      'plain',
      { inputSchema: 'EventGridSchema', tags: {} },
      new Date(),
    );
    expect((await rawItem(topicPk('plain'), '#TOPIC')).keys).toEqual(topic.keys);
    const sealing = new Store(clients.dynamo, TABLE.localName, sealer);
    expect((await sealing.getTopic('plain'))?.keys).toEqual(topic.keys);

    const regenerated = await sealing.regenerateKey('plain', 'key2', new Date(Date.now() + 1000));
    expect(regenerated?.keys.key1).toBe(topic.keys.key1);
    expect(regenerated?.keys.key2).not.toBe(topic.keys.key2);
    const item = await rawItem(topicPk('plain'), '#TOPIC');
    expect(item).not.toHaveProperty('keys');
    expect(JSON.stringify(item)).not.toContain(topic.keys.key1);
    expect((await sealing.getTopic('plain'))?.keys).toEqual(regenerated?.keys);
    expect(await sealing.regenerateKey('nothing-here', 'key1', new Date())).toBeUndefined();
  });
});

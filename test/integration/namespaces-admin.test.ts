/**
 * The namespace management API on the local stack, over HTTP: namespaces and their keys,
 * namespace topics, push subscriptions, cascading deletes and the 400s that name the field.
 */
import { namespacePushBody as pushBody } from '../support/fakes';
import { startTestStack, type TestStack } from '../support/local-stack';

let api: TestStack;

beforeAll(async () => {
  api = await startTestStack({ timeScale: 10 });
}, 30_000);

afterAll(async () => {
  await api?.close();
});

const PUSH = 'properties.deliveryConfiguration.push';
const NS = '/admin/namespaces';

describe('namespaces', () => {
  it('refuses requests without the admin token', async () => {
    expect((await api.call('GET', NS, undefined, { auth: false })).status).toBe(401);
  });

  it('creates a namespace once, lists and reads it, with two keys that regenerate one at a time', async () => {
    const created = await api.call('PUT', `${NS}/shop`, { properties: {} });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: '/gridwire/namespaces/shop',
      name: 'shop',
      type: 'Microsoft.EventGrid/namespaces',
      properties: { provisioningState: 'Succeeded' },
    });
    expect(JSON.stringify(created.body)).not.toMatch(/key1|key2/);
    expect((await api.call('PUT', `${NS}/shop`, { properties: {} })).status).toBe(200);
    expect((await api.call('GET', `${NS}/shop`)).body.name).toBe('shop');
    expect((await api.call('GET', NS)).body.value.map((ns: { name: string }) => ns.name)).toContain('shop');

    const keys = (await api.call('POST', `${NS}/shop/listKeys`)).body;
    expect(keys.key1).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(keys.key2).not.toBe(keys.key1);
    const regenerated = await api.call('POST', `${NS}/shop/regenerateKey`, { keyName: 'key2' });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.key1).toBe(keys.key1);
    expect(regenerated.body.key2).not.toBe(keys.key2);
    expect((await api.call('POST', `${NS}/shop/listKeys`)).body).toEqual(regenerated.body);

    const badKey = await api.call('POST', `${NS}/shop/regenerateKey`, { keyName: 'key3' });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.message).toBe("keyName: must be 'key1' or 'key2'.");
    expect((await api.call('POST', `${NS}/nothing/regenerateKey`, { keyName: 'key1' })).status).toBe(404);
  });

  it('answers 404 for a namespace that does not exist, and 400 for a bad name', async () => {
    expect((await api.call('GET', `${NS}/missing`)).status).toBe(404);
    expect((await api.call('POST', `${NS}/missing/listKeys`)).status).toBe(404);
    expect((await api.call('PUT', `${NS}/missing/topics/orders`, {})).status).toBe(404);
    const badName = await api.call('PUT', `${NS}/a_b`, {});
    expect(badName.status).toBe(400);
    expect(badName.body.error.message).toMatch(/namespace name 'a_b' is invalid/);
    const badBody = await api.call('PUT', `${NS}/shop2`, { properties: { sku: 'x' } });
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.message).toMatch(/^properties\.sku: unknown field/);
  });
});

describe('namespace topics and push subscriptions', () => {
  beforeAll(async () => {
    expect((await api.call('PUT', `${NS}/store`, {})).status).toBe(201);
  });

  it('creates a topic with a retention of 1 day by default, changes it, lists and reads it', async () => {
    const created = await api.call('PUT', `${NS}/store/topics/orders`, { properties: {} });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: '/gridwire/namespaces/store/topics/orders',
      name: 'orders',
      type: 'Microsoft.EventGrid/namespaces/topics',
      properties: { eventRetentionInDays: 1, inputSchema: 'CloudEventSchemaV1_0' },
    });
    const changed = await api.call('PUT', `${NS}/store/topics/orders`, {
      properties: { eventRetentionInDays: 3 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.properties.eventRetentionInDays).toBe(3);
    expect((await api.call('GET', `${NS}/store/topics/orders`)).body.properties.eventRetentionInDays).toBe(3);
    expect(
      (await api.call('GET', `${NS}/store/topics`)).body.value.map((topic: { name: string }) => topic.name),
    ).toEqual(['orders']);
    expect((await api.call('GET', `${NS}/store/topics/nothing`)).status).toBe(404);
  });

  it.each([
    [{ eventRetentionInDays: 0 }, /^properties\.eventRetentionInDays: must be an integer between 1 and 7/],
    [{ eventRetentionInDays: 8 }, /^properties\.eventRetentionInDays: must be an integer between 1 and 7/],
    [{ inputSchema: 'EventGridSchema' }, /^properties\.inputSchema: must be CloudEventSchemaV1_0/],
  ])('refuses the topic properties %j with a 400 naming the field', async (properties, message) => {
    const response = await api.call('PUT', `${NS}/store/topics/other`, { properties });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(message);
  });

  it('creates, reads, lists, changes and deletes a push subscription; secrets never come back', async () => {
    const url = 'http://127.0.0.1:9/hook?code=s3cret';
    const created = await api.call(
      'PUT',
      `${NS}/store/topics/orders/eventSubscriptions/audit`,
      pushBody(
        url,
        {
          maxDeliveryCount: 4,
          eventTimeToLive: 'PT20M',
          deadLetterDestinationWithResourceIdentity: {
            deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
          },
        },
        { filtersConfiguration: { includedEventTypes: ['order.created'] } },
      ),
    );
    expect(created.status).toBe(201);
    // A secret header travels in the same body shape as on classic subscriptions.
    const withSecret = pushBody(url, {
      maxDeliveryCount: 4,
      eventTimeToLive: 'PT20M',
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl: url,
          maxEventsPerBatch: 5,
          deliveryAttributeMappings: [
            { name: 'Authorization', type: 'Static', properties: { value: 'Bearer hush', isSecret: true } },
          ],
        },
      },
    });
    expect(
      (await api.call('PUT', `${NS}/store/topics/orders/eventSubscriptions/audit`, withSecret)).status,
    ).toBe(200);

    const read = await api.call('GET', `${NS}/store/topics/orders/eventSubscriptions/audit`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: '/gridwire/namespaces/store/topics/orders/eventSubscriptions/audit',
      name: 'audit',
      type: 'Microsoft.EventGrid/namespaces/topics/eventSubscriptions',
      properties: {
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            maxDeliveryCount: 4,
            eventTimeToLive: 'PT20M',
            destination: {
              endpointType: 'WebHook',
              properties: {
                endpointBaseUrl: 'http://127.0.0.1:9/hook',
                maxEventsPerBatch: 5,
                deliveryAttributeMappings: [
                  { name: 'Authorization', type: 'Static', properties: { value: null, isSecret: true } },
                ],
              },
            },
          },
        },
      },
    });
    expect(JSON.stringify(read.body)).not.toMatch(/s3cret|hush/);
    const listed = await api.call('GET', `${NS}/store/topics/orders/eventSubscriptions`);
    expect(listed.body.value.map((sub: { name: string }) => sub.name)).toEqual(['audit']);

    // The subscription's time to live holds the topic's retention down.
    await api.call(
      'PUT',
      `${NS}/store/topics/orders/eventSubscriptions/audit`,
      pushBody(url, { eventTimeToLive: 'P2D' }),
    );
    const shrink = await api.call('PUT', `${NS}/store/topics/orders`, {
      properties: { eventRetentionInDays: 1 },
    });
    expect(shrink.status).toBe(400);
    expect(shrink.body.error.message).toMatch(
      /^properties\.eventRetentionInDays: event subscription 'audit' keeps events for P2D/,
    );

    expect((await api.call('DELETE', `${NS}/store/topics/orders/eventSubscriptions/audit`)).status).toBe(200);
    expect((await api.call('GET', `${NS}/store/topics/orders/eventSubscriptions/audit`)).status).toBe(404);
    expect((await api.call('DELETE', `${NS}/store/topics/orders/eventSubscriptions/audit`)).status).toBe(204);
  });

  it("refuses a time to live above the topic's retention", async () => {
    await api.call('PUT', `${NS}/store/topics/short`, { properties: { eventRetentionInDays: 1 } });
    const response = await api.call(
      'PUT',
      `${NS}/store/topics/short/eventSubscriptions/audit`,
      pushBody('http://127.0.0.1:9/hook', { eventTimeToLive: 'P2D' }),
    );
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe(
      `${PUSH}.eventTimeToLive: must not exceed the retention of topic 'short', P1D (eventRetentionInDays 1) (got P2D).`,
    );
    // Without one, the subscription keeps events as long as its topic does.
    const defaulted = await api.call(
      'PUT',
      `${NS}/store/topics/short/eventSubscriptions/audit`,
      pushBody('http://127.0.0.1:9/hook'),
    );
    expect(defaulted.status).toBe(201);
    expect(defaulted.body.properties.deliveryConfiguration.push).toMatchObject({
      maxDeliveryCount: 10,
      eventTimeToLive: 'P1D',
    });
  });

  it.each([
    [{ maxDeliveryCount: 0 }, `${PUSH}.maxDeliveryCount: must be an integer between 1 and 10`],
    [{ maxDeliveryCount: 11 }, `${PUSH}.maxDeliveryCount: must be an integer between 1 and 10`],
    [
      { eventTimeToLive: 'PT30S' },
      `${PUSH}.eventTimeToLive: must be an ISO 8601 duration with minute precision between PT1M and P7D`,
    ],
    [
      { eventTimeToLive: 'P8D' },
      `${PUSH}.eventTimeToLive: must be an ISO 8601 duration with minute precision between PT1M and P7D`,
    ],
  ])('refuses %j with a 400 naming the field and range', async (push, message) => {
    const response = await api.call(
      'PUT',
      `${NS}/store/topics/short/eventSubscriptions/bad`,
      pushBody('http://127.0.0.1:9/hook', push),
    );
    expect(response.status).toBe(400);
    expect(response.body.error.message.startsWith(message)).toBe(true);
  });

  it('deleting a topic deletes its subscriptions; deleting a namespace deletes its topics', async () => {
    await api.call('PUT', `${NS}/gone`, {});
    await api.call('PUT', `${NS}/gone/topics/first`, {});
    await api.call('PUT', `${NS}/gone/topics/second`, {});
    for (const topic of ['first', 'second']) {
      expect(
        (
          await api.call(
            'PUT',
            `${NS}/gone/topics/${topic}/eventSubscriptions/sub`,
            pushBody('http://127.0.0.1:9/h'),
          )
        ).status,
      ).toBe(201);
    }

    expect((await api.call('DELETE', `${NS}/gone/topics/first`)).status).toBe(200);
    expect((await api.call('GET', `${NS}/gone/topics/first`)).status).toBe(404);
    // Created again, it starts with no subscriptions.
    await api.call('PUT', `${NS}/gone/topics/first`, {});
    expect((await api.call('GET', `${NS}/gone/topics/first/eventSubscriptions`)).body.value).toEqual([]);

    expect((await api.call('DELETE', `${NS}/gone`)).status).toBe(200);
    expect((await api.call('GET', `${NS}/gone`)).status).toBe(404);
    expect((await api.call('DELETE', `${NS}/gone`)).status).toBe(204);
    await api.call('PUT', `${NS}/gone`, {});
    expect((await api.call('GET', `${NS}/gone/topics`)).body.value).toEqual([]);
    await api.call('PUT', `${NS}/gone/topics/second`, {});
    expect((await api.call('GET', `${NS}/gone/topics/second/eventSubscriptions`)).body.value).toEqual([]);
  });

  it('keeps namespace topics apart from a classic topic of the same name', async () => {
    await api.createTopic('orders');
    expect((await api.call('GET', '/admin/topics/orders/eventSubscriptions')).body.value).toEqual([]);
    expect(
      (await api.call('GET', '/admin/topics')).body.value.map((t: { name: string }) => t.name),
    ).not.toContain('store/orders');
  });
});

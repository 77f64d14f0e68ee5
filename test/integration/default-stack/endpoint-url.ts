/**
 * An endpoint URL with a secret in its query string, on the real local stack: the API shows it
 * without the query string (GET, list, health), `getFullUrl` shows it whole, the table holds it
 * sealed (read with the DynamoDB client: the secret is nowhere in it), and deliveries reach the
 * webhook with the query string intact.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { event, type TestStack } from '../../support/local-stack';
import { sharedTestStack } from '../../support/shared-stack';
import { eventMarker, WebhookServer } from '../../support/webhook-server';

const SECRET = 's3cret-token-7f1c';
let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  key = await api.createTopic('sealedurl');
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

const SUB = '/admin/topics/sealedurl/eventSubscriptions/hooked';

it('shows the URL without its query string, seals it at rest, and delivers to the whole URL', async () => {
  const path = `/hooked?token=${SECRET}&tenant=a%20b`;
  const created = await api.call('PUT', SUB, {
    properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url(path) } } },
  });
  expect(created.status).toBe(201);
  const base = webhook.url('/hooked');

  const shown = await api.call('GET', SUB);
  const listed = await api.call('GET', '/admin/topics/sealedurl/eventSubscriptions');
  expect(shown.body.properties.destination.properties.endpointBaseUrl).toBe(base);
  for (const answer of [created, shown, listed]) expect(JSON.stringify(answer.body)).not.toContain(SECRET);

  const full = await api.call('POST', `${SUB}/getFullUrl`);
  expect(full).toEqual({ status: 200, body: { endpointUrl: webhook.url(path) } });

  expect((await api.publish('sealedurl', key, [event('sealed-1')])).status).toBe(200);
  const delivered = await webhook.requestWith(path, eventMarker('sealed-1'));
  expect(delivered.path).toBe(path);

  const health = await api.call('GET', `${SUB}/health`);
  expect(health.status).toBe(200);
  expect(health.body.endpointUrl).toBe(base);

  // Nothing in the table (the subscription, its validation, endpoint health) holds the secret.
  const items: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await api.stack.clients.dynamo.send(
      new ScanCommand({ TableName: api.stack.resources.tableName, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  const subscriptionItem = items.find((item) => {
    const { kind, topic } = item as { kind?: string; topic?: string };
    return kind === 'subscription' && topic === 'sealedurl';
  }) as { destination: { endpointUrl: string; sealedQuery?: string } };
  expect(subscriptionItem.destination).toMatchObject({
    endpointUrl: base,
    sealedQuery: expect.stringMatching(/^v1\./),
  });
  expect(JSON.stringify(items)).not.toContain(SECRET);
}, 30_000);

it('refuses CR, LF and tab in the URL with a 400 naming the field', async () => {
  for (const endpointUrl of ['https://hooks.example.test/in\r\nX: 1', 'https://hooks.example.test/\tin']) {
    const refused = await api.call('PUT', '/admin/topics/sealedurl/eventSubscriptions/badurl', {
      properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /^properties\.destination\.properties\.endpointUrl: must not contain control characters/,
    );
  }
  expect((await api.call('GET', '/admin/topics/sealedurl/eventSubscriptions/badurl')).status).toBe(404);
});

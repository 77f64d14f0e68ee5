/**
 * The az-shaped command line against a running local stack: topics, subscriptions and publishing
 * (classic, CloudEvents and namespace topics), run in this process through `runGridwire` as the
 * `gridwire` binary runs it; and the binary itself for its version and its one-line errors.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gridwireVersion, runGridwire } from '../../cli/program';
import { startTestStack, type TestStack } from '../support/local-stack';
import {
  allowingOrigin,
  deliveredTo,
  eventually,
  type ReceivedRequest,
  WebhookServer,
} from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;

/** The portal's options the stack is started with (`--portal-frame-ancestors`, `--portal-branding`). */
const PORTAL_OPTIONS = {
  portalFrameAncestors: ['https://app.example.com', 'https://*.example.net'],
  portalBranding: {
    title: 'Acme events',
    logoUrl: 'https://cdn.example.com/logo.svg',
    accentColor: '#0a7cff',
  },
};

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack(PORTAL_OPTIONS);
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
  await api?.close();
});

/** Runs one command in this process; what it printed, one string. */
async function gridwire(...args: string[]): Promise<string> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    lines.push(parts.map(String).join(' '));
  });
  try {
    await runGridwire([...args, '--data-dir', api.stack.dataDir]);
  } finally {
    log.mockRestore();
  }
  return lines.join('\n');
}

/** The billing subscription's endpoint path, with a query string. */
const BILLING = '/billing?code=s3cret';

const json = async (...args: string[]) => JSON.parse(await gridwire(...args, '--json'));

it('creates a topic, lists it and prints its keys', async () => {
  const created = await gridwire('topic', 'create', 'orders');
  expect(created).toMatch(/^Created topic orders\./);
  expect(created).toContain(`publish URL:   ${api.stack.apiUrl}/topics/orders/api/events`);

  expect(await json('topic', 'show', 'orders')).toMatchObject({
    name: 'orders',
    properties: { inputSchema: 'EventGridSchema' },
  });
  expect(await gridwire('topic', 'list')).toMatch(
    /^NAME +INPUT SCHEMA +DEDUP WINDOW +ARCHIVE +PUBLISH URL\n(.*\n)*orders +EventGridSchema +off +off /m,
  );

  const keys = await json('topic', 'keys', 'orders');
  const listed = await api.call('POST', '/admin/topics/orders/listKeys');
  expect(keys).toEqual(listed.body);
  const rotated = await json('topic', 'regenerate-key', 'orders', '--key-name', 'key2');
  expect(rotated.key1).toBe(keys.key1);
  expect(rotated.key2).not.toBe(keys.key2);
});

it('creates a subscription with the Azure CLI flags, publishes to it, and updates it keeping the rest', async () => {
  // The webhook sees the path with its query string, which the documents never show.
  const endpoint = webhook.url(BILLING);
  const created = await gridwire(
    'subscription',
    'create',
    '--topic',
    'orders',
    '--name',
    'billing',
    '--endpoint',
    endpoint,
    '--included-event-types',
    'Order.Created',
    'Order.Paid',
    '--advanced-filter',
    'data.total',
    'NumberGreaterThan',
    '10',
    '--max-delivery-attempts',
    '10',
    '--event-ttl',
    '60',
    '--deadletter-container',
    'dead',
    '--delivery-attribute-mapping',
    'X-Source',
    'static',
    'shop',
  );
  expect(created).toMatch(/^Created topic orders, subscription billing\./);
  expect(created).toContain('\nmax delivery attempts: 10\n');

  const shown = await json('subscription', 'show', '--topic', 'orders', '--name', 'billing');
  expect(shown.properties).toMatchObject({
    destination: { properties: { endpointBaseUrl: endpoint.replace('?code=s3cret', '') } },
    filter: {
      includedEventTypes: ['Order.Created', 'Order.Paid'],
      advancedFilters: [{ operatorType: 'NumberGreaterThan', key: 'data.total', value: 10 }],
    },
    retryPolicy: { maxDeliveryAttempts: 10, eventTimeToLiveInMinutes: 60 },
    deadLetterDestination: { properties: { blobContainerName: 'dead' } },
  });

  const published = await gridwire(
    'publish',
    '--topic',
    'orders',
    '--event-type',
    'Order.Created',
    '--subject',
    'shop/orders/1',
    '--data',
    '{"total":42}',
    '--id',
    'order-1',
  );
  expect(published).toBe('Published 1 event to topic orders (id order-1).');
  await deliveredTo(webhook, BILLING, 'order-1');
  const [delivery] = webhook.requestsTo(BILLING);
  expect(delivery?.headers['x-source']).toBe('shop');
  expect(JSON.parse(delivery?.body ?? '[]')[0]).toMatchObject({
    id: 'order-1',
    eventType: 'Order.Created',
    subject: 'shop/orders/1',
    data: { total: 42 },
  });

  await gridwire(
    'subscription',
    'update',
    '--topic',
    'orders',
    '--name',
    'billing',
    '--max-delivery-attempts',
    '5',
  );
  const updated = await json('subscription', 'show', '--topic', 'orders', '--name', 'billing');
  expect(updated.properties.retryPolicy).toEqual({ maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 60 });
  expect(updated.properties.filter).toEqual(shown.properties.filter);
  expect(updated.properties.deadLetterDestination).toEqual(shown.properties.deadLetterDestination);
  // The query string, which documents never show, is still there.
  const full = await api.call('POST', '/admin/topics/orders/eventSubscriptions/billing/getFullUrl');
  expect(full.body).toEqual({ endpointUrl: endpoint });

  expect(await gridwire('subscription', 'list', '--topic', 'orders')).toMatch(
    /^NAME +STATE +ENDPOINT +EVENT TYPES\nbilling +\w+ +http:\/\/127\.0\.0\.1:\d+\/billing +Order\.Created, Order\.Paid$/,
  );
});

it('publishes events from a file, with the key given', async () => {
  const file = join(api.stack.dataDir, 'events.json');
  const events = [1, 2].map((n) => ({
    id: `file-${n}`,
    subject: `shop/orders/${n}`,
    eventType: 'Order.Paid',
    eventTime: '2026-11-28T10:00:00Z',
    data: { total: 100 + n },
    dataVersion: '1.0',
  }));
  await writeFile(file, JSON.stringify(events));
  const { key1 } = await json('topic', 'keys', 'orders');
  expect(await json('publish', '--topic', 'orders', '--file', file, '--key', key1)).toEqual({
    published: 2,
    ids: ['file-1', 'file-2'],
  });
  await deliveredTo(webhook, BILLING, 'file-2');
});

it('says there is no such topic, where the publish route would answer 401 alike', async () => {
  await expect(
    gridwire('publish', '--topic', 'order', '--event-type', 'A', '--subject', 's'),
  ).rejects.toThrow("no topic named 'order' (gridwire topic list shows them)");
  await expect(
    gridwire('publish', '--topic', 'orders', '--event-type', 'A', '--subject', 's', '--key', 'wrong'),
  ).rejects.toThrow(/HTTP 401: .*\(is --key a key of this topic\?\)/);
  await expect(
    gridwire('publish', '--topic', 'orders', '--event-type', 'A', '--subject', 's', '--data', '{x'),
  ).rejects.toThrow(/^--data: not JSON/);
});

it('publishes to a CloudEvents topic in its schema', async () => {
  await gridwire('topic', 'create', 'ce-orders', '--input-schema', 'cloudeventschemav1_0');
  webhook.url(
    '/ce',
    allowingOrigin(() => '*'),
  );
  await gridwire(
    'subscription',
    'create',
    '--topic',
    'ce-orders',
    '--name',
    'printer',
    '--endpoint',
    webhook.url(
      '/ce',
      allowingOrigin(() => '*'),
    ),
  );
  await gridwire(
    'publish',
    '--topic',
    'ce-orders',
    '--event-type',
    'Order.Created',
    '--source',
    '/shop',
    '--data',
    '{"total":7}',
    '--id',
    'ce-1',
  );
  await deliveredTo(webhook, '/ce', 'ce-1');
  const delivery = webhook.requestsTo('/ce').find((request) => request.body.includes('"ce-1"'));
  expect(JSON.parse(delivery?.body ?? '[]')[0]).toMatchObject({
    specversion: '1.0',
    id: 'ce-1',
    source: '/shop',
    type: 'Order.Created',
    data: { total: 7 },
  });
});

it('creates a namespace topic (and its namespace), subscribes to it and publishes to it', async () => {
  const created = await gridwire('topic', 'create', 'orders', '--namespace', 'shop');
  expect(created).toMatch(/^Created namespace shop\.\nCreated namespace shop, topic orders\./);
  expect(created).toContain(`publish URL:   ${api.stack.apiUrl}/namespaces/shop/topics/orders:publish`);
  webhook.url(
    '/ns',
    allowingOrigin(() => '*'),
  );
  await gridwire(
    'subscription',
    'create',
    '--namespace',
    'shop',
    '--topic',
    'orders',
    '--name',
    'audit',
    '--endpoint',
    webhook.url(
      '/ns',
      allowingOrigin(() => '*'),
    ),
    '--event-ttl',
    '30',
  );
  const shown = await json(
    'subscription',
    'show',
    '--namespace',
    'shop',
    '--topic',
    'orders',
    '--name',
    'audit',
  );
  expect(shown.properties.deliveryConfiguration.push).toMatchObject({ eventTimeToLive: 'PT30M' });
  await gridwire(
    'publish',
    '--namespace',
    'shop',
    '--topic',
    'orders',
    '--event-type',
    'Shop.OrderCreated',
    '--data',
    '{"n":1}',
    '--id',
    'ns-1',
  );
  await deliveredTo(webhook, '/ns', 'ns-1');

  await gridwire(
    'subscription',
    'update',
    '--namespace',
    'shop',
    '--topic',
    'orders',
    '--name',
    'audit',
    '--max-delivery-attempts',
    '3',
  );
  const updated = await json(
    'subscription',
    'show',
    '--namespace',
    'shop',
    '--topic',
    'orders',
    '--name',
    'audit',
  );
  expect(updated.properties.deliveryConfiguration.push).toMatchObject({
    maxDeliveryCount: 3,
    eventTimeToLive: 'PT30M',
  });
});

it("sets a topic's archive, keeps it (and the rest) through create and update, and turns it off", async () => {
  const created = await gridwire(
    'topic',
    'create',
    'ledger',
    '--input-schema',
    'cloudeventschemav1_0',
    '--deduplication-window',
    '60',
    '--archive-retention',
    '7',
  );
  expect(created).toMatch(/^Created topic ledger\./);
  expect(created).toMatch(/^dedup window: {2}60 min\narchive: {7}7 days$/m);
  expect(await gridwire('topic', 'list')).toMatch(/^ledger +CloudEventSchemaV1_0 +60 min +7 days +http/m);
  // Tags, which no flag sets, through the API.
  const tagged = await api.call('PUT', '/admin/topics/ledger', {
    tags: { team: 'books' },
    properties: {
      inputSchema: 'CloudEventSchemaV1_0',
      deduplicationWindowInMinutes: 60,
      archive: { retentionInDays: 7 },
    },
  });
  expect(tagged.status).toBe(200);
  const ledger = async () => {
    const { tags, properties } = await json('topic', 'show', 'ledger');
    return { tags, ...properties };
  };
  const kept = { tags: { team: 'books' }, inputSchema: 'CloudEventSchemaV1_0' };

  // create without the flag keeps the archive; update changes only what its flags name.
  expect(await gridwire('topic', 'create', 'ledger')).toMatch(/^Updated topic ledger\./);
  expect(await ledger()).toMatchObject({
    ...kept,
    deduplicationWindowInMinutes: 60,
    archive: { retentionInDays: 7 },
  });
  expect(await gridwire('topic', 'update', 'ledger', '--deduplication-window', '0')).toMatch(
    /^Updated topic ledger\.\n(.*\n)*dedup window: {2}off\narchive: {7}7 days$/m,
  );
  expect(await ledger()).toMatchObject({
    ...kept,
    deduplicationWindowInMinutes: 0,
    archive: { retentionInDays: 7 },
  });
  await gridwire('topic', 'update', 'ledger', '--archive-retention', '30');
  expect(await ledger()).toMatchObject({ ...kept, archive: { retentionInDays: 30 } });
  expect(await gridwire('topic', 'update', 'ledger', '--no-archive')).toMatch(/^archive: {7}off$/m);
  expect(await ledger()).toMatchObject({ ...kept, archive: null });
  await expect(gridwire('topic', 'update', 'ledgers', '--no-archive')).rejects.toThrow(
    "no topic named 'ledgers' (gridwire topic list shows them)",
  );

  // A namespace topic: its retention kept too.
  await gridwire(
    'topic',
    'create',
    'journal',
    '--namespace',
    'books',
    '--event-retention-in-days',
    '3',
    '--archive-retention',
    '5',
  );
  const journal = async () => (await json('topic', 'show', 'journal', '--namespace', 'books')).properties;
  expect(await journal()).toMatchObject({ eventRetentionInDays: 3, archive: { retentionInDays: 5 } });
  await gridwire('topic', 'update', 'journal', '--namespace', 'books', '--deduplication-window', '10');
  expect(await journal()).toMatchObject({
    eventRetentionInDays: 3,
    deduplicationWindowInMinutes: 10,
    archive: { retentionInDays: 5 },
  });
  await gridwire('topic', 'update', 'journal', '--namespace', 'books', '--no-archive');
  expect(await journal()).toMatchObject({
    eventRetentionInDays: 3,
    deduplicationWindowInMinutes: 10,
    archive: null,
  });

  await gridwire('topic', 'delete', 'journal', '--namespace', 'books');
  await gridwire('topic', 'delete', 'ledger');
});

it('pauses a subscription: its events wait in its backlog, and are delivered on resume', async () => {
  await gridwire('topic', 'create', 'quiet');
  await gridwire(
    'subscription',
    'create',
    '--topic',
    'quiet',
    '--name',
    'later',
    '--endpoint',
    webhook.url('/later'),
  );
  expect(await gridwire('subscription', 'pause', '--topic', 'quiet', '--name', 'later')).toBe(
    'Paused topic quiet, subscription later: Paused.',
  );
  await gridwire('publish', '--topic', 'quiet', '--event-type', 'A', '--subject', 's', '--id', 'quiet-1');
  // Held in its backlog, not sent: the health view counts it there.
  await eventually(
    async () =>
      (await api.call('GET', '/admin/topics/quiet/eventSubscriptions/later/health')).body.held?.events === 1,
    15_000,
    'the paused event held in the backlog',
  );
  expect(webhook.requestsTo('/later')).toEqual([]);
  expect(await gridwire('health', '--topic', 'quiet')).toMatch(/\nlater +Paused +0 +- +/);

  const resumed = await gridwire('subscription', 'resume', '--topic', 'quiet', '--name', 'later');
  expect(resumed).toMatch(/^Resumed topic quiet, subscription later: Healthy\./);
  await deliveredTo(webhook, '/later', 'quiet-1', 15_000);
  expect(webhook.requestsTo('/later')).toHaveLength(1);
});

it('shows what happened to an event: its attempts on record, or plainly that there are none', async () => {
  await gridwire('topic', 'create', 'shaky');
  await gridwire(
    'subscription',
    'create',
    '--topic',
    'shaky',
    '--name',
    'down',
    '--endpoint',
    webhook.url('/down', () => ({ status: 500 })),
  );
  await gridwire('publish', '--topic', 'shaky', '--event-type', 'A', '--subject', 's', '--id', 'shaky-1');
  // The attempt is recorded after its answer: ask until the history has it.
  const shown = await eventually(
    async () => {
      const text = await gridwire(
        'events',
        'show',
        '--topic',
        'shaky',
        '--subscription',
        'down',
        '--event-id',
        'shaky-1',
      );
      return text.includes('GenericError') && text;
    },
    15_000,
    'the failed attempt on record',
  );
  expect(shown).toMatch(/^Event 'shaky-1', delivery \S+, published \S+: Retrying, next attempt at \S+\.\n/);
  expect(shown).toMatch(/\n1 +\S+ +GenericError +500 +\d+ ms/);

  await gridwire(
    'subscription',
    'create',
    '--topic',
    'shaky',
    '--name',
    'fine',
    '--endpoint',
    webhook.url('/fine'),
  );
  await gridwire('publish', '--topic', 'shaky', '--event-type', 'A', '--subject', 's', '--id', 'shaky-2');
  await deliveredTo(webhook, '/fine', 'shaky-2');
  expect(
    await gridwire('events', 'show', '--topic', 'shaky', '--subscription', 'fine', '--event-id', 'shaky-2'),
  ).toMatch(
    /^No record of event 'shaky-2' for this subscription between \S+ and \S+\. The subscription's deliveryLog is 'Failures': an event delivered at its first attempt leaves no record/,
  );
});

/** `events show` of the logged event. */
const SHOW_LOGGED = [
  'events',
  'show',
  '--topic',
  'logged',
  '--subscription',
  'all',
  '--event-id',
  'logged-1',
];

it('logs every delivery with its answer when asked, lists the log, and resends an event as a new delivery', async () => {
  await gridwire('topic', 'create', 'logged');
  await gridwire(
    'subscription',
    'create',
    '--topic',
    'logged',
    '--name',
    'all',
    '--endpoint',
    webhook.url('/all', (request) => ({ status: 200, body: `thanks for ${request.body.length} bytes` })),
    '--delivery-log',
    'all',
  );
  expect(await gridwire('subscription', 'show', '--topic', 'logged', '--name', 'all')).toMatch(
    /\ndelivery log: +All$/,
  );
  await gridwire('publish', '--topic', 'logged', '--event-type', 'A', '--subject', 's', '--id', 'logged-1');
  await deliveredTo(webhook, '/all', 'logged-1');
  const first = webhook.requestsTo('/all')[0] as ReceivedRequest;

  // Delivered at the first attempt, and on record with the endpoint's answer.
  const shown = await eventually(
    async () => {
      const text = await gridwire(...SHOW_LOGGED);
      return text.includes('Delivered') && text;
    },
    15_000,
    'the delivery on record',
  );
  expect(shown).toMatch(/^Event 'logged-1', delivery (\S+), published \S+: Delivered\.\n/);
  expect(shown).toContain(`thanks for ${first.body.length} bytes`);
  const deliveryId = /delivery (\S+),/.exec(shown)?.[1] as string;

  const listed = await gridwire(
    'events',
    'list',
    '--topic',
    'logged',
    '--subscription',
    'all',
    '--since',
    '1h',
  );
  expect(listed).toMatch(new RegExp(`\\n\\S+ +logged-1 +${deliveryId} +Delivered +1 +200 +thanks for`));
  expect(listed).not.toContain("deliveryLog 'Failures'");

  const resent = await gridwire(
    'events',
    'resend',
    '--topic',
    'logged',
    '--subscription',
    'all',
    '--event-id',
    'logged-1',
  );
  expect(resent).toMatch(
    new RegExp(
      `^Event 'logged-1' queued again to topic logged, subscription all as delivery resend-\\S+ \\(gridwire-resend-of: ${deliveryId}\\)\\.$`,
    ),
  );
  const again = await eventually(
    async () =>
      webhook.requestsTo('/all').find((request) => request.headers['gridwire-resend-of'] === deliveryId),
    15_000,
    'the resend at the endpoint',
  );
  // The same event text, sent afresh.
  expect(again.body).toBe(first.body);
  expect(again.headers['aeg-delivery-count']).toBe('0');
  expect(webhook.requestsTo('/all')).toHaveLength(2);
  const both = await eventually(
    async () => {
      const history = await json(...SHOW_LOGGED);
      return history.value.length === 2 && history;
    },
    15_000,
    'both deliveries on record',
  );
  expect(both.value[1]).toMatchObject({ status: 'Delivered', resendOf: deliveryId, eventLogged: true });
});

it('signs a subscription, shows and rotates its secret, and keeps it across an update', async () => {
  await gridwire('topic', 'create', 'inked');
  await gridwire(
    'subscription',
    'create',
    '--topic',
    'inked',
    '--name',
    'sig',
    '--endpoint',
    webhook.url('/sig'),
    '--signing-secret',
    'generate',
  );
  const shown = await gridwire('subscription', 'signing-secret', '--topic', 'inked', '--name', 'sig');
  expect(shown).toMatch(/^Signing secret of topic inked, subscription sig \(since \S+\):\nwhsec_\S+$/);
  const secret = shown.split('\n')[1] as string;

  await gridwire(
    'subscription',
    'update',
    '--topic',
    'inked',
    '--name',
    'sig',
    '--max-delivery-attempts',
    '5',
  );
  expect((await json('subscription', 'signing-secret', '--topic', 'inked', '--name', 'sig')).secret).toBe(
    secret,
  );

  const rotated = await gridwire(
    'subscription',
    'signing-secret',
    '--topic',
    'inked',
    '--name',
    'sig',
    '--rotate',
    '--keep-previous-for',
    '60',
  );
  expect(rotated).toMatch(/^New signing secret of topic inked, subscription sig \(since \S+\):\nwhsec_\S+\n/);
  expect(rotated).toContain(`Earlier secret, still honoured until `);
  expect(rotated).toContain(secret);

  await gridwire('subscription', 'update', '--topic', 'inked', '--name', 'sig', '--no-signing');
  const plain = await api.call('POST', '/admin/topics/inked/eventSubscriptions/sig/getSigningSecret');
  expect(plain.status).toBe(409);
});

it("retries on the subscription's own schedule", async () => {
  await gridwire('topic', 'create', 'paced');
  await gridwire(
    'subscription',
    'create',
    '--topic',
    'paced',
    '--name',
    'slow',
    '--endpoint',
    webhook.url('/slow', () => ({ status: 500 })),
    '--retry-schedule',
    'PT5M',
    'PT10M',
  );
  expect(
    (await json('subscription', 'show', '--topic', 'paced', '--name', 'slow')).properties.retryPolicy,
  ).toEqual({
    maxDeliveryAttempts: 30,
    eventTimeToLiveInMinutes: 1440,
    retrySchedule: ['PT5M', 'PT10M'],
  });
  await gridwire('publish', '--topic', 'paced', '--event-type', 'A', '--subject', 's', '--id', 'paced-1');
  const history = await eventually(
    async () => {
      const found = await json(
        'events',
        'show',
        '--topic',
        'paced',
        '--subscription',
        'slow',
        '--event-id',
        'paced-1',
      );
      return found.value[0]?.nextAttemptTime !== undefined && found;
    },
    15_000,
    'the failed attempt on record',
  );
  const delivery = history.value[0];
  // The profile's first step would be 10 s; this subscription's is 5 minutes (and up to 10% jitter).
  const waitMs = Date.parse(delivery.nextAttemptTime) - Date.parse(delivery.attempts[0].time);
  expect(waitMs).toBeGreaterThanOrEqual(300_000);
  expect(waitMs).toBeLessThan(300_000 * 1.1 + 60_000);
});

it('refuses to resend what the log does not hold, saying why', async () => {
  await gridwire('topic', 'create', 'unlogged');
  await gridwire(
    'subscription',
    'create',
    '--topic',
    'unlogged',
    '--name',
    'quiet',
    '--endpoint',
    webhook.url('/quiet'),
  );
  await gridwire(
    'publish',
    '--topic',
    'unlogged',
    '--event-type',
    'A',
    '--subject',
    's',
    '--id',
    'unlogged-1',
  );
  await deliveredTo(webhook, '/quiet', 'unlogged-1');
  const refused = await api.call('POST', '/admin/topics/unlogged/eventSubscriptions/quiet/resend', {
    eventId: 'unlogged-1',
  });
  expect(refused.status).toBe(404);
  expect(refused.body.error.message).toMatch(
    /^No record of event 'unlogged-1' for this subscription .*deliveryLog is 'Failures'/,
  );
  const resend = (body: unknown) =>
    api.call('POST', '/admin/topics/unlogged/eventSubscriptions/quiet/resend', body);
  const misnamed = await resend({ event: 'x' });
  expect(misnamed.status).toBe(400);
  expect(misnamed.body.error.message).toMatch(/^eventId: is required: the id of the event to send again\./);
  const unknown = await resend({ eventId: 'unlogged-1', event: 'x' });
  expect(unknown.status).toBe(400);
  expect(unknown.body.error.message).toMatch(/^event: unknown field in the resend request\./);
  const listed = await gridwire('events', 'list', '--topic', 'unlogged', '--subscription', 'quiet');
  expect(listed).toMatch(
    /^No deliveries in the log of topic unlogged, subscription quiet between \S+ and \S+\.\nThe log keeps failures only/,
  );
});

it('labels subscriptions, makes console and portal links the console API takes, and revokes them all', async () => {
  await gridwire('topic', 'create', 'tenants');
  const create = (name: string, ...flags: string[]) =>
    gridwire(
      'subscription',
      'create',
      '--topic',
      'tenants',
      '--name',
      name,
      '--endpoint',
      webhook.url(`/${name}`),
      ...flags,
    );
  await create('acme-web', '--labels', 'tenant=acme,team=web');
  await create('acme-ops');
  await create('globex', '--labels', 'tenant=globex');
  expect(
    await gridwire(
      'subscription',
      'update',
      '--topic',
      'tenants',
      '--name',
      'acme-ops',
      '--labels',
      'tenant=acme',
      'team=ops',
    ),
  ).toMatch(/\nlabels: +tenant=acme, team=ops/);
  expect(await gridwire('subscription', 'list', '--topic', 'tenants')).toMatch(
    /^NAME .* LABELS\nacme-ops .* tenant=acme,team=ops\nacme-web .* tenant=acme,team=web\nglobex .* tenant=globex$/,
  );
  // The API holds labels to their limits too.
  const many = Array.from({ length: 21 }, (_, n) => `l${n}`);
  const refused = await api.call('PUT', '/admin/topics/tenants/eventSubscriptions/globex', {
    properties: {
      destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/globex') } },
      labels: many,
    },
  });
  expect([refused.status, refused.body.error.message]).toEqual([
    400,
    'properties.labels: at most 20 labels.',
  ]);

  const tokenOf = (printed: string) =>
    decodeURIComponent(/#token=(\S+)/.exec(printed)?.[1] ?? 'no link printed');
  const asSession = (token: string, path: string) =>
    api.call('GET', `/console/api${path}`, undefined, {
      auth: false,
      headers: { authorization: `Bearer ${token}` },
    });

  const operator = tokenOf(await gridwire('console', '--expires', '15m'));
  const session = await asSession(operator, '/session');
  expect(session.status).toBe(200);
  expect(session.body).toMatchObject({ role: 'operator' });

  const printed = await gridwire(
    'portal-link',
    '--topic',
    'tenants',
    '--label',
    'tenant=acme',
    '--permission',
    'pause',
  );
  expect(printed).toMatch(new RegExp(`^Portal +${api.stack.apiUrl}/portal#token=`));
  const portal = tokenOf(printed);
  expect((await asSession(portal, '/session')).body).toMatchObject({
    role: 'portal',
    branding: PORTAL_OPTIONS.portalBranding,
  });
  const listed = await asSession(portal, '/topics/tenants/eventSubscriptions');
  expect(listed.status).toBe(200);
  expect(listed.body.value.map((subscription: { name: string }) => subscription.name).sort()).toEqual([
    'acme-ops',
    'acme-web',
  ]);

  expect(await gridwire('sessions', 'revoke-all')).toMatch(
    /^Sessions revoked at \S+\. Every session made before now is refused\./,
  );
  expect((await asSession(operator, '/session')).status).toBe(401);
  expect((await asSession(portal, '/session')).status).toBe(401);
  // A new link works again.
  expect((await asSession(tokenOf(await gridwire('console')), '/session')).status).toBe(200);
  expect(await gridwire('topic', 'delete', 'tenants')).toBe('Deleted topic tenants.');
});

it("serves the portal under the stack's frame ancestors and logo origin, the console never framed", async () => {
  const policyOf = async (path: string) => {
    const answer = await fetch(`${api.stack.apiUrl}${path}`);
    expect(answer.status).toBe(200);
    return answer.headers.get('content-security-policy') ?? '';
  };
  const portal = await policyOf('/portal');
  expect(portal).toContain('frame-ancestors https://app.example.com https://*.example.net');
  expect(portal).toMatch(/img-src [^;]*https:\/\/cdn\.example\.com/);
  const consolePolicy = await policyOf('/console');
  expect(consolePolicy).toContain("frame-ancestors 'none'");
  expect(consolePolicy).not.toContain('cdn.example.com');
});

it('deletes subscriptions and topics, and says so when there was none', async () => {
  expect(await gridwire('subscription', 'delete', '--topic', 'orders', '--name', 'billing')).toBe(
    'Deleted topic orders, subscription billing.',
  );
  expect(await gridwire('subscription', 'delete', '--topic', 'orders', '--name', 'billing')).toBe(
    'There was no topic orders, subscription billing.',
  );
  await expect(gridwire('subscription', 'show', '--topic', 'orders', '--name', 'billing')).rejects.toThrow(
    'no topic orders, subscription billing',
  );
  expect(await gridwire('topic', 'delete', 'orders')).toBe('Deleted topic orders.');
  expect(await json('topic', 'list')).not.toContainEqual(expect.objectContaining({ name: 'orders' }));
});

describe('the gridwire binary', () => {
  const run = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/gridwire.ts', ...args], {
      cwd: resolve(__dirname, '../..'),
      timeout: 20_000,
    });

  it('prints its version', async () => {
    expect((await run('--version')).stdout.trim()).toBe(gridwireVersion());
  }, 25_000);

  it('ends an expected error with one line and exit code 1, and names a missing required option', async () => {
    const failed = await run(
      'publish',
      '--topic',
      'nope',
      '--event-type',
      'A',
      '--subject',
      's',
      '--data-dir',
      api.stack.dataDir,
    ).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe("gridwire: no topic named 'nope' (gridwire topic list shows them)\n");

    const missing = await run(
      'subscription',
      'create',
      '--topic',
      'orders',
      '--name',
      'x',
      '--data-dir',
      api.stack.dataDir,
    ).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(missing?.code).toBe(1);
    // A webhook or an AWS resource: one of the two options is needed.
    expect(missing?.stderr).toBe(
      'gridwire: give --endpoint (a webhook) or --resource-arn (an AWS resource)\n',
    );
  }, 45_000);

  it('says a port is taken in one line instead of a stack trace', async () => {
    const port = new URL(webhook.url('/any')).port;
    const failed = await run('webhook', '--port', port).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe(
      `gridwire: port ${port} on 127.0.0.1 is already in use; pick another with --port\n`,
    );
  }, 25_000);
});

/**
 * `gridwire deadletters list|show|replay` against the real local stack: a dead-letter blob in
 * the emulated bucket is listed and read through the management API, then replayed to the
 * subscription's webhook as a new delivery of the exact event text, and marked replayed.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { type ApiTarget, localApiTarget } from '../../../cli/admin-api';
import {
  formatBlob,
  listDeadLetterPage,
  listDeadLetters,
  type ReplayIo,
  replayDeadLetters,
  showDeadLetters,
} from '../../../cli/deadletters';
import {
  deadLetterBlob,
  deadLetterKey,
  deadLetterRecord,
} from '../../../shared/delivery/rules/dead-letter-layout';
import { createAwsClients } from '../../../shared/platform/aws';
import { DeadLetterBucket, replayedMarkerKey } from '../../../shared/storage/dead-letter-bucket';
import type { TestStack } from '../../support/local-stack';
import { sharedTestStack } from '../../support/shared-stack';
import { eventually, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let target: ApiTarget;
let bucket: DeadLetterBucket;

const ref = { topic: 'dlorders', subscription: 'Keeper' };
/** The event as it was delivered before it was dead-lettered, with a number beyond double precision. */
const eventJson =
  '{"id":"dl-1","topic":"/gridwire/topics/dlorders","subject":"orders/1","eventType":"Order.Created","eventTime":"2026-11-22T09:00:00Z","data":{"big":9007199254740993,"price":1.50},"dataVersion":"1.0","metadataVersion":"1"}';
let key: string;

/** No terminal: nothing to ask, no waiting beyond the real clock. */
const io = (): ReplayIo & { lines: string[] } => {
  const lines: string[] = [];
  return {
    lines,
    interactive: false,
    confirm: async () => false,
    progress: () => {},
    progressDone: () => {},
    log: (line) => lines.push(line),
    sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
    now: () => Date.now(),
  };
};

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  await api.createTopic(ref.topic);
  await api.subscribe(ref.topic, ref.subscription, webhook.url('/kept'), {
    deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
  });
  bucket = new DeadLetterBucket(api.stack.clients.s3, api.stack.resources.bucketName);
  const writtenAt = Date.now();
  key = deadLetterKey('dead', { kind: 'topic', subscription: ref.subscription }, writtenAt, 'blob-1');
  await bucket.put(
    key,
    deadLetterBlob([
      deadLetterRecord('EventGridSchema', eventJson, {
        reason: 'MaxDeliveryAttemptsExceeded',
        deliveryAttempts: 3,
        lastDeliveryOutcome: 'GenericError',
        publishTime: writtenAt - 60_000,
        lastDeliveryAttemptTime: writtenAt - 1000,
      }),
    ]),
  );
  target = await localApiTarget(api.stack.dataDir);
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

it('lists and shows the blob through the management API', async () => {
  const listed = await listDeadLetters(target, ref);
  expect(listed).toEqual([
    { key, writtenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), bytes: expect.any(Number) },
  ]);
  expect(await listDeadLetters(target, { ...ref, until: '2000-01-01T00:00:00Z' })).toEqual([]);
  await expect(listDeadLetters(target, { ...ref, since: 'yesterday' })).rejects.toThrow(
    /HTTP 400: since: must be an ISO 8601 time/,
  );

  const blob = await showDeadLetters(target, { ...ref, key });
  expect(blob.key).toBe(key);
  expect(blob.records).toHaveLength(1);
  expect(blob.records[0]).toContain('"big":9007199254740993,"price":1.50');
  expect(blob.records[0]).toContain('"deadLetterReason":"MaxDeliveryAttemptsExceeded"');
  await expect(showDeadLetters(target, { ...ref, key: 'dead/OTHER/x.json' })).rejects.toThrow(
    /HTTP 400: key: /,
  );
});

it('replays the event to the webhook as a new first delivery, then skips the replayed blob', async () => {
  const first = io();
  const summary = await replayDeadLetters(target, ref, first);
  expect(summary).toEqual({
    dryRun: false,
    blobs: [key],
    events: 1,
    skipped: [],
    missing: [],
    failed: [],
    unmarked: [],
    busy: [],
  });

  const request = await eventually(() => webhook.requestsTo('/kept')[0], 5_000, 'the replayed delivery');
  expect(request.headers['aeg-delivery-count']).toBe('0');
  expect(request.headers['aeg-output-event-id']).toBe('dl-1');
  // Marked as a resend, of the dead letter it came from.
  expect(request.headers['gridwire-resend-of']).toBe(`deadletter:${key}`);
  expect(request.body).toBe(`[${eventJson}]`);

  const listed = await listDeadLetters(target, ref);
  expect(listed[0]?.replayedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect((await showDeadLetters(target, { ...ref, key })).replayedAt).toBe(listed[0]?.replayedAt);

  // Again, without --yes and no terminal to ask: refused, nothing sent.
  await expect(replayDeadLetters(target, ref, io())).rejects.toThrow(/was replayed before; pass --yes/);
  // The API on its own skips it and says so.
  const answer = await api.call(
    'POST',
    `/admin/topics/${ref.topic}/eventSubscriptions/${ref.subscription}/deadLetters/replay`,
    { keys: [key] },
  );
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ eventsQueued: 0, blobsSkipped: 1, skippedKeys: [key] });
  // A delivery queued anyway would reach the webhook well within this.
  await new Promise((done) => setTimeout(done, 1000));
  expect(webhook.requestsTo('/kept')).toHaveLength(1);
});

it('answers 400 naming the field for a subscription without dead letters and a bad reason', async () => {
  await api.subscribe(ref.topic, 'plain', webhook.url('/plain'));
  const none = await api.call('GET', `/admin/topics/${ref.topic}/eventSubscriptions/plain/deadLetters`);
  expect(none.status).toBe(400);
  expect(none.body.error.message).toMatch(/^properties\.deadLetterDestination: /);
  const reason = await api.call(
    'POST',
    `/admin/topics/${ref.topic}/eventSubscriptions/${ref.subscription}/deadLetters/replay`,
    { reason: 'Nope' },
  );
  expect(reason.status).toBe(400);
  expect(reason.body.error.message).toMatch(/^reason: must be one of/);
});

it('runs from the command line against the local stack', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      'bin/gridwire.ts',
      'deadletters',
      'list',
      '--topic',
      ref.topic,
      '--subscription',
      ref.subscription,
      '--data-dir',
      api.stack.dataDir,
      '--json',
    ],
    { cwd: resolve(__dirname, '../../..'), timeout: 15_000 },
  );
  expect(JSON.parse(stdout)).toEqual([
    expect.objectContaining({ key, replayedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }),
  ]);
}, 20_000);

it("lists a namespace subscription's dead letters from the command line with --namespace", async () => {
  expect((await api.call('PUT', '/admin/namespaces/dlshop', {})).status).toBe(201);
  expect((await api.call('PUT', '/admin/namespaces/dlshop/topics/dlorders', { properties: {} })).status).toBe(
    201,
  );
  const subscribed = await api.call(
    'PUT',
    '/admin/namespaces/dlshop/topics/dlorders/eventSubscriptions/keeper',
    {
      properties: {
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/ns-kept') } },
            deadLetterDestinationWithResourceIdentity: {
              deadLetterDestination: {
                endpointType: 'StorageBlob',
                properties: { blobContainerName: 'dead' },
              },
            },
          },
        },
      },
    },
  );
  expect(subscribed.status).toBe(201);
  const scope = {
    kind: 'namespace',
    namespace: 'dlshop',
    topic: 'dlorders',
    subscription: 'keeper',
  } as const;
  const nsKey = deadLetterKey('dead', scope, Date.now(), 'ns-blob-1');
  await bucket.put(nsKey, deadLetterBlob([]));

  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      'bin/gridwire.ts',
      'deadletters',
      'list',
      '--namespace',
      'dlshop',
      '--topic',
      'dlorders',
      '--subscription',
      'keeper',
      '--data-dir',
      api.stack.dataDir,
    ],
    { cwd: resolve(__dirname, '../../..'), timeout: 15_000 },
  );
  expect(stdout.split('\n').slice(0, 2)).toEqual([
    '1 dead-letter blob of namespace dlshop, topic dlorders, subscription keeper, newest first:',
    `  ${nsKey}`,
  ]);
  // The classic subscription of the same topic name is another one.
  expect((await listDeadLetters(target, ref)).map((blob) => blob.key)).not.toContain(nsKey);
}, 20_000);

it('replays the records of the reasons asked for, and records the reasons replayed in the marker', async () => {
  const writtenAt = Date.now();
  const record = (id: string, topic: string, reason: 'MaxDeliveryAttemptsExceeded' | 'NonRetriableOutcome') =>
    deadLetterRecord(
      'EventGridSchema',
      eventJson.replace('"dl-1"', `"${id}"`).replace('/dlorders"', `/${topic}"`),
      {
        reason,
        deliveryAttempts: 1,
        publishTime: writtenAt - 60_000,
      },
    );
  const mixed = deadLetterKey('dead', { kind: 'topic', subscription: ref.subscription }, writtenAt, 'blob-2');
  await bucket.put(
    mixed,
    deadLetterBlob([
      record('dl-2', 'dlorders', 'MaxDeliveryAttemptsExceeded'),
      record('dl-3', 'dlorders', 'NonRetriableOutcome'),
    ]),
    ref.topic,
  );
  const route = `/admin/topics/${ref.topic}/eventSubscriptions/${ref.subscription}/deadLetters/replay`;

  const first = await api.call('POST', route, { keys: [mixed], reason: 'MaxDeliveryAttemptsExceeded' });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ eventsQueued: 1, otherTopic: 0, blobsFailed: 0, unmarkedKeys: [] });
  const marker = JSON.parse((await bucket.get(replayedMarkerKey(mixed))) ?? '{}');
  expect(marker).toEqual({ at: expect.stringMatching(/^\d{4}-/), reasons: ['MaxDeliveryAttemptsExceeded'] });

  // Another reason was never replayed: no --yes needed, and only its record goes.
  const summary = await replayDeadLetters(
    target,
    { ...ref, keys: [mixed], reasons: ['NonRetriableOutcome'] },
    io(),
  );
  expect(summary).toMatchObject({ blobs: [mixed], events: 1, failed: [], unmarked: [] });
  await eventually(
    () => (webhook.requestsTo('/kept').length >= 3 ? true : undefined),
    5_000,
    'the replayed deliveries',
  );
  // A record replayed twice would come with the others: give it well enough time to show.
  await new Promise((done) => setTimeout(done, 1000));
  const ids = webhook.requestsTo('/kept').map((request) => JSON.parse(request.body)[0].id);
  expect(ids.sort()).toEqual(['dl-1', 'dl-2', 'dl-3']);
  expect(JSON.parse((await bucket.get(replayedMarkerKey(mixed))) ?? '{}').reasons).toEqual([
    'MaxDeliveryAttemptsExceeded',
    'NonRetriableOutcome',
  ]);

  // A marker of the older kind (just the time) still reads, as every reason.
  await bucket.put(replayedMarkerKey(mixed), '2026-11-22T10:00:00.000Z');
  expect((await showDeadLetters(target, { ...ref, key: mixed })).replayedAt).toBe('2026-11-22T10:00:00.000Z');
  const again = await api.call('POST', route, { keys: [mixed], reason: 'NonRetriableOutcome' });
  expect(again.body).toMatchObject({ eventsQueued: 0, skippedKeys: [mixed] });
});

it('shows a dead letter stored before the nesting limit held in binary mode (100,000 levels deep) without failing', async () => {
  const deepRef = { topic: ref.topic, subscription: 'DeepKeeper' };
  await api.subscribe(deepRef.topic, deepRef.subscription, webhook.url('/deep'), {
    deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
  });
  const levels = 100_000;
  const deepEvent = eventJson.replace(
    '"data":{"big":9007199254740993,"price":1.50}',
    `"data":${'['.repeat(levels)}${']'.repeat(levels)}`,
  );
  const writtenAt = Date.now();
  const deepKey = deadLetterKey(
    'dead',
    { kind: 'topic', subscription: deepRef.subscription },
    writtenAt,
    'deep-1',
  );
  await bucket.put(
    deepKey,
    deadLetterBlob([
      deadLetterRecord('EventGridSchema', deepEvent, {
        reason: 'MaxDeliveryAttemptsExceeded',
        deliveryAttempts: 3,
        lastDeliveryOutcome: 'GenericError',
        publishTime: writtenAt - 60_000,
        lastDeliveryAttemptTime: writtenAt - 1000,
      }),
    ]),
  );
  const blob = await showDeadLetters(target, { ...deepRef, key: deepKey });
  expect(blob.records).toHaveLength(1);
  const shown = formatBlob(blob).split('\n');
  expect(shown[2]).toBe(
    `Record 1 of 1 nested ${levels + 1} levels deep (publishing allows 100), so printed as stored, not indented:`,
  );
  expect(shown[3]).toBe(blob.records[0]);
  expect(shown[3]).toContain('"deadLetterReason":"MaxDeliveryAttemptsExceeded"');
}, 30_000);

it('keeps two topics’ subscriptions of the same name in one container apart: list, show and replay', async () => {
  const other = { topic: 'dlbilling', subscription: 'keeper' };
  await api.createTopic(other.topic);
  await api.subscribe(other.topic, other.subscription, webhook.url('/billing'), {
    deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
  });
  const writtenAt = Date.now();
  const billingEvent = (id: string) =>
    eventJson
      .replace('"dl-1"', `"${id}"`)
      .replace('/dlorders"', '/dlbilling"')
      .replace('9007199254740993', '"b-secret"');
  const facts = {
    reason: 'MaxDeliveryAttemptsExceeded',
    deliveryAttempts: 1,
    publishTime: writtenAt,
  } as const;
  const scope = { kind: 'topic', subscription: other.subscription } as const;
  // One blob stamped by the writer, one from before stamps: both under dead/KEEPER/.
  const stamped = deadLetterKey('dead', scope, writtenAt, 'billing-1');
  const unstamped = deadLetterKey('dead', scope, writtenAt, 'billing-2');
  await bucket.put(
    stamped,
    deadLetterBlob([deadLetterRecord('EventGridSchema', billingEvent('b-1'), facts)]),
    'dlbilling',
  );
  await bucket.put(
    unstamped,
    deadLetterBlob([deadLetterRecord('EventGridSchema', billingEvent('b-2'), facts)]),
  );

  const ordersRoute = `/admin/topics/${ref.topic}/eventSubscriptions/${ref.subscription}/deadLetters`;
  const billingRoute = `/admin/topics/${other.topic}/eventSubscriptions/${other.subscription}/deadLetters`;
  const ordersList = await api.call('GET', ordersRoute);
  expect(ordersList.status).toBe(200);
  expect(JSON.stringify(ordersList.body)).not.toContain('billing-');
  const billingList = await api.call('GET', billingRoute);
  expect((billingList.body as { value: { key: string }[] }).value.map((blob) => blob.key).sort()).toEqual(
    [stamped, unstamped].sort(),
  );

  for (const blob of [stamped, unstamped]) {
    const shown = await api.call('GET', `${ordersRoute}/blob?key=${encodeURIComponent(blob)}`);
    expect(shown.status).toBe(404);
    expect(JSON.stringify(shown.body)).not.toContain('b-secret');
    const own = await api.call('GET', `${billingRoute}/blob?key=${encodeURIComponent(blob)}`);
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.body)).toContain('b-secret');
  }

  const replayed = await api.call('POST', `${ordersRoute}/replay`, {
    keys: [stamped, unstamped],
    force: true,
  });
  expect(replayed.status).toBe(200);
  expect(replayed.body).toMatchObject({ eventsQueued: 0, notFound: [stamped, unstamped].sort(), blobs: [] });
  expect(await bucket.get(replayedMarkerKey(stamped))).toBeUndefined();

  const own = await api.call('POST', `${billingRoute}/replay`, { keys: [stamped, unstamped] });
  expect(own.body).toMatchObject({ eventsQueued: 2, notFound: [], blobsFailed: 0 });
  await eventually(
    () => (webhook.requestsTo('/billing').length >= 2 ? true : undefined),
    15_000,
    'the billing replays',
  );
  expect(
    webhook
      .requestsTo('/billing')
      .map((request) => JSON.parse(request.body)[0].id)
      .sort(),
  ).toEqual(['b-1', 'b-2']);
}, 40_000);

describe('listing a long history', () => {
  const pager = { topic: ref.topic, subscription: 'Pager' };
  const scope = { kind: 'topic', subscription: 'Pager' } as const;
  const HOUR = 3_600_000;
  const now = Date.now();
  const hourOf = (at: number) => at - (at % HOUR);
  /** The newest hour holds 105 blobs, then one an hour back, a day back, 40 days and 400 days. */
  const older = [HOUR, 26 * HOUR, 40 * 24 * HOUR, 400 * 24 * HOUR];

  beforeAll(async () => {
    await api.subscribe(ref.topic, pager.subscription, webhook.url('/pager'), {
      deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
    });
    const blob = deadLetterBlob([]);
    const keys = [
      ...Array.from({ length: 105 }, (_, n) => deadLetterKey('dead', scope, now, `newest-${n}`)),
      ...older.map((back) => deadLetterKey('dead', scope, now - back, `back-${back}`)),
    ];
    for (const key of keys) await bucket.put(key, blob, ref.topic);
  }, 60_000);

  it('walks the hour folders newest first, reaching the newest with four listings whatever lies behind', async () => {
    const clients = createAwsClients(api.stack.endpoints);
    let listings = 0;
    clients.s3.middlewareStack.add(
      (next) => async (args) => {
        listings += 1;
        return next(args);
      },
      { step: 'initialize' },
    );
    const counted = new DeadLetterBucket(clients.s3, api.stack.resources.bucketName);
    const folders = counted.hourFolders('dead/PAGER/');
    const first = await folders.next();
    expect(first.value).toEqual({
      prefix: expect.stringMatching(/^dead\/PAGER\/\d{4}\/\d+\/\d+\/\d+\/$/),
      hourStart: hourOf(now),
    });
    // Years, months of the newest year, days of its newest month, hours of its newest day.
    expect(listings).toBe(4);
    const rest: number[] = [];
    for await (const folder of folders) rest.push(folder.hourStart);
    expect(rest).toEqual(older.map((back) => hourOf(now - back)));
    clients.s3.destroy();
  });

  it('answers the newest page through the API, and the next from its token', async () => {
    const first = await listDeadLetterPage(target, pager);
    expect(first.blobs).toHaveLength(105);
    expect(first.blobs.every((blob) => blob.key.includes('/newest-'))).toBe(true);
    expect(first.nextPage).toBe(new Date(hourOf(now)).toISOString());
    const second = await listDeadLetterPage(target, { ...pager, page: first.nextPage as string });
    expect(second.blobs.map((blob) => blob.key)).toEqual(
      older.map((back) => expect.stringContaining(`/back-${back}.json`)),
    );
    expect(second.nextPage).toBeUndefined();
    // Every page in turn: all of them, newest first.
    expect(await listDeadLetters(target, pager)).toHaveLength(109);
  });
});

it('never replays a blob twice when two replays of the same blobs run at once', async () => {
  const racer = { topic: ref.topic, subscription: 'Racer' };
  await api.subscribe(racer.topic, racer.subscription, webhook.url('/racer'), {
    deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
  });
  const writtenAt = Date.now();
  const scope = { kind: 'topic', subscription: racer.subscription } as const;
  const keys: string[] = [];
  for (let n = 0; n < 20; n += 1) {
    const key = deadLetterKey('dead', scope, writtenAt, `race-${n}`);
    const event = eventJson.replace('"dl-1"', `"race-${n}"`);
    await bucket.put(
      key,
      deadLetterBlob([
        deadLetterRecord('EventGridSchema', event, {
          reason: 'MaxDeliveryAttemptsExceeded',
          deliveryAttempts: 3,
          publishTime: writtenAt - 60_000,
        }),
      ]),
      ref.topic,
    );
    keys.push(key);
  }
  const route = `/admin/topics/${racer.topic}/eventSubscriptions/${racer.subscription}/deadLetters/replay`;

  const answers = await Promise.all([api.call('POST', route, { keys }), api.call('POST', route, { keys })]);

  expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
  // Each blob's one event was queued by exactly one of the two calls; the other left it alone.
  expect(answers[0]?.body.eventsQueued + answers[1]?.body.eventsQueued).toBe(20);
  for (const answer of answers) expect(answer.body.blobsFailed).toBe(0);
  await eventually(
    () => new Set(webhook.requestsTo('/racer').map((request) => JSON.parse(request.body)[0].id)).size === 20,
    15_000,
    'every replayed event at the webhook',
  );
  // Done: a third replay finds every blob marked, and the claims gone.
  const third = await api.call('POST', route, { keys });
  expect(third.body).toMatchObject({ eventsQueued: 0, blobsSkipped: 20, replayingElsewhereKeys: [] });
}, 30_000);

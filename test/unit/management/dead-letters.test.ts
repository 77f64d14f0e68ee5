import {
  type DeadLetterFacts,
  deadLetterBlob,
  deadLetterKey,
  deadLetterRecord,
} from '../../../shared/delivery/rules/dead-letter-layout';
import type { DeadLetterReason, Subscription } from '../../../shared/domain/model';
import { ApiError } from '../../../shared/http/errors';
import {
  blobDocumentText,
  blobOfTopic,
  DeadLetterService,
  listDocument,
  MAX_REPLAY_BLOBS,
  parseReplayRequest,
  parseTime,
  parseWindow,
  type ReplayRequest,
  recordOfTopic,
  replayDocument,
  replayItem,
  type TimeWindow,
} from '../../../shared/management/dead-letters';
import { METRIC, MetricBuffer } from '../../../shared/observability/metrics';
import { parseReplayMarker, replayMarkerText } from '../../../shared/storage/dead-letter-bucket';
import { RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { MemoryDeadLetterBucket } from '../../support/memory-dead-letter-bucket';
import { MemoryReplayClaims } from '../../support/memory-stores';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const HOUR = 3_600_000;
// Created before every blob of these tests but a predecessor's: its unstamped blobs are its own.
const sub = subscription({
  uid: 'uid-1',
  version: 42,
  name: 'Audit',
  deadLetter: { container: 'dead' },
  createdAt: '2025-01-01T00:00:00.000Z',
});
const scope = { kind: 'topic', subscription: 'Audit' } as const;
const facts = (reason: DeadLetterReason): DeadLetterFacts => ({
  reason,
  deliveryAttempts: 3,
  lastDeliveryOutcome: 'GenericError',
  publishTime: T0 - HOUR,
  lastDeliveryAttemptTime: T0 - 1000,
});
/** An event as delivered: compact text with a number beyond double precision. */
const eventJson = (id: string, topic = 'orders') =>
  `{"id":${JSON.stringify(id)},"topic":${JSON.stringify(`/gridwire/topics/${topic}`)},"subject":"orders/1","eventType":"Order.Created","eventTime":"2026-11-22T09:00:00Z","data":{"big":9007199254740993,"price":1.50},"dataVersion":"2.0","metadataVersion":"1"}`;

function harness() {
  const clock = new VirtualClock(T0 + 5 * HOUR);
  const bucket = new MemoryDeadLetterBucket();
  const queue = new RecordingQueue(clock);
  const claims = new MemoryReplayClaims();
  let ids = 0;
  const service = new DeadLetterService({
    bucket,
    queue,
    clock,
    claims,
    newId: () => {
      ids += 1;
      return `call${ids}`;
    },
  });
  /**
   * Writes a blob of records (event id, reason and, if not `orders`, topic each) at `writtenAt`,
   * stamped with `stamp` (`null`: no stamp, as written before stamps); returns its key.
   */
  const put = (
    writtenAt: number,
    records: Array<[string, DeadLetterReason] | [string, DeadLetterReason, string]>,
    name = String(writtenAt),
    stamp: string | null = 'orders',
    uid?: string,
  ) => {
    const key = deadLetterKey('dead', scope, writtenAt, name);
    const text = deadLetterBlob(
      records.map(([id, reason, topic]) =>
        deadLetterRecord('EventGridSchema', eventJson(id, topic), facts(reason)),
      ),
    );
    bucket.blobs.set(key, {
      text,
      writtenAt,
      ...(stamp === null ? {} : { topic: stamp }),
      ...(uid === undefined ? {} : { uid }),
    });
    return key;
  };
  return { clock, bucket, queue, claims, service, put };
}

/** The subscription's blobs as the listing's first page holds them (these tests have few). */
const listed = async (service: DeadLetterService, of: Subscription, window: TimeWindow = {}) =>
  (await service.listPage(of, window)).entries;

const request = (overrides: Partial<ReplayRequest> = {}): ReplayRequest => ({
  window: {},
  dryRun: false,
  force: false,
  ...overrides,
});

const apiError = async (promise: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected an ApiError');
};

describe("a predecessor's dead letters (a subscription of the same name, deleted since)", () => {
  it('are not listed, shown or replayed for its successor: the uid stamped on a blob, else when it was written, decide', async () => {
    const { service, put, queue } = harness();
    const successor = { ...sub, uid: 'uid-2', createdAt: new Date(T0).toISOString() };
    const predecessors = put(
      T0 + HOUR,
      [['card-1', 'MaxDeliveryAttemptsExceeded']],
      'gone',
      'orders',
      'uid-1',
    );
    const unstampedOlder = put(T0 - HOUR, [['card-2', 'MaxDeliveryAttemptsExceeded']], 'older');
    const own = put(T0 + 2 * HOUR, [['mine', 'MaxDeliveryAttemptsExceeded']], 'own', 'orders', 'uid-2');
    const unstampedNewer = put(T0 + 3 * HOUR, [['mine-2', 'MaxDeliveryAttemptsExceeded']], 'newer');
    expect((await listed(service, successor)).map((entry) => entry.key)).toEqual([unstampedNewer, own]);
    for (const key of [predecessors, unstampedOlder]) {
      expect((await apiError(service.show(successor, key))).statusCode).toBe(404);
    }
    const report = await service.replay(successor, request({ keys: [predecessors, unstampedOlder, own] }));
    expect(report.notFound).toEqual([predecessors, unstampedOlder]);
    expect(report.eventsQueued).toBe(1);
    expect(queue.sent.flatMap((sent) => sent.job.body.match(/card-\d/g) ?? [])).toEqual([]);
    // The predecessor itself (say, read before its delete) still owns its blob.
    expect((await listed(service, sub)).map((entry) => entry.key)).toContain(predecessors);
  });
});

describe('listing', () => {
  it('pages through whole hour folders, newest first, reading only the folders of each page', async () => {
    const { service, bucket, put } = harness();
    // Two blobs an hour for six hours, and one a year earlier.
    const keys = [0, 1, 2, 3, 4, 5].flatMap((hour) => [
      put(T0 + hour * HOUR, [[`a${hour}`, 'MaxDeliveryAttemptsExceeded']], `a${hour}`),
      put(T0 + hour * HOUR + 60_000, [[`b${hour}`, 'MaxDeliveryAttemptsExceeded']], `b${hour}`),
    ]);
    const old = put(T0 - 365 * 24 * HOUR, [['old', 'TimeToLiveExceeded']], 'old');
    const hourOf = (at: number) => at - (at % HOUR);

    const first = await service.listPage(sub, {}, { size: 3 });
    // Whole folders: the newest two hours (four blobs), the next page from below the second.
    expect(first.entries.map((entry) => entry.key)).toEqual([keys[11], keys[10], keys[9], keys[8]]);
    expect(first.nextPage).toBe(hourOf(T0 + 4 * HOUR));
    // Only the page's two folders were listed, not the subscription's whole prefix.
    const folderOf = (at: number) => deadLetterKey('dead', scope, at, 'x').replace(/x\.json$/, '');
    expect(bucket.listed).toEqual([folderOf(T0 + 5 * HOUR), folderOf(T0 + 4 * HOUR)]);

    const second = await service.listPage(sub, {}, { size: 3, after: first.nextPage });
    expect(second.entries.map((entry) => entry.key)).toEqual([keys[7], keys[6], keys[5], keys[4]]);
    const rest = await service.listPage(sub, {}, { size: 100, after: second.nextPage });
    expect(rest.entries.map((entry) => entry.key)).toEqual([keys[3], keys[2], keys[1], keys[0], old]);
    expect(rest.nextPage).toBeUndefined();
    expect(listDocument(first.entries, first.nextPage).nextPage).toBe(
      new Date(hourOf(T0 + 4 * HOUR)).toISOString(),
    );

    // The window bounds the folders and the blobs: nothing before since, nothing from until.
    const window = await service.listPage(sub, { since: T0 + HOUR, until: T0 + 2 * HOUR + 1 });
    expect(window.entries.map((entry) => entry.key)).toEqual([keys[4], keys[3], keys[2]]);
    expect(window.nextPage).toBeUndefined();
  });

  it('lists the blobs in the window, newest first, with when each was replayed', async () => {
    const { service, bucket, put } = harness();
    const a = put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    const b = put(T0 + HOUR, [['e2', 'MaxDeliveryAttemptsExceeded']]);
    const c = put(T0 + 2 * HOUR, [['e3', 'MaxDeliveryAttemptsExceeded']]);
    bucket.blobs.set('dead/OTHER/2026/11/22/10/x.json', { text: '[]', writtenAt: T0 });
    bucket.markAll(b, T0 + 3 * HOUR);

    expect((await listed(service, sub)).map((entry) => entry.key)).toEqual([c, b, a]);
    const window = await listed(service, sub, { since: T0 + HOUR, until: T0 + 2 * HOUR });
    expect(window).toEqual([
      { key: b, writtenAt: T0 + HOUR, bytes: expect.any(Number), replayedAt: T0 + 3 * HOUR },
    ]);
    expect(listDocument(window)).toEqual({
      value: [
        {
          key: b,
          writtenAt: '2026-11-22T11:00:00.000Z',
          bytes: window[0]?.bytes,
          replayedAt: '2026-11-22T13:00:00.000Z',
        },
      ],
    });
  });

  it('refuses a subscription without a dead-letter destination, naming the field', async () => {
    const { service } = harness();
    const { deadLetter: _, ...without } = sub;
    const error = await apiError(service.listPage(without));
    expect(error.statusCode).toBe(400);
    expect(error.message).toMatch(
      /^properties\.deadLetterDestination: .*'Audit' has no dead-letter destination/,
    );
  });
});

describe('showing a blob', () => {
  it('answers the records exactly as stored', async () => {
    const { service, bucket, put } = harness();
    const key = put(T0, [
      ['e1', 'MaxDeliveryAttemptsExceeded'],
      ['e2', 'NonRetriableOutcome'],
    ]);
    bucket.markAll(key, T0 + HOUR);
    const blob = await service.show(sub, key);
    expect(blob.records).toHaveLength(2);
    expect(blob.records[0]).toContain('"big":9007199254740993,"price":1.50');
    const text = blobDocumentText(blob);
    expect(text).toBe(
      `{"key":${JSON.stringify(key)},"replayedAt":"2026-11-22T11:00:00.000Z","records":[${blob.records.join(',')}]}`,
    );
    expect(`[${blob.records.join(',')}]`).toBe(bucket.blobs.get(key)?.text);
    expect(JSON.parse(text).records[1].deadLetterReason).toBe('NonRetriableOutcome');
  });

  it('refuses keys of other subscriptions and answers 404 for a missing blob, 422 for a broken one', async () => {
    const { service, bucket } = harness();
    const other = await apiError(service.show(sub, 'dead/OTHER/2026/11/22/10/x.json'));
    expect(other.statusCode).toBe(400);
    expect(other.message).toMatch(
      /^key: 'dead\/OTHER\/.*' is not a dead-letter blob of this event subscription/,
    );
    expect((await apiError(service.show(sub, 'dead/AUDIT/x.json.replayed'))).statusCode).toBe(400);
    // Only keys of the layout: <prefix><yyyy>/<M>/<d>/<H>/<name>.json.
    expect((await apiError(service.show(sub, 'dead/AUDIT/2026/x.json'))).statusCode).toBe(400);
    expect(
      (await apiError(service.show(sub, 'dead/AUDIT/shop/orders/audit/2026/1/2/3/x.json'))).statusCode,
    ).toBe(400);
    const missing = await apiError(service.show(sub, 'dead/AUDIT/2026/11/22/10/missing.json'));
    expect(missing.statusCode).toBe(404);
    const broken = 'dead/AUDIT/2026/11/22/10/broken.json';
    bucket.blobs.set(broken, { text: '{"not":"an array"}', writtenAt: T0, topic: 'orders' });
    expect((await apiError(service.show(sub, broken))).statusCode).toBe(422);
  });
});

describe('replay', () => {
  it('leaves alone a blob another replay call holds, and claims and releases the others', async () => {
    const { service, queue, claims, clock, put } = harness();
    const held = put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']], 'held');
    const free = put(T0 + HOUR, [['e2', 'MaxDeliveryAttemptsExceeded']], 'free');
    await claims.claim(held, 'another-call', clock.now(), clock.now() + 60_000);
    const claimed: string[] = [];
    const claim = claims.claim.bind(claims);
    claims.claim = async (key, owner, now, until) => {
      claimed.push(key);
      return claim(key, owner, now, until);
    };

    const report = await service.replay(sub, request());

    expect(report).toMatchObject({
      eventsQueued: 1,
      blobsSkipped: 1,
      skippedKeys: [held],
      replayingElsewhereKeys: [held],
    });
    expect(report.blobs.find((blob) => blob.key === held)).toEqual({
      key: held,
      queued: 0,
      skipped: true,
      replayingElsewhere: true,
    });
    expect(queue.take().flatMap((sent) => sent.job.items.map((item) => item.eventId))).toEqual(['e2']);
    expect(claimed.sort()).toEqual([free, held].sort());
    // Its own claim is given up once the blob is marked; the other call's stays.
    expect([...claims.claims.keys()]).toEqual([held]);
    // A dry run claims nothing.
    claimed.length = 0;
    await service.replay(sub, request({ dryRun: true, force: true }));
    expect(claimed).toEqual([]);
  });

  it('queues each record as a new delivery: original id and text, attempts 0, published now, current uid and version', async () => {
    const { service, queue, bucket, clock, put } = harness();
    const key = put(T0, [
      ['e1', 'MaxDeliveryAttemptsExceeded'],
      ['e2', 'TimeToLiveExceeded'],
    ]);
    const report = await service.replay(sub, request());
    expect(report).toEqual({
      dryRun: false,
      blobsSelected: 1,
      recordsMatched: 2,
      eventsQueued: 2,
      blobsSkipped: 0,
      skippedKeys: [],
      notFound: [],
      otherTopic: 0,
      blobsFailed: 0,
      failedKeys: [],
      unmarkedKeys: [],
      replayingElsewhereKeys: [],
      notStarted: [],
      blobs: [{ key, records: 2, matched: 2, queued: 2, marked: true, skipped: false }],
    });
    const sent = queue.take();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.queue).toBe('delivery');
    expect(sent[0]?.delaySeconds).toBe(0);
    expect(sent[0]?.job.target).toMatchObject({
      topic: { name: 'orders' },
      subscription: 'Audit',
      uid: 'uid-1',
      version: 42,
    });
    expect(sent[0]?.job.dueAt).toBeUndefined();
    expect(sent[0]?.job.items).toEqual([
      {
        deliveryId: 'replay-call1.1',
        eventId: 'e1',
        dataVersion: '2.0',
        eventJson: eventJson('e1'),
        attempts: 0,
        publishedAt: clock.now(),
        resendOf: `deadletter:${key}`,
      },
      {
        deliveryId: 'replay-call1.2',
        eventId: 'e2',
        dataVersion: '2.0',
        eventJson: eventJson('e2'),
        attempts: 0,
        publishedAt: clock.now(),
        resendOf: `deadletter:${key}`,
      },
    ]);
    expect(sent[0]?.job.items[0]?.eventJson).toContain('9007199254740993');
    expect(bucket.markerOf(key)).toEqual({
      at: clock.now(),
      reasons: ['MaxDeliveryAttemptsExceeded', 'TimeToLiveExceeded'],
    });
  });

  it('selects blobs by since/until, and records by reason', async () => {
    const { service, queue, bucket, put } = harness();
    const early = put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    const middle = put(T0 + HOUR, [
      ['e2', 'MaxDeliveryAttemptsExceeded'],
      ['e3', 'NonRetriableOutcome'],
    ]);
    const late = put(T0 + 2 * HOUR, [['e4', 'TimeToLiveExceeded']]);

    const report = await service.replay(
      sub,
      request({ window: { since: T0 + HOUR }, reasons: ['NonRetriableOutcome'] }),
    );
    expect(report).toMatchObject({ blobsSelected: 2, recordsMatched: 1, eventsQueued: 1 });
    expect(report.blobs).toEqual(
      expect.arrayContaining([
        { key: middle, records: 2, matched: 1, queued: 1, marked: true, skipped: false },
        { key: late, records: 1, matched: 0, queued: 0, skipped: false },
      ]),
    );
    expect(queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId))).toEqual(['e3']);
    // Only a blob events were queued from is marked.
    expect([...bucket.markers.keys()]).toEqual([middle]);

    await service.replay(sub, request({ window: { until: T0 + HOUR } }));
    expect(queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId))).toEqual(['e1']);
    expect(bucket.markers.has(early)).toBe(true);
  });

  it('replays exactly the keys given, and refuses a key of another subscription', async () => {
    const { service, queue, put } = harness();
    put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    const second = put(T0 + HOUR, [['e2', 'MaxDeliveryAttemptsExceeded']]);
    const missing = deadLetterKey('dead', scope, T0, 'gone');

    const report = await service.replay(sub, request({ keys: [second, missing] }));
    expect(report).toMatchObject({ blobsSelected: 2, eventsQueued: 1, notFound: [missing] });
    expect(queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId))).toEqual(['e2']);

    const error = await apiError(
      service.replay(sub, request({ keys: [second, 'dead/OTHER/2026/11/22/10/x.json'] })),
    );
    expect(error.statusCode).toBe(400);
    expect(error.message).toMatch(/^keys\[1\]: /);
    expect(queue.sent).toHaveLength(0);
  });

  it('skips blobs replayed before and reports them, unless forced', async () => {
    const { service, queue, bucket, clock, put } = harness();
    const key = put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    await service.replay(sub, request());
    const firstReplay = clock.now();
    queue.take();
    clock.advance(HOUR);

    const again = await service.replay(sub, request());
    expect(again).toMatchObject({
      blobsSelected: 1,
      recordsMatched: 0,
      eventsQueued: 0,
      blobsSkipped: 1,
      skippedKeys: [key],
    });
    expect(again.blobs).toEqual([{ key, queued: 0, replayedAt: firstReplay, skipped: true }]);
    expect(replayDocument(again).blobs[0]?.replayedAt).toBe(new Date(firstReplay).toISOString());
    expect(queue.take()).toHaveLength(0);

    const forced = await service.replay(sub, request({ force: true }));
    expect(forced).toMatchObject({ eventsQueued: 1, blobsSkipped: 0 });
    expect(queue.take()[0]?.job.items[0]?.deliveryId).toBe('replay-call3.1');
    expect(bucket.markerOf(key)?.at).toBe(clock.now());
  });

  it('counts in a dry run and changes nothing, already replayed blobs included in the report', async () => {
    const { service, queue, bucket, put } = harness();
    const done = put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    const fresh = put(T0 + HOUR, [
      ['e2', 'MaxDeliveryAttemptsExceeded'],
      ['e3', 'MaxDeliveryAttemptsExceeded'],
    ]);
    bucket.markAll(done, T0 + 2 * HOUR);

    const report = await service.replay(sub, request({ dryRun: true }));
    expect(report).toMatchObject({
      dryRun: true,
      blobsSelected: 2,
      recordsMatched: 2,
      eventsQueued: 0,
      blobsSkipped: 1,
      skippedKeys: [done],
    });
    expect(report.blobs).toEqual([
      { key: fresh, records: 2, matched: 2, queued: 0, skipped: false },
      { key: done, records: 1, matched: 1, queued: 0, replayedAt: T0 + 2 * HOUR, skipped: true },
    ]);
    expect(queue.sent).toHaveLength(0);
    expect([...bucket.markers.keys()]).toEqual([done]);
  });

  it('does not mark a blob whose events could not be queued, and answers the report', async () => {
    const { service, queue, bucket, put } = harness();
    const key = put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    queue.failWith = new Error('SQS is down');
    const report = await service.replay(sub, request());
    expect(report).toMatchObject({ eventsQueued: 0, blobsFailed: 1, failedKeys: [key] });
    expect(report.blobs[0]?.failed).toMatch(/could not all be queued.*SQS is down/);
    expect(bucket.markers.size).toBe(0);
  });

  it('replays only blobs of the subscription’s topic, and never marks a blob of another topic', async () => {
    const { service, queue, bucket, put } = harness();
    // `billing/Audit` writes to the same container, so its blobs share the prefix dead/AUDIT/.
    const orders = put(T0, [
      ['o1', 'MaxDeliveryAttemptsExceeded'],
      ['o2', 'MaxDeliveryAttemptsExceeded', 'ORDERS'],
    ]);
    const billing = put(
      T0 + HOUR,
      [
        ['b2', 'MaxDeliveryAttemptsExceeded', 'billing'],
        ['b3', 'TimeToLiveExceeded', 'billing'],
      ],
      'billing',
      'billing',
    );

    const dry = await service.replay(sub, request({ dryRun: true }));
    expect(dry).toMatchObject({ blobsSelected: 1, recordsMatched: 2, otherTopic: 0, notFound: [] });

    const report = await service.replay(sub, request());
    expect(report).toMatchObject({ blobsSelected: 1, recordsMatched: 2, eventsQueued: 2, blobsFailed: 0 });
    expect(report.blobs).toEqual([
      { key: orders, records: 2, matched: 2, queued: 2, marked: true, skipped: false },
    ]);
    expect(queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId))).toEqual([
      'o1',
      'o2',
    ]);
    // Named, another topic's blob is answered as one that does not exist, and is not read.
    const named = await service.replay(sub, request({ keys: [billing], force: true }));
    expect(named).toMatchObject({ blobsSelected: 1, eventsQueued: 0, notFound: [billing], blobs: [] });
    expect(bucket.reads).not.toContain(billing);
    expect([...bucket.markers.keys()]).toEqual([orders]);

    // The billing subscription replays its own blob only.
    const billingSub = { ...sub, topic: 'billing' };
    const forBilling = await service.replay(billingSub, request());
    expect(forBilling).toMatchObject({ blobsSelected: 1, eventsQueued: 2, otherTopic: 0 });
    expect(queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId))).toEqual([
      'b2',
      'b3',
    ]);
  });

  it('records the reasons replayed: another reason is not "replayed before", and is merged in', async () => {
    const { service, queue, bucket, clock, put } = harness();
    const key = put(T0, [
      ['e1', 'MaxDeliveryAttemptsExceeded'],
      ['e2', 'NonRetriableOutcome'],
      ['e3', 'MaxDeliveryAttemptsExceeded'],
    ]);
    const sentIds = () => queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId));

    await service.replay(sub, request({ reasons: ['MaxDeliveryAttemptsExceeded'] }));
    expect(sentIds()).toEqual(['e1', 'e3']);
    const first = clock.now();
    expect(bucket.markerOf(key)).toEqual({ at: first, reasons: ['MaxDeliveryAttemptsExceeded'] });
    clock.advance(HOUR);

    // The same reason again: replayed before.
    const again = await service.replay(sub, request({ reasons: ['MaxDeliveryAttemptsExceeded'] }));
    expect(again).toMatchObject({ eventsQueued: 0, blobsSkipped: 1, skippedKeys: [key] });

    // Another reason: not replayed before; only its records go.
    const dry = await service.replay(sub, request({ reasons: ['NonRetriableOutcome'], dryRun: true }));
    expect(dry).toMatchObject({ blobsSkipped: 0, recordsMatched: 1 });
    expect(dry.blobs).toEqual([
      { key, records: 3, matched: 1, queued: 0, replayedAt: first, skipped: false },
    ]);
    const other = await service.replay(sub, request({ reasons: ['NonRetriableOutcome'] }));
    expect(other).toMatchObject({ eventsQueued: 1, blobsSkipped: 0 });
    expect(sentIds()).toEqual(['e2']);
    expect(bucket.markerOf(key)).toEqual({
      at: clock.now(),
      reasons: ['MaxDeliveryAttemptsExceeded', 'NonRetriableOutcome'],
    });

    // Now every reason in the blob is covered.
    expect(await service.replay(sub, request())).toMatchObject({ eventsQueued: 0, skippedKeys: [key] });
    expect(queue.take()).toHaveLength(0);
  });

  it('without a filter, leaves out the records of reasons replayed before', async () => {
    const { service, queue, bucket, put } = harness();
    const key = put(T0, [
      ['e1', 'MaxDeliveryAttemptsExceeded'],
      ['e2', 'NonRetriableOutcome'],
    ]);
    await service.replay(sub, request({ reasons: ['MaxDeliveryAttemptsExceeded'] }));
    queue.take();
    const report = await service.replay(sub, request());
    expect(report.blobs[0]).toMatchObject({ matched: 2, alreadyReplayed: 1, queued: 1, skipped: false });
    expect(queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId))).toEqual(['e2']);
    expect(bucket.markerOf(key)?.reasons).toEqual(['MaxDeliveryAttemptsExceeded', 'NonRetriableOutcome']);
  });

  it('reads markers that hold only a time as covering every reason', async () => {
    const { service, queue, bucket, put } = harness();
    const key = put(T0, [['e1', 'NonRetriableOutcome']]);
    bucket.markAll(key, T0 + HOUR);
    const report = await service.replay(sub, request({ reasons: ['NonRetriableOutcome'] }));
    expect(report).toMatchObject({ eventsQueued: 0, skippedKeys: [key] });
    expect(report.blobs).toEqual([{ key, queued: 0, replayedAt: T0 + HOUR, skipped: true }]);
    expect(queue.take()).toHaveLength(0);

    expect(parseReplayMarker('2026-11-22T11:00:00.000Z\n', 7)).toEqual({ at: T0 + HOUR });
    expect(parseReplayMarker('not a time', 7)).toEqual({ at: 7 });
    expect(
      parseReplayMarker('{"at":"2026-11-22T11:00:00.000Z","reasons":["TimeToLiveExceeded"]}', 7),
    ).toEqual({
      at: T0 + HOUR,
      reasons: ['TimeToLiveExceeded'],
    });
    expect(
      replayMarkerText(T0, ['TimeToLiveExceeded', 'MaxDeliveryAttemptsExceeded', 'TimeToLiveExceeded']),
    ).toBe(
      '{"at":"2026-11-22T10:00:00.000Z","reasons":["MaxDeliveryAttemptsExceeded","TimeToLiveExceeded"]}',
    );
  });

  it('after a failing blob starts no other, finishes those in flight and answers what was done', async () => {
    const { service, queue, bucket, put } = harness();
    const keys = Array.from({ length: 20 }, (_, index) =>
      put(T0 + index, [[`e${index}`, 'MaxDeliveryAttemptsExceeded']]),
    );
    const failing = keys[17] as string;
    const send = queue.send.bind(queue);
    queue.send = async (name, jobs) => {
      if (jobs.some((job) => job.body.includes('"eventId":"e17"'))) throw new Error('SQS is down');
      return send(name, jobs);
    };

    const report = await service.replay(sub, request());
    expect(report.failedKeys).toEqual([failing]);
    expect(report.blobsFailed).toBe(1);
    expect(report.blobs.find((blob) => blob.key === failing)).toMatchObject({
      queued: 0,
      failed: expect.stringMatching(/could not all be queued.*SQS is down/),
    });
    expect(report.notStarted.length).toBeGreaterThan(0);
    const done = report.blobs.filter((blob) => blob.failed === undefined);
    // Every selected blob is either answered or not started; those answered were queued and marked.
    expect(done.length + 1 + report.notStarted.length).toBe(keys.length);
    expect(done.every((blob) => blob.queued === 1 && blob.marked === true)).toBe(true);
    expect(report.eventsQueued).toBe(done.length);
    expect(queue.take()).toHaveLength(done.length);
    expect([...bucket.markers.keys()].sort()).toEqual(done.map((blob) => blob.key).sort());
    expect(report.notStarted.some((key) => bucket.markers.has(key))).toBe(false);
  });

  it('reports an event too large to queue as a failure of its blob, in a dry run too', async () => {
    const { service, queue, bucket, put } = harness();
    const key = put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    const big = eventJson('huge').replace('"big":', `"pad":"${'x'.repeat(1_100_000)}","big":`);
    bucket.blobs.set(key, {
      text: deadLetterBlob([deadLetterRecord('EventGridSchema', big, facts('MaxDeliveryAttemptsExceeded'))]),
      writtenAt: T0,
    });
    for (const dryRun of [true, false]) {
      const report = await service.replay(sub, request({ dryRun }));
      expect(report).toMatchObject({ eventsQueued: 0, failedKeys: [key] });
      expect(report.blobs[0]?.failed).toMatch(/^An event is too large to queue.*at most 1048576/);
    }
    expect(queue.sent).toHaveLength(0);
    expect(bucket.markers.size).toBe(0);
  });

  it('reports a blob queued but not marked when the marker cannot be written', async () => {
    const { service, queue, bucket, put } = harness();
    const key = put(T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    bucket.failMarking.add(key);
    const report = await service.replay(sub, request());
    expect(report).toMatchObject({ eventsQueued: 1, unmarkedKeys: [key], failedKeys: [key] });
    expect(report.blobs[0]).toMatchObject({
      queued: 1,
      marked: false,
      failed: expect.stringMatching(/queued, but it could not be marked.*S3 is down/),
    });
    expect(queue.take()).toHaveLength(1);
  });

  it('refuses a subscription without a dead-letter destination and too large a selection', async () => {
    const { service, put } = harness();
    const { deadLetter: _, ...without } = sub;
    expect((await apiError(service.replay(without, request()))).message).toMatch(
      /^properties\.deadLetterDestination: /,
    );
    for (let index = 0; index <= MAX_REPLAY_BLOBS; index += 1) put(T0 + index, []);
    const tooMany = await apiError(service.replay(sub, request({ dryRun: true })));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.message).toContain(`at most ${MAX_REPLAY_BLOBS}`);
  });
});

describe('request parsing', () => {
  it('reads ISO 8601 times and dates', () => {
    expect(parseTime('since', '2026-11-22T10:00:00Z')).toBe(T0);
    expect(parseTime('since', '2026-11-22T12:00:00.000+02:00')).toBe(T0);
    expect(parseTime('since', '2026-11-22')).toBe(Date.parse('2026-11-22T00:00:00Z'));
    expect(parseTime('since', undefined)).toBeUndefined();
    expect(parseTime('since', '')).toBeUndefined();
  });

  it.each([
    [{ since: 'yesterday' }, /^since: must be an ISO 8601 time/],
    [{ until: '2026-13-01' }, /^until: must be an ISO 8601 time/],
    [{ until: '2026-11-22T10:00:00' }, /^until: must be an ISO 8601 time/],
    [{ since: 1_700_000_000_000 }, /^since: /],
    [{ since: '2026-11-22T11:00:00Z', until: '2026-11-22T10:00:00Z' }, /^since: must be before until/],
  ])('refuses the window %j naming the field', (window, message) => {
    expect(() => parseWindow(window)).toThrow(message);
  });

  it('reads a replay body', () => {
    expect(parseReplayRequest({})).toEqual({ window: {}, dryRun: false, force: false });
    expect(
      parseReplayRequest({
        since: '2026-11-22T10:00:00Z',
        reason: 'NonRetriableOutcome',
        dryRun: true,
        force: true,
      }),
    ).toEqual({ window: { since: T0 }, reasons: ['NonRetriableOutcome'], dryRun: true, force: true });
    expect(
      parseReplayRequest({
        keys: ['a.json', 'a.json'],
        reason: ['TimeToLiveExceeded', 'NonRetriableOutcome'],
      }),
    ).toEqual({
      window: {},
      keys: ['a.json'],
      reasons: ['TimeToLiveExceeded', 'NonRetriableOutcome'],
      dryRun: false,
      force: false,
    });
  });

  it.each([
    [[], /^The request body must be a JSON object/],
    [{ keyz: [] }, /^keyz: unknown field/],
    [
      { reason: 'Timeout' },
      /^reason: must be one of MaxDeliveryAttemptsExceeded, TimeToLiveExceeded, NonRetriableOutcome/,
    ],
    [{ reason: [] }, /^reason: /],
    [{ keys: 'a.json' }, /^keys: must be a list of 1 to 100 blob keys/],
    [{ keys: ['a.json', 7] }, /^keys\[1\]: /],
    [{ keys: ['a.json'], since: '2026-11-22' }, /^keys: give either keys or since\/until/],
    [{ dryRun: 'yes' }, /^dryRun: must be true or false/],
    [{ force: 1 }, /^force: must be true or false/],
    [{ until: 'now' }, /^until: /],
  ])('refuses %j with a 400 naming the field', (body, message) => {
    let thrown: unknown;
    try {
      parseReplayRequest(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).statusCode).toBe(400);
    expect((thrown as ApiError).message).toMatch(message);
  });
});

describe('CloudEvents records', () => {
  const record = JSON.stringify({
    specversion: '1.0',
    id: 'ce-1',
    source: 'https://publisher.example.test/orders',
    type: 'Order.Created',
    dataversion: '2.0',
    data: { n: 1 },
    deadletterreason: 'MaxDeliveryAttemptsExceeded',
    deliveryattempts: 30,
  });

  it('count as the subscription’s own (a CloudEvent names its source, not the topic) and replay as the CloudEvent', () => {
    expect(recordOfTopic('CloudEventSchemaV1_0', record, 'any-topic')).toBe(true);
    const item = replayItem('CloudEventSchemaV1_0', record, 'd-1', 5);
    expect(item).toMatchObject({ eventId: 'ce-1', dataVersion: '2.0', attempts: 0, publishedAt: 5 });
    expect(JSON.parse(item.eventJson)).toEqual({
      specversion: '1.0',
      id: 'ce-1',
      source: 'https://publisher.example.test/orders',
      type: 'Order.Created',
      dataversion: '2.0',
      data: { n: 1 },
    });
  });
});

describe('two topics with a subscription of the same name and one container', () => {
  const billingSub = { ...sub, topic: 'billing', uid: 'uid-b' };

  it('lists, shows and replays each topic’s stamped blobs to its own subscription only', async () => {
    const { service, bucket, queue, put } = harness();
    const orders = put(T0, [['o1', 'MaxDeliveryAttemptsExceeded']], 'o');
    const billing = put(T0 + HOUR, [['b1', 'MaxDeliveryAttemptsExceeded', 'billing']], 'b', 'Billing');
    expect(orders.slice(0, 'dead/AUDIT/'.length)).toBe(billing.slice(0, 'dead/AUDIT/'.length));

    expect((await listed(service, sub)).map((entry) => entry.key)).toEqual([orders]);
    expect((await listed(service, billingSub)).map((entry) => entry.key)).toEqual([billing]);
    expect((await service.show(billingSub, billing)).records).toHaveLength(1);
    const hidden = await apiError(service.show(sub, billing));
    expect(hidden.statusCode).toBe(404);
    expect(hidden.message).not.toContain('b1');
    expect((await apiError(service.show(billingSub, orders))).statusCode).toBe(404);

    // A CloudEvents blob names no topic in its records: the stamp alone says whose it is.
    const cloudEvents = { ...sub, eventDeliverySchema: 'CloudEventSchemaV1_0' as const };
    expect((await listed(service, cloudEvents)).map((entry) => entry.key)).toEqual([orders]);

    const report = await service.replay(sub, request({ force: true }));
    expect(report).toMatchObject({ blobsSelected: 1, eventsQueued: 1, notFound: [] });
    expect(queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId))).toEqual(['o1']);
    expect(bucket.markers.has(billing)).toBe(false);
  });

  it('attributes blobs written before stamps by their records, whole or not at all', async () => {
    const { service, bucket, queue, put } = harness();
    const orders = put(T0, [['o1', 'MaxDeliveryAttemptsExceeded']], 'o', null);
    const billing = put(T0 + HOUR, [['b1', 'MaxDeliveryAttemptsExceeded', 'billing']], 'b', null);
    const mixed = put(
      T0 + 2 * HOUR,
      [
        ['o2', 'MaxDeliveryAttemptsExceeded'],
        ['b2', 'MaxDeliveryAttemptsExceeded', 'billing'],
      ],
      'm',
      null,
    );
    const empty = put(T0 + 3 * HOUR, [], 'e', null);

    expect((await listed(service, sub)).map((entry) => entry.key)).toEqual([orders]);
    expect((await listed(service, billingSub)).map((entry) => entry.key)).toEqual([billing]);
    for (const key of [billing, mixed, empty]) {
      expect((await apiError(service.show(sub, key))).statusCode).toBe(404);
    }
    expect((await apiError(service.show(billingSub, mixed))).statusCode).toBe(404);

    const report = await service.replay(sub, request({ keys: [orders, billing, mixed] }));
    expect(report).toMatchObject({ eventsQueued: 1, notFound: [billing, mixed].sort(), otherTopic: 0 });
    expect(queue.take().flatMap((entry) => entry.job.items.map((item) => item.eventId))).toEqual(['o1']);
    expect([...bucket.markers.keys()]).toEqual([orders]);

    // An unstamped CloudEvents blob could be either topic's: no subscription gets it.
    const cloudEvents = { ...sub, eventDeliverySchema: 'CloudEventSchemaV1_0' as const };
    expect(await listed(service, cloudEvents)).toEqual([]);
  });

  it('says whose a blob is from its stamp, else from every record', () => {
    const records = (topics: string[]) =>
      topics.map((topic, index) =>
        deadLetterRecord('EventGridSchema', eventJson(`e${index}`, topic), facts('TimeToLiveExceeded')),
      );
    const never = () => {
      throw new Error('records are not read when the blob is stamped');
    };
    expect(blobOfTopic('EventGridSchema', 'orders', 'ORDERS', never)).toBe(true);
    expect(blobOfTopic('EventGridSchema', 'orders', 'billing', never)).toBe(false);
    expect(blobOfTopic('CloudEventSchemaV1_0', 'orders', 'orders', never)).toBe(true);
    expect(blobOfTopic('EventGridSchema', 'orders', undefined, () => records(['orders', 'Orders']))).toBe(
      true,
    );
    expect(blobOfTopic('EventGridSchema', 'orders', undefined, () => records(['orders', 'billing']))).toBe(
      false,
    );
    expect(blobOfTopic('CustomInputSchema', 'orders', undefined, () => [])).toBe(false);
    expect(blobOfTopic('CloudEventSchemaV1_0', 'orders', undefined, never)).toBe(false);
    expect(blobOfTopic('namespace', 'shop/orders', undefined, never)).toBe(true);
    expect(blobOfTopic('namespace', 'shop/orders', 'shop/billing', never)).toBe(false);
  });
});

describe('namespace subscriptions', () => {
  const nsSub = subscription({
    uid: 'uid-ns',
    version: 7,
    topic: 'shop/orders',
    name: 'audit',
    deliveryProfile: 'namespace',
    eventDeliverySchema: 'CloudEventSchemaV1_0',
    deadLetter: { container: 'dead' },
  });
  const nsScope = { kind: 'namespace', namespace: 'shop', topic: 'orders', subscription: 'audit' } as const;
  const cloudEvent = (id: string) =>
    `{"specversion":"1.0","id":${JSON.stringify(id)},"source":"/shop","type":"order.created","dataversion":"2.0","data":{"big":9007199254740993}}`;
  const putNamespace = (
    h: ReturnType<typeof harness>,
    writtenAt: number,
    records: Array<[string, DeadLetterReason]>,
  ) => {
    const key = deadLetterKey('dead', nsScope, writtenAt, `ns-${writtenAt}`);
    const text = deadLetterBlob(
      records.map(([id, reason]) =>
        deadLetterRecord('namespace', cloudEvent(id), facts(reason), { 'x-tenant': 'acme' }),
      ),
    );
    h.bucket.blobs.set(key, { text, writtenAt });
    return key;
  };

  it('lists and shows the blobs of the namespace layout only', async () => {
    const h = harness();
    const key = putNamespace(h, T0, [['e1', 'MaxDeliveryAttemptsExceeded']]);
    h.put(T0, [['c1', 'MaxDeliveryAttemptsExceeded']]); // a classic subscription's blob in the same container
    expect(key).toBe(`dead/shop/orders/audit/2026/11/22/10/ns-${T0}.json`);

    expect((await listed(h.service, nsSub)).map((entry) => entry.key)).toEqual([key]);
    const shown = await h.service.show(nsSub, key);
    expect(JSON.parse(shown.records[0] ?? '{}')).toMatchObject({
      deadLetterProperties: { deadletterreason: 'Maximum delivery attempts was exceeded.' },
      customDeliveryProperties: { 'x-tenant': 'acme' },
    });
    expect((await apiError(h.service.show(nsSub, 'dead/AUDIT/2026/11/22/10/x.json'))).statusCode).toBe(400);
  });

  it('replays the CloudEvents by reason, to the namespace subscription', async () => {
    const h = harness();
    putNamespace(h, T0, [
      ['e1', 'MaxDeliveryAttemptsExceeded'],
      ['e2', 'TimeToLiveExceeded'],
    ]);

    const report = await h.service.replay(nsSub, request({ reasons: ['TimeToLiveExceeded'] }));

    expect(report).toMatchObject({ recordsMatched: 1, eventsQueued: 1, otherTopic: 0 });
    const [queued] = h.queue.take();
    expect(queued?.job.target).toMatchObject({
      topic: { namespace: 'shop', name: 'orders' },
      subscription: 'audit',
      uid: 'uid-ns',
      profile: 'namespace',
    });
    expect(queued?.job.items.map((item) => [item.eventId, item.dataVersion, item.eventJson])).toEqual([
      ['e2', '2.0', cloudEvent('e2')],
    ]);
  });
});

describe('replay metrics', () => {
  it('counts the events a replay queued in ReplayedEventCount, stack-wide and per subscription; a dry run counts none', async () => {
    const { bucket, queue, clock, put } = harness();
    const metrics = new MetricBuffer();
    const service = new DeadLetterService({ bucket, queue, clock, newId: () => 'counted', metrics });
    put(T0, [
      ['e1', 'MaxDeliveryAttemptsExceeded'],
      ['e2', 'TimeToLiveExceeded'],
    ]);

    await service.replay(sub, request({ dryRun: true }));
    expect(metrics.drain()).toEqual([]);
    const report = await service.replay(sub, request());

    expect(report.eventsQueued).toBe(2);
    expect(metrics.drain()).toEqual([
      { name: METRIC.ReplayedEventCount, unit: 'Count', dimensions: {}, values: [2] },
      {
        name: METRIC.ReplayedEventCount,
        unit: 'Count',
        dimensions: { Topic: 'orders', EventSubscriptionName: 'AUDIT' },
        values: [2],
      },
    ]);
  });
});

/**
 * The attempt history through the real DynamoDB emulator: a job's records packed into one item,
 * lookups that find one event's records (and only its), windows, the read budget.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Emulators, startEmulators } from '../../local/emulators';
import { provisionLocalResources } from '../../local/provision';
import { TABLE } from '../../shared/config/resources';
import type { AttemptRecord } from '../../shared/domain/attempts';
import { type AwsClients, createAwsClients } from '../../shared/platform/aws';
import { AttemptHistoryTable } from '../../shared/storage/attempt-history';
import { DEFAULT_HISTORY_SHARDS, historyPk, hourOf } from '../../shared/storage/history-items';

const HOUR = 3_600_000;
/** "Now" for these tests: the records are from the hours before it. */
const NOW = Date.parse('2026-11-23T12:30:00.000Z');

let emulators: Emulators;
let clients: AwsClients;

const table = (options: { readBudgetUnits?: number } = {}) =>
  new AttemptHistoryTable(clients.dynamo, TABLE.localName, { retentionDays: 7, now: () => NOW, ...options });

const attempt = (overrides: Partial<AttemptRecord> = {}): AttemptRecord => ({
  topic: 'orders',
  subscription: 'audit',
  eventId: 'order-1',
  deliveryId: 'pub-1.0',
  publishedAt: NOW - 2 * HOUR,
  attempt: 1,
  at: NOW - HOUR,
  outcome: 'GenericError',
  httpStatus: 500,
  durationMs: 12,
  next: { action: 'retry', dueAt: NOW - HOUR + 10_000 },
  ...overrides,
});

/** Every history item of a subscription in one hour, across the shards. */
async function itemsIn(subscription: string, at: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let shard = 0; shard < DEFAULT_HISTORY_SHARDS; shard += 1) {
    const { Items } = await clients.dynamo.send(
      new QueryCommand({
        TableName: TABLE.localName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': historyPk('orders', subscription, hourOf(at), shard) },
      }),
    );
    items.push(...(Items ?? []));
  }
  return items;
}

beforeAll(async () => {
  emulators = await startEmulators();
  clients = createAwsClients(emulators.endpoints);
  await provisionLocalResources(clients);
}, 30_000);

afterAll(async () => {
  await emulators?.stop();
});

const lastDay = { since: NOW - 24 * HOUR, until: NOW };

describe('attempt history', () => {
  it("writes the records of a job's many events as one item", async () => {
    const history = table();
    const records = Array.from({ length: 300 }, (_, index) =>
      attempt({
        subscription: 'packed',
        eventId: `e-${index}`,
        deliveryId: `pub-1.${index}`,
        at: NOW - HOUR + index,
      }),
    );

    await history.record(records);

    const items = await itemsIn('packed', NOW - HOUR);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'attempts', count: 300 });
    expect(items[0]?.[TABLE.ttlAttribute]).toBe(Math.ceil((NOW - HOUR + 299) / 1000) + 7 * 86_400);
    const found = await history.find({ topic: 'orders', name: 'packed' }, 'e-123', lastDay);
    expect(found.records).toEqual([records[123]]);
  });

  it("finds one event's records from several jobs, oldest first, and not those of ids it is part of", async () => {
    const history = table();
    const at = NOW - 3 * HOUR;
    // Three jobs: the first attempt, the retry (with a neighbour whose id extends this one), the last.
    await history.record([
      attempt({ subscription: 'lookup', eventId: 'order-1', at }),
      attempt({ subscription: 'lookup', eventId: 'order-10', deliveryId: 'pub-1.1', at }),
      attempt({ subscription: 'lookup', eventId: 'x-order-1', deliveryId: 'pub-1.2', at }),
    ]);
    await history.record([
      attempt({ subscription: 'lookup', eventId: 'order-1', attempt: 2, at: at + 10_000 }),
      attempt({ subscription: 'lookup', eventId: 'order-1-b', deliveryId: 'pub-1.3', at: at + 10_000 }),
    ]);
    await history.record([
      attempt({
        subscription: 'lookup',
        eventId: 'order-1',
        attempt: 3,
        at: at + 2 * HOUR,
        outcome: 'Delivered',
        httpStatus: 200,
        next: { action: 'none' },
      }),
    ]);

    const found = await history.find({ topic: 'orders', name: 'lookup' }, 'order-1', lastDay);

    expect(found.records.map((record) => [record.eventId, record.attempt])).toEqual([
      ['order-1', 1],
      ['order-1', 2],
      ['order-1', 3],
    ]);
    expect(found.truncated).toBe(false);
    expect(found.searched).toEqual(lastDay);
    expect((await history.find({ topic: 'orders', name: 'lookup' }, 'order', lastDay)).records).toEqual([]);
    expect(
      (await history.find({ topic: 'orders', name: 'LOOKUP' }, 'order-10', lastDay)).records,
    ).toHaveLength(1);
  });

  it('keeps every field of a record, and finds ids with newlines and very long ids', async () => {
    const history = table();
    const records = [
      attempt({
        subscription: 'fields',
        eventId: 'line\nbreak',
        error: 'ECONNRESET: socket hang up',
        next: { action: 'retry', dueAt: NOW - HOUR + 30_000 },
      }),
      attempt({
        subscription: 'fields',
        eventId: 'line',
        deliveryId: 'pub-1.1',
        outcome: 'NotAttempted',
        httpStatus: undefined,
        durationMs: undefined,
        next: { action: 'deadLetter', reason: 'TimeToLiveExceeded' },
      }),
      attempt({ subscription: 'fields', eventId: `long-${'x'.repeat(3000)}`, deliveryId: 'pub-1.2' }),
    ];
    await history.record(records);

    expect(
      (await history.find({ topic: 'orders', name: 'fields' }, 'line\nbreak', lastDay)).records,
    ).toStrictEqual([records[0]]);
    const { httpStatus: _h, durationMs: _d, ...notAttempted } = records[1] as AttemptRecord;
    expect((await history.find({ topic: 'orders', name: 'fields' }, 'line', lastDay)).records).toStrictEqual([
      notAttempted,
    ]);
    expect((await history.find({ topic: 'orders', name: 'fields' }, 'break', lastDay)).records).toEqual([]);
    expect(
      (await history.find({ topic: 'orders', name: 'fields' }, `long-${'x'.repeat(3000)}`, lastDay)).records,
    ).toStrictEqual([records[2]]);
  });

  it('searches only the window: `since` inclusive, `until` exclusive, by the newest record of a job', async () => {
    const history = table();
    const times = [NOW - 30 * HOUR, NOW - 5 * HOUR, NOW - 4 * HOUR, NOW - 2 * HOUR];
    for (const [index, at] of times.entries()) {
      await history.record([attempt({ subscription: 'window', attempt: index + 1, at })]);
    }
    const attempts = async (window: { since: number; until: number }) =>
      (await history.find({ topic: 'orders', name: 'window' }, 'order-1', window)).records.map(
        (record) => record.attempt,
      );

    expect(await attempts(lastDay)).toEqual([2, 3, 4]);
    expect(await attempts({ since: NOW - 48 * HOUR, until: NOW })).toEqual([1, 2, 3, 4]);
    expect(await attempts({ since: NOW - 5 * HOUR, until: NOW - 2 * HOUR })).toEqual([2, 3]);
    expect(await attempts({ since: NOW - 5 * HOUR + 1, until: NOW - 2 * HOUR + 1 })).toEqual([3, 4]);
    // Older than the retention: nothing is kept there, so nothing is searched and nothing is missed.
    const ancient = { since: NOW - 30 * 24 * HOUR, until: NOW - 29 * 24 * HOUR };
    expect(await history.find({ topic: 'orders', name: 'window' }, 'order-1', ancient)).toEqual({
      records: [],
      searched: ancient,
      truncated: false,
    });
  });

  it('stops at the read budget and says how much of the window it searched', async () => {
    const writer = table();
    // One big item (about 30 KB) an hour for 12 hours: each costs a few read units to scan.
    const noise = (hour: number) =>
      Array.from({ length: 400 }, (_, index) =>
        attempt({
          subscription: 'budget',
          eventId: `noise-${hour}-${index}-${Math.random().toString(36).repeat(4)}`,
          deliveryId: `noise-${hour}.${index}`,
          at: NOW - hour * HOUR - index,
          error: Math.random().toString(36).repeat(3),
        }),
      );
    for (let hour = 1; hour <= 12; hour += 1) {
      await writer.record([
        ...noise(hour),
        attempt({ subscription: 'budget', attempt: hour, at: NOW - hour * HOUR }),
      ]);
    }
    const window = { since: NOW - 12 * HOUR - HOUR / 2, until: NOW };

    const complete = await table().find({ topic: 'orders', name: 'budget' }, 'order-1', window);
    expect(complete.truncated).toBe(false);
    expect(complete.records).toHaveLength(12);

    const cut = await table({ readBudgetUnits: 20 }).find(
      { topic: 'orders', name: 'budget' },
      'order-1',
      window,
    );
    expect(cut.truncated).toBe(true);
    expect(cut.searched.until).toBe(NOW);
    expect(cut.searched.since).toBeGreaterThan(window.since);
    expect(cut.searched.since).toBeLessThan(NOW);
    // Everything in the part searched was found.
    const inSearched = complete.records.filter((record) => record.at >= cut.searched.since);
    expect(inSearched.length).toBeGreaterThan(0);
    expect(cut.records).toEqual(expect.arrayContaining(inSearched));
    expect(cut.records.length).toBeLessThan(12);

    // Asking again for what is left finds the rest.
    const rest = await table().find({ topic: 'orders', name: 'budget' }, 'order-1', {
      since: window.since,
      until: cut.searched.since,
    });
    const all = new Set([...cut.records, ...rest.records].map((record) => record.attempt));
    expect([...all].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  }, 60_000);

  it('lists the log a page at a time, newest first, each item on one page only, with ids and texts back', async () => {
    const writer = table();
    const odd = 'id with\nnewline and \\ backslash';
    // One job an hour for 6 hours, two deliveries each; the oldest hour's first event has an odd id.
    for (let hour = 1; hour <= 6; hour += 1) {
      await writer.record(
        [0, 1].map((index) =>
          attempt({
            subscription: 'paged',
            eventId: hour === 6 && index === 0 ? odd : `e-${hour}-${index}`,
            deliveryId: `d-${hour}-${index}`,
            at: NOW - hour * HOUR + index,
            outcome: 'Delivered',
            httpStatus: 200,
            response: `thanks ${hour}-${index}`,
            eventJson: `{"id":"e-${hour}-${index}"}`,
            next: { action: 'none' },
          }),
        ),
      );
    }
    const window = { since: NOW - 7 * HOUR, until: NOW };

    const pages: string[][] = [];
    let until = window.until;
    for (let guard = 0; guard < 10; guard += 1) {
      const page = await table().list({ topic: 'orders', name: 'paged' }, { since: window.since, until }, 3);
      pages.push(page.records.map((record) => record.deliveryId));
      if (!page.more) break;
      expect(page.searched.since).toBeLessThan(until);
      until = page.searched.since;
    }
    // At least 3 deliveries a page (whole hours, 2 a job): pages of 4, 4 and the last 4.
    const listed = pages.flat();
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.sort()).toEqual(
      [1, 2, 3, 4, 5, 6].flatMap((hour) => [`d-${hour}-0`, `d-${hour}-1`]).sort(),
    );
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]).toEqual(expect.arrayContaining(['d-1-0', 'd-1-1']));

    const all = await table().list({ topic: 'orders', name: 'paged' }, window, 1000);
    expect(all.more).toBe(false);
    expect(all.records).toHaveLength(12);
    const oddRecord = all.records.find((record) => record.deliveryId === 'd-6-0');
    expect(oddRecord).toMatchObject({ eventId: odd, response: 'thanks 6-0', eventJson: '{"id":"e-6-0"}' });
  }, 60_000);

  it("keeps an event's text once per item, on its first record", async () => {
    await table().record([
      attempt({ subscription: 'text', attempt: 1, at: NOW - HOUR, eventJson: '{"id":"order-1"}' }),
      attempt({
        subscription: 'text',
        attempt: 2,
        at: NOW - HOUR + 5,
        eventJson: '{"id":"order-1"}',
        outcome: 'Delivered',
        next: { action: 'none' },
      }),
    ]);
    const found = await table().find({ topic: 'orders', name: 'text' }, 'order-1', {
      since: NOW - 2 * HOUR,
      until: NOW,
    });
    expect(found.records.map((record) => record.eventJson)).toEqual(['{"id":"order-1"}', undefined]);
  });
});

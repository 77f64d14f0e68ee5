import { gunzipSync } from 'node:zlib';
import { TABLE } from '../../../shared/config/resources';
import type { AttemptRecord } from '../../../shared/domain/attempts';
import {
  historyPk,
  hourOf,
  idNeedle,
  idsAttribute,
  idToken,
  MAX_ERROR_CHARS,
  packHistory,
  recordsOfItem,
} from '../../../shared/storage/history-items';

const AT = Date.parse('2026-11-23T03:15:00.000Z');

const attempt = (overrides: Partial<AttemptRecord> = {}): AttemptRecord => ({
  topic: 'Orders',
  subscription: 'Audit',
  eventId: 'order-1',
  deliveryId: 'pub-1.0',
  publishedAt: AT - 60_000,
  attempt: 1,
  at: AT,
  outcome: 'GenericError',
  httpStatus: 500,
  durationMs: 12,
  next: { action: 'retry', dueAt: AT + 10_000 },
  ...overrides,
});

/** What DynamoDB's `contains(ids, :needle)` decides for one item. */
const matches = (item: Record<string, unknown>, eventId: string) =>
  (item.ids as string).includes(idNeedle(eventId));

const pack = (records: readonly AttemptRecord[], maxPackedBytes?: number) =>
  packHistory(records, {
    retentionDays: 7,
    shard: () => 2,
    suffix: () => 'abcdef0123456789',
    ...(maxPackedBytes === undefined ? {} : { maxPackedBytes }),
  });

describe('attempt history items', () => {
  it("pack a job's records of many events into one item, keyed by the newest record", () => {
    const records = Array.from({ length: 50 }, (_, index) =>
      attempt({ eventId: `order-${index}`, deliveryId: `pub-1.${index}`, at: AT - 50 + index }),
    );

    const items = pack(records);

    expect(items).toHaveLength(1);
    const item = items[0] as Record<string, unknown>;
    expect(item).toMatchObject({
      pk: 'HISTORY#orders#audit#2026-11-23T03#2',
      sk: `00${AT - 1}#abcdef0123456789`,
      kind: 'attempts',
      count: 50,
      [TABLE.ttlAttribute]: Math.ceil((AT - 1) / 1000) + 7 * 86_400,
    });
    expect(item.ids).toBe(`\n${records.map((record) => record.eventId).join('\n')}\n`);
    expect(item.records).toBeInstanceOf(Uint8Array);
    // The records leave out what the key and `ids` already say.
    const packed = JSON.parse(gunzipSync(item.records as Uint8Array).toString('utf8'));
    expect(packed[3]).not.toHaveProperty('topic');
    expect(packed[3]).not.toHaveProperty('eventId');
    expect(packed[3]).toMatchObject({ e: 3, deliveryId: 'pub-1.3' });
  });

  it('write one item per subscription', () => {
    const items = pack([
      attempt(),
      attempt({ subscription: 'billing', eventId: 'order-2' }),
      attempt({ eventId: 'order-3' }),
    ]);

    expect(items.map((item) => [item.pk, item.count])).toEqual([
      ['HISTORY#orders#audit#2026-11-23T03#2', 2],
      ['HISTORY#orders#billing#2026-11-23T03#2', 1],
    ]);
  });

  it('keep every field of a record through packing and unpacking', () => {
    const records: AttemptRecord[] = [
      attempt({ error: 'ECONNRESET: socket hang up', next: { action: 'retry', dueAt: AT + 30_000 } }),
      attempt({
        deliveryId: 'pub-1.0',
        attempt: 2,
        at: AT + 30_000,
        outcome: 'Delivered',
        httpStatus: 200,
        durationMs: 3,
        next: { action: 'none' },
      }),
      attempt({
        eventId: 'order-9',
        attempt: 3,
        outcome: 'NotAttempted',
        httpStatus: undefined,
        durationMs: undefined,
        next: { action: 'deadLetter', reason: 'TimeToLiveExceeded' },
      }),
    ];
    const [item] = pack(records);

    const unpacked = recordsOfItem(item as Record<string, unknown>, 'Orders', 'Audit', 'order-1');

    expect(unpacked).toStrictEqual(records.slice(0, 2));
    expect(recordsOfItem(item as Record<string, unknown>, 'Orders', 'Audit', 'order-9')).toStrictEqual([
      {
        topic: 'Orders',
        subscription: 'Audit',
        eventId: 'order-9',
        deliveryId: 'pub-1.0',
        publishedAt: AT - 60_000,
        attempt: 3,
        at: AT,
        outcome: 'NotAttempted',
        next: { action: 'deadLetter', reason: 'TimeToLiveExceeded' },
      },
    ]);
    expect(recordsOfItem(item as Record<string, unknown>, 'Orders', 'Audit', 'order-2')).toEqual([]);
  });

  it('keep an error text up to the limit', () => {
    const [item] = pack([attempt({ error: 'x'.repeat(MAX_ERROR_CHARS + 10) })]);
    const [record] = recordsOfItem(item as Record<string, unknown>, 'Orders', 'Audit', 'order-1');
    expect(record?.error).toBe('x'.repeat(MAX_ERROR_CHARS));
  });

  it('split only what would not fit one item, keeping every record once', () => {
    const records = Array.from({ length: 200 }, (_, index) =>
      attempt({ eventId: `event-${index}-${'k'.repeat(40)}`, deliveryId: `d-${index}`, at: AT + index }),
    );

    const items = pack(records, 4096);

    expect(items.length).toBeGreaterThan(1);
    for (const item of items) {
      expect((item.records as Uint8Array).length + Buffer.byteLength(item.ids as string)).toBeLessThanOrEqual(
        4096,
      );
    }
    for (const record of records) {
      const holding = items.filter((item) => matches(item, record.eventId));
      expect(holding).toHaveLength(1);
      expect(recordsOfItem(holding[0] as Record<string, unknown>, 'Orders', 'Audit', record.eventId)).toEqual(
        [record],
      );
    }
    expect(items.reduce((sum, item) => sum + (item.count as number), 0)).toBe(200);
  });

  it('cost a few write units for a job of many failed events', () => {
    const records = Array.from({ length: 100 }, (_, index) =>
      attempt({
        eventId: `3f2b8c1e-5d4a-4b6e-9f1a-${String(index).padStart(12, '0')}`,
        deliveryId: `7c9e6679-7425-40de-944b-e07fc1f90ae7.${index}`,
        at: AT + index * 7,
        durationMs: 5 + (index % 40),
        next: { action: 'retry', dueAt: AT + 10_000 + (index % 900) },
      }),
    );
    const [item] = pack(records);
    // Item size as DynamoDB counts it: attribute names plus values (numbers about 21 bytes at most).
    const bytes = Object.entries(item as Record<string, unknown>).reduce(
      (sum, [name, value]) =>
        sum +
        name.length +
        (typeof value === 'string'
          ? Buffer.byteLength(value)
          : value instanceof Uint8Array
            ? value.length
            : 21),
      0,
    );
    // One unit per KiB: about 0.06 per failed event (its id alone is 37 bytes), where one item
    // per attempt cost 1.
    expect(Math.ceil(bytes / 1024)).toBeLessThanOrEqual(6);
  });
});

describe('event ids in an item', () => {
  it('match whole ids only, never a prefix or suffix of another', () => {
    const [item] = pack([
      attempt({ eventId: 'order-1' }),
      attempt({ eventId: 'order-10' }),
      attempt({ eventId: 'x-order-1-y' }),
    ]);
    const listed = item as Record<string, unknown>;

    expect(matches(listed, 'order-1')).toBe(true);
    expect(matches(listed, 'order-10')).toBe(true);
    expect(matches(listed, 'order')).toBe(false);
    expect(matches(listed, 'order-')).toBe(false);
    expect(matches(listed, 'rder-1')).toBe(false);
    expect(matches(listed, 'order-100')).toBe(false);
    expect(matches(listed, 'order-1\norder-10')).toBe(false);
    expect(recordsOfItem(listed, 'Orders', 'Audit', 'order-1').map((r) => r.eventId)).toEqual(['order-1']);
  });

  it('keep ids with newlines and backslashes apart from the ids they could be confused with', () => {
    const tricky = ['a\nb', 'a\\nb', 'a\\\nb', 'a\\', '\\'];
    const [item] = pack(tricky.map((eventId, index) => attempt({ eventId, deliveryId: `d-${index}` })));
    const listed = item as Record<string, unknown>;

    // One line per id: the separator never appears inside one.
    expect((listed.ids as string).slice(1, -1).split('\n')).toHaveLength(tricky.length);
    for (const [index, eventId] of tricky.entries()) {
      expect(matches(listed, eventId)).toBe(true);
      expect(recordsOfItem(listed, 'Orders', 'Audit', eventId)).toEqual([
        attempt({ eventId, deliveryId: `d-${index}` }),
      ]);
    }
    for (const other of ['a', 'b', 'a\\n', 'nb', 'a\\\\nb', 'a\n'])
      expect(matches(listed, other)).toBe(false);
    expect(new Set(tricky.map(idToken)).size).toBe(tricky.length);
  });

  it('list a very long id by its SHA-256, apart from any id that looks like a hash', () => {
    const long = `long-${'é'.repeat(2000)}`;
    const token = idToken(long);
    expect(token).toMatch(/^\\h[0-9a-f]{64}$/);
    expect(idToken(`${long}x`)).not.toBe(token);
    // An id spelling out the same text is escaped, so it is listed differently.
    expect(idToken(token)).not.toBe(token);

    const [item] = pack([attempt({ eventId: long }), attempt({ eventId: token, deliveryId: 'pub-1.1' })]);
    const listed = item as Record<string, unknown>;
    expect(Buffer.byteLength(listed.ids as string)).toBeLessThan(200);
    expect(recordsOfItem(listed, 'Orders', 'Audit', long)).toEqual([attempt({ eventId: long })]);
    expect(recordsOfItem(listed, 'Orders', 'Audit', token)).toEqual([
      attempt({ eventId: token, deliveryId: 'pub-1.1' }),
    ]);
  });

  it('write the ids attribute with a newline before and after each id', () => {
    expect(idsAttribute(['a', 'b'])).toBe('\na\nb\n');
    expect(idNeedle('a')).toBe('\na\n');
  });
});

describe('history partitions', () => {
  it('are per subscription, UTC hour and shard, in lower case', () => {
    expect(hourOf(AT)).toBe('2026-11-23T03');
    expect(historyPk('Orders', 'Audit', hourOf(AT), 0)).toBe('HISTORY#orders#audit#2026-11-23T03#0');
  });
});

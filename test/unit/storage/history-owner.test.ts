/**
 * Whose records the message log shows: a record keeps the subscription's uid, and a read keeps
 * the records of the subscription as it is now, not those of a deleted one of the same name.
 */
import { decideJob } from '../../../shared/delivery/rules/decide';
import { TOPIC_PROFILE } from '../../../shared/delivery/rules/profiles';
import type { AttemptRecord } from '../../../shared/domain/attempts';
import {
  allRecordsOfItem,
  type HistoryOwner,
  ownRecord,
  packHistory,
  recordsOfItem,
} from '../../../shared/storage/history-items';
import { item } from '../../support/fakes';

const CREATED = '2026-11-23T03:00:00.000Z';
const CREATED_MS = Date.parse(CREATED);

const attempt = (overrides: Partial<AttemptRecord> = {}): AttemptRecord => ({
  topic: 'Orders',
  subscription: 'Audit',
  eventId: 'order-1',
  deliveryId: 'pub-1.0',
  publishedAt: CREATED_MS + 1000,
  attempt: 1,
  at: CREATED_MS + 2000,
  outcome: 'Delivered',
  httpStatus: 200,
  eventJson: '{"id":"order-1"}',
  next: { action: 'none' },
  ...overrides,
});

const pack = (records: readonly AttemptRecord[]) =>
  packHistory(records, { retentionDays: 7, shard: () => 0, suffix: () => '0123456789abcdef' });

describe('ownRecord', () => {
  const current: HistoryOwner = { topic: 'orders', name: 'audit', uid: 'second', createdAt: CREATED };

  it("keeps a record of the subscription's uid and leaves one of another uid out", () => {
    expect(ownRecord(current, { uid: 'second', at: CREATED_MS + 1 })).toBe(true);
    expect(ownRecord(current, { uid: 'first', at: CREATED_MS + 1 })).toBe(false);
    // Whatever its time: a predecessor's in-flight work after the re-create is still not the successor's.
    expect(ownRecord(current, { uid: 'first', at: CREATED_MS + 3_600_000 })).toBe(false);
  });

  it('keeps a record without a uid only from the creation of the subscription on', () => {
    expect(ownRecord(current, { at: CREATED_MS })).toBe(true);
    expect(ownRecord(current, { at: CREATED_MS + 60_000 })).toBe(true);
    expect(ownRecord(current, { at: CREATED_MS - 1 })).toBe(false);
  });

  it('judges a subscription without a uid the same way', () => {
    const legacy: HistoryOwner = { topic: 'orders', name: 'audit', createdAt: CREATED };
    expect(ownRecord(legacy, { at: CREATED_MS + 1 })).toBe(true);
    expect(ownRecord(legacy, { at: CREATED_MS - 1 })).toBe(false);
    expect(ownRecord(legacy, { uid: 'another', at: CREATED_MS + 1 })).toBe(false);
  });

  it('keeps every record without a uid when the owner gives no creation time', () => {
    expect(ownRecord({ topic: 'orders', name: 'audit' }, { at: 0 })).toBe(true);
    expect(ownRecord({ topic: 'orders', name: 'audit' }, { uid: 'x', at: 0 })).toBe(false);
  });
});

describe('history items and the uid', () => {
  it('keep the uid on the item, once, and give it back on every record read', () => {
    const [stored] = pack([attempt({ uid: 'second' }), attempt({ uid: 'second', attempt: 2 })]);
    const item = stored as Record<string, unknown>;
    expect(item.uid).toBe('second');

    const records = recordsOfItem(item, 'Orders', 'Audit', 'order-1');
    expect(records.map((record) => record.uid)).toEqual(['second', 'second']);
    expect(allRecordsOfItem(item, 'Orders', 'Audit').map((record) => record.uid)).toEqual([
      'second',
      'second',
    ]);
    expect(records[0]).toStrictEqual(attempt({ uid: 'second' }));
  });

  it('give records without a uid back without one', () => {
    const [stored] = pack([attempt()]);
    const item = stored as Record<string, unknown>;
    expect(item).not.toHaveProperty('uid');
    expect(recordsOfItem(item, 'Orders', 'Audit', 'order-1')).toStrictEqual([attempt()]);
  });

  it('never pack the records of two subscriptions of the same name together', () => {
    const items = pack([attempt({ uid: 'first' }), attempt({ uid: 'second', deliveryId: 'pub-2.0' })]);
    expect(items.map((stored) => stored.uid)).toEqual(['first', 'second']);
    expect(items.map((stored) => allRecordsOfItem(stored, 'Orders', 'Audit')[0]?.deliveryId)).toEqual([
      'pub-1.0',
      'pub-2.0',
    ]);
  });
});

describe('the records a job makes', () => {
  it("carry the subscription's uid, and none when it has none", () => {
    const decide = (uid?: string) =>
      decideJob({
        topic: 'orders',
        subscription: 'audit',
        ...(uid === undefined ? {} : { uid }),
        profile: TOPIC_PROFILE,
        limits: { maxAttempts: 30, ttlMs: 86_400_000 },
        attempted: [
          {
            kind: 'attempted',
            item: item('e1', 0),
            startedAt: 0,
            result: { delivered: false, durationMs: 5, httpStatus: 500, outcome: 'GenericError' },
          },
        ],
        expired: [item('e2', 0)],
        dueAt: 0,
        now: 10,
        random: () => 0,
        deadLetters: false,
      }).records;

    expect(decide('second').map((record) => record.uid)).toEqual(['second', 'second']);
    expect(decide().every((record) => !('uid' in record))).toBe(true);
  });
});

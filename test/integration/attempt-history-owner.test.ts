/**
 * The attempt history through the real DynamoDB emulator, for a subscription deleted and created
 * again under its name: the partitions are shared, the lookups and pages are not.
 */
import { type Emulators, startEmulators } from '../../local/emulators';
import { provisionLocalResources } from '../../local/provision';
import { TABLE } from '../../shared/config/resources';
import type { AttemptRecord } from '../../shared/domain/attempts';
import { type AwsClients, createAwsClients } from '../../shared/platform/aws';
import { AttemptHistoryTable, type HistoryOwner } from '../../shared/storage/attempt-history';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-23T12:30:00.000Z');
/** When the successor was created: its predecessor's records are all from before. */
const RECREATED = NOW - 2 * HOUR;

let emulators: Emulators;
let clients: AwsClients;

const table = () =>
  new AttemptHistoryTable(clients.dynamo, TABLE.localName, { retentionDays: 7, now: () => NOW });

const record = (overrides: Partial<AttemptRecord>): AttemptRecord => ({
  topic: 'cards',
  subscription: 'shared1',
  eventId: 'card-1',
  deliveryId: 'd-old',
  publishedAt: NOW - 5 * HOUR,
  attempt: 1,
  at: NOW - 5 * HOUR,
  outcome: 'Delivered',
  httpStatus: 200,
  eventJson: '{"id":"card-1","data":{"cardNumber":"4111111111111111"}}',
  next: { action: 'none' },
  ...overrides,
});

const successor: HistoryOwner = {
  topic: 'cards',
  name: 'shared1',
  uid: 'second',
  createdAt: new Date(RECREATED).toISOString(),
};
const window = { since: NOW - 24 * HOUR, until: NOW };

beforeAll(async () => {
  emulators = await startEmulators();
  clients = createAwsClients(emulators.endpoints);
  await provisionLocalResources(clients);
  await table().record([
    // The predecessor's: one written before records kept the uid, one with its uid (after the
    // re-create, as a job in flight would), and the successor's own.
    record({ deliveryId: 'd-unmarked' }),
    record({ uid: 'first', deliveryId: 'd-first', at: NOW - 4 * HOUR }),
  ]);
  await table().record([record({ uid: 'first', deliveryId: 'd-first-late', at: RECREATED + 1000 })]);
  await table().record([record({ uid: 'second', deliveryId: 'd-second', at: NOW - HOUR })]);
}, 30_000);

afterAll(async () => {
  await emulators?.stop();
});

describe("a re-created subscription's history", () => {
  it('finds only its own records of an event both subscriptions logged', async () => {
    const found = await table().find(successor, 'card-1', window);
    expect(found.records.map((r) => r.deliveryId)).toEqual(['d-second']);
    expect(found.records[0]?.uid).toBe('second');
  });

  it('lists only its own deliveries', async () => {
    const page = await table().list(successor, window, 100);
    expect(page.records.map((r) => r.deliveryId)).toEqual(['d-second']);
    expect(page.more).toBe(false);
  });

  it("leaves the predecessor's records readable as its own", async () => {
    const predecessor: HistoryOwner = {
      topic: 'cards',
      name: 'shared1',
      uid: 'first',
      createdAt: new Date(NOW - 6 * HOUR).toISOString(),
    };
    const found = await table().find(predecessor, 'card-1', window);
    expect(found.records.map((r) => r.deliveryId)).toEqual(['d-unmarked', 'd-first', 'd-first-late']);
  });
});

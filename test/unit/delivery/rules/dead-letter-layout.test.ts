import {
  type DeadLetterFacts,
  deadLetterBlob,
  deadLetterKey,
  deadLetterPrefix,
  deadLetterRecord,
  eventOfRecord,
} from '../../../../shared/delivery/rules/dead-letter-layout';
import type { DeadLetterReason } from '../../../../shared/domain/model';

const UUID = '0b9e6a52-7a8b-4c6e-9a43-3f1d2e5c7b10';

describe('dead-letter keys', () => {
  it.each([
    ['2019-08-08T05:07:09Z', 'myblobcontainer/MY-BLOB-SUBSCRIPTION/2019/8/8/5/'],
    ['2026-12-31T23:59:59Z', 'myblobcontainer/MY-BLOB-SUBSCRIPTION/2026/12/31/23/'],
    ['2026-01-01T00:00:00Z', 'myblobcontainer/MY-BLOB-SUBSCRIPTION/2026/1/1/0/'],
  ])('classic topic at %s: %s<uuid>.json (UTC, nothing zero-padded)', (at, folder) => {
    expect(
      deadLetterKey(
        'myblobcontainer',
        { kind: 'topic', subscription: 'my-blob-subscription' },
        Date.parse(at),
        UUID,
      ),
    ).toBe(`${folder}${UUID}.json`);
  });

  it('namespace topic: container/namespace/topic/subscription/yyyy/M/d/H/uuid.json', () => {
    const scope = { kind: 'namespace', namespace: 'ns1', topic: 'orders', subscription: 'audit' } as const;
    expect(deadLetterKey('dead', scope, Date.parse('2026-03-04T07:00:00Z'), UUID)).toBe(
      `dead/ns1/orders/audit/2026/3/4/7/${UUID}.json`,
    );
    expect(deadLetterPrefix('dead', scope)).toBe('dead/ns1/orders/audit/');
  });

  it('takes the hour from UTC, whatever the local time zone', () => {
    const at = Date.parse('2026-06-30T22:30:00-05:00'); // 2026-07-01 03:30 UTC
    expect(deadLetterKey('c', { kind: 'topic', subscription: 's' }, at, UUID)).toBe(
      `c/S/2026/7/1/3/${UUID}.json`,
    );
  });
});

const EVENT_GRID_EVENT =
  '{"id":"93902694-901e-008f-6f95-7153a806873c","eventTime":"2020-08-13T17:18:13.1647262Z","eventType":"Microsoft.Storage.BlobCreated","dataVersion":"","metadataVersion":"1","topic":"/gridwire/topics/t","subject":"/blobServices/default/containers/deadletter/blobs/myBlobFile.txt","data":{"api":"PutBlob","contentLength":0}}';
const CLOUD_EVENT =
  '{"id":"caee971c-3ca0-4254-8f99-1395b394588e","source":"mysource","dataversion":"1.0","subject":"mySubject","type":"fooEventType","datacontenttype":"application/json","data":{"prop1":"value1","prop2":5}}';

const facts = (reason: DeadLetterReason, overrides: Partial<DeadLetterFacts> = {}): DeadLetterFacts => ({
  reason,
  deliveryAttempts: 1,
  lastDeliveryOutcome: 'NotFound',
  publishTime: Date.parse('2020-08-13T17:18:14.026Z'),
  lastDeliveryAttemptTime: Date.parse('2020-08-13T17:18:14.046Z'),
  ...overrides,
});

// 003 (classic page), "Dead-letter events", the record examples: "publishTime":
// "2020-08-13T17:18:14.0265758Z": times with seven fractional digits, reasons and outcomes by name.
describe('dead-letter records', () => {
  it.each<DeadLetterReason>(['MaxDeliveryAttemptsExceeded', 'TimeToLiveExceeded', 'NonRetriableOutcome'])(
    'Event Grid schema, %s: the event, then the five fields in the spec order',
    (reason) => {
      const record = JSON.parse(deadLetterRecord('EventGridSchema', EVENT_GRID_EVENT, facts(reason)));
      expect(Object.keys(record)).toEqual([
        ...Object.keys(JSON.parse(EVENT_GRID_EVENT)),
        'deadLetterReason',
        'deliveryAttempts',
        'lastDeliveryOutcome',
        'publishTime',
        'lastDeliveryAttemptTime',
      ]);
      expect(record).toMatchObject({
        ...JSON.parse(EVENT_GRID_EVENT),
        deadLetterReason: reason,
        deliveryAttempts: 1,
        lastDeliveryOutcome: 'NotFound',
        publishTime: '2020-08-13T17:18:14.0260000Z',
        lastDeliveryAttemptTime: '2020-08-13T17:18:14.0460000Z',
      });
    },
  );

  it('custom schema: the same fields as Event Grid (the event is already Event Grid-shaped)', () => {
    expect(deadLetterRecord('CustomInputSchema', EVENT_GRID_EVENT, facts('NonRetriableOutcome'))).toBe(
      deadLetterRecord('EventGridSchema', EVENT_GRID_EVENT, facts('NonRetriableOutcome')),
    );
  });

  it('CloudEvents: the same fields with lower-case names', () => {
    const record = JSON.parse(
      deadLetterRecord('CloudEventSchemaV1_0', CLOUD_EVENT, facts('MaxDeliveryAttemptsExceeded')),
    );
    expect(record).toEqual({
      ...JSON.parse(CLOUD_EVENT),
      deadletterreason: 'MaxDeliveryAttemptsExceeded',
      deliveryattempts: 1,
      lastdeliveryoutcome: 'NotFound',
      publishtime: '2020-08-13T17:18:14.0260000Z',
      lastdeliveryattempttime: '2020-08-13T17:18:14.0460000Z',
    });
  });

  it('namespace topics: an envelope of dead-letter properties (lower-case names), the event and custom properties', () => {
    const record = JSON.parse(deadLetterRecord('namespace', CLOUD_EVENT, facts('TimeToLiveExceeded')));
    expect(record).toEqual({
      deadLetterProperties: {
        deadletterreason: 'Event time to live was exceeded.',
        deliveryattempts: 1,
        deliveryresult: 'The destination was not found.',
        publishutc: '2020-08-13T17:18:14.0260000Z',
        deliveryattemptutc: '2020-08-13T17:18:14.0460000Z',
      },
      event: JSON.parse(CLOUD_EVENT),
      customDeliveryProperties: {},
    });
  });

  it('leaves out the outcome and attempt time when no attempt was made', () => {
    const record = JSON.parse(
      deadLetterRecord(
        'EventGridSchema',
        EVENT_GRID_EVENT,
        facts('TimeToLiveExceeded', {
          deliveryAttempts: 0,
          lastDeliveryOutcome: undefined,
          lastDeliveryAttemptTime: undefined,
        }),
      ),
    );
    expect(record).not.toHaveProperty('lastDeliveryOutcome');
    expect(record).not.toHaveProperty('lastDeliveryAttemptTime');
    expect(record.deliveryAttempts).toBe(0);
  });

  it('keeps the event text exactly, and gives it back without the dead-letter fields', () => {
    const exact = '{"id":"x","data":{"n":9007199254740993,"p":1.50},"__proto__":1}';
    for (const format of ['EventGridSchema', 'CloudEventSchemaV1_0', 'namespace'] as const) {
      const record = deadLetterRecord(format, exact, facts('NonRetriableOutcome'));
      expect(record).toContain('9007199254740993');
      expect(eventOfRecord(format, record)).toBe(exact);
    }
  });

  it('writes a blob as a JSON array of records', () => {
    const records = [1, 2].map(() =>
      deadLetterRecord('EventGridSchema', EVENT_GRID_EVENT, facts('NonRetriableOutcome')),
    );
    expect(JSON.parse(deadLetterBlob(records))).toHaveLength(2);
  });
});

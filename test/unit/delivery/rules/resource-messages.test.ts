/**
 * Each service's message for an event, as tables: SQS and SNS batch entries (FIFO group and
 * deduplication ids, an SNS subject, message attributes), EventBridge entries, Kinesis records
 * and a Lambda payload, with the delivery attributes that set their fields.
 */

import { parseResourceArn, type ResourceRef } from '../../../../shared/delivery/rules/resource-destinations';
import {
  EVENTBRIDGE_SOURCE,
  eventBridgeEntryOf,
  kinesisRecordOf,
  lambdaPayloadOf,
  type ResourceMessage,
  snsEntryOf,
  sqsEntryOf,
  subjectOf,
} from '../../../../shared/delivery/rules/resource-messages';

const refOf = (type: 'AwsSqsQueue' | 'AwsSnsTopic', arn: string): ResourceRef => {
  const ref = parseResourceArn(type, arn);
  if ('problem' in ref) throw new Error(ref.problem);
  return ref;
};
const QUEUE = refOf('AwsSqsQueue', 'arn:aws:sqs:us-east-1:123456789012:orders');
const FIFO_QUEUE = refOf('AwsSqsQueue', 'arn:aws:sqs:us-east-1:123456789012:orders.fifo');
const TOPIC = refOf('AwsSnsTopic', 'arn:aws:sns:us-east-1:123456789012:alerts');
const FIFO_TOPIC = refOf('AwsSnsTopic', 'arn:aws:sns:us-east-1:123456789012:alerts.fifo');

const BODY = '{"id":"1","eventType":"Order.Created","subject":"orders/1","data":{"customer":"c-7","n":42}}';
const message = (over: Partial<ResourceMessage> = {}): ResourceMessage => ({
  deliveryId: 'd-1',
  body: BODY,
  attributes: {},
  ...over,
});
/** SHA-256 of `d-1`, in hex. */
const HASH_OF_D1 = '0741a320e613baac937e2644e8e96a2832166a3eb222ade3abbfa21a8cff1035';
const hex64 = expect.stringMatching(/^[0-9a-f]{64}$/);

describe('SQS batch entries', () => {
  it.each([
    ['a standard queue: the body, its index, no FIFO ids', QUEUE, message(), { MessageBody: BODY, Id: '3' }],
    [
      'other attributes as string message attributes',
      QUEUE,
      message({ attributes: { tenant: 'acme' } }),
      {
        MessageBody: BODY,
        Id: '3',
        MessageAttributes: { tenant: { DataType: 'String', StringValue: 'acme' } },
      },
    ],
    [
      'a FIFO queue: grouped by the subject, deduplicated on the delivery id’s hash',
      FIFO_QUEUE,
      message({ groupId: 'orders/1' }),
      { MessageBody: BODY, Id: '3', MessageGroupId: 'orders/1', MessageDeduplicationId: hex64 },
    ],
    [
      'a FIFO queue, no subject: grouped by the queue',
      FIFO_QUEUE,
      message(),
      { MessageBody: BODY, Id: '3', MessageGroupId: 'orders.fifo', MessageDeduplicationId: hex64 },
    ],
    [
      'both ids from attributes of those names, whatever their case; a space is not allowed in them',
      FIFO_QUEUE,
      message({
        groupId: 'orders/1',
        attributes: { messagegroupid: 'tenant 7', MessageDeduplicationId: 'order-1 v2', tenant: 'acme' },
      }),
      {
        MessageBody: BODY,
        Id: '3',
        MessageGroupId: 'tenant_7',
        MessageDeduplicationId: 'order-1_v2',
        MessageAttributes: { tenant: { DataType: 'String', StringValue: 'acme' } },
      },
    ],
    [
      'an id cut to 128 characters',
      FIFO_QUEUE,
      message({ groupId: 'g'.repeat(300) }),
      { MessageBody: BODY, Id: '3', MessageGroupId: 'g'.repeat(128), MessageDeduplicationId: hex64 },
    ],
    [
      'an empty attribute id: the default instead',
      FIFO_QUEUE,
      message({ attributes: { MessageGroupId: '' } }),
      { MessageBody: BODY, Id: '3', MessageGroupId: 'orders.fifo', MessageDeduplicationId: hex64 },
    ],
  ])('%s', (_, ref, input, entry) => {
    expect(sqsEntryOf(input, 3, ref)).toEqual(entry);
  });

  it('deduplicates on the SHA-256 of the delivery id: a retry of it is the same, another delivery is not', () => {
    const first = sqsEntryOf(message(), 0, FIFO_QUEUE).MessageDeduplicationId;
    expect(sqsEntryOf(message(), 5, FIFO_QUEUE).MessageDeduplicationId).toBe(first);
    expect(sqsEntryOf(message({ deliveryId: 'd-2' }), 0, FIFO_QUEUE).MessageDeduplicationId).not.toBe(first);
    expect(first).toBe(HASH_OF_D1);
  });
});

describe('SNS batch entries', () => {
  it.each([
    ['a standard topic: the body, no FIFO ids, no subject', TOPIC, message(), { Message: BODY, Id: '0' }],
    [
      'a subject from the attribute of that name, a line break as a space',
      TOPIC,
      message({ attributes: { subject: 'Order\ncreated', tenant: 'acme' } }),
      {
        Message: BODY,
        Id: '0',
        Subject: 'Order created',
        MessageAttributes: { tenant: { DataType: 'String', StringValue: 'acme' } },
      },
    ],
    [
      'a subject without leading spaces or characters beyond ASCII, under 100 characters',
      TOPIC,
      message({ attributes: { Subject: `  Bestellung ${'ü'.repeat(3)} ${'x'.repeat(200)}` } }),
      { Message: BODY, Id: '0', Subject: `Bestellung     ${'x'.repeat(200)}`.slice(0, 99) },
    ],
    [
      'a subject of spaces only: none',
      TOPIC,
      message({ attributes: { Subject: '   ' } }),
      { Message: BODY, Id: '0' },
    ],
    [
      'a FIFO topic: group and deduplication ids as for a queue',
      FIFO_TOPIC,
      message({ groupId: 'orders/1' }),
      { Message: BODY, Id: '0', MessageGroupId: 'orders/1', MessageDeduplicationId: hex64 },
    ],
  ])('%s', (_, ref, input, entry) => {
    expect(snsEntryOf(input, 0, ref)).toEqual(entry);
  });
});

describe('EventBridge entries', () => {
  const BUS = 'arn:aws:events:us-east-1:123456789012:event-bus/orders';
  it.each([
    [
      'the event as the detail, source gridwire, its Event Grid type as the detail type',
      message(),
      { EventBusName: BUS, Source: EVENTBRIDGE_SOURCE, DetailType: 'Order.Created', Detail: BODY },
    ],
    [
      'a CloudEvent’s type as the detail type',
      message({ body: '{"id":"2","type":"order.paid","data":{}}' }),
      {
        EventBusName: BUS,
        Source: EVENTBRIDGE_SOURCE,
        DetailType: 'order.paid',
        Detail: '{"id":"2","type":"order.paid","data":{}}',
      },
    ],
    [
      'an event without a type: Gridwire.Event',
      message({ body: '{"id":"3"}' }),
      { EventBusName: BUS, Source: EVENTBRIDGE_SOURCE, DetailType: 'Gridwire.Event', Detail: '{"id":"3"}' },
    ],
    [
      'source, detail type, resources (comma-separated) and trace header from attributes of those names',
      message({
        attributes: {
          source: 'com.example.orders',
          DetailType: 'OrderCreated',
          Resources: 'arn:aws:s3:::a, arn:aws:s3:::b,',
          TraceHeader: 'Root=1-5759e988-bd862e3fe1be46a994272793',
        },
      }),
      {
        EventBusName: BUS,
        Source: 'com.example.orders',
        DetailType: 'OrderCreated',
        Detail: BODY,
        Resources: ['arn:aws:s3:::a', 'arn:aws:s3:::b'],
        TraceHeader: 'Root=1-5759e988-bd862e3fe1be46a994272793',
      },
    ],
    [
      'empty attributes: the defaults; values cut to the service’s lengths',
      message({ attributes: { Source: '', DetailType: 'd'.repeat(200), Resources: ' , ', TraceHeader: '' } }),
      { EventBusName: BUS, Source: EVENTBRIDGE_SOURCE, DetailType: 'd'.repeat(128), Detail: BODY },
    ],
  ])('%s', (_, input, entry) => {
    expect(eventBridgeEntryOf(input, BUS)).toEqual(entry);
  });
});

describe('Kinesis records', () => {
  it.each([
    ['the subject', message({ groupId: 'orders/1' }), undefined, 'orders/1'],
    ['no subject: the delivery id', message(), undefined, 'd-1'],
    ['the field the subscription names', message({ groupId: 'orders/1' }), 'data.customer', 'c-7'],
    ['a number field, as written', message(), 'data.n', '42'],
    ['the named field missing: the subject', message({ groupId: 'orders/1' }), 'data.nope', 'orders/1'],
    ['an object field: the subject', message({ groupId: 'orders/1' }), 'data', 'orders/1'],
    [
      'the attribute PartitionKey before all',
      message({ groupId: 'orders/1', attributes: { partitionkey: 'tenant-7' } }),
      'data.customer',
      'tenant-7',
    ],
    ['an empty attribute: the next in line', message({ attributes: { PartitionKey: '' } }), undefined, 'd-1'],
    ['cut to 256 characters', message({ groupId: 'k'.repeat(300) }), undefined, 'k'.repeat(256)],
  ])('keyed by %s', (_, input, field, key) => {
    const record = kinesisRecordOf(input, field);
    expect(record.PartitionKey).toBe(key);
    expect(Buffer.from(record.Data).toString('utf8')).toBe(input.body);
    expect('ExplicitHashKey' in record).toBe(false);
  });

  it('takes the explicit hash key of the attribute of that name', () => {
    const hashKey = '170141183460469231731687303715884105728';
    expect(kinesisRecordOf(message({ attributes: { ExplicitHashKey: hashKey } }), undefined)).toMatchObject({
      PartitionKey: 'd-1',
      ExplicitHashKey: hashKey,
    });
  });
});

describe('a Lambda payload', () => {
  it('is the batch’s events as a JSON array, each as delivered', () => {
    const second = '{"id":"2","type":"order.paid"}';
    const payload = lambdaPayloadOf([message(), message({ deliveryId: 'd-2', body: second })]);
    expect(JSON.parse(Buffer.from(payload).toString('utf8'))).toEqual([JSON.parse(BODY), JSON.parse(second)]);
  });
});

describe('the subject a FIFO destination groups by and a stream keys by', () => {
  it.each([
    [BODY, 'orders/1'],
    ['{"id":"1","subject":""}', undefined],
    ['{"id":"1"}', undefined],
    ['{"id":"1","data":{"subject":"inner"}}', undefined],
    ['{"id":"1","subject":null}', undefined],
  ])('of %s is %p', (eventJson, subject) => {
    expect(subjectOf(eventJson)).toBe(subject);
  });
});

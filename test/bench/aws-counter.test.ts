import { AwsRequestCounter, dynamoWritesOf, sqsBilledChunks } from '../../bench/aws-counter';
import { PRICES } from '../../bench/prices';

describe('AWS request counter', () => {
  it('bills SQS payloads in 64 KiB chunks, at least one per request', () => {
    expect(sqsBilledChunks(0)).toBe(1);
    expect(sqsBilledChunks(PRICES.sqs.chunkBytes)).toBe(1);
    expect(sqsBilledChunks(PRICES.sqs.chunkBytes + 1)).toBe(2);
  });

  it('finds the items a DynamoDB write request writes, and their units', () => {
    expect(dynamoWritesOf('PutItem', { Item: { pk: 'HEALTH#t#s', sk: '#HEALTH', rev: 1 } })).toEqual([
      { kind: 'HEALTH', pk: 'HEALTH#t#s', units: 1 },
    ]);
    expect(dynamoWritesOf('Update', { Key: { pk: 'TOPIC#t', sk: '#TOPIC' } })).toEqual([
      { kind: 'TOPIC', pk: 'TOPIC#t', units: 1 },
    ]);
    expect(
      dynamoWritesOf('BatchWriteItem', {
        RequestItems: {
          table: [
            { PutRequest: { Item: { pk: 'HISTORY#t#s#h#0', records: Buffer.alloc(1500) } } },
            { DeleteRequest: { Key: { pk: 'TOPIC#t', sk: 'SUB#s' } } },
          ],
        },
      }),
    ).toEqual([
      { kind: 'HISTORY', pk: 'HISTORY#t#s#h#0', units: 2 },
      { kind: 'TOPIC', pk: 'TOPIC#t', units: 1 },
    ]);
    expect(dynamoWritesOf('GetItem', { Key: { pk: 'TOPIC#t' } })).toEqual([]);
  });

  it('counts writes by kind, health writes by key with their times, and failed requests', () => {
    const counter = new AwsRequestCounter();
    const put = { Item: { pk: 'HEALTH#t#s', sk: '#HEALTH', rev: 2 } };
    counter.record('dynamodb', 'Put', put, {});
    // A conditional put that lost its race: failed, and still billed.
    counter.record('dynamodb', 'Put', put, undefined);
    counter.record(
      'dynamodb',
      'BatchWrite',
      {
        RequestItems: {
          table: [
            { PutRequest: { Item: { pk: 'HISTORY#a' } } },
            { PutRequest: { Item: { pk: 'HISTORY#b' } } },
          ],
        },
      },
      {},
    );
    counter.record('dynamodb', 'Get', { Key: { pk: 'TOPIC#t' }, ConsistentRead: true }, {});
    const counts = counter.take();
    expect(counts.requests).toEqual({ 'dynamodb:Put': 2, 'dynamodb:BatchWrite': 1, 'dynamodb:Get': 1 });
    expect(counts.failedRequests).toEqual({ 'dynamodb:Put': 1 });
    expect(counts.dynamoWrites).toEqual({
      HEALTH: { requests: 2, items: 2, units: 2 },
      HISTORY: { requests: 1, items: 2, units: 2 },
    });
    expect(counts.dynamoWriteUnits).toBe(4);
    expect(counts.dynamoReadUnits).toBe(1);
    expect(Object.keys(counts.healthWriteTimes)).toEqual(['HEALTH#t#s']);
    expect(counts.healthWriteTimes['HEALTH#t#s']).toHaveLength(2);
    expect(counter.take().requests).toEqual({});
  });

  it('counts SQS requests by queue, leaving empty receives out of the per-queue counts', () => {
    const counter = new AwsRequestCounter();
    const queueUrl = 'http://127.0.0.1:1/000000000000/gridwire-retry';
    counter.record('sqs', 'ReceiveMessage', { QueueUrl: queueUrl }, { Messages: [] });
    counter.record('sqs', 'ReceiveMessage', { QueueUrl: queueUrl }, { Messages: [{ Body: 'x' }] });
    counter.record('sqs', 'SendMessageBatch', { QueueUrl: queueUrl, Entries: [{ MessageBody: 'y' }] }, {});
    counter.record('sqs', 'DeleteMessageBatch', { QueueUrl: queueUrl }, {});
    const counts = counter.take();
    expect(counts.sqsByQueue).toEqual({ 'gridwire-retry': 3 });
    expect(counts.sqsEmptyReceives).toBe(1);
    expect(counts.sqsBilledRequests).toBe(4);
  });

  it('counts the requests to FIFO queues apart, by operation, and single-item reads by kind', () => {
    const counter = new AwsRequestCounter();
    const fifo = 'http://127.0.0.1:1/000000000000/gridwire-ordered.fifo';
    const standard = 'http://127.0.0.1:1/000000000000/gridwire-delivery';
    counter.record('sqs', 'SendMessageBatch', { QueueUrl: fifo, Entries: [{ MessageBody: 'a' }] }, {});
    counter.record('sqs', 'ReceiveMessage', { QueueUrl: fifo }, { Messages: [{ Body: 'a' }] });
    counter.record('sqs', 'ReceiveMessage', { QueueUrl: fifo }, { Messages: [] });
    counter.record('sqs', 'DeleteMessageBatch', { QueueUrl: fifo }, {});
    counter.record('sqs', 'ChangeMessageVisibility', { QueueUrl: fifo }, {});
    counter.record('sqs', 'ReceiveMessage', { QueueUrl: standard }, { Messages: [] });
    counter.record('sqs', 'SendMessageBatch', { QueueUrl: standard, Entries: [{ MessageBody: 'b' }] }, {});
    counter.record(
      'dynamodb',
      'GetItem',
      { Key: { pk: 'ORDERED#t#s#d', sk: '#PROGRESS' }, ConsistentRead: true },
      {},
    );
    counter.record('dynamodb', 'GetItem', { Key: { pk: 'TOPIC#t', sk: '#TOPIC' } }, {});
    const counts = counter.take();
    expect(counts.sqsBilledRequests).toBe(7);
    expect(counts.sqsFifoBilledRequests).toBe(5);
    expect(counts.sqsEmptyReceives).toBe(2);
    expect(counts.sqsFifoEmptyReceives).toBe(1);
    expect(counts.sqsFifoRequests).toEqual({
      SendMessageBatch: 1,
      ReceiveMessage: 1,
      DeleteMessageBatch: 1,
      ChangeMessageVisibility: 1,
    });
    expect(counts.dynamoGets).toEqual({ ORDERED: 1, TOPIC: 1 });
    expect(counts.dynamoReadUnits).toBe(1.5);

    const into = new AwsRequestCounter();
    into.add(counts);
    into.add(counts);
    const added = into.take();
    expect(added.sqsFifoBilledRequests).toBe(10);
    expect(added.sqsFifoEmptyReceives).toBe(2);
    expect(added.sqsFifoRequests.SendMessageBatch).toBe(2);
    expect(added.dynamoGets).toEqual({ ORDERED: 2, TOPIC: 2 });
  });

  it("counts the local stack's own queue-depth reads without billing them", () => {
    const counter = new AwsRequestCounter();
    counter.record('sqs', 'GetQueueAttributes', { QueueUrl: 'http://sqs/q/delivery' }, {});
    counter.record('sqs', 'SendMessage', { QueueUrl: 'http://sqs/q/delivery', MessageBody: 'x' }, {});
    const counts = counter.take();
    expect(counts.requests).toEqual({ 'sqs:GetQueueAttributes': 1, 'sqs:SendMessage': 1 });
    expect(counts.sqsBilledRequests).toBe(1);
    expect(counts.sqsByQueue).toEqual({ delivery: 1 });
  });

  it("adds another process's counts to its own", () => {
    const here = new AwsRequestCounter();
    const there = new AwsRequestCounter();
    here.record('sqs', 'SendMessage', { QueueUrl: 'http://sqs/q/delivery', MessageBody: 'x' }, {});
    there.record('sqs', 'SendMessage', { QueueUrl: 'http://sqs/q/delivery', MessageBody: 'x' }, {});
    there.record('dynamodb', 'Put', { Item: { pk: 'HEALTH#t#s', sk: '#HEALTH', rev: 1 } }, {});
    here.add(there.take());
    const counts = here.take();
    expect(counts.requests).toEqual({ 'sqs:SendMessage': 2, 'dynamodb:Put': 1 });
    expect(counts.sqsBilledRequests).toBe(2);
    expect(counts.sqsByQueue).toEqual({ delivery: 2 });
    expect(counts.dynamoWriteUnits).toBe(1);
    expect(counts.dynamoWrites).toEqual({ HEALTH: { requests: 1, items: 1, units: 1 } });
    expect(Object.keys(counts.healthWriteTimes)).toEqual(['HEALTH#t#s']);
  });
});

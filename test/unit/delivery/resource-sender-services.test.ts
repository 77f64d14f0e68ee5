/**
 * EventBridge, Lambda and Kinesis destinations at the SDK's request and response shapes (there is
 * no emulator for them here), with `aws-sdk-client-mock`: that each call carries the messages
 * (their fields are tabled in `rules/resource-messages.test.ts`), and each message's result when
 * the service refuses some entries or the whole call.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { AwsResourceSender } from '../../../shared/delivery/resource-sender';
import { EVENTBRIDGE_SOURCE, type ResourceMessage } from '../../../shared/delivery/rules/resource-messages';
import type { ResourceDestination } from '../../../shared/domain/model';
import { VirtualClock } from '../../../shared/platform/clock';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const eventBridge = new EventBridgeClient({ region: 'us-east-1', credentials });
const lambda = new LambdaClient({ region: 'us-east-1', credentials });
const kinesis = new KinesisClient({ region: 'us-east-1', credentials });
const mocks = {
  eventBridge: mockClient(eventBridge),
  lambda: mockClient(lambda),
  kinesis: mockClient(kinesis),
};

const sender = new AwsResourceSender({
  clients: {
    sqs: () => undefined as unknown as SQSClient,
    sns: () => undefined as unknown as SNSClient,
    eventBridge: () => eventBridge,
    lambda: () => lambda,
    kinesis: () => kinesis,
  },
  clock: new VirtualClock(),
});

const messages: ResourceMessage[] = [
  {
    deliveryId: 'd-1',
    body: '{"id":"1","eventType":"Order.Created","subject":"orders/1","data":{"customer":"c-7"}}',
    attributes: {},
    groupId: 'orders/1',
  },
  { deliveryId: 'd-2', body: '{"id":"2","type":"order.paid","data":{}}', attributes: {} },
];

beforeEach(() => {
  for (const mock of Object.values(mocks)) mock.reset();
});

describe('EventBridge destinations', () => {
  const bus: ResourceDestination = {
    endpointType: 'AwsEventBridgeBus',
    resourceArn: 'arn:aws:events:us-east-1:123456789012:event-bus/orders',
  };

  it('put an entry per event: source gridwire, the event type as detail type, the event as detail', async () => {
    mocks.eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'a' }, { EventId: 'b' }] });
    const results = await sender.send(bus, messages);
    expect(results.every((result) => result.delivered)).toBe(true);
    const [call] = mocks.eventBridge.commandCalls(PutEventsCommand);
    expect(call?.args[0].input.Entries).toEqual([
      {
        EventBusName: bus.resourceArn,
        Source: EVENTBRIDGE_SOURCE,
        DetailType: 'Order.Created',
        Detail: messages[0]?.body,
      },
      {
        EventBusName: bus.resourceArn,
        Source: EVENTBRIDGE_SOURCE,
        DetailType: 'order.paid',
        Detail: messages[1]?.body,
      },
    ]);
  });

  it('give a refused entry its own failure, by the error’s rule', async () => {
    mocks.eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ EventId: 'a' }, { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }],
    });
    const [first, second] = await sender.send(bus, messages);
    expect(first).toMatchObject({ delivered: true });
    expect(second).toMatchObject({ delivered: false, outcome: 'Busy', errorCode: 'ThrottlingException' });
  });
});

describe('Lambda destinations', () => {
  const fn: ResourceDestination = {
    endpointType: 'AwsLambdaFunction',
    resourceArn: 'arn:aws:lambda:us-east-1:123456789012:function:orders',
  };

  it('invoke asynchronously with the batch as a JSON array', async () => {
    mocks.lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    const results = await sender.send(fn, messages);
    expect(results.every((result) => result.delivered)).toBe(true);
    const input = mocks.lambda.commandCalls(InvokeCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ FunctionName: fn.resourceArn, InvocationType: 'Event' });
    expect(JSON.parse(Buffer.from(input?.Payload as Uint8Array).toString('utf8'))).toEqual(
      messages.map((message) => JSON.parse(message.body)),
    );
  });

  it('fail the whole batch when a synchronous invocation’s function fails; a missing function ends it', async () => {
    mocks.lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled' });
    const failed = await sender.send({ ...fn, invocationType: 'RequestResponse' }, messages);
    expect(failed).toEqual([
      expect.objectContaining({ delivered: false, outcome: 'GenericError', errorCode: 'FunctionError' }),
      expect.objectContaining({ delivered: false, errorCode: 'FunctionError' }),
    ]);
    expect(mocks.lambda.commandCalls(InvokeCommand)[0]?.args[0].input.InvocationType).toBe('RequestResponse');

    mocks.lambda
      .on(InvokeCommand)
      .rejects(Object.assign(new Error('Function not found'), { name: 'ResourceNotFoundException' }));
    const [missing] = await sender.send(fn, messages);
    expect(missing).toMatchObject({
      delivered: false,
      outcome: 'NotFound',
      errorCode: 'ResourceNotFoundException',
    });
  });
});

describe('Kinesis destinations', () => {
  const stream: ResourceDestination = {
    endpointType: 'AwsKinesisStream',
    resourceArn: 'arn:aws:kinesis:us-east-1:123456789012:stream/orders',
  };

  it('put a record per event, keyed by the subject (or the delivery id), each record its own result', async () => {
    mocks.kinesis.on(PutRecordsCommand).resolves({
      FailedRecordCount: 1,
      Records: [
        { SequenceNumber: '1', ShardId: 's' },
        { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'slow down' },
      ],
    });
    const [first, second] = await sender.send(stream, messages);
    expect(first).toMatchObject({ delivered: true });
    expect(second).toMatchObject({
      delivered: false,
      outcome: 'Full',
      errorCode: 'ProvisionedThroughputExceededException',
    });
    const input = mocks.kinesis.commandCalls(PutRecordsCommand)[0]?.args[0].input;
    expect(input?.StreamARN).toBe(stream.resourceArn);
    expect(input?.Records?.map((record) => record.PartitionKey)).toEqual(['orders/1', 'd-2']);
    expect(Buffer.from(input?.Records?.[0]?.Data as Uint8Array).toString('utf8')).toBe(messages[0]?.body);
  });
});

describe('a destination this worker cannot reach', () => {
  it('fails its messages as a service that is down, retried', async () => {
    const local = new AwsResourceSender({
      clients: { sqs: () => undefined as unknown as SQSClient, sns: () => undefined as unknown as SNSClient },
      clock: new VirtualClock(),
    });
    const [result] = await local.send(
      {
        endpointType: 'AwsKinesisStream',
        resourceArn: 'arn:aws:kinesis:us-east-1:123456789012:stream/orders',
      },
      messages,
    );
    expect(result).toMatchObject({ delivered: false, outcome: 'Busy', errorCode: 'ServiceUnavailable' });
  });
});

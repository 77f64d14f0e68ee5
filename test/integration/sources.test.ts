/**
 * Sources on the real local stack (`--source`), against the SQS emulator: messages put on a queue
 * reach the webhook subscription of a topic created after the stack started, in the topic's
 * schema; a malformed message, and one the publish rules refuse, end in the queue's dead-letter
 * queue (the stack created both) and are counted per source; an EventBridge event sent to the
 * route standing for a bus rule reaches a CloudEvents topic's subscription converted.
 */
import { GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { parseSourceArgument } from '../../local/source-spec';
import { S3_OBJECT_CREATED } from '../support/eventbridge-events';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({
    timeScale: 60,
    sources: [
      parseSourceArgument('sqs:orders-in=orders'),
      parseSourceArgument('sqs:bridged-in=orders:eventBridge'),
      parseSourceArgument('eventbridge:uploads=uploads'),
    ],
  });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

/** Puts a message on a source queue of the emulator, as a producer of the deployer's would. */
async function put(queue: string, body: string): Promise<void> {
  const { QueueUrl } = await api.stack.clients.sqs.send(new GetQueueUrlCommand({ QueueName: queue }));
  await api.stack.clients.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
}

/** The bodies in a queue's dead-letter queue, once there are `count`. */
const deadLettered = (queue: string, count: number) => {
  const bodies: string[] = [];
  return eventually(
    async () => {
      const { QueueUrl } = await api.stack.clients.sqs.send(
        new GetQueueUrlCommand({ QueueName: `${queue}-dlq` }),
      );
      const { Messages } = await api.stack.clients.sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      bodies.push(...(Messages ?? []).map((message) => message.Body ?? ''));
      return bodies.length >= count && bodies;
    },
    30_000,
    `${count} messages in ${queue}-dlq`,
  );
};

const refusedCount = async (source: string): Promise<number> => {
  const { metrics } = (await api.call('GET', '/local/status')).body as {
    metrics: { name: string; dimensions: Record<string, string>; sum: number }[];
  };
  return (
    metrics.find((metric) => metric.name === 'SourceRefusedCount' && metric.dimensions.Source === source)
      ?.sum ?? 0
  );
};

it("publishes a queue's messages to a topic created after the stack started, in its schema", async () => {
  await api.createTopic('orders');
  await api.subscribe('orders', 'hook', webhook.url('/orders'));
  await put('orders-in', JSON.stringify(event('q-1')));
  await put('orders-in', JSON.stringify([event('q-2'), event('q-3')]));
  for (const id of ['q-1', 'q-2', 'q-3']) {
    const request = await webhook.requestWith('/orders', `"id":"${id}"`);
    expect(JSON.parse(request.body)[0]).toMatchObject({
      id,
      eventType: 'Order.Created',
      subject: `orders/${id}`,
    });
  }
});

it("ends a malformed message and one the publish rules refuse in the queue's DLQ, counted", async () => {
  await put('orders-in', 'not json');
  // The publish API would refuse it too: an Event Grid event needs an eventType.
  await put('orders-in', JSON.stringify({ ...event('q-bad'), eventType: undefined }));
  const bodies = await deadLettered('orders-in', 2);
  expect(bodies.sort()).toEqual(
    [JSON.stringify({ ...event('q-bad'), eventType: undefined }), 'not json'].sort(),
  );
  expect(await refusedCount('orders-in')).toBeGreaterThanOrEqual(2);
  expect(webhook.requestsTo('/orders').some((request) => request.body.includes('q-bad'))).toBe(false);
});

it('converts the EventBridge events of a queue, and those the bus route is given', async () => {
  const s3Event = { ...S3_OBJECT_CREATED, id: 'eb-1', detail: { object: { key: 'a.png' } } };

  // An Event Grid topic's queue of EventBridge events.
  await put('bridged-in', JSON.stringify(s3Event));
  const bridged = JSON.parse((await webhook.requestWith('/orders', '"id":"eb-1"')).body)[0];
  expect(bridged).toMatchObject({
    id: 'eb-1',
    eventType: 'Object Created',
    subject: 'aws.s3/arn:aws:s3:::uploads',
    eventTime: '2026-12-01T10:00:00Z',
    data: { object: { key: 'a.png' } },
    dataVersion: '1',
  });

  // A CloudEvents topic fed by a bus rule.
  expect(
    (await api.call('PUT', '/admin/topics/uploads', { properties: { inputSchema: 'CloudEventSchemaV1_0' } }))
      .status,
  ).toBe(201);
  await api.subscribe('uploads', 'hook', webhook.url('/uploads'));
  const sent = await api.call('POST', '/local/eventbridge/uploads', [{ ...s3Event, id: 'eb-2' }]);
  expect(sent).toMatchObject({ status: 200, body: { queued: 1 } });
  const delivered = JSON.parse((await webhook.requestWith('/uploads', '"id":"eb-2"')).body)[0];
  expect(delivered).toMatchObject({
    specversion: '1.0',
    id: 'eb-2',
    type: 'Object Created',
    source: 'aws.s3',
    subject: 'arn:aws:s3:::uploads',
    time: '2026-12-01T10:00:00Z',
    data: { object: { key: 'a.png' } },
  });

  // A route no source stands behind.
  expect((await api.call('POST', '/local/eventbridge/nope', [s3Event])).status).toBe(404);
});

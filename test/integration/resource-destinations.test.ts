/**
 * AWS resource destinations on the local stack: events delivered as SQS messages and SNS
 * notifications to the emulator's queues and topics, read back with the AWS SDK; custom delivery
 * attributes as message attributes; a queue that does not exist yet is retried 5 minutes later; one made
 * and changed from the command line; an ARN of the wrong kind refused with the field named.
 */

import { join } from 'node:path';
import { CreateTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { runGridwire } from '../../cli/program';
import { invokedBatches } from '../support/fixtures/local-lambda';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually } from '../support/webhook-server';

/** A local function the stack runs for Lambda destinations (`--lambda orders-fn=...`). */
const LOCAL_FUNCTION = join(__dirname, '..', 'support', 'fixtures', 'local-lambda.ts');
const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:orders-fn';

let api: TestStack;
let key: string;
let sqs: SQSClient;

beforeAll(async () => {
  api = await startTestStack({ timeScale: 60, lambdaFunctions: { 'orders-fn': LOCAL_FUNCTION } });
  key = await api.createTopic('resources');
  sqs = api.stack.clients.resources?.sqs('us-east-1') as SQSClient;
}, 30_000);

afterAll(async () => {
  await api?.close();
});

const route = (name: string) => `/admin/topics/resources/eventSubscriptions/${name}`;

/** A queue of the emulator: its URL and ARN. */
async function queue(name: string): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: QueueUrl as string, arn: Attributes?.QueueArn as string };
}

/** Reads `count` messages from the queue, waiting for them. */
async function receive(url: string, count: number): Promise<Message[]> {
  const received: Message[] = [];
  await eventually(
    async () => {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      );
      received.push(...(Messages ?? []));
      return received.length >= count;
    },
    15_000,
    `${count} messages in ${url}`,
  );
  return received;
}

const subscribeTo = (name: string, endpointType: string, properties: Record<string, unknown>) =>
  api.call('PUT', route(name), { properties: { destination: { endpointType, properties } } });

describe('AWS resource destinations', () => {
  it('delivers each event as an SQS message, custom attributes as message attributes', async () => {
    const target = await queue('orders-out');
    const saved = await subscribeTo('to-sqs', 'AwsSqsQueue', {
      resourceArn: target.arn,
      deliveryAttributeMappings: [{ name: 'tenant', type: 'Static', properties: { value: 'acme' } }],
    });
    expect(saved.status).toBe(201);
    expect(saved.body.properties.destination).toMatchObject({
      endpointType: 'AwsSqsQueue',
      properties: { resourceArn: target.arn },
    });
    expect(saved.body.properties.provisioningState).toBe('Succeeded');

    const ids = ['sqs-1', 'sqs-2', 'sqs-3'];
    expect(
      (
        await api.publish(
          'resources',
          key,
          ids.map((id) => event(id)),
        )
      ).status,
    ).toBe(200);
    const messages = await receive(target.url, 3);
    const bodies = messages.map((message) => JSON.parse(message.Body as string));
    expect(bodies.map((body) => body.id).sort()).toEqual(ids);
    // The event as the subscription receives it (Event Grid schema), one per message.
    expect(bodies[0]).toMatchObject({
      subject: expect.stringMatching(/^orders\//),
      eventType: 'Order.Created',
    });
    expect(messages[0]?.MessageAttributes?.tenant).toMatchObject({ DataType: 'String', StringValue: 'acme' });
  });

  it("sets a FIFO queue's group id from an attribute of that name, the rest staying attributes", async () => {
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: 'tenants-out.fifo', Attributes: { FifoQueue: 'true' } }),
    );
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const saved = await subscribeTo('to-fifo', 'AwsSqsQueue', {
      resourceArn: Attributes?.QueueArn,
      deliveryAttributeMappings: [
        { name: 'MessageGroupId', type: 'Dynamic', properties: { sourceField: 'data.tenant' } },
        { name: 'region', type: 'Static', properties: { value: 'eu' } },
      ],
    });
    expect(saved.status).toBe(201);
    const published = await api.publish('resources', key, [
      event('fifo-1', 'Order.Created', { tenant: 'tenant-7' }),
      event('fifo-2', 'Order.Created', { tenant: 'tenant-9' }),
    ]);
    expect(published.status).toBe(200);
    const received: Message[] = [];
    await eventually(
      async () => {
        const { Messages } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['MessageGroupId'],
          }),
        );
        received.push(...(Messages ?? []));
        return received.length >= 2;
      },
      15_000,
      'two messages in the FIFO queue',
    );
    const groups = Object.fromEntries(
      received.map((message) => [JSON.parse(message.Body as string).id, message.Attributes?.MessageGroupId]),
    );
    expect(groups).toEqual({ 'fifo-1': 'tenant-7', 'fifo-2': 'tenant-9' });
    expect(received[0]?.MessageAttributes).toEqual({ region: { DataType: 'String', StringValue: 'eu' } });
  });

  it('publishes each event as an SNS notification, which the topic fans out', async () => {
    const sns = api.stack.clients.resources?.sns('us-east-1');
    if (sns === undefined) throw new Error('the local stack has no SNS client');
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'alerts-out' }));
    const listener = await queue('alerts-listener');
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: listener.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    expect((await subscribeTo('to-sns', 'AwsSnsTopic', { resourceArn: TopicArn })).status).toBe(201);

    expect((await api.publish('resources', key, [event('sns-1')])).status).toBe(200);
    const [message] = await receive(listener.url, 1);
    expect(JSON.parse(message?.Body as string)).toMatchObject({ id: 'sns-1' });
  });

  it('retries a queue that does not exist yet after 5 minutes (scaled), so a queue made later gets the event', async () => {
    // Seed 003, "Retry schedule", the status table: "404 Not Found | Retry after 5 minutes or more
    // for Azure Resources Endpoints". A queue made by the same deploy may not be there yet.
    const name = 'made-later';
    const arn = `arn:aws:sqs:us-east-1:000000000000:${name}`;
    expect((await subscribeTo('to-later', 'AwsSqsQueue', { resourceArn: arn })).status).toBe(201);
    expect((await api.publish('resources', key, [event('later-1')])).status).toBe(200);
    const first = await eventually(
      async () => {
        const found = await api.call('GET', `${route('to-later')}/deliveries?eventId=later-1`);
        return found.status === 200 && found.body.value?.length > 0 && found.body.value[0];
      },
      15_000,
      'the delivery record of later-1',
    );
    expect(first.attempts[0]).toMatchObject({ outcome: 'NotFound' });
    expect(first.nextAttemptTime).toBeDefined();
    expect(JSON.stringify(first)).not.toContain('NonRetriableOutcome');

    const made = await queue(name);
    const [message] = await receive(made.url, 1);
    expect(JSON.parse(message?.Body as string)).toMatchObject({ id: 'later-1' });
    const record = await eventually(
      async () => {
        const found = await api.call('GET', `${route('to-later')}/deliveries?eventId=later-1`);
        const value = found.body.value?.[0];
        return value?.attempts.at(-1)?.outcome === 'Delivered' ? value : undefined;
      },
      15_000,
      'the successful attempt of later-1',
    );
    const times = record.attempts.map((attempt: { time: string }) => Date.parse(attempt.time));
    // Every retry after a NotFound came 5 minutes (5 s at this time scale) or more after it.
    for (let index = 1; index < times.length; index += 1) {
      expect(times[index] - times[index - 1]).toBeGreaterThanOrEqual(5_000);
    }
  });

  it('is created, shown and updated from the command line with --resource-arn', async () => {
    const target = await queue('cli-out');
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
      lines.push(parts.map(String).join(' '));
    });
    const gridwire = (...args: string[]) => runGridwire([...args, '--data-dir', api.stack.dataDir]);
    try {
      await gridwire(
        'subscription',
        'create',
        '--topic',
        'resources',
        '--name',
        'by-cli',
        '--resource-arn',
        target.arn,
      );
      await gridwire(
        'subscription',
        'update',
        '--topic',
        'resources',
        '--name',
        'by-cli',
        '--max-deliveries-per-second',
        '7',
      );
      await gridwire('subscription', 'show', '--topic', 'resources', '--name', 'by-cli');
    } finally {
      log.mockRestore();
    }
    const shown = lines.join('\n');
    expect(shown).toContain(target.arn);
    expect(shown).toContain('7 requests per second');
    const stored = (await api.call('GET', route('by-cli'))).body.properties.destination;
    expect(stored).toMatchObject({
      endpointType: 'AwsSqsQueue',
      properties: { resourceArn: target.arn, maxDeliveriesPerSecond: 7 },
    });
    expect((await api.publish('resources', key, [event('cli-1')])).status).toBe(200);
    const [message] = await receive(target.url, 1);
    expect(JSON.parse(message?.Body as string)).toMatchObject({ id: 'cli-1' });
  });

  it('invokes a local Lambda function with each batch, asynchronously', async () => {
    const saved = await subscribeTo('to-fn', 'AwsLambdaFunction', {
      resourceArn: FUNCTION_ARN,
      maxEventsPerBatch: 2,
    });
    expect(saved.status).toBe(201);
    expect(
      (
        await api.publish(
          'resources',
          key,
          ['fn-1', 'fn-2', 'fn-3'].map((id) => event(id)),
        )
      ).status,
    ).toBe(200);
    const batches = await eventually(
      () => {
        const found = invokedBatches().filter((batch) =>
          batch.events.some((one) => one.id.startsWith('fn-')),
        );
        return found.flatMap((batch) => batch.events).length >= 3 && found;
      },
      15_000,
      'three events at the local function',
    );
    expect(batches.map((batch) => batch.events.length).sort()).toEqual([1, 2]);
    expect(batches.every((batch) => batch.functionName === 'orders-fn')).toBe(true);
  });

  it('retries a batch whose synchronous invocation the function fails', async () => {
    const saved = await subscribeTo('to-fn-sync', 'AwsLambdaFunction', {
      resourceArn: FUNCTION_ARN,
      invocationType: 'RequestResponse',
    });
    expect(saved.status).toBe(201);
    expect(
      (await api.publish('resources', key, [event('fn-fail', 'Order.Created', { fail: true })])).status,
    ).toBe(200);
    const record = await eventually(
      async () => {
        const found = await api.call('GET', `${route('to-fn-sync')}/deliveries?eventId=fn-fail`);
        return found.status === 200 && found.body.value?.[0]?.attempts?.length >= 2 && found.body.value[0];
      },
      20_000,
      'two attempts of fn-fail',
    );
    expect(record.attempts[0]).toMatchObject({ outcome: 'GenericError' });
    expect(JSON.stringify(record.attempts[0])).toContain('FunctionError');
  });

  it('refuses what the local stack cannot reach, and settings of another type', async () => {
    const bus = await subscribeTo('to-bus', 'AwsEventBridgeBus', {
      resourceArn: 'arn:aws:events:us-east-1:000000000000:event-bus/orders',
    });
    expect(bus.status).toBe(400);
    expect(bus.body.error.message).toContain(
      'properties.destination.endpointType: this stack cannot reach AwsEventBridgeBus destinations',
    );
    const misplaced = await subscribeTo('misplaced', 'AwsSqsQueue', {
      resourceArn: 'arn:aws:sqs:us-east-1:000000000000:orders-out',
      invocationType: 'RequestResponse',
    });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.error.message).toContain(
      'properties.destination.properties.invocationType: is for AwsLambdaFunction destinations only',
    );
  });

  it('refuses an ARN of another kind of resource, naming the field', async () => {
    const refused = await subscribeTo('wrong-kind', 'AwsSqsQueue', {
      resourceArn: 'arn:aws:sns:us-east-1:000000000000:alerts-out',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain(
      'properties.destination.properties.resourceArn: must be the ARN of the sqs resource',
    );
  });
});

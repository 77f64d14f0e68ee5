/**
 * `gridwire parked list|redrive` against the real local stack: a real delivery job put into a
 * redrive queue is listed without being consumed, then moved back and delivered.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { formatList, listParked, redriveParked } from '../../cli/parked';
import { localTargets, type QueueTarget, selectQueues } from '../../cli/targets';
import { currentQueueUrl } from '../../local/endpoints-file';
import { QUEUES, type QueueKey } from '../../shared/config/resources';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
/** While true, the delivery handler keeps the jobs it gets instead of delivering them. */
let keepJobs = false;
const keptJobs: string[] = [];

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({
    timeScale: 10,
    wrapDeliveryHandler: (handler) => async (sqsEvent, context) => {
      if (!keepJobs || !('Records' in sqsEvent)) return handler(sqsEvent, context);
      keptJobs.push(...sqsEvent.Records.map((record) => record.body));
      return { batchItemFailures: [] };
    },
  });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

/** A queue as endpoints.json names it: on the emulator's endpoint as it listens now. */
const queueOf = (key: QueueKey): QueueTarget => ({
  key,
  url: currentQueueUrl(api.stack.resources.queueUrls[key], api.stack.endpoints.sqs),
  redriveUrl: currentQueueUrl(api.stack.resources.redriveQueueUrls[key], api.stack.endpoints.sqs),
});

async function countIn(url: string): Promise<{ visible: number; hidden: number }> {
  const { Attributes } = await api.stack.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages),
    hidden: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
}

/** A real job, as publish wrote it for the subscription, taken before delivery could see it. */
async function publishedJob(topic: string, key: string, eventId: string): Promise<string> {
  keepJobs = true;
  try {
    const before = keptJobs.length;
    expect((await api.publish(topic, key, [event(eventId)])).status).toBe(200);
    await eventually(() => keptJobs.length > before, 5_000, 'the job to reach the delivery handler');
    return keptJobs[before] as string;
  } finally {
    keepJobs = false;
  }
}

it('finds the queues of the running local stack through its data directory', async () => {
  const targets = await localTargets(api.stack.dataDir);
  expect(selectQueues(targets)).toEqual(Object.keys(QUEUES).map((key) => queueOf(key as QueueKey)));

  const empty = await mkdtemp(join(tmpdir(), 'gridwire-parked-'));
  try {
    await expect(localTargets(empty)).rejects.toThrow(
      `the local stack is not running in ${empty}; start it with npm start or pass --stack`,
    );
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
});

it('lists a parked job without consuming it, then moves it back to be delivered', async () => {
  const key = await api.createTopic('parking');
  await api.subscribe('parking', 'hook', webhook.url('/parked'));
  const body = await publishedJob('parking', key, 'parked-1');
  const delivery = queueOf('delivery');
  await api.stack.clients.sqs.send(
    new SendMessageCommand({ QueueUrl: delivery.redriveUrl, MessageBody: body }),
  );

  const report = await listParked(api.stack.clients.sqs, delivery, { waitTimeSeconds: 0 });
  expect(report).toMatchObject({ queue: 'delivery', parked: 1, hidden: 0 });
  expect(report.messages).toEqual([
    expect.objectContaining({
      messageId: expect.any(String),
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      receiveCount: 1,
      bytes: Buffer.byteLength(body),
      job: { kind: 'deliver', topic: 'parking', subscription: 'hook', events: 1, eventIds: ['parked-1'] },
    }),
  ]);
  expect(formatList([report])).toContain('topic parking, subscription hook: 1 event (parked-1)');
  expect(await countIn(delivery.redriveUrl)).toEqual({ visible: 1, hidden: 0 });
  expect(webhook.requestsTo('/parked')).toHaveLength(0);

  const moved = await redriveParked(api.stack.clients.sqs, delivery, { waitTimeSeconds: 0 });
  expect(moved).toEqual({ queue: 'delivery', moved: 1, notDeleted: 0, failed: [] });
  const request = await eventually(() => webhook.requestsTo('/parked')[0], 5_000, 'the redriven delivery');
  expect(JSON.parse(request.body)[0].id).toBe('parked-1');
  expect(await countIn(delivery.redriveUrl)).toEqual({ visible: 0, hidden: 0 });
});

it('moves no more than the limit, exact bodies, and leaves the rest parked and visible', async () => {
  const retry = queueOf('retry');
  const bodies = ['not json', '{"also":"not a job"}', 'still not json'];
  for (const body of bodies) {
    await api.stack.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: retry.redriveUrl, MessageBody: body }),
    );
  }
  const listed = await listParked(api.stack.clients.sqs, retry, { limit: 2, waitTimeSeconds: 0 });
  expect(listed.parked).toBe(3);
  expect(listed.messages).toHaveLength(2);
  for (const message of listed.messages) expect(message).not.toHaveProperty('job');
  expect(formatList([listed])).toContain('1 more not shown');

  // Into a queue nothing consumes, to see exactly what arrives.
  const { QueueUrl } = await api.stack.clients.sqs.send(
    new CreateQueueCommand({ QueueName: 'parked-target' }),
  );
  const target = { ...retry, url: QueueUrl as string };
  const moved = await redriveParked(api.stack.clients.sqs, target, { limit: 2, waitTimeSeconds: 0 });
  expect(moved).toEqual({ queue: 'retry', moved: 2, notDeleted: 0, failed: [] });
  const { Messages = [] } = await api.stack.clients.sqs.send(
    new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }),
  );
  expect(Messages).toHaveLength(2);
  for (const message of Messages) expect(bodies).toContain(message.Body);
  expect(await countIn(retry.redriveUrl)).toEqual({ visible: 1, hidden: 0 });
});

it("lists the ordered (FIFO) queue's parked messages with their key group, and moves them back in order, each key's in its group", async () => {
  const ordered = queueOf('ordered');
  const parked = [
    { body: 'a1', group: 'sub#key-a' },
    { body: 'b1', group: 'sub#key-b' },
    { body: 'a2', group: 'sub#key-a' },
    { body: 'a3', group: 'sub#key-a' },
  ];
  for (const [index, message] of parked.entries()) {
    await api.stack.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: ordered.redriveUrl,
        MessageBody: message.body,
        MessageGroupId: message.group,
        MessageDeduplicationId: `parked-${index}`,
      }),
    );
  }
  const listed = await listParked(api.stack.clients.sqs, ordered, { waitTimeSeconds: 0 });
  expect(listed).toMatchObject({ queue: 'ordered', parked: 4, fifo: true });
  // The emulator hands out one message of a group at a time (AWS may hand out more): the first of each key.
  expect(listed.messages.map((message) => message.group).sort()).toEqual(['sub#key-a', 'sub#key-b']);
  expect(formatList([listed])).toContain('key group sub#key-a');
  expect(formatList([listed])).toContain(
    "2 more not shown (--limit; a key's later messages show once the ones before them are moved back)",
  );
  expect(await countIn(ordered.redriveUrl)).toEqual({ visible: 4, hidden: 0 });

  // Into a FIFO queue nothing consumes, to see exactly what arrives, in which group and order.
  const { QueueUrl } = await api.stack.clients.sqs.send(
    new CreateQueueCommand({ QueueName: 'parked-target.fifo', Attributes: { FifoQueue: 'true' } }),
  );
  const target = { ...ordered, url: QueueUrl as string };
  const moved = await redriveParked(api.stack.clients.sqs, target, { waitTimeSeconds: 0 });
  expect(moved).toEqual({ queue: 'ordered', moved: 4, notDeleted: 0, failed: [] });
  expect(await countIn(ordered.redriveUrl)).toEqual({ visible: 0, hidden: 0 });
  const arrived: Array<{ body?: string; group?: string }> = [];
  for (let receives = 0; arrived.length < parked.length && receives < 20; receives += 1) {
    const { Messages = [] } = await api.stack.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MaxNumberOfMessages: 10,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    for (const message of Messages) {
      arrived.push({ body: message.Body, group: message.Attributes?.MessageGroupId });
      await api.stack.clients.sqs.send(
        new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
  }
  expect(arrived.filter((message) => message.group === 'sub#key-a').map((message) => message.body)).toEqual([
    'a1',
    'a2',
    'a3',
  ]);
  expect(arrived.filter((message) => message.group === 'sub#key-b').map((message) => message.body)).toEqual([
    'b1',
  ]);
});

it('runs from the command line against the local stack', async () => {
  const root = resolve(__dirname, '../..');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      'bin/gridwire.ts',
      'parked',
      'list',
      '--data-dir',
      api.stack.dataDir,
      '--queue',
      'delivery',
      '--json',
    ],
    { cwd: root, timeout: 15_000 },
  );
  expect(JSON.parse(stdout)).toEqual([
    { queue: 'delivery', redriveUrl: queueOf('delivery').redriveUrl, parked: 0, hidden: 0, messages: [] },
  ]);
}, 20_000);

/**
 * The backlog's local resources and the store step against the emulators: the local stack's
 * provisioning makes the backlog queue (with its redrive queue) and bucket as `QUEUES` and
 * `BACKLOG_BUCKET` define them, and a `store` job sent to that queue becomes a segment in the
 * bucket, its index item and META in the table, and a tick on the retry queue.
 */
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type Emulators, startEmulators } from '../../local/emulators';
import { localBatchSize } from '../../local/event-sources';
import { type LocalResources, provisionLocalResources } from '../../local/provision';
import { BACKLOG_BUCKET, QUEUES, SQS_LIMITS, TABLE } from '../../shared/config/resources';
import { BacklogStoreStep } from '../../shared/delivery/backlog/store-step';
import { backlogTickJobSchema, JOB_FORMAT_VERSION, type StoreJob } from '../../shared/domain/delivery';
import { topicIdOf } from '../../shared/domain/names';
import { silentLogger } from '../../shared/observability/logging';
import { MetricBuffer } from '../../shared/observability/metrics';
import { type AwsClients, createAwsClients } from '../../shared/platform/aws';
import { systemClock } from '../../shared/platform/clock';
import { messageGroupOf, sqsSafeJson } from '../../shared/queue/job-codec';
import { SqsJobQueue } from '../../shared/queue/sqs-job-queue';
import { DynamoBacklogStore } from '../../shared/storage/backlog';
import { deliveryTarget, item } from '../support/fakes';

let emulators: Emulators;
let clients: AwsClients;
let resources: LocalResources;

beforeAll(async () => {
  emulators = await startEmulators();
  clients = createAwsClients(emulators.endpoints);
  resources = await provisionLocalResources(clients);
});

afterAll(async () => {
  await emulators?.stop();
});

it('provisions the backlog queue with its redrive queue, and the backlog bucket', async () => {
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: resources.queueUrls.backlog, AttributeNames: ['All'] }),
  );
  const redrive = await clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: resources.redriveQueueUrls.backlog,
      AttributeNames: ['QueueArn'],
    }),
  );
  expect(Attributes?.VisibilityTimeout).toBe(String(QUEUES.backlog.visibilityTimeoutSeconds));
  expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toMatchObject({
    deadLetterTargetArn: redrive.Attributes?.QueueArn,
    maxReceiveCount: QUEUES.backlog.maxReceiveCount,
  });
  expect(resources.backlogBucketName).toBe(BACKLOG_BUCKET.localName);
  await expect(
    clients.s3.send(new HeadBucketCommand({ Bucket: BACKLOG_BUCKET.localName })),
  ).resolves.toBeDefined();
  // Locally one receive returns at most ten messages, whatever the queue takes on AWS.
  expect(localBatchSize(QUEUES.backlog.consumer)).toBe(SQS_LIMITS.maxBatchEntries);
});

it('turns a store job sent to the backlog queue into a segment, its index item and META, and a tick', async () => {
  const queue = new SqsJobQueue(clients.sqs, resources.queueUrls);
  const backlog = new DynamoBacklogStore(
    clients.dynamo,
    TABLE.localName,
    clients.s3,
    BACKLOG_BUCKET.localName,
  );
  const step = new BacklogStoreStep({
    backlog,
    queue,
    endpoints: { endpointUrlOf: async () => 'https://hooks.example.test/in' },
    clock: systemClock,
    logger: silentLogger,
    metrics: new MetricBuffer(),
  });
  const target = deliveryTarget({ name: 'kept', uid: 'u-kept' });
  const now = Date.now();
  const published = { ...item('k-1', now), eventJson: '{"id":"k-1","data":{"n":1.50,"s":"😀"}}' };
  const job: StoreJob = {
    v: JOB_FORMAT_VERSION,
    kind: 'store',
    target,
    dueAt: now + 2_000,
    heldBy: 'probation',
    items: [published],
  };
  // Written as job messages are: characters SQS refuses travel as JSON escapes.
  await queue.send('backlog', [
    { body: sqsSafeJson(JSON.stringify(job)), delaySeconds: 0, groupId: messageGroupOf(job) },
  ]);
  const received = await clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: resources.queueUrls.backlog,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 5,
    }),
  );
  const records = (received.Messages ?? []).map((m) => ({
    messageId: m.MessageId ?? '',
    body: m.Body ?? '',
  }));
  expect(records).toHaveLength(1);

  const outcomes = await step.handle(records);

  expect(outcomes.map((outcome) => outcome.kind)).toEqual(['done']);
  const topic = topicIdOf(target.topic);
  const [ref, ...others] = await backlog.listSegments(topic, 'kept');
  expect(others).toEqual([]);
  expect(ref?.key).toMatch(new RegExp(`^${BACKLOG_BUCKET.prefix}.*/u-kept/[0-9a-f]{16}\\.jsonl$`));
  const stored = await backlog.readSegment(ref as NonNullable<typeof ref>);
  expect(stored.lines.map((line) => line.item.eventJson)).toEqual([published.eventJson]);
  const meta = await backlog.getMeta(topic, 'kept');
  expect(meta).toMatchObject({ wakeAt: job.dueAt, state: 'holding', summary: { events: 1 } });

  const ticks = await clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: resources.queueUrls.retry,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 10,
    }),
  );
  const tick = backlogTickJobSchema.parse(JSON.parse(ticks.Messages?.[0]?.Body ?? '{}'));
  expect(tick).toMatchObject({ kind: 'backlog-tick', token: meta?.token, target: { subscription: 'kept' } });
  expect(Date.now()).toBeGreaterThanOrEqual(job.dueAt);
  for (const message of [...(received.Messages ?? []), ...(ticks.Messages ?? [])]) {
    const url = message === ticks.Messages?.[0] ? resources.queueUrls.retry : resources.queueUrls.backlog;
    await clients.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }));
  }
});

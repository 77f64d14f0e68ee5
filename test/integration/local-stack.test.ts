/**
 * The local stack as a product: state that survives a restart, queued retries carried across it,
 * and clear start-up errors that never cost the saved queue contents.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startEmulators } from '../../local/emulators';
import {
  ENDPOINTS_FILE,
  HEADER_KEY_FILE,
  LocalStackError,
  SAVED_QUEUES_FILE,
  startLocalStack,
  TOPIC_KEY_FILE,
} from '../../local/stack';
import { QUEUES } from '../../shared/config/resources';
import { DeadLetterBucket } from '../../shared/storage/dead-letter-bucket';
import { event, recordingCalls } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

/** The first retry comes 5 s after a failure: ample time to stop the stack before it is due. */
const TIME_SCALE = 2;
let dataDir: string;
let webhook: WebhookServer;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gridwire-restart-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});
beforeAll(async () => {
  webhook = await new WebhookServer().start();
});
afterAll(async () => {
  await webhook?.stop();
});

const start = (port = 0) =>
  startLocalStack(
    recordingCalls({ dataDir, port, logLevel: 'SILENT', timeScale: TIME_SCALE, adminToken: 'test-token' }),
  );

async function call(apiUrl: string, method: string, path: string, body?: unknown, headers = {}) {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: 'Bearer test-token', 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

it('keeps topics, subscriptions and a pending retry across a restart', async () => {
  let failing = true;
  const url = webhook.url('/restart', () => ({ status: failing ? 500 : 200 }));

  const first = await start();
  await call(first.apiUrl, 'PUT', '/admin/topics/durable', {
    properties: { inputSchema: 'EventGridSchema' },
  });
  await call(first.apiUrl, 'PUT', '/admin/topics/durable/eventSubscriptions/hook', {
    properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl: url } } },
  });
  const { key1 } = (await call(first.apiUrl, 'POST', '/admin/topics/durable/listKeys')).body;
  const published = await call(first.apiUrl, 'POST', '/topics/durable/api/events', [event('r-1')], {
    'aeg-sas-key': key1,
  });
  expect(published.status).toBe(200);
  await eventually(() => webhook.requestsTo('/restart').length === 1, 10_000, 'the first attempt');
  // The retry is due 5 s (10 s / 2) after the failure; stop before then.
  await first.stop();
  // Nothing is saved on the way out: the queues are on disk all along.
  await expect(readFile(join(dataDir, SAVED_QUEUES_FILE), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  expect(await queueFilesContain('"r-1"')).toBe(true);

  failing = false;
  const second = await start();
  try {
    const topic = await call(second.apiUrl, 'GET', '/admin/topics/durable');
    expect(topic.status).toBe(200);
    const keys = (await call(second.apiUrl, 'POST', '/admin/topics/durable/listKeys')).body;
    expect(keys.key1).toBe(key1);
    const fullUrl = await call(
      second.apiUrl,
      'POST',
      '/admin/topics/durable/eventSubscriptions/hook/getFullUrl',
    );
    expect(fullUrl.body).toEqual({ endpointUrl: url });
    // endpoints.json names the queues on the emulator as it listens now, not as it did before.
    const endpoints = JSON.parse(await readFile(join(dataDir, ENDPOINTS_FILE), 'utf8'));
    for (const { url: queueUrl, redriveUrl } of Object.values(endpoints.queues) as Array<{
      url: string;
      redriveUrl: string;
    }>) {
      expect(queueUrl.startsWith(`${endpoints.sqs}/`)).toBe(true);
      expect(redriveUrl.startsWith(`${endpoints.sqs}/`)).toBe(true);
    }
    // With the stack's credentials, which endpoints.json names (the emulators take no others).
    const sqs = new SQSClient({
      endpoint: endpoints.sqs,
      region: 'us-east-1',
      credentials: endpoints.credentials,
    });
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: endpoints.queues.delivery.url,
        AttributeNames: ['QueueArn'],
      }),
    );
    // The ordered queue is FIFO as on AWS, and provisioning it again on a restart works: its
    // FIFO attributes go in at creation (the emulator refuses two of them afterwards).
    const attributesOf = async (queueUrl: string) =>
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] })))
        .Attributes ?? {};
    const ordered = await attributesOf(endpoints.queues.ordered.url);
    const orderedRedrive = await attributesOf(endpoints.queues.ordered.redriveUrl);
    sqs.destroy();
    expect(attributes.Attributes?.QueueArn).toMatch(/:gridwire-delivery$/);
    expect(ordered).toMatchObject({
      QueueArn: expect.stringMatching(/:gridwire-ordered\.fifo$/),
      FifoQueue: 'true',
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      ContentBasedDeduplication: 'false',
      MessageRetentionPeriod: String(14 * 86_400),
    });
    expect(JSON.parse(ordered.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: orderedRedrive.QueueArn,
      maxReceiveCount: QUEUES.ordered.maxReceiveCount,
    });
    expect(orderedRedrive).toMatchObject({
      QueueArn: expect.stringMatching(/:gridwire-ordered-redrive\.fifo$/),
      FifoQueue: 'true',
    });

    const attempts = await eventually(
      () => webhook.requestsTo('/restart').length === 2 && webhook.requestsTo('/restart'),
      15_000,
      'the retry after the restart',
    );
    expect(attempts.map((request) => request.headers['aeg-delivery-count'])).toEqual(['0', '1']);
    expect(JSON.parse(attempts[1]?.body ?? '[]')[0].id).toBe('r-1');
    await expect(readFile(join(dataDir, SAVED_QUEUES_FILE), 'utf8')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  } finally {
    await second.stop();
  }
}, 40_000);

it('seals secret header values with a key it keeps in the data directory across restarts', async () => {
  const secretMapping = {
    name: 'Authorization',
    type: 'Static',
    properties: { value: 'Bearer local-s3cret', isSecret: true },
  };
  const first = await start();
  let key: string;
  try {
    await call(first.apiUrl, 'PUT', '/admin/topics/sealed', {
      properties: { inputSchema: 'EventGridSchema' },
    });
    const created = await call(first.apiUrl, 'PUT', '/admin/topics/sealed/eventSubscriptions/hook', {
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: { endpointUrl: webhook.url('/sealed'), deliveryAttributeMappings: [secretMapping] },
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.properties.destination.properties.deliveryAttributeMappings).toEqual([
      { name: 'Authorization', type: 'Static', properties: { value: null, isSecret: true } },
    ]);
    key = (await readFile(join(dataDir, HEADER_KEY_FILE), 'utf8')).trim();
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect((await stat(join(dataDir, HEADER_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dataDir, ENDPOINTS_FILE), 'utf8')).not.toContain(key);
  } finally {
    await first.stop();
  }
  let topicKeys: { key1: string; key2: string } | undefined;
  const second = await start();
  try {
    expect((await readFile(join(dataDir, HEADER_KEY_FILE), 'utf8')).trim()).toBe(key);
    const read = await call(second.apiUrl, 'GET', '/admin/topics/sealed/eventSubscriptions/hook');
    expect(JSON.stringify(read.body)).not.toContain('local-s3cret');
    // Topic keys are sealed too, with a key of their own, and open after the restart.
    topicKeys = (await call(second.apiUrl, 'POST', '/admin/topics/sealed/listKeys')).body;
    expect(topicKeys?.key1).toEqual(expect.any(String));
    expect((await stat(join(dataDir, TOPIC_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(dataDir, TOPIC_KEY_FILE), 'utf8')).trim()).not.toBe(key);
  } finally {
    await second.stop();
  }
  // The table's files on disk hold no topic key in plain text.
  const files = await readdir(dataDir, { recursive: true });
  for (const file of files) {
    const path = join(dataDir, String(file));
    if (!(await stat(path)).isFile()) continue;
    const text = (await readFile(path)).toString('latin1');
    expect(text.includes(topicKeys?.key1 ?? 'x') || text.includes(topicKeys?.key2 ?? 'x')).toBe(false);
  }
}, 40_000);

it('keeps dead letters (the emulator holds S3 in memory) across a restart', async () => {
  const key = 'dead/AUDIT/2026/11/23/3/0b9e6a52-7a8b-4c6e-9a43-3f1d2e5c7b10.json';
  const blob = '[{"id":"e1","data":{"n":9007199254740993},"deadLetterReason":"NonRetriableOutcome"}]';
  const first = await start();
  const bucket = new DeadLetterBucket(first.clients.s3, first.resources.bucketName);
  await bucket.put(key, blob);
  await first.stop();

  const second = await start();
  try {
    expect(await new DeadLetterBucket(second.clients.s3, second.resources.bucketName).get(key)).toBe(blob);
  } finally {
    await second.stop();
  }
});

it('puts back, once, the dead-letter mirror an earlier version left', async () => {
  const key = 'dead/OLD/2026/11/1/2/5d0c1f4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f.json';
  const blob = '[{"id":"old-1"}]';
  const mirror = join(dataDir, 'dead-letters');
  await mkdir(join(mirror, 'dead', 'OLD', '2026', '11', '1', '2'), { recursive: true });
  await writeFile(join(mirror, ...key.split('/')), blob);
  const stack = await start();
  try {
    expect(await new DeadLetterBucket(stack.clients.s3, stack.resources.bucketName).get(key)).toBe(blob);
    await expect(readdir(mirror)).rejects.toMatchObject({ code: 'ENOENT' });
  } finally {
    await stack.stop();
  }
});

it('keeps the saved queue contents when they cannot be restored', async () => {
  const job = JSON.stringify({ v: 1, topic: 'gone', subscription: 'gone', items: [] });
  const tooLarge = 'x'.repeat(1_100_000);
  const savedFile = join(dataDir, SAVED_QUEUES_FILE);
  const content = JSON.stringify({
    savedAt: new Date().toISOString(),
    queues: { [QUEUES.retry.localName]: [job, tooLarge] },
  });
  await writeFile(savedFile, content);

  const error = await start().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LocalStackError);
  expect((error as Error).message).toMatch(
    /Could not put the saved messages of .*queues\.json back.*The file is kept/,
  );
  expect(await readFile(savedFile, 'utf8')).toBe(content);
}, 30_000);

it('says the port is taken, and a failed start loses none of the saved queue contents', async () => {
  const job = JSON.stringify({ v: 1, topic: 'gone', subscription: 'gone', items: [] });
  const savedFile = join(dataDir, SAVED_QUEUES_FILE);
  await writeFile(
    savedFile,
    JSON.stringify({ savedAt: new Date().toISOString(), queues: { [QUEUES.retry.localName]: [job] } }),
  );
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const error = await start(port).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalStackError);
    expect((error as Error).message).toMatch(
      new RegExp(`Port ${port} on 127.0.0.1 is already in use.*--port`),
    );
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
  // Either still in the file, or already in the queue on disk.
  const file = await readFile(savedFile, 'utf8').catch(() => '');
  expect(file.includes(JSON.stringify(job)) || (await queueFilesContain(job))).toBe(true);
}, 30_000);

/** Whether the queues' files on disk hold `text`. */
async function queueFilesContain(text: string): Promise<boolean> {
  const dir = join(dataDir, 'sqs');
  for (const name of await readdir(dir)) {
    if ((await readFile(join(dir, name))).toString('utf8').includes(text)) return true;
  }
  return false;
}

it('says when the data directory cannot be used', async () => {
  const file = join(dataDir, 'not-a-directory');
  await writeFile(file, '');
  const error = await startLocalStack({ dataDir: join(file, 'sub'), port: 0, logLevel: 'SILENT' }).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LocalStackError);
  expect((error as Error).message).toMatch(/is not usable \(ENOTDIR\).*--data-dir/);
});

it('answers queue inspection with an error, not a hang, once the emulators are gone', async () => {
  const emulators = await startEmulators();
  expect(await emulators.inspectQueue('no-such-queue')).toBeNull();
  await emulators.stop();
  await expect(emulators.inspectQueue('no-such-queue')).rejects.toThrow(/not running/);
}, 30_000);

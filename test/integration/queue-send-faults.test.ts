/**
 * SQS (or the fan-out store) failing under a publish: a loopback proxy in front of the emulator
 * fails the request that would queue a publish (and the SDK's retries of it), with a 500 or with
 * throttling. A publish is one message, so the request answers 503 with Retry-After and nothing of
 * it is delivered; the caller's retry of the same request delivers every event to every
 * subscription once. All or nothing, nothing lost.
 */

import { type FaultAnswer, HttpFaultProxy, type ProxiedRequest } from '../../bench/fault-proxy';
import { FAN_OUT_BUCKET } from '../../shared/config/resources';
import { parseJob } from '../../shared/queue/job-codec';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

/** 25 subscriptions: more delivery jobs than a worker takes from one fan-out itself. */
const SUBSCRIPTIONS = 25;
let api: TestStack;
let webhook: WebhookServer;
let sqs: HttpFaultProxy;
let s3: HttpFaultProxy;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({
    routeClients: async (endpoints) => {
      sqs = await new HttpFaultProxy(endpoints.sqs).start();
      s3 = await new HttpFaultProxy(endpoints.s3).start();
      return { ...endpoints, sqs: sqs.url, s3: s3.url };
    },
  });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await sqs?.stop();
  await s3?.stop();
  await webhook?.stop();
});

const sendsToDeliveryQueue = (request: ProxiedRequest) =>
  request.target === 'AmazonSQS.SendMessageBatch' &&
  (JSON.parse(request.body) as { QueueUrl?: string }).QueueUrl === api.stack.resources.queueUrls.delivery;

const storesFanOut = (request: ProxiedRequest) =>
  request.method === 'PUT' && request.path.startsWith(`/${FAN_OUT_BUCKET.localName}/`);

async function topicWithSubscriptions(topic: string): Promise<{ key: string; paths: string[] }> {
  const key = await api.createTopic(topic);
  const paths = Array.from({ length: SUBSCRIPTIONS }, (_, i) => `/${topic}/s-${i}`);
  for (const [i, path] of paths.entries()) await api.subscribe(topic, `s-${i}`, webhook.url(path));
  return { key, paths };
}

const publishRaw = (topic: string, key: string, events: unknown[]) =>
  fetch(`${api.stack.apiUrl}/topics/${topic}/api/events?api-version=2018-01-01`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'aeg-sas-key': key },
    body: JSON.stringify(events),
  });

/** Ids of the events `path` received, one entry per delivery. */
const idsAt = (path: string): string[] =>
  webhook
    .requestsTo(path)
    .flatMap((request) => (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id));

/**
 * The failed request reached no queue, so nothing of it can arrive. Shown without waiting on a
 * clock: an event published after the failure reaches every subscription, and by then none has
 * received anything of the failed request.
 */
async function expectNothingOf(topic: string, key: string, paths: string[], failedId: string): Promise<void> {
  const marker = `${failedId}-after`;
  expect((await api.publish(topic, key, [event(marker)])).status).toBe(200);
  await eventually(
    () => paths.every((path) => idsAt(path).includes(marker)),
    20_000,
    'the later event everywhere',
  );
  for (const path of paths) expect(idsAt(path)).not.toContain(failedId);
}

/** Sent again without faults: every subscription gets the events once. */
async function expectRetryDeliversOnce(
  topic: string,
  key: string,
  paths: string[],
  events: Array<{ id: string }>,
): Promise<void> {
  expect((await publishRaw(topic, key, events)).status).toBe(200);
  const ids = events.map((e) => e.id);
  // A bound, not a race: a stored fan-out's retry takes about 8 s alone on this machine (the S3
  // client's backoff after the refused store, then the fan-out read and passed on), several times
  // that on a machine busy with other suites.
  await eventually(
    () => paths.every((path) => ids.every((id) => idsAt(path).includes(id))),
    90_000,
    'every subscription to get the events',
  );
  for (const path of paths) {
    for (const id of ids) expect(idsAt(path).filter((seen) => seen === id)).toHaveLength(1);
  }
}

async function expect503(answer: Response): Promise<void> {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('5');
  const body = (await answer.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('ServiceUnavailable');
  expect(body.error.message).toMatch(/None of the request's events were queued/);
}

describe.each([
  ['a 500', { status: 500, type: 'InternalError' }],
  ['throttling', { status: 400, type: 'ThrottlingException' }],
] as const)('SQS answering %s to the message of a publish', (what, fault: FaultAnswer) => {
  it('answers 503 with Retry-After, delivers nothing of it, and the retry delivers it once everywhere', async () => {
    const topic = what === 'a 500' ? 'send-500' : 'send-throttled';
    const { key, paths } = await topicWithSubscriptions(topic);
    const failedId = `${topic}-1`;

    sqs.failed.splice(0);
    sqs.rule = (request) => (sendsToDeliveryQueue(request) ? fault : undefined);
    const refused = await publishRaw(topic, key, [event(failedId)]);
    sqs.rule = undefined;
    await expect503(refused);

    // One message stood for the whole publish: the fan-out to all 25 subscriptions, refused on
    // every try of the SDK, so it never reached the queue.
    expect(sqs.failed.length).toBeGreaterThanOrEqual(2);
    const entries = (JSON.parse(sqs.failed[0]?.body as string) as { Entries: Array<{ MessageBody: string }> })
      .Entries;
    expect(entries).toHaveLength(1);
    const fanOut = parseJob(entries[0]?.MessageBody as string);
    expect(fanOut.kind).toBe('fanout');
    expect(fanOut.kind === 'fanout' && fanOut.targets.length).toBe(SUBSCRIPTIONS);
    expect(sqs.failed.every((request) => request.body === sqs.failed[0]?.body)).toBe(true);

    await expectNothingOf(topic, key, paths, failedId);
    await expectRetryDeliversOnce(topic, key, paths, [event(failedId)]);
  }, 180_000);
});

describe('the fan-out store failing under a publish too large for one message', () => {
  it('answers 503 and queues nothing; the retry is stored, queued as one message and delivered once everywhere', async () => {
    const topic = 'store-failing';
    const { key, paths } = await topicWithSubscriptions(topic);
    // Quotes take 4 bytes each once an event's text is queued: seven of these events need more
    // than one message, though the request is under the 1 MiB publish limit.
    const events = Array.from({ length: 7 }, (_, i) => ({
      ...event(`${topic}-${i}`),
      data: 'x"'.repeat(45_000),
    }));

    s3.failed.splice(0);
    sqs.failed.splice(0);
    const queued: ProxiedRequest[] = [];
    s3.rule = (request) => (storesFanOut(request) ? { status: 503, type: 'SlowDown' } : undefined);
    sqs.rule = (request) => {
      if (sendsToDeliveryQueue(request)) queued.push(request);
      return undefined;
    };
    const refused = await publishRaw(topic, key, events);
    s3.rule = undefined;
    sqs.rule = undefined;
    await expect503(refused);
    expect(s3.failed.length).toBeGreaterThanOrEqual(1);
    expect(queued).toHaveLength(0);

    await expectNothingOf(topic, key, paths, `${topic}-0`);

    sqs.rule = (request) => {
      if (sendsToDeliveryQueue(request)) queued.push(request);
      return undefined;
    };
    await expectRetryDeliversOnce(topic, key, paths, events);
    sqs.rule = undefined;
    // The retry went as one message naming the stored fan-out (the rest of the delivery-queue
    // sends are the fan-out's jobs, passed on by the worker, and the later event's message).
    const named = queued
      .flatMap((request) => (JSON.parse(request.body) as { Entries: Array<{ MessageBody: string }> }).Entries)
      .map((entry) => parseJob(entry.MessageBody))
      .filter((job) => job.kind === 'stored-fanout');
    expect(named).toHaveLength(1);
  }, 180_000);
});

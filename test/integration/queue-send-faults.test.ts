/**
 * SQS failing in the middle of a publish: a loopback proxy in front of the queue emulator fails
 * the second SendMessageBatch of a publish request that fans out to three batches (and the SDK's
 * retries of it), with a 500 or with throttling. The request answers 503 with Retry-After; the
 * batches already sent are delivered, the failed one is not, and the caller's retry of the same
 * request delivers every event to every subscription: at least once, nothing lost.
 */
import { parseJob } from '../../shared/queue/job-codec';
import { type FaultAnswer, HttpFaultProxy } from '../support/fault-proxy';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

/** 25 subscriptions, one job each: SendMessageBatch requests of 10, 10 and 5 entries. */
const SUBSCRIPTIONS = 25;
let api: TestStack;
let webhook: WebhookServer;
let proxy: HttpFaultProxy;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({
    routeClients: async (endpoints) => {
      proxy = await new HttpFaultProxy(endpoints.sqs).start();
      return { ...endpoints, sqs: proxy.url };
    },
  });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await proxy?.stop();
  await webhook?.stop();
});

/** Fails the second SendMessageBatch to the delivery queue, and every retry of it (the same body). */
function failSecondBatch(fault: FaultAnswer): { failedBody: () => string | undefined } {
  const deliveryQueue = api.stack.resources.queueUrls.delivery;
  let batches = 0;
  let failedBody: string | undefined;
  proxy.failed.splice(0);
  proxy.rule = (request) => {
    if (request.target !== 'AmazonSQS.SendMessageBatch') return undefined;
    if ((JSON.parse(request.body) as { QueueUrl?: string }).QueueUrl !== deliveryQueue) return undefined;
    if (failedBody !== undefined) return request.body === failedBody ? fault : undefined;
    batches += 1;
    if (batches !== 2) return undefined;
    failedBody = request.body;
    return fault;
  };
  return { failedBody: () => failedBody };
}

describe.each([
  ['a 500', { status: 500, type: 'InternalError' }],
  ['throttling', { status: 400, type: 'ThrottlingException' }],
] as const)('SQS answering %s to the second batch of a publish', (what, fault) => {
  it('answers 503 with Retry-After; what was queued is delivered, and the retry delivers the rest', async () => {
    const topic = what === 'a 500' ? 'send-500' : 'send-throttled';
    const key = await api.createTopic(topic);
    const paths = Array.from({ length: SUBSCRIPTIONS }, (_, i) => `/${topic}/s-${i}`);
    for (const [i, path] of paths.entries()) await api.subscribe(topic, `s-${i}`, webhook.url(path));
    const received = (path: string) => webhook.requestsTo(path).length;

    const faulty = failSecondBatch(fault);
    const refused = await fetch(`${api.stack.apiUrl}/topics/${topic}/api/events?api-version=2018-01-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'aeg-sas-key': key },
      body: JSON.stringify([event(`${topic}-1`)]),
    });
    proxy.rule = undefined;
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    const answer = (await refused.json()) as { error: { code: string; message: string } };
    expect(answer.error.code).toBe('ServiceUnavailable');
    expect(answer.error.message).toMatch(/queued before the failure are delivered/);

    // The failed batch (and the SDK's retries of it, the same request) never reached the queue.
    const failedBody = faulty.failedBody() as string;
    expect(failedBody).toBeDefined();
    expect(proxy.failed.length).toBeGreaterThanOrEqual(2);
    expect(proxy.failed.every((request) => request.body === failedBody)).toBe(true);
    const lost = new Set(
      (JSON.parse(failedBody) as { Entries: Array<{ MessageBody: string }> }).Entries.map(
        (entry) => `/${topic}/${(parseJob(entry.MessageBody) as { subscription: string }).subscription}`,
      ),
    );
    expect(lost.size).toBeGreaterThan(0);
    expect(lost.size).toBeLessThan(SUBSCRIPTIONS);

    // The batches sent before and after it were queued: their events are delivered.
    const queued = paths.filter((path) => !lost.has(path));
    await eventually(
      () => queued.every((path) => received(path) === 1),
      20_000,
      'the events of the batches that were queued',
    );
    expect(paths.filter((path) => received(path) > 0).sort()).toEqual([...queued].sort());

    // The caller sends the same request again: every subscription gets the event; those whose
    // batch went through the first time get it twice, with the same id.
    expect((await api.publish(topic, key, [event(`${topic}-1`)])).status).toBe(200);
    await eventually(
      () => paths.every((path) => received(path) >= (lost.has(path) ? 1 : 2)),
      20_000,
      'every subscription to get the event',
    );
    for (const path of paths) {
      for (const request of webhook.requestsTo(path))
        expect(JSON.parse(request.body)[0].id).toBe(`${topic}-1`);
    }
  }, 90_000);
});

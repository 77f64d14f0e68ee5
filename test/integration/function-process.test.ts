/**
 * The benchmark's functions in processes of their own (`bench/function-process.ts`): the publish
 * and delivery functions bundled as the construct bundles them, invoked by a real local stack in
 * place of its own handlers, publish to webhook as usual, and hand back what the bill counts:
 * their AWS requests (the publish function's backlog-gate reads billed with the rest), their
 * metric points, their memory peak and CPU time.
 */
import { AwsRequestCounter } from '../../bench/aws-counter';
import { FunctionProcess, type MeasuredFunction } from '../../bench/function-process';
import { FUNCTIONS } from '../../shared/config/resources';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { deliveredTo, eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
const processes: Partial<Record<MeasuredFunction, FunctionProcess>> = {};
const requests = new AwsRequestCounter();

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({
    wrapPublishHandler: (inProcess) => (httpEvent, context) =>
      processes.publish === undefined ? inProcess(httpEvent, context) : processes.publish.invoke(httpEvent),
    wrapDeliveryHandler: (inProcess) => (sqsEvent, context) =>
      processes.delivery === undefined ? inProcess(sqsEvent, context) : processes.delivery.invoke(sqsEvent),
  });
  for (const fn of ['publish', 'delivery'] as const) {
    processes[fn] = await FunctionProcess.start(fn, api.stack, {
      memoryMb: FUNCTIONS[fn].memoryMb,
      logLevel: 'ERROR',
      onMetrics: api.stack.metrics.publish,
      onRequests: (counts) => requests.add(counts),
      // The publish function's backlog gate on, as deployed (locally the stack's own gate refuses).
      ...(fn === 'publish' ? { config: { deliveryBacklogLimit: 10_000 } } : {}),
    });
  }
}, 60_000);

afterAll(async () => {
  for (const running of Object.values(processes)) await running.stop();
  await api?.close();
  await webhook?.stop();
});

it('publish and delivery run in their processes, and hand back requests, metrics, memory and CPU', async () => {
  const key = await api.createTopic('measured');
  await api.subscribe('measured', 'sink', webhook.url('/measured'));
  const topic = { Topic: 'measured' };
  await processes.publish?.usage();
  await processes.delivery?.usage();

  const published = await api.publish('measured', key, [event('m-1'), event('m-2'), event('m-3')]);
  expect(published.status).toBe(200);
  for (const id of ['m-1', 'm-2', 'm-3']) await deliveredTo(webhook, '/measured', id);

  // The delivery invocation answers (with its counts and metric points) after the webhook has
  // the events.
  await eventually(
    () => api.stack.metrics.sum('DeliverySuccessCount', topic) === 3,
    10_000,
    'delivery metrics',
  );
  const counted = requests.take();
  expect(counted.requests['sqs:SendMessageBatch']).toBeGreaterThanOrEqual(1);
  // The gate read the delivery queue's depth: counted as a request, but not billed as measured
  // (one process stands for one instance; the bill counts the reads per instance, `gateReadsOf`).
  const gateReads = counted.requests['sqs:GetQueueAttributes'] ?? 0;
  expect(gateReads).toBeGreaterThanOrEqual(1);
  const work = Object.entries(counted.requests)
    .filter(([operation]) => operation.startsWith('sqs:') && operation !== 'sqs:GetQueueAttributes')
    .reduce((sum, [, count]) => sum + count, 0);
  expect(counted.sqsBilledRequests).toBeGreaterThanOrEqual(counted.requests['sqs:SendMessageBatch'] ?? 0);
  expect(counted.sqsBilledRequests).toBeLessThanOrEqual(work);
  // Their metric points reached the local stack's metrics.
  expect(api.stack.metrics.sum('PublishSuccessCount', topic)).toBe(3);
  expect(api.stack.metrics.sum('DeliverySuccessCount', topic)).toBe(3);
  for (const fn of ['publish', 'delivery'] as const) {
    const used = await processes[fn]?.usage();
    expect([fn, (used?.cpuMs ?? 0) > 0]).toEqual([fn, true]);
    // A Node.js process with the function loaded holds tens of MiB at least.
    expect([fn, (used?.rssBytes ?? 0) > 20 * 1024 * 1024]).toEqual([fn, true]);
  }
}, 60_000);

/**
 * A delivery worker that dies mid-batch loses nothing: the batch was never acknowledged, so SQS
 * hands it out again after the visibility timeout, and every event arrives (some twice).
 */
import type { DeliveryFunctionHandler } from '../../functions/delivery';
import {
  UndiciWebhookSender,
  type WebhookRequest,
  type WebhookSender,
} from '../../shared/delivery/webhook-sender';
import type { AttemptResult } from '../../shared/domain/attempts';
import { systemClock } from '../../shared/platform/clock';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

/** Delivers normally, except that after `crashAfter` requests the worker "dies" once. */
class CrashOnce implements WebhookSender {
  sent = 0;
  crashing = false;
  crashed = false;
  private readonly inner = new UndiciWebhookSender({ clock: systemClock });
  constructor(private readonly crashAfter: number) {}

  async send(request: WebhookRequest): Promise<AttemptResult> {
    if (this.crashing) throw new Error('worker crashed');
    if (!this.crashed && this.sent >= this.crashAfter) {
      this.crashing = true;
      this.crashed = true;
      throw new Error('worker crashed');
    }
    this.sent += 1;
    return this.inner.send(request);
  }

  /** Like Lambda after a crash: the invocation fails as a whole, nothing is acknowledged. */
  wrap =
    (handler: DeliveryFunctionHandler): DeliveryFunctionHandler =>
    async (sqsEvent, context) => {
      const result = await handler(sqsEvent, context);
      if (this.crashing) {
        this.crashing = false;
        throw new Error('worker crashed mid-batch');
      }
      return result;
    };
}

let api: TestStack;
let webhook: WebhookServer;
const sender = new CrashOnce(30);

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({
    sender,
    wrapDeliveryHandler: sender.wrap,
    visibilityTimeoutSeconds: 2,
    // One invocation at a time: the crash is one invocation's, as the sender's flag assumes.
    pollersPerQueue: 1,
    maxConcurrency: 1,
    deliveryConcurrency: 4,
  });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

it('delivers every event at least once after a worker crash mid-batch', async () => {
  const key = await api.createTopic('crashes');
  await api.subscribe('crashes', 'receiver', webhook.url('/receiver'));
  const ids = Array.from({ length: 200 }, (_, i) => `c-${i}`);
  for (let start = 0; start < ids.length; start += 40) {
    const published = await api.publish(
      'crashes',
      key,
      ids.slice(start, start + 40).map((id) => event(id)),
    );
    expect(published.status).toBe(200);
  }

  const received = () =>
    webhook.requestsTo('/receiver').map((request) => JSON.parse(request.body)[0].id as string);
  await eventually(() => new Set(received()).size === ids.length, 20_000, 'all 200 events');

  expect(sender.crashed).toBe(true);
  expect(new Set(received())).toEqual(new Set(ids));
  // Events delivered before the crash were delivered again: duplicates, never loss.
  expect(received().length).toBeGreaterThan(ids.length);
});

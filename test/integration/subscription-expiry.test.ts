/**
 * A subscription's `expirationTimeUtc`, end to end on the local stack: real emulators over HTTP
 * through the AWS SDK, the real handlers, a real webhook server.
 *
 * The delivery pages (seeds 000 to 004) have no sentence on a subscription that expires: the only
 * expiration they speak of is an event's time to live, another thing (003, "Dead-letter events":
 * "The time-to-live expiration is checked ONLY at the next scheduled delivery attempt."). What is
 * checked here is the original's subscription property as docs/subscribe.md describes it ("From
 * that time on the subscription receives no events"), row 13 of docs/CONFORMANCE.md's second audit.
 *
 * Time is injected: the stack runs on a clock that is the real one plus an offset the test moves
 * forward, so the expiration time is reached at a point the test chooses, not waited for. Nothing
 * here races a timer: each wait is for something the stack does, and each "nothing arrived" is
 * proven by the publish's own metric or by a drop the stack counted.
 */
import { type Clock, systemClock } from '../../shared/platform/clock';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { M } from '../support/time';
import { deliveredTo, eventMarker, eventually, WebhookServer } from '../support/webhook-server';

/** Real time plus an offset that only moves forward (the stack's timers stay real). */
class MovableClock implements Clock {
  private offsetMs = 0;

  now = (): number => Date.now() + this.offsetMs;

  sleep = (ms: number): Promise<void> => systemClock.sleep(ms);

  /** From now on the clock reads `time` or later. */
  moveTo(time: number): void {
    this.offsetMs = Math.max(this.offsetMs, time - Date.now());
  }
}

// Retries in the stack: a 503's 30 s floor becomes 1 s.
const TIME_SCALE = 30;
/** The longest wait for one step of the pipeline: generous, for a busy 2-core machine. */
const WAIT_MS = 30_000;
const TOPIC = 'leases';
const SUBSCRIPTIONS = `/admin/topics/${TOPIC}/eventSubscriptions`;

const clock = new MovableClock();
let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE, clock });
  key = await api.createTopic(TOPIC);
}, 60_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

/** The events the publisher matched to a subscription (one metric flush per publish request). */
const matchedFor = (subscription: string) =>
  api.stack.metrics.sum('MatchedEventCount', { Topic: TOPIC, EventSubscriptionName: subscription });

/** The events dropped for a subscription, whatever the reason. */
const droppedFor = (subscription: string) =>
  api.stack.metrics.sum('DroppedEventCount', { Topic: TOPIC, EventSubscriptionName: subscription });

const carrying = (path: string, id: string) =>
  webhook.requestsTo(path).filter((request) => request.body.includes(eventMarker(id)));

it(
  'delivers to a subscription until its expirationTimeUtc; from then on publishes succeed, nothing reaches it, and GET answers 404',
  async () => {
    // A little in the future, by the stack's clock.
    const expiresAt = clock.now() + 10 * M;
    const expirationTimeUtc = new Date(expiresAt).toISOString();
    // The webhook of the expiring subscription: the request carrying `in-flight-1` arrives just
    // before the expiration time, and the clock reaches it while the request is answered (503), so
    // that event's retry comes due after it.
    const expiring = webhook.url('/expiring', (request) => {
      if (!request.body.includes(eventMarker('in-flight-1'))) return { status: 200 };
      clock.moveTo(expiresAt);
      return { status: 503 };
    });
    await api.subscribe(TOPIC, 'expiring', expiring, { expirationTimeUtc });
    // Beside it, on the same topic, one that never expires: it shows each publish was worked.
    await api.subscribe(TOPIC, 'lasting', webhook.url('/lasting'));

    const shown = await api.call('GET', `${SUBSCRIPTIONS}/expiring`);
    expect(shown.status).toBe(200);
    expect(shown.body.properties.expirationTimeUtc).toBe(expirationTimeUtc);

    // Before the expiration time: delivered.
    expect((await api.publish(TOPIC, key, [event('before-1')])).status).toBe(200);
    await deliveredTo(webhook, '/expiring', 'before-1', WAIT_MS);
    await deliveredTo(webhook, '/lasting', 'before-1', WAIT_MS);

    // An event matched before the expiration time, whose retry comes due after it: the worker
    // reads the subscription as gone and drops the event (SubscriptionDeleted), attempting nothing.
    expect((await api.publish(TOPIC, key, [event('in-flight-1')])).status).toBe(200);
    await deliveredTo(webhook, '/lasting', 'in-flight-1', WAIT_MS);
    await deliveredTo(webhook, '/expiring', 'in-flight-1', WAIT_MS);
    expect(clock.now()).toBeGreaterThanOrEqual(expiresAt);
    await eventually(() => droppedFor('EXPIRING') === 1, WAIT_MS, 'the retry of in-flight-1 dropped');
    expect(api.stack.metrics.sum('DroppedEventCount', { DropReason: 'SubscriptionDeleted' })).toBe(1);

    // From the expiration time on: the publish succeeds, and matches the lasting subscription only.
    expect(matchedFor('EXPIRING')).toBe(2);
    expect((await api.publish(TOPIC, key, [event('after-1'), event('after-2')])).status).toBe(200);
    await deliveredTo(webhook, '/lasting', 'after-1', WAIT_MS);
    await deliveredTo(webhook, '/lasting', 'after-2', WAIT_MS);
    // Both counts of a publish are flushed together: the lasting one's shows this publish's are in.
    await eventually(() => matchedFor('LASTING') === 4, WAIT_MS, 'the four events matched to lasting');
    expect(matchedFor('EXPIRING')).toBe(2);

    // So nothing was queued for the expired subscription after its expiration time, and its one
    // pending retry was dropped: the request of `in-flight-1` before the time was its last.
    expect(carrying('/expiring', 'in-flight-1')).toHaveLength(1);
    expect(carrying('/expiring', 'after-1')).toEqual([]);
    expect(carrying('/expiring', 'after-2')).toEqual([]);
    expect(webhook.requestsTo('/expiring').at(-1)?.body).toContain(eventMarker('in-flight-1'));

    // The management API meets it expired: 404, and the list leaves it out.
    expect((await api.call('GET', `${SUBSCRIPTIONS}/expiring`)).status).toBe(404);
    const listed = await api.call('GET', SUBSCRIPTIONS);
    expect(listed.body.value.map((subscription: { name: string }) => subscription.name)).toEqual(['lasting']);
    expect((await api.call('GET', `${SUBSCRIPTIONS}/lasting`)).status).toBe(200);
  },
  8 * WAIT_MS,
);

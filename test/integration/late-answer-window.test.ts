/**
 * The late answer's whole window on the local stack: a success answered 2 minutes after its
 * request started (a minute before its 3 minutes are out, and past the 115 s the 120 s function
 * allowed at best) still counts as the delivery, and the event's next retry is not made. The
 * request's 2 minutes are guaranteed by the webhook (it answers 2 minutes after the request came
 * in, which is after it started); the window's end is a minute (4 s here) later.
 *
 * 003 (classic page), "Retry schedule": "If the endpoint responds within 3 minutes, Event Grid
 * attempts to remove the event from the retry queue on a best effort basis, but duplicates may
 * still be received."
 *
 * The request timings are shrunk by `REQUEST_TIME_SCALE` (`requestTimeScale`): the 30 s timeout
 * to 2 s, the 3 minute window to 12 s, the delivery function's 270 s to 18 s and its margins with
 * them, so the test waits seconds, not minutes. The retry schedule stays real (time scale 1): the
 * retry due 10 s after the timeout comes well after the late answer, which is the retry it removes.
 */
import { FUNCTIONS } from '../../shared/config/resources';
import { LATE_ANSWER_WINDOW_MS } from '../../shared/delivery/rules/late-answer';
import { DELIVERY_TIMEOUT_MS } from '../../shared/delivery/webhook-sender';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

const REQUEST_TIME_SCALE = 15;
/** When the endpoint answers its first request: 2 minutes after it came in, at AWS's timings. */
const ANSWER_AFTER_MS = 120_000;
/** The longest a late answer could be heard with the 120 s function: 115 s after the request started. */
const OLD_LONGEST_MS = 120_000 - 5_000;

let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ requestTimeScale: REQUEST_TIME_SCALE });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

it('removes the next retry of an event whose request is answered with a success 2 minutes after it started', async () => {
  const key = await api.createTopic('late-window');
  const path = '/answers-after-two-minutes';
  // The first request is answered 200 after 2 minutes (scaled); any other at once with a 500, so
  // a retry that was sent would show in the history as well as here.
  const url = webhook.url(path, (request) =>
    webhook.requestsTo(path)[0] === request
      ? { status: 200, delayMs: ANSWER_AFTER_MS / REQUEST_TIME_SCALE }
      : { status: 500 },
  );
  await api.subscribe('late-window', 'slow', url);
  expect((await api.publish('late-window', key, [event('ev-late')])).status).toBe(200);

  const route = '/admin/topics/late-window/eventSubscriptions/slow/deliveries?eventId=ev-late';
  // Until the event has its three records (or a second request was made, which must not be): the
  // assertions below then say what happened.
  const entry = await eventually(
    async () => {
      const current = (await api.call('GET', route)).body.value?.[0];
      const settled = current?.status === 'Delivered' && current.attempts.length >= 3;
      return (settled || webhook.requestsTo(path).length > 1) && current;
    },
    40_000,
    'the late success and the removed retry in the history',
  );

  // In the order they happened: the timeout, the late success, the retry found delivered.
  expect(
    entry.attempts.map((attempt: { attempt: number; outcome: string }) => [attempt.attempt, attempt.outcome]),
  ).toEqual([
    [1, 'TimedOut'],
    [1, 'Delivered'],
    [2, 'NotAttempted'],
  ]);
  expect(webhook.requestsTo(path)).toHaveLength(1);
  const late = entry.attempts.find((attempt: { outcome: string }) => attempt.outcome === 'Delivered');
  expect(late).toMatchObject({ attempt: 1, httpStatus: 200 });
  // Heard after the timeout, past what the 120 s function allowed, within the 3 minutes.
  expect(late.durationMs).toBeGreaterThan(DELIVERY_TIMEOUT_MS / REQUEST_TIME_SCALE);
  expect(late.durationMs).toBeGreaterThan(OLD_LONGEST_MS / REQUEST_TIME_SCALE);
  expect(late.durationMs).toBeLessThan(LATE_ANSWER_WINDOW_MS / REQUEST_TIME_SCALE);
  // The function's timeout, shrunk alike, still holds the whole window.
  expect((FUNCTIONS.delivery.timeoutSeconds * 1000) / REQUEST_TIME_SCALE).toBeGreaterThan(
    LATE_ANSWER_WINDOW_MS / REQUEST_TIME_SCALE,
  );
}, 60_000);

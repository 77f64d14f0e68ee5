/**
 * A backlog wake lost on purpose, on the local stack: an unhealthy endpoint's events are parked in
 * its backlog, then the tick that would wake the backlog is received from the retry queue and
 * deleted without being worked (what a consumer fault does to it), so nothing is left to wake it.
 * Then:
 * - past the sweep's grace, `OldestOverdueSeconds` (written by every sweep) and the status
 *   document (`GET /local/status`, read from the timer index at request time) report the wake
 *   overdue, and nothing takes it;
 * - once it is 5 minutes late, the sweep (the reconciler) arms it again with a new token
 *   (`BacklogWakeLateCount`), its tick is worked, every event reaches the endpoint (answering
 *   again by then), and both readings return to 0.
 *
 * Time scale 60: the unhealthy endpoint's first hold (1 min) is 1 s, and the sweep runs every
 * second. The grace and the 5 minutes the sweep waits for are real time, not scaled: the stack
 * runs on a clock that is the real one plus an offset the test moves forward, so the wake becomes
 * overdue, then late, when the test says. Nothing here races a timer: each wait polls something
 * the stack shows (the webhook's requests, META, the queue depths, the metric, the status).
 */
import { formatStatus, readLocalStatus } from '../../cli/status';
import type { DeliveryFunctionHandler } from '../../functions/delivery';
import { LOCAL_STATUS_PATH, type LocalStatusDocument } from '../../local/status';
import { OVERDUE_GRACE_MS, WAKE_LATE_MS } from '../../shared/delivery/backlog/sweep';
import { METRIC } from '../../shared/observability/metrics';
import { type Clock, systemClock } from '../../shared/platform/clock';
import { DynamoBacklogStore } from '../../shared/storage/backlog';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { S } from '../support/time';
import { eventually, WebhookServer } from '../support/webhook-server';

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

const TIME_SCALE = 60;
/** The longest wait for one step of the pipeline: generous, for a busy 2-core machine. */
const WAIT_MS = 30_000;
const TOPIC = 'lost';
const NAME = 'hook';
const PATH = '/lost';

const clock = new MovableClock();
/** While set, every backlog tick the delivery function is handed is deleted unworked. */
let losingTicks = false;
/** The tokens of the ticks lost so far. */
const lostTokens: string[] = [];

/** The tick's kind and token, for a record whose body is a backlog tick. */
function tickOf(body: string): { token: string } | undefined {
  try {
    const job = JSON.parse(body) as { kind?: unknown; token?: unknown };
    return job.kind === 'backlog-tick' && typeof job.token === 'string' ? { token: job.token } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The delivery function, but while `losingTicks` is set the backlog ticks of a batch are left out
 * and answered as done (not among the batch's failures), so the poller deletes them from the retry
 * queue; the rest of the batch is worked as usual.
 */
const losing =
  (handler: DeliveryFunctionHandler): DeliveryFunctionHandler =>
  async (incoming, context) => {
    if (!losingTicks || !('Records' in incoming)) return handler(incoming, context);
    const kept = incoming.Records.filter((record) => {
      const tick = tickOf(record.body);
      if (tick !== undefined) lostTokens.push(tick.token);
      return tick === undefined;
    });
    if (kept.length === incoming.Records.length) return handler(incoming, context);
    return kept.length === 0 ? { batchItemFailures: [] } : handler({ ...incoming, Records: kept }, context);
  };

let api: TestStack;
let webhook: WebhookServer;
let down = true;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE, clock, wrapDeliveryHandler: losing });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

/** The backlogs' index and META, read directly. */
const timers = () =>
  new DynamoBacklogStore(
    api.stack.clients.dynamo,
    api.stack.config.tableName as string,
    api.stack.clients.s3,
    api.stack.config.backlogBucket as string,
  );

const status = async (): Promise<LocalStatusDocument> => {
  const answer = await api.call('GET', LOCAL_STATUS_PATH);
  expect(answer.status).toBe(200);
  return answer.body;
};

const healthOf = async () =>
  (await api.call('GET', `/admin/topics/${TOPIC}/eventSubscriptions/${NAME}/health`)).body;

/** The event ids of the requests to the endpoint from the `from`th on. */
const idsSince = (from: number): string[] =>
  webhook
    .requestsTo(PATH)
    .slice(from)
    .flatMap((request) => JSON.parse(request.body).map((one: { id: string }) => one.id));

/** What the sweeps last wrote as `OldestOverdueSeconds` (stack-wide), and the most they wrote. */
const overdueMetric = () => ({
  last: api.stack.metrics.last(METRIC.OldestOverdueSeconds),
  max:
    api.stack.metrics
      .snapshot()
      .find(
        (total) => total.name === METRIC.OldestOverdueSeconds && Object.keys(total.dimensions).length === 0,
      )?.max ?? 0,
});

it('reports a backlog wake whose tick was lost, arms it again once it is 5 minutes late, delivers its events, and reports nothing overdue after', async () => {
  // ---- events parked in the backlog of an endpoint that fails
  const key = await api.createTopic(TOPIC);
  await api.subscribe(
    TOPIC,
    NAME,
    webhook.url(PATH, () => ({ status: down ? 500 : 200 })),
  );
  const ids = Array.from({ length: 20 }, (_, index) => `lost-${index}`);
  expect(
    (
      await api.publish(
        TOPIC,
        key,
        ids.map((id) => event(id)),
      )
    ).status,
  ).toBe(200);
  await eventually(
    async () => (await healthOf()).held?.events === ids.length,
    WAIT_MS,
    'every event held in the backlog',
  );

  // ---- the wake's tick lost: received and deleted unworked
  losingTicks = true;
  const lost = await eventually(
    async () => {
      const meta = await timers().getMeta(TOPIC, NAME);
      return (
        meta?.wakeAt !== undefined &&
        meta.armedToken === meta.token &&
        lostTokens.includes(meta.token) &&
        meta
      );
    },
    WAIT_MS,
    "the tick of the backlog's current wake lost",
  );
  const wakeAt = lost.wakeAt as number;
  // Nothing else is on its way to the backlog: the queue its ticks ride holds no message.
  await eventually(
    async () => {
      const retry = (await status()).queues.find((queue) => queue.queue === 'retry');
      return retry !== undefined && retry.visible + retry.inFlight + retry.delayed === 0;
    },
    // Longer than one step: on a loaded machine the ticks and retries in flight once took more
    // than 30 s to leave the queue (the cause was not pinned down).
    3 * WAIT_MS,
    'the retry queue empty',
  );
  // From here on nothing is lost any more, and the endpoint answers: only a new tick can help.
  losingTicks = false;
  down = false;
  const requestsBefore = webhook.requestsTo(PATH).length;
  expect(overdueMetric().max).toBe(0);

  // ---- past the grace, not yet 5 minutes late: reported overdue, and left as it is
  const overdueFor = OVERDUE_GRACE_MS + 30 * S;
  clock.moveTo(wakeAt + overdueFor);
  const reported = await eventually(
    () => {
      const { last } = overdueMetric();
      return last !== undefined && last >= overdueFor / 1000 && last;
    },
    WAIT_MS,
    'OldestOverdueSeconds reporting the wake',
  );
  expect(reported).toBeLessThan(WAKE_LATE_MS / 1000);
  const shown = (await status()).backlogs;
  expect(shown.oldestOverdue).toEqual({
    topic: TOPIC,
    subscription: NAME,
    dueSince: new Date(wakeAt).toISOString(),
  });
  expect(shown.oldestOverdueSeconds).toBeGreaterThanOrEqual(overdueFor / 1000);
  expect(shown.oldestOverdueSeconds).toBeLessThan(WAKE_LATE_MS / 1000);
  // `gridwire status` prints it.
  expect(formatStatus(await readLocalStatus(api.stack.dataDir))).toContain(
    `Oldest overdue backlog wake: ${TOPIC}/${NAME}, due since ${new Date(wakeAt).toISOString()} (`,
  );
  // Nobody took it: the same token and wake, no request to the endpoint, no re-arm yet.
  expect(await timers().getMeta(TOPIC, NAME)).toMatchObject({ token: lost.token, wakeAt });
  expect(webhook.requestsTo(PATH)).toHaveLength(requestsBefore);
  expect(api.stack.metrics.sum(METRIC.BacklogWakeLateCount)).toBe(0);

  // ---- 5 minutes late: the sweep arms it again, its tick is worked, every event is delivered
  const lateFor = WAKE_LATE_MS + 30 * S;
  clock.moveTo(wakeAt + lateFor);
  await eventually(
    () => api.stack.metrics.sum(METRIC.BacklogWakeLateCount) >= 1,
    WAIT_MS,
    'the late wake armed again',
  );
  // The re-arming sweep reported the wake as it found it, at least 5.5 minutes overdue.
  expect(overdueMetric().max).toBeGreaterThanOrEqual(lateFor / 1000);
  await eventually(
    // Every request since the endpoint answers again was answered 200.
    () => ids.every((id) => idsSince(requestsBefore).includes(id)),
    WAIT_MS,
    'every held event delivered',
  );
  const rearmed = await timers().getMeta(TOPIC, NAME);
  expect(rearmed?.token).not.toBe(lost.token);
  expect(rearmed?.overdueSince).toBeUndefined();

  // ---- nothing overdue any more: the metric and the status both read 0
  await eventually(() => overdueMetric().last === 0, WAIT_MS, 'OldestOverdueSeconds back to 0');
  expect((await status()).backlogs).toEqual({ oldestOverdueSeconds: 0 });
  expect(formatStatus(await readLocalStatus(api.stack.dataDir))).toContain('Backlog wakes: none overdue.');
  await eventually(async () => (await healthOf()).held === null, WAIT_MS, 'the backlog empty');
}, 200_000);

/**
 * The local stack as a user runs it (`gridwire start` in its own process group) keeps what it
 * accepted: killed with SIGKILL mid-delivery, or hung up on (SIGHUP, a closed terminal), it
 * delivers every accepted event after a restart with the same data directory (some twice), and a
 * retry that was due in the future arrives at its time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_STATUS_PATH, type LocalStatusDocument } from '../../local/status';
import {
  apiCaller,
  killGroup,
  type RunningCli,
  signalGroup,
  startCli as startGridwire,
} from '../support/cli-stack';
import { event } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

const TOKEN = 'crash-test-token';
let webhook: WebhookServer;
let dataDir: string;
/** The stacks started, so a failed test leaves none running. */
const started: RunningCli[] = [];

/** `gridwire start` on this test's data directory, as its own process group; resolves once it serves. */
async function startCli(timeScale: number): Promise<RunningCli> {
  const running = await startGridwire(dataDir, { adminToken: TOKEN, timeScale });
  started.push(running);
  return running;
}

const call = apiCaller(TOKEN);

async function topicWithSubscription(apiUrl: string, topic: string, endpointUrl: string): Promise<string> {
  expect((await call(apiUrl, 'PUT', `/admin/topics/${topic}`, {})).status).toBe(201);
  const subscribed = await call(apiUrl, 'PUT', `/admin/topics/${topic}/eventSubscriptions/hook`, {
    properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl } } },
  });
  expect(subscribed.status).toBe(201);
  return (await call(apiUrl, 'POST', `/admin/topics/${topic}/listKeys`)).body.key1;
}

const idsAt = (path: string) =>
  new Set(
    webhook
      .requestsTo(path)
      .flatMap((request: ReceivedRequest) =>
        (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id),
      ),
  );

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gridwire-crash-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

beforeAll(async () => {
  webhook = await new WebhookServer().start();
});

afterAll(async () => {
  for (const running of started) killGroup(running);
  await webhook?.stop();
});

describe.each([
  ['SIGKILL', '/killed'],
  ['SIGHUP', '/hung-up'],
] as const)('after %s of the whole process group mid-delivery', (signal, path) => {
  it('a restart delivers every accepted event', async () => {
    // A slow receiver, so most events are still queued or in flight when the signal comes.
    const url = webhook.url(path, () => ({ status: 200, delayMs: 20 }));
    const first = await startCli(1);
    const key = await topicWithSubscription(first.apiUrl, 'durable', url);
    const ids: string[] = [];
    for (let request = 0; request < 10; request += 1) {
      const events = Array.from({ length: 100 }, (_, i) => event(`${signal}-${request * 100 + i}`));
      ids.push(...events.map((e) => e.id));
      const published = await call(first.apiUrl, 'POST', '/topics/durable/api/events', events, {
        'aeg-sas-key': key,
      });
      expect(published.status).toBe(200);
    }
    await eventually(() => idsAt(path).size >= 20, 15_000, 'the first deliveries');
    await signalGroup(first, signal);
    // Killed, the stack left events undelivered; hung up on, it may have finished the deliveries
    // in progress first (as Ctrl-C does), and anything left waits on disk either way.
    if (signal === 'SIGKILL') expect(idsAt(path).size).toBeLessThan(ids.length);

    const second = await startCli(1);
    try {
      await eventually(() => idsAt(path).size === ids.length, 60_000, 'every accepted event');
      expect([...idsAt(path)].sort()).toEqual([...ids].sort());
    } finally {
      await signalGroup(second, 'SIGTERM');
    }
  }, 120_000);
});

it('a retry due in the future survives a kill and arrives at its time', async () => {
  let failing = true;
  const url = webhook.url('/later', () => ({ status: failing ? 500 : 200 }));
  // At time scale 2 the first retry is due 5 s (10 s / 2) after the failed attempt.
  const first = await startCli(2);
  const key = await topicWithSubscription(first.apiUrl, 'later', url);
  expect(
    (
      await call(first.apiUrl, 'POST', '/topics/later/api/events', [event('due-later')], {
        'aeg-sas-key': key,
      })
    ).status,
  ).toBe(200);
  const [attempt] = await eventually(
    () => webhook.requestsTo('/later').length === 1 && webhook.requestsTo('/later'),
    10_000,
    'the first attempt',
  );
  // Killed before the retry is queued and the first attempt's message deleted, the stack would
  // repeat the first attempt instead (at least once): wait for both, well before the retry is due.
  await eventually(
    async () => {
      const { queues } = (await call(first.apiUrl, 'GET', LOCAL_STATUS_PATH)).body as LocalStatusDocument;
      const depth = (name: string) => queues.find((row) => row.queue === name);
      const fresh = depth('delivery');
      const retries = depth('retry');
      return fresh?.visible === 0 && fresh.inFlight === 0 && retries?.delayed === 1;
    },
    4000,
    'the retry queued and the first attempt acknowledged',
  );
  await signalGroup(first, 'SIGKILL');
  failing = false;

  const second = await startCli(2);
  const upAt = Date.now();
  try {
    const retry = await eventually(() => webhook.requestsTo('/later')[1], 20_000, 'the retry');
    expect(retry.headers['aeg-delivery-count']).toBe('1');
    const attemptAt = (attempt as ReceivedRequest).at;
    // Due 5 s after the attempt (jitter adds at most 10% of the wait): not sooner, and not much
    // later than when it was due or, on a machine slow to restart the stack, than the restart.
    expect(retry.at - attemptAt).toBeGreaterThanOrEqual(5000);
    expect(retry.at - Math.max(attemptAt + 5000 * 1.1, upAt)).toBeLessThan(4000);
  } finally {
    await signalGroup(second, 'SIGTERM');
  }
}, 90_000);

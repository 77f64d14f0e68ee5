/**
 * A replay survives the local stack being killed (SIGKILL of `gridwire start`'s whole process
 * group) while it pages through the archive: after a restart with the same data directory it goes
 * on from its cursor and completes, and each archived event reaches the subscription once.
 *
 * Until the kill the endpoint holds every request unanswered, so no delivery ends and no message
 * of the delivery queue (pages and their parts alike) is acknowledged: after the restart they are
 * all received again, pages are worked twice and their parts queued twice, and each event must
 * still arrive once (a delivery that had ended before a kill may be repeated after it: delivery is
 * at least once, so this test lets none end).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_STATUS_PATH, type LocalStatusDocument } from '../../local/status';
import { apiCaller, killGroup, type RunningCli, signalGroup, startCli } from '../support/cli-stack';
import { event } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

const TOKEN = 'replay-crash-token';
const PUBLISHES = 60;
const EVENTS_PER_PUBLISH = 20;
const HOUR = 3_600_000;
const call = apiCaller(TOKEN);
const subscriptionPath = '/admin/topics/kept/eventSubscriptions/late';

let webhook: WebhookServer;
let dataDir: string;
const started: RunningCli[] = [];

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  dataDir = await mkdtemp(join(tmpdir(), 'gridwire-replay-crash-'));
});

afterAll(async () => {
  for (const running of started) killGroup(running);
  await webhook?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(): Promise<RunningCli> {
  const running = await startCli(dataDir, { adminToken: TOKEN });
  started.push(running);
  return running;
}

/** Whether every queue of the stack is empty: nothing visible, in flight or delayed. */
async function queuesEmpty(apiUrl: string, names?: readonly string[]): Promise<boolean> {
  const { queues } = (await call(apiUrl, 'GET', LOCAL_STATUS_PATH)).body as LocalStatusDocument;
  return queues
    .filter(({ queue }) => names === undefined || names.includes(queue))
    .every(({ visible, inFlight, delayed }) => visible === 0 && inFlight === 0 && delayed === 0);
}

/**
 * When the endpoint began answering: once the first stack is dead. Requests on connections opened
 * before it (the dead stack's, however late their bytes are read) are held and never answered.
 */
let answeringSince = Number.POSITIVE_INFINITY;
const answered = () => webhook.requestsTo('/late').filter(({ connectedAt }) => connectedAt >= answeringSince);

const idsReceived = () =>
  answered().flatMap((request: ReceivedRequest) =>
    (JSON.parse(request.body) as Array<{ id: string }>).map(({ id }) => id),
  );

it('goes on from its cursor after a kill and delivers each archived event once', async () => {
  const first = await start();
  expect(
    (
      await call(first.apiUrl, 'PUT', '/admin/topics/kept', {
        properties: { archive: { retentionInDays: 1 } },
      })
    ).status,
  ).toBe(201);
  const key = (await call(first.apiUrl, 'POST', '/admin/topics/kept/listKeys')).body.key1;
  const since = new Date(Date.now() - HOUR).toISOString();
  const ids: string[] = [];
  // Published one request at a time, so the archive writes them in many segments (a page each).
  for (let request = 0; request < PUBLISHES; request += 1) {
    const events = Array.from({ length: EVENTS_PER_PUBLISH }, (_, i) => event(`k-${request}-${i}`));
    ids.push(...events.map(({ id }) => id));
    const published = await call(first.apiUrl, 'POST', '/topics/kept/api/events', events, {
      'aeg-sas-key': key,
    });
    expect(published.status).toBe(200);
  }
  await eventually(() => queuesEmpty(first.apiUrl, ['archive']), 30_000, 'the archive written');

  // Made after the events were published; its endpoint holds requests until the kill.
  const endpointUrl = webhook.url('/late', ({ connectedAt }) =>
    connectedAt >= answeringSince ? { status: 200 } : { status: 503, delayMs: 120_000 },
  );
  const subscribed = await call(first.apiUrl, 'PUT', subscriptionPath, {
    properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl } } },
  });
  expect(subscribed.status).toBe(201);
  const replay = await call(first.apiUrl, 'POST', `${subscriptionPath}/replays`, { since });
  expect(replay.status).toBe(202);
  const replayPath = `${subscriptionPath}/replays/${replay.body.id}`;
  // Killed once the replay has worked through some of the archive and its first deliveries hang.
  await eventually(
    async () =>
      webhook.requestsTo('/late').length > 0 &&
      (await call(first.apiUrl, 'GET', replayPath)).body.eventsFound > 0,
    20_000,
    'the first pages and deliveries',
  );
  // Still paging when it dies (the archive holds some 30 segments, a page each).
  expect((await call(first.apiUrl, 'GET', replayPath)).body).toMatchObject({ state: 'Running' });
  await signalGroup(first, 'SIGKILL');
  answeringSince = Date.now();

  const second = await start();
  try {
    const ended = await eventually(
      async () => {
        const document = (await call(second.apiUrl, 'GET', replayPath)).body;
        return document.state !== 'Running' && document;
      },
      60_000,
      'the replay completed after the restart',
    );
    expect(ended).toMatchObject({ state: 'Completed', eventsFound: ids.length, eventsQueued: ids.length });
    await eventually(() => new Set(idsReceived()).size === ids.length, 60_000, 'every replayed event');
    await eventually(() => queuesEmpty(second.apiUrl), 30_000, 'nothing left queued');
    const received = idsReceived();
    expect(received).toHaveLength(ids.length);
    expect([...new Set(received)].sort()).toEqual([...ids].sort());
    expect(answered().every((request) => request.headers['gridwire-replay-of'] === 'archive')).toBe(true);
    await eventually(
      async () => (await call(second.apiUrl, 'GET', replayPath)).body.eventsDelivered === ids.length,
      10_000,
      'every delivered event counted',
    );

    // Cancelled as soon as it starts, a replay stops at its next page: of the archive's 30-odd
    // pages, it queues what the pages before the cancel found, and those alone arrive.
    const stoppedPath = '/admin/topics/kept/eventSubscriptions/stopped';
    const made = await call(second.apiUrl, 'PUT', stoppedPath, {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/stopped') } },
      },
    });
    expect(made.status).toBe(201);
    const cancelled = await call(second.apiUrl, 'POST', `${stoppedPath}/replays`, { since });
    expect((await call(second.apiUrl, 'DELETE', `${stoppedPath}/replays/${cancelled.body.id}`)).status).toBe(
      200,
    );
    await eventually(() => queuesEmpty(second.apiUrl), 30_000, 'the cancelled replay stopped');
    const stopped = (await call(second.apiUrl, 'GET', `${stoppedPath}/replays/${cancelled.body.id}`)).body;
    expect(stopped.state).toBe('Cancelled');
    expect(stopped.eventsQueued).toBeLessThan(ids.length);
    const stoppedIds = webhook
      .requestsTo('/stopped')
      .flatMap((request: ReceivedRequest) =>
        (JSON.parse(request.body) as Array<{ id: string }>).map(({ id }) => id),
      );
    expect(stoppedIds).toHaveLength(stopped.eventsQueued);
  } finally {
    await signalGroup(second, 'SIGTERM');
  }
}, 180_000);

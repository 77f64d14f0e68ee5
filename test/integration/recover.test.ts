/**
 * Bulk recovery on the local stack (`POST <subscription>/recover`): after an endpoint is fixed,
 * the deliveries of a range that ended without success are sent again once each: dropped ones
 * from the message log (marked as resends of the delivery they come from), dead-lettered ones
 * from the dead letters. A second call over the same range sends nothing; a dry run counts and
 * sends nothing. Time scale 60: the dead letters' 5 minutes are 5 s.
 */
import { RESEND_HEADER } from '../../shared/delivery/rules/headers';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

const TIME_SCALE = 60;
let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE });
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const HOUR = 3_600_000;
const route = (topic: string, subscription: string) =>
  `/admin/topics/${topic}/eventSubscriptions/${subscription}`;

const idsIn = (requests: readonly ReceivedRequest[]) =>
  requests.flatMap((request) => (JSON.parse(request.body) as Array<{ id: string }>).map(({ id }) => id));

/** An endpoint that refuses (400) until it is fixed. */
function breakable(path: string) {
  let fixed = false;
  return {
    url: webhook.url(path, () => ({ status: fixed ? 200 : 400 })),
    fix: () => {
      fixed = true;
    },
  };
}

it('sends the dropped deliveries of a range again once each, from the message log', async () => {
  const key = await api.createTopic('recover-log');
  const endpoint = breakable('/recover-log');
  await api.subscribe('recover-log', 'fragile', endpoint.url, {
    filter: { includedEventTypes: ['Order.Created'] },
  });
  const since = new Date(Date.now() - HOUR).toISOString();
  expect((await api.publish('recover-log', key, [event('d1'), event('d2')])).status).toBe(200);
  expect((await api.publish('recover-log', key, [event('d3')])).status).toBe(200);
  await eventually(() => idsIn(webhook.requestsTo('/recover-log')).length >= 3, 15_000, 'three refusals');
  for (const id of ['d1', 'd2', 'd3']) await api.historyWhen('recover-log', 'fragile', id, 'Dropped');

  const dryRun = await api.call('POST', `${route('recover-log', 'fragile')}/recover`, {
    since,
    dryRun: true,
  });
  expect(dryRun.status).toBe(200);
  expect(dryRun.body).toMatchObject({
    dryRun: true,
    eventsQueued: 0,
    dropped: { deliveries: 3, matched: 3, eventsQueued: 0, alreadyRecovered: 0 },
    deadLetters: null,
  });
  expect(dryRun.body.nextUntil).toBeUndefined();

  endpoint.fix();
  const refused = webhook.requestsTo('/recover-log').length;
  const recovered = await api.call('POST', `${route('recover-log', 'fragile')}/recover`, { since });
  expect(recovered.status).toBe(200);
  expect(recovered.body).toMatchObject({
    dryRun: false,
    eventsQueued: 3,
    dropped: {
      deliveries: 3,
      matched: 3,
      eventsQueued: 3,
      alreadyRecovered: 0,
      withoutText: 0,
      filteredOut: 0,
    },
  });
  const resent = await eventually(
    () => {
      const requests = webhook.requestsTo('/recover-log').slice(refused);
      return idsIn(requests).length >= 3 && requests;
    },
    15_000,
    'the recovered deliveries',
  );
  expect(idsIn(resent).sort()).toEqual(['d1', 'd2', 'd3']);
  // Each is a resend of the delivery it comes from.
  for (const request of resent) expect(request.headers[RESEND_HEADER]).toMatch(/\S/);

  const again = await api.call('POST', `${route('recover-log', 'fragile')}/recover`, { since });
  expect(again.body).toMatchObject({ eventsQueued: 0, dropped: { deliveries: 3, alreadyRecovered: 3 } });
  // What a second call could have sent would have arrived by the time a fresh event has.
  expect((await api.publish('recover-log', key, [event('d4')])).status).toBe(200);
  await eventually(() => idsIn(webhook.requestsTo('/recover-log')).includes('d4'), 15_000, 'a fresh event');
  expect(idsIn(webhook.requestsTo('/recover-log').slice(refused)).sort()).toEqual(['d1', 'd2', 'd3', 'd4']);
}, 60_000);

it('sends the dead-lettered events of a range again once each, from the dead letters', async () => {
  const key = await api.createTopic('recover-dead');
  const endpoint = breakable('/recover-dead');
  await api.subscribe('recover-dead', 'kept', endpoint.url, {
    deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'recovered' } },
  });
  const since = new Date(Date.now() - HOUR).toISOString();
  expect((await api.publish('recover-dead', key, [event('x1'), event('x2')])).status).toBe(200);
  for (const id of ['x1', 'x2']) await api.historyWhen('recover-dead', 'kept', id, 'DeadLettered');
  // The dead letters are written after the (scaled) five minutes.
  await eventually(
    async () => {
      const listed = await api.call('GET', `${route('recover-dead', 'kept')}/deadLetters`);
      return listed.body.value.length > 0;
    },
    20_000,
    'the dead-letter blob',
  );

  endpoint.fix();
  const refused = webhook.requestsTo('/recover-dead').length;
  const recovered = await api.call('POST', `${route('recover-dead', 'kept')}/recover`, { since });
  expect(recovered.status).toBe(200);
  expect(recovered.body).toMatchObject({
    eventsQueued: 2,
    dropped: { deliveries: 0, eventsQueued: 0 },
    deadLetters: { eventsQueued: 2, blobsSkipped: 0, failedKeys: [] },
  });
  await eventually(
    () => idsIn(webhook.requestsTo('/recover-dead').slice(refused)).length >= 2,
    15_000,
    'the recovered dead letters',
  );

  const again = await api.call('POST', `${route('recover-dead', 'kept')}/recover`, { since });
  expect(again.body).toMatchObject({ eventsQueued: 0, deadLetters: { eventsQueued: 0 } });
  expect(again.body.deadLetters.blobsSkipped).toBeGreaterThan(0);
  expect((await api.publish('recover-dead', key, [event('x3')])).status).toBe(200);
  await eventually(() => idsIn(webhook.requestsTo('/recover-dead')).includes('x3'), 15_000, 'a fresh event');
  expect(idsIn(webhook.requestsTo('/recover-dead').slice(refused)).sort()).toEqual(['x1', 'x2', 'x3']);
}, 60_000);

it('names the field and the limit of a request it refuses', async () => {
  await api.createTopic('recover-checks');
  await api.subscribe('recover-checks', 'any', webhook.url('/recover-checks'));
  const path = `${route('recover-checks', 'any')}/recover`;
  const missing = await api.call('POST', path, {});
  expect(missing.status).toBe(400);
  expect(JSON.stringify(missing.body)).toMatch(/since/);
  const future = await api.call('POST', path, {
    since: new Date(Date.now() - HOUR).toISOString(),
    until: new Date(Date.now() + HOUR).toISOString(),
  });
  expect(future.status).toBe(400);
  expect(JSON.stringify(future.body)).toMatch(/until: must not be in the future/);
  const tooLong = await api.call('POST', path, {
    since: new Date(Date.now() - 30 * 24 * HOUR).toISOString(),
  });
  expect(tooLong.status).toBe(400);
  expect(JSON.stringify(tooLong.body)).toMatch(/at most 7 days/);
  const unknown = await api.call('POST', path, { since: new Date().toISOString(), force: true });
  expect(unknown.status).toBe(400);
  expect(JSON.stringify(unknown.body)).toMatch(/force/);
});

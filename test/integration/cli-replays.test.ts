/**
 * `gridwire events replay|replays|recover` against a running local stack, run in this process
 * through `runGridwire` as the binary runs it: a replay from a topic's archive started and
 * followed to its end (`--wait`), listed, shown and cancelled once over; and a range's dropped
 * deliveries counted (`--dry-run`), recovered, and not recovered twice.
 */
import { runGridwire } from '../../cli/program';
import { ARCHIVE_BUCKET } from '../../shared/config/resources';
import { createAwsClients } from '../../shared/platform/aws';
import { ArchiveBucket } from '../../shared/storage/archive';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack();
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

afterEach(() => {
  process.exitCode = undefined;
});

const HOUR = 3_600_000;

/** Runs one command in this process; what it printed, one string. */
async function gridwire(...args: string[]): Promise<string> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    lines.push(parts.map(String).join(' '));
  });
  try {
    await runGridwire([...args, '--data-dir', api.stack.dataDir]);
  } finally {
    log.mockRestore();
  }
  return lines.join('\n');
}

const idsIn = (requests: readonly ReceivedRequest[]) =>
  requests.flatMap((request) => (JSON.parse(request.body) as Array<{ id: string }>).map(({ id }) => id));

it('replays archived events to a subscription made afterwards, waiting for the end, and lists, shows and cancels the replay', async () => {
  await gridwire('topic', 'create', 'kept', '--archive-retention', '7');
  const key = (await api.call('POST', '/admin/topics/kept/listKeys')).body.key1;
  expect((await api.publish('kept', key, [event('k1'), event('k2', 'Order.Shipped')])).status).toBe(200);
  const createdAt = (await api.call('GET', '/admin/topics/kept')).body.systemData.createdAt;
  const archive = new ArchiveBucket(createAwsClients(api.stack.endpoints).s3, ARCHIVE_BUCKET.localName);
  await eventually(
    async () => {
      const now = Date.now();
      const segments = await archive.listSegments({ topic: 'kept', createdAt }, now - HOUR, now + HOUR);
      return (
        (await Promise.all(segments.map((segment) => archive.readSegment(segment.key)))).flat().length >= 2
      );
    },
    20_000,
    'the archived events',
  );
  await api.subscribe('kept', 'late', webhook.url('/late'));
  const who = ['--topic', 'kept', '--subscription', 'late'];

  const waited = await gridwire(
    'events',
    'replay',
    ...who,
    '--since',
    '1h',
    '--event-types',
    'order.created',
    '--wait',
  );
  const id =
    /^Replay (rp-\S+) of topic kept, subscription late: Running, events published from \S+ to \S+, event types order\.created\.$/m.exec(
      waited,
    )?.[1] as string;
  expect(id).toBeDefined();
  expect(waited).toContain(`\nReplay ${id}: Completed.\n`);
  expect(waited).toMatch(/\nevents: 2 found, 1 queued(, \d delivered)?\n/);
  expect(process.exitCode).toBeUndefined();
  await eventually(() => idsIn(webhook.requestsTo('/late')).includes('k1'), 15_000, 'the replayed event');
  expect(idsIn(webhook.requestsTo('/late'))).toEqual(['k1']);

  const listed = await gridwire('events', 'replays', ...who);
  expect(listed).toMatch(new RegExp(`\\n${id} +Completed +\\S+ +\\S+ +order\\.created +2 +1 `));
  expect(await gridwire('events', 'replays', 'show', id, ...who)).toMatch(
    new RegExp(`^Replay ${id}: Completed\\.\\n`),
  );
  expect(await gridwire('events', 'replays', 'cancel', id, ...who)).toMatch(
    new RegExp(`^Replay ${id} had already ended: nothing to cancel\\.\\n`),
  );
  await expect(gridwire('events', 'replays', 'show', 'rp-none', ...who)).rejects.toThrow(
    /reading replay 'rp-none' of topic kept, subscription late failed: HTTP 404/,
  );
  await gridwire('topic', 'create', 'unkept');
  await api.subscribe('unkept', 'hook', webhook.url('/unkept'));
  await expect(
    gridwire('events', 'replay', '--topic', 'unkept', '--subscription', 'hook', '--since', '1h'),
  ).rejects.toThrow(/failed: HTTP 400: .*keeps no archive/);
}, 60_000);

it("recovers a range's dropped deliveries once, after a dry run that counts them", async () => {
  let fixed = false;
  const key = await api.createTopic('fragile');
  await api.subscribe(
    'fragile',
    'once',
    webhook.url('/fragile', () => ({ status: fixed ? 200 : 400 })),
  );
  expect((await api.publish('fragile', key, [event('f1'), event('f2')])).status).toBe(200);
  for (const id of ['f1', 'f2']) await api.historyWhen('fragile', 'once', id, 'Dropped');
  const who = ['--topic', 'fragile', '--subscription', 'once', '--since', '1h'];

  const counted = await gridwire('events', 'recover', ...who, '--dry-run');
  expect(counted).toMatch(
    /^Dry run, nothing queued: recovery of topic fragile, subscription once, from \S+ to \S+ \(1 call\):\n/,
  );
  expect(counted).toMatch(/\n {2}dropped deliveries to queue +2 +of 2 dropped/);
  expect(counted).toContain('No dead letters: the subscription has no dead-letter destination');

  fixed = true;
  const refused = webhook.requestsTo('/fragile').length;
  const recovered = await gridwire('events', 'recover', ...who);
  expect(recovered).toMatch(/\n {2}dropped deliveries queued +2 +of 2 dropped\n/);
  expect(recovered).toMatch(/\n {2}events queued in all +2\n/);
  await eventually(
    () => idsIn(webhook.requestsTo('/fragile').slice(refused)).length >= 2,
    15_000,
    'the recovered deliveries',
  );
  expect(idsIn(webhook.requestsTo('/fragile').slice(refused)).sort()).toEqual(['f1', 'f2']);

  const again = await gridwire('events', 'recover', ...who, '--json');
  expect(JSON.parse(again)).toMatchObject({
    calls: 1,
    eventsQueued: 0,
    dropped: { deliveries: 2, eventsQueued: 0, alreadyRecovered: 2 },
    deadLetters: null,
  });
}, 60_000);

/**
 * `gridwire status` against the real local stack: events published to a topic with one working
 * and one refusing subscription, a refused publish of a key holder and one of a caller without a
 * key, then the command's figures per topic, per subscription and stack-wide.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatStatus, readLocalStatus, type StatusSummary, statusOutput } from '../../cli/status';
import { LOCAL_STATUS_PATH } from '../../local/status';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

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

it('counts publishes, deliveries and failures per topic and per subscription', async () => {
  const key = await api.createTopic('orders');
  await api.subscribe('orders', 'works', webhook.url('/works'));
  await api.subscribe(
    'orders',
    'broken',
    webhook.url('/broken', () => ({ status: 400 })),
  );

  expect((await api.publish('orders', key, [event('e1'), event('e2'), event('e3')])).status).toBe(200);
  expect((await api.publish('orders', key, '{"not json')).status).toBe(400);
  expect((await api.publish('orders', 'not-the-key', [event('e4')])).status).toBe(401);

  const summary: StatusSummary = await eventually(
    async () => {
      const read = await readLocalStatus(api.stack.dataDir);
      const broken = read.subscriptions.find((row) => row.subscription === 'BROKEN');
      const ok = read.subscriptions.find((row) => row.subscription === 'WORKS');
      return ok?.delivered === 3 && broken?.dropped === 3 ? read : undefined;
    },
    20_000,
    'three deliveries and three drops',
  );

  expect(summary.topics).toEqual([
    { topic: 'orders', published: 3, failedPublishes: 1, matched: 6, unmatched: 0 },
  ]);
  expect(summary.subscriptions).toEqual([
    expect.objectContaining({
      topic: 'orders',
      subscription: 'BROKEN',
      matched: 3,
      delivered: 0,
      attemptFailures: 3,
      deadLettered: 0,
      dropped: 3,
      durationMs: expect.objectContaining({ attempts: 3 }),
    }),
    expect.objectContaining({
      topic: 'orders',
      subscription: 'WORKS',
      matched: 3,
      delivered: 3,
      attemptFailures: 0,
      dropped: 0,
      probations: 0,
      durationMs: expect.objectContaining({ attempts: 3 }),
    }),
  ]);
  expect(summary.totals).toMatchObject({
    PublishSuccessCount: 3,
    PublishFailCount: 2,
    MatchedEventCount: 6,
    DeliverySuccessCount: 3,
    DeliveryAttemptFailCount: 3,
    DroppedEventCount: 3,
  });
  expect(summary.breakdowns).toEqual(
    expect.arrayContaining([
      {
        metric: 'DeliveryAttemptFailCount',
        dimensions: { Error: 'BadRequest', ErrorType: 'ClientError' },
        count: 3,
      },
      { metric: 'DroppedEventCount', dimensions: { DropReason: 'NonRetriableOutcome' }, count: 3 },
      {
        metric: 'PublishFailCount',
        dimensions: { ErrorType: 'BadRequest', Error: 'InputJsonInvalid' },
        count: 1,
      },
      {
        metric: 'PublishFailCount',
        dimensions: { ErrorType: 'Unauthorized', Error: 'Unauthorized' },
        count: 1,
      },
    ]),
  );
  expect(summary.queues.map((row) => row.queue)).toEqual(
    expect.arrayContaining(['delivery', 'retry', 'ordered']),
  );
  // No backlog here: no wake is overdue (test/integration/lost-wake.test.ts has one that is).
  expect(summary.backlogs).toEqual({ oldestOverdueSeconds: 0 });

  const text = formatStatus(summary);
  expect(text).toMatch(/^orders\s+3\s+1\s+6\s+0$/m);
  expect(text).toMatch(/^orders\/BROKEN\s+0\s+3\s+0\s+3\s/m);
  expect(text).toContain('1 failed publish request(s) came before the caller authenticated');
  expect(text).toContain('Backlog wakes: none overdue.');
  const json = JSON.parse(await statusOutput({ dataDir: api.stack.dataDir, json: true }));
  expect(json.topics).toEqual(summary.topics);
}, 30_000);

it('serves the status only with the admin token', async () => {
  expect((await api.call('GET', LOCAL_STATUS_PATH, undefined, { auth: false })).status).toBe(401);
  expect((await api.call('GET', LOCAL_STATUS_PATH)).status).toBe(200);
});

it('says no stack runs in a directory, suggesting the option status has', async () => {
  const empty = await mkdtemp(join(tmpdir(), 'gridwire-status-'));
  await expect(readLocalStatus(empty)).rejects.toThrow(
    `the local stack is not running in ${empty}; start it with npm start or pass --data-dir <the directory it runs in>`,
  );
});

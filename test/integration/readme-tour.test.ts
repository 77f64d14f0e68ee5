/**
 * The README's five-minute tour, run as written: its shell blocks are read from README.md and
 * run by bash in a directory whose `.gridwire` is a running local stack's data directory (the
 * stack itself and the demo webhook stand in for the tour's first two terminals). Two things
 * change, and only they: the webhook's port (5050 in the README: any free port here), and the
 * `gridwire` alias, which becomes a shell function (aliases don't expand in scripts) running the
 * same npm script from this repository.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startDemoWebhook } from '../../local/demo-webhook';
import { LOCAL_ENV } from '../../shared/config/resources';
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventually } from '../support/webhook-server';

const ROOT = resolve(__dirname, '../..');
const ALIAS = "alias gridwire='npm run --silent gridwire --'";

/** The shell blocks of the README's tour, in order. */
function tourBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## A five-minute tour');
  const end = readme.indexOf('\n## ', start + 1);
  const tour = readme.slice(start, end);
  return [...tour.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

let dir: string;
let api: TestStack;
let webhook: { url: string; close: () => Promise<void> } | undefined;
const printed: string[] = [];

/** Starts the demo webhook; what it prints (with console.log) is kept in `printed`. */
async function startWebhook(status: number, port = 0): Promise<number> {
  webhook = await startDemoWebhook({ port, host: '127.0.0.1', status });
  return Number(new URL(webhook.url).port);
}

beforeAll(async () => {
  jest.spyOn(console, 'log').mockImplementation((line: unknown) => void printed.push(String(line)));
  dir = await mkdtemp(join(tmpdir(), 'gridwire-tour-'));
  api = await startTestStack({ dataDir: join(dir, '.gridwire'), timeScale: 60 });
}, 30_000);

afterAll(async () => {
  jest.restoreAllMocks();
  await webhook?.close();
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs one tour block with bash in the tour's directory; its standard output. */
async function runBlock(block: string, port: number): Promise<string> {
  const script = [
    'set -euo pipefail',
    `gridwire() { npm --prefix ${JSON.stringify(ROOT)} run --silent gridwire -- "$@"; }`,
    block.replace(ALIAS, '').replaceAll('5050', String(port)),
  ].join('\n');
  const { stdout } = await promisify(execFile)('bash', ['-c', script], {
    cwd: dir,
    env: { ...process.env, [LOCAL_ENV.dataDir]: join(dir, '.gridwire') },
    timeout: 90_000,
  });
  return stdout;
}

it('runs as written: topic, subscription, publish, retries and the delivery history', async () => {
  const blocks = tourBlocks();
  expect(blocks[0]).toBe('npm start -- --time-scale 60\n');
  expect(blocks[1]).toBe('npm run gridwire -- webhook --port 5050\n');
  expect(blocks[2]).toContain(ALIAS);
  expect(blocks[3]).toBe('npm run gridwire -- webhook --port 5050 --status 500\n');

  const port = await startWebhook(200);
  const created = await runBlock(blocks[2] as string, port);
  expect(created).toContain('Created topic orders.');
  expect(created).toContain('Created topic orders, subscription printer.');
  expect(created).toContain('Published 1 event to topic orders (id order-1).');
  await eventually(
    () => printed.some((line) => /delivery-count=0 .* -> 200 +order-1 \(Shop\.OrderCreated\)/.test(line)),
    15_000,
    'order-1 printed by the webhook',
  );

  // The webhook again, answering 500: the retries of order-2 come, and the history shows them.
  await webhook?.close();
  await startWebhook(500, port);
  expect(await runBlock(blocks[4] as string, port)).toContain(
    'Published 1 event to topic orders (id order-2).',
  );
  await eventually(
    () => printed.some((line) => /delivery-count=1 .* -> 500 +order-2/.test(line)),
    30_000,
    'a retry of order-2',
  );
  // An attempt is recorded after its answer: ask until the history has the first one.
  const record = await eventually(
    async () => {
      const history = JSON.parse(await runBlock(blocks[5] as string, port));
      const found = history.value?.[0];
      return found?.attempts?.length >= 1 && found;
    },
    30_000,
    'the history of order-2',
  );
  expect(record).toMatchObject({ eventId: 'order-2', status: 'Retrying' });
  expect(record.attempts[0]).toMatchObject({ attempt: 1, httpStatus: 500 });

  // The message log: every delivery kept, listed, and order-2 sent again.
  const logged = await runBlock(blocks[6] as string, port);
  expect(logged).toContain('Updated topic orders, subscription printer.');
  expect(logged).toMatch(/\n\S+ +order-2 +\S+ +(Retrying|DeadLettered|Dropped) /);
  expect(logged).toMatch(
    /Event 'order-2' queued again to topic orders, subscription printer as delivery resend-\S+ \(gridwire-resend-of: \S+\)\./,
  );
  await eventually(
    // Its first delivery's first attempt, and the resend's.
    () => printed.filter((line) => /delivery-count=0 .* -> 500 +order-2/.test(line)).length >= 2,
    30_000,
    'the resent order-2 at the webhook',
  );

  // The last block reads the queues with the AWS CLI, which test machines don't have (it was
  // run by hand with AWS CLI v1 and v2).
  expect(blocks[7]).toContain('sqs list-queues');
  expect(blocks).toHaveLength(8);

  // Signed deliveries, further down the README, on the tour's topic.
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const signing = [...readme.matchAll(/```bash\n([\s\S]*?)```/g)]
    .map((match) => match[1] as string)
    .find((block) => block.includes('--signing-secret generate'));
  expect(signing).toBeDefined();
  const signed = await runBlock(signing as string, port);
  expect(signed).toContain('Created topic orders, subscription signed.');
  expect(signed).toMatch(/whsec_[A-Za-z0-9+/=]+/);
}, 150_000);

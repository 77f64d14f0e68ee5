/**
 * The guides' shell snippets, run as written: every fenced `bash` block of the guides below is
 * read from its file and run by bash, in order, against one local stack started here, in a
 * directory whose `.gridwire` is that stack's data directory (as after `npm start` in a clone).
 * Each block must exit 0 and print no refusal (a curl `%{http_code}` other than 2xx, an API
 * error body). A block that needs an AWS account starts with `# on AWS: <why>` and is skipped;
 * the skipped blocks are counted, so a block added to a guide is either run or visibly marked.
 *
 * What changes, and only that: `$GW` and `$AUTH` are set by the README tour's own lines (the
 * guides say "as set in the tour"); the demo webhook the guides assume on port 5050 listens on
 * a free port, written in place of 5050; `gridwire` is the tour's alias as a shell function (running
 * `scripts/gridwire.js` with node, as the npm script does), and `npm` runs this repository's scripts (the data directory is given by its environment variable, `LOCAL_ENV.dataDir`).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startDemoWebhook } from '../../local/demo-webhook';
import { LOCAL_ENV } from '../../shared/config/resources';
import { refusalsIn, type Snippet, shellSnippets } from '../support/doc-snippets';
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventually } from '../support/webhook-server';

const ROOT = resolve(__dirname, '../..');

/** The guides whose snippets run here, in the order they run; how many blocks each marks `on AWS`. */
const GUIDES: Record<string, number> = {
  'docs/cli.md': 0,
  'docs/publish.md': 0,
  'docs/subscribe.md': 0,
  'docs/operate.md': 2,
  // Every block of the deploy guide needs an account; counted, so a new local one is run.
  'docs/deploy.md': 6,
};

/** The README tour's lines that set `$GW` and `$AUTH`, which the guides' examples use. */
function tourVariables(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = ['GW', 'AUTH'].map((name) => new RegExp(`^${name}=.*$`, 'm').exec(readme)?.[0]);
  if (lines.includes(undefined)) throw new Error('README.md sets no $GW or $AUTH in its tour');
  return lines.join('\n');
}

/**
 * What a block relies on that an earlier block only set going (a delivery that ends in its own
 * time): waited for before the block runs, so the guides run in order on a slow machine too.
 */
const READY_BEFORE: readonly { block: RegExp; what: string; ready: () => Promise<boolean> }[] = [
  {
    // operate.md reads the newest dead letter of billing: order-1, published by cli.md, ends
    // after its retries (seconds at time scale 60).
    block: /deadletters show/,
    what: 'a dead letter of orders/billing',
    ready: async () => {
      const answer = await api.call('GET', '/admin/topics/orders/eventSubscriptions/billing/deadLetters');
      return ((answer.body as { value?: unknown[] }).value?.length ?? 0) > 0;
    },
  },
];

let dir: string;
let api: TestStack;
let webhook: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
  dir = await mkdtemp(join(tmpdir(), 'gridwire-guides-'));
  api = await startTestStack({ dataDir: join(dir, '.gridwire'), timeScale: 60 });
  webhook = await startDemoWebhook({ port: 0, host: '127.0.0.1', status: 200 });
}, 30_000);

afterAll(async () => {
  jest.restoreAllMocks();
  await webhook?.close();
  await api?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Runs one block with bash in the guides' directory: its exit code and what it printed. */
async function run(snippet: Snippet): Promise<{ code: number; stdout: string; stderr: string }> {
  const port = new URL(webhook.url).port;
  const script = [
    'set -euo pipefail',
    // What `npm run gridwire` runs, but here, so a file named on the command line is found here.
    `gridwire() { ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'scripts/gridwire.js'))} "$@"; }`,
    `npm() { command npm --prefix ${JSON.stringify(ROOT)} "$@"; }`,
    tourVariables(),
    snippet.code.replaceAll('5050', port),
  ].join('\n');
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], {
      cwd: dir,
      env: { ...process.env, [LOCAL_ENV.dataDir]: join(dir, '.gridwire') },
      // A safety net, not a measure: a block runs the CLI up to ten times, each a process that
      // compiles on start, which on a loaded two-core machine takes several seconds.
      timeout: 150_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe.each(Object.entries(GUIDES))('%s', (guide, markedOnAws) => {
  const snippets = shellSnippets(join(ROOT, guide));

  it(`marks ${markedOnAws} of its shell blocks as needing an AWS account, and runs the others as written`, async () => {
    expect(snippets.filter((snippet) => snippet.onAws !== undefined)).toHaveLength(markedOnAws);
    for (const snippet of snippets.filter((each) => each.onAws === undefined)) {
      const where = `${guide}:${snippet.line}`;
      for (const { block, what, ready } of READY_BEFORE) {
        if (block.test(snippet.code)) await eventually(ready, 60_000, `${what} (before ${where})`);
      }
      const result = await run(snippet);
      // The place and the output in the value compared, so a failure says which block and why.
      expect({
        where,
        code: result.code,
        refusals: refusalsIn(result.stdout),
        stderr: result.stderr,
      }).toEqual({
        where,
        code: 0,
        refusals: [],
        stderr: result.code === 0 ? result.stderr : '',
      });
    }
  }, 900_000);
});

/**
 * A measured cold start of each function: bundled with esbuild as the CDK construct bundles it
 * (`infra/function-bundle.ts`: one CommonJS file for Node.js 24, minified, with a source map,
 * nothing external, the AWS SDK included), then loaded by a fresh `node` process with the
 * construct's `--enable-source-maps`, whose handler is then built by a first invocation that
 * does no I/O (an empty SQS batch; an HTTP request the handler answers 404 before reading
 * anything). The time from the process's start to the handler's answer is what Lambda bills for
 * INIT plus the first invocation's build (handlers are built on first use). Measured on this
 * machine: a 512 MB Lambda function gets about a third of a vCPU, so INIT there is likely slower.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../infra/function-bundle';
import { ENV, FUNCTIONS, type FunctionKey, QUEUES } from '../shared/config/resources';

const run = promisify(execFile);

export interface ColdStart {
  /** Bundle size, bytes (without its source map). */
  bundleBytes: number;
  /** From the process's start to the module loaded (median of the runs), ms. */
  loadMs: number;
  /** From the process's start to the first invocation's answer (median), ms: the billed INIT. */
  initMs: number;
  runs: number;
  /** What the first invocation answered (`404`, `batch`): it ran to its end. */
  answer: string;
}

/** A first invocation of each function that builds its handler and reads or writes nothing. */
const FIRST_EVENT: Record<FunctionKey, unknown> = {
  // A namespace path without `:publish` is refused before any read.
  publish: {
    routeKey: 'POST /namespaces/{namespace}/topics/{topicAction}',
    rawPath: '/namespaces/ns/topics/t',
    pathParameters: { namespace: 'ns', topicAction: 't' },
    headers: {},
    requestContext: { requestId: 'cold-start' },
    isBase64Encoded: false,
  },
  management: {
    routeKey: 'GET /no-such-route',
    rawPath: '/no-such-route',
    headers: {},
    requestContext: { requestId: 'cold-start' },
    isBase64Encoded: false,
  },
  delivery: { Records: [] },
  deadLetter: { Records: [] },
};

/** Settings the handlers read when they are built (values only need to look right). */
const ENVIRONMENT: Record<string, string> = {
  [ENV.tableName]: 'gridwire-table',
  // Every queue's URL, as the stack gives each function those it binds.
  ...Object.fromEntries(
    Object.values(QUEUES).map((queue) => [
      queue.urlEnv,
      `https://sqs.us-east-1.amazonaws.com/123456789012/${queue.localName}`,
    ]),
  ),
  [ENV.deadLetterBucket]: 'gridwire-dead-letters',
  [ENV.fanOutBucket]: 'gridwire-fan-outs',
  [ENV.backlogBucket]: 'gridwire-backlog',
  [ENV.publicUrl]: 'https://events.example.com',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDCOLDSTART',
  AWS_SECRET_ACCESS_KEY: 'cold-start',
  AWS_LAMBDA_FUNCTION_NAME: 'gridwire-cold-start',
};

const probe = (bundle: string, event: unknown) => `
const { handler } = require(${JSON.stringify(bundle)});
const loadMs = performance.now();
const context = {
  functionName: 'gridwire-cold-start', functionVersion: '$LATEST', memoryLimitInMB: '512',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:gridwire-cold-start',
  awsRequestId: 'cold-start', logGroupName: '/aws/lambda/gridwire', logStreamName: 'cold-start',
  callbackWaitsForEmptyEventLoop: false, getRemainingTimeInMillis: () => 60000,
};
Promise.resolve(handler(${JSON.stringify(event)}, context)).then(
  (result) => (result && result.statusCode !== undefined ? String(result.statusCode) : 'batch'),
  (error) => 'threw: ' + error.message,
).then((answer) => {
  process.stdout.write('\\n' + JSON.stringify({ loadMs, initMs: performance.now(), answer }) + '\\n');
  process.exit(0);
});
`;

/**
 * Bundles `entry` into `outfile` as the package bundles a function (`infra/function-bundle.ts`):
 * one minified CommonJS file for Node.js 24 with a source map, nothing external.
 */
export async function bundleAsTheConstruct(entry: string, outfile: string): Promise<void> {
  await build({ ...BUNDLE_OPTIONS, entryPoints: [entry], outfile, logLevel: 'silent' });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Bundles each function and times `runs` fresh processes loading it. */
export async function measureColdStarts(
  functions: readonly FunctionKey[],
  runs = 3,
): Promise<Record<FunctionKey, ColdStart | undefined>> {
  const dir = await mkdtemp(join(tmpdir(), 'gridwire-cold-start-'));
  const measured: Record<FunctionKey, ColdStart | undefined> = {
    publish: undefined,
    management: undefined,
    delivery: undefined,
    deadLetter: undefined,
  };
  try {
    for (const fn of functions) {
      const bundle = join(dir, fn, 'index.js');
      await bundleAsTheConstruct(join(__dirname, '..', FUNCTIONS[fn].entry), bundle);
      const script = join(dir, fn, 'probe.js');
      await writeFile(script, probe(bundle, FIRST_EVENT[fn]));
      const samples: Array<{ loadMs: number; initMs: number; answer: string }> = [];
      for (let i = 0; i < runs; i += 1) {
        const { stdout } = await run(process.execPath, ['--enable-source-maps', script], {
          env: { ...ENVIRONMENT, PATH: process.env.PATH ?? '' },
          cwd: dir,
        });
        samples.push(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
      }
      measured[fn] = {
        bundleBytes: (await stat(bundle)).size,
        loadMs: median(samples.map((sample) => sample.loadMs)),
        initMs: median(samples.map((sample) => sample.initMs)),
        runs,
        answer: samples[0]?.answer ?? 'none',
      };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return measured;
}

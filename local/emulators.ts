/**
 * Starts the AWS-API-compatible emulators in a child process (see `emulator-host.ts`): fauxqs
 * (SQS and S3; on SQLite in the data directory) and dynalite (DynamoDB on LevelDB, on disk),
 * reachable on loopback only with the stack's credentials (`emulator-access.ts`).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_ENV } from '../shared/config/resources';
import type { LocalCredentials, LocalEndpoints } from '../shared/platform/aws';
import { newLocalCredentials } from './emulator-access';
import type { EmulatorHostOptions, HostMessage, HostRequest } from './emulator-host';

export interface Emulators {
  endpoints: LocalEndpoints;
  /** The loopback ports the emulators are reached through (SQS and S3 share one). */
  ports: { sqs: number; dynamodb: number };
  /** Bodies of every message in a queue (ready, delayed, in flight); null if there is no such queue. */
  inspectQueue(name: string): Promise<string[] | null>;
  stop(): Promise<void>;
}

export interface EmulatorOptions {
  /** Directory for DynamoDB's files; in memory when undefined. */
  dataDir?: string;
  /** The only credentials the emulators take (the data directory's); fresh random ones when undefined. */
  credentials?: LocalCredentials;
  host?: string;
  sqsPort?: number;
  dynamodbPort?: number;
  /** Called if the emulator process exits without being asked to (`signal` when it was killed). */
  onUnexpectedExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

const INSPECT_TIMEOUT_MS = 10_000;

/**
 * The emulator host built as JavaScript beside the command line's bundle: a bundle that
 * `scripts/gridwire.js` builds (what `npm start` and `npm run gridwire` run) declares it in its
 * first line; undefined anywhere else.
 */
declare const __gridwireEmulatorHost: string | undefined;
const BUNDLED_HOST = typeof __gridwireEmulatorHost === 'string' ? __gridwireEmulatorHost : undefined;
/**
 * Run from the TypeScript sources through tsx (tests, `node --import tsx bin/gridwire.ts`), or as
 * JavaScript: the bundle's host or the compiled package's. tsx in the emulator process cost it
 * about 20 MB, and a compiler process of its own whenever a source had changed.
 */
const FROM_SOURCE = BUNDLED_HOST === undefined && __filename.endsWith('.ts');
const HOST_SCRIPT = BUNDLED_HOST ?? join(__dirname, FROM_SOURCE ? 'emulator-host.ts' : 'emulator-host.js');
const PROJECT_ROOT = join(__dirname, '..');

/**
 * V8's young generation in the emulator process at most 2 x 4 MB: by default it grows to some
 * 50 MB under load on a machine with 16 GB or more, and stays there; the emulators' live heap is
 * some 20 MB (docs/local-stack.md, "Memory"). `--max-lazy`: functions are compiled when first
 * called, not ahead of it where a bundle's wrappers hint that they will be.
 */
export const EMULATOR_NODE_FLAGS = ['--max-semi-space-size=4', '--max-lazy'] as const;

/**
 * glibc's allocator gives blocks of 8 KB or more their own pages, returned to the system when
 * freed, instead of carving them from its heap, which freed buffers left fragmented and never
 * shrank (what `npm start` sets for the stack's process too). The user's own setting wins;
 * other C libraries ignore it.
 */
export const EMULATOR_ENV = { MALLOC_MMAP_THRESHOLD_: '8192' } as const;

/**
 * The stack's own process, as `npm start` runs it (package.json's `start` script, held to these by
 * a test): a young generation of at most 2 x 4 MB and an old generation of at most 1 GB, which
 * makes V8 collect before it grows far past what is live (the stack's live heap is some 35 MB
 * idle, docs/local-stack.md "Memory"); functions compiled when first called (`--max-lazy`: the
 * bundle wraps every module in a function V8 would otherwise compile ahead); the same allocator
 * setting as the emulators'.
 */
export const STACK_NODE_FLAGS = [
  '--max-semi-space-size=4',
  '--max-old-space-size=1024',
  '--max-lazy',
] as const;
export const STACK_ENV = EMULATOR_ENV;

/**
 * The oldest Node the emulators run on: fauxqs keeps queues in `node:sqlite`, there since 22.5
 * but behind a flag until 22.13.
 */
export const EMULATOR_NODE_MIN = [22, 13] as const;

const atLeast = (version: string, [major, minor]: readonly [number, number]) => {
  const [ma = 0, mi = 0] = version.split('.').map(Number);
  return ma > major || (ma === major && mi >= minor);
};

/**
 * The Node that runs the emulators: this one when it is recent enough, else the Node the
 * project installs for this platform (an optional dependency), so a machine with only an older
 * system Node still gets durable queues. Throws saying what to do when there is neither.
 */
export function emulatorNode(
  current: { version: string; execPath: string; platform: string; arch: string } = {
    version: process.versions.node,
    execPath: process.execPath,
    platform: process.platform,
    arch: process.arch,
  },
  exists: (path: string) => boolean = existsSync,
): string {
  if (atLeast(current.version, EMULATOR_NODE_MIN)) return current.execPath;
  const bundled = join(
    PROJECT_ROOT,
    'node_modules',
    `node-${current.platform}-${current.arch}`,
    'bin',
    'node',
  );
  if (exists(bundled)) return bundled;
  throw new Error(
    `the emulators need Node ${EMULATOR_NODE_MIN.join('.')} or later (this is ${current.version}, and no Node package is installed for ${current.platform}-${current.arch}); install Node ${EMULATOR_NODE_MIN.join('.')} or later and run npm install again`,
  );
}

export async function startEmulators(options: EmulatorOptions = {}): Promise<Emulators> {
  const host = options.host ?? '127.0.0.1';
  const credentials = options.credentials ?? newLocalCredentials();
  const hostOptions: EmulatorHostOptions = {
    host,
    credentials,
    sqsPort: options.sqsPort ?? 0,
    dynamodbPort: options.dynamodbPort ?? 0,
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
  };
  const child: ChildProcess = fork(HOST_SCRIPT, [], {
    cwd: PROJECT_ROOT,
    execPath: emulatorNode(),
    execArgv: [...(FROM_SOURCE ? ['--import', 'tsx'] : []), '--no-warnings', ...EMULATOR_NODE_FLAGS],
    env: { ...EMULATOR_ENV, ...process.env, [LOCAL_ENV.emulatorOptions]: JSON.stringify(hostOptions) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });

  const ready = await new Promise<Extract<HostMessage, { type: 'ready' }>>((resolve, reject) => {
    const onMessage = (message: HostMessage) => {
      if (message.type === 'ready') resolve(message);
      if (message.type === 'failed') reject(new Error(`the emulators did not start: ${message.message}`));
    };
    child.on('message', onMessage);
    child.once('exit', (code) =>
      reject(new Error(`the emulator process exited (code ${code}) before it was ready`)),
    );
    child.once('error', reject);
  });

  let nextId = 0;
  const pending = new Map<
    number,
    { resolve: (bodies: string[] | null) => void; reject: (error: Error) => void }
  >();
  child.on('message', (message: HostMessage) => {
    if (message.type === 'inspect') {
      pending.get(message.id)?.resolve(message.bodies);
      pending.delete(message.id);
    }
  });
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      for (const request of pending.values())
        request.reject(new Error(`the emulator process exited (code ${code}) before it answered`));
      pending.clear();
      if (!stopping) options.onUnexpectedExit?.(code, signal);
      resolve();
    }),
  );
  const request = (message: HostRequest) => child.send(message);
  const inspectQueue = (name: string) =>
    new Promise<string[] | null>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
        reject(new Error('the emulator process is not running'));
        return;
      }
      const id = nextId;
      nextId += 1;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the emulator process did not answer within ${INSPECT_TIMEOUT_MS} ms`));
      }, INSPECT_TIMEOUT_MS);
      const settle = () => {
        clearTimeout(timer);
        pending.delete(id);
      };
      pending.set(id, {
        resolve: (bodies) => {
          settle();
          resolve(bodies);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      request({ type: 'inspect', id, queue: name });
    });

  const sqs = `http://${host}:${ready.sqsPort}`;
  return {
    endpoints: { sqs, s3: sqs, dynamodb: `http://${host}:${ready.dynamodbPort}`, credentials },
    ports: { sqs: ready.sqsPort, dynamodb: ready.dynamodbPort },
    inspectQueue,
    stop: async () => {
      stopping = true;
      // Gone already (it exited, or was killed): there is nothing to stop.
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (!child.connected) {
        child.kill('SIGKILL');
        await exited;
        return;
      }
      request({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

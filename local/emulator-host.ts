/**
 * Child process that hosts the emulators (fauxqs for SQS and S3, dynalite for DynamoDB), so they
 * run beside the handlers on their own core. With a data directory both write every change
 * through to disk (fauxqs to SQLite, dynalite to LevelDB), so a killed stack loses nothing it
 * had accepted. fauxqs 2 needs `node:sqlite` (unflagged from Node 22.13): `emulators.ts` starts this
 * process with such a Node. The emulators listen on Unix sockets in a directory only this user
 * can open; on loopback, gates let through only requests signed with the stack's credentials
 * (`emulator-access.ts`). Talks to its parent over the IPC channel: `ready` with the gates' ports
 * once listening, `inspect` requests for queue contents, `stop`.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import dynalite from 'dynalite';
import { LOCAL_ENV } from '../shared/config/resources';
import type { LocalCredentials } from '../shared/platform/local-credentials';
import { type EmulatorGate, startEmulatorGate } from './emulator-access';
import { listeningAt } from './listening-on';
import { releaseMemoryWhenQuiet } from './memory-release';

export interface EmulatorHostOptions {
  host: string;
  dataDir?: string;
  /** The only credentials the gates let through. */
  credentials: LocalCredentials;
  sqsPort: number;
  dynamodbPort: number;
}

export type HostRequest = { type: 'inspect'; id: number; queue: string } | { type: 'stop' };
export type HostMessage =
  | { type: 'ready'; sqsPort: number; dynamodbPort: number }
  | { type: 'failed'; message: string }
  | { type: 'inspect'; id: number; bodies: string[] | null };

/** fauxqs's database in its data directory. */
const SQS_DATABASE = 'fauxqs.db';

/**
 * Makes the messages a stopped (or killed) stack had received and not deleted visible again, before
 * fauxqs loads them: the new stack's consumers are the only ones, so there is no one to wait for.
 * fauxqs treats a message whose visibility deadline has passed as ready when it loads.
 */
async function releaseInflight(database: string): Promise<void> {
  if (!existsSync(database)) return;
  const { DatabaseSync } = (await import('node:sqlite' as string)) as {
    DatabaseSync: new (path: string) => { exec(sql: string): void; close(): void };
  };
  const db = new DatabaseSync(database);
  try {
    db.exec('UPDATE sqs_messages SET visibility_deadline = 1 WHERE receipt_handle IS NOT NULL');
  } finally {
    db.close();
  }
}

/** fauxqs's persistence class, as far as it is adjusted here. */
interface FauxqsPersistence {
  prototype: Record<string, unknown>;
}

/**
 * Two adjustments to fauxqs's SQLite persistence, made on its class before fauxqs creates it:
 *
 * - fauxqs 2.4.1 fails a ChangeMessageVisibility to 0 when it persists: it writes the message
 *   back as ready with a null receive count, which its own table refuses (NOT NULL), so the
 *   message stays in flight. `gridwire parked` releases what it listed that way (as on real SQS).
 *   Until fauxqs fixes it, its `updateMessageReady` clears only the in-flight columns.
 * - Commits are made durable against a crash of any process, not of the machine: SQLite's WAL
 *   with `synchronous = NORMAL` instead of the default `FULL`, which waits for the disk on every
 *   send, receive and delete (measured here: 450 µs against 160 µs per message sent, received and
 *   deleted). A killed stack loses nothing, since every commit is in the operating system's hands
 *   when the request is answered; a power cut or an operating system crash can lose the last
 *   commits (never corrupt the database). The table (dynalite's LevelDB, which writes without
 *   waiting for the disk) has always had the same guarantee.
 */
async function adjustFauxqsPersistence(): Promise<void> {
  // fauxqs exports only its entry point, so its file is found along the module search path (this
  // repository's node_modules, or wherever the package's installer put fauxqs).
  const persistence = (require.resolve.paths('fauxqs') ?? [])
    .map((dir) => join(dir, 'fauxqs', 'dist', 'persistence.js'))
    .find((file) => existsSync(file));
  if (persistence === undefined) return;
  const { PersistenceManager } = (await import(pathToFileURL(persistence).href)) as {
    PersistenceManager?: FauxqsPersistence;
  };
  const prototype = PersistenceManager?.prototype;
  if (prototype === undefined) return;
  if (typeof prototype.updateMessageReady === 'function') {
    prototype.updateMessageReady = function updateMessageReady(
      this: { db: { prepare(sql: string): { run(...values: unknown[]): void } } },
      messageId: string,
    ) {
      this.db
        .prepare(
          'UPDATE sqs_messages SET receipt_handle = NULL, visibility_deadline = NULL WHERE message_id = ?',
        )
        .run(messageId);
    };
  }
  const prepareStatements = prototype.prepareStatements;
  if (typeof prepareStatements === 'function') {
    // Called once, by the constructor, right after it opened the database in WAL mode.
    prototype.prepareStatements = function prepareWithSynchronousNormal(
      this: { db: { exec(sql: string): void } },
      ...args: unknown[]
    ) {
      this.db.exec('PRAGMA synchronous = NORMAL');
      return prepareStatements.apply(this, args);
    };
  }
}

async function main(): Promise<void> {
  // The queues' SQLite files and the table's LevelDB files are for this user only (0600, in
  // 0700 directories), like everything else in the data directory.
  process.umask(0o077);
  const send = (message: HostMessage) => process.send?.(message);
  const options = JSON.parse(process.env[LOCAL_ENV.emulatorOptions] ?? '{}') as EmulatorHostOptions;
  const { startFauxqs } = await import('fauxqs');
  if (options.dataDir !== undefined) await adjustFauxqsPersistence();
  if (options.dataDir !== undefined) await releaseInflight(join(options.dataDir, 'sqs', SQS_DATABASE));
  // A fresh directory (0700, made by mkdtemp) for the sockets: short enough for a socket path
  // wherever the data directory is, and never holding a stale socket of a killed run.
  const sockets = await mkdtemp(join(tmpdir(), 'gridwire-'));
  const gates: EmulatorGate[] = [];
  const dynamo = dynalite({
    ...(options.dataDir === undefined ? {} : { path: join(options.dataDir, 'dynamodb') }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  let fauxqs: Awaited<ReturnType<typeof startFauxqs>> | undefined;
  const closeAll = async () => {
    await Promise.all(gates.map((gate) => gate.close()));
    if (dynamo.listening) {
      dynamo.closeAllConnections();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
    }
    await fauxqs?.stop();
    await rm(sockets, { recursive: true, force: true });
  };
  try {
    const gate = (port: number, socketPath: string, services: string[]) =>
      startEmulatorGate({ host: options.host, port, socketPath, credentials: options.credentials, services });
    const sqsGate = await gate(options.sqsPort, join(sockets, 'sqs.sock'), ['sqs', 's3', 'sns']);
    gates.push(sqsGate);
    const dynamoGate = await gate(options.dynamodbPort, join(sockets, 'dynamodb.sock'), ['dynamodb']);
    gates.push(dynamoGate);
    fauxqs = await listeningAt(
      join(sockets, 'sqs.sock'),
      { address: options.host, family: options.host.includes(':') ? 'IPv6' : 'IPv4', port: sqsGate.port },
      () =>
        startFauxqs({
          port: sqsGate.port,
          host: options.host,
          logger: false,
          ...(options.dataDir === undefined ? {} : { dataDir: join(options.dataDir, 'sqs') }),
        }),
    );
    await new Promise<void>((resolve, reject) => {
      dynamo.once('error', reject);
      dynamo.listen(join(sockets, 'dynamodb.sock'), () => resolve());
    });
  } catch (error) {
    await closeAll();
    throw error;
  }
  const running = fauxqs;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= closeAll();
    return stopping;
  };
  process.on('message', (request: HostRequest) => {
    if (request.type === 'inspect') {
      const state = running.inspectQueue(request.queue);
      const bodies =
        state === undefined
          ? null
          : [
              ...state.messages.ready.map((message) => message.body),
              ...state.messages.delayed.map((message) => message.body),
              ...state.messages.inflight.map((entry) => entry.message.body),
            ];
      send({ type: 'inspect', id: request.id, bodies });
    } else if (request.type === 'stop') {
      void stop().then(() => process.exit(0));
    }
  });
  // Ctrl-C (and a closed terminal's SIGHUP) reaches the whole process group; the parent decides
  // when the emulators stop (after the deliveries in progress).
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
  process.on('SIGHUP', () => {});
  // The parent went away without stopping us: close the database cleanly and leave.
  process.on('disconnect', () => void stop().then(() => process.exit(0)));
  send({ type: 'ready', sqsPort: gates[0]?.port ?? 0, dynamodbPort: gates[1]?.port ?? 0 });
  // What a burst of requests left behind goes back to the system once they stop.
  releaseMemoryWhenQuiet();
}

// dynalite reports some failures (a database it cannot open) from callbacks; report and leave.
process.on('uncaughtException', (error) => {
  process.send?.({ type: 'failed', message: error.message } satisfies HostMessage);
  process.exit(1);
});

main().catch((error: Error) => {
  process.send?.({ type: 'failed', message: error.message } satisfies HostMessage);
  process.exit(1);
});

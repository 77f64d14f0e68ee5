/**
 * One local stack per data directory. The lock is a Unix domain socket the stack listens on
 * (`gridwire.lock` in the data directory): the kernel closes it the moment its process dies, however
 * it dies, so a socket that refuses connections is stale and a restart right after a crash takes
 * it over at once. A process id can't tell that much: a killed process not yet reaped, or a new one
 * given the same id, still answers signal 0.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, rm, rmdir } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'gridwire.lock';
/** The pid file earlier versions locked with; removed when found. */
export const LEGACY_LOCK_FILE = 'gridwire.pid';

/** A socket's path must fit in `sun_path` (108 bytes on Linux, 104 on macOS, with its NUL). */
const MAX_SOCKET_PATH = 100;
/** How long a connection to a live holder may take to say who it is. */
const PROBE_TIMEOUT_MS = 5_000;
/** A takeover marker this old was left by a process that died in the middle of one. */
const TAKEOVER_STALE_MS = 10_000;
const TAKEOVER_WAIT_MS = 20_000;

/** Thrown when a live process holds the data directory. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
  ) {
    super(
      `The data directory ${dataDir} is in use by another Gridwire local stack${pid === undefined ? '' : ` (process ${pid})`}. Stop it, or use another --data-dir.`,
    );
  }
}

/**
 * Where the lock of `dataDir` (an absolute path) listens: in the directory, or, when that path
 * is too long for a socket, in the temporary directory under a name derived from it.
 */
export function lockSocketPath(dataDir: string, temporary: string = tmpdir()): string {
  const inside = join(dataDir, LOCK_FILE);
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 32);
  return join(temporary, `gridwire-${digest}.lock`);
}

/**
 * Whether a live process holds the lock at `path`, and its process id when it says it. A
 * connection that is refused (or no socket at all) means no one does.
 */
export function probeLock(path: string): Promise<{ held: false } | { held: true; pid?: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let connected = false;
    let text = '';
    const done = () => {
      socket.destroy();
      const pid = Number(text.trim());
      resolve(Number.isInteger(pid) && pid > 0 ? { held: true, pid } : { held: true });
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, done);
    socket.on('connect', () => {
      connected = true;
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.on('end', done);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (connected) done();
      else if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') resolve({ held: false });
      else reject(error);
    });
  });
}

/** Whether the local stack that uses `dataDir` is running. */
export async function isDataDirLocked(dataDir: string): Promise<boolean> {
  try {
    return (await probeLock(lockSocketPath(dataDir))).held;
  } catch {
    return false;
  }
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Runs `step` while holding the takeover marker next to the lock (a directory: creating it is
 * atomic), so that of two processes finding the same stale socket only one removes it, and never
 * the socket the other has just bound in its place.
 */
async function withTakeover<T>(path: string, step: () => Promise<T>): Promise<T> {
  const marker = `${path}.takeover`;
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  for (;;) {
    try {
      await mkdir(marker, { mode: 0o700 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = await lstat(marker).then(
        (stats) => Date.now() - stats.mtimeMs,
        () => 0,
      );
      if (since > TAKEOVER_STALE_MS) await rmdir(marker).catch(() => undefined);
      else if (Date.now() > deadline)
        throw new Error(`${marker} stayed in place; remove it if no stack is starting`);
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  try {
    return await step();
  } finally {
    await rmdir(marker).catch(() => undefined);
  }
}

/** Binds the lock, or takes it over from a process that is gone. */
async function takeOrTakeOver(dataDir: string, path: string, take: () => Promise<void>): Promise<void> {
  try {
    await take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const holder = await probeLock(path);
    if (holder.held) throw new DataDirLockedError(dataDir, holder.pid);
    // Stale: its process is gone. Removed and bound again under the takeover marker, after
    // looking once more (another process may have taken it over meanwhile).
    await withTakeover(path, async () => {
      const again = await probeLock(path);
      if (again.held) throw new DataDirLockedError(dataDir, again.pid);
      await rm(path, { force: true });
      try {
        await take();
      } catch (retry) {
        if ((retry as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw retry;
        const winner = await probeLock(path);
        throw new DataDirLockedError(dataDir, winner.held ? winner.pid : undefined);
      }
    });
  }
}

/**
 * Takes the lock of `dataDir` (an absolute path) for this process, or throws
 * `DataDirLockedError` if a live process holds it. Resolves to the function that releases it.
 */
export async function lockDataDir(dataDir: string, temporary?: string): Promise<() => Promise<void>> {
  const path = lockSocketPath(dataDir, temporary);
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.end(`${process.pid}\n`);
  });
  const take = async () => {
    await listen(server, path);
    await chmod(path, 0o600);
  };
  try {
    await takeOrTakeOver(dataDir, path, take);
  } catch (error) {
    if (server.listening) server.close();
    throw error;
  }
  server.unref();
  await rm(join(dataDir, LEGACY_LOCK_FILE), { force: true });
  let released: Promise<void> | undefined;
  return () => {
    // Closing a listening Unix socket removes its file.
    released ??= new Promise<void>((resolve) => server.close(() => resolve()));
    return released;
  };
}

/**
 * What the local stack exposes: its emulators' gates listen on loopback only, and
 * nothing answers on their ports at this machine's other addresses; everything in its data
 * directory is this user's only (files 0600, directories 0700), including what an earlier
 * version left with the default modes.
 */
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answers, nonLoopbackAddresses } from '../../local/loopback';
import {
  ADMIN_TOKEN_FILE,
  ENDPOINTS_FILE,
  LOCK_FILE,
  type LocalStack,
  startLocalStack,
} from '../../local/stack';

let dataDir: string;
let stack: LocalStack;

const portOf = (url: string) => Number(new URL(url).port);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gridwire-exposure-'));
  // A data directory as an earlier version left it: readable by everyone.
  await chmod(dataDir, 0o755);
  await mkdir(join(dataDir, 'sqs'), { mode: 0o755 });
  await chmod(join(dataDir, 'sqs'), 0o755);
  await writeFile(join(dataDir, ADMIN_TOKEN_FILE), 'older-token\n');
  await chmod(join(dataDir, ADMIN_TOKEN_FILE), 0o644);
  stack = await startLocalStack({ dataDir, port: 0, logLevel: 'SILENT' });
}, 30_000);

afterAll(async () => {
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** One listening TCP socket of /proc/net/tcp or tcp6: its local address (as bytes) and port. */
interface Listener {
  address: number[];
  port: number;
}

/** The listening sockets of this machine, from /proc/net/tcp and /proc/net/tcp6. */
async function listeners(): Promise<Listener[]> {
  const found: Listener[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of (await readFile(table, 'utf8')).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st ...; st 0A is LISTEN.
      if (fields[3] !== '0A' || fields[1] === undefined) continue;
      const [hex = '', port = ''] = fields[1].split(':');
      // The address is in 32-bit words, each in the machine's (little-endian) byte order.
      const address = (hex.match(/.{8}/g) ?? []).flatMap((word) =>
        (word.match(/../g) ?? []).reverse().map((byte) => Number.parseInt(byte, 16)),
      );
      found.push({ address, port: Number.parseInt(port, 16) });
    }
  }
  return found;
}

/** 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104. */
function isLoopback(address: number[]): boolean {
  if (address.length === 4) return address[0] === 127;
  const prefix = address.slice(0, 10).every((byte) => byte === 0);
  const mapped = prefix && address[10] === 0xff && address[11] === 0xff && address[12] === 127;
  const one = prefix && address.slice(10, 15).every((byte) => byte === 0) && address[15] === 1;
  return mapped || one;
}

const hasProcNet = existsSync('/proc/net/tcp');
if (!hasProcNet) console.warn('skipped reading the listening sockets: /proc/net/tcp is absent here');

(hasProcNet ? it : it.skip)('binds every emulator port (and the API) to loopback only', async () => {
  const ports = [portOf(stack.endpoints.sqs), portOf(stack.endpoints.dynamodb), portOf(stack.apiUrl)];
  const sockets = await listeners();
  for (const port of ports) {
    const bound = sockets.filter((socket) => socket.port === port);
    expect({ port, bound: bound.length > 0 }).toEqual({ port, bound: true });
    for (const socket of bound) {
      expect({ port, address: socket.address.join('.'), loopback: isLoopback(socket.address) }).toEqual({
        port,
        address: socket.address.join('.'),
        loopback: true,
      });
    }
  }
});

// Connection attempts to this machine's own addresses: they prove nothing listens there.
const addresses = nonLoopbackAddresses();
if (addresses.length === 0) console.warn('skipped the connection attempts: no address outside loopback here');

(addresses.length > 0 ? it : it.skip)(
  "refuses connections to the emulators' ports at this machine's other addresses",
  async () => {
    const ports = [portOf(stack.endpoints.sqs), portOf(stack.endpoints.dynamodb)];
    for (const port of ports) {
      // The ports answer on loopback, so a refusal elsewhere is the binding's doing.
      expect(await answers('127.0.0.1', port)).toBe(true);
      for (const address of addresses) {
        expect({ address, port, answers: await answers(address, port) }).toEqual({
          address,
          port,
          answers: false,
        });
      }
    }
  },
);

it("keeps every file of the data directory this user's only, an earlier version's too", async () => {
  // Written once the stack serves.
  expect(existsSync(join(dataDir, ENDPOINTS_FILE))).toBe(true);
  const modes: Record<string, string> = {};
  const walk = async (dir: string) => {
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const stats = await lstat(path);
      modes[path.slice(dataDir.length + 1)] = (stats.mode & 0o777).toString(8);
      if (stats.isDirectory()) await walk(path);
    }
  };
  modes['.'] = ((await lstat(dataDir)).mode & 0o777).toString(8);
  await walk(dataDir);
  // The files the stack, the queues (SQLite with its WAL) and the table (LevelDB) write.
  for (const name of [
    ENDPOINTS_FILE,
    ADMIN_TOKEN_FILE,
    'header-key',
    'topic-key',
    LOCK_FILE,
    'sqs/fauxqs.db',
    'sqs/fauxqs.db-wal',
    'sqs/fauxqs.db-shm',
    'dynamodb/CURRENT',
  ]) {
    expect({ name, present: name in modes }).toEqual({ name, present: true });
  }
  for (const [name, mode] of Object.entries(modes)) {
    const directory = (await lstat(join(dataDir, name))).isDirectory();
    expect({ name, mode }).toEqual({ name, mode: directory ? '700' : '600' });
  }
  // The earlier token is still the one in use.
  expect(stack.adminToken).toBe('older-token');
});

/**
 * The local stack's data directory: made usable and this user's only, locked to one stack, and
 * the secrets kept in it (the admin token, the sealing keys and the emulators' credentials),
 * created on first start.
 */
import { randomBytes } from 'node:crypto';
import { access, chmod, constants, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalCredentials } from '../shared/platform/aws';
import { DataDirLockedError, lockDataDir } from './data-dir-lock';
import {
  CREDENTIALS_FILE,
  formatCredentialsFile,
  newLocalCredentials,
  parseCredentialsFile,
} from './emulator-access';
import { LocalStackError } from './stack-error';

export const ADMIN_TOKEN_FILE = 'admin-token';
/** The key that seals secret delivery header values (the stack's Secrets Manager secret on AWS). */
export const HEADER_KEY_FILE = 'header-key';
/** The key that seals topic and namespace access keys in the table. */
export const TOPIC_KEY_FILE = 'topic-key';
/**
 * The key that signs console and portal session tokens (the stack's Secrets Manager secret on
 * AWS): created when it is first needed, replaced by `sessions revokeAll`.
 */
export const SESSION_KEY_FILE = 'session-key';

/** The keys the functions seal values with, as read from the data directory. */
export interface SealingKeys {
  headerKey: string;
  topicKey: string;
  /** The file of the session key (read at every use: a replacement is seen at once). */
  sessionKeyFile: string;
}

/** A data directory this stack holds: released by `unlock`. */
export interface OpenDataDir {
  unlock: () => Promise<void>;
  adminToken: string;
  sealingKeys: SealingKeys;
  /** The only credentials the emulators take. */
  credentials: LocalCredentials;
}

/**
 * Creates (or checks) the data directory, locks it, makes it this user's only and reads its
 * secrets. The lock is released again if anything after it fails.
 */
export async function openDataDir(
  dataDir: string,
  fixedAdminToken: string | undefined,
): Promise<OpenDataDir> {
  await prepareDataDir(dataDir);
  const unlock = await lockDataDirOrExplain(dataDir);
  try {
    await restrictDataDir(dataDir);
    const adminToken = await loadAdminToken(dataDir, fixedAdminToken);
    const sealingKeys = {
      headerKey: await loadSealingKey(dataDir, HEADER_KEY_FILE),
      topicKey: await loadSealingKey(dataDir, TOPIC_KEY_FILE),
      sessionKeyFile: join(dataDir, SESSION_KEY_FILE),
    };
    const credentials = await loadCredentials(dataDir);
    return { unlock, adminToken, sealingKeys, credentials };
  } catch (error) {
    await unlock();
    throw error;
  }
}

async function prepareDataDir(dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await access(dataDir, constants.W_OK | constants.R_OK);
  } catch (error) {
    throw new LocalStackError(
      `The data directory ${dataDir} is not usable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose another with --data-dir.`,
    );
  }
}

/** One local stack per data directory (see `data-dir-lock.ts`). */
async function lockDataDirOrExplain(dataDir: string): Promise<() => Promise<void>> {
  try {
    return await lockDataDir(dataDir);
  } catch (error) {
    if (error instanceof DataDirLockedError) throw new LocalStackError(error.message);
    throw new LocalStackError(
      `Could not lock the data directory ${dataDir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose another with --data-dir.`,
    );
  }
}

/**
 * Makes what a data directory of an earlier version holds (written with the default modes) this
 * user's only: directories 0700, files 0600. New files are created so.
 */
async function restrictDataDir(dataDir: string): Promise<void> {
  let path = dataDir;
  try {
    await chmod(path, 0o700);
    for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
      path = join(entry.parentPath, entry.name);
      if (entry.isDirectory()) await chmod(path, 0o700);
      else if (entry.isFile()) await chmod(path, 0o600);
    }
  } catch (error) {
    throw new LocalStackError(
      `Could not make ${path} readable by this user only (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Fix its owner, or choose another --data-dir.`,
    );
  }
}

async function loadAdminToken(dataDir: string, fixed: string | undefined): Promise<string> {
  if (fixed !== undefined && fixed !== '') return fixed;
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (stored !== '') return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(24).toString('base64url');
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * A sealing key of this data directory (`file`), created on first start and kept: values sealed
 * with it (in the table's files) open after a restart. It is never printed.
 */
async function loadSealingKey(dataDir: string, name: string): Promise<string> {
  const file = join(dataDir, name);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (stored !== '') return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('base64url');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * The emulators' credentials (`credentials`, in the AWS CLI's shared-credentials format), random
 * and created on first start, so the AWS CLI and SDKs can use the file as it is.
 */
export async function loadCredentials(dataDir: string): Promise<LocalCredentials> {
  const file = join(dataDir, CREDENTIALS_FILE);
  try {
    const stored = parseCredentialsFile(await readFile(file, 'utf8'));
    if (stored !== undefined) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const credentials = newLocalCredentials();
  await writeFile(file, formatCredentialsFile(credentials), { mode: 0o600 });
  return credentials;
}

import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DataDirLockedError,
  isDataDirLocked,
  LEGACY_LOCK_FILE,
  LOCK_FILE,
  lockDataDir,
  lockSocketPath,
  probeLock,
} from '../../../local/data-dir-lock';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gridwire-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the data directory lock', () => {
  it('is a socket in the data directory, for this user only, that names its process', async () => {
    const release = await lockDataDir(dir);
    try {
      const stats = await stat(join(dir, LOCK_FILE));
      expect(stats.isSocket()).toBe(true);
      expect(stats.mode & 0o777).toBe(0o600);
      expect(await probeLock(join(dir, LOCK_FILE))).toEqual({ held: true, pid: process.pid });
      expect(await isDataDirLocked(dir)).toBe(true);
    } finally {
      await release();
    }
    expect(await readdir(dir)).toEqual([]);
    expect(await isDataDirLocked(dir)).toBe(false);
  });

  it('refuses a second holder while the first lives, and lets it in once released', async () => {
    const release = await lockDataDir(dir);
    const error = await lockDataDir(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as Error).message).toBe(
      `The data directory ${dir} is in use by another Gridwire local stack (process ${process.pid}). Stop it, or use another --data-dir.`,
    );
    await release();
    await (await lockDataDir(dir))();
  });

  it('takes over what a dead holder left (nothing accepts connections there) and an old pid file', async () => {
    await writeFile(join(dir, LOCK_FILE), '');
    await writeFile(join(dir, LEGACY_LOCK_FILE), `${process.pid}\n`);
    expect(await isDataDirLocked(dir)).toBe(false);
    const release = await lockDataDir(dir);
    expect((await stat(join(dir, LOCK_FILE))).isSocket()).toBe(true);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    await release();
  });

  it('goes to exactly one of several processes taking over the same stale lock at once', async () => {
    await writeFile(join(dir, LOCK_FILE), '');
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => lockDataDir(dir)));
    const won = results.filter((result) => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(DataDirLockedError);
    }
    await (won[0] as PromiseFulfilledResult<() => Promise<void>>).value();
  });

  it('takes over a takeover left half-done by a holder that died in it', async () => {
    await writeFile(join(dir, LOCK_FILE), '');
    const marker = `${join(dir, LOCK_FILE)}.takeover`;
    await mkdir(marker);
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(marker, longAgo, longAgo);
    await (await lockDataDir(dir))();
    expect(await readdir(dir)).toEqual([]);
  });

  it('listens in the temporary directory when the data directory path is too long for a socket', async () => {
    const deep = join(dir, 'd'.repeat(60), 'e'.repeat(60));
    const path = lockSocketPath(deep, dir);
    expect(path).toMatch(new RegExp(`^${dir}/gridwire-[0-9a-f]{32}\\.lock$`));
    expect(lockSocketPath(deep, dir)).toBe(path);
    expect(lockSocketPath(join(dir, 'short'), dir)).toBe(join(dir, 'short', LOCK_FILE));
    const release = await lockDataDir(deep, dir);
    try {
      expect((await stat(path)).isSocket()).toBe(true);
      await expect(lockDataDir(deep, dir)).rejects.toBeInstanceOf(DataDirLockedError);
    } finally {
      await release();
    }
  });
});

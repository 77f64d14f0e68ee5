/**
 * The key that signs session tokens, and its replacement (which revokes every session handed
 * out before). On AWS a Secrets Manager secret the stack creates, never in the template
 * (`shared/storage/session-keys.ts`); in the local stack a file in the data directory.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';

export interface SessionKeys {
  /** The current key's text. */
  current(): Promise<string>;
  /** Puts a new random key in place of the current one: every token signed before fails. */
  replace(): Promise<void>;
  /** Seconds until every instance has seen a replacement (how long it trusts a cached key). */
  readonly revocationDelaySeconds: number;
}

/** A new key's text: 32 random bytes. */
export const newSessionKey = (random: (bytes: number) => Buffer = randomBytes): string =>
  random(32).toString('base64url');

/** The key kept in `file` (the local stack's data directory), read at every use. */
export class FileSessionKeys implements SessionKeys {
  readonly revocationDelaySeconds = 0;

  constructor(
    private readonly file: string,
    private readonly random: (bytes: number) => Buffer = randomBytes,
  ) {}

  async current(): Promise<string> {
    let text = '';
    try {
      text = (await readFile(this.file, 'utf8')).trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== '') return text;
    await this.replace();
    return (await readFile(this.file, 'utf8')).trim();
  }

  async replace(): Promise<void> {
    // Written beside it and renamed over it: a reader sees the old key or the new, never half.
    const next = `${this.file}.next`;
    await writeFile(next, `${newSessionKey(this.random)}\n`, { mode: 0o600 });
    await rename(next, this.file);
  }
}

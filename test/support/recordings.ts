/**
 * What test stacks record for the checks that run after the integration tests (the AWS calls for
 * the IAM check, the API exchanges for the contract check): JSON lines in a directory, a file per
 * worker process, each distinct record written once by that process, read back distinct across
 * every file, and emptied before a run.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export class Recordings<T> {
  /** Records this process has written. */
  private readonly written = new Set<string>();

  constructor(readonly dir: string) {}

  /** Appends `record` to this process's file, unless this process wrote it already. */
  add(record: T): void {
    const line = JSON.stringify(record);
    if (this.written.has(line)) return;
    this.written.add(line);
    mkdirSync(this.dir, { recursive: true });
    appendFileSync(join(this.dir, `${process.pid}.jsonl`), `${line}\n`);
  }

  /** Every distinct record of every process since the directory was last emptied. */
  read(): T[] {
    let files: string[];
    try {
      files = readdirSync(this.dir).filter((name) => name.endsWith('.jsonl'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const lines = new Set(
      files.flatMap((name) =>
        readFileSync(join(this.dir, name), 'utf8')
          .split('\n')
          .filter((line) => line !== ''),
      ),
    );
    return [...lines].map((line) => JSON.parse(line) as T);
  }

  clear(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The shell snippets of the guides, as a test runs them: every fenced `bash` block of a Markdown
 * file, in order, with where it starts. A block a reader can only run with an AWS account says
 * so on its first line, `# on AWS: <why>`; the test skips it and counts it, so a new block is
 * either run or visibly marked.
 */
import { readFileSync } from 'node:fs';

export interface Snippet {
  /** The Markdown file, as given. */
  readonly file: string;
  /** The line of the opening fence (1-based). */
  readonly line: number;
  /** The block's text, without the fences. */
  readonly code: string;
  /** Why it is not run (`# on AWS: ...`), or undefined for a block the test runs. */
  readonly onAws: string | undefined;
}

/** The first line of a block that needs an AWS account. */
export const ON_AWS = /^# on AWS: (.+)$/;

/** The fenced `bash` blocks of one Markdown file, in order. */
export function shellSnippets(file: string): Snippet[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => {
    const code = match[1] as string;
    return {
      file,
      line: text.slice(0, match.index).split('\n').length,
      code,
      onAws: ON_AWS.exec(code.split('\n')[0] as string)?.[1],
    };
  });
}

/**
 * The HTTP statuses a block printed with curl's `-w '%{http_code}\n'` (lines of three digits
 * alone), and the API errors it printed (the `{"error": {...}}` body every refusal has).
 */
export function refusalsIn(stdout: string): string[] {
  const statuses = stdout.match(/^\d{3}$/gm) ?? [];
  const errors = stdout.match(/\{"error":\s*\{[^\n]*/g) ?? [];
  return [...statuses.filter((status) => !status.startsWith('2')), ...errors];
}

/**
 * Turns a failed zod parse into the words an error message needs: the first issue, where it is
 * (the path to the field) and what is wrong. Every parser that refuses input (request bodies,
 * published events, queued jobs, stored items, the replay request) words its refusal from this,
 * so a message always names the field the same way.
 */
import type { ZodError } from 'zod';

type Issue = ZodError['issues'][number];

export interface FirstIssue {
  /**
   * Where: the path to the field, `a.b.0.c` (or `a.b[0].c` with `indexes: 'bracketed'`); empty
   * when the value itself is wrong.
   */
  readonly path: string;
  readonly message: string;
  /** The issue itself, for callers that word some kinds of issue their own way. */
  readonly issue: Issue;
}

export interface IssuePathOptions {
  /** How array indexes are written: `keys.1` (default) or `keys[1]`. */
  indexes?: 'dotted' | 'bracketed';
}

/** A path as text: `a.b.0.c`, or `a.b[0].c` with bracketed indexes. */
export function issuePath(path: Issue['path'], options: IssuePathOptions = {}): string {
  if (options.indexes !== 'bracketed') return path.map(String).join('.');
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    return text === '' ? String(segment) : `${text}.${String(segment)}`;
  }, '');
}

/** The first issue of a failed parse; `undefined` only for an error without issues. */
export function firstIssue(error: ZodError, options: IssuePathOptions = {}): FirstIssue | undefined {
  const issue = error.issues[0];
  if (issue === undefined) return undefined;
  return { path: issuePath(issue.path, options), message: issue.message, issue };
}

/**
 * `<subject> is malformed at <path>: <message>`: how a queued message or a stored item that fails
 * its schema is reported (it is not the caller's input, so there is no one to answer with a 400).
 */
export function malformedMessage(subject: string, error: ZodError): string {
  const first = firstIssue(error);
  return `${subject} is malformed at ${first?.path ?? '?'}: ${first?.message ?? 'invalid'}`;
}

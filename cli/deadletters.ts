/**
 * `gridwire deadletters list|show|replay`: a client of the management API's dead-letter routes
 * (`/admin/topics/{topic}/eventSubscriptions/{subscription}/deadLetters...`, or with
 * `--namespace` those of a namespace topic's subscription, `/admin/namespaces/{namespace}/topics/...`).
 *
 * Talks to the local stack by default, or to a deployed API with `--api` (see `admin-api.ts`).
 *
 * `replay` first asks for a dry run of the whole selection and shows it, asks before replaying
 * blobs that were replayed before (or needs `--yes`), then replays one blob per call, pacing the
 * events to `--rate` per second.
 */

import { createInterface } from 'node:readline/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEAD_LETTER_REASONS } from '../shared/domain/model';
import { MAX_JSON_DEPTH } from '../shared/http/api-gateway';
import type { BlobReplay, ReplayReport } from '../shared/management/dead-letters';
import { MAX_REPLAY_KEYS } from '../shared/management/dead-letters';
import { arrayElements, jsonDepth, objectMembers } from '../shared/platform/json-text';
import {
  type ApiTarget,
  type ApiTargetOptions,
  callOk,
  namespaceOption,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionAdminPath,
  subscriptionLabel,
  withApiTargetOptions,
} from './admin-api';
import { CliError } from './errors';

/** Events per second `replay` sends by default. */
export const DEFAULT_REPLAY_RATE = 100;

export type { SubscriptionRef } from './admin-api';

const routeOf = (ref: SubscriptionRef) => `${subscriptionAdminPath(ref)}/deadLetters`;

const named = subscriptionLabel;

/** A blob as the API lists it (times in ISO 8601). */
export interface DeadLetterListing {
  key: string;
  writtenAt: string;
  bytes: number;
  replayedAt?: string;
}

/** The subscription's dead-letter blobs written in [since, until), newest first. */
export async function listDeadLetters(
  target: ApiTarget,
  options: SubscriptionRef & { since?: string; until?: string },
): Promise<DeadLetterListing[]> {
  const query = new URLSearchParams();
  if (options.since !== undefined) query.set('since', options.since);
  if (options.until !== undefined) query.set('until', options.until);
  const search = query.size === 0 ? '' : `?${query}`;
  const text = await callOk(
    target,
    'GET',
    `${routeOf(options)}${search}`,
    undefined,
    `listing the dead letters of ${named(options)}`,
  );
  return (JSON.parse(text) as { value: DeadLetterListing[] }).value;
}

/** One blob: its records, each as the JSON text stored. */
export interface DeadLetterBlobText {
  key: string;
  replayedAt?: string;
  records: string[];
}

/** One blob's records; the records stay the exact text the API answered. */
export async function showDeadLetters(
  target: ApiTarget,
  options: SubscriptionRef & { key: string },
): Promise<DeadLetterBlobText> {
  const text = await callOk(
    target,
    'GET',
    `${routeOf(options)}/blob?${new URLSearchParams({ key: options.key })}`,
    undefined,
    `reading the dead-letter blob ${options.key}`,
  );
  const members = new Map(objectMembers(text).map((member) => [member.name, member.value]));
  const replayedAt = members.get('replayedAt');
  return {
    key: JSON.parse(members.get('key') ?? '""') as string,
    ...(replayedAt === undefined ? {} : { replayedAt: JSON.parse(replayedAt) as string }),
    records: arrayElements(members.get('records') ?? '[]'),
  };
}

/** What the replay route says about one blob: the service's per-blob result, times as ISO strings. */
export type BlobReplayAnswer = Omit<BlobReplay, 'replayedAt'> & { replayedAt?: string };

/** The replay route's answer: the service's report, with times as ISO strings. */
export type ReplayAnswer = Omit<ReplayReport, 'blobs'> & { blobs: BlobReplayAnswer[] };

/** One call of the replay route (`POST .../deadLetters/replay`). */
export async function callReplay(
  target: ApiTarget,
  ref: SubscriptionRef,
  body: {
    since?: string;
    until?: string;
    keys?: string[];
    reason?: string[];
    dryRun?: boolean;
    force?: boolean;
  },
): Promise<ReplayAnswer> {
  const text = await callOk(
    target,
    'POST',
    `${routeOf(ref)}/replay`,
    body,
    `replaying dead letters of ${named(ref)}`,
  );
  return JSON.parse(text) as ReplayAnswer;
}

/** How `replay` talks to the operator (a terminal, or a script in tests). */
export interface ReplayIo {
  /** Whether questions can be asked (stdin is a terminal). */
  interactive: boolean;
  /** Asks a yes/no question; true for yes. */
  confirm(question: string): Promise<boolean>;
  /** The progress line, updated in place on a terminal (ignored elsewhere). */
  progress(line: string): void;
  /** Ends the progress line. */
  progressDone(): void;
  log(line: string): void;
  sleep(ms: number): Promise<void>;
  now(): number;
}

export interface ReplayOptions extends SubscriptionRef {
  since?: string;
  until?: string;
  /** Exactly these blobs (instead of since/until). */
  keys?: string[];
  /** Only records dead-lettered for these reasons. */
  reasons?: string[];
  /** Show what would be replayed, replay nothing. */
  dryRun?: boolean;
  /** Replay blobs replayed before without asking. */
  yes?: boolean;
  /** Events per second (default {@link DEFAULT_REPLAY_RATE}). */
  rate?: number;
}

export interface ReplaySummary {
  dryRun: boolean;
  /** Blobs replayed (or, in a dry run, that would be), in the order replayed. */
  blobs: string[];
  /** Events queued (or, in a dry run, that would be). */
  events: number;
  /** Blobs replayed before and left out. */
  skipped: string[];
  /** Blobs named or listed that do not exist (any makes the command fail). */
  missing: string[];
  /** Blobs that failed, and why (any makes the command fail; it stops at the first). */
  failed: Array<{ key: string; reason: string }>;
  /** Blobs whose events were queued but which could not be marked replayed. */
  unmarked: string[];
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, (index + 1) * size),
  );

/** Events a blob's replay sends without `force`: the matched records not replayed before. */
const pending = (blob: BlobReplayAnswer) => (blob.matched ?? 0) - (blob.alreadyReplayed ?? 0);

/**
 * Replays a subscription's dead letters: a dry run of the selection (by keys, or every blob in
 * [since, until) oldest first), confirmation for blobs replayed before, then one API call per
 * blob, paced so events go out at `rate` per second on average (a blob's events go together).
 * A blob that fails (in the dry run or the replay) stops it: the summary lists the failure, and
 * what was replayed before it (marked, so running the same command again continues with the
 * rest). Throws a `CliError` when a call fails, saying how far it got.
 */
export async function replayDeadLetters(
  target: ApiTarget,
  options: ReplayOptions,
  io: ReplayIo,
): Promise<ReplaySummary> {
  const reason =
    options.reasons === undefined || options.reasons.length === 0 ? {} : { reason: options.reasons };
  const keys =
    options.keys !== undefined && options.keys.length > 0
      ? options.keys
      : (await listDeadLetters(target, options)).map((blob) => blob.key).reverse();
  const summary: ReplaySummary = {
    dryRun: options.dryRun === true,
    blobs: [],
    events: 0,
    skipped: [],
    missing: [],
    failed: [],
    unmarked: [],
  };
  if (keys.length === 0) {
    io.log(`No dead letters of ${named(options)} to replay.`);
    return summary;
  }

  // The plan: every selected blob counted, nothing queued.
  const planned: BlobReplayAnswer[] = [];
  let notStarted: string[] = [];
  for (const chunk of chunks(keys, MAX_REPLAY_KEYS)) {
    const answer = await callReplay(target, options, { keys: chunk, ...reason, dryRun: true });
    planned.push(...answer.blobs);
    summary.missing.push(...answer.notFound);
    notStarted = answer.notStarted ?? [];
    if (planned.some((blob) => blob.failed !== undefined)) break;
  }
  const planFailures = planned.filter((blob) => blob.failed !== undefined);
  if (planFailures.length > 0) {
    summary.failed = planFailures.map((blob) => ({ key: blob.key, reason: blob.failed as string }));
    io.log(`The dry run failed for ${plural(planFailures.length, 'blob')}; nothing was replayed:`);
    for (const failure of summary.failed) io.log(`  ${failure.key}: ${failure.reason}`);
    if (notStarted.length > 0) io.log(`  (${plural(notStarted.length, 'more blob')} not looked at)`);
    io.log('Leave the failing blobs out (--key, or --since/--until) to replay the others.');
    return summary;
  }
  const fresh = planned.filter((blob) => !blob.skipped && pending(blob) > 0);
  const before = planned.filter((blob) => blob.skipped && (blob.matched ?? 0) > 0);
  const count = (blobs: readonly BlobReplayAnswer[]) =>
    blobs.reduce((sum, blob) => sum + (blob.skipped ? (blob.matched ?? 0) : pending(blob)), 0);
  const otherTopic = planned.reduce((sum, blob) => sum + (blob.otherTopic ?? 0), 0);
  const filter =
    options.reasons === undefined || options.reasons.length === 0
      ? ''
      : ` (reason ${options.reasons.join(' or ')})`;

  io.log(
    `${plural(count(fresh), 'event')}${filter} in ${plural(fresh.length, 'blob')} to replay to ${named(options)}.`,
  );
  if (before.length > 0) {
    io.log(
      `${plural(before.length, 'blob')} (${plural(count(before), 'event')}) ${before.length === 1 ? 'was' : 'were'} replayed before:`,
    );
    for (const blob of before) io.log(`  ${blob.key}  replayed ${blob.replayedAt ?? '?'}`);
  }
  for (const key of summary.missing) io.log(`  ${key}: no such blob`);
  if (otherTopic > 0) {
    io.log(
      `${plural(otherTopic, 'record')} of another topic's subscription of the same name (same container) left out.`,
    );
  }

  let work = fresh;
  if (before.length > 0) {
    let again = options.yes === true;
    if (!again && options.dryRun !== true) {
      if (!io.interactive) {
        throw new CliError(
          `${plural(before.length, 'blob')} of the selection ${before.length === 1 ? 'was' : 'were'} replayed before; pass --yes to replay them again, or choose blobs with --key`,
        );
      }
      again = await io.confirm(`Replay the ${plural(before.length, 'blob')} replayed before again? [y/N] `);
    }
    if (again) work = planned.filter((blob) => fresh.includes(blob) || before.includes(blob));
    else summary.skipped.push(...before.map((blob) => blob.key));
  }

  const total = count(work);
  if (options.dryRun === true) {
    summary.blobs = work.map((blob) => blob.key);
    summary.events = total;
    io.log('Dry run: nothing was replayed.');
    return summary;
  }
  if (work.length === 0) {
    io.log('Nothing to replay.');
    return summary;
  }

  const rate = options.rate ?? DEFAULT_REPLAY_RATE;
  const started = io.now();
  for (const [index, blob] of work.entries()) {
    let answer: ReplayAnswer;
    try {
      answer = await callReplay(target, options, { keys: [blob.key], ...reason, force: blob.skipped });
    } catch (error) {
      io.progressDone();
      throw new CliError(
        `${(error as Error).message}\n${plural(summary.blobs.length, 'blob')} (${plural(summary.events, 'event')}) replayed before this failure are marked; running the same command again continues with the rest`,
      );
    }
    summary.events += answer.eventsQueued;
    if (answer.eventsQueued > 0) summary.blobs.push(blob.key);
    summary.skipped.push(...answer.skippedKeys);
    summary.missing.push(...answer.notFound);
    summary.unmarked.push(...(answer.unmarkedKeys ?? []));
    for (const failed of answer.blobs) {
      if (failed.failed !== undefined) summary.failed.push({ key: failed.key, reason: failed.failed });
    }
    if (summary.failed.length > 0) {
      io.progressDone();
      logFailure(io, summary, work.length - index - 1);
      return summary;
    }
    io.progress(`replaying: ${index + 1}/${work.length} blobs, ${summary.events}/${total} events`);
    // Pace: the events sent so far may not go faster than `rate` per second on average.
    const due = started + (summary.events / rate) * 1000;
    const wait = due - io.now();
    if (wait > 0 && index < work.length - 1) await io.sleep(wait);
  }
  io.progressDone();
  io.log(
    `Replayed ${plural(summary.events, 'event')} from ${plural(summary.blobs.length, 'blob')} to ${named(options)}.`,
  );
  if (summary.skipped.length > 0) {
    io.log(`Left out ${plural(summary.skipped.length, 'blob')} replayed before (--yes replays them again).`);
  }
  if (summary.missing.length > 0) {
    io.log(`${plural(summary.missing.length, 'blob')} no longer exist: ${summary.missing.join(', ')}`);
  }
  return summary;
}

/** What a replay stopped by a failing blob did, and what the operator can do. */
function logFailure(io: ReplayIo, summary: ReplaySummary, left: number): void {
  io.log('Replay stopped by a failure:');
  for (const failure of summary.failed) io.log(`  FAILED ${failure.key}: ${failure.reason}`);
  io.log(
    `Replayed ${plural(summary.events, 'event')} from ${plural(summary.blobs.length, 'blob')} before it; ${plural(left, 'blob')} not started.`,
  );
  if (summary.unmarked.length > 0) {
    io.log(
      `Queued but NOT marked replayed (running the command again sends their events again; leave them out with --key or --since/--until): ${summary.unmarked.join(', ')}`,
    );
  }
  io.log('Blobs replayed are marked: running the same command again continues with the rest.');
}

/**
 * How much indented text one record may take (characters); a record that would take more is
 * printed as stored. Indentation grows with depth, so a deeply nested record would otherwise
 * exceed what a string can hold.
 */
export const MAX_INDENTED_CHARS = 32 * 1024 * 1024;

/**
 * JSON text indented for reading, token by token: numbers and strings stay exactly as written.
 * `undefined` when the result would be longer than `maxChars`.
 */
export function indentJson(text: string, indent = '  ', maxChars = MAX_INDENTED_CHARS): string | undefined {
  let out = '';
  let depth = 0;
  let inString = false;
  const newline = () => `\n${indent.repeat(depth)}`;
  for (let i = 0; i < text.length; i += 1) {
    if (out.length > maxChars) return undefined;
    const char = text[i] as string;
    if (inString) {
      out += char;
      if (char === '\\') {
        out += text[i + 1] ?? '';
        i += 1;
      } else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '{' || char === '[') {
      let next = i + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next += 1;
      if (text[next] === (char === '{' ? '}' : ']')) {
        out += `${char}${text[next]}`;
        i = next;
      } else {
        depth += 1;
        out += `${char}${newline()}`;
      }
    } else if (char === '}' || char === ']') {
      depth -= 1;
      out += `${newline()}${char}`;
    } else if (char === ',') {
      out += `,${newline()}`;
    } else if (char === ':') {
      out += ': ';
    } else if (!/\s/.test(char)) {
      out += char;
    }
  }
  return out;
}

/** The human-readable `deadletters list` output. */
export function formatListing(ref: SubscriptionRef, blobs: readonly DeadLetterListing[]): string {
  if (blobs.length === 0) return `No dead letters of ${named(ref)}.`;
  const lines = [`${plural(blobs.length, 'dead-letter blob')} of ${named(ref)}, newest first:`];
  for (const blob of blobs) {
    const replayed = blob.replayedAt === undefined ? 'not replayed' : `replayed ${blob.replayedAt}`;
    lines.push(`  ${blob.key}`);
    lines.push(`    written ${blob.writtenAt}, ${plural(blob.bytes, 'byte')}, ${replayed}`);
  }
  return lines.join('\n');
}

/**
 * One record for reading: indented, or as stored (one line) when it nests deeper than publishing
 * allows now (a record stored before the limit held in every content mode) or would not fit
 * indented, saying why.
 */
function formatRecord(record: string, heading: string): string[] {
  const depth = jsonDepth(record);
  if (depth > MAX_JSON_DEPTH) {
    return [
      `${heading} nested ${depth} levels deep (publishing allows ${MAX_JSON_DEPTH}), so printed as stored, not indented:`,
      record,
    ];
  }
  const indented = indentJson(record);
  if (indented === undefined) {
    return [
      `${heading} ${plural(record.length, 'character')}, too large to indent, so printed as stored:`,
      record,
    ];
  }
  return [`${heading}:`, indented];
}

/** The human-readable `deadletters show` output: each record indented (or as stored, saying why). */
export function formatBlob(blob: DeadLetterBlobText): string {
  const replayed = blob.replayedAt === undefined ? 'not replayed' : `replayed ${blob.replayedAt}`;
  const lines = [`${blob.key}: ${plural(blob.records.length, 'record')}, ${replayed}`];
  blob.records.forEach((record, index) => {
    lines.push('', ...formatRecord(record, `Record ${index + 1} of ${blob.records.length}`));
  });
  return lines.join('\n');
}

/** The terminal: questions on stdin, a `\r` progress line when stdout is a terminal. */
export function terminalIo(): ReplayIo {
  let progressShown = false;
  return {
    interactive: process.stdin.isTTY === true,
    confirm: async (question) => {
      const readline = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return /^y(es)?$/i.test((await readline.question(question)).trim());
      } finally {
        readline.close();
      }
    },
    progress: (line) => {
      if (process.stdout.isTTY !== true) return;
      process.stdout.write(`\r${line}\x1b[K`);
      progressShown = true;
    },
    progressDone: () => {
      if (progressShown) process.stdout.write('\n');
      progressShown = false;
    },
    log: (line) => console.log(line),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  };
}

interface TargetOptions extends ApiTargetOptions, SubscriptionRef {}

function withTargetOptions(command: Command): Command {
  return withApiTargetOptions(
    command
      .requiredOption('--topic <name>', 'the topic (with --namespace, a topic of that namespace)')
      .addOption(namespaceOption())
      .requiredOption('--subscription <name>', 'the event subscription'),
  );
}

const windowOptions = (command: Command): Command =>
  command
    .option('--since <time>', 'only blobs written at or after this ISO 8601 time (e.g. 2026-11-22T10:00:00Z)')
    .option('--until <time>', 'only blobs written before this ISO 8601 time');

const collect = (value: string, previous: string[] = []) => [...previous, value];

const reasonArgument = (value: string, previous: string[] = []) => {
  if (!(DEAD_LETTER_REASONS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${DEAD_LETTER_REASONS.join(', ')}.`);
  }
  return [...previous, value];
};

const positive = (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a number > 0.');
  return parsed;
};

export function deadLettersCommand(): Command {
  const deadletters = new Command('deadletters')
    .description(
      "A subscription's dead letters (events that could not be delivered): list them, read them, replay them.",
    )
    .addHelpText(
      'after',
      '\nEach command takes --topic and --subscription; with --namespace <name>, --topic names a topic\n' +
        'of that namespace (e.g. gridwire deadletters list --namespace shop --topic orders --subscription audit).',
    );

  deadletters.addCommand(
    windowOptions(
      withTargetOptions(new Command('list').description('List the dead-letter blobs, newest first.')),
    )
      .option('--json', 'print a JSON array instead of text')
      .action(async (options: TargetOptions & { since?: string; until?: string; json?: boolean }) => {
        const target = await resolveApiTarget(options);
        const blobs = await listDeadLetters(target, options);
        console.log(options.json === true ? JSON.stringify(blobs, null, 2) : formatListing(options, blobs));
      }),
  );

  deadletters.addCommand(
    withTargetOptions(new Command('show').description("Print a dead-letter blob's records."))
      .argument('<key>', 'the blob key (from deadletters list)')
      .option('--json', 'print the records as a JSON array, exactly as stored')
      .action(async (key: string, options: TargetOptions & { json?: boolean }) => {
        const target = await resolveApiTarget(options);
        const blob = await showDeadLetters(target, { ...options, key });
        console.log(options.json === true ? `[${blob.records.join(',')}]` : formatBlob(blob));
      }),
  );

  deadletters.addCommand(
    windowOptions(
      withTargetOptions(
        new Command('replay').description(
          'Deliver dead-lettered events again, as new deliveries to the subscription (a dry run is shown first).',
        ),
      ),
    )
      .option('--key <key>', 'replay this blob (repeatable); instead of --since/--until', collect)
      .option(
        '--reason <reason>',
        `only records dead-lettered for this reason (repeatable): ${DEAD_LETTER_REASONS.join(', ')}`,
        reasonArgument,
      )
      .option('--dry-run', 'show what would be replayed, and stop')
      .option('--yes', 'replay blobs that were replayed before without asking')
      .addOption(
        new Option('--rate <n>', 'events per second at most, on average')
          .default(DEFAULT_REPLAY_RATE)
          .argParser(positive),
      )
      .addHelpText(
        'after',
        '\nEach replayed event is a new delivery: the original event id, attempt count 0, its time to\n' +
          'live counted from the replay. A blob is marked replayed, with the reasons replayed, once\n' +
          'its events are queued; replaying those reasons again needs --yes (or a yes on the\n' +
          'terminal). A failing blob stops the replay, which lists it and exits with code 1.',
      )
      .action(
        async (
          options: TargetOptions & {
            since?: string;
            until?: string;
            key?: string[];
            reason?: string[];
            dryRun?: boolean;
            yes?: boolean;
            rate: number;
          },
        ) => {
          if (options.key !== undefined && (options.since !== undefined || options.until !== undefined)) {
            throw new CliError('--key and --since/--until exclude each other');
          }
          const target = await resolveApiTarget(options);
          const summary = await replayDeadLetters(
            target,
            {
              ...options,
              ...(options.key === undefined ? {} : { keys: options.key }),
              ...(options.reason === undefined ? {} : { reasons: options.reason }),
            },
            terminalIo(),
          );
          if (summary.missing.length > 0 || summary.failed.length > 0) process.exitCode = 1;
        },
      ),
  );
  return deadletters;
}

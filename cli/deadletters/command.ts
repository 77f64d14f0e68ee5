/**
 * `gridwire deadletters list|show|replay`: a client of the management API's dead-letter routes
 * (`/admin/topics/{topic}/eventSubscriptions/{subscription}/deadLetters...`, or with
 * `--namespace` those of a namespace topic's subscription, `/admin/namespaces/{namespace}/topics/...`).
 *
 * Talks to the local stack by default, or to a deployed API with `--api` (see `admin-api.ts`).
 * The calls are in `api.ts`, the replay's steps in `replay.ts`, what is printed in `format.ts`.
 */
import { createInterface } from 'node:readline/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEAD_LETTER_REASONS } from '../../shared/domain/model';
import {
  type ApiTargetOptions,
  namespaceOption,
  resolveApiTarget,
  type SubscriptionRef,
  withApiTargetOptions,
} from '../admin-api';
import { CliError } from '../errors';
import { listDeadLetterPage, listDeadLetters, showDeadLetters } from './api';
import { formatBlob, formatListing } from './format';
import { DEFAULT_REPLAY_RATE, type ReplayIo, replayDeadLetters } from './replay';

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

/** `deadletters list`: the dead-letter blobs, newest first, a page (or `--all`) at a time. */
function listCommand(): Command {
  return windowOptions(
    withTargetOptions(new Command('list').description('List the dead-letter blobs, newest first.')),
  )
    .option('--json', 'print a JSON array instead of text')
    .option('--page <token>', 'the page after the one that printed this token')
    .option('--all', 'every page, not only the newest')
    .action(
      async (
        options: TargetOptions & {
          since?: string;
          until?: string;
          json?: boolean;
          page?: string;
          all?: boolean;
        },
      ) => {
        const target = await resolveApiTarget(options);
        if (options.all === true) {
          const blobs = await listDeadLetters(target, options);
          console.log(options.json === true ? JSON.stringify(blobs, null, 2) : formatListing(options, blobs));
          return;
        }
        const { blobs, nextPage } = await listDeadLetterPage(target, options);
        console.log(options.json === true ? JSON.stringify(blobs, null, 2) : formatListing(options, blobs));
        // The hint goes to stderr, so --json output stays one JSON document.
        if (nextPage !== undefined)
          console.error(`Older blobs may follow: add --page ${nextPage} (or --all).`);
      },
    );
}

/** `deadletters show`: a blob's records. */
function showCommand(): Command {
  return withTargetOptions(new Command('show').description("Print a dead-letter blob's records."))
    .argument('<key>', 'the blob key (from deadletters list)')
    .option('--json', 'print the records as a JSON array, exactly as stored')
    .action(async (key: string, options: TargetOptions & { json?: boolean }) => {
      const target = await resolveApiTarget(options);
      const blob = await showDeadLetters(target, { ...options, key });
      console.log(options.json === true ? `[${blob.records.join(',')}]` : formatBlob(blob));
    });
}

/** `deadletters replay`: dead-lettered events delivered again, after a dry run (`replay.ts`). */
function replayCommand(): Command {
  return windowOptions(
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
    );
}

export function deadLettersCommand(): Command {
  return new Command('deadletters')
    .description(
      "A subscription's dead letters (events that could not be delivered): list them, read them, replay them.",
    )
    .addHelpText(
      'after',
      '\nEach command takes --topic and --subscription; with --namespace <name>, --topic names a topic\n' +
        'of that namespace (e.g. gridwire deadletters list --namespace shop --topic orders --subscription audit).',
    )
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(replayCommand());
}

/**
 * `gridwire events replay|replays`: a subscription's replays from its topic's archive
 * (`POST|GET .../eventSubscriptions/{subscription}/replays`, `GET|DELETE .../replays/{id}`).
 * `replay` starts one (and with `--wait` follows it until it is over), `replays` (or
 * `replays list`) lists them, `replays show|cancel <id>` shows or cancels one. The options every
 * command here and `events recover` (`recover.ts`) take are made here too.
 */
import { Command } from 'commander';
import type { ReplayState } from '../shared/domain/replays';
import {
  type ApiTarget,
  type ApiTargetOptions,
  namespaceOption,
  okData,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionLabel,
  subscriptionRoute,
  withApiTargetOptions,
} from './admin-api';
import { type ReplayIo, terminalIo } from './deadletters';
import { timeArgument } from './options';
import { type JsonOption, printAnswer, table } from './output';

/** What waiting (here) and recovering (`recover.ts`) need of the terminal: the dead-letter replay's. */
export type ProgressIo = Pick<ReplayIo, 'progress' | 'progressDone' | 'sleep'>;

/** A replay, as the API shows it. */
export interface ReplayDocument {
  id: string;
  state: ReplayState;
  since: string;
  until: string;
  eventTypes?: string[];
  /** Events of the range the archive held (before filters), queued (after them), delivered. */
  eventsFound: number;
  eventsQueued: number;
  eventsDelivered?: number;
  /** Why it failed, or who cancelled it. */
  reason?: string;
  createdAt: string;
  lastModifiedAt: string;
}

/** Starts a replay of the events the archive holds from [since, until) (default until: now). */
export async function startReplay(
  target: ApiTarget,
  options: SubscriptionRef & { since: string; until?: string; eventTypes?: string[] },
): Promise<ReplayDocument> {
  const body = {
    since: options.since,
    ...(options.until === undefined ? {} : { until: options.until }),
    ...(options.eventTypes === undefined ? {} : { eventTypes: options.eventTypes }),
  };
  return okData(
    await target.client.POST(subscriptionRoute(options, '/replays'), { params: { path: options }, body }),
    `starting a replay for ${subscriptionLabel(options)}`,
  );
}

/** The subscription's replays. */
export async function listReplays(target: ApiTarget, ref: SubscriptionRef): Promise<ReplayDocument[]> {
  return okData(
    await target.client.GET(subscriptionRoute(ref, '/replays'), { params: { path: ref } }),
    `listing the replays of ${subscriptionLabel(ref)}`,
  ).value;
}

/** One replay. */
export async function showReplay(
  target: ApiTarget,
  ref: SubscriptionRef,
  id: string,
): Promise<ReplayDocument> {
  return okData(
    await target.client.GET(subscriptionRoute(ref, '/replays/{replayId}'), {
      params: { path: { ...ref, replayId: id } },
    }),
    `reading replay '${id}' of ${subscriptionLabel(ref)}`,
  );
}

/** Cancels a replay; whether it was running (200), or had already ended (204). Then shows it. */
export async function cancelReplay(
  target: ApiTarget,
  ref: SubscriptionRef,
  id: string,
): Promise<{ cancelled: boolean; replay: ReplayDocument }> {
  const result = await target.client.DELETE(subscriptionRoute(ref, '/replays/{replayId}'), {
    params: { path: { ...ref, replayId: id } },
  });
  okData(result, `cancelling replay '${id}' of ${subscriptionLabel(ref)}`);
  return { cancelled: result.response.status !== 204, replay: await showReplay(target, ref, id) };
}

/** The first wait between two looks at a replay; each is twice the last, up to the longest. */
export const WAIT_FIRST_MS = 500;
export const WAIT_LONGEST_MS = 5_000;

/** Looks at the replay until it is over (its state no longer `Running`); its last document. */
export async function waitForReplay(
  target: ApiTarget,
  ref: SubscriptionRef,
  id: string,
  io: ProgressIo,
): Promise<ReplayDocument> {
  let wait = WAIT_FIRST_MS;
  for (;;) {
    await io.sleep(wait);
    wait = Math.min(wait * 2, WAIT_LONGEST_MS);
    const replay = await showReplay(target, ref, id);
    if (replay.state !== 'Running') {
      io.progressDone();
      return replay;
    }
    io.progress(`replay ${id}: ${counts(replay)}`);
  }
}

/** `12 found, 10 queued, 8 delivered` (delivered when the API says). */
const counts = (replay: ReplayDocument): string =>
  [
    `${replay.eventsFound} found`,
    `${replay.eventsQueued} queued`,
    ...(replay.eventsDelivered === undefined ? [] : [`${replay.eventsDelivered} delivered`]),
  ].join(', ');

/** How to address the replay's subscription again, for the hints printed. */
export const refFlags = (ref: SubscriptionRef): string =>
  `${ref.namespace === undefined ? '' : `--namespace ${ref.namespace} `}--topic ${ref.topic} --subscription ${ref.subscription}`;

/** A replay just started: its id, state and range, and how to follow it. */
export function formatStarted(ref: SubscriptionRef, replay: ReplayDocument): string {
  const types = replay.eventTypes === undefined ? '' : `, event types ${replay.eventTypes.join(', ')}`;
  return [
    `Replay ${replay.id} of ${subscriptionLabel(ref)}: ${replay.state}, events published from ${replay.since} to ${replay.until}${types}.`,
    `Follow it: gridwire events replays show ${replay.id} ${refFlags(ref)}`,
  ].join('\n');
}

/** A replay for a person: its state (and why), range, event types and counts. */
export function formatReplay(replay: ReplayDocument): string {
  const delivering =
    replay.state === 'Completed' &&
    replay.eventsDelivered !== undefined &&
    replay.eventsDelivered < replay.eventsQueued
      ? ['Its deliveries go on after it ends: the delivered count may still grow.']
      : [];
  return [
    `Replay ${replay.id}: ${replay.state}${replay.reason === undefined ? '' : ` (${replay.reason})`}.`,
    `events published from ${replay.since} to ${replay.until}${replay.eventTypes === undefined ? '' : `, event types ${replay.eventTypes.join(', ')}`}`,
    `events: ${counts(replay)}`,
    `started ${replay.createdAt}, last changed ${replay.lastModifiedAt}`,
    ...delivering,
  ].join('\n');
}

/** The subscription's replays, a line each. */
export function formatReplays(ref: SubscriptionRef, replays: readonly ReplayDocument[]): string {
  if (replays.length === 0) return `No replays of ${subscriptionLabel(ref)}.`;
  return table(
    ['ID', 'STATE', 'SINCE', 'UNTIL', 'EVENT TYPES', 'FOUND', 'QUEUED', 'DELIVERED', 'STARTED'],
    replays.map((replay) => [
      replay.id,
      replay.state,
      replay.since,
      replay.until,
      replay.eventTypes?.join(',') ?? '(all)',
      String(replay.eventsFound),
      String(replay.eventsQueued),
      replay.eventsDelivered === undefined ? '-' : String(replay.eventsDelivered),
      replay.createdAt,
    ]),
    { numbersRight: true },
  );
}

/** `--event-types`: names separated by commas or spaces, accumulated over repeats. */
const eventTypesArgument = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value.split(/[\s,]+/).filter((type) => type !== ''),
];

export type TargetOptions = ApiTargetOptions & SubscriptionRef & JsonOption;

/**
 * `--topic`, `--namespace` and `--subscription`, the options `own` adds, then the API's options
 * and `--json` (described by `json`).
 */
export const withTargetOptions = (
  command: Command,
  own: (command: Command) => Command = (same) => same,
  json = 'print the API’s JSON answer instead of text',
): Command =>
  withApiTargetOptions(
    own(
      command
        .requiredOption('--topic <name>', 'the topic (with --namespace, a topic of that namespace)')
        .addOption(namespaceOption())
        .requiredOption('--subscription <name>', 'the event subscription'),
    ),
  ).option('--json', json);

/** `--since`: an ISO 8601 time, or how long ago (`timeArgument`). */
export const sinceOption = (what: string) =>
  [
    '--since <time>',
    `${what} from this ISO 8601 time, or this long ago (30m, 2h, 7d)`,
    timeArgument('--since'),
  ] as const;

/** `--until`: the same, the range's end (default: now). */
export const untilOption = (what: string) =>
  [
    '--until <time>',
    `${what} before this time, or this long ago (default: now)`,
    timeArgument('--until'),
  ] as const;

/** A replay that ended other than `Completed` ends the command with exit code 1. */
const exitCodeOf = (replay: ReplayDocument) => {
  if (replay.state !== 'Completed') process.exitCode = 1;
};

function replayCommand(io: ProgressIo): Command {
  return withTargetOptions(
    new Command('replay').description(
      "Replay the events the topic's archive holds from a time range to the subscription, as new deliveries.",
    ),
    (command) =>
      command
        .requiredOption(...sinceOption('events published'))
        .option(...untilOption('events published'))
        .option(
          '--event-types <types...>',
          "only these event types (comma- or space-separated; default: all the subscription's filter lets through)",
          eventTypesArgument,
        )
        .option(
          '--wait',
          'follow the replay until it is over, and print what it found, queued and delivered',
        ),
  )
    .addHelpText(
      'after',
      '\nThe replay runs in the stack; leaving --wait (Ctrl-C) does not stop it (events replays cancel does).\n' +
        'With --wait, a replay that ends Failed or Cancelled exits with code 1.',
    )
    .action(
      async (
        options: TargetOptions & { since: string; until?: string; eventTypes?: string[]; wait?: boolean },
      ) => {
        const target = await resolveApiTarget(options);
        const started = await startReplay(target, options);
        if (options.wait !== true || started.state !== 'Running') {
          printAnswer(options, started, (replay) => formatStarted(options, replay));
          if (options.wait === true) exitCodeOf(started);
          return;
        }
        if (options.json !== true) console.log(formatStarted(options, started).split('\n')[0]);
        const over = await waitForReplay(target, options, started.id, io);
        printAnswer(options, over, formatReplay);
        exitCodeOf(over);
      },
    );
}

function replaysCommand(): Command {
  const list = withTargetOptions(
    new Command('list').description("The subscription's replays (the default of events replays)."),
  ).action(async (options: TargetOptions) => {
    const replays = await listReplays(await resolveApiTarget(options), options);
    printAnswer(options, { value: replays }, ({ value }) => formatReplays(options, value));
  });
  const show = withTargetOptions(new Command('show').description('One replay: its state and counts.'))
    .argument('<id>', 'the replay (its id, from events replay or events replays)')
    .action(async (id: string, options: TargetOptions) => {
      const replay = await showReplay(await resolveApiTarget(options), options, id);
      printAnswer(options, replay, formatReplay);
    });
  const cancel = withTargetOptions(
    new Command('cancel').description('Cancel a running replay: it queues nothing more.'),
  )
    .argument('<id>', 'the replay')
    .action(async (id: string, options: TargetOptions) => {
      const { cancelled, replay } = await cancelReplay(await resolveApiTarget(options), options, id);
      printAnswer(options, replay, (shown) =>
        [
          cancelled
            ? `Replay ${id} cancelled; the events it queued already are still delivered.`
            : `Replay ${id} had already ended: nothing to cancel.`,
          formatReplay(shown),
        ].join('\n'),
      );
    });
  return new Command('replays')
    .description("A subscription's replays: list them (the default), show or cancel one.")
    .addCommand(list, { isDefault: true })
    .addCommand(show)
    .addCommand(cancel);
}

/** `events replay` and `events replays`, for the `events` command. */
export function replayCommands(io: ProgressIo = terminalIo()): Command[] {
  return [replayCommand(io), replaysCommand()];
}

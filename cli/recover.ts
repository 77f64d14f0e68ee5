/**
 * `gridwire events recover`: a time range's failures of a subscription queued again at once, by
 * the recover route (`POST .../eventSubscriptions/{subscription}/recover`): its dead-lettered
 * events (as the dead-letter replay sends them) and the dropped deliveries its message log holds.
 * One call reads a bounded part of the log; while an answer has a `nextUntil`, the command calls
 * again with the same `since` and `until` at it (what was queued before is never queued again),
 * waiting out the route's per-subscription limit, and prints the totals.
 */
import { Command } from 'commander';
import {
  type ApiTarget,
  okData,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionLabel,
  subscriptionRoute,
} from './admin-api';
import { terminalIo } from './deadletters';
import { CliError } from './errors';
import { printAnswer } from './output';
import {
  type ProgressIo,
  refFlags,
  sinceOption,
  type TargetOptions,
  untilOption,
  withTargetOptions,
} from './replays';
import { plural } from './text';

/** What one recover call did to the subscription's dead letters (as the dead-letter replay does). */
export interface RecoveredDeadLetters {
  blobsSelected: number;
  /** Records of the blobs not skipped: what a dry run would queue. */
  recordsMatched?: number;
  eventsQueued: number;
  /** Blobs replayed before, left alone. */
  blobsSkipped: number;
  failedKeys: string[];
}

/** What one recover call did to the dropped deliveries of the message log. */
export interface RecoveredDropped {
  deliveries: number;
  /** Those with their text and through the filter: what a dry run would queue. */
  matched?: number;
  eventsQueued: number;
  alreadyRecovered: number;
  withoutText: number;
  filteredOut: number;
}

/** One answer of the recover route. */
export interface RecoverAnswer {
  since: string;
  until: string;
  dryRun: boolean;
  eventsQueued: number;
  /** `null` for a subscription without a dead-letter destination (what fails is dropped). */
  deadLetters: RecoveredDeadLetters | null;
  dropped: RecoveredDropped;
  /** Present when the call stopped before `since`: the `until` of the next call. */
  nextUntil?: string;
}

/** The recover route's answers over a whole range, added up. */
export type RecoverTotals = Omit<RecoverAnswer, 'nextUntil'> & { calls: number };

/** 429s of the recover route's per-subscription limit waited out in a row before giving up. */
export const MAX_RECOVER_LIMIT_WAITS = 5;

/** One recover call; a 429 of the route's limit is waited out (its `Retry-After`) and the call made again. */
async function recoverCall(
  target: ApiTarget,
  ref: SubscriptionRef,
  body: { since: string; until?: string; dryRun?: boolean },
  io: ProgressIo,
  doing: string,
): Promise<RecoverAnswer> {
  for (let waits = 0; ; waits++) {
    const result = await target.client.POST(subscriptionRoute(ref, '/recover'), {
      params: { path: ref },
      body,
    });
    if (result.response.status !== 429 || waits === MAX_RECOVER_LIMIT_WAITS) {
      return okData(result, doing);
    }
    const seconds = Number(result.response.headers.get('retry-after'));
    const wait = Number.isFinite(seconds) && seconds > 0 ? seconds : 1;
    io.progress(`the API's recover limit for this subscription: waiting ${wait} s`);
    await io.sleep(wait * 1000);
  }
}

/**
 * Recovers [since, until): calls the recover route, and again with `until` at each answer's
 * `nextUntil` until an answer has none; the answers added up ({@link addAnswer}). A `nextUntil`
 * that does not move the range's end back is a `CliError` (it would call for ever).
 */
export async function recoverRange(
  target: ApiTarget,
  options: SubscriptionRef & { since: string; until?: string; dryRun?: boolean },
  io: ProgressIo,
): Promise<RecoverTotals> {
  let until = options.until;
  let totals: RecoverTotals | undefined;
  for (;;) {
    const body = {
      since: options.since,
      ...(until === undefined ? {} : { until }),
      ...(options.dryRun === true ? { dryRun: true } : {}),
    };
    const doing = `recovering the events of ${subscriptionLabel(options)}${totals === undefined ? '' : ` (call ${totals.calls + 1}, until ${until})`}`;
    let answer: RecoverAnswer;
    try {
      answer = await recoverCall(target, options, body, io, doing);
    } catch (error) {
      io.progressDone();
      if (totals === undefined || totals.dryRun || !(error instanceof CliError)) throw error;
      throw new CliError(
        `${error.message}\n${plural(totals.eventsQueued, 'event')} queued by the calls before it stay queued; the same command again queues the rest (nothing is queued twice)`,
      );
    }
    totals = totals === undefined ? firstTotals(answer) : addAnswer(totals, answer);
    if (answer.nextUntil === undefined) break;
    if (!(Date.parse(answer.nextUntil) < Date.parse(until ?? answer.until))) {
      io.progressDone();
      throw new CliError(
        `recovering the events of ${subscriptionLabel(options)} stopped: the API answered nextUntil ${answer.nextUntil}, not before the range's end it was given (${until ?? answer.until})`,
      );
    }
    until = answer.nextUntil;
    io.progress(`recovering: back to ${until}, ${plural(totals.eventsQueued, 'event')} queued so far`);
  }
  io.progressDone();
  return totals;
}

const firstTotals = ({ nextUntil: _next, ...answer }: RecoverAnswer): RecoverTotals => ({
  ...answer,
  deadLetters:
    answer.deadLetters === null
      ? null
      : { ...answer.deadLetters, failedKeys: [...answer.deadLetters.failedKeys] },
  dropped: { ...answer.dropped },
  calls: 1,
});

/**
 * A later call's answer added to the totals. The log's dropped deliveries of each call are its
 * own (older) part of the range: added. The first call's dead letters are those of the whole
 * range, and a later call's are the same blobs again (skipped once replayed, counted again by a
 * dry run): only what a later call queued, and a blob that failed in it, are added.
 */
const addAnswer = (totals: RecoverTotals, answer: RecoverAnswer): RecoverTotals => {
  const later = answer.deadLetters;
  const deadLetters =
    totals.deadLetters === null || later === null
      ? totals.deadLetters
      : {
          ...totals.deadLetters,
          eventsQueued: totals.deadLetters.eventsQueued + (answer.dryRun ? 0 : later.eventsQueued),
          failedKeys: [...new Set([...totals.deadLetters.failedKeys, ...later.failedKeys])],
        };
  const sum = (field: keyof RecoveredDropped) =>
    field in totals.dropped || field in answer.dropped
      ? { [field]: (totals.dropped[field] ?? 0) + (answer.dropped[field] ?? 0) }
      : {};
  return {
    ...totals,
    eventsQueued: totals.eventsQueued + answer.eventsQueued,
    deadLetters,
    dropped: {
      deliveries: totals.dropped.deliveries + answer.dropped.deliveries,
      ...sum('matched'),
      eventsQueued: totals.dropped.eventsQueued + answer.dropped.eventsQueued,
      alreadyRecovered: totals.dropped.alreadyRecovered + answer.dropped.alreadyRecovered,
      withoutText: totals.dropped.withoutText + answer.dropped.withoutText,
      filteredOut: totals.dropped.filteredOut + answer.dropped.filteredOut,
    },
    calls: totals.calls + 1,
  };
};

/**
 * The totals for a person: what was queued, or in a dry run what would be (the records and
 * deliveries matched), and what was left out and why.
 */
export function formatRecovered(ref: SubscriptionRef, totals: RecoverTotals): string {
  const { deadLetters, dropped, dryRun } = totals;
  const verb = dryRun ? 'to queue' : 'queued';
  const rows: [string, number, string][] = [];
  if (deadLetters !== null) {
    const skipped =
      deadLetters.blobsSkipped === 0 ? '' : `; ${deadLetters.blobsSkipped} replayed before, left out`;
    rows.push([
      `dead-letter events ${verb}`,
      dryRun ? (deadLetters.recordsMatched ?? deadLetters.eventsQueued) : deadLetters.eventsQueued,
      `from ${plural(deadLetters.blobsSelected, 'blob')}${skipped}`,
    ]);
  }
  rows.push([
    `dropped deliveries ${verb}`,
    dryRun ? (dropped.matched ?? dropped.eventsQueued) : dropped.eventsQueued,
    `of ${dropped.deliveries} dropped${dryRun ? '; those recovered before are left out when queued' : ''}`,
  ]);
  if (!dryRun) rows.push(['already recovered', dropped.alreadyRecovered, 'left out']);
  rows.push(
    ['without text', dropped.withoutText, 'logged without the event (over 64 KiB): cannot be sent again'],
    ['left out by the filter', dropped.filteredOut, "the subscription's filter as it is now"],
  );
  if (!dryRun) rows.push(['events queued in all', totals.eventsQueued, '']);
  const width = Math.max(...rows.map(([label]) => label.length));
  const widest = Math.max(...rows.map(([, count]) => String(count).length));
  const failed = deadLetters?.failedKeys ?? [];
  return [
    `${dryRun ? 'Dry run, nothing queued: recovery' : 'Recovery'} of ${subscriptionLabel(ref)}, from ${totals.since} to ${totals.until} (${plural(totals.calls, 'call')}):`,
    ...rows.map(([label, count, note]) =>
      `  ${label.padEnd(width)}  ${String(count).padStart(widest)}  ${note}`.trimEnd(),
    ),
    ...(deadLetters === null
      ? ['No dead letters: the subscription has no dead-letter destination (what fails is dropped).']
      : []),
    ...(failed.length === 0
      ? []
      : [
          `${plural(failed.length, 'dead-letter blob')} failed (gridwire deadletters show <key> ${refFlags(ref)}):`,
          ...failed.map((key) => `  ${key}`),
        ]),
  ].join('\n');
}

/** `events recover`, for the `events` command. */
export function recoverCommand(io: ProgressIo = terminalIo()): Command {
  return withTargetOptions(
    new Command('recover').description(
      "Queue again a time range's dead-lettered events and dropped deliveries of the subscription, and print the totals.",
    ),
    (command) =>
      command
        .requiredOption(...sinceOption('failures'))
        .option(...untilOption('failures'))
        .option('--dry-run', 'count what would be queued, and queue nothing'),
    'print the totals as JSON: the API’s answers added up, with the number of calls',
  )
    .addHelpText(
      'after',
      '\nA long range takes several calls of the API; each goes on where the last stopped, and what was\n' +
        'queued before (by this command or an earlier one) is not queued again. Dead-letter blobs that\n' +
        'failed are listed, and the command exits with code 1.',
    )
    .action(async (options: TargetOptions & { since: string; until?: string; dryRun?: boolean }) => {
      const totals = await recoverRange(await resolveApiTarget(options), options, io);
      printAnswer(options, totals, (found) => formatRecovered(options, found));
      if ((totals.deadLetters?.failedKeys.length ?? 0) > 0) process.exitCode = 1;
    });
}

/**
 * `gridwire deadletters replay`: a dry run of the whole selection is shown first, blobs replayed
 * before are replayed again only when the operator says so (`--yes`, or yes at the prompt),
 * then one blob per call, the events paced to `--rate` per second.
 */
import { type ApiTarget, type SubscriptionRef, subscriptionLabel } from '../admin-api';
import { CliError } from '../errors';
import { plural } from '../text';
import {
  type BlobReplayAnswer,
  callReplay,
  callReplayOrWait,
  listDeadLetters,
  type ReplayAnswer,
} from './api';

/** Events per second `replay` sends by default. */
export const DEFAULT_REPLAY_RATE = 100;

const named = subscriptionLabel;

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
  /** Blobs left out because another replay was replaying them at the same time. */
  busy: string[];
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, (index + 1) * size),
  );

/** Events a blob's replay sends without `force`: the matched records not replayed before. */
const pending = (blob: BlobReplayAnswer) => (blob.matched ?? 0) - (blob.alreadyReplayed ?? 0);

/** The `reason` filter of the replay calls (none: every reason). */
const reasonFilter = (options: ReplayOptions): { reason?: string[] } =>
  options.reasons === undefined || options.reasons.length === 0 ? {} : { reason: options.reasons };

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
  const keys = await selectedKeys(target, options);
  const summary: ReplaySummary = {
    dryRun: options.dryRun === true,
    blobs: [],
    events: 0,
    skipped: [],
    missing: [],
    failed: [],
    unmarked: [],
    busy: [],
  };
  if (keys.length === 0) {
    io.log(`No dead letters of ${named(options)} to replay.`);
    return summary;
  }

  const plan = await dryRun(target, options, keys);
  summary.missing.push(...plan.missing);
  const planFailures = plan.planned.filter((blob) => blob.failed !== undefined);
  if (planFailures.length > 0) {
    summary.failed = planFailures.map((blob) => ({ key: blob.key, reason: blob.failed as string }));
    logPlanFailure(io, summary, plan.notStarted);
    return summary;
  }
  const fresh = plan.planned.filter((blob) => !blob.skipped && pending(blob) > 0);
  const before = plan.planned.filter((blob) => blob.skipped && (blob.matched ?? 0) > 0);
  logPlan(io, options, plan.planned, fresh, before, summary.missing);

  const work = await chooseWork(io, options, plan.planned, fresh, before, summary);
  const total = eventCount(work);
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
  return replayPaced(target, options, io, work, total, summary);
}

/** The blobs named with `--key`, else every blob in [since, until), oldest first. */
async function selectedKeys(target: ApiTarget, options: ReplayOptions): Promise<string[]> {
  return options.keys !== undefined && options.keys.length > 0
    ? options.keys
    : (await listDeadLetters(target, options)).map((blob) => blob.key).reverse();
}

/** The dry run of the selection: every selected blob counted, nothing queued. */
interface ReplayPlan {
  /** Each blob the dry run looked at, as it answered. */
  planned: BlobReplayAnswer[];
  /** Named or listed blobs that no longer exist. */
  missing: string[];
  /** Blobs the dry run did not look at because an earlier one failed. */
  notStarted: string[];
}

/** Asks for the dry run, as many blobs a call as the API takes (`MAX_REPLAY_KEYS`); stops at the first failing blob. */
async function dryRun(
  target: ApiTarget,
  options: ReplayOptions,
  keys: readonly string[],
): Promise<ReplayPlan> {
  const plan: ReplayPlan = { planned: [], missing: [], notStarted: [] };
  // The API's limit, read from the request parser when a replay runs (it loads zod).
  const { MAX_REPLAY_KEYS } =
    require('../../shared/management/dead-letters/replay-request') as typeof import('../../shared/management/dead-letters/replay-request');
  for (const chunk of chunks(keys, MAX_REPLAY_KEYS)) {
    const answer = await callReplay(target, options, { keys: chunk, ...reasonFilter(options), dryRun: true });
    plan.planned.push(...answer.blobs);
    plan.missing.push(...answer.notFound);
    plan.notStarted = answer.notStarted ?? [];
    if (plan.planned.some((blob) => blob.failed !== undefined)) break;
  }
  return plan;
}

/** Events of `blobs` a replay sends: all matched of a blob replayed before, else the pending ones. */
const eventCount = (blobs: readonly BlobReplayAnswer[]) =>
  blobs.reduce((sum, blob) => sum + (blob.skipped ? (blob.matched ?? 0) : pending(blob)), 0);

/** What the dry run found: events to replay, blobs replayed before, missing blobs, other topics. */
function logPlan(
  io: ReplayIo,
  options: ReplayOptions,
  planned: readonly BlobReplayAnswer[],
  fresh: readonly BlobReplayAnswer[],
  before: readonly BlobReplayAnswer[],
  missing: readonly string[],
): void {
  const otherTopic = planned.reduce((sum, blob) => sum + (blob.otherTopic ?? 0), 0);
  const filter =
    options.reasons === undefined || options.reasons.length === 0
      ? ''
      : ` (reason ${options.reasons.join(' or ')})`;
  io.log(
    `${plural(eventCount(fresh), 'event')}${filter} in ${plural(fresh.length, 'blob')} to replay to ${named(options)}.`,
  );
  if (before.length > 0) {
    io.log(
      `${plural(before.length, 'blob')} (${plural(eventCount(before), 'event')}) ${before.length === 1 ? 'was' : 'were'} replayed before:`,
    );
    for (const blob of before) io.log(`  ${blob.key}  replayed ${blob.replayedAt ?? '?'}`);
  }
  for (const key of missing) io.log(`  ${key}: no such blob`);
  if (otherTopic > 0) {
    io.log(
      `${plural(otherTopic, 'record')} of another topic's subscription of the same name (same container) left out.`,
    );
  }
}

/**
 * The blobs to replay: the fresh ones, and those replayed before when the operator says so
 * (`--yes`, or yes at the prompt; without a terminal it is a `CliError`). Those left out are
 * noted in `summary.skipped`.
 */
async function chooseWork(
  io: ReplayIo,
  options: ReplayOptions,
  planned: readonly BlobReplayAnswer[],
  fresh: BlobReplayAnswer[],
  before: readonly BlobReplayAnswer[],
  summary: ReplaySummary,
): Promise<BlobReplayAnswer[]> {
  if (before.length === 0) return fresh;
  let again = options.yes === true;
  if (!again && options.dryRun !== true) {
    if (!io.interactive) {
      throw new CliError(
        `${plural(before.length, 'blob')} of the selection ${before.length === 1 ? 'was' : 'were'} replayed before; pass --yes to replay them again, or choose blobs with --key`,
      );
    }
    again = await io.confirm(`Replay the ${plural(before.length, 'blob')} replayed before again? [y/N] `);
  }
  if (again) return planned.filter((blob) => fresh.includes(blob) || before.includes(blob));
  summary.skipped.push(...before.map((blob) => blob.key));
  return fresh;
}

/**
 * Replays `work` one blob per call, pacing the events to `options.rate`; stops at the first
 * failing blob. `total` is the events the plan expects (for the progress line).
 */
async function replayPaced(
  target: ApiTarget,
  options: ReplayOptions,
  io: ReplayIo,
  work: readonly BlobReplayAnswer[],
  total: number,
  summary: ReplaySummary,
): Promise<ReplaySummary> {
  const rate = options.rate ?? DEFAULT_REPLAY_RATE;
  const started = io.now();
  for (const [index, blob] of work.entries()) {
    let answer: ReplayAnswer;
    try {
      answer = await replayOneBlob(target, options, io, {
        keys: [blob.key],
        ...reasonFilter(options),
        force: blob.skipped,
      });
    } catch (error) {
      io.progressDone();
      throw new CliError(
        `${(error as Error).message}\n${plural(summary.blobs.length, 'blob')} (${plural(summary.events, 'event')}) replayed before this failure are marked; running the same command again continues with the rest`,
      );
    }
    addAnswer(summary, blob.key, answer);
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
  logReplayed(io, options, summary);
  return summary;
}

/**
 * Waits the route's per-subscription limit may ask for in a row before the replay gives up: the
 * limit's window is a minute, so one wait normally clears it; more means another caller is
 * replaying the same subscription.
 */
export const MAX_REPLAY_LIMIT_WAITS = 5;

/**
 * One blob's replay call; when the route's per-subscription limit refuses it (`429`), waits the
 * `Retry-After` it gives and calls again, at most {@link MAX_REPLAY_LIMIT_WAITS} times in a row.
 */
async function replayOneBlob(
  target: ApiTarget,
  options: ReplayOptions,
  io: ReplayIo,
  body: Parameters<typeof callReplay>[2],
): Promise<ReplayAnswer> {
  for (let waits = 0; ; waits++) {
    const result = await callReplayOrWait(target, options, body);
    if ('answer' in result) return result.answer;
    if (waits === MAX_REPLAY_LIMIT_WAITS) {
      throw new CliError(
        `replaying dead letters of ${named(options)} failed: the API's replay limit for this subscription refused ${MAX_REPLAY_LIMIT_WAITS + 1} calls in a row (another replay of it may be running)`,
      );
    }
    io.progress(`the API's replay limit for this subscription: waiting ${result.retryAfterSeconds} s`);
    await io.sleep(result.retryAfterSeconds * 1000);
  }
}

/** Adds one blob's replay answer to the summary. */
function addAnswer(summary: ReplaySummary, key: string, answer: ReplayAnswer): void {
  summary.events += answer.eventsQueued;
  if (answer.eventsQueued > 0) summary.blobs.push(key);
  const busy = answer.replayingElsewhereKeys ?? [];
  summary.busy.push(...busy);
  summary.skipped.push(...answer.skippedKeys.filter((skipped) => !busy.includes(skipped)));
  summary.missing.push(...answer.notFound);
  summary.unmarked.push(...(answer.unmarkedKeys ?? []));
  for (const failed of answer.blobs) {
    if (failed.failed !== undefined) summary.failed.push({ key: failed.key, reason: failed.failed });
  }
}

/** A dry run that failed: which blobs and why; nothing was replayed. */
function logPlanFailure(io: ReplayIo, summary: ReplaySummary, notStarted: readonly string[]): void {
  io.log(`The dry run failed for ${plural(summary.failed.length, 'blob')}; nothing was replayed:`);
  for (const failure of summary.failed) io.log(`  ${failure.key}: ${failure.reason}`);
  if (notStarted.length > 0) io.log(`  (${plural(notStarted.length, 'more blob')} not looked at)`);
  io.log('Leave the failing blobs out (--key, or --since/--until) to replay the others.');
}

/** What a finished replay did. */
function logReplayed(io: ReplayIo, options: ReplayOptions, summary: ReplaySummary): void {
  io.log(
    `Replayed ${plural(summary.events, 'event')} from ${plural(summary.blobs.length, 'blob')} to ${named(options)}.`,
  );
  if (summary.skipped.length > 0) {
    io.log(`Left out ${plural(summary.skipped.length, 'blob')} replayed before (--yes replays them again).`);
  }
  if (summary.busy.length > 0) {
    io.log(
      `Left out ${plural(summary.busy.length, 'blob')} another replay was replaying at the same time: ${summary.busy.join(', ')}`,
    );
  }
  if (summary.missing.length > 0) {
    io.log(`${plural(summary.missing.length, 'blob')} no longer exist: ${summary.missing.join(', ')}`);
  }
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

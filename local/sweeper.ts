/**
 * Scheduled invocations, locally: what the EventBridge rules do on AWS. The backlog sweep invokes
 * the delivery function with a `backlog-sweep` event every minute, and the archive sweep the
 * dead-letter function with an `archive-sweep` event every day, each on an interval divided by
 * the time scale (so a backlog whose wake is more than 15 minutes away still gets its tick in time).
 */
import type { Context } from 'aws-lambda';
import { ARCHIVE_SWEEP_EVENT, ARCHIVE_SWEEP_EVERY_HOURS } from '../shared/archive/sweep';
import { FUNCTIONS, type FunctionKey } from '../shared/config/resources';
import type { LoggerLike } from '../shared/observability/logging';
import { BACKLOG_SWEEP_EVENT, BACKLOG_SWEEP_EVERY_MINUTES } from '../shared/queue/backlog-sweep';
import { lambdaContext } from './lambda-context';

/** How often AWS runs the backlog sweep (the rule's rate). */
export const SWEEP_INTERVAL_MS = BACKLOG_SWEEP_EVERY_MINUTES * 60_000;

/** How often AWS runs the archive sweep. */
export const ARCHIVE_SWEEP_INTERVAL_MS = ARCHIVE_SWEEP_EVERY_HOURS * 3_600_000;

/** The shortest local interval, whatever the time scale: a sweep is a query of the timer index. */
const MIN_INTERVAL_MS = 250;

/** What a schedule invokes, and how often on AWS. */
export interface Schedule<E> {
  /** What the log says when a run fails. */
  readonly name: string;
  /** The function invoked (for its context). */
  readonly fn: FunctionKey;
  readonly event: E;
  /** The interval on AWS (real time). */
  readonly everyMs: number;
}

export const BACKLOG_SWEEP_SCHEDULE: Schedule<typeof BACKLOG_SWEEP_EVENT> = {
  name: 'backlog sweep',
  fn: 'delivery',
  event: BACKLOG_SWEEP_EVENT,
  everyMs: SWEEP_INTERVAL_MS,
};

export const ARCHIVE_SWEEP_SCHEDULE: Schedule<typeof ARCHIVE_SWEEP_EVENT> = {
  name: 'archive sweep',
  fn: 'deadLetter',
  event: ARCHIVE_SWEEP_EVENT,
  everyMs: ARCHIVE_SWEEP_INTERVAL_MS,
};

export interface SweeperOptions<E> {
  readonly schedule: Schedule<E>;
  /** The function's handler (as the pollers invoke it). */
  readonly handler: (event: E, context: Context) => Promise<unknown>;
  readonly timeScale: number;
  readonly logger: LoggerLike;
}

export class Sweeper<E> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: SweeperOptions<E>) {}

  /** The interval between runs at this time scale. */
  get intervalMs(): number {
    return Math.max(MIN_INTERVAL_MS, this.options.schedule.everyMs / this.options.timeScale);
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      // A run still going (a slow emulator) is not overlapped: the next interval catches up.
      this.running ??= this.sweepOnce().finally(() => {
        this.running = undefined;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the interval and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One run, as the scheduled invocation; a failure is logged (the next run tries again). */
  async sweepOnce(): Promise<void> {
    const { schedule } = this.options;
    try {
      await this.options.handler(schedule.event, lambdaContext(FUNCTIONS[schedule.fn]));
    } catch (error) {
      this.options.logger.warn(`${schedule.name} failed`, { error: (error as Error).message });
    }
  }
}

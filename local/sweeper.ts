/**
 * The backlog sweeper, locally: what the EventBridge rule does on AWS (invoke the delivery
 * function with a `backlog-sweep` event every minute), on an interval divided by the time scale,
 * so a backlog whose wake is more than 15 minutes away still gets its tick in time.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import type { DeliveryFunctionEvent } from '../functions/delivery';
import { FUNCTIONS } from '../shared/config/resources';
import type { LoggerLike } from '../shared/observability/logging';
import { BACKLOG_SWEEP_EVENT, BACKLOG_SWEEP_EVERY_MINUTES } from '../shared/queue/backlog-sweep';
import { lambdaContext } from './lambda-context';

/** How often AWS runs the sweep (the rule's rate). */
export const SWEEP_INTERVAL_MS = BACKLOG_SWEEP_EVERY_MINUTES * 60_000;

/** The shortest local interval, whatever the time scale: a sweep is a query of the timer index. */
const MIN_INTERVAL_MS = 250;

export interface SweeperOptions {
  /** The delivery function's handler (as the pollers invoke it). */
  readonly handler: (
    event: DeliveryFunctionEvent,
    context: ReturnType<typeof lambdaContext>,
  ) => Promise<SQSBatchResponse | undefined>;
  readonly timeScale: number;
  readonly logger: LoggerLike;
}

export class BacklogSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: SweeperOptions) {}

  /** The interval between sweeps at this time scale. */
  get intervalMs(): number {
    return Math.max(MIN_INTERVAL_MS, SWEEP_INTERVAL_MS / this.options.timeScale);
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      // A sweep still running (a slow emulator) is not overlapped: the next interval catches up.
      this.running ??= this.sweepOnce().finally(() => {
        this.running = undefined;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the interval and waits for a sweep in progress. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One sweep, as the scheduled invocation; a failure is logged (the next sweep tries again). */
  async sweepOnce(): Promise<void> {
    try {
      await this.options.handler(BACKLOG_SWEEP_EVENT, lambdaContext(FUNCTIONS.delivery));
    } catch (error) {
      this.options.logger.warn('backlog sweep failed', { error: (error as Error).message });
    }
  }
}

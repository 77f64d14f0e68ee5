/**
 * The local stack's stand-in for API Gateway's throttling: while fresh deliveries back up in the
 * delivery queue (waiting or in flight) beyond a high-water mark, publish requests are refused at
 * the door with a 429 and `Retry-After`, before their body is read, until the backlog is back
 * under a low-water mark. A refusal costs almost nothing, so the machine keeps delivering at its
 * peak instead of spending itself on accepting work it can't do, and the backlog (and latency)
 * stays bounded. Nothing refused was accepted: the publisher sends it again after `Retry-After`.
 *
 * The marks are in seconds of work: the backlog is compared with what the delivery workers have
 * been finishing per second, so a queue of big batched jobs that drains fast is not mistaken for
 * overload, and a queue of jobs that each take many requests is caught early. The marks in jobs
 * are floors, for a stack that has only just started finishing jobs.
 *
 * The rule (marks at a drain rate, hysteresis) is `shared/publish/admission.ts`, which the
 * publish function's own gate on AWS uses too; this file is the local stack's measuring of the
 * backlog and the drain rate around it.
 */
import { type AdmissionMarks, marksAtRate, nextRefusing } from '../shared/publish/admission';

export interface AdmissionOptions {
  /** Messages in the delivery queue now (waiting and in flight). */
  backlog: () => Promise<number>;
  /** Refuse from this many waiting messages... */
  highWater: number;
  /** ...until they are down to this many. */
  lowWater: number;
  /** How often the backlog is looked at. */
  intervalMs: number;
  /** What a refused publisher is told to wait. */
  retryAfterSeconds: number;
  /** Jobs the delivery workers have finished so far (a running count); without it the marks are fixed. */
  drained?: () => number;
  /** Refuse from this many seconds of work in the backlog (at the recent drain rate)... */
  highWaterSeconds?: number;
  /** ...until it is down to this many. */
  lowWaterSeconds?: number;
  /** The clock the drain rate is measured with (default `Date.now`). */
  now?: () => number;
  /** A look that failed (the emulators are going away): the gate stays as it was. */
  onError?: (error: Error) => void;
}

/**
 * Local defaults. The gate closes at a second of work waiting (at the rate the delivery workers
 * have been finishing jobs) and opens again at half a second, so latency stays about a second
 * whatever the jobs hold. The floors in jobs matter only before a rate is known: a job holds the
 * events of one publish request (often around 100), so 100 jobs are about a second of unbatched
 * work on this kind of machine.
 */
export const ADMISSION_DEFAULTS = {
  highWater: 100,
  lowWater: 50,
  highWaterSeconds: 1,
  lowWaterSeconds: 0.5,
  intervalMs: 100,
  retryAfterSeconds: 1,
} as const;

/**
 * The gate's settings on a stack whose delivery queue's consumer gathers messages for
 * `windowSeconds`: the defaults with the window added to the marks in seconds, since a window
 * keeps up to its length of messages in flight by design (on AWS the publish function's gate
 * counts waiting messages only, so a window never closes it); then what the options give.
 */
export function admissionSettings(
  options: Partial<Omit<AdmissionOptions, 'backlog'>> | undefined,
  windowSeconds: number,
): Omit<AdmissionOptions, 'backlog'> {
  return {
    ...ADMISSION_DEFAULTS,
    highWaterSeconds: ADMISSION_DEFAULTS.highWaterSeconds + windowSeconds,
    lowWaterSeconds: ADMISSION_DEFAULTS.lowWaterSeconds + windowSeconds,
    ...options,
  };
}

/** How quickly the measured drain rate follows a change: about a second. */
const RATE_TIME_CONSTANT_MS = 1000;

/** Whether a publish request may come in now; the refusal says how long to wait. */
export interface Admission {
  admit(): { retryAfterSeconds: number } | undefined;
}

export class BacklogAdmission implements Admission {
  private refusing = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Refused requests so far (for the status page and tests). */
  refused = 0;

  constructor(private readonly options: AdmissionOptions) {}

  /** Jobs finished per second lately (smoothed), once measured. */
  private rate = 0;
  private lastDrained: { at: number; count: number } | undefined;

  /** The marks in force now. */
  get currentMarks(): AdmissionMarks {
    return marksAtRate(this.rate, this.options);
  }

  /** Folds the jobs finished since the last look into the smoothed drain rate. */
  private measureDrain(): void {
    const drained = this.options.drained;
    if (drained === undefined) return;
    const at = (this.options.now ?? Date.now)();
    const count = drained();
    const last = this.lastDrained;
    this.lastDrained = { at, count };
    if (last === undefined || at <= last.at) return;
    const elapsed = at - last.at;
    const weight = Math.min(1, elapsed / RATE_TIME_CONSTANT_MS);
    this.rate += weight * (((count - last.count) * 1000) / elapsed - this.rate);
  }

  start(): void {
    const look = async () => {
      try {
        this.measureDrain();
        this.refusing = nextRefusing(this.refusing, await this.options.backlog(), this.currentMarks);
      } catch (error) {
        this.options.onError?.(error as Error);
      }
      if (!this.stopped) this.timer = setTimeout(() => void look(), this.options.intervalMs);
    };
    void look();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  admit(): { retryAfterSeconds: number } | undefined {
    if (!this.refusing) return undefined;
    this.refused += 1;
    return { retryAfterSeconds: this.options.retryAfterSeconds };
  }
}

/**
 * Publish admission: whether a publish request may come in while the delivery queue is behind.
 *
 * Two gates use the rule here. The local stack's (`local/admission.ts`) looks at the delivery
 * queue every 100 ms and counts the backlog in seconds of work at the rate its own delivery
 * poller has been finishing jobs. On AWS the publish function cannot see that rate: the delivery
 * workers are other Lambda instances, and SQS gives a queue's depth (`GetQueueAttributes`:
 * messages waiting, in flight, delayed), not what was taken out of it; the age of the oldest
 * message is a CloudWatch metric, a minute or more late, not a queue attribute. So the AWS gate
 * ({@link DeliveryBacklogGate}) compares the jobs waiting with a fixed mark. Both decide with the
 * same hysteresis ({@link nextRefusing}): refuse from the high mark until the backlog is down to
 * the low one, so the gate does not flap around a single value.
 */

/** The high and low marks of a backlog, in jobs. */
export interface AdmissionMarks {
  /** Refuse from this many jobs... */
  readonly highWater: number;
  /** ...until they are down to this many. */
  readonly lowWater: number;
}

/** Whether the gate refuses after seeing `backlog` jobs, given whether it was refusing. */
export function nextRefusing(refusing: boolean, backlog: number, marks: AdmissionMarks): boolean {
  if (backlog >= marks.highWater) return true;
  if (backlog <= marks.lowWater) return false;
  return refusing;
}

/** Marks in jobs, and in seconds of work where a drain rate is known. */
export interface RateMarkOptions extends AdmissionMarks {
  /** Refuse from this many seconds of work in the backlog (at the drain rate)... */
  readonly highWaterSeconds?: number;
  /** ...until it is down to this many. */
  readonly lowWaterSeconds?: number;
}

/**
 * The marks in jobs for a drain rate (jobs/s): that many seconds of work at that rate, never under
 * the marks in jobs, which are floors for a rate not yet measured.
 */
export function marksAtRate(rate: number, options: RateMarkOptions): AdmissionMarks {
  return {
    highWater: Math.max(options.highWater, Math.round(rate * (options.highWaterSeconds ?? 0))),
    lowWater: Math.max(options.lowWater, Math.round(rate * (options.lowWaterSeconds ?? 0))),
  };
}

/**
 * How long a publish function instance trusts the delivery queue's depth it last read: one
 * `GetQueueAttributes` per instance every 2 s. A backlog worth refusing for (thousands of jobs)
 * builds over seconds, so a fresher look would change few answers. Each warm instance reads
 * 43,200 times a day, $0.017 at $0.40 per million SQS requests; 100 instances kept warm all day
 * read 50 times a second, $1.73 a day (the bill scenario does not count these reads yet).
 */
export const DELIVERY_BACKLOG_READ_MS = 2000;

/**
 * What a publisher refused because delivery is behind is told to wait: as long as the answer of a
 * dependency that is down. The gate looks again every 2 s, and a backlog the size of the mark takes
 * the delivery workers seconds to halve, so sooner would mostly be refused again.
 */
export const DELIVERY_BACKLOG_RETRY_AFTER_SECONDS = 5;

export interface DeliveryBacklogGateOptions {
  /** Jobs waiting in the delivery queue (not yet received by a delivery worker). */
  readonly waitingJobs: () => Promise<number>;
  /** Refuse from this many jobs waiting, until half as many. */
  readonly limit: number;
  readonly now: () => number;
  /** How long a depth read is trusted (default {@link DELIVERY_BACKLOG_READ_MS}). */
  readonly readEveryMs?: number;
  /** A read failed: the gate lets requests in until the next read (fail-open). */
  readonly onReadError?: (error: Error) => void;
}

/**
 * The publish function's gate on AWS: refuses while the jobs waiting in the delivery queue reach
 * `limit`, until they are down to half of it. It reads the depth at most once per
 * `readEveryMs`; requests that arrive while a read is under way wait for that same read.
 *
 * It fails open: when the depth can't be read, requests are let in. A refusal is a guess that the
 * workers are behind; without a reading there is no such guess, and the publish itself will meet
 * an unavailable queue on its own (a 503 with `Retry-After`). Failing closed would turn a
 * hiccup of one read API into refusing every publish for its duration.
 */
export class DeliveryBacklogGate {
  private refusing = false;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private readonly marks: AdmissionMarks;

  constructor(private readonly options: DeliveryBacklogGateOptions) {
    this.marks = { highWater: options.limit, lowWater: Math.floor(options.limit / 2) };
  }

  /** Undefined to let the request in; otherwise how long the caller should wait. */
  async refusal(): Promise<{ retryAfterSeconds: number } | undefined> {
    if (this.options.now() - this.readAt >= (this.options.readEveryMs ?? DELIVERY_BACKLOG_READ_MS)) {
      this.reading ??= this.read().finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    return this.refusing ? { retryAfterSeconds: DELIVERY_BACKLOG_RETRY_AFTER_SECONDS } : undefined;
  }

  private async read(): Promise<void> {
    try {
      this.refusing = nextRefusing(this.refusing, await this.options.waitingJobs(), this.marks);
    } catch (error) {
      this.refusing = false;
      this.options.onReadError?.(error as Error);
    }
    // A failed read is also trusted for the interval: a queue that can't be read is not asked
    // again on every request.
    this.readAt = this.options.now();
  }
}

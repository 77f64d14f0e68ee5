/**
 * The local stack's stand-in for API Gateway's throttling: while fresh deliveries back up in the
 * delivery queue (waiting or in flight) beyond a high-water mark, publish requests are refused at the door with a 429 and
 * `Retry-After`, before their body is read, until the backlog is back under a low-water mark. A
 * refusal costs almost nothing, so the machine keeps delivering at its peak instead of spending
 * itself on accepting work it can't do, and the backlog (and latency) stays bounded. Nothing
 * refused was accepted: the publisher sends it again after `Retry-After`.
 */

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
  /** A look that failed (the emulators are going away): the gate stays as it was. */
  onError?: (error: Error) => void;
}

/**
 * Local defaults. A delivery job holds the events of one publish request (often around 100), so
 * 100 messages is about a second of work at this machine's peak; at its peak the stack keeps a few
 * dozen in the queue.
 */
export const ADMISSION_DEFAULTS = {
  highWater: 100,
  lowWater: 50,
  intervalMs: 100,
  retryAfterSeconds: 1,
} as const;

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

  /** The gate's verdict for a backlog, with the high/low-water hysteresis. */
  static next(refusing: boolean, backlog: number, options: Pick<AdmissionOptions, 'highWater' | 'lowWater'>) {
    if (backlog >= options.highWater) return true;
    if (backlog <= options.lowWater) return false;
    return refusing;
  }

  start(): void {
    const look = async () => {
      try {
        this.refusing = BacklogAdmission.next(this.refusing, await this.options.backlog(), this.options);
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

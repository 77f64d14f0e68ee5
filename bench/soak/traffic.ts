/**
 * The soak's publishers: an open loop offering `eventsPerSecond` events, most in requests of 100
 * and `singlesPerSecond` requests of one event, to the topic with its current key and the
 * stack's current URL. A request is sent until it is answered 200: after its `Retry-After` when
 * refused (429, 503), after a second when it goes unanswered (the stack down: its events are
 * marked sent again, since the lost answer may have been a 200). Anything else is a refusal the
 * soak reports (it should not happen). At most `maxInFlight` requests are out at once; while that
 * many are, the loop offers nothing more (counted as ticks skipped, so the rate offered is what
 * the ledger says, not what was asked).
 */
import type { SoakLedger } from './ledger';
import { soakEvent } from './mix';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface TrafficCounts {
  requests: number;
  /** Answers by status (0: no answer). */
  byStatus: Record<string, number>;
  /** Requests given up on: answered something that is not worth sending again. */
  refused: number;
  refusals: string[];
  /** Loop ticks that offered nothing because `maxInFlight` requests were out. */
  skippedTicks: number;
  /** Events offered in each second of the run. */
  offeredPerSecond: number[];
}

export interface TrafficTarget {
  /** The stack's API URL now (undefined while it is down). */
  apiUrl(): string | undefined;
  /** The topic key to publish with now. */
  key(): string;
}

export class SoakTraffic {
  private next = 0;
  private inFlight = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;
  readonly counts: TrafficCounts = {
    requests: 0,
    byStatus: {},
    refused: 0,
    refusals: [],
    skippedTicks: 0,
    offeredPerSecond: [],
  };
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly ledger: SoakLedger,
    private readonly target: TrafficTarget,
    private readonly topic: string,
    private readonly options: {
      eventsPerSecond: number;
      singlesPerSecond: number;
      maxInFlight: number;
      startedAt: number;
    },
  ) {}

  /** Events offered so far. */
  get offered(): number {
    return this.next;
  }

  start(): void {
    this.loop = this.run();
  }

  /** Stops offering, and waits until every request out has been answered 200 (or given up on). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    while (this.pending.size > 0) await Promise.race(this.pending);
  }

  private async run(): Promise<void> {
    const tickMs = 100;
    const { eventsPerSecond, singlesPerSecond } = this.options;
    // Carried fractions, so any rate is offered exactly over time.
    let batchedDue = 0;
    let singlesDue = 0;
    let nextTick = Date.now();
    while (!this.stopped) {
      batchedDue += ((eventsPerSecond - singlesPerSecond) * tickMs) / 1000;
      singlesDue += (singlesPerSecond * tickMs) / 1000;
      if (this.inFlight >= this.options.maxInFlight) {
        this.counts.skippedTicks += 1;
        batchedDue = 0;
        singlesDue = 0;
      }
      while (batchedDue >= 100 && this.inFlight < this.options.maxInFlight) {
        batchedDue -= 100;
        this.send(100);
      }
      while (singlesDue >= 1 && this.inFlight < this.options.maxInFlight) {
        singlesDue -= 1;
        this.send(1);
      }
      nextTick += tickMs;
      await sleep(Math.max(0, nextTick - Date.now()));
    }
  }

  private send(count: number): void {
    const first = this.next;
    this.next += count;
    const second = Math.floor((Date.now() - this.options.startedAt) / 1000);
    while (this.counts.offeredPerSecond.length <= second) this.counts.offeredPerSecond.push(0);
    this.counts.offeredPerSecond[second] = (this.counts.offeredPerSecond[second] ?? 0) + count;
    for (let n = first; n < first + count; n += 1) this.ledger.offered(n);
    const time = new Date().toISOString();
    const body = `[${Array.from({ length: count }, (_, i) => soakEvent(first + i, time)).join(',')}]`;
    this.inFlight += 1;
    const sending = this.sendUntilAccepted(first, count, body).finally(() => {
      this.inFlight -= 1;
      this.pending.delete(sending);
    });
    this.pending.add(sending);
  }

  private async sendUntilAccepted(first: number, count: number, body: string): Promise<void> {
    for (;;) {
      const apiUrl = this.target.apiUrl();
      if (apiUrl === undefined) {
        await sleep(500);
        continue;
      }
      this.counts.requests += 1;
      let status = 0;
      let retryAfter = 1;
      let text = '';
      try {
        const response = await fetch(`${apiUrl}/topics/${this.topic}/api/events?api-version=2018-01-01`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'aeg-sas-key': this.target.key() },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        status = response.status;
        retryAfter = Number(response.headers.get('retry-after') ?? 1);
        text = await response.text();
      } catch {
        status = 0;
      }
      this.counts.byStatus[status] = (this.counts.byStatus[status] ?? 0) + 1;
      if (status === 200) {
        const at = Date.now();
        for (let n = first; n < first + count; n += 1) this.ledger.accepted(n, at);
        return;
      }
      if (status === 0 || (status >= 500 && status !== 503)) {
        // No answer (or an error that is a bug, counted by status): the events may have been
        // accepted; sending them again may duplicate them.
        for (let n = first; n < first + count; n += 1) this.ledger.sentAgain(n);
        await sleep(1000);
        continue;
      }
      // A key just rotated reaches every publisher within the topic cache time: try again.
      if (status === 429 || status === 503 || status === 401) {
        await sleep(Math.max(1, Number.isFinite(retryAfter) ? retryAfter : 1) * 1000);
        continue;
      }
      this.counts.refused += 1;
      if (this.counts.refusals.length < 10) this.counts.refusals.push(`${status}: ${text.slice(0, 300)}`);
      return;
    }
  }
}

/**
 * The soak's ledger: every event it offered, whether the stack accepted it (answered 200), and
 * what became of it at its one subscription: attempts seen at the webhook, deliveries (a 2xx
 * answer, or a message read from the destination queue), dead letters and drops with their
 * reasons. At the end it closes: each accepted event is delivered, dead-lettered or dropped,
 * else missing; an event delivered more than once is a duplicate, explained when a fault of the
 * stack's fell while the stack held it (or the publisher sent it again after an unanswered
 * request). Numbers are per event number in typed arrays, so an hour at a thousand events a
 * second fits in tens of megabytes.
 */

/** An event's publish state. */
const OFFERED = 1;
const ACCEPTED = 2;

/** A fault's window, in ms since the run's start (`endMs` infinite while it lasts). */
export interface FaultWindow {
  readonly name: string;
  readonly startMs: number;
  endMs: number;
}

/** How long before a fault an event's acceptance may be and still be left unsettled by it. */
export const DUPLICATE_MARGIN_MS = 120_000;

export interface SubscriptionTally {
  subscription: string;
  /** Accepted events routed to it. */
  accepted: number;
  delivered: number;
  deadLettered: number;
  dropped: number;
  missing: number;
  /** Events delivered more than once, and the deliveries beyond the first. */
  duplicated: number;
  extraDeliveries: number;
  unexplainedDuplicates: number;
  /** Delivered although never answered 200 (their publish's answer was lost, and not sent again). */
  deliveredUnaccepted: number;
  /** Attempts seen at its webhook (any answer). */
  attempts: number;
}

export interface LedgerClose {
  offered: number;
  accepted: number;
  /** Offered, never answered 200 by the end (the run stopped while they were being sent again). */
  unanswered: number;
  /** Publishes sent again after a request went unanswered (a fault). */
  resentEvents: number;
  delivered: number;
  deadLettered: number;
  dropped: number;
  missing: number;
  duplicated: number;
  unexplainedDuplicates: number;
  /** The first missing events' ids (at most 20). */
  missingSample: string[];
  deadLetterReasons: Record<string, number>;
  dropReasons: Record<string, number>;
  bySubscription: SubscriptionTally[];
  /** Whether it closed: none missing. */
  closed: boolean;
}

/** A growable typed array. */
class Column<T extends Uint8Array | Uint32Array> {
  constructor(
    public values: T,
    private readonly make: (length: number) => T,
  ) {}

  ensure(index: number): void {
    if (index < this.values.length) return;
    let length = this.values.length;
    while (length <= index) length *= 2;
    const grown = this.make(length);
    grown.set(this.values);
    this.values = grown;
  }
}

const u8 = (length: number) => new Column(new Uint8Array(length), (n) => new Uint8Array(n));
const u32 = (length: number) => new Column(new Uint32Array(length), (n) => new Uint32Array(n));

export class SoakLedger {
  private readonly state = u8(1 << 16);
  private readonly resent = u8(1 << 16);
  private readonly attempts = u8(1 << 16);
  private readonly deliveries = u8(1 << 16);
  private readonly ended = u8(1 << 16);
  /** Seconds since the start, plus one (0: never). */
  private readonly acceptedAt = u32(1 << 16);
  private readonly firstAttemptAt = u32(1 << 16);
  private readonly firstDeliveredAt = u32(1 << 16);
  private readonly columns = [
    this.state,
    this.resent,
    this.attempts,
    this.deliveries,
    this.ended,
    this.acceptedAt,
    this.firstAttemptAt,
    this.firstDeliveredAt,
  ];
  private highest = -1;
  private unexplained = 0;
  private readonly unexplainedBy = new Map<number, number>();
  private readonly deadLetterReasons = new Map<string, number>();
  private readonly dropReasons = new Map<string, number>();
  /** Ended (dead-lettered 1, dropped 2), reasons by event. */
  private readonly faults: FaultWindow[] = [];
  /** Where the oldest-unattempted scan starts (every event below it was attempted or is not immediate). */
  private scanFrom = 0;

  /**
   * `subscriptionOf(n)`: the subscription index of event `n`; `names`: the subscriptions by index;
   * `immediate`: which are attempted at once (their events count toward overdue).
   */
  constructor(
    private readonly subscriptionOf: (n: number) => number,
    private readonly names: readonly string[],
    private readonly immediate: readonly boolean[],
    private readonly startedAt: number,
  ) {}

  private second(at: number): number {
    return Math.max(0, Math.floor((at - this.startedAt) / 1000)) + 1;
  }

  private grow(n: number): void {
    for (const column of this.columns) column.ensure(n);
    if (n > this.highest) this.highest = n;
  }

  /** Event `n` was sent in a publish request. */
  offered(n: number): void {
    this.grow(n);
    if (this.state.values[n] === 0) this.state.values[n] = OFFERED;
  }

  /** Event `n` is being sent again: its earlier request went unanswered (a fault). */
  sentAgain(n: number): void {
    this.grow(n);
    this.resent.values[n] = 1;
  }

  /** The stack answered 200 to a request carrying event `n`. */
  accepted(n: number, at: number): void {
    this.grow(n);
    if (this.state.values[n] !== ACCEPTED) {
      this.state.values[n] = ACCEPTED;
      this.acceptedAt.values[n] = this.second(at);
    }
  }

  /**
   * A fault's window (for explaining duplicates): told when it begins, so a delivery made again
   * while the fault is still being recovered from is explained by it; its `endMs` set later.
   */
  fault(window: FaultWindow): void {
    this.faults.push(window);
  }

  /** The webhook was sent event `n` (answered `ok` or not). */
  attempted(n: number, ok: boolean, at: number): void {
    if (n < 0) return;
    this.grow(n);
    const attempts = this.attempts.values;
    if (attempts[n] === 0) this.firstAttemptAt.values[n] = this.second(at);
    if ((attempts[n] as number) < 255) attempts[n] = (attempts[n] as number) + 1;
    if (ok) this.delivered(n, at);
  }

  /** Event `n` reached its destination (a 2xx, or read from the destination queue). */
  delivered(n: number, at: number): void {
    if (n < 0) return;
    this.grow(n);
    const deliveries = this.deliveries.values;
    if (this.firstAttemptAt.values[n] === 0) this.firstAttemptAt.values[n] = this.second(at);
    if (deliveries[n] === 0) {
      this.firstDeliveredAt.values[n] = this.second(at);
    } else if (!this.explained(n, at)) {
      this.unexplained += 1;
      const subscription = this.subscriptionOf(n);
      this.unexplainedBy.set(subscription, (this.unexplainedBy.get(subscription) ?? 0) + 1);
    }
    if ((deliveries[n] as number) < 255) deliveries[n] = (deliveries[n] as number) + 1;
  }

  /**
   * Whether a second delivery of `n` at `at` has a cause: a resend, or a fault of the stack's
   * while the event was in its hands (from its acceptance, or its first delivery when it was
   * never answered 200, less {@link DUPLICATE_MARGIN_MS}, to this delivery). An event parked in
   * a backlog may be delivered again long after the crash that left two copies of it.
   */
  private explained(n: number, at: number): boolean {
    if (this.resent.values[n] === 1) return true;
    const since = (this.acceptedAt.values[n] as number) || (this.firstDeliveredAt.values[n] as number);
    const from = (since - 1) * 1000 - DUPLICATE_MARGIN_MS;
    const now = at - this.startedAt;
    return this.faults.some((fault) => fault.startMs <= now && fault.endMs >= from);
  }

  /** Event `n` was found dead-lettered, for `reason`. */
  deadLettered(n: number, reason: string): void {
    if (n < 0) return;
    this.grow(n);
    if (this.ended.values[n] === 0) {
      this.ended.values[n] = 1;
      this.deadLetterReasons.set(reason, (this.deadLetterReasons.get(reason) ?? 0) + 1);
    }
  }

  /** Event `n` was dropped (no dead-letter destination), for `reason`, as its history says. */
  dropped(n: number, reason: string): void {
    if (n < 0) return;
    this.grow(n);
    if (this.ended.values[n] === 0) {
      this.ended.values[n] = 2;
      this.dropReasons.set(reason, (this.dropReasons.get(reason) ?? 0) + 1);
    }
  }

  /** Whether event `n` is accepted and neither delivered nor ended (so far). */
  isOutstanding(n: number): boolean {
    return this.state.values[n] === ACCEPTED && this.deliveries.values[n] === 0 && this.ended.values[n] === 0;
  }

  /** The accepted events neither delivered nor ended, by event number. */
  outstanding(): number[] {
    const found: number[] = [];
    for (let n = 0; n <= this.highest; n += 1) if (this.isOutstanding(n)) found.push(n);
    return found;
  }

  /** Accepted events routed to the subscriptions whose index `include` takes, and how many were delivered or ended. */
  progress(include: (subscription: number) => boolean = () => true): { accepted: number; settled: number } {
    let accepted = 0;
    let settled = 0;
    for (let n = 0; n <= this.highest; n += 1) {
      if (this.state.values[n] !== ACCEPTED || !include(this.subscriptionOf(n))) continue;
      accepted += 1;
      if (this.deliveries.values[n] !== 0 || this.ended.values[n] !== 0) settled += 1;
    }
    return { accepted, settled };
  }

  /** The subscription (its name) of the ledger's event `s<n>` id, as `oldestUnattempted` names it. */
  subscriptionOfId(id: string): string | undefined {
    const n = Number(id.slice(1));
    return Number.isInteger(n) && n >= 0 && n <= this.highest
      ? this.names[this.subscriptionOf(n)]
      : undefined;
  }

  /**
   * Seconds the oldest accepted event of an immediate subscription has waited without an attempt
   * (0 when none waits), and its id: an event is due when it is accepted, so this is how
   * overdue the most overdue one is.
   */
  oldestUnattempted(at: number): { seconds: number; id: string | undefined } {
    const now = this.second(at);
    let oldest = 0;
    let id: string | undefined;
    let advancing = true;
    for (let n = this.scanFrom; n <= this.highest; n += 1) {
      const waiting =
        this.immediate[this.subscriptionOf(n)] === true &&
        this.firstAttemptAt.values[n] === 0 &&
        this.ended.values[n] === 0;
      if (!waiting) {
        if (advancing) this.scanFrom = n + 1;
        continue;
      }
      advancing = false;
      const acceptedAt = this.acceptedAt.values[n] as number;
      if (acceptedAt === 0) continue;
      if (now - acceptedAt > oldest) {
        oldest = now - acceptedAt;
        id = `s${n}`;
      }
    }
    return { seconds: oldest, id };
  }

  close(): LedgerClose {
    const tallies: SubscriptionTally[] = this.names.map((subscription, index) => ({
      subscription,
      accepted: 0,
      delivered: 0,
      deadLettered: 0,
      dropped: 0,
      missing: 0,
      duplicated: 0,
      extraDeliveries: 0,
      unexplainedDuplicates: this.unexplainedBy.get(index) ?? 0,
      deliveredUnaccepted: 0,
      attempts: 0,
    }));
    let offered = 0;
    let unanswered = 0;
    let resentEvents = 0;
    const missingSample: string[] = [];
    for (let n = 0; n <= this.highest; n += 1) {
      const state = this.state.values[n];
      if (state === 0) continue;
      offered += 1;
      if (this.resent.values[n] === 1) resentEvents += 1;
      const tally = tallies[this.subscriptionOf(n)] as SubscriptionTally;
      tally.attempts += this.attempts.values[n] as number;
      const deliveries = this.deliveries.values[n] as number;
      if (state !== ACCEPTED) {
        unanswered += 1;
        if (deliveries > 0) tally.deliveredUnaccepted += 1;
        continue;
      }
      tally.accepted += 1;
      if (deliveries > 0) {
        tally.delivered += 1;
        if (deliveries > 1) {
          tally.duplicated += 1;
          tally.extraDeliveries += deliveries - 1;
        }
      } else if (this.ended.values[n] === 1) tally.deadLettered += 1;
      else if (this.ended.values[n] === 2) tally.dropped += 1;
      else {
        tally.missing += 1;
        if (missingSample.length < 20) missingSample.push(`s${n}`);
      }
    }
    const sum = (key: keyof SubscriptionTally) =>
      tallies.reduce((total, tally) => total + (tally[key] as number), 0);
    const missing = sum('missing');
    return {
      offered,
      accepted: sum('accepted'),
      unanswered,
      resentEvents,
      delivered: sum('delivered'),
      deadLettered: sum('deadLettered'),
      dropped: sum('dropped'),
      missing,
      duplicated: sum('duplicated'),
      unexplainedDuplicates: this.unexplained,
      missingSample,
      deadLetterReasons: Object.fromEntries(this.deadLetterReasons),
      dropReasons: Object.fromEntries(this.dropReasons),
      bySubscription: tallies,
      closed: missing === 0,
    };
  }
}

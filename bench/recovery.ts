/**
 * What the recovery scenario's webhook counts, as pure code (the webhook process feeds it, the
 * tests drive it with a fake clock): requests in flight at once and open connections (each at
 * its peak), requests and events per second, and how many times each event was acknowledged;
 * then the check of every expected event against what arrived (missing, duplicates).
 */

/** A webhook phase: it answers 503 (`down`) or 200 (`up`). */
export type RecoveryPhase = 'down' | 'up';

/** What the webhook saw during one phase. */
export interface PhaseTally {
  phase: RecoveryPhase;
  /** Epoch ms the phase began. */
  since: number;
  /** Requests received (answered or not). */
  requests: number;
  /** Requests received and not yet answered, at most at once. */
  peakInFlight: number;
  /** Connections open at once, at most (each carries one request at a time: no pipelining). */
  peakConnections: number;
  /** Requests received in each second since `since` (index 0 is the first second). */
  requestsPerSecond: number[];
  /** Events acknowledged (answered 200) in each second since `since`. */
  eventsPerSecond: number[];
  /** Epoch ms of the first request answered 200; undefined if none. */
  firstOkAt: number | undefined;
  /** Epoch ms an event was first acknowledged, for the last time (the last new event); undefined if none. */
  lastNewEventAt: number | undefined;
  /** Distinct events acknowledged so far (over every phase). */
  distinctEvents: number;
}

/** Adds one to `list[index]`, filling the seconds before it with 0. */
function addAt(list: number[], index: number, count: number): void {
  while (list.length <= index) list.push(0);
  list[index] = (list[index] ?? 0) + count;
}

export class RecoveryTally {
  private phase: PhaseTally;
  private inFlight = 0;
  private connections = 0;
  /** Times each event id was acknowledged (answered 200), over every phase. */
  private readonly acknowledged = new Map<string, number>();

  constructor(phase: RecoveryPhase, now: number) {
    this.phase = this.fresh(phase, now);
  }

  private fresh(phase: RecoveryPhase, now: number): PhaseTally {
    return {
      phase,
      since: now,
      requests: 0,
      // What is open when a phase begins counts toward its peaks.
      peakInFlight: this.inFlight,
      peakConnections: this.connections,
      requestsPerSecond: [],
      eventsPerSecond: [],
      firstOkAt: undefined,
      lastNewEventAt: undefined,
      distinctEvents: this.acknowledged.size,
    };
  }

  get current(): RecoveryPhase {
    return this.phase.phase;
  }

  /** Begins a new phase: counts and peaks start again; acknowledged events are kept. */
  switchTo(phase: RecoveryPhase, now: number): void {
    this.phase = this.fresh(phase, now);
  }

  connectionOpened(): void {
    this.connections += 1;
    this.phase.peakConnections = Math.max(this.phase.peakConnections, this.connections);
  }

  connectionClosed(): void {
    this.connections -= 1;
  }

  /** A request has arrived (its headers). */
  requestStarted(now: number): void {
    this.inFlight += 1;
    this.phase.requests += 1;
    this.phase.peakInFlight = Math.max(this.phase.peakInFlight, this.inFlight);
    addAt(this.phase.requestsPerSecond, this.secondOf(now), 1);
  }

  /**
   * A request has been answered with `status`: a 200 acknowledges the events it carried. A
   * request that arrived in the phase before is still counted out of the in-flight count.
   */
  requestAnswered(now: number, status: number, eventIds: readonly string[]): void {
    this.inFlight -= 1;
    if (status !== 200) return;
    this.phase.firstOkAt ??= now;
    let fresh = 0;
    for (const id of eventIds) {
      const times = this.acknowledged.get(id) ?? 0;
      if (times === 0) fresh += 1;
      this.acknowledged.set(id, times + 1);
    }
    if (fresh > 0) this.phase.lastNewEventAt = now;
    this.phase.distinctEvents = this.acknowledged.size;
    addAt(this.phase.eventsPerSecond, this.secondOf(now), eventIds.length);
  }

  private secondOf(now: number): number {
    return Math.max(0, Math.floor((now - this.phase.since) / 1000));
  }

  /** The current phase's tally (a copy). */
  snapshot(): PhaseTally {
    return {
      ...this.phase,
      requestsPerSecond: [...this.phase.requestsPerSecond],
      eventsPerSecond: [...this.phase.eventsPerSecond],
    };
  }

  /** Each acknowledged event id and how many times it was acknowledged. */
  acknowledgedCounts(): Array<[string, number]> {
    return [...this.acknowledged];
  }
}

/** Every expected event held against what the webhook acknowledged. */
export interface DeliveryCheck {
  expected: number;
  /** Expected events never acknowledged. */
  missing: number;
  /** Events acknowledged more than once. */
  duplicated: number;
  /** Acknowledgements beyond the first, over every event. */
  extraDeliveries: number;
  /** Acknowledged events that were not expected. */
  unexpected: number;
  /** Up to 5 missing ids, to look them up. */
  missingSample: string[];
}

export function checkDeliveries(
  expectedIds: Iterable<string>,
  acknowledged: ReadonlyArray<readonly [string, number]>,
): DeliveryCheck {
  const counts = new Map(acknowledged);
  let expected = 0;
  let missing = 0;
  const missingSample: string[] = [];
  const wanted = new Set<string>();
  for (const id of expectedIds) {
    expected += 1;
    wanted.add(id);
    if ((counts.get(id) ?? 0) === 0) {
      missing += 1;
      if (missingSample.length < 5) missingSample.push(id);
    }
  }
  let duplicated = 0;
  let extraDeliveries = 0;
  let unexpected = 0;
  for (const [id, times] of counts) {
    if (!wanted.has(id)) unexpected += 1;
    if (times > 1) {
      duplicated += 1;
      extraDeliveries += times - 1;
    }
  }
  return { expected, missing, duplicated, extraDeliveries, unexpected, missingSample };
}

/** The busiest second of a per-second series (0 for none). */
export const peakOf = (perSecond: readonly number[]): number => Math.max(0, ...perSecond);

/**
 * The mean of a per-second series over the seconds from the first to the last that is not 0
 * (whole seconds; 0 for none).
 */
export function meanOverActiveSeconds(perSecond: readonly number[]): number {
  const first = perSecond.findIndex((count) => count > 0);
  if (first < 0) return 0;
  let last = perSecond.length - 1;
  while (last > first && (perSecond[last] ?? 0) === 0) last -= 1;
  const total = perSecond.slice(first, last + 1).reduce((sum, count) => sum + count, 0);
  return total / (last - first + 1);
}

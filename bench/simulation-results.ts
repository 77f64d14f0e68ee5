/**
 * What the retry engine simulation (`simulation.ts`) reports: the events' ends read from the
 * engine's metrics (in all and by pattern), every attempt checked (`simulation-checks.ts`), what
 * became of the parked endpoint, and what the backlogs did.
 */

import { type AttemptTally, tallyAttempts } from './simulation-checks';
import type { LoopCounts, Published } from './simulation-loop';
import type { SimulationRig } from './simulation-rig';
import { PARKED, PARKED_FOR_MS, PATTERNS } from './simulation-workload';

const H = 60 * 60 * 1000;

/** What became of the parked endpoint's events. */
export interface ParkedResult {
  events: number;
  /** Delivered (after the endpoint recovered: it answers 503 until then). */
  delivered: number;
  ended: Record<string, number>;
  /** Webhook requests while it answered 503, and those after it became unhealthy. */
  requestsWhileDown: number;
  requestsWhileUnhealthy: number;
  /** Probations that ended while it was unhealthy and answering 503 (each ends in one probe). */
  probationEnds: number;
  /** Events that went through its backlog (stored at least once). */
  throughBacklog: number;
  /** Segments written for its backlog (stores, and probed events stored back). */
  segments: number;
  /** Last delivery, hours after the endpoint recovered. */
  lastDeliveredAfterRecoveryHours: number;
}

export interface SimulationResult {
  events: number;
  simulatedHours: number;
  wallMs: number;
  attempts: number;
  delivered: number;
  ended: Record<string, number>;
  /** Waits between consecutive attempts of one event, checked against the schedule. */
  waitsChecked: number;
  /** Waits shorter than the schedule step (with its floor) or longer than step + jitter bound + SQS rounding (1 s). */
  violations: number;
  /** Largest wait minus its schedule step, in ms (the jitter actually applied). */
  maxJitterMs: number;
  /** Largest allowed jitter among the checked waits, in ms. */
  maxJitterBoundMs: number;
  /** Jobs sent round again because they were not due yet (waits over 15 min). */
  hops: number;
  /** SQS messages sent in all (retries, hops, deferrals, ticks, store jobs). */
  sqsSends: number;
  /** Whether the engine kept backlogs. */
  backlog: boolean;
  /** Attempts made before the due time their event had when it was last queued or stored (must be 0). */
  early: number;
  /** Waits not checked against the schedule because a hold (probation) applied. */
  heldWaits: number;
  /** Events stored in a backlog at least once, store invocations, ticks worked and sweeps. */
  stored: number;
  storeInvocations: number;
  ticks: number;
  sweeps: number;
  parked: ParkedResult;
  byPattern: Array<{
    pattern: string;
    describe: string;
    events: number;
    delivered: number;
    attempts: number;
    ended: Record<string, number>;
  }>;
}

/** Events ended, by reason: in all, and by pattern (the parked endpoint's included). */
function endsOf(rig: SimulationRig) {
  const ended: Record<string, number> = {};
  const endedByPattern = new Map<string, Record<string, number>>(
    PATTERNS.map((pattern) => [pattern.name, {}]),
  );
  const patternNames = [...PATTERNS, PARKED].map((pattern) => pattern.name);
  endedByPattern.set(PARKED.name, {});
  for (const point of rig.metrics.drain()) {
    if (point.name !== 'DroppedEventCount') continue;
    const reason = point.dimensions.DropReason ?? '?';
    const count = point.values[0] ?? 0;
    ended[reason] = (ended[reason] ?? 0) + count;
    const pattern = (point.dimensions.EventSubscriptionName ?? '').toLowerCase().split('~')[0] ?? '';
    if (!patternNames.includes(pattern)) continue;
    const forPattern = endedByPattern.get(pattern);
    if (forPattern !== undefined) forPattern[reason] = (forPattern[reason] ?? 0) + count;
  }
  return { ended, endedByPattern };
}

/** The parked endpoint's requests, probes, backlog and recovery. */
function parkedResultOf(
  rig: SimulationRig,
  parkedEvents: number,
  tally: AttemptTally,
  ended: Record<string, number>,
): ParkedResult {
  const { t0, parkedWatch } = rig;
  const parkedLogs = [...rig.attempts.entries()].filter(([id]) => id.startsWith(`${PARKED.name}/`));
  const parkedRequests = parkedLogs.flatMap(([, log]) => log);
  const deliveredAts = parkedRequests.filter((a) => a.status === 200).map((a) => a.at);
  return {
    events: parkedEvents,
    delivered: tally.byPattern.get(PARKED.name)?.delivered ?? 0,
    ended,
    requestsWhileDown: parkedRequests.filter((a) => a.at < t0 + PARKED_FOR_MS).length,
    requestsWhileUnhealthy: parkedRequests.filter(
      (a) =>
        parkedWatch.unhealthyAt !== undefined && a.at > parkedWatch.unhealthyAt && a.at < t0 + PARKED_FOR_MS,
    ).length,
    probationEnds: [...parkedWatch.holds].filter((until) => until < t0 + PARKED_FOR_MS).length,
    throughBacklog: [...rig.storedIds].filter((id) => id.startsWith('p')).length,
    segments: rig.backlog?.store.segmentsWritten.get(PARKED.name) ?? 0,
    lastDeliveredAfterRecoveryHours:
      deliveredAts.length === 0 ? 0 : (Math.max(...deliveredAts) - t0 - PARKED_FOR_MS) / H,
  };
}

/** The simulation's result, once the run is over; `started` is its `performance.now()`. */
export function simulationResultOf(
  rig: SimulationRig,
  published: Published,
  counts: LoopCounts,
  hours: number,
  started: number,
): SimulationResult {
  const { backlog } = rig;
  const { ended, endedByPattern } = endsOf(rig);
  const tally = tallyAttempts(rig.attempts);
  const { byPattern } = tally;
  const parked = parkedResultOf(rig, published.parkedEvents, tally, endedByPattern.get(PARKED.name) ?? {});
  const parkedIds = new Set([...rig.storedIds].filter((id) => id.startsWith('p')));
  return {
    events: published.events,
    simulatedHours: hours,
    wallMs: Math.round(performance.now() - started),
    attempts: tally.attempts,
    delivered: tally.delivered,
    ended,
    waitsChecked: tally.waitsChecked,
    violations: tally.violations,
    maxJitterMs: Math.round(tally.maxJitterMs),
    maxJitterBoundMs: Math.round(tally.maxJitterBoundMs),
    hops: counts.hops,
    sqsSends: rig.queue.messagesSent + published.messages + (backlog?.counts.messagesSent ?? 0),
    backlog: backlog !== undefined,
    early: tally.early,
    heldWaits: tally.heldWaits,
    stored: rig.storedIds.size - parkedIds.size,
    storeInvocations: backlog?.counts.invocations ?? 0,
    ticks: counts.ticks,
    sweeps: backlog?.sweeps.invocations ?? 0,
    parked,
    byPattern: PATTERNS.map((pattern) => ({
      pattern: pattern.name,
      describe: pattern.describe,
      events: published.perPattern.get(pattern.name) ?? 0,
      delivered: byPattern.get(pattern.name)?.delivered ?? 0,
      attempts: byPattern.get(pattern.name)?.attempts ?? 0,
      ended: endedByPattern.get(pattern.name) ?? {},
    })),
  };
}

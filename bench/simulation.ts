/**
 * Deterministic simulation of the retry engine: the real `DeliveryEngine` in virtual time,
 * an in-memory queue that honours SQS delays, and webhooks with scripted failure patterns
 * (`simulation-workload.ts`). A day of retries for a thousand events runs in about a second, and
 * every attempt is checked against the schedule and its jitter bound (`simulation-checks.ts`).
 *
 * With the backlog on (the default), the engine keeps subscriptions' backlogs as on AWS
 * (`virtual-backlog.ts`): long waits and an unhealthy endpoint's events are stored, the backlog
 * queue's consumer stores them a window at a time, ticks ride the retry queue and the sweeper
 * runs every minute. Every attempt is also checked against the due time its event last had when
 * it was queued or stored (never early), and one endpoint parked for hours by 503s shows what its
 * backlog does: a probe per probation, then the drain.
 *
 * The run goes by phase: the set-up in `simulation-rig.ts`, publishing and the run itself in
 * `simulation-loop.ts`, what it reports in `simulation-results.ts`.
 */

import { publishEvents, runSimulationLoop } from './simulation-loop';
import { type SimulationResult, simulationResultOf } from './simulation-results';
import { type SimulationOptions, simulationRig } from './simulation-rig';

export type { ParkedResult, SimulationResult } from './simulation-results';
export type { SimulationOptions } from './simulation-rig';

export async function runSimulation(options: SimulationOptions = {}): Promise<SimulationResult> {
  const started = performance.now();
  const hours = options.hours ?? 48;
  const rig = simulationRig(options);
  const published = publishEvents(rig, options.events ?? 1000, options.parkedEvents ?? 200);
  const counts = await runSimulationLoop(rig, hours);
  return simulationResultOf(rig, published, counts, hours, started);
}

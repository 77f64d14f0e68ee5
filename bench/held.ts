/**
 * What an event costs while its endpoint is dead: the real delivery engine, health tracker,
 * subscription cache and history packing in virtual time, against a webhook that answers 503 to
 * every request, with the `topic` profile at real time scale. A day (and the rest of the event's
 * life) takes well under a second.
 *
 * Counted, from the first receive of the published job until the last event has ended: SQS
 * SendMessageBatch requests (grouped as the job queue groups them), receives and deletes (one
 * receive per batch of messages visible at the same moment, at most ten; empty polls are a cost
 * per queue, not per event, and are left out), delivery invocations (one per received batch),
 * DynamoDB reads and writes (health items and packed history items by their size, subscription
 * reads through the same cache as on AWS) and webhook requests. One delivery worker (one health
 * tracker) handles every job, as a single Lambda instance would. The subscription has no
 * dead-letter destination, so ended events are dropped and cost nothing more.
 *
 * Lambda duration is the one part assumed: any wait the engine sleeps is measured in virtual time
 * (at real time there is none: the last hop is rounded up to a whole second); the rest is
 * {@link ASSUMED_MS}.
 *
 * The run goes by phase: the set-up in `held-rig.ts` (with what it assumes and takes in
 * `held-settings.ts`), what is published in `held-publishes.ts`, the run itself in `held-loop.ts`,
 * what it reports in `held-results.ts`. The counters and the usage by phase are in
 * `held-meters.ts`; the original's schedule, read beside the run, in `original-schedule.ts`.
 */

import { TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { runHeldLoop } from './held-loop';
import type { HeldRun } from './held-meters';
import { HeldPublishes } from './held-publishes';
import { heldRunOf } from './held-results';
import { heldRig } from './held-rig';
import { DEFAULT_LIMITS, type HeldOptions } from './held-settings';
import { originalAttemptTimes } from './original-schedule';

export { ASSUMED_MS, DEAD_STATUS, DEFAULT_LIMITS, EVENT_BYTES, type HeldOptions } from './held-settings';

/**
 * Jobs of `eventsPerJob` events published to a subscription whose endpoint answers 503 to
 * everything (one job at the start, or a stream of them), followed until every event has ended.
 */
export async function runHeld(options: HeldOptions = { eventsPerJob: 1 }): Promise<HeldRun> {
  const started = performance.now();
  const rig = heldRig(options);
  const publishes = new HeldPublishes(options, rig.t0);
  const tally = await runHeldLoop(rig, publishes, options);
  return heldRunOf(rig, publishes, tally, options.eventsPerJob, started);
}

/** The original's attempts in 24 hours for an event that fails every time, by its schedule. */
export const originalAttemptsIn24h = (floorMs = 0): number[] =>
  originalAttemptTimes(TOPIC_PROFILE, DEFAULT_LIMITS, floorMs);

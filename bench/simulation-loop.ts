/**
 * The retry engine simulation's run (`simulation.ts`): the events published over the first hour,
 * then virtual time moved to the next thing due (a message becoming visible, a backlog window
 * closing, a sweep) and that thing run, until nothing is left or the simulated hours are up.
 */

import { processJob } from '../shared/delivery/job-registry';
import { deliveryTargetOf } from '../shared/delivery/target';
import type { DeliveryItem } from '../shared/domain/delivery';
import { packJobs, parseJob } from '../shared/queue/job-codec';
import type { SimulationRig } from './simulation-rig';
import { type EndpointPattern, PATTERNS, simulatedItem } from './simulation-workload';

const H = 60 * 60 * 1000;

/** What was published: events in all and by pattern, the parked endpoint's, and the messages. */
export interface Published {
  events: number;
  perPattern: Map<string, number>;
  parkedEvents: number;
  /** Messages put in the queue. */
  messages: number;
}

/** Jobs the run sent round again (waits over 15 min), and ticks it worked. */
export interface LoopCounts {
  hops: number;
  ticks: number;
}

/**
 * Publishes `eventCount` events, 1 to 10 at a time per pattern, spread over the first hour, then
 * `parkedEvents` to the parked endpoint, 1 to 10 at a time too, all to its one subscription.
 */
export function publishEvents(rig: SimulationRig, eventCount: number, parkedEvents: number): Published {
  const { queue, random, t0 } = rig;
  let published = 0;
  const perPattern = new Map<string, number>();
  while (published < eventCount) {
    const pattern = PATTERNS[published % PATTERNS.length] as EndpointPattern;
    const size = Math.min(eventCount - published, 1 + Math.floor(random() * 10));
    const publishedAt = t0 + Math.floor(random() * H);
    const items: DeliveryItem[] = Array.from({ length: size }, (_, i) =>
      simulatedItem(`e${published + i}`, publishedAt),
    );
    perPattern.set(pattern.name, (perPattern.get(pattern.name) ?? 0) + size);
    for (const item of items) {
      const subscription = rig.subscriptions.for(pattern, item.eventId);
      for (const body of packJobs({ target: deliveryTargetOf(subscription) }, [item])) {
        queue.put(body, publishedAt);
      }
    }
    published += size;
  }
  for (let parked = 0; parked < parkedEvents; ) {
    const size = Math.min(parkedEvents - parked, 1 + Math.floor(random() * 10));
    const publishedAt = t0 + Math.floor(random() * H);
    const items = Array.from({ length: size }, (_, i) => simulatedItem(`p${parked + i}`, publishedAt));
    for (const body of packJobs({ target: deliveryTargetOf(rig.subscriptions.parked) }, items)) {
      queue.put(body, publishedAt);
    }
    rig.dues.note(items, publishedAt, false);
    parked += size;
  }
  return { events: published, perPattern, parkedEvents, messages: queue.size };
}

/** Runs until nothing is left to do or `hours` are up. */
export async function runSimulationLoop(rig: SimulationRig, hours: number): Promise<LoopCounts> {
  const { clock, queue, backlog, worker } = rig;
  const counts: LoopCounts = { hops: 0, ticks: 0 };
  const end = rig.t0 + hours * H;
  const run = { attemptDeadline: Number.MAX_SAFE_INTEGER };
  for (;;) {
    const nextJob = queue.nextVisibleAt();
    const closes = backlog?.windowClosesAt();
    const idle = nextJob === undefined && closes === undefined;
    if (backlog === undefined || (idle && !(await backlog.store.hasWakes()))) {
      if (nextJob === undefined || nextJob > end) break;
    }
    const sweepAt = backlog?.nextSweepAt() ?? Number.POSITIVE_INFINITY;
    const at = Math.min(nextJob ?? Number.POSITIVE_INFINITY, closes ?? Number.POSITIVE_INFINITY, sweepAt);
    if (at > end) break;
    clock.advanceTo(at);
    if (backlog !== undefined && closes === at) {
      await backlog.closeWindow(worker);
    } else if (nextJob === at) {
      const [message] = queue.receive(1);
      const job = parseJob((message as { body: string }).body);
      if (job.kind === 'backlog-tick') counts.ticks += 1;
      const report = await processJob(worker, job, run);
      if (report.hopped) counts.hops += 1;
    } else if (backlog !== undefined) {
      await backlog.sweep(worker, at);
    }
  }
  // The simulated subscriptions have no dead-letter destination: ended events are dropped (and
  // counted) by the engine; nothing reaches the ended-delivery queue.
  if (queue.ended.length > 0)
    throw new Error('no dead-letter destination is set, yet events were dead-lettered');
  return counts;
}

/**
 * The held-for-a-day bench's run (`held.ts`): virtual time moves to the next thing due (a
 * publish, a backlog window closing, a sweep, or messages becoming visible) and that thing runs,
 * its usage metered to the phase of a held event's life it belongs to (`held-meters.ts`), until
 * every event has ended.
 */
import { attemptDeadline } from '../functions/delivery';
import { FUNCTIONS } from '../shared/config/resources';
import { processJob } from '../shared/delivery/job-registry';
import { packJobs, parseJob } from '../shared/queue/job-codec';
import { billedGbSeconds } from './cost';
import { storeCallMs } from './counting-backlog-store';
import { addMeter, emptyMeter, type HeldPhase, type HeldRun, type Meter } from './held-meters';
import type { HeldPublishes } from './held-publishes';
import { type HeldRig, meterNow } from './held-rig';
import { ASSUMED_MS, type HeldOptions } from './held-settings';
import { diffCounts, type VirtualBacklog } from './virtual-backlog';

const H = 3600 * 1000;

/** What the run counted besides the rig's own counters. */
export interface HeldTally {
  /** Usage by phase of a held event's life; the sweeps' apart (a cost of the stack). */
  phases: Record<HeldPhase, Meter>;
  sweepMeter: Meter;
  lambda: HeldRun['lambda'];
  hops: number;
  /** Ticks worked, and those that found the endpoint held and did nothing else. */
  ticks: number;
  holdingTicks: number;
  /** Messages received from the delivery and retry queues. */
  messagesReceived: number;
  lastEndedAt: number;
}

/** What the jobs of one received batch took, for the invocation that runs them. */
interface BatchWork {
  longestMs: number;
  storeMs: number;
  /** Each job's phase, in the batch's order. */
  phases: HeldPhase[];
  /** The jobs' own usage (the batch's receive, delete and invocation apart). */
  meter: Meter;
}

/** Runs until every event has ended (the backlog's storage then settled); what it counted. */
export async function runHeldLoop(
  rig: HeldRig,
  publishes: HeldPublishes,
  options: HeldOptions,
): Promise<HeldTally> {
  const { clock, queue, backlog } = rig;
  const tally: HeldTally = {
    phases: { into: emptyMeter(), holding: emptyMeter(), wakes: emptyMeter() },
    sweepMeter: emptyMeter(),
    lambda: { invocations: 0, invocationsWithRequests: 0, sleptMs: 0, gbSeconds: 0 },
    hops: 0,
    ticks: 0,
    holdingTicks: 0,
    messagesReceived: 0,
    lastEndedAt: rig.t0,
  };
  const heldPublishes = options.heldPublishes ?? true;
  const end = rig.t0 + (options.maxHours ?? 72) * H;
  for (;;) {
    const publishAt = publishes.nextAt();
    const nextJob = queue.nextVisibleAt();
    const closes = backlog?.windowClosesAt();
    if (publishAt === undefined && nextJob === undefined && closes === undefined) {
      if (backlog === undefined || !(await backlog.store.hasWakes())) break;
    }
    const sweepAt = backlog?.nextSweepAt() ?? Number.POSITIVE_INFINITY;
    const at = Math.min(
      publishAt ?? Number.POSITIVE_INFINITY,
      nextJob ?? Number.POSITIVE_INFINITY,
      closes ?? Number.POSITIVE_INFINITY,
      sweepAt,
    );
    if (at > end) throw new Error(`events still pending after ${options.maxHours ?? 72} hours`);
    clock.advanceTo(at);
    if (publishAt === at) await publish(rig, publishes, tally, at, heldPublishes);
    else if (backlog !== undefined && closes === at) await closeWindow(rig, backlog, tally);
    else if (nextJob !== at) {
      if (backlog === undefined) throw new Error('a sweep without a backlog');
      await sweep(rig, backlog, tally, at);
    } else await receiveBatch(rig, tally);
  }
  backlog?.store.settleStorage();
  return tally;
}

/**
 * The next job, as the publisher sends it: to a held subscription's backlog, or to the delivery
 * queue. The publisher's read of the marks (once per subscription-list version) is a cost of
 * getting in. Publishes are put in the queue as their time comes (not counted as sends).
 */
async function publish(
  rig: HeldRig,
  publishes: HeldPublishes,
  tally: HeldTally,
  at: number,
  heldPublishes: boolean,
): Promise<void> {
  const { backlog, target } = rig;
  const items = publishes.items(at);
  const before = meterNow(rig);
  const held = backlog !== undefined && heldPublishes && (await backlog.publish(target, items, at));
  addMeter(tally.phases.into, diffCounts(meterNow(rig), before));
  if (!held) for (const body of packJobs({ target }, items)) rig.queue.put(body, at);
  if (held) publishes.heldPublished += 1;
  publishes.published += 1;
}

/** The backlog queue's window closes: one invocation stores what it gathered. */
async function closeWindow(rig: HeldRig, backlog: VirtualBacklog, tally: HeldTally): Promise<void> {
  const before = meterNow(rig);
  const durationMs = await backlog.closeWindow(rig.worker);
  const delta = diffCounts(meterNow(rig), before);
  delta.invocations = 1;
  delta.gbSeconds = billedGbSeconds('delivery', durationMs);
  tally.lambda.invocations += 1;
  tally.lambda.gbSeconds += delta.gbSeconds;
  addMeter(tally.phases.into, delta);
}

/** A sweep of the backlogs' wakes: metered apart, as a cost of the stack. */
async function sweep(rig: HeldRig, backlog: VirtualBacklog, tally: HeldTally, at: number): Promise<void> {
  const before = meterNow(rig);
  const sweepsBefore = backlog.sweeps.durationMs;
  await backlog.sweep(rig.worker, at);
  const delta = diffCounts(meterNow(rig), before);
  delta.invocations = 1;
  delta.gbSeconds = billedGbSeconds('delivery', backlog.sweeps.durationMs - sweepsBefore);
  addMeter(tally.sweepMeter, delta);
}

/**
 * One delivery invocation: the messages visible now received, each job run, the batch deleted.
 * Billed for its longest job, its store calls and the assumed rest; what it costs besides its jobs
 * (its receive and delete, the invocation) is shared by its jobs' phases.
 */
async function receiveBatch(rig: HeldRig, tally: HeldTally): Promise<void> {
  const { queue, requestTimes } = rig;
  const beforeReceive = meterNow(rig);
  const batch = queue.receive();
  tally.messagesReceived += batch.length;
  const requestsBefore = requestTimes.length;
  const work: BatchWork = { longestMs: 0, storeMs: 0, phases: [], meter: emptyMeter() };
  for (const message of batch) await runJob(rig, tally, message.body, work);
  queue.delete();
  const withRequests = requestTimes.length > requestsBefore;
  const gbSeconds = billedGbSeconds(
    'delivery',
    work.longestMs + ASSUMED_MS.perInvocation + (withRequests ? ASSUMED_MS.webhookAnswer : 0) + work.storeMs,
  );
  tally.lambda.invocations += 1;
  if (withRequests) tally.lambda.invocationsWithRequests += 1;
  tally.lambda.sleptMs += work.longestMs;
  tally.lambda.gbSeconds += gbSeconds;
  const shared = diffCounts(diffCounts(meterNow(rig), beforeReceive), work.meter);
  shared.invocations = 1;
  shared.gbSeconds = gbSeconds;
  for (const phase of work.phases) addMeter(tally.phases[phase], shared, 1 / work.phases.length);
}

/**
 * One job of a batch, run by the worker and metered to its phase: a tick that found the endpoint
 * held and did nothing else is holding, any other tick a wake, every other job getting in.
 */
async function runJob(rig: HeldRig, tally: HeldTally, body: string, work: BatchWork): Promise<void> {
  const { clock, backlog, requestTimes } = rig;
  const startedAt = clock.now();
  const job = parseJob(body);
  const before = meterNow(rig);
  const storeBefore = backlog === undefined ? undefined : { ...backlog.store.counts };
  const jobRequestsBefore = requestTimes.length;
  const report = await processJob(rig.worker, job, {
    attemptDeadline: attemptDeadline(startedAt, {
      getRemainingTimeInMillis: () => FUNCTIONS.delivery.timeoutSeconds * 1000,
    }),
  });
  if (report.hopped) tally.hops += 1;
  if (report.ended > 0) tally.lastEndedAt = clock.now();
  work.longestMs = Math.max(work.longestMs, clock.now() - startedAt);
  if (backlog !== undefined && storeBefore !== undefined) {
    work.storeMs += storeCallMs(diffCounts(backlog.store.counts, storeBefore));
  }
  let phase: HeldPhase = 'into';
  if (job.kind === 'backlog-tick') {
    tally.ticks += 1;
    const idle =
      report.delivered + report.retried + report.ended + report.stored === 0 &&
      requestTimes.length === jobRequestsBefore;
    if (idle) tally.holdingTicks += 1;
    phase = idle ? 'holding' : 'wakes';
  }
  work.phases.push(phase);
  const delta = diffCounts(meterNow(rig), before);
  addMeter(tally.phases[phase], delta);
  addMeter(work.meter, delta);
}

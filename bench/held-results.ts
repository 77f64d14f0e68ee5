/**
 * What a held-for-a-day run (`held.ts`) reports: the events' ends read from the engine's metrics
 * (every event must have ended), the SQS, DynamoDB and Lambda counts, what the backlogs did, and
 * the usage for the cost model, in all and by phase.
 */
import { METRIC, type MetricBuffer } from '../shared/observability/metrics';
import type { Usage } from './cost';
import type { HeldTally } from './held-loop';
import {
  addMeter,
  emptyMeter,
  HELD_PHASES,
  type HeldBacklogCounts,
  type HeldRun,
  type Meter,
  usageOfMeter,
} from './held-meters';
import type { HeldPublishes } from './held-publishes';
import type { HeldRig } from './held-rig';
import type { VirtualBacklog } from './virtual-backlog';

const H = 3600 * 1000;

/** The run's counts as reported, once every event has ended; `started` is its `performance.now()`. */
export function heldRunOf(
  rig: HeldRig,
  publishes: HeldPublishes,
  tally: HeldTally,
  eventsPerJob: number,
  started: number,
): HeldRun {
  const { ended, holds } = endsOf(rig.metrics);
  const eventCount = publishes.events;
  const endedCount = Object.values(ended).reduce((sum, count) => sum + count, 0);
  if (endedCount !== eventCount)
    throw new Error(`${endedCount} of ${eventCount} events ended; the rest are unaccounted for`);
  const dynamo = dynamoCountsOf(rig);
  const total = emptyMeter();
  for (const phase of HELD_PHASES) addMeter(total, tally.phases[phase]);
  const storageByteMs = rig.backlog?.store.counts.s3ByteMs ?? 0;
  return {
    eventsPerJob,
    events: eventCount,
    lastEndedAfterHours: (tally.lastEndedAt - rig.t0) / H,
    ended,
    webhookRequests: rig.requestTimes.length,
    webhookRequestsIn24h: rig.requestTimes.filter((at) => at - rig.t0 < 24 * H).length,
    hops: tally.hops,
    holds,
    sqs: sqsCountsOf(rig, tally.messagesReceived),
    dynamo,
    lambda: tally.lambda,
    backlog:
      rig.backlog === undefined
        ? undefined
        : backlogCountsOf(rig, rig.backlog, publishes, tally, dynamo, eventCount),
    usage: usageOfMeter(total, eventCount, storageByteMs),
    wallMs: Math.round(performance.now() - started),
  };
}

/** Events ended, by reason, and holds (events sent back without an attempt), from the engine's metrics. */
function endsOf(metrics: MetricBuffer): { ended: Record<string, number>; holds: number } {
  const ended: Record<string, number> = {};
  let holds = 0;
  for (const point of metrics.drain()) {
    const count = point.values.reduce((sum, value) => sum + value, 0);
    if (point.name === METRIC.DroppedEventCount) {
      const reason = point.dimensions.DropReason ?? '?';
      ended[reason] = (ended[reason] ?? 0) + count;
    }
    if (point.name === METRIC.DeliveryHeldCount) holds += count;
  }
  return { ended, holds };
}

function dynamoCountsOf(rig: HeldRig): HeldRun['dynamo'] {
  const { healthStore, history } = rig;
  return {
    healthWrites: healthStore.writes,
    healthWriteConflicts: healthStore.conflicts,
    healthWriteUnits: healthStore.writeUnits,
    healthReadUnits: healthStore.readUnits,
    subscriptionReadUnits: rig.subscriptionReads.units,
    historyItems: history.items,
    historyWriteUnits: history.units,
    historyRequests: history.requests,
  };
}

/** SQS requests of the delivery and retry queues and, with backlogs, of the backlog queue. */
function sqsCountsOf(rig: HeldRig, messagesReceived: number): HeldRun['sqs'] {
  const { queue, backlog } = rig;
  return {
    sendRequests: queue.sendRequests + (backlog?.counts.sendRequests ?? 0),
    receiveRequests: queue.receiveRequests + (backlog?.counts.receiveRequests ?? 0),
    deleteRequests: queue.deleteRequests + (backlog?.counts.deleteRequests ?? 0),
    billedRequests: queue.billedRequests + (backlog?.counts.billedRequests ?? 0),
    messagesSent: queue.messagesSent + (backlog?.counts.messagesSent ?? 0),
    messagesPerReceive: queue.receiveRequests === 0 ? 0 : messagesReceived / queue.receiveRequests,
  };
}

/** What the backlogs did, their writes per held event, and the usage by phase (segment storage: holding). */
function backlogCountsOf(
  rig: HeldRig,
  backlog: VirtualBacklog,
  publishes: HeldPublishes,
  tally: HeldTally,
  dynamo: HeldRun['dynamo'],
  eventCount: number,
): HeldBacklogCounts {
  const store = backlog.store.counts;
  const usageOf = (meter: Meter, storageByteMs: number): Usage =>
    usageOfMeter(meter, eventCount, storageByteMs);
  const backlogWrites = store.indexWrites + store.metaWrites + backlog.heldMarks.counts.writes;
  const heldEvents = Math.max(1, rig.heldIds.size);
  return {
    heldEvents: rig.heldIds.size,
    queue: { ...backlog.counts },
    store: { ...store },
    ticks: tally.ticks,
    holdingTicks: tally.holdingTicks,
    sweeps: { ...backlog.sweeps },
    eventsPerSegment: store.segments === 0 ? 0 : store.segmentEvents / store.segments,
    publishesToBacklog: publishes.heldPublished,
    publishes: publishes.published,
    heldMarks: { ...backlog.heldMarks.counts },
    backlogWritesPerHeldEvent: backlogWrites / heldEvents,
    writesPerHeldEvent: (backlogWrites + dynamo.healthWrites + dynamo.historyItems) / heldEvents,
    phases: {
      into: usageOf(tally.phases.into, 0),
      holding: usageOf(tally.phases.holding, store.s3ByteMs),
      wakes: usageOf(tally.phases.wakes, 0),
    },
    sweepUsage: usageOf(tally.sweepMeter, 0),
  };
}

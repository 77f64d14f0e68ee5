/**
 * What an event held for a day costs: the real engine in virtual time against an endpoint
 * answering 503 all day, every request counted and priced, beside the original's attempts.
 */
import { TOPIC_PROFILE } from '../../shared/delivery/rules/profiles';
import { type CostBreakdown, costPerMillionEvents } from '../cost';
import { ASSUMED_CALL_MS } from '../counting-backlog-store';
import { round } from '../harness/figures';
import { log } from '../harness/log';
import type { Figure, Scenario, ScenarioResult } from '../harness/types';
import { ASSUMED_MS, EVENT_BYTES, originalAttemptsIn24h, runHeld } from '../held';
import { HELD_PHASES, type HeldPhase, type HeldRun } from '../held-meters';
import { humanDuration } from '../original-schedule';
import { PRICES } from '../prices';
import { SWEEP_EVERY_MS } from '../virtual-backlog';

/** Events per endpoint-day of the stream runs. */
export const STREAM_EVENTS = 100_000;

const PHASE_NAMES: Record<HeldPhase, string> = {
  into: 'into the backlog',
  holding: 'holding',
  wakes: 'wakes',
};

/** The runs compared: lone jobs before and after backlogs, the streams, and a stream through the delivery queue. */
interface HeldRuns {
  before: { single: HeldRun; hundred: HeldRun };
  after: { single: HeldRun; hundred: HeldRun };
  stream: { single: HeldRun; hundred: HeldRun };
  /**
   * The same 1-event stream with every publish sent to the delivery queue, as before publishers
   * sent a held subscription's publishes straight to its backlog.
   */
  queuedPublishes: HeldRun;
}

/** The original's schedule: its attempts in 24 hours, with and without the 30 s floor after a 503. */
interface Original {
  attempts: number[];
  with503Floor: number[];
  eventGridPerMillion: number;
}

async function heldRuns(streamEvents: number): Promise<HeldRuns> {
  log(
    'held 24 h: one event, and a job of 100, to an endpoint answering 503 all day (virtual time), before and after backlogs',
  );
  const before = {
    single: await runHeld({ eventsPerJob: 1 }),
    hundred: await runHeld({ eventsPerJob: 100 }),
  };
  const after = {
    single: await runHeld({ eventsPerJob: 1, backlog: true }),
    hundred: await runHeld({ eventsPerJob: 100, backlog: true }),
  };
  log(
    `held 24 h: ${streamEvents.toLocaleString('en-US')} events a day to one such endpoint, in 1-event and 100-event publishes, with backlogs`,
  );
  const stream = {
    single: await runHeld({ eventsPerJob: 1, backlog: true, streamEvents }),
    hundred: await runHeld({ eventsPerJob: 100, backlog: true, streamEvents }),
  };
  const queuedPublishes = await runHeld({
    eventsPerJob: 1,
    backlog: true,
    streamEvents,
    heldPublishes: false,
  });
  return { before, after, stream, queuedPublishes };
}

function originalSchedule(): Original {
  const attempts = originalAttemptsIn24h();
  return {
    attempts,
    with503Floor: originalAttemptsIn24h(TOPIC_PROFILE.statusFloorsMs[503]),
    eventGridPerMillion: attempts.length * PRICES.eventGrid.perOperation * 1_000_000,
  };
}

const cost = (run: HeldRun) => costPerMillionEvents(run.usage).total;
const fmt = (value: number, digits = 2) => round(value, digits).toLocaleString('en-US');
const sqsPerEvent = (run: HeldRun) =>
  (run.sqs.sendRequests + run.sqs.receiveRequests + run.sqs.deleteRequests) / run.events;
const invocationsPerEvent = (run: HeldRun) => run.lambda.invocations / run.events;
// Before backlogs nothing is held in one: every event of these runs is held on the retry queue.
const writesPerHeldEvent = (run: HeldRun) =>
  run.backlog?.writesPerHeldEvent ?? (run.dynamo.healthWrites + run.dynamo.historyItems) / run.events;
const requestsIn24h = (run: HeldRun) => run.webhookRequestsIn24h / run.events;
const perMillion = (breakdown: CostBreakdown) =>
  Object.fromEntries(Object.entries(breakdown).map(([k, v]) => [k, round(v, 4)]));
const phaseCosts = (run: HeldRun) =>
  HELD_PHASES.map((phase) => costPerMillionEvents(run.backlog?.phases[phase] ?? run.usage).total);
const split = (run: HeldRun) =>
  `${fmt(cost(run), 3)} (${phaseCosts(run)
    .map((value) => fmt(value, 3))
    .join(' / ')})`;
const sweepDollarsPerDay = (run: HeldRun) => {
  const sweeps = run.backlog?.sweepUsage;
  if (sweeps === undefined || sweeps.lambda.delivery.invocations === 0) return 0;
  const dollars = (costPerMillionEvents(sweeps).total * run.events) / 1_000_000;
  return (dollars / sweeps.lambda.delivery.invocations) * ((24 * 60 * 60_000) / SWEEP_EVERY_MS);
};
const goal = (limit: number, value: number) => ({ goal: `<= ${limit}`, met: value <= limit });
const streamWindowFill = (run: HeldRun) =>
  run.backlog === undefined || run.backlog.queue.invocations === 0
    ? 0
    : run.backlog.queue.messagesSent / run.backlog.queue.invocations;

/** A run in the details: what it counted, its cost per million events (and by phase, with backlogs). */
function runDetails(run: HeldRun) {
  const { usage, ...rest } = run;
  return {
    ...rest,
    costPerMillion: perMillion(costPerMillionEvents(usage)),
    ...(run.backlog === undefined
      ? {}
      : {
          phaseCostsPerMillion: Object.fromEntries(
            HELD_PHASES.map((phase) => [
              PHASE_NAMES[phase],
              perMillion(costPerMillionEvents(run.backlog?.phases[phase] ?? usage)),
            ]),
          ),
          sweepDollarsPerDay: round(sweepDollarsPerDay(run), 4),
        }),
  };
}

function heldDescription(streamEvents: number, original: Original): string {
  const streamDays = streamEvents / STREAM_EVENTS;
  return `An event (${EVENT_BYTES.toLocaleString('en-US')} bytes as published) sent to a subscription (default limits: 30 attempts, 24 h) whose webhook answers 503 to every request for the whole day, in virtual time: the real engine, health tracker and subscription cache, one delivery worker, the \`topic\` profile at time scale 1, no dead-letter destination. BEFORE: the engine without backlogs (every wait and hold rides the retry queue); AFTER: with backlogs as on AWS (\`bench/virtual-backlog.ts\`: an unhealthy endpoint's events and waits over 20 min stored; the backlog queue's consumer storing what a 60 s window gathers, up to 10,000 messages or 6 MiB, in one invocation; ticks on the retry queue; a sweep every minute). The lone-job runs publish one job of 1 event, or one of 100: they compare before and after, but the goals (per million events) are judged on the streams, since a lone event pays its own first receive and a day of its endpoint's probes alone. The stream runs publish ${streamEvents.toLocaleString('en-US')} events evenly over ${fmt(24 * streamDays, 1)} h (${STREAM_EVENTS.toLocaleString('en-US')} per endpoint-day) to one such endpoint, as 1-event publishes and as 100-event publishes; the delivery queue's receives take what is visible at one moment, up to 10 (f_d, messages per receive, is measured: evenly spaced publishes arrive one at a time), and the backlog window's fill is measured as messages per store invocation. Publishes go where the publisher sends them: once the backlog has marked the subscription held (its first tick that finds the endpoint unhealthy), straight to the backlog queue, the publisher's reads of the held marks (a query beside the subscription list's, once per subscription-list version) counted; a third 1-event stream sends every publish through the delivery queue, for comparison. Counted from the first receive of a published job until every event ended: SQS sends (as the job queue batches them), receives and deletes (the backlog queue's receives take what was sent at one moment, up to 10; its deletes go 10 at a time), delivery invocations (store windows and ticks included), DynamoDB reads and writes (health, packed history, backlog index items and META with the timer index's writes, by item size; failed conditional writes billed), S3 PUTs, GETs, DELETEs (free) and storage of segments, webhook requests. DynamoDB writes per held event are every write request (health, history, backlog index items, META and held marks with their topic's version) over the events held in a backlog; before backlogs, health and history writes per event. Sweeps (every minute while any backlog has a wake) are a cost of the stack, not of its events: given apart in $ per day. The cost split: "into the backlog" is every delivery job (the held events' first receives, their attempts before the endpoint turned unhealthy, the store jobs), the publishers' reads of the held marks and the store invocations; "holding" is segment storage and the ticks that found the endpoint held (or were stale continuations) and did nothing else; "wakes" the ticks that probed, ended expired events, stored probed events back, or drained. Lambda duration: any waits the engine sleeps, measured in virtual time, plus an assumed ${ASSUMED_MS.perInvocation} ms per invocation, ${ASSUMED_MS.webhookAnswer} ms more when it makes requests, and ${ASSUMED_CALL_MS.s3} ms per S3 call and ${ASSUMED_CALL_MS.dynamo} ms per backlog DynamoDB call. Publishing is not counted, here or for the original. The original's schedule (${TOPIC_PROFILE.retryDelaysMs.map(humanDuration).join(', ')}, then every ${humanDuration(TOPIC_PROFILE.repeatDelayMs)}; at most 30 attempts, 24 h) attempts at ${original.attempts.map(humanDuration).join(', ')}: ${original.attempts.length} attempts in 24 h (${original.with503Floor.length} with the 30 s floor after a 503), each billed as an operation at $${(PRICES.eventGrid.perOperation * 1_000_000).toFixed(2)} per million.`;
}

/** The lone jobs of 1 and of 100 events, before / after backlogs. */
function loneJobFigures({ before, after }: HeldRuns): Figure[] {
  const beforeAfter = (f: (run: HeldRun) => number, which: 'single' | 'hundred', digits = 2) =>
    `${fmt(f(before[which]), digits)} / ${fmt(f(after[which]), digits)}`;
  return [
    {
      metric: 'lone job: modelled AWS cost per million events held, 1-event jobs, before / after',
      value: beforeAfter(cost, 'single'),
      unit: 'USD',
    },
    {
      metric: 'lone job: modelled AWS cost per million events held, 100-event jobs, before / after',
      value: beforeAfter(cost, 'hundred'),
      unit: 'USD',
    },
    {
      metric: 'SQS requests per event, 1-event jobs, before / after',
      value: beforeAfter(sqsPerEvent, 'single'),
      unit: 'requests',
    },
    {
      metric: 'SQS requests per event, 100-event jobs, before / after',
      value: beforeAfter(sqsPerEvent, 'hundred'),
      unit: 'requests',
    },
    {
      metric: 'delivery invocations per event, 1-event jobs, before / after',
      value: beforeAfter(invocationsPerEvent, 'single'),
      unit: 'invocations',
    },
    {
      metric: 'delivery invocations per event, 100-event jobs, before / after',
      value: beforeAfter(invocationsPerEvent, 'hundred', 3),
      unit: 'invocations',
    },
    {
      metric: 'lone job: DynamoDB writes per held event, 1-event jobs, before / after',
      value: beforeAfter(writesPerHeldEvent, 'single'),
      unit: 'writes',
    },
    {
      metric: 'lone job: DynamoDB writes per held event, 100-event jobs, before / after',
      value: beforeAfter(writesPerHeldEvent, 'hundred'),
      unit: 'writes',
    },
    {
      metric: 'webhook requests per event in 24 h, 1-event jobs, before / after',
      value: beforeAfter(requestsIn24h, 'single'),
      unit: 'requests',
    },
    {
      metric: 'webhook requests per event in 24 h, 100-event jobs, before / after',
      value: beforeAfter(requestsIn24h, 'hundred'),
      unit: 'requests',
    },
  ];
}

/** A stream (of 1-event or 100-event publishes), where the goals are judged. */
function streamFigures(run: HeldRun, which: 'single' | 'hundred'): Figure[] {
  const label = `stream of ${STREAM_EVENTS.toLocaleString('en-US')} events/day in ${which === 'single' ? '1-event' : '100-event'} publishes`;
  return [
    {
      metric: `${label}: cost per million events (into the backlog / holding / wakes)`,
      value: split(run),
      unit: 'USD',
      ...goal(which === 'single' ? 1 : 0.5, cost(run)),
    },
    {
      metric: `${label}: DynamoDB writes per held event (all / backlog's own)`,
      value: `${fmt(writesPerHeldEvent(run), 3)} / ${fmt(run.backlog?.backlogWritesPerHeldEvent ?? 0, 3)}`,
      unit: 'writes',
      ...goal(0.1, writesPerHeldEvent(run)),
    },
    {
      metric: `${label}: events per segment / messages per store invocation / f_d (messages per delivery-queue receive)`,
      value: `${fmt(run.backlog?.eventsPerSegment ?? 0, 1)} / ${fmt(streamWindowFill(run), 1)} / ${fmt(run.sqs.messagesPerReceive, 2)}`,
      unit: '',
    },
    {
      metric: `${label}: SQS requests / delivery invocations per event; webhook requests in 24 h in all`,
      value: `${fmt(sqsPerEvent(run), 3)} / ${fmt(invocationsPerEvent(run), 3)}; ${run.webhookRequestsIn24h}`,
      unit: '',
    },
    {
      metric: `${label}: publishes sent straight to the backlog (the subscription held), of all`,
      value: `${(run.backlog?.publishesToBacklog ?? 0).toLocaleString('en-US')} of ${(run.backlog?.publishes ?? 0).toLocaleString('en-US')}`,
      unit: 'publishes',
    },
  ];
}

function heldFigures(runs: HeldRuns, original: Original): Figure[] {
  return [
    ...loneJobFigures(runs),
    ...(['single', 'hundred'] as const).flatMap((which) => streamFigures(runs.stream[which], which)),
    {
      metric: `stream of ${STREAM_EVENTS.toLocaleString('en-US')} events/day in 1-event publishes, every publish through the delivery queue: cost per million events (into the backlog / holding / wakes)`,
      value: split(runs.queuedPublishes),
      unit: 'USD',
    },
    {
      metric: 'sweeps (every minute, a cost of the stack whatever the traffic)',
      value: round(sweepDollarsPerDay(runs.stream.single), 4),
      unit: 'USD/day',
    },
    {
      metric: 'delivery attempts per event in 24 h, original',
      value: original.attempts.length,
      unit: 'attempts',
    },
    {
      metric: `original: ${original.attempts.length} attempts x $${(PRICES.eventGrid.perOperation * 1_000_000).toFixed(2)} per million operations`,
      value: round(original.eventGridPerMillion, 2),
      unit: 'USD',
    },
  ];
}

function heldDetails({ before, after, stream, queuedPublishes }: HeldRuns, original: Original) {
  return {
    originalAttemptTimesSeconds: original.attempts.map((ms) => ms / 1000),
    eventGrid: { perMillionEvents: round(original.eventGridPerMillion, 2), source: PRICES.eventGrid.source },
    assumedMs: { ...ASSUMED_MS, backlogCalls: ASSUMED_CALL_MS },
    before: { single: runDetails(before.single), hundred: runDetails(before.hundred) },
    after: { single: runDetails(after.single), hundred: runDetails(after.hundred) },
    stream: {
      single: runDetails(stream.single),
      hundred: runDetails(stream.hundred),
      singleThroughDeliveryQueue: runDetails(queuedPublishes),
    },
    prices: { source: PRICES.source, takenOn: PRICES.takenOn },
  };
}

/**
 * An event held for a day: one job of 1 event, and one of 100, to a subscription whose endpoint
 * answers 503 for 24 hours, in virtual time with the real engine, before backlogs (the engine
 * without one) and after (with them, as on AWS); and a stream of {@link STREAM_EVENTS} events
 * a day to such an endpoint, with backlogs. Every request counted and priced, beside what the
 * original bills for its attempts.
 */
async function measureHeld(options: { streamEvents: number }): Promise<ScenarioResult> {
  const runs = await heldRuns(options.streamEvents);
  const original = originalSchedule();
  return {
    name: 'held 24 h',
    description: heldDescription(options.streamEvents, original),
    figures: heldFigures(runs, original),
    details: heldDetails(runs, original),
  };
}

export const held24h: Scenario = {
  name: 'held-24h',
  description:
    'events held for a day by an endpoint answering 503, before and after backlogs, in virtual time, counted and priced',
  uses: [],
  // A quick run streams a tenth of an endpoint-day.
  run: async ({ quick }) => ({
    results: [await measureHeld({ streamEvents: quick ? STREAM_EVENTS / 10 : STREAM_EVENTS })],
  }),
};

/**
 * What an event held for a day costs: the real engine in virtual time against an endpoint
 * answering 503 all day, every request counted and priced, beside the original's attempts.
 */
import { TOPIC_PROFILE } from '../../shared/delivery/rules/profiles';
import { type CostBreakdown, costPerMillionEvents } from '../cost';
import { round } from '../harness/figures';
import { log } from '../harness/log';
import type { Scenario, ScenarioResult } from '../harness/types';
import {
  ASSUMED_MS,
  EVENT_BYTES,
  type HeldRun,
  humanDuration,
  originalAttemptsIn24h,
  runHeld,
} from '../held';
import { PRICES } from '../prices';

/**
 * An event held for a day: one job of 1 event, and one of 100, to a subscription whose endpoint
 * answers 503 for 24 hours, in virtual time with the real engine; every request counted and
 * priced, beside what the original bills for its attempts.
 */
async function measureHeld(): Promise<ScenarioResult> {
  log('held 24 h: one event, and a job of 100, to an endpoint answering 503 all day (virtual time)');
  const single = await runHeld({ eventsPerJob: 1 });
  const hundred = await runHeld({ eventsPerJob: 100 });
  const original = originalAttemptsIn24h();
  const originalWith503Floor = originalAttemptsIn24h(TOPIC_PROFILE.statusFloorsMs[503]);
  const eventGridPerMillion = original.length * PRICES.eventGrid.perOperation * 1_000_000;
  const costs = {
    '1-event jobs': costPerMillionEvents(single.usage),
    '100-event jobs': costPerMillionEvents(hundred.usage),
  };
  const both = (f: (run: HeldRun) => number, digits = 2) =>
    `${round(f(single), digits).toLocaleString('en-US')} / ${round(f(hundred), digits).toLocaleString('en-US')}`;
  const sqsPerEvent = (run: HeldRun) =>
    (run.sqs.sendRequests + run.sqs.receiveRequests + run.sqs.deleteRequests) / run.events;
  const writesPerEvent = (run: HeldRun) => (run.dynamo.healthWrites + run.dynamo.historyItems) / run.events;
  const perMillion = (breakdown: CostBreakdown) =>
    Object.fromEntries(Object.entries(breakdown).map(([k, v]) => [k, round(v, 4)]));
  const { usage: _s, ...singleDetails } = single;
  const { usage: _h, ...hundredDetails } = hundred;
  return {
    name: 'held 24 h',
    description: `An event (${EVENT_BYTES.toLocaleString('en-US')} bytes as published) sent to a subscription (default limits: 30 attempts, 24 h) whose webhook answers 503 to every request for the whole day, as one job of 1 event and as one job of 100, in virtual time: the real engine, health tracker and subscription cache, one delivery worker, the \`topic\` profile at time scale 1, no dead-letter destination. Counted from the first receive of the published job until every event ended: SQS sends (as the job queue batches them), receives (one per batch) and deletes, delivery invocations, DynamoDB reads and writes (health, packed history, by item size) and webhook requests. Lambda duration: any waits the engine sleeps (none at real time: SQS delays are rounded up to whole seconds), measured in virtual time, plus an assumed ${ASSUMED_MS.perInvocation} ms per invocation and ${ASSUMED_MS.webhookAnswer} ms more when it makes requests. Publishing is not counted, here or for the original. The original's schedule (${TOPIC_PROFILE.retryDelaysMs.map(humanDuration).join(', ')}, then every ${humanDuration(TOPIC_PROFILE.repeatDelayMs)}; at most 30 attempts, 24 h) attempts at ${original.map(humanDuration).join(', ')}: ${original.length} attempts in 24 h (${originalWith503Floor.length} with the 30 s floor after a 503), each billed as an operation at $${(PRICES.eventGrid.perOperation * 1_000_000).toFixed(2)} per million.`,
    figures: [
      {
        metric: 'webhook requests per event in 24 h, 1-event / 100-event jobs',
        value: both((run) => run.webhookRequestsIn24h / run.events),
        unit: 'requests',
      },
      { metric: 'delivery attempts per event in 24 h, original', value: original.length, unit: 'attempts' },
      {
        metric: 'SQS requests per event, 1-event / 100-event jobs',
        value: both(sqsPerEvent),
        unit: 'requests',
      },
      {
        metric: 'delivery invocations per event, 1-event / 100-event jobs',
        value: both((run) => run.lambda.invocations / run.events),
        unit: 'invocations',
      },
      {
        metric: 'DynamoDB writes (health + history) per event, 1-event / 100-event jobs',
        value: both(writesPerEvent),
        unit: 'writes',
      },
      {
        metric: 'last event ended (time to live checked when due), 1-event / 100-event jobs',
        value: both((run) => run.lastEndedAfterHours, 1),
        unit: 'h',
      },
      {
        metric: 'modelled AWS cost per million events held, 1-event jobs',
        value: round(costs['1-event jobs'].total, 2),
        unit: 'USD',
      },
      {
        metric: 'modelled AWS cost per million events held, 100-event jobs',
        value: round(costs['100-event jobs'].total, 2),
        unit: 'USD',
      },
      {
        metric: `original: ${original.length} attempts x $${(PRICES.eventGrid.perOperation * 1_000_000).toFixed(2)} per million operations`,
        value: round(eventGridPerMillion, 2),
        unit: 'USD',
      },
    ],
    details: {
      costBreakdownsPerMillion: {
        '1-event jobs': perMillion(costs['1-event jobs']),
        '100-event jobs': perMillion(costs['100-event jobs']),
      },
      originalAttemptTimesSeconds: original.map((ms) => ms / 1000),
      eventGrid: { perMillionEvents: round(eventGridPerMillion, 2), source: PRICES.eventGrid.source },
      assumedMs: ASSUMED_MS,
      single: singleDetails,
      hundred: hundredDetails,
      prices: { source: PRICES.source, takenOn: PRICES.takenOn },
    },
  };
}

export const held24h: Scenario = {
  name: 'held-24h',
  description: 'an event held for a day by an endpoint answering 503, in virtual time, counted and priced',
  uses: [],
  run: async () => ({ results: [await measureHeld()] }),
};

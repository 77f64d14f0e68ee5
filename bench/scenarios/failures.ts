/**
 * Retries: 30% of webhook answers fail (decided per event and attempt), at time scale 600, on a
 * stack of its own: every event finally delivered, and what the retries cost.
 */
import { costPerMillionEvents } from '../cost';
import { MAX_FAILED_ATTEMPTS } from '../failure-pattern';
import { round } from '../harness/figures';
import { liveStack } from '../harness/live-stack';
import { loadRun, sqsRequests, usageOf } from '../harness/load-run';
import { log } from '../harness/log';
import type { BenchContext, Scenario, ScenarioResult } from '../harness/types';

async function measureFailures(ctx: BenchContext): Promise<ScenarioResult> {
  const { quick } = ctx;
  const events = quick ? 2000 : 20_000;
  const timeScale = 600;
  log(
    `failures: ${events.toLocaleString('en-US')} events, 30% of webhook answers fail, time scale ${timeScale}`,
  );
  const sink = await ctx.sink();
  const live = await liveStack({ timeScale });
  try {
    const rig = await ctx.rig(live);
    sink.configure(0.3);
    const run = await loadRun(rig, {
      name: 'failures',
      eventsPerRequest: 100,
      eventsPerSecond: 2000,
      seconds: events / 2000,
      topic: 'failures',
    });
    const final = await sink.take();
    const distinct = final.distinctDelivered;
    const requests = run.usage.aws.requests;
    const sqsAll = sqsRequests(requests);
    const lambdaInvocations = Object.values(run.usage.lambda).reduce((n, l) => n + l.invocations, 0);
    const cost = costPerMillionEvents(usageOf(run, distinct));
    return {
      name: 'failures',
      description: `${events.toLocaleString('en-US')} events to one webhook where 30% of answers are 500 (decided per event and attempt; attempts from the ${MAX_FAILED_ATTEMPTS + 1}th on succeed); retries at time scale ${timeScale}. At that scale the engine sleeps away waits under a second inside the invocation (at real time it never does: the last SQS delay is rounded up), so that time is left out of the Lambda duration priced, and shown on its own.`,
      figures: [
        {
          metric: 'events finally delivered',
          value: distinct,
          unit: 'events',
          goal: `${events}`,
          met: distinct === events,
        },
        { metric: 'SQS requests per delivered event', value: round(sqsAll / distinct, 4), unit: 'requests' },
        {
          metric: 'DynamoDB writes per delivered event',
          value: round(run.usage.aws.dynamoWriteUnits / distinct, 4),
          unit: 'writes',
        },
        {
          metric: 'Lambda invocations per delivered event',
          value: round(lambdaInvocations / distinct, 4),
          unit: 'invocations',
        },
        {
          metric: 'modelled AWS cost per million events',
          value: round(cost.total, 4),
          unit: 'USD',
          goal: '<= 0.15',
          met: cost.total <= 0.15,
        },
        {
          metric: 'delivery GB-s slept only because time is scaled (left out of the cost)',
          value: `${round(run.usage.scaledWaitGbSeconds, 2)} of ${round(run.usage.scaledWaitGbSeconds + (run.usage.lambda.delivery?.gbSeconds ?? 0), 2)}`,
          unit: 'GB-s',
        },
      ],
      details: {
        requests,
        dynamoWriteUnits: run.usage.aws.dynamoWriteUnits,
        sqsEmptyReceives: run.usage.aws.sqsEmptyReceives,
        costBreakdownPerMillion: Object.fromEntries(Object.entries(cost).map(([k, v]) => [k, round(v, 5)])),
      },
    };
  } finally {
    sink.configure(0);
    await live.close();
  }
}

export const failures: Scenario = {
  name: 'failures',
  description: '30% of webhook answers fail; retries at time scale 600, counted and priced',
  uses: ['sink', 'loadGenerator'],
  run: async (ctx) => ({ results: [await measureFailures(ctx)] }),
};

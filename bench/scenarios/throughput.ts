/**
 * Sustained unbatched throughput at 5,500 events/s offered, as Event Grid events, then as
 * CloudEvents and as custom events, on the shared stack; and the happy path's AWS cost, from the
 * Event Grid run's usage.
 */
import type { InputSchema } from '../../shared/domain/model';
import { type CostBreakdown, costPerMillionEvents } from '../cost';
import { publishedDetails, round, shareOf, throughputFigures } from '../harness/figures';
import { type LoadRun, loadRun, sqsRequests, usageOf } from '../harness/load-run';
import { log } from '../harness/log';
import { sampleMemory } from '../harness/memory';
import type { Scenario, ScenarioResult } from '../harness/types';
import { PRICES } from '../prices';

/** The throughput scenarios' offered load, events/s: a little above the goal of 5,000 delivered. */
export const THROUGHPUT_OFFERED = 5500;

/** The goal of a throughput run: 5,000 events/s delivered, the backlog gone within 5 s (judged on full runs). */
const keptUp = (run: LoadRun, quick: boolean) =>
  quick ? undefined : run.steadyRate >= 5000 && run.drainSeconds < 5;

/** The AWS usage of the Event Grid run, priced. */
function costResult(run: LoadRun): ScenarioResult {
  const usage = usageOf(run, run.delivered);
  const cost: CostBreakdown = costPerMillionEvents(usage);
  const requests = run.usage.aws.requests;
  const sqsAll = sqsRequests(requests);
  const sqsPerEvent = sqsAll / run.delivered;
  const sqsWorkPerEvent = (sqsAll - run.usage.aws.sqsEmptyReceives) / run.delivered;
  const writesPerEvent = run.usage.aws.dynamoWriteUnits / run.delivered;
  return {
    name: 'cost',
    description:
      'AWS usage of the throughput run (happy path: published 100 per request, delivered once to one webhook), priced at list prices.',
    figures: [
      {
        metric: 'modelled AWS cost per million events',
        value: round(cost.total, 4),
        unit: 'USD',
        goal: '<= 0.25',
        met: cost.total <= 0.25,
      },
      {
        metric: 'SQS requests per delivered event',
        value: round(sqsPerEvent, 4),
        unit: 'requests',
        goal: '<= 0.1',
        met: sqsPerEvent <= 0.1,
      },
      {
        metric: 'SQS requests per event, without empty polls',
        value: round(sqsWorkPerEvent, 4),
        unit: 'requests',
      },
      {
        metric: 'DynamoDB writes per delivered event',
        value: round(writesPerEvent, 4),
        unit: 'writes',
        goal: '0',
        met: writesPerEvent === 0,
      },
      {
        metric: 'delivery invocations per 1,000 events',
        value: round((usage.lambda.delivery.invocations / run.delivered) * 1000, 2),
        unit: 'invocations',
      },
    ],
    details: {
      costBreakdownPerMillion: Object.fromEntries(Object.entries(cost).map(([k, v]) => [k, round(v, 5)])),
      requests,
      sqsBilledRequests: run.usage.aws.sqsBilledRequests,
      sqsEmptyReceives: run.usage.aws.sqsEmptyReceives,
      dynamoReadUnits: run.usage.aws.dynamoReadUnits,
      lambda: run.usage.lambda,
      httpRequests: run.usage.httpRequests,
      deliveredEvents: run.delivered,
      prices: { source: PRICES.source, takenOn: PRICES.takenOn },
    },
  };
}

export const throughput: Scenario = {
  name: 'throughput',
  description:
    '5,500 events/s offered (100 per request) to one subscription; CloudEvents and custom input; cost',
  uses: ['sharedStack', 'sink', 'loadGenerator'],
  usesReferenceRates: true,
  async run(ctx) {
    const { quick } = ctx;
    const reference = ctx.handedOn.referenceRates;
    const rig = await ctx.rig(await ctx.sharedStack());
    const seconds = quick ? 10 : 60;
    // Offered a little above the goal: if the stack keeps up, it delivers more than 5,000/s.
    const offered = THROUGHPUT_OFFERED;
    const load = (name: string, runSeconds: number, schema?: InputSchema) =>
      loadRun(rig, {
        name,
        eventsPerRequest: 100,
        eventsPerSecond: offered,
        seconds: runSeconds,
        topic: name,
        ...(schema === undefined ? {} : { schema }),
      });
    log(`throughput: ${offered.toLocaleString('en-US')} events/s offered (100 per request) for ${seconds} s`);
    const memory = sampleMemory();
    const run = await load('throughput', seconds);
    const peak = memory.stop();
    // The same load as CloudEvents 1.0 (a batch per request) to a CloudEvents topic, half as long.
    const otherSeconds = Math.max(5, Math.round(seconds / 2));
    log(`throughput, CloudEvents input: ${offered.toLocaleString('en-US')} events/s for ${otherSeconds} s`);
    const cloud = await load('throughput-cloudevents', otherSeconds, 'CloudEventSchemaV1_0');
    log(`throughput, custom input: ${offered.toLocaleString('en-US')} events/s for ${otherSeconds} s`);
    const custom = await load('throughput-custom', otherSeconds, 'CustomEventSchema');

    const main = throughputFigures(run, { goal: '>= 5,000 for 60 s', met: keptUp(run, quick) }, reference);
    const overall = round(run.delivered / run.totalSeconds, 0);
    /** The CloudEvents and custom runs report alike. */
    const otherInput = (other: LoadRun) => {
      const figures = throughputFigures(other, { goal: '>= 5,000', met: keptUp(other, quick) }, reference);
      return [
        figures.accepted,
        figures.deliveredMean,
        figures.slowest,
        figures.latencyUnderLoad,
        figures.publishP99,
      ];
    };
    return {
      results: [
        {
          name: 'throughput',
          description: `${offered.toLocaleString('en-US')} events/s offered for ${seconds} s (55 requests/s of 100 events), one webhook subscription answering 200.`,
          figures: [
            main.accepted,
            main.deliveredMean,
            main.slowest,
            {
              metric: 'all events delivered, first publish to last delivery',
              value: overall,
              unit: 'events/s',
              ...shareOf(reference, 'loopbackHttp', overall),
            },
            {
              metric: 'last delivery after publishing stopped',
              value: round(run.drainSeconds, 2),
              unit: 's',
            },
            main.latencyUnderLoad,
            {
              metric: 'peak resident memory of the process running all four functions (and the harness)',
              value: round(peak.rssBytes / 2 ** 20, 0),
              unit: 'MiB',
            },
          ],
          details: {
            published: publishedDetails(run.published),
            loadSeconds: round(run.loadSeconds),
            memory: {
              peakRssMiB: round(peak.rssBytes / 2 ** 20, 1),
              peakHeapUsedMiB: round(peak.heapUsedBytes / 2 ** 20, 1),
              samples: peak.samples,
            },
          },
          timeline: run.timeline,
        },
        {
          name: 'throughput, CloudEvents input',
          description: `The throughput load as CloudEvents 1.0 (\`application/cloudevents-batch+json\`, 100 per request) to a CloudEvents topic (\`inputSchema: CloudEventSchemaV1_0\`) for ${otherSeconds} s: each event validated attribute by attribute, queued and delivered as published.`,
          figures: otherInput(cloud),
          details: { published: publishedDetails(cloud.published) },
          timeline: cloud.timeline,
        },
        {
          name: 'throughput, custom input',
          description: `The throughput load as custom objects (100 per request) to a custom-schema topic (\`inputSchema: CustomEventSchema\`, five mapped fields) for ${otherSeconds} s: each event mapped to an Event Grid event at publish, queued once and delivered in the Event Grid form.`,
          figures: otherInput(custom),
          details: { published: publishedDetails(custom.published) },
          timeline: custom.timeline,
        },
        costResult(run),
      ],
    };
  },
};

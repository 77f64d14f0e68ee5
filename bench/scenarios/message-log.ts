/**
 * The message log's price: what `deliveryLog: All` (every delivery logged, with its answer and
 * the event's text) costs in DynamoDB writes beside the default `Failures` (nothing written on
 * the happy path), on the shared stack.
 */
import { costPerMillionEvents } from '../cost';
import { round } from '../harness/figures';
import { type Rig, topicWithSubscriptions } from '../harness/live-stack';
import { loadRun, usageOf } from '../harness/load-run';
import { log } from '../harness/log';
import type { Figure, Scenario, ScenarioResult } from '../harness/types';

/** The loads measured: single-event publishes, and publishes of 100 events (one job each). */
const LOADS = [
  { eventsPerRequest: 1, eventsPerSecond: 500 },
  { eventsPerRequest: 100, eventsPerSecond: 5_000 },
] as const;
const MODES = ['Failures', 'All'] as const;

interface LogRun {
  mode: (typeof MODES)[number];
  eventsPerRequest: number;
  eventsPerSecond: number;
  delivered: number;
  historyWrites: number;
  historyItems: number;
  historyUnits: number;
  costPerMillion: number;
}

async function measureMessageLog(rig: Rig, quick: boolean): Promise<ScenarioResult[]> {
  const seconds = quick ? 3 : 10;
  const runs: LogRun[] = [];
  for (const load of LOADS) {
    for (const mode of MODES) {
      const topic = `log-${mode.toLowerCase()}-${load.eventsPerRequest}`;
      log(
        `message log: deliveryLog ${mode}, ${load.eventsPerSecond.toLocaleString('en-US')} events/s (${load.eventsPerRequest} per request) for ${seconds} s`,
      );
      const run = await loadRun(rig, {
        name: topic,
        topic,
        ...load,
        seconds,
        subscribe: () =>
          topicWithSubscriptions(rig.live, topic, [
            { name: 'sink', url: rig.sink.url, properties: { deliveryLog: mode } },
          ]),
      });
      const history = run.usage.aws.dynamoWrites.HISTORY ?? { requests: 0, items: 0, units: 0 };
      runs.push({
        mode,
        ...load,
        delivered: run.delivered,
        historyWrites: history.requests,
        historyItems: history.items,
        historyUnits: history.units,
        costPerMillion: costPerMillionEvents(usageOf(run, run.delivered)).total,
      });
    }
  }
  const perEvent = (count: number, run: LogRun) => round(count / Math.max(1, run.delivered), 4);
  const figures: Figure[] = runs.flatMap((run) => {
    const label = `deliveryLog ${run.mode}, ${run.eventsPerRequest} per publish request`;
    return [
      {
        metric: `${label}: log items written per event (write requests per event)`,
        value: `${perEvent(run.historyItems, run)} (${perEvent(run.historyWrites, run)})`,
        unit: 'per event',
      },
      { metric: `${label}: log write units per event`, value: perEvent(run.historyUnits, run), unit: 'WCU' },
      {
        metric: `${label}: modelled AWS cost per million events`,
        value: round(run.costPerMillion, 4),
        unit: 'USD',
      },
    ];
  });
  return [
    {
      name: 'message log',
      description: `Events published for ${seconds} s to one subscription on the sink answering 200, once with \`deliveryLog: Failures\` (the default: the happy path writes nothing) and once with \`deliveryLog: All\` (every delivery logged with its answer and the event's text), at ${LOADS.map((load) => `${load.eventsPerSecond.toLocaleString('en-US')} events/s in publishes of ${load.eventsPerRequest}`).join(' and ')}. Log writes are the DynamoDB writes of history items the stack really made (counted by the SDK middleware, write units from the items' sizes); the cost is the bill model's per million delivered events for the same run.`,
      figures,
      details: { runs },
    },
  ];
}

export const messageLog: Scenario = {
  name: 'message-log',
  description: 'DynamoDB writes and cost per event with deliveryLog All beside Failures',
  uses: ['sharedStack', 'sink', 'loadGenerator'],
  async run(ctx) {
    const rig = await ctx.rig(await ctx.sharedStack());
    return { results: await measureMessageLog(rig, ctx.quick) };
  },
};

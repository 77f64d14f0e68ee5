/**
 * A rate-limited endpoint: 10,000 events published at once to a subscription with
 * `maxDeliveriesPerSecond: 50`, on a stack of its own at real time. The webhook notes when each
 * request reached it: never more than 50 in any second of its clock, every event delivered, and
 * what the shared budget (DynamoDB) and the holds (SQS) cost per event.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { costPerMillionEvents } from '../cost';
import { round } from '../harness/figures';
import { liveStack, publishInHundreds } from '../harness/live-stack';
import { usageOf } from '../harness/load-run';
import { log } from '../harness/log';
import type { Scenario, ScenarioResult } from '../harness/types';
import { peakPerSecond } from '../load';
import { PRICES } from '../prices';

const LIMIT = 50;

/** The most of `times` (epoch ms, any order) within any 1,000 ms, wherever the window starts. */
export function peakInAnySecond(times: readonly number[]): number {
  const sorted = Float64Array.from(times).sort();
  let peak = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    while ((sorted[last] as number) - (sorted[first] as number) >= 1000) first += 1;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}

/** A webhook that answers 200 and notes when each request reached it and the events it carried. */
async function notingWebhook() {
  const arrivals: number[] = [];
  const ids = new Set<string>();
  let events = 0;
  const server = createServer((request, response) => {
    const arrivedAt = Date.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      arrivals.push(arrivedAt);
      for (const event of JSON.parse(Buffer.concat(chunks).toString('utf8')) as Array<{ id: string }>) {
        ids.add(event.id);
        events += 1;
      }
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/paced`,
    arrivals,
    ids,
    events: () => events,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function measureRateLimited(quick: boolean): Promise<ScenarioResult> {
  const events = quick ? 1_000 : 10_000;
  log(`rate-limited endpoint: ${events.toLocaleString('en-US')} events at once, limit ${LIMIT} requests/s`);
  const webhook = await notingWebhook();
  const live = await liveStack({ timeScale: 1 });
  try {
    const topic = 'paced';
    await live.call('PUT', `/admin/topics/${topic}`, { properties: { inputSchema: 'EventGridSchema' } });
    await live.call('PUT', `/admin/topics/${topic}/eventSubscriptions/limited`, {
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: { endpointUrl: webhook.url, maxDeliveriesPerSecond: LIMIT },
        },
      },
    });
    const { key1 } = (await live.call('POST', `/admin/topics/${topic}/listKeys`)) as { key1: string };
    live.usage.take();
    const started = Date.now();
    await publishInHundreds(live, topic, key1, events, 'rl', 'Bench.Paced');
    const published = Date.now();
    // At the limit the last event can't arrive before events / LIMIT seconds; a minute more at most.
    const deadline = started + (events / LIMIT) * 1000 + 60_000;
    while (webhook.ids.size < events && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const usage = live.usage.take();
    const delivered = webhook.ids.size;
    const arrivals = [...webhook.arrivals];
    const first = Math.min(...arrivals);
    const last = Math.max(...arrivals);
    const spanSeconds = (last - first) / 1000;
    const perCalendarSecond = peakPerSecond(arrivals);
    const perAnySecond = peakInAnySecond(arrivals);
    const budget = usage.aws.dynamoWrites.RATE ?? { requests: 0, items: 0, units: 0 };
    const perEvent = (count: number) => round(count / Math.max(1, delivered), 4);
    const cost = costPerMillionEvents(usageOf({ usage }, Math.max(1, delivered)));
    const budgetPerMillion = (budget.units / Math.max(1, delivered)) * PRICES.dynamodb.perWriteUnit * 1e6;
    return {
      name: 'rate-limited endpoint',
      description: `${events.toLocaleString('en-US')} events published at once (in requests of 100) to one subscription with \`maxDeliveriesPerSecond: ${LIMIT}\`, on a stack of its own at real time; the webhook answers 200 at once and notes when each request reached it (its own clock, the stack's too: one machine). "Any second" counts the most requests within any 1,000 ms wherever it starts; "calendar second" within each whole second of the clock, which is how the limit is counted. The budget's writes are the DynamoDB writes of rate-window items the stack really made (counted by the SDK middleware); the SQS requests include the holds' trips back on the retry queue.`,
      figures: [
        {
          metric: 'events delivered',
          value: delivered,
          unit: 'events',
          goal: `${events}`,
          met: delivered === events,
        },
        {
          metric: 'most requests in one calendar second',
          value: perCalendarSecond,
          unit: 'requests',
          goal: `<= ${LIMIT}`,
          met: perCalendarSecond <= LIMIT,
        },
        { metric: 'most requests within any 1,000 ms', value: perAnySecond, unit: 'requests' },
        {
          metric: 'rate kept, first to last delivery',
          value: round((delivered - 1) / Math.max(0.001, spanSeconds), 1),
          unit: 'events/s',
          goal: `<= ${LIMIT}`,
        },
        {
          metric: 'requests repeated (sent again after a delivery)',
          value: arrivals.length - delivered,
          unit: 'requests',
        },
        {
          metric: 'budget writes per event (write units)',
          value: `${perEvent(budget.requests)} (${perEvent(budget.units)})`,
          unit: 'per event',
        },
        { metric: "the budget's cost per million events", value: round(budgetPerMillion, 4), unit: 'USD' },
        {
          metric: 'SQS requests per event (holds included)',
          value: perEvent(usage.aws.sqsBilledRequests),
          unit: 'requests',
        },
        { metric: 'modelled AWS cost per million events', value: round(cost.total, 4), unit: 'USD' },
        { metric: 'publish time', value: round((published - started) / 1000, 1), unit: 's' },
        { metric: 'first publish to last delivery', value: round((last - started) / 1000, 1), unit: 's' },
      ],
      details: {
        arrivals: arrivals.length,
        delivered,
        eventsReceived: webhook.events(),
        budget,
        sqsBilledRequests: usage.aws.sqsBilledRequests,
        cost,
      },
    };
  } finally {
    await live.close();
    await webhook.close();
  }
}

export const rateLimited: Scenario = {
  name: 'rate-limited',
  description:
    '10,000 events to an endpoint limited to 50 requests/s: never over, all delivered, budget cost',
  uses: [],
  run: async (ctx) => ({ results: [await measureRateLimited(ctx.quick)] }),
};

/**
 * An SQS queue as the destination instead of a webhook: events published as fast as one
 * publisher sends requests of 100, on a stack of its own at real time, delivered as messages to
 * the emulator's queue; how fast they arrive, what the sends to the queue and the pipeline cost
 * per million events.
 */
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { costPerMillionEvents } from '../cost';
import { round } from '../harness/figures';
import { liveStack, publishInHundreds } from '../harness/live-stack';
import { usageOf } from '../harness/load-run';
import { log } from '../harness/log';
import type { Scenario, ScenarioResult } from '../harness/types';

const QUEUE = 'bench-destination';

async function measureSqsDestination(quick: boolean): Promise<ScenarioResult> {
  const events = quick ? 5_000 : 50_000;
  log(
    `SQS destination: ${events.toLocaleString('en-US')} events in publishes of 100, to one AwsSqsQueue subscription`,
  );
  const live = await liveStack({ timeScale: 1 });
  try {
    const sqs = live.stack.clients.resources?.sqs('us-east-1');
    if (sqs === undefined) throw new Error('the local stack has no resource clients');
    // The sends to the destination queue are counted and billed as the pipeline's own are.
    live.usage.aws.attachClient('sqs', sqs);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: QUEUE }));
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const topic = 'to-queue';
    await live.call('PUT', `/admin/topics/${topic}`, { properties: { inputSchema: 'EventGridSchema' } });
    await live.call('PUT', `/admin/topics/${topic}/eventSubscriptions/queue`, {
      properties: {
        destination: { endpointType: 'AwsSqsQueue', properties: { resourceArn: Attributes?.QueueArn } },
      },
    });
    const { key1 } = (await live.call('POST', `/admin/topics/${topic}/listKeys`)) as { key1: string };
    live.usage.take();
    const started = Date.now();
    await publishInHundreds(live, topic, key1, events, 'sqs', 'Bench.Queued');
    const published = Date.now();
    let inQueue = 0;
    const deadline = started + (quick ? 60_000 : 180_000);
    while (inQueue < events && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const counted = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      inQueue = Number(counted.Attributes?.ApproximateNumberOfMessages ?? 0);
    }
    const done = Date.now();
    const usage = live.usage.take();
    const toQueue = usage.aws.sqsByQueue[QUEUE] ?? 0;
    const cost = costPerMillionEvents(usageOf({ usage }, Math.max(1, inQueue)));
    const perEvent = (count: number) => round(count / Math.max(1, inQueue), 4);
    return {
      name: 'SQS destination',
      description: `${events.toLocaleString('en-US')} events published by one publisher in requests of 100 (closed loop) to a topic whose one subscription delivers to a queue of the emulator (\`AwsSqsQueue\`), on a stack of its own at real time; arrival counted by the queue's \`ApproximateNumberOfMessages\`, polled every 200 ms (not billed). The sends to the queue are counted by the SDK middleware on the destination's own client and billed as SQS requests (a \`SendMessageBatch\` of up to 10 messages is one request per 64 KiB), beside the pipeline's own; the cost model is the one of the cost scenario (webhook: its figure).`,
      figures: [
        {
          metric: 'events in the queue',
          value: inQueue,
          unit: 'events',
          goal: `${events}`,
          met: inQueue === events,
        },
        {
          metric: 'delivered per second, first publish to the last message in the queue',
          value: round(inQueue / Math.max(0.001, (done - started) / 1000), 0),
          unit: 'events/s',
        },
        { metric: 'publish time (closed loop)', value: round((published - started) / 1000, 1), unit: 's' },
        {
          metric: 'SendMessageBatch calls to the destination per event',
          value: perEvent(toQueue),
          unit: 'calls',
        },
        {
          metric: 'SQS requests per event, destination and pipeline',
          value: perEvent(usage.aws.sqsBilledRequests),
          unit: 'requests',
        },
        { metric: 'modelled AWS cost per million events', value: round(cost.total, 4), unit: 'USD' },
      ],
      details: { inQueue, toQueue, cost, sqsByQueue: usage.aws.sqsByQueue },
    };
  } finally {
    await live.close();
  }
}

export const sqsDestination: Scenario = {
  name: 'sqs-destination',
  description: 'Events delivered to an SQS queue instead of a webhook: rate and cost per million',
  uses: [],
  run: async (ctx) => ({ results: [await measureSqsDestination(ctx.quick)] }),
};

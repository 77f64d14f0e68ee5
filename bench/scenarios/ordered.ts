/**
 * Ordered delivery on the shared stack, to the sink: how fast one key's events are delivered (one
 * a request; with batching, ten a request; with a webhook that takes 20 ms), how fast a
 * subscription with 100 busy keys delivers against an unordered one under the same load, that
 * each key's events arrive in publish order, and the AWS requests and cost per million events
 * (requests to the FIFO ordered queue at SQS's FIFO price) against the unordered subscription's.
 *
 * Publishes go one request at a time (so publish order is the order to check), which is slower
 * than delivery: each rate is therefore measured on a backlog. While the measured part is
 * published the sink answers slowly, so a key's messages queue behind the one in flight (its FIFO
 * group hands out the next only once that one is deleted); then it answers at once, the answers it
 * was holding back first, and the rate is that of the drain: the events that arrive from then to
 * the last. Slow, not held: an endpoint with all its request slots unanswered for a second is
 * stalled, and its further events would wait 5 s. The cost comes from separate windows with the
 * sink answering at once (an invocation waiting on a slow answer bills its wait).
 */

import { attributesOf } from '../../local/status';
import { LAMBDA_FIFO_LIMITS } from '../../shared/config/fifo-queues';
import { QUEUES, type QueueKey } from '../../shared/config/resources';
import { round } from '../harness/figures';
import { type LiveStack, topicWithSubscriptions } from '../harness/live-stack';
import { endProgress, log, progress } from '../harness/log';
import type { Scenario, ScenarioResult } from '../harness/types';
import type { Sink } from '../load';
import {
  type CostRun,
  checkOrder,
  combineChecks,
  type DrainRun,
  dynamoOf,
  eventsPerKey,
  messagesOf,
  type OrderCheck,
  type OrderedLoad,
  orderedFigures,
  type PlannedEvent,
  parseOrderedId,
  rateAfter,
  requestEvents,
} from '../ordered';
import { PRICES } from '../prices';

/**
 * How long the sink takes to answer while a measured part is published: long enough that little
 * of it is delivered before the release, short enough that the endpoint never looks stalled (no
 * answer to any of its requests in flight for a second: `STALL_MS`).
 */
const SLOW_ANSWER_MS = 400;
/** The slower webhook's answer time, ms (the per-key model's check). */
const SLOW_WEBHOOK_MS = 20;
/** Webhook answer times the AWS model is given at, ms. */
const MODEL_WEBHOOK_MS = [SLOW_WEBHOOK_MS, 100] as const;
const MANY_KEYS = 100;
const BATCH = 10;

/**
 * Publish requests of each part: `cost` with the sink answering at once (priced), `drain` while it
 * answers slowly, then drained (rates).
 */
const SIZES = {
  quick: {
    oneKey: { cost: 20, drain: 60, slow: 30 },
    batched: { cost: 10, drain: 40 },
    manyKeys: { cost: 5, drain: 10 },
  },
  full: {
    oneKey: { cost: 50, drain: 200, slow: 100 },
    batched: { cost: 20, drain: 150 },
    manyKeys: { cost: 10, drain: 30 },
  },
};

/** What the sink acknowledged, by run (the ids' prefix), in order, with each event's arrival. */
class Acknowledged {
  private readonly runs = new Map<string, { ids: string[]; arrivedAt: number[] }>();

  constructor(private readonly sink: Sink) {}

  async pull(): Promise<void> {
    const taken = await this.sink.take();
    taken.ids.forEach((id, index) => {
      const prefix = parseOrderedId(id)?.prefix ?? '';
      const run = this.runs.get(prefix) ?? { ids: [], arrivedAt: [] };
      run.ids.push(id);
      run.arrivedAt.push(taken.arrivedAt[index] as number);
      this.runs.set(prefix, run);
    });
  }

  of(prefix: string): { ids: readonly string[]; arrivedAt: readonly number[] } {
    return this.runs.get(prefix) ?? { ids: [], arrivedAt: [] };
  }

  /** Pulls until `done` holds or `timeoutMs` passes; whether it held. */
  async until(done: () => boolean, label: () => string, timeoutMs = 30_000): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      await this.pull();
      progress(label());
      if (done()) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  }
}

/** Waits until the ordered and delivery queues hold nothing (received or not), so a window's deletes are in. */
async function settle(live: LiveStack): Promise<void> {
  const queues: QueueKey[] = ['ordered', 'delivery'];
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    const depths = await Promise.all(
      queues.map((queue) => attributesOf(live.stack.clients.sqs, live.stack.resources.queueUrls[queue])),
    );
    const left = depths.reduce(
      (sum, depth) =>
        sum + (depth.ApproximateNumberOfMessages ?? 0) + (depth.ApproximateNumberOfMessagesNotVisible ?? 0),
      0,
    );
    if (left === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The poller counts an invocation once its deletes are answered.
  await new Promise((resolve) => setTimeout(resolve, 250));
}

/** One run's topic: its load, and the publish requests made so far (its events numbered on). */
class Stream {
  requests = 0;

  constructor(
    private readonly live: LiveStack,
    readonly topic: string,
    private readonly key: string,
    readonly load: OrderedLoad,
  ) {}

  /** The ids' prefix: the topic's name without its dashes. */
  get prefix(): string {
    return this.topic.replaceAll('-', '');
  }

  /** Events each key has been published so far. */
  published(): Map<string, number> {
    return eventsPerKey(this.load, this.requests);
  }

  get events(): number {
    return this.requests * this.load.perRequest;
  }

  /** Publishes `count` more requests, one at a time; each one's latency, ms. */
  async publish(count: number): Promise<number[]> {
    const latencies: number[] = [];
    for (let i = 0; i < count; i += 1) {
      latencies.push(await this.publishOne(requestEvents(this.load, this.prefix, this.requests)));
      this.requests += 1;
    }
    return latencies;
  }

  private async publishOne(events: readonly PlannedEvent[]): Promise<number> {
    const t = Date.now();
    const time = new Date(t).toISOString();
    const body = events.map(
      (event) =>
        `{"id":"${event.id}","subject":"${event.key}","eventType":"Bench.Ordered","eventTime":"${time}","data":{"t":${t}}}`,
    );
    const started = performance.now();
    const response = await fetch(
      `${this.live.stack.apiUrl}/topics/${this.topic}/api/events?api-version=2018-01-01`,
      {
        method: 'POST',
        headers: { 'aeg-sas-key': this.key, 'content-type': 'application/json' },
        body: `[${body.join(',')}]`,
      },
    );
    const text = await response.text();
    if (response.status !== 200) throw new Error(`publish to ${this.topic}: ${response.status} ${text}`);
    return performance.now() - started;
  }
}

/** Creates `topic` with one subscription on the sink, ordered by subject unless `ordered` is false. */
async function stream(
  live: LiveStack,
  sink: Sink,
  topic: string,
  load: OrderedLoad,
  options: { ordered: boolean; destination?: Record<string, unknown> },
): Promise<Stream> {
  const key = await topicWithSubscriptions(live, topic, [
    {
      name: 'sink',
      url: sink.url,
      ...(options.destination === undefined ? {} : { destination: options.destination }),
      ...(options.ordered ? { properties: { orderedDelivery: { key: 'subject' } } } : {}),
    },
  ]);
  return new Stream(live, topic, key, load);
}

/** Waits until every event published to `run` so far has been acknowledged. */
const allAcknowledged = (acks: Acknowledged, run: Stream) =>
  acks.until(
    () => acks.of(run.prefix).ids.length >= run.events,
    () =>
      `  ${run.topic}: acknowledged ${acks.of(run.prefix).ids.length.toLocaleString('en-US')} of ${run.events}`,
  );

/** A window with the sink answering at once: `requests` publishes, their deliveries, and the usage of both. */
async function costWindow(
  live: LiveStack,
  acks: Acknowledged,
  run: Stream,
  requests: number,
): Promise<CostRun> {
  await settle(live);
  live.usage.take();
  const firstEvent = run.events;
  const publishLatencies = await run.publish(requests);
  await allAcknowledged(acks, run);
  endProgress();
  await settle(live);
  const usage = live.usage.take();
  return { events: run.events - firstEvent, usage, publishLatencies };
}

/**
 * A drain: `requests` more publishes while the sink answers slowly, so they queue behind each
 * key's message in flight; then the answers go at once (each later one after `webhookMs`) and the
 * rate of the events arriving from then on is taken. Also what the window did on the ordered
 * queue and to ordered progress (slow answers are no failures: nothing waits, nothing is kept).
 */
async function drainWindow(
  live: LiveStack,
  sink: Sink,
  acks: Acknowledged,
  run: Stream,
  requests: number,
  webhookMs: number,
): Promise<DrainWindow> {
  await settle(live);
  live.usage.take();
  sink.configure(0, SLOW_ANSWER_MS, true);
  await run.publish(requests);
  await acks.pull();
  const backlog = run.events - acks.of(run.prefix).ids.length;
  sink.configure(0, webhookMs, true);
  const released = await sink.release();
  await allAcknowledged(acks, run);
  endProgress();
  sink.configure(0, 0, true);
  await settle(live);
  const usage = live.usage.take();
  return {
    drain: {
      rate: rateAfter(acks.of(run.prefix).arrivedAt, released.at),
      eventsPerMessage: run.load.perRequest / Math.min(run.load.keys, run.load.perRequest),
      webhookMs,
      released: released.answers,
      backlog,
    },
    fifoRequests: usage.aws.sqsFifoRequests,
    dynamo: dynamoOf(usage.aws),
  };
}

interface DrainWindow {
  drain: DrainRun;
  fifoRequests: Record<string, number>;
  dynamo: ReturnType<typeof dynamoOf>;
}

const orderOf = (acks: Acknowledged, run: Stream): OrderCheck =>
  checkOrder(run.prefix, acks.of(run.prefix).ids, run.published());

async function measureOrdered(live: LiveStack, sink: Sink, quick: boolean): Promise<ScenarioResult> {
  const sizes = quick ? SIZES.quick : SIZES.full;
  const acks = new Acknowledged(sink);
  sink.configure(0, 0, true);
  await sink.take();
  const oneKeyLoad = { keys: 1, perRequest: 1 };
  const batchedLoad = { keys: 1, perRequest: BATCH };
  const manyLoad = { keys: MANY_KEYS, perRequest: MANY_KEYS };
  // Topics are made together: each creation is answered only after the publishers' topic cache time.
  const [warm, oneKey, batched, many, unordered] = await Promise.all([
    stream(live, sink, 'ordered-warm-up', { keys: 10, perRequest: 10 }, { ordered: true }),
    stream(live, sink, 'ordered-one-key', oneKeyLoad, { ordered: true }),
    stream(live, sink, 'ordered-batched', batchedLoad, {
      ordered: true,
      destination: { maxEventsPerBatch: BATCH },
    }),
    stream(live, sink, 'ordered-many-keys', manyLoad, { ordered: true }),
    stream(live, sink, 'unordered-many-keys', manyLoad, { ordered: false }),
  ]);
  log('ordered: warming up the ordered path (5 requests of 10 events over 10 keys, not measured)');
  await warm.publish(5);
  await allAcknowledged(acks, warm);
  endProgress();

  log(
    `ordered, one key: ${sizes.oneKey.cost} events one a request (priced), then ${sizes.oneKey.drain} drained, then ${sizes.oneKey.slow} drained with the webhook answering in ${SLOW_WEBHOOK_MS} ms`,
  );
  const oneKeyCost = await costWindow(live, acks, oneKey, sizes.oneKey.cost);
  const oneKeyWindow = await drainWindow(live, sink, acks, oneKey, sizes.oneKey.drain, 0);
  const slowWindow = await drainWindow(live, sink, acks, oneKey, sizes.oneKey.slow, SLOW_WEBHOOK_MS);

  log(
    `ordered, one key batching ${BATCH}: ${sizes.batched.cost} requests of ${BATCH} (priced), then ${sizes.batched.drain} drained`,
  );
  const batchedCost = await costWindow(live, acks, batched, sizes.batched.cost);
  const batchedWindow = await drainWindow(live, sink, acks, batched, sizes.batched.drain, 0);

  log(
    `ordered, ${MANY_KEYS} keys: ${sizes.manyKeys.cost} requests of ${MANY_KEYS} (priced), then ${sizes.manyKeys.drain} drained`,
  );
  const manyCost = await costWindow(live, acks, many, sizes.manyKeys.cost);
  const manyWindow = await drainWindow(live, sink, acks, many, sizes.manyKeys.drain, 0);

  log(
    `unordered, the same: ${sizes.manyKeys.cost} requests of ${MANY_KEYS} (priced), then ${sizes.manyKeys.drain} drained`,
  );
  const unorderedCost = await costWindow(live, acks, unordered, sizes.manyKeys.cost);
  const unorderedWindow = await drainWindow(live, sink, acks, unordered, sizes.manyKeys.drain, 0);
  sink.configure(0, 0);

  const checks = {
    oneKey: orderOf(acks, oneKey),
    batched: orderOf(acks, batched),
    manyKeys: orderOf(acks, many),
  };
  const result = orderedFigures({
    oneKey: { drain: oneKeyWindow.drain, cost: oneKeyCost },
    oneKeySlowWebhook: slowWindow.drain,
    oneKeyBatched: {
      drain: batchedWindow.drain,
      cost: batchedCost,
      perRequest: BATCH,
      maxEventsPerBatch: BATCH,
    },
    manyKeys: { keys: MANY_KEYS, perRequest: MANY_KEYS, drain: manyWindow.drain, cost: manyCost },
    unordered: { drain: unorderedWindow.drain, cost: unorderedCost },
    order: combineChecks(Object.values(checks)),
    maxConcurrency: QUEUES.ordered.consumer.maxConcurrency,
    lambdaBatch: LAMBDA_FIFO_LIMITS.maxBatchSize,
    modelWebhookMs: MODEL_WEBHOOK_MS,
  });
  const windowDetails = (run: CostRun) => ({
    events: run.events,
    requests: run.usage.aws.requests,
    sqsFifoRequests: run.usage.aws.sqsFifoRequests,
    sqsBilledRequests: run.usage.aws.sqsBilledRequests,
    sqsFifoBilledRequests: run.usage.aws.sqsFifoBilledRequests,
    sqsEmptyReceives: run.usage.aws.sqsEmptyReceives,
    dynamoWriteUnits: run.usage.aws.dynamoWriteUnits,
    dynamoGets: run.usage.aws.dynamoGets,
    lambda: run.usage.lambda,
    httpRequests: run.usage.httpRequests,
  });
  const drainDetails = ({ drain, fifoRequests, dynamo }: DrainWindow) => ({
    ...drain,
    rate: { ...drain.rate, perSecond: round(drain.rate.perSecond, 1), seconds: round(drain.rate.seconds, 3) },
    window: { fifoRequests, dynamo },
  });
  const overhead = round(result.overheadMs, 1);
  // The engine's share for one subscription (`EngineAttempts`): a quarter of its slots.
  const subscriptionSlots = Math.ceil(live.stack.config.deliveryConcurrency / 4);
  return {
    name: 'ordered',
    description: `Subscriptions with \`orderedDelivery: {key: subject}\` on the shared stack, webhook on the sink: one key published one event a request; one key published ${BATCH} a request to a subscription batching ${BATCH} (\`maxEventsPerBatch\`); the first again with the sink answering in ${SLOW_WEBHOOK_MS} ms; ${MANY_KEYS} keys published ${MANY_KEYS} a request (one event of each key, so one message per key a request); and an unordered subscription given the same ${MANY_KEYS}-key requests, measured alike. Publishes go one at a time from the benchmark's process (publish order is then the order to check), slower than delivery, so each ordered rate is taken on a backlog: while the measured part is published the sink answers in ${SLOW_ANSWER_MS} ms, so a key's messages queue in its FIFO group behind the one in flight; then it answers at once (the requests it was still answering first) and the rate is that of the events arriving from then to the last. The unordered subscription's events wait the same way, in its invocations rather than in the queue. Every acknowledged event of the ordered runs is checked key by key against publish order (each event once, in order: a repeat or a gap fails it). Locally fauxqs hands out one message of a group per receive, so each message of a key costs a receive, an invocation and a delete besides its webhook request: ${overhead} ms a message here with an answer at once, the local per-key overhead, checked by the ${SLOW_WEBHOOK_MS} ms run against 1 / (${overhead} ms + ${SLOW_WEBHOOK_MS} ms). Locally one subscription has at most ${subscriptionSlots} webhook requests in flight (a quarter of the one engine every local invocation shares), which bounds the ${MANY_KEYS}-key runs, ordered and unordered alike; on AWS each invocation has its own. On AWS, Lambda takes up to ${LAMBDA_FIFO_LIMITS.maxBatchSize} messages of a group in one batch when they wait, so with a backlog the overhead is paid once per batch, and it scales invocations to the groups with messages, up to the event source's maximum concurrency (${QUEUES.ordered.consumer.maxConcurrency}). The model figures take the local overhead for AWS's (its receive, invocation and delete are in-region calls this run does not time) and a webhook answering in ${MODEL_WEBHOOK_MS.join(' or ')} ms: per key 1 / (overhead + answer) a message at a time, ${LAMBDA_FIFO_LIMITS.maxBatchSize} / (overhead + ${LAMBDA_FIFO_LIMITS.maxBatchSize} x answer) with a backlog; per subscription min(busy keys, ${QUEUES.ordered.consumer.maxConcurrency}) x per key. They are a model, not a measurement. A high-throughput FIFO queue's limits are per partition, and a group's messages stay in one: 300 requests a second per action without batching, 3,000 messages batched, so one key takes at most about 300 publishes a second (fewer when other keys share its partition), far more than one key delivers; the queue as a whole has a regional limit (70,000 requests a second per action in us-east-1). Local rates are this machine's: the stack, fauxqs, the sink and the publisher share its cores. Cost: the windows with the sink answering at once (the same publishes), the AWS requests the SDK middleware counted (empty receives left out: on AWS the pollers' idle long polls are a monthly cost), the ordered queue's at $${round(PRICES.sqs.fifoPerRequest * 1_000_000, 2).toFixed(2)} per million (FIFO) against $${round(PRICES.sqs.perRequest * 1_000_000, 2).toFixed(2)} (standard), with the HTTP API, Lambda requests and duration (local durations) and DynamoDB. The happy path reads and writes no ordered progress and changes no message's visibility.`,
    figures: result.figures,
    details: {
      sizes: { ...sizes, manyKeys: { ...sizes.manyKeys, keys: MANY_KEYS, perRequest: MANY_KEYS } },
      drains: {
        slowAnswerMs: SLOW_ANSWER_MS,
        oneKey: drainDetails(oneKeyWindow),
        oneKeySlowWebhook: drainDetails(slowWindow),
        oneKeyBatched: drainDetails(batchedWindow),
        manyKeys: drainDetails(manyWindow),
        unordered: drainDetails(unorderedWindow),
      },
      order: checks,
      localSubscriptionSlots: subscriptionSlots,
      localModel: {
        overheadMsPerMessage: overhead,
        batchedOverheadMsPerMessage: round(result.batchedOverheadMs, 1),
        slowWebhookPredicted: round(result.slowPredicted, 1),
        slowWebhookMeasured: round(slowWindow.drain.rate.perSecond, 1),
      },
      awsModel: result.models.map((model) => ({
        webhookMs: model.webhookMs,
        perKey: {
          unbatched: {
            oneAtATime: round(model.perKey.unbatched.oneAtATime, 1),
            backlogged: round(model.perKey.unbatched.backlogged, 1),
          },
          batched: {
            oneAtATime: round(model.perKey.batched.oneAtATime, 1),
            backlogged: round(model.perKey.batched.backlogged, 1),
          },
        },
        perSubscription: {
          keys: model.perSubscription.keys,
          oneAtATime: round(model.perSubscription.oneAtATime, 0),
          backlogged: round(model.perSubscription.backlogged, 0),
        },
      })),
      costPerMillion: result.cost,
      fifoRequestsPerEvent: result.fifoRequestsPerEvent,
      dynamo: result.dynamo,
      windows: {
        oneKey: windowDetails(oneKeyCost),
        oneKeyBatched: windowDetails(batchedCost),
        manyKeys: windowDetails(manyCost),
        unordered: windowDetails(unorderedCost),
      },
      publishedMessages: {
        oneKey: messagesOf(oneKeyLoad, oneKey.requests),
        oneKeyBatched: messagesOf(batchedLoad, batched.requests),
        manyKeys: messagesOf(manyLoad, many.requests),
      },
      prices: { source: PRICES.source, takenOn: PRICES.takenOn, sqs: PRICES.sources.sqs },
    },
  };
}

export const ordered: Scenario = {
  name: 'ordered',
  description:
    'ordered delivery: events/s per key (one a request, batched, a 20 ms webhook) and per subscription against unordered, order checked, cost per million at the FIFO price',
  uses: ['sharedStack', 'sink'],
  async run(ctx) {
    const live = await ctx.sharedStack();
    return { results: [await measureOrdered(live, await ctx.sink(), ctx.quick)] };
  },
};

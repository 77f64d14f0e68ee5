/**
 * The ordered-delivery scenario's pure parts (`scenarios/ordered.ts`): which events each publish
 * request carries (their key, and their place in the key's order), the order check over what the
 * sink acknowledged, the rate of a drain, the per-key model the figures give for AWS, and a
 * window's usage priced (requests to the FIFO ordered queue at SQS's FIFO price).
 */
import type { RequestCounts } from './aws-counter';
import { type CostBreakdown, costPerMillionEvents, type LambdaUsage, type Usage } from './cost';
import { p50p99, round } from './harness/figures';
import type { Figure } from './harness/types';
import { PRICES } from './prices';

/** How a run's events are spread over keys and publish requests. */
export interface OrderedLoad {
  /** Keys the events go round: event n has key n mod keys. */
  keys: number;
  /** Events per publish request. */
  perRequest: number;
}

export interface PlannedEvent {
  id: string;
  /** The event's subject, the subscription's ordering key. */
  key: string;
  /** Its place in its key's order, from 0. */
  seq: number;
}

export const keyName = (key: number): string => `k${key}`;

/** The id of the `seq`-th event of `key` in a run whose ids start `prefix` (no dot in it). */
export const orderedEventId = (prefix: string, key: string, seq: number): string => `${prefix}.${key}.${seq}`;

/** The run, key and place an id of {@link orderedEventId} names; undefined for another id. */
export function parseOrderedId(id: string): { prefix: string; key: string; seq: number } | undefined {
  const parts = id.split('.');
  if (parts.length !== 3) return undefined;
  const [prefix = '', key = '', seqText = ''] = parts;
  const seq = Number(seqText);
  if (prefix === '' || key === '' || !/^\d+$/.test(seqText) || !Number.isSafeInteger(seq)) return undefined;
  return { prefix, key, seq };
}

/**
 * The events of request `request` (from 0) of a run: events n = request x perRequest onwards,
 * event n of key n mod keys, the (n div keys)-th of its key. 100 keys and 100 a request: one
 * event of each key a request; one key: the key's next `perRequest` events.
 */
export function requestEvents(load: OrderedLoad, prefix: string, request: number): PlannedEvent[] {
  return Array.from({ length: load.perRequest }, (_, offset) => {
    const n = request * load.perRequest + offset;
    const key = keyName(n % load.keys);
    const seq = Math.floor(n / load.keys);
    return { id: orderedEventId(prefix, key, seq), key, seq };
  });
}

/** How many events each key gets in the first `requests` requests of a run. */
export function eventsPerKey(load: OrderedLoad, requests: number): Map<string, number> {
  const events = requests * load.perRequest;
  const counts = new Map<string, number>();
  for (let key = 0; key < Math.min(load.keys, events); key += 1) {
    counts.set(keyName(key), Math.floor(events / load.keys) + (key < events % load.keys ? 1 : 0));
  }
  return counts;
}

/** Messages a run's events make on the ordered queue: one per key of each request. */
export const messagesOf = (load: OrderedLoad, requests: number): number =>
  requests * Math.min(load.keys, load.perRequest);

export interface OrderCheck {
  /** Keys published. */
  keys: number;
  /** Keys whose acknowledged events are exactly their published ones, in publish order, once each. */
  inOrder: number;
  /** Keys with an event first acknowledged before an event published ahead of it (at most 10 named). */
  outOfOrder: string[];
  outOfOrderKeys: number;
  /** Acknowledgements of an event already acknowledged. */
  repeats: number;
  /** Published events never acknowledged. */
  missing: number;
  /** Acknowledged events of the run that were never published (another key, or past a key's last). */
  unexpected: number;
}

/**
 * Checks, key by key, the order the sink acknowledged a run's events in (`acknowledged`: ids in
 * the order acknowledged, any run's; those of other runs are left out) against the order they
 * were published in (`published`: events per key, numbered from 0 in publish order).
 */
export function checkOrder(
  prefix: string,
  acknowledged: readonly string[],
  published: ReadonlyMap<string, number>,
): OrderCheck {
  const byKey = new Map<string, number[]>();
  let unexpected = 0;
  for (const id of acknowledged) {
    const parsed = parseOrderedId(id);
    if (parsed === undefined || parsed.prefix !== prefix) continue;
    const count = published.get(parsed.key);
    if (count === undefined || parsed.seq >= count) {
      unexpected += 1;
      continue;
    }
    const seqs = byKey.get(parsed.key) ?? [];
    seqs.push(parsed.seq);
    byKey.set(parsed.key, seqs);
  }
  let inOrder = 0;
  let repeats = 0;
  let missing = 0;
  const outOfOrder: string[] = [];
  for (const [key, count] of published) {
    const seqs = byKey.get(key) ?? [];
    const firsts: number[] = [];
    const seen = new Set<number>();
    for (const seq of seqs) {
      if (seen.has(seq)) repeats += 1;
      else firsts.push(seq);
      seen.add(seq);
    }
    missing += count - seen.size;
    if (firsts.some((seq, index) => index > 0 && seq < (firsts[index - 1] as number))) outOfOrder.push(key);
    if (seqs.length === count && seqs.every((seq, index) => seq === index)) inOrder += 1;
  }
  return {
    keys: published.size,
    inOrder,
    outOfOrder: outOfOrder.slice(0, 10),
    outOfOrderKeys: outOfOrder.length,
    repeats,
    missing,
    unexpected,
  };
}

/** Several runs' order checks as one. */
export function combineChecks(checks: readonly OrderCheck[]): OrderCheck {
  const sum = (pick: (check: OrderCheck) => number) =>
    checks.reduce((total, check) => total + pick(check), 0);
  return {
    keys: sum((check) => check.keys),
    inOrder: sum((check) => check.inOrder),
    outOfOrder: checks.flatMap((check) => check.outOfOrder).slice(0, 10),
    outOfOrderKeys: sum((check) => check.outOfOrderKeys),
    repeats: sum((check) => check.repeats),
    missing: sum((check) => check.missing),
    unexpected: sum((check) => check.unexpected),
  };
}

/** Whether a check found every key's events delivered once each, in publish order. */
export const allInOrder = (check: OrderCheck): boolean =>
  check.keys > 0 && check.inOrder === check.keys && check.unexpected === 0;

export interface Rate {
  events: number;
  seconds: number;
  perSecond: number;
}

/**
 * Events that arrived after `from` (epoch ms) and their rate from `from` to the last of them.
 * From a release of a held first event: each of a key's later events arrives one full cycle
 * (delete, receive, invocation, webhook request) after the one before, the first one cycle after
 * the release.
 */
export function rateAfter(arrivedAt: readonly number[], from: number): Rate {
  let events = 0;
  let last = from;
  for (const at of arrivedAt) {
    if (at <= from) continue;
    events += 1;
    if (at > last) last = at;
  }
  const seconds = (last - from) / 1000;
  return { events, seconds, perSecond: seconds > 0 ? events / seconds : 0 };
}

/*
 * The per-key model. A key's messages are worked one after another: each costs a fixed overhead
 * (the receive that hands it out, the invocation, the delete that lets its group's next one be
 * received) and its webhook requests, one at a time. Locally the queue hands a group's messages
 * out one per receive, so the overhead is paid per message; measured as the time per message of
 * a key with a backlog and a webhook that answers at once. On AWS, Lambda takes up to 10 of a
 * group's messages in one batch when they are waiting, so the overhead is paid per batch.
 */

/** Messages of one key a second, each received and deleted on its own (`requestMs` of webhook requests each). */
export const messagesPerSecondAlone = (overheadMs: number, requestMs: number): number =>
  1000 / Math.max(1e-9, overheadMs + requestMs);

/** Messages of one key a second, `batch` of them received, invoked and deleted together. */
export const messagesPerSecondBatched = (overheadMs: number, requestMs: number, batch: number): number =>
  (1000 * batch) / Math.max(1e-9, overheadMs + batch * requestMs);

/**
 * Lambda scales a FIFO queue's invocations to its active message groups, at most the event
 * source's maximum concurrency (`QUEUES.ordered.consumer.maxConcurrency`): a subscription with
 * `keys` busy keys delivers about that many keys' rates at once (more when batches mix groups).
 */
export const subscriptionRate = (perKey: number, keys: number, maxConcurrency: number): number =>
  perKey * Math.min(keys, maxConcurrency);

/** The AWS model of a webhook answering in `webhookMs`, with the overhead measured locally. */
export function awsModel(options: {
  /** Local ms per message, unbatched subscription, webhook answering at once. */
  overheadMs: number;
  /** Local ms per message of `eventsPerBatchedMessage` events in one webhook request. */
  batchedOverheadMs: number;
  eventsPerBatchedMessage: number;
  webhookMs: number;
  keys: number;
  maxConcurrency: number;
  /** Messages of a group Lambda takes in one batch at most. */
  lambdaBatch: number;
}) {
  const { overheadMs, batchedOverheadMs, webhookMs, lambdaBatch } = options;
  const unbatched = {
    oneAtATime: messagesPerSecondAlone(overheadMs, webhookMs),
    backlogged: messagesPerSecondBatched(overheadMs, webhookMs, lambdaBatch),
  };
  const batched = {
    oneAtATime: options.eventsPerBatchedMessage * messagesPerSecondAlone(batchedOverheadMs, webhookMs),
    backlogged:
      options.eventsPerBatchedMessage * messagesPerSecondBatched(batchedOverheadMs, webhookMs, lambdaBatch),
  };
  return {
    webhookMs,
    perKey: { unbatched, batched },
    perSubscription: {
      keys: options.keys,
      oneAtATime: subscriptionRate(unbatched.oneAtATime, options.keys, options.maxConcurrency),
      backlogged: subscriptionRate(unbatched.backlogged, options.keys, options.maxConcurrency),
    },
  };
}

/** What a window of a run used, as the usage collector takes it. */
export interface WindowUsage {
  aws: RequestCounts;
  lambda: Record<string, LambdaUsage>;
  httpRequests: number;
}

/**
 * A window's usage as the cost model takes it, per `events`: empty receives left out (on AWS,
 * the pollers' long polls of an idle queue are a monthly cost, not a per-event one, as the bill
 * counts them), the requests to FIFO queues (the ordered queue) priced at the FIFO price.
 */
export function usageForCost(window: WindowUsage, events: number): Usage {
  const { aws } = window;
  return {
    events,
    httpRequests: window.httpRequests,
    lambda: window.lambda as Usage['lambda'],
    sqsBilledRequests: aws.sqsBilledRequests - aws.sqsEmptyReceives,
    sqsFifoBilledRequests: aws.sqsFifoBilledRequests - aws.sqsFifoEmptyReceives,
    dynamoWriteUnits: aws.dynamoWriteUnits,
    dynamoReadUnits: aws.dynamoReadUnits,
    s3Puts: aws.requests['s3:PutObject'] ?? 0,
    s3Gets: aws.requests['s3:GetObject'] ?? 0,
  };
}

/** Requests to FIFO queues, by what they do (empty receives left out). */
export function fifoRequests(aws: RequestCounts) {
  const of = (...operations: string[]) =>
    operations.reduce((sum, operation) => sum + (aws.sqsFifoRequests[operation] ?? 0), 0);
  return {
    sends: of('SendMessageBatch', 'SendMessage'),
    receives: of('ReceiveMessage'),
    deletes: of('DeleteMessageBatch', 'DeleteMessage'),
    visibilityChanges: of('ChangeMessageVisibility', 'ChangeMessageVisibilityBatch'),
  };
}

/** Requests to FIFO queues per event, by what they do. */
export function fifoRequestsPerEvent(aws: RequestCounts, events: number) {
  const counts = fifoRequests(aws);
  const per = (count: number) => count / Math.max(1, events);
  return {
    sends: per(counts.sends),
    receives: per(counts.receives),
    deletes: per(counts.deletes),
    visibilityChanges: per(counts.visibilityChanges),
  };
}

/** The kind of item ordered delivery keeps a waiting message's progress in (`ORDERED#...`). */
export const PROGRESS_KIND = 'ORDERED';

/** DynamoDB work of a window: every write, and reads and writes of ordered progress. */
export const dynamoOf = (aws: RequestCounts) => ({
  writeUnits: aws.dynamoWriteUnits,
  progressWrites: aws.dynamoWrites[PROGRESS_KIND]?.requests ?? 0,
  progressReads: aws.dynamoGets[PROGRESS_KIND] ?? 0,
});

/** A drain of keys with a backlog: their events from the release to the last. */
export interface DrainRun {
  rate: Rate;
  /** Events per message (per webhook request when the subscription batches them all). */
  eventsPerMessage: number;
  /** How long the sink took to answer each request after the release. */
  webhookMs: number;
  /** Answers the release let go (requests in flight then). */
  released: number;
  /** Events published and not yet acknowledged at the release: what the drain delivers. */
  backlog: number;
}

/** A window with the sink answering at once and nothing held: its usage and its publishes. */
export interface CostRun {
  events: number;
  usage: WindowUsage;
  publishLatencies: number[];
}

export interface OrderedRuns {
  oneKey: { drain: DrainRun; cost: CostRun };
  oneKeySlowWebhook: DrainRun;
  oneKeyBatched: { drain: DrainRun; cost: CostRun; perRequest: number; maxEventsPerBatch: number };
  manyKeys: { keys: number; perRequest: number; drain: DrainRun; cost: CostRun };
  unordered: { drain: DrainRun; cost: CostRun };
  order: OrderCheck;
  /** The event source's maximum concurrency and Lambda's largest batch from a FIFO queue. */
  maxConcurrency: number;
  lambdaBatch: number;
  /** Webhook answer times the AWS model is given at. */
  modelWebhookMs: readonly number[];
}

const money = (breakdown: CostBreakdown) =>
  Object.fromEntries(Object.entries(breakdown).map(([name, value]) => [name, round(value, 5)]));

/** Per message ms of a drain. */
const msPerMessage = (drain: DrainRun) =>
  drain.rate.perSecond > 0 ? (1000 * drain.eventsPerMessage) / drain.rate.perSecond : Number.NaN;

/** The scenario's figures, and the model and costs behind them, from what the runs measured. */
export function orderedFigures(runs: OrderedRuns) {
  const { oneKey, oneKeySlowWebhook: slow, oneKeyBatched: batched, manyKeys, unordered } = runs;
  const overheadMs = msPerMessage(oneKey.drain);
  const batchedOverheadMs = msPerMessage(batched.drain);
  const slowPredicted = messagesPerSecondAlone(overheadMs, slow.webhookMs) * slow.eventsPerMessage;
  const models = runs.modelWebhookMs.map((webhookMs) =>
    awsModel({
      overheadMs,
      batchedOverheadMs,
      eventsPerBatchedMessage: batched.drain.eventsPerMessage,
      webhookMs,
      keys: manyKeys.keys,
      maxConcurrency: runs.maxConcurrency,
      lambdaBatch: runs.lambdaBatch,
    }),
  );
  const priced = (run: CostRun) => costPerMillionEvents(usageForCost(run.usage, run.events));
  const cost = {
    oneKey: priced(oneKey.cost),
    oneKeyBatched: priced(batched.cost),
    manyKeys: priced(manyKeys.cost),
    unordered: priced(unordered.cost),
  };
  const fifo = fifoRequestsPerEvent(manyKeys.cost.usage.aws, manyKeys.cost.events);
  const fifoOneKey = fifoRequestsPerEvent(oneKey.cost.usage.aws, oneKey.cost.events);
  const orderedWindows = [oneKey.cost, batched.cost, manyKeys.cost];
  const dynamo = orderedWindows.map((run) => dynamoOf(run.usage.aws));
  const dynamoTotal = {
    writeUnits: dynamo.reduce((sum, d) => sum + d.writeUnits, 0),
    progressWrites: dynamo.reduce((sum, d) => sum + d.progressWrites, 0),
    progressReads: dynamo.reduce((sum, d) => sum + d.progressReads, 0),
  };
  const visibilityChanges = orderedWindows.reduce(
    (sum, run) => sum + fifoRequests(run.usage.aws).visibilityChanges,
    0,
  );
  const order = runs.order;
  const eventsPerSecond = (value: number) => round(value, value >= 100 ? 0 : 1);
  const [firstModel] = models;
  const modelText = (model: ReturnType<typeof awsModel>) =>
    `${eventsPerSecond(model.perKey.unbatched.oneAtATime)} / ${eventsPerSecond(model.perKey.unbatched.backlogged)}`;
  const figures: Figure[] = [
    {
      metric:
        'per key, one event a request, webhook answering at once: delivered events/s (a key with a backlog)',
      value: eventsPerSecond(oneKey.drain.rate.perSecond),
      unit: 'events/s',
    },
    {
      metric: `per key, batching (maxEventsPerBatch ${batched.maxEventsPerBatch}), ${batched.perRequest} events a request: delivered events/s`,
      value: eventsPerSecond(batched.drain.rate.perSecond),
      unit: 'events/s',
    },
    {
      metric: `per key, webhook answering in ${slow.webhookMs} ms: measured (local model: 1 / (${round(overheadMs, 1)} ms + ${slow.webhookMs} ms))`,
      value: `${eventsPerSecond(slow.rate.perSecond)} (${eventsPerSecond(slowPredicted)})`,
      unit: 'events/s',
    },
    {
      metric: `per subscription, ${manyKeys.keys} keys, ${manyKeys.perRequest} events a request: ordered (unordered, same load)`,
      value: `${eventsPerSecond(manyKeys.drain.rate.perSecond)} (${eventsPerSecond(unordered.drain.rate.perSecond)})`,
      unit: 'events/s',
    },
    {
      metric: 'keys whose events were delivered in publish order, once each (all ordered runs)',
      value: `${order.inOrder} / ${order.keys}`,
      unit: 'keys',
      goal: 'all',
      met: allInOrder(order),
    },
    {
      metric: `FIFO SQS requests per event, ${manyKeys.keys} keys: sends / receives / deletes / visibility changes (one key, one a request)`,
      value: `${round(fifo.sends, 3)} / ${round(fifo.receives, 3)} / ${round(fifo.deletes, 3)} / ${round(fifo.visibilityChanges, 3)} (${round(fifoOneKey.sends, 2)} / ${round(fifoOneKey.receives, 2)} / ${round(fifoOneKey.deletes, 2)} / ${round(fifoOneKey.visibilityChanges, 2)})`,
      unit: 'requests',
    },
    {
      metric: 'happy path: DynamoDB write units, ordered-progress reads, visibility changes',
      value: `${dynamoTotal.writeUnits} / ${dynamoTotal.progressReads} / ${visibilityChanges}`,
      unit: '',
      goal: '0 / 0 / 0',
      met: dynamoTotal.writeUnits === 0 && dynamoTotal.progressReads === 0 && visibilityChanges === 0,
    },
    {
      metric: `modelled AWS cost per million events, ${manyKeys.keys} keys, ${manyKeys.perRequest} a request: ordered (unordered, same load)`,
      value: `${round(cost.manyKeys.total, 4)} (${round(cost.unordered.total, 4)})`,
      unit: 'USD',
    },
    {
      metric: 'modelled AWS cost per million events, one key, one event a request (10 a request, batching)',
      value: `${round(cost.oneKey.total, 4)} (${round(cost.oneKeyBatched.total, 4)})`,
      unit: 'USD',
    },
    {
      metric: `publish request p50 / p99, ${manyKeys.keys} keys, ${manyKeys.perRequest} a request: ordered (unordered)`,
      value: `${p50p99(manyKeys.cost.publishLatencies)} (${p50p99(unordered.cost.publishLatencies)})`,
      unit: 'ms',
    },
  ];
  if (firstModel !== undefined) {
    figures.push(
      {
        metric: `model, AWS per key, unbatched, webhook answering in ${firstModel.webhookMs} ms: one message a receive / up to ${runs.lambdaBatch} of the key a batch`,
        value: modelText(firstModel),
        unit: 'events/s',
      },
      {
        metric: `model, AWS per subscription, ${manyKeys.keys} busy keys, webhook ${firstModel.webhookMs} ms: min(keys, ${runs.maxConcurrency} invocations) x per key`,
        value: `${eventsPerSecond(firstModel.perSubscription.oneAtATime)} / ${eventsPerSecond(firstModel.perSubscription.backlogged)}`,
        unit: 'events/s',
      },
    );
  }
  return {
    figures,
    overheadMs,
    batchedOverheadMs,
    slowPredicted,
    models,
    cost: {
      oneKey: money(cost.oneKey),
      oneKeyBatched: money(cost.oneKeyBatched),
      manyKeys: money(cost.manyKeys),
      unordered: money(cost.unordered),
      sqsPricePerMillion: {
        standard: round(PRICES.sqs.perRequest * 1_000_000, 2),
        fifo: round(PRICES.sqs.fifoPerRequest * 1_000_000, 2),
      },
    },
    fifoRequestsPerEvent: { manyKeys: fifo, oneKey: fifoOneKey },
    dynamo: dynamoTotal,
  };
}

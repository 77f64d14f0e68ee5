import { AwsRequestCounter, type RequestCounts } from '../../bench/aws-counter';
import { costPerMillionEvents, emptyLambdaUsage } from '../../bench/cost';
import {
  allInOrder,
  awsModel,
  type CostRun,
  checkOrder,
  combineChecks,
  type DrainRun,
  dynamoOf,
  eventsPerKey,
  fifoRequestsPerEvent,
  messagesOf,
  messagesPerSecondAlone,
  messagesPerSecondBatched,
  type OrderedRuns,
  orderedEventId,
  orderedFigures,
  parseOrderedId,
  rateAfter,
  requestEvents,
  subscriptionRate,
  usageForCost,
} from '../../bench/ordered';
import { PRICES } from '../../bench/prices';

describe('the ordered load', () => {
  it('gives one key its next events, in order, however many a request', () => {
    expect(requestEvents({ keys: 1, perRequest: 1 }, 'run', 0)).toEqual([
      { id: 'run.k0.0', key: 'k0', seq: 0 },
    ]);
    expect(requestEvents({ keys: 1, perRequest: 1 }, 'run', 7)).toEqual([
      { id: 'run.k0.7', key: 'k0', seq: 7 },
    ]);
    expect(requestEvents({ keys: 1, perRequest: 10 }, 'run', 2).map((event) => event.seq)).toEqual([
      20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
    ]);
  });

  it('gives each of 100 keys one event a request of 100, the next of its own', () => {
    const load = { keys: 100, perRequest: 100 };
    const third = requestEvents(load, 'many', 3);
    expect(third).toHaveLength(100);
    expect(new Set(third.map((event) => event.key)).size).toBe(100);
    expect(third.every((event) => event.seq === 3)).toBe(true);
    expect(third[42]).toEqual({ id: 'many.k42.3', key: 'k42', seq: 3 });
    expect(messagesOf(load, 5)).toBe(500);
    expect(messagesOf({ keys: 1, perRequest: 10 }, 5)).toBe(5);
  });

  it('counts the events each key has been published', () => {
    expect(eventsPerKey({ keys: 100, perRequest: 100 }, 3)).toEqual(
      new Map(Array.from({ length: 100 }, (_, key) => [`k${key}`, 3])),
    );
    expect(eventsPerKey({ keys: 1, perRequest: 10 }, 4)).toEqual(new Map([['k0', 40]]));
    // 25 events over 10 keys: the first five keys have one more.
    const uneven = eventsPerKey({ keys: 10, perRequest: 5 }, 5);
    expect(uneven.get('k4')).toBe(3);
    expect(uneven.get('k5')).toBe(2);
    expect([...uneven.values()].reduce((a, b) => a + b, 0)).toBe(25);
    expect(eventsPerKey({ keys: 10, perRequest: 1 }, 0).size).toBe(0);
  });

  it('reads back the run, key and place of its ids, and nothing of other ids', () => {
    expect(parseOrderedId(orderedEventId('orderedonekey', 'k0', 12))).toEqual({
      prefix: 'orderedonekey',
      key: 'k0',
      seq: 12,
    });
    expect(parseOrderedId('warm-up-17')).toBeUndefined();
    expect(parseOrderedId('a.b.c')).toBeUndefined();
    expect(parseOrderedId('a.b.1.2')).toBeUndefined();
    expect(parseOrderedId('.k0.1')).toBeUndefined();
  });
});

describe('the order check', () => {
  const published = new Map([
    ['k0', 3],
    ['k1', 2],
  ]);

  it('passes every key whose events came once each, in publish order, keys interleaved', () => {
    const check = checkOrder(
      'r',
      ['r.k0.0', 'other.k0.5', 'r.k1.0', 'r.k0.1', 'r.k1.1', 'warm-up-3', 'r.k0.2'],
      published,
    );
    expect(check).toEqual({
      keys: 2,
      inOrder: 2,
      outOfOrder: [],
      outOfOrderKeys: 0,
      repeats: 0,
      missing: 0,
      unexpected: 0,
    });
    expect(allInOrder(check)).toBe(true);
  });

  it('fails a key delivered out of order, one with a repeat, and one with a gap', () => {
    const swapped = checkOrder('r', ['r.k0.1', 'r.k0.0', 'r.k0.2', 'r.k1.0', 'r.k1.1'], published);
    expect(swapped.inOrder).toBe(1);
    expect(swapped.outOfOrder).toEqual(['k0']);
    expect(allInOrder(swapped)).toBe(false);

    // Delivered again after a later one: first deliveries in order, the sequence is not.
    const repeated = checkOrder('r', ['r.k0.0', 'r.k0.1', 'r.k0.0', 'r.k0.2', 'r.k1.0', 'r.k1.1'], published);
    expect(repeated).toMatchObject({ inOrder: 1, outOfOrderKeys: 0, repeats: 1, missing: 0 });
    expect(allInOrder(repeated)).toBe(false);

    const gap = checkOrder('r', ['r.k0.0', 'r.k0.2', 'r.k1.0', 'r.k1.1'], published);
    expect(gap).toMatchObject({ inOrder: 1, missing: 1, outOfOrderKeys: 0 });
    expect(allInOrder(gap)).toBe(false);
  });

  it('counts events never published, and fails on them', () => {
    const check = checkOrder(
      'r',
      ['r.k0.0', 'r.k0.1', 'r.k0.2', 'r.k0.3', 'r.k9.0', 'r.k1.0', 'r.k1.1'],
      published,
    );
    expect(check).toMatchObject({ inOrder: 2, unexpected: 2 });
    expect(allInOrder(check)).toBe(false);
    expect(allInOrder(checkOrder('r', [], new Map()))).toBe(false);
  });

  it('adds several runs up', () => {
    const good = checkOrder('r', ['r.k0.0', 'r.k0.1', 'r.k0.2', 'r.k1.0', 'r.k1.1'], published);
    const bad = checkOrder('s', ['s.k0.1', 's.k0.0'], new Map([['k0', 2]]));
    expect(combineChecks([good, bad])).toEqual({
      keys: 3,
      inOrder: 2,
      outOfOrder: ['k0'],
      outOfOrderKeys: 1,
      repeats: 0,
      missing: 0,
      unexpected: 0,
    });
  });
});

describe('rates and the per-key model', () => {
  it('takes the rate of the events that arrived after a release, to the last of them', () => {
    // Held ones arrived before the release (at 1,000); 4 more, the last 200 ms after it.
    expect(rateAfter([900, 950, 1050, 1100, 1150, 1200], 1000)).toEqual({
      events: 4,
      seconds: 0.2,
      perSecond: 20,
    });
    expect(rateAfter([900], 1000)).toEqual({ events: 0, seconds: 0, perSecond: 0 });
  });

  it('pays the overhead per message one at a time, once per batch with a backlog', () => {
    // 10 ms of overhead, an instant answer: 100 a second; a 20 ms answer: 1 / 30 ms.
    expect(messagesPerSecondAlone(10, 0)).toBeCloseTo(100, 9);
    expect(messagesPerSecondAlone(10, 20)).toBeCloseTo(1000 / 30, 9);
    // 10 in a batch: 10 / (10 ms + 10 x 20 ms).
    expect(messagesPerSecondBatched(10, 20, 10)).toBeCloseTo(10_000 / 210, 9);
    expect(messagesPerSecondBatched(10, 20, 1)).toBeCloseTo(messagesPerSecondAlone(10, 20), 9);
    // At most the event source's concurrency of keys at once.
    expect(subscriptionRate(30, 100, 50)).toBe(1500);
    expect(subscriptionRate(30, 4, 50)).toBe(120);
  });

  it('models AWS from the local overheads, per key and per subscription', () => {
    const model = awsModel({
      overheadMs: 10,
      batchedOverheadMs: 12,
      eventsPerBatchedMessage: 10,
      webhookMs: 20,
      keys: 100,
      maxConcurrency: 50,
      lambdaBatch: 10,
    });
    expect(model.perKey.unbatched.oneAtATime).toBeCloseTo(1000 / 30, 9);
    expect(model.perKey.unbatched.backlogged).toBeCloseTo(10_000 / 210, 9);
    expect(model.perKey.batched.oneAtATime).toBeCloseTo((10 * 1000) / 32, 9);
    expect(model.perKey.batched.backlogged).toBeCloseTo((10 * 10_000) / 212, 9);
    expect(model.perSubscription.oneAtATime).toBeCloseTo((50 * 1000) / 30, 9);
    expect(model.perSubscription.backlogged).toBeCloseTo((50 * 10_000) / 210, 9);
  });
});

/**
 * Counts as a window of `requests` publishes to one ordered subscription would make, each with
 * `keys` keys (a message each), the queue handing out `perReceive` messages a receive.
 */
function orderedWindow(requests: number, keys: number, perReceive: number): RequestCounts {
  const counter = new AwsRequestCounter();
  const fifo = 'http://127.0.0.1:1/000000000000/gridwire-ordered.fifo';
  for (let i = 0; i < requests * Math.ceil(keys / 10); i += 1) {
    counter.record('sqs', 'SendMessageBatch', { QueueUrl: fifo, Entries: [{ MessageBody: 'x' }] }, {});
  }
  for (let i = 0; i < Math.ceil((requests * keys) / perReceive); i += 1) {
    counter.record('sqs', 'ReceiveMessage', { QueueUrl: fifo }, { Messages: [{ Body: 'x' }] });
    counter.record('sqs', 'DeleteMessageBatch', { QueueUrl: fifo }, {});
  }
  // Idle polls: on this queue and another, left out of the price.
  counter.record('sqs', 'ReceiveMessage', { QueueUrl: fifo }, { Messages: [] });
  counter.record('sqs', 'ReceiveMessage', { QueueUrl: 'http://q/gridwire-retry' }, { Messages: [] });
  counter.record('dynamodb', 'GetItem', { Key: { pk: 'TOPIC#t', sk: '#TOPIC' } }, {});
  return counter.take();
}

const costRun = (events: number, aws: RequestCounts, publishes: number): CostRun => {
  const lambda = emptyLambdaUsage();
  lambda.publish = { invocations: publishes, gbSeconds: publishes * 0.01 };
  lambda.delivery = { invocations: 10, gbSeconds: 1 };
  return {
    events,
    usage: { aws, lambda, httpRequests: publishes },
    publishLatencies: Array.from({ length: publishes }, (_, i) => 10 + i),
  };
};

describe('the priced windows', () => {
  it('leaves idle polls out and prices the ordered queue at the FIFO price', () => {
    const aws = orderedWindow(100, 1, 1);
    expect(aws.sqsBilledRequests).toBe(100 + 100 + 100 + 2);
    const usage = usageForCost({ aws, lambda: emptyLambdaUsage(), httpRequests: 100 }, 100);
    expect(usage.sqsBilledRequests).toBe(300);
    expect(usage.sqsFifoBilledRequests).toBe(300);
    // 3 requests an event at $0.50/M: $1.50 per million.
    expect(costPerMillionEvents(usage).sqs).toBeCloseTo(300 * PRICES.sqs.fifoPerRequest * 10_000, 9);
    expect(costPerMillionEvents(usage).sqs).toBeCloseTo(1.5, 9);
    expect(fifoRequestsPerEvent(aws, 100)).toEqual({
      sends: 1,
      receives: 1,
      deletes: 1,
      visibilityChanges: 0,
    });
    // 100 keys a request, 10 messages a receive: a tenth of a request of each kind an event.
    expect(fifoRequestsPerEvent(orderedWindow(10, 100, 10), 1000)).toEqual({
      sends: 0.1,
      receives: 0.1,
      deletes: 0.1,
      visibilityChanges: 0,
    });
    expect(dynamoOf(aws)).toEqual({ writeUnits: 0, progressWrites: 0, progressReads: 0 });
  });

  it('finds ordered progress read or written', () => {
    const counter = new AwsRequestCounter();
    counter.record('dynamodb', 'GetItem', { Key: { pk: 'ORDERED#t#s#d', sk: '#PROGRESS' } }, {});
    counter.record('dynamodb', 'PutItem', { Item: { pk: 'ORDERED#t#s#d', sk: '#PROGRESS' } }, {});
    expect(dynamoOf(counter.take())).toEqual({ writeUnits: 1, progressWrites: 1, progressReads: 1 });
  });
});

describe('the ordered figures', () => {
  const drain = (perSecond: number, eventsPerMessage = 1, webhookMs = 0): DrainRun => ({
    rate: { events: perSecond, seconds: 1, perSecond },
    eventsPerMessage,
    webhookMs,
    released: 1,
    backlog: perSecond,
  });
  const runs = (overrides: Partial<OrderedRuns> = {}): OrderedRuns => ({
    // 10 ms a message with an instant answer; 1 / (10 + 20) ms measured with a 20 ms answer.
    oneKey: { drain: drain(100), cost: costRun(100, orderedWindow(100, 1, 1), 100) },
    oneKeySlowWebhook: drain(1000 / 30, 1, 20),
    oneKeyBatched: {
      drain: drain(800, 10),
      cost: costRun(100, orderedWindow(10, 1, 1), 10),
      perRequest: 10,
      maxEventsPerBatch: 10,
    },
    manyKeys: {
      keys: 100,
      perRequest: 100,
      drain: drain(1500),
      cost: costRun(1000, orderedWindow(10, 100, 10), 10),
    },
    unordered: { drain: drain(4000), cost: costRun(1000, new AwsRequestCounter().take(), 10) },
    order: checkOrder('r', ['r.k0.0', 'r.k0.1'], new Map([['k0', 2]])),
    maxConcurrency: 50,
    lambdaBatch: 10,
    modelWebhookMs: [20, 100],
    ...overrides,
  });
  const figure = (result: ReturnType<typeof orderedFigures>, start: string) => {
    const found = result.figures.find((f) => f.metric.startsWith(start));
    if (found === undefined) throw new Error(`no figure ${start}`);
    return found;
  };

  it('reports the rates, the model against the slow webhook, and the order as met', () => {
    const result = orderedFigures(runs());
    expect(result.overheadMs).toBeCloseTo(10, 9);
    expect(result.batchedOverheadMs).toBeCloseTo(12.5, 9);
    expect(result.slowPredicted).toBeCloseTo(1000 / 30, 9);
    expect(figure(result, 'per key, one event a request').value).toBe(100);
    expect(figure(result, 'per key, webhook answering in 20 ms').value).toBe('33.3 (33.3)');
    expect(figure(result, 'per subscription, 100 keys').value).toBe('1500 (4000)');
    expect(figure(result, 'keys whose events')).toMatchObject({ value: '1 / 1', met: true });
    expect(figure(result, 'happy path')).toMatchObject({ value: '0 / 0 / 0', met: true });
    expect(figure(result, 'FIFO SQS requests per event').value).toBe('0.1 / 0.1 / 0.1 / 0 (1 / 1 / 1 / 0)');
    expect(figure(result, 'model, AWS per key').value).toBe('33.3 / 47.6');
    expect(figure(result, 'model, AWS per subscription').value).toBe('1667 / 2381');
    expect(result.models.map((model) => model.webhookMs)).toEqual([20, 100]);
  });

  it('prices the ordered windows with the FIFO price, and the unordered one without', () => {
    const result = orderedFigures(runs());
    // 100 keys: 100 sends, receives and deletes each per 1,000 events, at $0.50/M.
    expect(result.cost.manyKeys.sqs).toBeCloseTo(0.15, 5);
    expect(result.cost.oneKey.sqs).toBeCloseTo(1.5, 5);
    expect(result.cost.unordered.sqs).toBe(0);
    expect(result.cost.sqsPricePerMillion).toEqual({ standard: 0.4, fifo: 0.5 });
  });

  it('fails the order figure on a key out of order, and the happy path on a visibility change', () => {
    const aws = orderedWindow(10, 100, 10);
    aws.sqsFifoRequests.ChangeMessageVisibility = 3;
    const result = orderedFigures(
      runs({
        order: checkOrder('r', ['r.k0.1', 'r.k0.0'], new Map([['k0', 2]])),
        manyKeys: { keys: 100, perRequest: 100, drain: drain(1500), cost: costRun(1000, aws, 10) },
      }),
    );
    expect(figure(result, 'keys whose events')).toMatchObject({ value: '0 / 1', met: false });
    expect(figure(result, 'happy path')).toMatchObject({ value: '0 / 0 / 3', met: false });
  });
});

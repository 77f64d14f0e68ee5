/**
 * Every metric operators watch, triggered through the code that emits it: name, unit, the
 * dimension sets of docs/ARCHITECTURE.md ("Metrics") and the value.
 */

import { createPublishHandler } from '../../../functions/publish';
import { lambdaContext } from '../../../local/lambda-context';
import { FUNCTIONS } from '../../../shared/config/resources';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { badRequest, notFound, unauthorized } from '../../../shared/http/errors';
import { publishFailureDimensions } from '../../../shared/lambda/middleware';
import { createObservability } from '../../../shared/lambda/wiring';
import { silentLogger } from '../../../shared/observability/logging';
import {
  deliveryFailureDimensions,
  dimensionSetsFor,
  METRIC,
  METRIC_DIMENSION_SETS,
  MetricBuffer,
  type MetricName,
  type MetricPoint,
  seriesFor,
} from '../../../shared/observability/metrics';
import { Publisher } from '../../../shared/publish/publisher';
import {
  deadLetterStepHarness,
  engineHarness,
  item,
  job,
  MemoryFanOutStore,
  RecordingQueue,
  subscription,
  topicFixture,
  VirtualClock,
} from '../../support/fakes';
import { MemoryAcceptedIds } from '../../support/memory-stores';

const farFuture = Number.MAX_SAFE_INTEGER;
const run = { attemptDeadline: farFuture };
const AUDIT = { Topic: 'orders', EventSubscriptionName: 'AUDIT' };

/** The series of one metric: `[dimensions, unit, values]`, in any order. */
const seriesOf = (points: readonly MetricPoint[], name: MetricName) =>
  points.filter((point) => point.name === name).map((point) => [point.dimensions, point.unit, point.values]);

const topic = topicFixture();

const eventGridEvent = (id: string, eventType = 'Order.Created') => ({
  id,
  subject: 'orders/1',
  eventType,
  eventTime: '2026-01-01T00:00:00Z',
  data: {},
});

/**
 * The publish handler over a store with topic `orders` (subscription `audit` takes
 * `Order.Created`), counting per subscription unless told otherwise.
 */
function publishSetup({ subscriptionMetrics = true, metricsFlushSeconds = 0 } = {}) {
  const clock = new VirtualClock();
  const points: MetricPoint[] = [];
  const observability = createObservability('publish', {
    logLevel: 'SILENT',
    publishMetrics: (flushed) => points.push(...flushed),
    subscriptionMetrics,
    metricsFlushSeconds,
    clock,
  });
  const publisher = new Publisher({
    store: {
      getTopic: async (name) => (name.toLowerCase() === 'orders' ? topic : undefined),
      getNamespace: async () => undefined,
      getNamespaceTopic: async () => undefined,
      listSubscriptions: async () => [subscription({ filter: { includedEventTypes: ['Order.Created'] } })],
    },
    queue: new RecordingQueue(clock),
    acceptedIds: new MemoryAcceptedIds(),
    fanOuts: new MemoryFanOutStore(),
    clock,
    metrics: observability.buffer,
    logger: silentLogger,
    newId: () => 'pub-1',
    topicCacheMs: 0,
  });
  const handler = createPublishHandler({ publisher, observability });
  const publish = async (name: string, body: string, key = 'key-one') => {
    const event = {
      version: '2.0',
      routeKey: 'POST /topics/{topic}/api/events',
      rawPath: `/topics/${name}/api/events`,
      rawQueryString: '',
      headers: { 'aeg-sas-key': key, 'content-type': 'application/json' },
      pathParameters: { topic: name },
      body,
      isBase64Encoded: false,
      requestContext: { routeKey: 'POST /topics/{topic}/api/events' },
    } as unknown as HttpEvent;
    const result = await handler(event, lambdaContext(FUNCTIONS.publish));
    return result.statusCode;
  };
  return { publish, points, clock };
}

describe('the dimension sets', () => {
  it('never cross a subscription with a reason or an error, and give every metric a stack-wide series', () => {
    for (const [name, sets] of Object.entries(METRIC_DIMENSION_SETS)) {
      expect([name, sets[0]]).toEqual([name, []]);
      for (const set of sets) {
        if (set.includes('EventSubscriptionName')) expect(set).toEqual(['Topic', 'EventSubscriptionName']);
      }
    }
    expect(Object.keys(METRIC_DIMENSION_SETS).sort()).toEqual(Object.values(METRIC).sort());
  });
});

describe('with subscription metrics off (the default on AWS)', () => {
  const off = { subscriptionMetrics: false };

  it('count per topic what would be counted per subscription, and change no other series', () => {
    for (const [name, sets] of Object.entries(METRIC_DIMENSION_SETS) as [MetricName, string[][]][]) {
      const expected = sets.map((set) => (set.includes('EventSubscriptionName') ? ['Topic'] : set));
      expect([name, dimensionSetsFor(name, off)]).toEqual([name, expected]);
      expect([name, dimensionSetsFor(name, { subscriptionMetrics: true })]).toEqual([name, sets]);
    }
  });

  it('are what a function builds when the setting is absent', async () => {
    const points: MetricPoint[] = [];
    const observability = createObservability('delivery', {
      logLevel: 'SILENT',
      publishMetrics: (flushed) => points.push(...flushed),
    });
    observability.buffer.count(METRIC.DeliverySuccessCount, 2, AUDIT);
    expect(observability.buffer.drain().map((point) => point.dimensions)).toEqual([{}, { Topic: 'orders' }]);
  });

  it('count matched events per topic, with the same stack-wide count', async () => {
    const { publish, points } = publishSetup(off);

    await publish(
      'orders',
      JSON.stringify([eventGridEvent('e1'), eventGridEvent('e2'), eventGridEvent('e3', 'Order.Shipped')]),
    );

    expect(seriesOf(points, METRIC.MatchedEventCount)).toEqual([
      [{}, 'Count', [2]],
      [{ Topic: 'orders' }, 'Count', [2]],
    ]);
    expect(points.filter((point) => 'EventSubscriptionName' in point.dimensions)).toEqual([]);
  });

  it('count deliveries, response times and failed attempts per topic; errors stay stack-wide', async () => {
    const h = engineHarness({ metrics: new MetricBuffer(seriesFor(off)) });
    h.sender.answerWith({ delivered: true, httpStatus: 200, durationMs: 25 });
    await h.engine.processJob(job([item('e1', h.clock.now()), item('e2', h.clock.now())]), run);
    h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError', durationMs: 40 });
    await h.engine.processJob(job([item('e3', h.clock.now())]), run);

    const points = h.metrics.drain();
    expect(seriesOf(points, METRIC.DeliverySuccessCount)).toEqual([
      [{}, 'Count', [2]],
      [{ Topic: 'orders' }, 'Count', [2]],
    ]);
    expect(seriesOf(points, METRIC.DestinationProcessingDurationInMs)).toEqual([
      [{}, 'Milliseconds', [25, 25, 40]],
      [{ Topic: 'orders' }, 'Milliseconds', [25, 25, 40]],
    ]);
    expect(seriesOf(points, METRIC.DeliveryAttemptFailCount)).toEqual([
      [{}, 'Count', [1]],
      [{ Topic: 'orders' }, 'Count', [1]],
      [{ Error: 'GenericError', ErrorType: 'ServerError' }, 'Count', [1]],
    ]);
    expect(points.filter((point) => 'EventSubscriptionName' in point.dimensions)).toEqual([]);
  });
});

describe('publish metrics', () => {
  it('counts accepted events per topic: PublishSuccessCount, PublishSuccessLatencyInMs, MatchedEventCount, UnmatchedEventCount', async () => {
    const { publish, points } = publishSetup();

    const status = await publish(
      'orders',
      JSON.stringify([eventGridEvent('e1'), eventGridEvent('e2'), eventGridEvent('e3', 'Order.Shipped')]),
    );

    expect(status).toBe(200);
    expect(seriesOf(points, METRIC.PublishSuccessCount)).toEqual([
      [{}, 'Count', [3]],
      [{ Topic: 'orders' }, 'Count', [3]],
    ]);
    expect(seriesOf(points, METRIC.UnmatchedEventCount)).toEqual([
      [{}, 'Count', [1]],
      [{ Topic: 'orders' }, 'Count', [1]],
    ]);
    expect(seriesOf(points, METRIC.MatchedEventCount)).toEqual([
      [{}, 'Count', [2]],
      [AUDIT, 'Count', [2]],
    ]);
    // The virtual clock stands still: the latency is 0, observed once per request.
    expect(seriesOf(points, METRIC.PublishSuccessLatencyInMs)).toEqual([
      [{}, 'Milliseconds', [0]],
      [{ Topic: 'orders' }, 'Milliseconds', [0]],
    ]);
    expect(seriesOf(points, METRIC.PublishFailCount)).toEqual([]);
  });

  it('counts a refused request of an authenticated caller in PublishFailCount by error and by topic', async () => {
    const { publish, points } = publishSetup();

    expect(await publish('orders', '{not json')).toBe(400);

    expect(seriesOf(points, METRIC.PublishFailCount)).toEqual(
      expect.arrayContaining([
        [{}, 'Count', [1]],
        [{ Topic: 'orders' }, 'Count', [1]],
        [{ ErrorType: 'BadRequest', Error: 'InputJsonInvalid' }, 'Count', [1]],
      ]),
    );
    expect(seriesOf(points, METRIC.PublishFailCount)).toHaveLength(3);
    expect(seriesOf(points, METRIC.PublishSuccessCount)).toEqual([]);
  });

  it('counts a failure before authentication stack-wide only: the topic named may not exist', async () => {
    const { publish, points } = publishSetup();

    const wrongKey = await publish('orders', JSON.stringify([eventGridEvent('e1')]), 'nope');
    const unknownTopic = await publish('no-such-topic', JSON.stringify([eventGridEvent('e1')]));

    expect([wrongKey, unknownTopic]).toEqual([401, expect.any(Number)]);
    const failures = seriesOf(points, METRIC.PublishFailCount);
    expect(failures.some(([dimensions]) => 'Topic' in (dimensions as object))).toBe(false);
    expect(failures).toEqual(expect.arrayContaining([[{}, 'Count', [1]]]));
    expect(
      points.filter(
        (point) => point.name === METRIC.PublishFailCount && point.dimensions.ErrorType === 'Unauthorized',
      ),
    ).toHaveLength(wrongKey === unknownTopic ? 2 : 1);
  });

  it.each([
    [
      'a 400',
      badRequest('x', 'InvalidContentType'),
      { ErrorType: 'BadRequest', Error: 'InvalidContentType' },
    ],
    ['a 401', unauthorized('x'), { ErrorType: 'Unauthorized', Error: 'Unauthorized' }],
    ['a 404', notFound('x'), { ErrorType: 'NotFound', Error: 'NotFound' }],
    [
      'an unexpected error',
      new Error('boom'),
      { ErrorType: 'InternalServerError', Error: 'InternalServerError' },
    ],
    [
      'the table unreachable before the key was checked',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      { ErrorType: 'DependencyUnavailable', Error: 'DependencyUnavailable' },
    ],
  ])('names a publish failure by its answer: %s', (_label, error, expected) => {
    expect(publishFailureDimensions(error)).toEqual(expected);
  });
});

describe('delivery metrics', () => {
  it('counts deliveries and their durations: DeliverySuccessCount, DestinationProcessingDurationInMs', async () => {
    const h = engineHarness();
    h.sender.answerWith({ delivered: true, httpStatus: 200, durationMs: 25 });

    await h.engine.processJob(job([item('e1', h.clock.now()), item('e2', h.clock.now())]), run);

    const points = h.metrics.drain();
    expect(seriesOf(points, METRIC.DeliverySuccessCount)).toEqual([
      [{}, 'Count', [2]],
      [AUDIT, 'Count', [2]],
    ]);
    expect(seriesOf(points, METRIC.DestinationProcessingDurationInMs)).toEqual([
      [{}, 'Milliseconds', [25, 25]],
      [AUDIT, 'Milliseconds', [25, 25]],
    ]);
  });

  it('counts failed attempts per subscription and by Error and ErrorType: DeliveryAttemptFailCount', async () => {
    const h = engineHarness();
    h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError' });

    await h.engine.processJob(job([item('e1', h.clock.now())]), run);

    expect(seriesOf(h.metrics.drain(), METRIC.DeliveryAttemptFailCount)).toEqual([
      [{}, 'Count', [1]],
      [AUDIT, 'Count', [1]],
      [{ Error: 'GenericError', ErrorType: 'ServerError' }, 'Count', [1]],
    ]);
  });

  it.each([
    [
      { httpStatus: 404, outcome: 'NotFound' },
      { Error: 'NotFound', ErrorType: 'ClientError' },
    ],
    [
      { httpStatus: 503, outcome: 'Busy' },
      { Error: 'Busy', ErrorType: 'ServerError' },
    ],
    [
      { httpStatus: 302, outcome: 'GenericError' },
      { Error: 'GenericError', ErrorType: 'UnexpectedAnswer' },
    ],
    [{ outcome: 'TimedOut' }, { Error: 'TimedOut', ErrorType: 'NetworkError' }],
  ] as const)('names a failed attempt %j as %j', (result, expected) => {
    expect(deliveryFailureDimensions(result)).toEqual(expected);
  });

  it('counts a probation once when it begins, and what it holds: ProbationEnteredCount, DeliveryHeldCount', async () => {
    const h = engineHarness({ concurrency: 1, randoms: [0, 0, 0, 0] });
    h.sender.answerWith({ httpStatus: 503, outcome: 'Busy' });
    const t0 = h.clock.now();

    await h.engine.processJob(job([0, 1, 2, 3].map((i) => item(`a${i}`, t0))), run);

    const points = h.metrics.drain();
    expect(seriesOf(points, METRIC.ProbationEnteredCount)).toEqual([
      [{}, 'Count', [1]],
      [AUDIT, 'Count', [1]],
    ]);
    expect(seriesOf(points, METRIC.DeliveryHeldCount)).toEqual([
      [{}, 'Count', [3]],
      [AUDIT, 'Count', [3]],
    ]);
  });

  it('counts events dropped for want of a dead-letter destination: DroppedEventCount', async () => {
    const h = engineHarness();
    h.subscriptions.set('orders/audit', subscription());
    h.sender.answerWith({ delivered: false, httpStatus: 400, outcome: 'BadRequest' });

    await h.engine.processJob(job([item('e1', h.clock.now()), item('e2', h.clock.now())]), run);

    expect(seriesOf(h.metrics.drain(), METRIC.DroppedEventCount)).toEqual([
      [{}, 'Count', [2]],
      [AUDIT, 'Count', [2]],
      [{ DropReason: 'NonRetriableOutcome' }, 'Count', [2]],
    ]);
  });

  it('counts events written to the dead-letter bucket: DeadLetteredCount', async () => {
    const h = engineHarness();
    h.sender.answerWith({ delivered: false, httpStatus: 400, outcome: 'BadRequest' });
    await h.engine.processJob(job([item('e1', h.clock.now())]), run);
    const blobs = new Map<string, string>();
    const { step, metrics } = deadLetterStepHarness({
      put: async (key: string, body: string) => {
        blobs.set(key, body);
      },
    });

    await step.write(h.queue.takeEnded().map((entry) => entry.job));

    expect(blobs.size).toBe(1);
    expect(seriesOf(metrics.drain(), METRIC.DeadLetteredCount)).toEqual([
      [{}, 'Count', [1]],
      [AUDIT, 'Count', [1]],
      [{ DeadLetterReason: 'NonRetriableOutcome' }, 'Count', [1]],
    ]);
  });
});

describe('the buffer', () => {
  it('leaves out a series whose dimensions the emitter did not give', () => {
    const buffer = new MetricBuffer();
    buffer.count(METRIC.PublishFailCount, 1, { ErrorType: 'Unauthorized', Error: 'Unauthorized' });
    expect(buffer.drain().map((point) => point.dimensions)).toEqual([
      {},
      { ErrorType: 'Unauthorized', Error: 'Unauthorized' },
    ]);
  });
});

describe('metric points kept across invocations (metricsFlushSeconds)', () => {
  const events = JSON.stringify([eventGridEvent('e1')]);
  const count = (points: readonly MetricPoint[], name: MetricName) =>
    points.filter((point) => point.name === name && Object.keys(point.dimensions).length === 0);

  it('are written after every invocation by default', async () => {
    const { publish, points } = publishSetup();
    expect(await publish('orders', events)).toBe(200);
    expect(seriesOf(points, METRIC.PublishSuccessCount)).toContainEqual([{}, 'Count', [1]]);
  });

  it('wait until the interval has passed since the last write, then go out summed in one set', async () => {
    const { publish, points, clock } = publishSetup({ subscriptionMetrics: false, metricsFlushSeconds: 60 });
    for (let request = 0; request < 6; request += 1) {
      expect(await publish('orders', events)).toBe(200);
      clock.advance(10_000);
    }
    // The sixth request ended 50 s after the flusher started: nothing written yet.
    expect(points).toEqual([]);
    expect(await publish('orders', events)).toBe(200); // 60 s: due
    expect(seriesOf(points, METRIC.PublishSuccessCount)).toEqual([
      [{}, 'Count', [7]],
      [{ Topic: 'orders' }, 'Count', [7]],
    ]);
    const latencies = count(points, METRIC.PublishSuccessLatencyInMs);
    expect(latencies.map((point) => point.values.length)).toEqual([7]);

    // The interval runs from that write.
    const written = points.length;
    clock.advance(59_000);
    expect(await publish('orders', events)).toBe(200);
    expect(points).toHaveLength(written);
    clock.advance(1_000);
    expect(await publish('orders', events)).toBe(200);
    expect(count(points, METRIC.PublishSuccessCount).map((point) => point.values)).toEqual([[7], [2]]);
  });

  it('are written as soon as a metric holds a record of values, whatever the interval', async () => {
    const { publish, points } = publishSetup({ subscriptionMetrics: false, metricsFlushSeconds: 300 });
    for (let request = 0; request < 98; request += 1) expect(await publish('orders', events)).toBe(200);
    expect(points).toEqual([]);
    expect(await publish('orders', events)).toBe(200);
    expect(count(points, METRIC.PublishSuccessLatencyInMs).map((point) => point.values.length)).toEqual([99]);
    expect(count(points, METRIC.PublishSuccessCount).map((point) => point.values)).toEqual([[99]]);
  });

  it('of a failed request are kept and counted like the others', async () => {
    const { publish, points, clock } = publishSetup({ subscriptionMetrics: false, metricsFlushSeconds: 60 });
    expect(await publish('orders', '{not json')).toBe(400);
    expect(points).toEqual([]);
    clock.advance(60_000);
    expect(await publish('orders', events)).toBe(200);
    expect(count(points, METRIC.PublishFailCount).map((point) => point.values)).toEqual([[1]]);
    expect(count(points, METRIC.PublishSuccessCount).map((point) => point.values)).toEqual([[1]]);
  });
});

/**
 * A subscription's dead-letter routes, built from a path and a finder: list (a window from the
 * query), show one blob (records as stored), replay (the body read before the subscription is
 * looked up, the subscription read strongly consistently).
 */
import { deadLetterKey, deadLetterRecord } from '../../../shared/delivery/rules/dead-letter-layout';
import type { Subscription } from '../../../shared/domain/model';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { ApiError, notFound } from '../../../shared/http/errors';
import {
  type DeadLetterRouteDeps,
  deadLetterOperations,
} from '../../../shared/management/dead-letter-routes';
import type { SubscriptionFinder } from '../../../shared/management/operation';
import { MetricBuffer } from '../../../shared/observability/metrics';
import { InProcessRateBudget } from '../../../shared/storage/rate-budget';
import type { ReadOptions } from '../../../shared/storage/table';
import { RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import { MemoryDeadLetterBucket } from '../../support/memory-dead-letter-bucket';
import { MemoryReplayClaims } from '../../support/memory-stores';

const PATH = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const T0 = Date.parse('2026-11-22T10:00:00Z');
const HOUR = 3_600_000;
const SUB = subscription({ uid: 'uid-1', version: 7, name: 'audit', deadLetter: { container: 'dead' } });
const SCOPE = { kind: 'topic', subscription: 'audit' } as const;
/** An event as delivered, with a number beyond double precision (it must come back as written). */
const EVENT = `{"id":"e1","topic":"/gridwire/topics/orders","subject":"s","eventType":"T","eventTime":"2026-11-22T09:00:00Z","data":{"big":9007199254740993},"dataVersion":"1.0","metadataVersion":"1"}`;
const RECORD = deadLetterRecord('EventGridSchema', EVENT, {
  reason: 'MaxDeliveryAttemptsExceeded',
  deliveryAttempts: 30,
  publishTime: T0 - HOUR,
});

/** Routes whose finder finds `found` (`null`: no such subscription). */
function setup(found: Subscription | null = SUB) {
  const clock = new VirtualClock(T0 + 5 * HOUR);
  const bucket = new MemoryDeadLetterBucket();
  const queue = new RecordingQueue(clock);
  const lookups: Array<ReadOptions | undefined> = [];
  const find: SubscriptionFinder<DeadLetterRouteDeps> = async (_event, _deps, options) => {
    lookups.push(options);
    if (found === null) throw notFound("The event subscription 'audit' does not exist on topic 'orders'.");
    return found;
  };
  const deps: DeadLetterRouteDeps = {
    deadLetterBucket: bucket,
    deadLetterBuckets: [],
    replayClaims: new MemoryReplayClaims(),
    queue,
    clock,
    newId: () => 'call-1',
    metrics: new MetricBuffer(),
    callBudget: new InProcessRateBudget(),
  };
  const operations = deadLetterOperations(PATH, find);
  const call = (method: string, suffix: string, request: Partial<HttpEvent> = {}) => {
    const operation = operations[`${method} ${PATH}${suffix}`];
    if (operation === undefined) throw new Error(`no route ${method} ${suffix}`);
    return operation({ routeKey: `${method} ${PATH}${suffix}`, ...request } as HttpEvent, deps);
  };
  const blob = (writtenAt: number, name: string) => {
    const key = deadLetterKey('dead', SCOPE, writtenAt, name);
    bucket.put(key, `[${RECORD}]`, writtenAt, 'orders');
    return key;
  };
  return { bucket, queue, lookups, call, blob };
}

const refusal = async (answer: Promise<unknown>) => {
  const error = await answer.catch((caught: unknown) => caught);
  if (!(error instanceof ApiError)) throw error;
  return error as ApiError;
};

describe('dead-letter routes', () => {
  it('has the list, blob and replay routes under the subscription’s path', () => {
    expect(Object.keys(deadLetterOperations(PATH, async () => SUB)).sort()).toEqual([
      `GET ${PATH}/deadLetters`,
      `GET ${PATH}/deadLetters/blob`,
      `POST ${PATH}/deadLetters/replay`,
    ]);
  });

  it('lists the blobs written in the window of the query, newest first', async () => {
    const { call, blob } = setup();
    blob(T0, 'a');
    const second = blob(T0 + HOUR, 'b');
    const third = blob(T0 + 2 * HOUR, 'c');

    const all = await call('GET', '/deadLetters');
    const since = await call('GET', '/deadLetters', {
      queryStringParameters: { since: '2026-11-22T11:00:00Z' },
    });

    expect(all.statusCode).toBe(200);
    expect(JSON.parse(all.body as string).value).toHaveLength(3);
    expect(JSON.parse(since.body as string).value.map((entry: { key: string }) => entry.key)).toEqual([
      third,
      second,
    ]);
  });

  it('refuses a malformed window before looking the subscription up', async () => {
    const { call, lookups } = setup();
    const error = await refusal(call('GET', '/deadLetters', { queryStringParameters: { until: 'soon' } }));
    expect(error.statusCode).toBe(400);
    expect(error.message).toMatch(/^until: must be an ISO 8601 time/);
    expect(lookups).toEqual([]);
  });

  it('shows a blob with each record exactly as stored, and requires the key', async () => {
    const { call, blob } = setup();
    const key = blob(T0, 'a');

    const shown = await call('GET', '/deadLetters/blob', { queryStringParameters: { key } });

    expect(shown.statusCode).toBe(200);
    expect(shown.body).toBe(`{"key":${JSON.stringify(key)},"records":[${RECORD}]}`);
    expect(shown.body).toContain('9007199254740993');
    const missing = await refusal(call('GET', '/deadLetters/blob', { queryStringParameters: { key: '' } }));
    expect(missing.message).toMatch(/^key: the query parameter is required/);
  });

  it('replays into the delivery queue with the subscription read strongly consistently', async () => {
    const { call, blob, queue, lookups, bucket } = setup();
    const key = blob(T0, 'a');

    const answer = await call('POST', '/deadLetters/replay', { body: JSON.stringify({ keys: [key] }) });

    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body as string)).toMatchObject({ eventsQueued: 1, blobsSelected: 1 });
    expect(lookups).toEqual([{ consistent: true }]);
    const [queued] = queue.take();
    expect(queued?.queue).toBe('delivery');
    expect(queued?.job.target).toMatchObject({
      subscription: 'audit',
      uid: 'uid-1',
      version: 7,
    });
    expect(queued?.job.items[0]?.eventJson).toBe(EVENT);
    expect(bucket.markers.has(key)).toBe(true);
  });

  it('refuses a malformed replay body before looking the subscription up', async () => {
    const { call, lookups } = setup();
    const error = await refusal(call('POST', '/deadLetters/replay', { body: JSON.stringify({ keyz: [] }) }));
    expect(error.statusCode).toBe(400);
    expect(error.message).toMatch(/^keyz: unknown field/);
    expect(lookups).toEqual([]);
  });

  it('answers 404 for a subscription the finder does not find', async () => {
    const { call } = setup(null);
    expect((await refusal(call('GET', '/deadLetters'))).statusCode).toBe(404);
  });
});

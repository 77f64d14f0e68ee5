import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ENV } from '../../shared/config/resources';
import { readConfig } from '../../shared/config/runtime';
import { buildDeliveryRequest, MAX_ECHOED_HEADER_CHARS } from '../../shared/delivery/request';
import type { Subscription } from '../../shared/domain/model';
import { badRequest } from '../../shared/lambda/errors';
import {
  type HttpEvent,
  header,
  jsonDepth,
  MAX_JSON_DEPTH,
  parseJsonBytes,
  pathParam,
  publicBaseUrl,
} from '../../shared/lambda/http';
import { publishMetricPoints } from '../../shared/lambda/middleware';
import { cachedSubscriptions } from '../../shared/lambda/wiring';
import { deliveriesDocument } from '../../shared/management/api';
import { MetricBuffer } from '../../shared/observability/metrics';
import { TtlCache } from '../../shared/platform/cache';
import { mapWithConcurrency, Semaphore } from '../../shared/platform/concurrency';
import { matchesFilter } from '../../shared/publish/filter';
import { batchJobs, SqsJobQueue } from '../../shared/queue/sqs-job-queue';
import { historyPk, type Store } from '../../shared/storage/store';
import { item, subscription, VirtualClock } from '../support/fakes';

describe('TtlCache', () => {
  it('serves from memory until the TTL passes, shares concurrent loads and forgets failures', async () => {
    let now = 0;
    let loads = 0;
    const cache = new TtlCache<number>(100, () => now);
    const load = async () => {
      loads += 1;
      return loads;
    };
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([1, 1]);
    now = 99;
    expect(await cache.get('k', load)).toBe(1);
    now = 100;
    expect(await cache.get('k', load)).toBe(2);
    await expect(cache.get('bad', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.get('bad', load)).toBe(3);
  });
});

describe('caches in front of the store', () => {
  it('hands out values it is told not to keep without keeping them', async () => {
    let loads = 0;
    const cache = new TtlCache<number | undefined>(1000, () => 0, { keep: (value) => value !== undefined });
    const load = async () => {
      loads += 1;
      return loads < 3 ? undefined : loads;
    };
    expect(await cache.get('k', load)).toBeUndefined();
    expect(await cache.get('k', load)).toBeUndefined();
    expect(await cache.get('k', load)).toBe(3);
    expect(await cache.get('k', load)).toBe(3);
    expect(loads).toBe(3);
  });

  it('sees a subscription re-created right after it was found missing', async () => {
    let stored: Subscription | undefined;
    let reads = 0;
    const store = {
      getSubscription: async () => {
        reads += 1;
        return stored;
      },
    } as unknown as Store;
    const source = cachedSubscriptions(store, 10_000, new VirtualClock());
    expect(await source.get('orders', 'hook')).toBeUndefined();
    stored = subscription({ name: 'hook' });
    expect(await source.get('orders', 'hook')).toEqual(stored);
    expect(await source.get('ORDERS', 'HOOK')).toEqual(stored);
    expect(reads).toBe(2);
  });
});

describe('concurrency helpers', () => {
  it('mapWithConcurrency keeps order and the limit', async () => {
    let active = 0;
    let peak = 0;
    const result = await mapWithConcurrency([5, 1, 3, 2, 4], 2, async (n) => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, n));
      active -= 1;
      return n * 10;
    });
    expect(result).toEqual([50, 10, 30, 20, 40]);
    expect(peak).toBe(2);
  });

  it('Semaphore refuses a limit below 1', () => {
    expect(() => new Semaphore(0)).toThrow(/limit must be >= 1/);
  });
});

describe('job queue', () => {
  it('batches at ten entries or the byte limit', () => {
    const small = Array.from({ length: 23 }, () => ({ body: 'x', delaySeconds: 0 }));
    expect(batchJobs(small).map((b) => b.length)).toEqual([10, 10, 3]);
    const big = Array.from({ length: 5 }, () => ({ body: 'y'.repeat(400), delaySeconds: 0 }));
    expect(batchJobs(big, 1000).map((b) => b.length)).toEqual([2, 2, 1]);
  });

  it('re-sends entries SQS reports as failed, then succeeds', async () => {
    const calls: string[][] = [];
    const sqs = {
      send: async (command: { input: { Entries: { Id: string }[] } }) => {
        calls.push(command.input.Entries.map((e) => e.Id));
        return calls.length === 1 ? { Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }] } : {};
      },
    } as unknown as SQSClient;
    await new SqsJobQueue(sqs, { delivery: 'q' }, { backoffMs: 1 }).send('delivery', [
      { body: 'a', delaySeconds: 0 },
      { body: 'b', delaySeconds: 0 },
    ]);
    expect(calls).toEqual([['0', '1'], ['1']]);
  });

  it('gives up at once on a sender fault and names it', async () => {
    const sqs = {
      send: async () => ({
        Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidParameterValue', Message: 'too big' }],
      }),
    } as unknown as SQSClient;
    await expect(
      new SqsJobQueue(sqs, { retry: 'q' }).send('retry', [{ body: 'a', delaySeconds: 5 }]),
    ).rejects.toThrow('SQS refused 1 of 1 messages: InvalidParameterValue too big');
  });

  it('refuses to send to a queue it has no URL for', async () => {
    await expect(
      new SqsJobQueue({} as SQSClient, {}).send('retry', [{ body: 'a', delaySeconds: 0 }]),
    ).rejects.toThrow('no URL configured for the retry queue');
  });
});

describe('filters', () => {
  it.each([
    [{}, 'Any.Type', true],
    [{ includedEventTypes: ['A.B'] }, 'a.b', true],
    [{ includedEventTypes: ['A.B'] }, 'A.C', false],
    [{ includedEventTypes: [] }, 'A.B', false],
  ])('%j matches %s: %s', (filter, eventType, expected) => {
    expect(matchesFilter(filter, { eventType })).toBe(expected);
  });
});

describe('HTTP helpers', () => {
  const event = (headers: Record<string, string>, domainName = 'abc.execute-api.eu-west-1.amazonaws.com') =>
    ({ headers, requestContext: { domainName, stage: '$default' } }) as unknown as HttpEvent;

  it('finds headers whatever their case', () => {
    expect(header(event({ 'AEG-SAS-KEY': 'k' }), 'aeg-sas-key')).toBe('k');
  });

  it('measures nesting without counting brackets inside strings', () => {
    expect(jsonDepth(Buffer.from('{"a":[{"b":"[[[{{{\\"]]"}]}'))).toBe(3);
    expect(jsonDepth(Buffer.from('"just a string"'))).toBe(0);
  });

  it('refuses a path parameter that is not validly percent-encoded', () => {
    const withParam = (topic: string) => ({ pathParameters: { topic } }) as unknown as HttpEvent;
    expect(pathParam(withParam('my%2Dtopic'), 'topic')).toBe('my-topic');
    expect(() => pathParam(withParam('bad%E0%A4%A'), 'topic')).toThrow(
      "The path parameter 'topic' is not validly percent-encoded.",
    );
  });

  it('builds the public URL from the request, or the configured override', () => {
    expect(publicBaseUrl(event({}))).toBe('https://abc.execute-api.eu-west-1.amazonaws.com');
    expect(publicBaseUrl(event({ 'x-forwarded-proto': 'http' }, 'localhost:4000'))).toBe(
      'http://localhost:4000',
    );
    expect(publicBaseUrl(event({}), 'https://events.example.com/')).toBe('https://events.example.com');
  });

  it('parses JSON bodies with errors that name the limit or the problem', () => {
    expect(parseJsonBytes(Buffer.from('[1]'), 10)).toEqual([1]);
    expect(() => parseJsonBytes(Buffer.from('[1,2,3]'), 3)).toThrow(
      'The request body is 7 bytes; the limit is 3 bytes.',
    );
    expect(() => parseJsonBytes(Buffer.alloc(0), 3)).toThrow(/empty/);
    expect(() => parseJsonBytes(Buffer.from('{'), 3)).toThrow(/not valid JSON/);
    const nested = (levels: number) => Buffer.from(`${'['.repeat(levels)}${']'.repeat(levels)}`);
    expect(parseJsonBytes(nested(MAX_JSON_DEPTH), 1000)).toBeDefined();
    expect(() => parseJsonBytes(nested(MAX_JSON_DEPTH + 1), 1000)).toThrow(
      'The request body nests 101 levels deep; at most 100 levels of arrays and objects are allowed.',
    );
    expect(badRequest('x').toBody()).toEqual({
      error: { code: 'BadRequest', message: 'x', details: [{ code: 'InputJsonInvalid', message: 'x' }] },
    });
  });
});

describe('configuration', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('fails fast naming a missing variable', () => {
    delete process.env[ENV.tableName];
    expect(() => readConfig()).toThrow(`Environment variable ${ENV.tableName} is required`);
  });

  it('reads values and defaults', () => {
    process.env[ENV.tableName] = 't';
    process.env[ENV.retryQueueUrl] = 'http://q';
    process.env[ENV.timeScale] = '60';
    const config = readConfig();
    expect(config).toMatchObject({
      tableName: 't',
      retryQueueUrl: 'http://q',
      timeScale: 60,
      deliveryConcurrency: 32,
    });
    expect(config.deliveryQueueUrl).toBeUndefined();
  });

  it('refuses a time scale below 1', () => {
    process.env[ENV.tableName] = 't';
    process.env[ENV.timeScale] = '0.5';
    expect(() => readConfig()).toThrow(`Environment variable ${ENV.timeScale} must be a number >= 1`);
  });
});

describe('metric buffer', () => {
  it('sums counts and keeps durations per name and dimensions, then starts afresh', () => {
    const buffer = new MetricBuffer();
    buffer.count('DeliverySuccessCount', 2, { Topic: 't' });
    buffer.count('DeliverySuccessCount', 3, { Topic: 't' });
    buffer.count('DeliverySuccessCount', 0, { Topic: 'u' });
    buffer.duration('DestinationProcessingDurationInMs', 12, { Topic: 't' });
    buffer.duration('DestinationProcessingDurationInMs', 7, { Topic: 't' });
    expect(buffer.drain()).toEqual([
      { name: 'DeliverySuccessCount', unit: 'Count', dimensions: { Topic: 't' }, values: [5] },
      {
        name: 'DestinationProcessingDurationInMs',
        unit: 'Milliseconds',
        dimensions: { Topic: 't' },
        values: [12, 7],
      },
    ]);
    expect(buffer.drain()).toEqual([]);
  });
});

describe('delivery history document', () => {
  it('groups attempts by delivery and states where each stands', () => {
    const base = { topic: 't', subscription: 's', eventId: 'e', publishedAt: 0 };
    const doc = deliveriesDocument([
      {
        ...base,
        deliveryId: 'd1',
        attempt: 1,
        at: 1000,
        outcome: 'Busy',
        httpStatus: 503,
        next: { action: 'retry', dueAt: 31_000 },
      },
      { ...base, deliveryId: 'd1', attempt: 2, at: 31_000, outcome: 'Delivered', next: { action: 'none' } },
      {
        ...base,
        deliveryId: 'd2',
        attempt: 1,
        at: 0,
        outcome: 'BadRequest',
        next: { action: 'dropped', reason: 'NonRetriableOutcome' },
      },
    ]);
    expect(doc.value.map((d) => [d.deliveryId, d.status, d.attempts.length])).toEqual([
      ['d1', 'Delivered', 2],
      ['d2', 'Dropped', 1],
    ]);
    expect(doc.value[1]).toMatchObject({ reason: 'NonRetriableOutcome' });
  });
});

describe('metric records', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    jest.restoreAllMocks();
  });

  it('keeps the dimensions on every record, however many values a metric has', () => {
    // Development mode writes EMF through the global console (and would be off unless told otherwise).
    process.env.POWERTOOLS_DEV = 'true';
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    const lines: string[] = [];
    jest.spyOn(console, 'log').mockImplementation((line: string) => {
      lines.push(line);
    });
    const metrics = new Metrics({ namespace: 'Test', serviceName: 'test' });
    const buffer = new MetricBuffer();
    const dims = { Topic: 'orders', EventSubscriptionName: 'AUDIT' };
    for (let i = 0; i < 250; i += 1) buffer.duration('DestinationProcessingDurationInMs', i, dims);
    buffer.count('DeliverySuccessCount', 250, dims);
    publishMetricPoints(buffer.drain(), metrics);

    const records = lines.map((line) => JSON.parse(line));
    expect(records.length).toBeGreaterThanOrEqual(3);
    let durations = 0;
    for (const record of records) {
      expect(record).toMatchObject(dims);
      expect(record._aws.CloudWatchMetrics[0].Dimensions[0]).toEqual(
        expect.arrayContaining(['Topic', 'EventSubscriptionName']),
      );
      const values = record.DestinationProcessingDurationInMs;
      if (values !== undefined) durations += Array.isArray(values) ? values.length : 1;
    }
    expect(durations).toBe(250);
    expect(records.filter((record) => record.DeliverySuccessCount === 250)).toHaveLength(1);
  });
});

describe('delivery request headers', () => {
  const one = (id: string, dataVersion: string) =>
    buildDeliveryRequest(subscription(), [item(id, 0, { event: { ...item(id, 0).event, dataVersion } })])
      .headers;

  it('echo the event id and data version when they can travel in a header', () => {
    expect(one('order-1', '2.0')).toMatchObject({
      'aeg-output-event-id': 'order-1',
      'aeg-data-version': '2.0',
    });
  });

  it.each([
    ['a line break', 'id\r\nx-injected: 1'],
    ['characters beyond Latin-1', 'заказ-1'],
    ['more than 1 KiB', 'x'.repeat(MAX_ECHOED_HEADER_CHARS + 1)],
  ])('leave out a value with %s (the body still carries it)', (_what, value) => {
    const headers = one(value, value);
    expect(headers['aeg-output-event-id']).toBeUndefined();
    expect(headers['aeg-data-version']).toBeUndefined();
    expect(headers['x-injected']).toBeUndefined();
  });
});

describe('attempt history keys', () => {
  it('keep short event ids readable and hash long ones to fit a DynamoDB key', () => {
    expect(historyPk('Orders', 'Audit', 'order-1')).toBe('HISTORY#orders#audit#order-1');
    const long = historyPk('orders', 'audit', 'é'.repeat(300));
    expect(long).toMatch(/^HISTORYH#orders#audit#[0-9a-f]{64}$/);
    expect(historyPk('orders', 'audit', 'é'.repeat(300))).toBe(long);
    expect(historyPk('orders', 'audit', 'é'.repeat(301))).not.toBe(long);
  });
});

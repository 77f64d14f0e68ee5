import { Metrics } from '@aws-lambda-powertools/metrics';
import { publishMetricPoints } from '../../../shared/lambda/middleware';
import { MetricBuffer } from '../../../shared/observability/metrics';

describe('metric buffer', () => {
  it('sums counts and keeps durations per name and dimensions, then starts afresh', () => {
    const buffer = new MetricBuffer();
    buffer.count('PublishSuccessCount', 2, { Topic: 't' });
    buffer.count('PublishSuccessCount', 3, { Topic: 't' });
    buffer.count('PublishSuccessCount', 0, { Topic: 'u' });
    buffer.duration('PublishSuccessLatencyInMs', 12, { Topic: 't' });
    buffer.duration('PublishSuccessLatencyInMs', 7, { Topic: 't' });
    expect(buffer.drain()).toEqual([
      { name: 'PublishSuccessCount', unit: 'Count', dimensions: {}, values: [5] },
      { name: 'PublishSuccessCount', unit: 'Count', dimensions: { Topic: 't' }, values: [5] },
      { name: 'PublishSuccessLatencyInMs', unit: 'Milliseconds', dimensions: {}, values: [12, 7] },
      {
        name: 'PublishSuccessLatencyInMs',
        unit: 'Milliseconds',
        dimensions: { Topic: 't' },
        values: [12, 7],
      },
    ]);
    expect(buffer.drain()).toEqual([]);
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

    const all = lines.map((line) => JSON.parse(line));
    // The stack-wide series: only Powertools' service dimension.
    const aggregate = all.filter((record) => record.Topic === undefined);
    expect(aggregate.length).toBeGreaterThanOrEqual(3);
    for (const record of aggregate) {
      expect(record._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service']]);
      expect(record.service).toBe('test');
    }
    const records = all.filter((record) => record.Topic !== undefined);
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

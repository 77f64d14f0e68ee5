import { Metrics } from '@aws-lambda-powertools/metrics';
import { publishMetricPoints } from '../../../shared/lambda/middleware';
import { MetricBuffer } from '../../../shared/observability/metrics';

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

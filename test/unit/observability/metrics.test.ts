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

  it('keeps the last value of a gauge, zero too, stack-wide only for the backlog measures', () => {
    const buffer = new MetricBuffer();
    buffer.gauge('BacklogHeldEvents', 40, 'Count');
    buffer.gauge('BacklogHeldEvents', 25, 'Count', { Topic: 't' });
    buffer.gauge('BacklogOldestEventAgeSeconds', 0, 'Seconds');
    expect(buffer.drain()).toEqual([
      { name: 'BacklogHeldEvents', unit: 'Count', dimensions: {}, values: [25] },
      { name: 'BacklogOldestEventAgeSeconds', unit: 'Seconds', dimensions: {}, values: [0] },
    ]);
  });
});

describe('metric records', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    jest.restoreAllMocks();
  });

  /** The EMF records a flush of `buffer` writes, parsed. */
  function recordsOf(fill: (buffer: MetricBuffer) => void): Array<Record<string, unknown>> {
    // Development mode writes EMF through the global console (and would be off unless told otherwise).
    process.env.POWERTOOLS_DEV = 'true';
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    const lines: string[] = [];
    jest.spyOn(console, 'log').mockImplementation((line: string) => {
      lines.push(line);
    });
    const buffer = new MetricBuffer();
    fill(buffer);
    publishMetricPoints(buffer.drain(), new Metrics({ namespace: 'Test', serviceName: 'test' }));
    return lines.map((line) => JSON.parse(line));
  }

  /**
   * What CloudWatch makes of records: for each series (metric and dimension values, `service`
   * included), every value written for it.
   */
  function seriesOf(records: ReadonlyArray<Record<string, unknown>>): Map<string, number[]> {
    const series = new Map<string, number[]>();
    for (const record of records) {
      const aws = record._aws as {
        CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
      };
      const [directive] = aws.CloudWatchMetrics;
      for (const dimensionSet of directive?.Dimensions ?? []) {
        // Every dimension a set names is a member of the record.
        for (const name of dimensionSet) expect(typeof record[name]).toBe('string');
        const where = [...dimensionSet]
          .sort()
          .map((name) => `${name}=${record[name]}`)
          .join(',');
        for (const { Name } of directive?.Metrics ?? []) {
          const value = record[Name] as number | number[];
          const key = `${Name} ${where}`;
          series.set(key, [...(series.get(key) ?? []), ...(Array.isArray(value) ? value : [value])]);
        }
      }
    }
    return series;
  }

  it('keeps the dimensions on every record, however many values a metric has', () => {
    const dims = { Topic: 'orders', EventSubscriptionName: 'AUDIT' };
    const records = recordsOf((buffer) => {
      for (let i = 0; i < 250; i += 1) buffer.duration('DestinationProcessingDurationInMs', i, dims);
      buffer.count('DeliverySuccessCount', 250, dims);
    });

    const series = seriesOf(records);
    const sub = 'EventSubscriptionName=AUDIT,Topic=orders,service=test';
    expect(series.get(`DestinationProcessingDurationInMs ${sub}`)).toHaveLength(250);
    expect(series.get('DestinationProcessingDurationInMs service=test')).toHaveLength(250);
    expect(series.get(`DeliverySuccessCount ${sub}`)).toEqual([250]);
    expect(series.get('DeliverySuccessCount service=test')).toEqual([250]);
    // No record holds more than 99 values of a metric.
    for (const record of records) {
      const values = record.DestinationProcessingDurationInMs;
      if (Array.isArray(values)) expect(values.length).toBeLessThanOrEqual(99);
    }
  });

  it('writes the same counts of a topic and of the stack in one record naming both dimension sets', () => {
    const records = recordsOf((buffer) => {
      buffer.count('PublishSuccessCount', 1, { Topic: 'orders' });
      buffer.count('UnmatchedEventCount', 0, { Topic: 'orders' });
      buffer.duration('PublishSuccessLatencyInMs', 7, { Topic: 'orders' });
    });

    expect(records).toHaveLength(1);
    type Directive = { Dimensions: string[][] };
    const aws = records[0]?._aws as { CloudWatchMetrics: Directive[] } | undefined;
    expect(aws?.CloudWatchMetrics[0]?.Dimensions).toEqual(
      expect.arrayContaining([['service', 'Topic'], ['service']]),
    );
    const series = seriesOf(records);
    expect(series.get('PublishSuccessCount Topic=orders,service=test')).toEqual([1]);
    expect(series.get('PublishSuccessCount service=test')).toEqual([1]);
    expect(series.get('PublishSuccessLatencyInMs Topic=orders,service=test')).toEqual([7]);
    expect(series.get('PublishSuccessLatencyInMs service=test')).toEqual([7]);
  });

  it('keeps apart what differs: two topics each in their record, the stack-wide sum in its own', () => {
    const records = recordsOf((buffer) => {
      buffer.count('PublishSuccessCount', 1, { Topic: 'orders' });
      buffer.count('PublishSuccessCount', 2, { Topic: 'invoices' });
    });

    const series = seriesOf(records);
    expect(series.get('PublishSuccessCount Topic=orders,service=test')).toEqual([1]);
    expect(series.get('PublishSuccessCount Topic=invoices,service=test')).toEqual([2]);
    expect(series.get('PublishSuccessCount service=test')).toEqual([3]);
    expect(series.size).toBe(3);
  });

  it('keeps two topics apart when their counts are the same', () => {
    const records = recordsOf((buffer) => {
      buffer.count('PublishSuccessCount', 2, { Topic: 'orders' });
      buffer.count('PublishSuccessCount', 2, { Topic: 'invoices' });
    });
    // Both topics' 2s share their values with neither each other's nor the stack's (4).
    const series = seriesOf(records);
    expect(series.get('PublishSuccessCount Topic=orders,service=test')).toEqual([2]);
    expect(series.get('PublishSuccessCount Topic=invoices,service=test')).toEqual([2]);
    expect(series.get('PublishSuccessCount service=test')).toEqual([4]);
  });
});

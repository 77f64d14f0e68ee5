/**
 * Sources: an EventBridge event converted to each input schema by the documented rules, a source
 * message made into the publish request the topic's schema takes, the sources setting read and
 * checked, and each message's outcome (published, refused with the reason logged and counted, or
 * failed when a dependency is down) with nothing dropped.
 */
import { ENV } from '../../../shared/config/resources';
import { parseSources, type SourceDefinition } from '../../../shared/config/sources';
import { ApiError } from '../../../shared/http/errors';
import { METRIC, MetricBuffer } from '../../../shared/observability/metrics';
import { invalidInput } from '../../../shared/publish/rejection';
import {
  type EventBridgeEvent,
  fromEventBridge,
  ingestSourceMessages,
  sourcePublishRequest,
} from '../../../shared/publish/sources';
import { S3_OBJECT_CREATED } from '../../support/eventbridge-events';

const S3_EVENT: EventBridgeEvent = S3_OBJECT_CREATED;

describe('fromEventBridge', () => {
  it('makes an Event Grid event: id, detail-type, source and first resource, time, detail, version 1', () => {
    expect(fromEventBridge(S3_EVENT, 'EventGridSchema')).toEqual({
      id: S3_EVENT.id,
      eventType: 'Object Created',
      subject: 'aws.s3/arn:aws:s3:::uploads',
      eventTime: '2026-12-01T10:00:00Z',
      data: S3_EVENT.detail,
      dataVersion: '1',
    });
    expect(fromEventBridge({ ...S3_EVENT, resources: [] }, 'EventGridSchema').subject).toBe('aws.s3');
  });

  it('makes a CloudEvent: type, source, subject (the first resource), time, data', () => {
    expect(fromEventBridge(S3_EVENT, 'CloudEventSchemaV1_0')).toEqual({
      specversion: '1.0',
      id: S3_EVENT.id,
      type: 'Object Created',
      source: 'aws.s3',
      subject: 'arn:aws:s3:::uploads',
      time: '2026-12-01T10:00:00Z',
      datacontenttype: 'application/json',
      data: S3_EVENT.detail,
    });
    expect(fromEventBridge({ ...S3_EVENT, resources: undefined }, 'CloudEventSchemaV1_0')).not.toHaveProperty(
      'subject',
    );
  });

  it('hands a custom-schema topic the event as it is, for its input mapping', () => {
    expect(fromEventBridge(S3_EVENT, 'CustomEventSchema')).toBe(S3_EVENT);
  });
});

const queueSource: SourceDefinition = {
  name: 'orders-in',
  kind: 'sqs',
  queueArn: 'arn:aws:sqs:eu-west-1:123456789012:orders-in',
  topic: 'orders',
  format: 'topic',
};
const busSource: SourceDefinition = {
  ...queueSource,
  name: 'default/uploads',
  kind: 'eventBridge',
  queueArn: 'arn:aws:sqs:eu-west-1:123456789012:gridwire-source-uploads',
  format: 'eventBridge',
};

describe('sourcePublishRequest', () => {
  const eventGrid = { name: 'orders', inputSchema: 'EventGridSchema' as const };

  it('publishes one event or an array as the topic takes them, as a trusted caller', () => {
    const one = sourcePublishRequest('{"id":"1"}', queueSource, eventGrid);
    expect(JSON.parse(one.body.toString())).toEqual([{ id: '1' }]);
    expect(one).toMatchObject({
      topic: 'orders',
      credential: { kind: 'iam', caller: 'source:orders-in' },
      contentType: 'application/json',
    });
    expect(
      JSON.parse(sourcePublishRequest('[{"id":"1"},{"id":"2"}]', queueSource, eventGrid).body.toString()),
    ).toHaveLength(2);
    expect(
      sourcePublishRequest('{"id":"1"}', queueSource, { name: 'ce', inputSchema: 'CloudEventSchemaV1_0' })
        .contentType,
    ).toBe('application/cloudevents-batch+json');
  });

  it('converts an EventBridge message to the topic schema', () => {
    const request = sourcePublishRequest(JSON.stringify(S3_EVENT), busSource, eventGrid);
    expect(JSON.parse(request.body.toString())).toEqual([fromEventBridge(S3_EVENT, 'EventGridSchema')]);
  });

  it.each([
    ['not JSON', 'nope', queueSource, /^the message body is not JSON/],
    [
      'no detail-type',
      JSON.stringify({ ...S3_EVENT, 'detail-type': undefined }),
      busSource,
      /^the message is not an EventBridge event: detail-type is required/,
    ],
    ['an empty source', JSON.stringify({ ...S3_EVENT, source: '' }), busSource, /source must not be empty/],
  ])('refuses a message that is %s, saying why', (_, body, source, reason) => {
    expect(() => sourcePublishRequest(body, source, eventGrid)).toThrow(reason);
  });
});

describe('parseSources', () => {
  it('reads the setting, and names what is wrong', () => {
    expect(parseSources(ENV.sources, undefined)).toEqual([]);
    expect(parseSources(ENV.sources, JSON.stringify([queueSource]))).toEqual([queueSource]);
    expect(() => parseSources(ENV.sources, '{')).toThrow(`${ENV.sources}: is not JSON`);
    expect(() => parseSources(ENV.sources, JSON.stringify([{ ...queueSource, format: 'xml' }]))).toThrow(
      new RegExp(`^${ENV.sources}: 0\\.format: `),
    );
  });
});

describe('ingestSourceMessages', () => {
  const record = (body: string, arn = queueSource.queueArn, messageId = 'm-1') => ({
    messageId,
    body,
    eventSourceARN: arn,
  });
  const logs: { message: string; fields: unknown }[] = [];
  const logger = {
    debug: () => {},
    info: () => {},
    warn: (message: string, fields: unknown) => logs.push({ message, fields }),
    error: () => {},
  };

  function deps(publish: (body: string) => Promise<{ accepted: number }>) {
    const metrics = new MetricBuffer();
    return {
      metrics,
      deps: {
        sources: [queueSource, busSource],
        topicOf: async (name: string) =>
          name === 'orders' ? { name, inputSchema: 'EventGridSchema' as const } : undefined,
        publish: (request: { body: Buffer }) => publish(request.body.toString()),
        metrics,
        logger,
      },
    };
  }

  const totals = (metrics: MetricBuffer) =>
    Object.fromEntries(
      metrics
        .drain()
        .filter((point) => Object.keys(point.dimensions).length === 0)
        .map((point) => [point.name, point.values[0]]),
    );

  beforeEach(() => {
    logs.length = 0;
  });

  it('publishes each message and counts its events', async () => {
    const { deps: d, metrics } = deps(async (body) => ({ accepted: (JSON.parse(body) as unknown[]).length }));
    const outcomes = await ingestSourceMessages(
      [record('[{"id":"1"},{"id":"2"}]'), record(JSON.stringify(S3_EVENT), busSource.queueArn, 'm-2')],
      d,
    );
    expect(outcomes).toEqual([
      { kind: 'published', events: 2 },
      { kind: 'published', events: 1 },
    ]);
    expect(totals(metrics)).toEqual({ [METRIC.SourceEventCount]: 3 });
  });

  it("publishes a batch's messages of one source together, in one publish request", async () => {
    const bodies: string[] = [];
    const { deps: d, metrics } = deps(async (body) => {
      bodies.push(body);
      return { accepted: (JSON.parse(body) as unknown[]).length };
    });
    const outcomes = await ingestSourceMessages(
      [
        record('{"id":"1"}', queueSource.queueArn, 'm-1'),
        record('[{"id":"2"},{"id":"3"}]', queueSource.queueArn, 'm-2'),
      ],
      d,
    );
    expect(outcomes).toEqual([
      { kind: 'published', events: 1 },
      { kind: 'published', events: 2 },
    ]);
    expect(bodies.map((body) => JSON.parse(body))).toEqual([[{ id: '1' }, { id: '2' }, { id: '3' }]]);
    expect(totals(metrics)).toEqual({ [METRIC.SourceEventCount]: 3 });
  });

  it('publishes each alone when the topic refuses them together, so only the one at fault is refused', async () => {
    const bodies: string[] = [];
    const { deps: d } = deps(async (body) => {
      bodies.push(body);
      if (body.includes('"bad"')) throw invalidInput("event 1: 'eventType' is required");
      return { accepted: (JSON.parse(body) as unknown[]).length };
    });
    const outcomes = await ingestSourceMessages(
      [
        record('{"id":"1"}', queueSource.queueArn, 'm-1'),
        record('{"id":"bad"}', queueSource.queueArn, 'm-2'),
        record('not json', queueSource.queueArn, 'm-3'),
      ],
      d,
    );
    expect(outcomes).toEqual([
      { kind: 'published', events: 1 },
      { kind: 'refused', reason: "event 1: 'eventType' is required" },
      { kind: 'refused', reason: expect.stringMatching(/^the message body is not JSON/) },
    ]);
    // Together first (the unreadable message left out), then each readable one alone.
    expect(bodies).toEqual(['[{"id":"1"},{"id":"bad"}]', '[{"id":"1"}]', '[{"id":"bad"}]']);
  });

  it('fails every message of a publish together when a dependency is down', async () => {
    const { deps: d } = deps(async () => {
      throw new ApiError(503, 'ServiceUnavailable', 'the queue refused');
    });
    const outcomes = await ingestSourceMessages(
      [record('{"id":"1"}', queueSource.queueArn, 'm-1'), record('{"id":"2"}', queueSource.queueArn, 'm-2')],
      d,
    );
    expect(outcomes).toEqual([
      { kind: 'failed', reason: 'the queue refused' },
      { kind: 'failed', reason: 'the queue refused' },
    ]);
  });

  it('refuses what the publish rules refuse, with their reason logged and counted', async () => {
    const { deps: d, metrics } = deps(async () => {
      throw invalidInput("event 0: 'eventType' is required", 'InputJsonInvalid');
    });
    const outcomes = await ingestSourceMessages([record('{"id":"1"}')], d);
    expect(outcomes).toEqual([{ kind: 'refused', reason: "event 0: 'eventType' is required" }]);
    expect(totals(metrics)).toEqual({ [METRIC.SourceRefusedCount]: 1 });
    expect(logs).toEqual([
      {
        message: 'a source message was refused; it stays in its queue until its dead-letter queue takes it',
        fields: {
          source: 'orders-in',
          topic: 'orders',
          messageId: 'm-1',
          reason: "event 0: 'eventType' is required",
        },
      },
    ]);
  });

  it('refuses a message of a queue no source names, and one whose topic does not exist', async () => {
    const { deps: d } = deps(async () => ({ accepted: 1 }));
    const outcomes = await ingestSourceMessages(
      [record('{}', 'arn:aws:sqs:eu-west-1:123456789012:stranger'), record('{}')],
      { ...d, topicOf: async () => undefined },
    );
    expect(outcomes).toEqual([
      {
        kind: 'refused',
        reason: 'no source of this stack reads the queue arn:aws:sqs:eu-west-1:123456789012:stranger',
      },
      { kind: 'refused', reason: "the topic 'orders' does not exist" },
    ]);
  });

  it('fails (to be received again) when a dependency is down, refuses a 4xx', async () => {
    const { deps: down } = deps(async () => {
      throw new ApiError(503, 'ServiceUnavailable', 'the queue refused');
    });
    expect(await ingestSourceMessages([record('{"id":"1"}')], down)).toEqual([
      { kind: 'failed', reason: 'the queue refused' },
    ]);
    const { deps: tooLarge } = deps(async () => {
      throw new ApiError(413, 'PayloadTooLarge', 'too large');
    });
    expect(await ingestSourceMessages([record('{"id":"1"}')], tooLarge)).toEqual([
      { kind: 'refused', reason: 'too large' },
    ]);
  });
});

import { ApiError } from '../../../shared/http/errors';
import {
  deliverySchemaFor,
  endpointBaseUrl,
  parseSubscriptionBody,
  parseTopicBody,
  subscriptionDocument,
  validateName,
} from '../../../shared/management/schema';
import { subscription } from '../../support/fakes';

const webhook = (url = 'https://hooks.example.test/in', extra: Record<string, unknown> = {}) => ({
  properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl: url } }, ...extra },
});

function rejection(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 400) return error.message;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('event subscription bodies', () => {
  it('takes a dead-letter destination in the ARM shape: the container is the key prefix', () => {
    const parsed = parseSubscriptionBody(
      webhook(undefined, {
        deadLetterDestination: {
          endpointType: 'StorageBlob',
          properties: { blobContainerName: 'dead-letters', resourceId: '/subscriptions/x/storageAccounts/y' },
        },
      }),
      { allowHttp: false },
    );
    expect(parsed.deadLetter).toEqual({
      container: 'dead-letters',
      resourceId: '/subscriptions/x/storageAccounts/y',
    });
    expect(parseSubscriptionBody(webhook(), { allowHttp: false }).deadLetter).toBeUndefined();
  });

  it('fills in the defaults: 30 attempts, 1440 minutes, every event type', () => {
    expect(parseSubscriptionBody(webhook(), { allowHttp: false })).toEqual({
      endpointUrl: 'https://hooks.example.test/in',
      retry: { maxAttempts: 30, ttlMs: 1440 * 60_000 },
      labels: [],
    });
  });

  it('keeps a retry policy and event types; `All` means every type', () => {
    const parsed = parseSubscriptionBody(
      webhook(undefined, {
        retryPolicy: { maxDeliveryAttempts: 1, eventTimeToLiveInMinutes: 1 },
        filter: { includedEventTypes: ['A', 'B'] },
      }),
      { allowHttp: false },
    );
    expect(parsed.retry).toEqual({ maxAttempts: 1, ttlMs: 60_000 });
    expect(parsed.includedEventTypes).toEqual(['A', 'B']);
    expect(
      parseSubscriptionBody(webhook(undefined, { filter: { includedEventTypes: ['All'] } }), {
        allowHttp: false,
      }).includedEventTypes,
    ).toBeUndefined();
  });

  it.each([
    [
      { retryPolicy: { maxDeliveryAttempts: 0 } },
      /properties.retryPolicy.maxDeliveryAttempts: must be an integer between 1 and 30/,
    ],
    [
      { retryPolicy: { maxDeliveryAttempts: 31 } },
      /maxDeliveryAttempts: must be an integer between 1 and 30 \(got a larger value\)/,
    ],
    [
      { retryPolicy: { maxDeliveryAttempts: 2.5 } },
      /maxDeliveryAttempts: must be an integer between 1 and 30/,
    ],
    [
      { retryPolicy: { eventTimeToLiveInMinutes: 1441 } },
      /eventTimeToLiveInMinutes: must be an integer between 1 and 1440/,
    ],
    [
      { retryPolicy: { eventTimeToLiveInMinutes: '60' } },
      /eventTimeToLiveInMinutes: must be an integer between 1 and 1440/,
    ],
    [
      { retryPolicy: { maxDeliveryAttempts: 3, retries: 2 } },
      /properties.retryPolicy.retries: unknown field/,
    ],
    [{ colour: 'blue' }, /properties.colour: unknown field/],
    [{ deadLetterDestination: {} }, /properties.deadLetterDestination.endpointType: must be 'StorageBlob'/],
    [
      {
        deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'Bad_Name' } },
      },
      /properties.deadLetterDestination.properties.blobContainerName: must be 3 to 63 lower-case letters/,
    ],
    [{ filter: { subjectBeginsWith: 'a' } }, /properties.filter.subjectBeginsWith: not supported yet/],
    [{ filter: { includedEventTypes: 'A' } }, /includedEventTypes: must be an array of event type names/],
    [
      { eventDeliverySchema: 'CloudEventSchema' },
      /eventDeliverySchema: must be one of EventGridSchema, CloudEventSchemaV1_0, CustomInputSchema/,
    ],
  ])('rejects %j naming the field', (extra, message) => {
    expect(rejection(() => parseSubscriptionBody(webhook(undefined, extra), { allowHttp: false }))).toMatch(
      message,
    );
  });

  it.each([
    [{}, /properties: is required/],
    [{ properties: {} }, /properties.destination: is required/],
    [
      { properties: { destination: { endpointType: 'EventHub', properties: {} } } },
      /endpointType: must be 'WebHook'/,
    ],
  ])('rejects the incomplete body %j', (body, message) => {
    expect(rejection(() => parseSubscriptionBody(body, { allowHttp: false }))).toMatch(message);
  });

  it.each([
    ['not a url', /endpointUrl: must be an absolute URL/],
    ['ftp://hooks.example.test/', /endpointUrl: must be an https URL/],
    ['https://user:pw@hooks.example.test/', /must not carry user credentials/],
  ])('rejects the endpoint %s', (url, message) => {
    expect(rejection(() => parseSubscriptionBody(webhook(url), { allowHttp: false }))).toMatch(message);
  });

  it('allows http endpoints only where configured (local mode)', () => {
    expect(
      rejection(() => parseSubscriptionBody(webhook('http://127.0.0.1:9/x'), { allowHttp: false })),
    ).toMatch(/http is allowed in local mode only/);
    expect(parseSubscriptionBody(webhook('http://127.0.0.1:9/x'), { allowHttp: true }).endpointUrl).toBe(
      'http://127.0.0.1:9/x',
    );
  });
});

describe('delivery schemas', () => {
  it('keeps the delivery schema asked for, for the topic to decide', () => {
    expect(parseSubscriptionBody(webhook(), { allowHttp: false }).eventDeliverySchema).toBeUndefined();
    expect(
      parseSubscriptionBody(webhook(undefined, { eventDeliverySchema: 'CloudEventSchemaV1_0' }), {
        allowHttp: false,
      }).eventDeliverySchema,
    ).toBe('CloudEventSchemaV1_0');
  });

  it.each([
    ['EventGridSchema', undefined, 'EventGridSchema'],
    ['EventGridSchema', 'EventGridSchema', 'EventGridSchema'],
    ['EventGridSchema', 'CloudEventSchemaV1_0', 'CloudEventSchemaV1_0'],
    ['CloudEventSchemaV1_0', undefined, 'CloudEventSchemaV1_0'],
    ['CloudEventSchemaV1_0', 'CloudEventSchemaV1_0', 'CloudEventSchemaV1_0'],
    ['CustomEventSchema', undefined, 'EventGridSchema'],
    ['CustomEventSchema', 'EventGridSchema', 'EventGridSchema'],
    ['CustomEventSchema', 'CloudEventSchemaV1_0', 'CloudEventSchemaV1_0'],
    ['CustomEventSchema', 'CustomInputSchema', 'CustomInputSchema'],
  ] as const)('a %s topic, asked for %s, delivers %s', (inputSchema, requested, expected) => {
    expect(deliverySchemaFor(inputSchema, requested)).toBe(expected);
  });

  it.each([
    ['CloudEventSchemaV1_0', 'EventGridSchema', /CloudEvents input can't be converted to EventGridSchema/],
    ['CloudEventSchemaV1_0', 'CustomInputSchema', /can't be converted to CustomInputSchema/],
    ['EventGridSchema', 'CustomInputSchema', /only topics with input schema CustomEventSchema take/],
  ] as const)(
    'a %s topic refuses %s with a 400 naming eventDeliverySchema',
    (inputSchema, requested, message) => {
      const refused = rejection(() => deliverySchemaFor(inputSchema, requested));
      expect(refused).toMatch(/^properties\.eventDeliverySchema: /);
      expect(refused).toMatch(message);
    },
  );

  it('shows the delivery schema in the subscription document', () => {
    expect(
      subscriptionDocument(subscription({ eventDeliverySchema: 'CloudEventSchemaV1_0' })).properties
        .eventDeliverySchema,
    ).toBe('CloudEventSchemaV1_0');
  });
});

describe('topic bodies and names', () => {
  it('takes the CloudEvents 1.0 input schema', () => {
    expect(parseTopicBody({ properties: { inputSchema: 'CloudEventSchemaV1_0' } })).toEqual({
      inputSchema: 'CloudEventSchemaV1_0',
      tags: {},
    });
  });

  it('defaults to the Event Grid schema, with or without a body', () => {
    expect(parseTopicBody(undefined)).toEqual({ inputSchema: 'EventGridSchema', tags: {} });
    expect(
      parseTopicBody({ location: 'eu-west-1', properties: { inputSchema: 'EventGridSchema' } }).inputSchema,
    ).toBe('EventGridSchema');
  });

  it('takes the custom input schema with its mapping, keeping only what was given', () => {
    const input = parseTopicBody({
      properties: {
        inputSchema: 'CustomEventSchema',
        inputSchemaMapping: {
          inputSchemaMappingType: 'Json',
          properties: {
            id: { sourceField: 'orderId' },
            eventTime: { sourceField: 'at' },
            eventType: { sourceField: 'kind', defaultValue: 'Order.Unknown' },
            subject: { defaultValue: 'orders' },
            dataVersion: { defaultValue: '1.0' },
          },
        },
      },
    });
    expect(input).toEqual({
      inputSchema: 'CustomEventSchema',
      inputSchemaMapping: {
        id: { sourceField: 'orderId' },
        eventTime: { sourceField: 'at' },
        subject: { defaultValue: 'orders' },
        eventType: { sourceField: 'kind', defaultValue: 'Order.Unknown' },
        dataVersion: { defaultValue: '1.0' },
      },
      tags: {},
    });
  });

  const custom = (properties: unknown, type: unknown = 'Json') => ({
    properties: {
      inputSchema: 'CustomEventSchema',
      inputSchemaMapping: { inputSchemaMappingType: type, properties },
    },
  });
  const required = { eventType: { sourceField: 'kind' }, subject: { defaultValue: 's' } };

  it.each([
    [
      { properties: { inputSchema: 'Avro' } },
      /^properties.inputSchema: must be one of EventGridSchema, CloudEventSchemaV1_0, CustomEventSchema/,
    ],
    [
      { properties: { inputSchema: 'CustomEventSchema' } },
      /^properties.inputSchemaMapping: is required with inputSchema CustomEventSchema/,
    ],
    [
      { properties: { inputSchemaMapping: { inputSchemaMappingType: 'Json', properties: required } } },
      /^properties.inputSchemaMapping: applies only to topics with inputSchema CustomEventSchema/,
    ],
    [custom(required, 'Xml'), /^properties.inputSchemaMapping.inputSchemaMappingType: must be "Json"/],
    [
      custom({ subject: { defaultValue: 's' } }),
      /^properties.inputSchemaMapping.properties.eventType: is required/,
    ],
    [
      custom({ eventType: { sourceField: 'k' } }),
      /^properties.inputSchemaMapping.properties.subject: is required/,
    ],
    [
      custom({ ...required, id: { defaultValue: 'x' } }),
      /^properties.inputSchemaMapping.properties.id.sourceField: sourceField must be a string/,
    ],
    [
      custom({ ...required, id: { sourceField: 'i', defaultValue: 'x' } }),
      /^properties.inputSchemaMapping.properties.id.defaultValue: takes no defaultValue/,
    ],
    [
      custom({ ...required, eventTime: { sourceField: '' } }),
      /^properties.inputSchemaMapping.properties.eventTime.sourceField: sourceField must not be empty/,
    ],
    [
      custom({ ...required, topic: { sourceField: 't'.repeat(257) } }),
      /topic.sourceField: sourceField may be at most 256 characters/,
    ],
    [
      custom({ ...required, dataVersion: {} }),
      /^properties.inputSchemaMapping.properties.dataVersion: needs a sourceField, a defaultValue or both/,
    ],
    [
      custom({ ...required, dataVersion: { defaultValue: 1 } }),
      /dataVersion.defaultValue: defaultValue must be a string/,
    ],
    [
      custom({ ...required, subjectLine: { sourceField: 'x' } }),
      /^properties.inputSchemaMapping.properties.subjectLine: unknown field/,
    ],
    [{ sku: 'Basic' }, /sku: unknown field/],
  ])('rejects %j', (body, message) => {
    expect(rejection(() => parseTopicBody(body))).toMatch(message);
  });

  it.each(['ab', 'a'.repeat(51), 'has space', 'under_score'])('rejects the topic name %j', (name) => {
    expect(rejection(() => validateName('topic', name))).toMatch(
      /use 3 to 50 characters, letters, digits and hyphens/,
    );
  });

  it('accepts names with letters, digits and hyphens', () => {
    expect(validateName('subscription', 'Audit-Log-2')).toBe('Audit-Log-2');
  });
});

describe('subscription documents', () => {
  it('show the endpoint without its query string, which may hold a secret', () => {
    const doc = subscriptionDocument(
      subscription({
        destination: { endpointType: 'WebHook', endpointUrl: 'https://h.example.test/in?code=secret' },
      }),
    );
    expect(doc.properties.destination.properties).toEqual({ endpointBaseUrl: 'https://h.example.test/in' });
    expect(JSON.stringify(doc)).not.toContain('secret');
    expect(endpointBaseUrl('https://h.example.test/a/b#frag')).toBe('https://h.example.test/a/b');
  });
});

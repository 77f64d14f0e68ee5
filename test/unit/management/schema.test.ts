import { ApiError } from '../../../shared/http/errors';
import { deliverySchemaFor } from '../../../shared/management/delivery-schema';
import { validateName } from '../../../shared/management/request-body';
import { endpointBaseUrl, subscriptionDocument } from '../../../shared/management/resource-documents';
import { parseSubscriptionBody } from '../../../shared/management/subscription-schema';
import { parseTopicBody } from '../../../shared/management/topic-schema';
import { LABEL_LIMITS } from '../../../shared/sessions/scope';
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

  it('takes ordered delivery by subject or a dotted path, naming the field and the rule otherwise', () => {
    const parse = (orderedDelivery: unknown) =>
      parseSubscriptionBody(webhook(undefined, { orderedDelivery }), { allowHttp: false });
    expect(parse({ key: 'subject' }).orderedDelivery).toEqual({ key: 'subject' });
    expect(parse({ key: 'data.order.id' }).orderedDelivery).toEqual({ key: 'data.order.id' });
    expect(parse(null)).not.toHaveProperty('orderedDelivery');
    for (const bad of [{ key: '' }, { key: 'a..b' }, { key: 'a.b.c.d.e.f.g.h.i' }, { key: 5 }, {}]) {
      expect(rejection(() => parse(bad))).toMatch(
        /properties\.orderedDelivery\.key: must be "subject", or a dotted path of 1 to 8 member names/,
      );
    }
    expect(rejection(() => parse({ key: 'subject', by: 'x' }))).toMatch(/properties\.orderedDelivery/);
    expect(
      subscriptionDocument(subscription({ orderedDelivery: { key: 'subject' } }), 0).properties
        .orderedDelivery,
    ).toEqual({ key: 'subject' });
    expect(subscriptionDocument(subscription(), 0).properties.orderedDelivery).toBeNull();
  });

  it('fills in the defaults: 30 attempts, 1440 minutes, every event type', () => {
    expect(parseSubscriptionBody(webhook(), { allowHttp: false })).toEqual({
      endpointUrl: 'https://hooks.example.test/in',
      filter: {},
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
    expect(parsed.filter.includedEventTypes).toEqual(['A', 'B']);
    expect(
      parseSubscriptionBody(webhook(undefined, { filter: { includedEventTypes: ['All'] } }), {
        allowHttp: false,
      }).filter.includedEventTypes,
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
    [{ filter: { subjectBeginsWith: 7 } }, /^properties\.filter\.subjectBeginsWith: must be a string/],
    [{ filter: { includedEventTypes: 'A' } }, /^properties\.filter\.includedEventTypes: must be an array/],
    [{ filter: { colour: 'red' } }, /^properties\.filter\.colour: unknown filter field/],
    [
      { filter: { advancedFilters: [{ operatorType: 'NumberBetween', key: 'data.n', values: [1] }] } },
      /^properties\.filter\.advancedFilters\.0\.operatorType: /,
    ],
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

  it.each([
    ['https://hooks.example.test/in\r\nX-Injected: 1', 'CR (U+000D) at position 29'],
    ['https://hooks.example.test/in?a=1\nb', 'LF (U+000A) at position 33'],
    ['https://hooks.exa\tmple.test/in', 'tab (U+0009) at position 17'],
    ['\u0000https://hooks.example.test/in', 'U+0000 at position 0'],
    ['https://hooks.example.test/in\u007f', 'DEL (U+007F) at position 29'],
    ['https://hooks.example.test/\u001bin', 'U+001B at position 27'],
  ])(
    'refuses control characters anywhere in the endpoint %j, naming the field and the character',
    (url, found) => {
      const message = rejection(() => parseSubscriptionBody(webhook(url), { allowHttp: false }));
      expect(message).toMatch(
        /^properties\.destination\.properties\.endpointUrl: must not contain control characters/,
      );
      expect(message).toContain(`found ${found}`);
    },
  );

  it('takes the endpoint URL as parsed (URL.href)', () => {
    const parsed = (url: string) => parseSubscriptionBody(webhook(url), { allowHttp: false }).endpointUrl;
    expect(parsed('HTTPS://Hooks.Example.TEST:443/a/../in?token=s3cret')).toBe(
      'https://hooks.example.test/in?token=s3cret',
    );
    expect(parsed('  https://hooks.example.test/in put ')).toBe('https://hooks.example.test/in%20put');
    expect(parsed('https://bücher.example.test')).toBe('https://xn--bcher-kva.example.test/');
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
      subscriptionDocument(subscription({ eventDeliverySchema: 'CloudEventSchemaV1_0' }), 0).properties
        .eventDeliverySchema,
    ).toBe('CloudEventSchemaV1_0');
  });
});

describe('topic bodies and names', () => {
  it('takes a de-duplication window of 0 (off) to 1440 minutes, naming the field and the limit otherwise', () => {
    expect(parseTopicBody({ properties: { deduplicationWindowInMinutes: 1440 } })).toMatchObject({
      deduplicationWindowInMinutes: 1440,
    });
    expect(parseTopicBody({ properties: { deduplicationWindowInMinutes: 0 } })).toMatchObject({
      deduplicationWindowInMinutes: 0,
      validateEvents: false,
      unknownEventTypes: 'allow',
    });
    const custom = (id: object | undefined) => ({
      properties: {
        inputSchema: 'CustomEventSchema',
        deduplicationWindowInMinutes: 5,
        inputSchemaMapping: {
          inputSchemaMappingType: 'Json',
          properties: {
            ...(id === undefined ? {} : { id }),
            eventType: { defaultValue: 'a' },
            subject: { defaultValue: 'b' },
          },
        },
      },
    });
    expect(parseTopicBody(custom({ sourceField: 'orderId' })).deduplicationWindowInMinutes).toBe(5);
    expect(() => parseTopicBody(custom(undefined))).toThrow(
      /properties\.deduplicationWindowInMinutes: needs the events to carry their ids/,
    );
    for (const bad of [1441, -1, 2.5, '10']) {
      expect(() => parseTopicBody({ properties: { deduplicationWindowInMinutes: bad } })).toThrow(
        /properties\.deduplicationWindowInMinutes: must be an integer between 0 and 1440/,
      );
    }
  });

  it('takes the CloudEvents 1.0 input schema', () => {
    expect(parseTopicBody({ properties: { inputSchema: 'CloudEventSchemaV1_0' } })).toEqual({
      inputSchema: 'CloudEventSchemaV1_0',
      tags: {},
      deduplicationWindowInMinutes: 0,
      validateEvents: false,
      unknownEventTypes: 'allow',
    });
  });

  it('defaults to the Event Grid schema, with or without a body', () => {
    expect(parseTopicBody(undefined)).toEqual({
      inputSchema: 'EventGridSchema',
      tags: {},
      deduplicationWindowInMinutes: 0,
      validateEvents: false,
      unknownEventTypes: 'allow',
    });
    expect(
      parseTopicBody({ location: 'eu-west-1', properties: { inputSchema: 'EventGridSchema' } }).inputSchema,
    ).toBe('EventGridSchema');
  });

  it('refuses a JSON null body, which is no object (an absent body is taken as {})', () => {
    expect(() => parseTopicBody(null)).toThrow(/^body: Invalid input: expected object, received null/);
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
      deduplicationWindowInMinutes: 0,
      validateEvents: false,
      unknownEventTypes: 'allow',
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
      0,
    );
    expect(doc.properties.destination.properties).toEqual({
      endpointBaseUrl: 'https://h.example.test/in',
      maxEventsPerBatch: 1,
      preferredBatchSizeInKilobytes: 64,
    });
    expect(JSON.stringify(doc)).not.toContain('secret');
    expect(endpointBaseUrl('https://h.example.test/a/b#frag')).toBe('https://h.example.test/a/b');
  });
});

const MAPPINGS = 'properties.destination.properties.deliveryAttributeMappings';

/** A subscription body whose destination properties also hold `destination`. */
const withDestination = (destination: Record<string, unknown>) => ({
  properties: {
    destination: {
      endpointType: 'WebHook',
      properties: { endpointUrl: 'https://hooks.example.test/in', ...destination },
    },
  },
});
const withMappings = (...mappings: unknown[]) => withDestination({ deliveryAttributeMappings: mappings });
const staticMapping = (name: string, value: unknown = 'v', isSecret?: unknown) => ({
  name,
  type: 'Static',
  properties: { value, ...(isSecret === undefined ? {} : { isSecret }) },
});
const dynamicMapping = (name: string, sourceField: unknown) => ({
  name,
  type: 'Dynamic',
  properties: { sourceField },
});
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('every delivery policy the pages name', () => {
  // Seed 003 (delivery and retry): "Retry policy" ("Maximum number of attempts", "Event
  // time-to-live (TTL)"), "Batching policy" ("max-events-per-batch",
  // "preferred-batch-size-in-kilobytes") and "Dead-letter events" ("you must specify a storage
  // account to hold undelivered events when creating the event subscription").
  it('is accepted in one subscription body and read as delivery uses it', () => {
    const parsed = parseSubscriptionBody(
      {
        properties: {
          destination: {
            endpointType: 'WebHook',
            properties: {
              endpointUrl: 'https://hooks.example.test/in',
              maxEventsPerBatch: 1000,
              preferredBatchSizeInKilobytes: 512,
            },
          },
          retryPolicy: { maxDeliveryAttempts: 10, eventTimeToLiveInMinutes: 30 },
          deadLetterDestination: {
            endpointType: 'StorageBlob',
            properties: { resourceId: 'arn:aws:s3:::dead-letters', blobContainerName: 'orders' },
          },
        },
      },
      { allowHttp: false },
    );
    expect(parsed).toMatchObject({
      maxEventsPerBatch: 1000,
      preferredBatchSizeInKilobytes: 512,
      retry: { maxAttempts: 10, ttlMs: 30 * 60_000 },
      deadLetter: { container: 'orders', resourceId: 'arn:aws:s3:::dead-letters' },
    });
  });
});

describe('output batching settings', () => {
  it('keeps only the settings given', () => {
    expect(
      parseSubscriptionBody(withDestination({ maxEventsPerBatch: 50, preferredBatchSizeInKilobytes: 128 }), {
        allowHttp: false,
      }),
    ).toMatchObject({ maxEventsPerBatch: 50, preferredBatchSizeInKilobytes: 128 });
    const onlyCount = parseSubscriptionBody(withDestination({ maxEventsPerBatch: 5000 }), {
      allowHttp: false,
    });
    expect(onlyCount.maxEventsPerBatch).toBe(5000);
    expect(onlyCount).not.toHaveProperty('preferredBatchSizeInKilobytes');
    expect(parseSubscriptionBody(withDestination({}), { allowHttp: false })).not.toHaveProperty(
      'maxEventsPerBatch',
    );
  });

  it.each([
    [
      { maxEventsPerBatch: 0 },
      'maxEventsPerBatch: must be an integer between 1 and 5000 (got a smaller value)',
    ],
    [
      { maxEventsPerBatch: 5001 },
      'maxEventsPerBatch: must be an integer between 1 and 5000 (got a larger value)',
    ],
    [{ maxEventsPerBatch: 1.5 }, 'maxEventsPerBatch: must be an integer between 1 and 5000'],
    [{ maxEventsPerBatch: '10' }, 'maxEventsPerBatch: must be an integer between 1 and 5000'],
    [
      { preferredBatchSizeInKilobytes: 0 },
      'preferredBatchSizeInKilobytes: must be an integer between 1 and 1024 (got a smaller value)',
    ],
    [
      { preferredBatchSizeInKilobytes: 1025 },
      'preferredBatchSizeInKilobytes: must be an integer between 1 and 1024 (got a larger value)',
    ],
    [
      { preferredBatchSizeInKilobytes: 64.5 },
      'preferredBatchSizeInKilobytes: must be an integer between 1 and 1024',
    ],
  ])('rejects %j naming the field and its range', (destination, message) => {
    expect(rejection(() => parseSubscriptionBody(withDestination(destination), { allowHttp: false }))).toBe(
      `properties.destination.properties.${message}.`,
    );
  });
});

describe('delivery attribute mappings', () => {
  it('parse static, secret and dynamic mappings in order; isSecret defaults to false', () => {
    const parsed = parseSubscriptionBody(
      withMappings(
        staticMapping('X-Plain', 'hello'),
        staticMapping('Authorization', 'Bearer abc', true),
        staticMapping('X-Explicit', 'v', false),
        dynamicMapping('X-Tenant', 'data.tenant'),
      ),
      { allowHttp: false },
    );
    expect(parsed.deliveryAttributeMappings).toEqual([
      { name: 'X-Plain', type: 'Static', isSecret: false, value: 'hello' },
      { name: 'Authorization', type: 'Static', isSecret: true, value: 'Bearer abc' },
      { name: 'X-Explicit', type: 'Static', isSecret: false, value: 'v' },
      { name: 'X-Tenant', type: 'Dynamic', sourceField: 'data.tenant' },
    ]);
  });

  it('leave the input without mappings when none (or an empty list) are given', () => {
    expect(parseSubscriptionBody(withMappings(), { allowHttp: false })).not.toHaveProperty(
      'deliveryAttributeMappings',
    );
  });

  it('take values at the limits: 10 mappings, 100-character names, 4096-byte values, 256-character paths', () => {
    const parsed = parseSubscriptionBody(
      withMappings(
        staticMapping('n'.repeat(100), 'é'.repeat(2048)),
        staticMapping("x!#$%&'*+-.^_`|~9", '\tvisible ~ and Latin-1 \u00ff'),
        staticMapping('X-Empty', ''),
        dynamicMapping('X-Path', `${'a'.repeat(127)}.${'b'.repeat(128)}`),
        ...Array.from({ length: 6 }, (_, index) => dynamicMapping(`X-${index}`, 'subject')),
      ),
      { allowHttp: false },
    );
    expect(parsed.deliveryAttributeMappings).toHaveLength(10);
  });

  it.each<[string, unknown, string]>([
    [
      'more than 10 mappings',
      Array.from({ length: 11 }, (_, index) => staticMapping(`X-${index}`)),
      `${MAPPINGS}: holds at most 10 mappings (got 11)`,
    ],
    [
      'a name with a space',
      [staticMapping('X-Ok'), staticMapping('X Bad')],
      `${MAPPINGS}.1.name: must be a valid HTTP header name`,
    ],
    [
      'a name with a colon',
      [staticMapping('X-Bad:')],
      `${MAPPINGS}.0.name: must be a valid HTTP header name`,
    ],
    ['a non-ASCII name', [staticMapping('X-Café')], `${MAPPINGS}.0.name: must be a valid HTTP header name`],
    ['an empty name', [staticMapping('')], `${MAPPINGS}.0.name: must be 1 to 100 characters (got 0)`],
    [
      'a long name',
      [staticMapping('n'.repeat(101))],
      `${MAPPINGS}.0.name: must be 1 to 100 characters (got 101)`,
    ],
    [
      'a missing name',
      [{ type: 'Static', properties: { value: 'v' } }],
      `${MAPPINGS}.0.name: must be a string`,
    ],
    [
      'an aeg- name',
      [staticMapping('AEG-Custom')],
      `${MAPPINGS}.0.name: must not start with 'aeg-': those headers are Gridwire's own delivery headers`,
    ],
    [
      'a duplicate name, ignoring case',
      [staticMapping('X-One'), dynamicMapping('X-Two', 'id'), staticMapping('x-one')],
      `${MAPPINGS}.2.name: 'x-one' is already the name of mapping 0 (names are unique, ignoring case)`,
    ],
    [
      'an unknown type',
      [{ name: 'X-A', type: 'Computed', properties: {} }],
      `${MAPPINGS}.0.type: must be one of Static, Dynamic`,
    ],
    [
      'a missing type',
      [{ name: 'X-A', properties: {} }],
      `${MAPPINGS}.0.type: must be one of Static, Dynamic`,
    ],
    ['a mapping that is not an object', ['X-A'], `${MAPPINGS}.0: must be an object`],
    ['mappings that are not a list', 'X-A', `${MAPPINGS}: must be an array of mappings`],
    [
      'a static mapping without properties',
      [{ name: 'X-A', type: 'Static' }],
      `${MAPPINGS}.0.properties: is required: {"value": "...", "isSecret": false}`,
    ],
    [
      'a static value that is not a string (as a secret one reads back)',
      [staticMapping('X-A', null, true)],
      `${MAPPINGS}.0.properties.value: must be a string (a secret value is never shown, so it is given again with every PUT`,
    ],
    [
      'a static value over 4096 bytes',
      [staticMapping('X-A', 'é'.repeat(2049))],
      `${MAPPINGS}.0.properties.value: may be at most 4096 bytes in UTF-8 (got 4098 bytes)`,
    ],
    [
      'a static value with CR LF',
      [staticMapping('X-A', 'a\r\nInjected: yes')],
      `${MAPPINGS}.0.properties.value: holds a character a header value can't carry`,
    ],
    [
      'a static value with NUL',
      [staticMapping('X-A', 'a\u0000')],
      `${MAPPINGS}.0.properties.value: holds a character`,
    ],
    [
      'a static value with DEL',
      [staticMapping('X-A', 'a\u007f')],
      `${MAPPINGS}.0.properties.value: holds a character`,
    ],
    [
      'a static value beyond Latin-1',
      [staticMapping('X-A', 'snow \u2603')],
      `${MAPPINGS}.0.properties.value: holds a character`,
    ],
    [
      'a non-boolean isSecret',
      [staticMapping('X-A', 'v', 'yes')],
      `${MAPPINGS}.0.properties.isSecret: must be true or false`,
    ],
    [
      'a static mapping with a sourceField',
      [{ name: 'X-A', type: 'Static', properties: { value: 'v', sourceField: 'id' } }],
      `${MAPPINGS}.0.properties.sourceField: unknown field`,
    ],
    [
      'a dynamic mapping without properties',
      [{ name: 'X-A', type: 'Dynamic' }],
      `${MAPPINGS}.0.properties: is required: {"sourceField": "data.tenant"}`,
    ],
    [
      'an empty sourceField',
      [dynamicMapping('X-A', '')],
      `${MAPPINGS}.0.properties.sourceField: must not be empty`,
    ],
    [
      'a sourceField over 256 characters',
      [dynamicMapping('X-A', 'a'.repeat(257))],
      `${MAPPINGS}.0.properties.sourceField: may be at most 256 characters (got 257)`,
    ],
    ...['.data', 'data.', 'data..tenant'].map((path): [string, unknown, string] => [
      `the sourceField ${path}`,
      [dynamicMapping('X-A', path)],
      `${MAPPINGS}.0.properties.sourceField: must be a dotted path with no empty segments`,
    ]),
    [
      'a sourceField that is not a string',
      [dynamicMapping('X-A', 3)],
      `${MAPPINGS}.0.properties.sourceField: must be a string`,
    ],
    [
      'a dynamic mapping with a value',
      [{ name: 'X-A', type: 'Dynamic', properties: { sourceField: 'id', value: 'v' } }],
      `${MAPPINGS}.0.properties.value: unknown field`,
    ],
  ])('reject %s', (_case, mappings, message) => {
    expect(
      rejection(() =>
        parseSubscriptionBody(withDestination({ deliveryAttributeMappings: mappings }), { allowHttp: false }),
      ),
    ).toMatch(new RegExp(`^${escapeRegExp(message)}`));
  });

  it.each([
    'host',
    'Content-Type',
    'content-length',
    'Content-Encoding',
    'Transfer-Encoding',
    'Connection',
    'keep-alive',
    'TE',
    'Trailer',
    'Upgrade',
    'Expect',
  ])('refuse the header %s, saying why', (name) => {
    expect(
      rejection(() => parseSubscriptionBody(withMappings(staticMapping(name)), { allowHttp: false })),
    ).toMatch(
      new RegExp(`^${escapeRegExp(`${MAPPINGS}.0.name: '${name}' can't be set by a mapping: `)}\\w+`),
    );
  });
});

describe('subscription documents with batching and delivery headers', () => {
  const doc = subscriptionDocument(
    subscription({
      destination: {
        endpointType: 'WebHook',
        endpointUrl: 'https://h.example.test/in',
        maxEventsPerBatch: 20,
        deliveryAttributeMappings: [
          { name: 'X-Plain', type: 'Static', isSecret: false, value: 'hello' },
          { name: 'Authorization', type: 'Static', isSecret: true, sealedValue: 'v1.sealed-iv.sealed-body' },
          { name: 'X-Tenant', type: 'Dynamic', sourceField: 'data.tenant' },
        ],
      },
    }),
    0,
  );

  it('show a preferred size set alone as batching on: as many events as fit under it', () => {
    const alone = subscription({
      destination: {
        endpointType: 'WebHook',
        endpointUrl: 'https://hooks.example.test/in',
        preferredBatchSizeInKilobytes: 256,
      },
    });
    expect(subscriptionDocument(alone, 0).properties.destination.properties).toMatchObject({
      maxEventsPerBatch: 5000,
      preferredBatchSizeInKilobytes: 256,
    });
  });

  it('show the batch settings, a default for the one not set', () => {
    expect(doc.properties.destination.properties).toMatchObject({
      maxEventsPerBatch: 20,
      preferredBatchSizeInKilobytes: 64,
    });
  });

  it('show the mappings in the ARM shape, a secret value as null and never its sealed text', () => {
    expect(doc.properties.destination.properties.deliveryAttributeMappings).toEqual([
      { name: 'X-Plain', type: 'Static', properties: { value: 'hello', isSecret: false } },
      { name: 'Authorization', type: 'Static', properties: { value: null, isSecret: true } },
      { name: 'X-Tenant', type: 'Dynamic', properties: { sourceField: 'data.tenant' } },
    ]);
    expect(JSON.stringify(doc)).not.toContain('sealed');
  });

  it('leave the mappings out when there are none', () => {
    expect(subscriptionDocument(subscription(), 0).properties.destination.properties).not.toHaveProperty(
      'deliveryAttributeMappings',
    );
  });
});

describe('an own retry schedule (retryPolicy.retrySchedule)', () => {
  const parse = (retrySchedule: unknown) =>
    parseSubscriptionBody(webhook(undefined, { retryPolicy: { retrySchedule } }), { allowHttp: false });

  it('is taken as ISO 8601 durations, kept in ms, and shown back as it was given', () => {
    const parsed = parse(['PT10S', 'PT1M', 'PT10M', 'PT1H', 'P0DT12H']);
    expect(parsed.retry).toEqual({
      maxAttempts: 30,
      ttlMs: 1440 * 60_000,
      scheduleMs: [10_000, 60_000, 600_000, 3_600_000, 43_200_000],
    });
    const shown = subscriptionDocument(
      subscription({ retry: parsed.retry }),
      Date.parse('2026-11-28T00:00:00Z'),
    ).properties.retryPolicy;
    expect(shown).toEqual({
      maxDeliveryAttempts: 30,
      eventTimeToLiveInMinutes: 1440,
      retrySchedule: ['PT10S', 'PT1M', 'PT10M', 'PT1H', 'PT12H'],
    });
    expect(parse(['PT90S']).retry.scheduleMs).toEqual([90_000]);
  });

  it.each([
    [['PT5S'], /retrySchedule\.0: must be from PT10S to PT12H \(got PT5S\)/],
    [['PT1M', 'P1D'], /retrySchedule\.1: must be from PT10S to PT12H \(got P1D\)/],
    [['PT1M', '1 minute'], /retrySchedule\.1: must be an ISO 8601 duration such as PT10S/],
    [['P1M'], /retrySchedule\.0: must be an ISO 8601 duration/],
    [[], /retrySchedule: must hold at least one step/],
    [Array.from({ length: 31 }, () => 'PT1M'), /retrySchedule: may hold at most 30 steps/],
    ['PT1M', /retrySchedule: must be an array of ISO 8601 durations/],
  ])('refuses %j naming the field and the limit', (schedule, message) => {
    expect(rejection(() => parse(schedule))).toMatch(message);
  });
});

describe('subscription labels (properties.labels)', () => {
  const labelled = (labels: unknown) => webhook(undefined, { labels });

  it(`keeps up to ${LABEL_LIMITS.count} labels of up to ${LABEL_LIMITS.length} characters`, () => {
    const labels = Array.from({ length: LABEL_LIMITS.count }, (_, n) => `tenant-${n}=${'x'.repeat(100)}`);
    labels[0] = 'k'.repeat(LABEL_LIMITS.length);
    expect(parseSubscriptionBody(labelled(labels), { allowHttp: false }).labels).toEqual(labels);
    expect(parseSubscriptionBody(labelled([]), { allowHttp: false }).labels).toEqual([]);
  });

  it.each([
    [
      Array.from({ length: LABEL_LIMITS.count + 1 }, (_, n) => `tenant=${n}`),
      /^properties\.labels: at most 20 labels\.$/,
    ],
    [
      ['tenant=acme', 'k'.repeat(LABEL_LIMITS.length + 1)],
      /^properties\.labels\.1: a label is 1 to 128 characters/,
    ],
    [['tenant=acme', ''], /^properties\.labels\.1: a label is 1 to 128 characters \(this one is empty\)/],
    [['tenant=acme', 7], /^properties\.labels\.1: must be a list of strings/],
    ['tenant=acme', /^properties\.labels: must be a list of strings/],
  ])('refuses %j naming properties.labels and the limit', (labels, message) => {
    expect(rejection(() => parseSubscriptionBody(labelled(labels), { allowHttp: false }))).toMatch(message);
  });
});

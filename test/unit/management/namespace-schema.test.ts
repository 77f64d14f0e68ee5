import type { Namespace } from '../../../shared/domain/model';
import { ApiError } from '../../../shared/http/errors';
import {
  namespaceDocument,
  namespaceSubscriptionDocument,
  namespaceTopicDocument,
  parseNamespaceBody,
  parseNamespaceSubscriptionBody,
  parseNamespaceTopicBody,
} from '../../../shared/management/namespace-schema';
import { validateName } from '../../../shared/management/request-body';
import { isoDurationMinutes, isoDurationOf } from '../../../shared/platform/iso-duration';
import { namespacePushBody, subscription } from '../../support/fakes';

const PUSH = 'properties.deliveryConfiguration.push';
const DAY = 24 * 60;

function rejection(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 400) return error.message;
    throw error;
  }
  throw new Error('expected a 400');
}

const push = (overrides: Record<string, unknown> = {}, properties: Record<string, unknown> = {}) =>
  namespacePushBody('https://hooks.example.test/in', overrides, properties);

const topic = { name: 'orders', eventRetentionInDays: 7 };
const parse = (body: unknown, retentionDays = 7) =>
  parseNamespaceSubscriptionBody(body, {
    allowHttp: false,
    topic: { ...topic, eventRetentionInDays: retentionDays },
  });

describe('the endpoint URL', () => {
  it('is taken as parsed (URL.href)', () => {
    const body = push({
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: 'HTTPS://Hooks.Example.test/./in?code=s3cret' },
      },
    });
    expect(parse(body).endpointUrl).toBe('https://hooks.example.test/in?code=s3cret');
  });
});

describe('ISO 8601 durations (eventTimeToLive)', () => {
  it.each([
    ['PT1M', 1],
    ['PT30M', 30],
    ['PT1H', 60],
    ['PT1H30M', 90],
    ['P1D', DAY],
    ['P1DT12H', 1.5 * DAY],
    ['P7D', 7 * DAY],
    ['P1W', 7 * DAY],
    ['PT120S', 2],
    ['PT0M', 0],
  ])('%s is %i minutes', (text, minutes) => {
    expect(isoDurationMinutes(text)).toBe(minutes);
  });

  it.each(['', 'P', 'PT', 'P1Y', 'P1M', 'PT30S', 'PT1.5M', '1 day', 'p1d', 'PT-1M', 'P1DT'])(
    '%j is not a duration with minute precision',
    (text) => {
      expect(isoDurationMinutes(text)).toBeUndefined();
    },
  );

  it.each([
    [1, 'PT1M'],
    [20, 'PT20M'],
    [60, 'PT1H'],
    [DAY, 'P1D'],
    [DAY + 150, 'P1DT2H30M'],
    [7 * DAY, 'P7D'],
  ])('%i minutes is written %s', (minutes, text) => {
    expect(isoDurationOf(minutes)).toBe(text);
    expect(isoDurationMinutes(text)).toBe(minutes);
  });
});

describe('namespace bodies', () => {
  it('takes {"properties": {}}, an empty body and tags', () => {
    expect(parseNamespaceBody({ properties: {} })).toEqual({ tags: {} });
    expect(parseNamespaceBody(undefined)).toEqual({ tags: {} });
    expect(parseNamespaceBody({ location: 'local', tags: { team: 'a' } })).toEqual({ tags: { team: 'a' } });
  });

  it.each([
    [{ properties: { topicSpacesConfiguration: {} } }, 'properties.topicSpacesConfiguration: unknown field'],
    [{ tags: { team: 1 } }, 'tags.team:'],
    [{ sku: 'Standard' }, 'sku: unknown field'],
    [null, 'body: Invalid input: expected object, received null'],
  ])('rejects %j naming the field', (body, message) => {
    expect(rejection(() => parseNamespaceBody(body))).toContain(message);
  });

  it('takes names by the topic rules: 3 to 50 letters, digits and hyphens', () => {
    expect(validateName('namespace', 'my-ns-1')).toBe('my-ns-1');
    expect(rejection(() => validateName('namespace', 'ns'))).toContain("The namespace name 'ns' is invalid");
    expect(rejection(() => validateName('namespace', 'a/b-c'))).toContain('letters, digits and hyphens only');
    expect(rejection(() => validateName('namespace', 'a'.repeat(51)))).toContain('3 to 50 characters');
  });
});

describe('namespace topic bodies', () => {
  it('take an absent body as {}, and refuse a JSON null', () => {
    expect(parseNamespaceTopicBody(undefined).eventRetentionInDays).toBe(1);
    expect(rejection(() => parseNamespaceTopicBody(null))).toContain(
      'body: Invalid input: expected object, received null',
    );
  });

  it('keeps events 1 day by default, up to 7', () => {
    expect(parseNamespaceTopicBody(undefined)).toEqual({
      eventRetentionInDays: 1,
      deduplicationWindowInMinutes: 0,
      validateEvents: false,
      unknownEventTypes: 'allow',
    });
    expect(parseNamespaceTopicBody({ properties: {} })).toEqual({
      eventRetentionInDays: 1,
      deduplicationWindowInMinutes: 0,
      validateEvents: false,
      unknownEventTypes: 'allow',
    });
    expect(
      parseNamespaceTopicBody({ properties: { deduplicationWindowInMinutes: 60 } })
        .deduplicationWindowInMinutes,
    ).toBe(60);
    expect(() => parseNamespaceTopicBody({ properties: { deduplicationWindowInMinutes: 1441 } })).toThrow(
      /properties\.deduplicationWindowInMinutes: must be an integer between 0 and 1440/,
    );
    expect(
      parseNamespaceTopicBody({
        properties: { eventRetentionInDays: 7, inputSchema: 'CloudEventSchemaV1_0', publisherType: 'Custom' },
      }),
    ).toEqual({
      eventRetentionInDays: 7,
      deduplicationWindowInMinutes: 0,
      validateEvents: false,
      unknownEventTypes: 'allow',
    });
  });

  it.each([
    [{ eventRetentionInDays: 0 }, 'properties.eventRetentionInDays: must be an integer between 1 and 7'],
    [{ eventRetentionInDays: 8 }, 'properties.eventRetentionInDays: must be an integer between 1 and 7'],
    [{ eventRetentionInDays: 1.5 }, 'properties.eventRetentionInDays: must be an integer between 1 and 7'],
    [{ eventRetentionInDays: '2' }, 'properties.eventRetentionInDays: must be an integer between 1 and 7'],
    [{ inputSchema: 'EventGridSchema' }, 'properties.inputSchema: must be CloudEventSchemaV1_0'],
    [{ publisherType: 'Partner' }, "properties.publisherType: must be 'Custom'"],
    [{ retention: 2 }, 'properties.retention: unknown field'],
  ])('rejects %j naming the field', (properties, message) => {
    expect(rejection(() => parseNamespaceTopicBody({ properties }))).toContain(message);
  });
});

describe('namespace subscription bodies', () => {
  it('defaults to 10 attempts and the topic retention as time to live', () => {
    expect(parse(push(), 1)).toEqual({
      endpointUrl: 'https://hooks.example.test/in',
      filter: {},
      retry: { maxAttempts: 10, ttlMs: DAY * 60_000 },
      labels: [],
    });
    expect(parse(push(), 7).retry).toEqual({ maxAttempts: 10, ttlMs: 7 * DAY * 60_000 });
  });

  it('takes every part: limits, batching, headers, filter, schema and dead-letter destination', () => {
    const parsed = parse(
      push(
        {
          maxDeliveryCount: 3,
          eventTimeToLive: 'PT20M',
          destination: {
            endpointType: 'WebHook',
            properties: {
              endpointUrl: 'https://hooks.example.test/in?code=secret',
              maxEventsPerBatch: 10,
              preferredBatchSizeInKilobytes: 64,
              deliveryAttributeMappings: [
                { name: 'Authorization', type: 'Static', properties: { value: 'Bearer x', isSecret: true } },
                { name: 'X-Tenant', type: 'Dynamic', properties: { sourceField: 'data.tenant' } },
              ],
            },
          },
          deadLetterDestinationWithResourceIdentity: {
            deadLetterDestination: {
              endpointType: 'StorageBlob',
              properties: { blobContainerName: 'dead-letters', resourceId: '/subscriptions/x/y' },
            },
          },
        },
        {
          filtersConfiguration: { includedEventTypes: ['order.created'] },
          eventDeliverySchema: 'CloudEventSchemaV1_0',
        },
      ),
    );
    expect(parsed).toEqual({
      endpointUrl: 'https://hooks.example.test/in?code=secret',
      maxEventsPerBatch: 10,
      preferredBatchSizeInKilobytes: 64,
      deliveryAttributeMappings: [
        { name: 'Authorization', type: 'Static', isSecret: true, value: 'Bearer x' },
        { name: 'X-Tenant', type: 'Dynamic', sourceField: 'data.tenant' },
      ],
      filter: { includedEventTypes: ['order.created'] },
      retry: { maxAttempts: 3, ttlMs: 20 * 60_000 },
      deadLetter: { container: 'dead-letters', resourceId: '/subscriptions/x/y' },
      labels: [],
    });
  });

  it('treats no filter, a null filter and All as every event type', () => {
    expect(parse(push({}, { filtersConfiguration: {} })).filter.includedEventTypes).toBeUndefined();
    expect(
      parse(push({}, { filtersConfiguration: { includedEventTypes: null } })).filter.includedEventTypes,
    ).toBeUndefined();
    expect(
      parse(push({}, { filtersConfiguration: { includedEventTypes: ['All'] } })).filter.includedEventTypes,
    ).toBeUndefined();
  });

  it.each([
    [{ maxDeliveryCount: 0 }, `${PUSH}.maxDeliveryCount: must be an integer between 1 and 10`],
    [{ maxDeliveryCount: 11 }, `${PUSH}.maxDeliveryCount: must be an integer between 1 and 10`],
    [{ maxDeliveryCount: 2.5 }, `${PUSH}.maxDeliveryCount: must be an integer between 1 and 10`],
    [
      { eventTimeToLive: 'PT0M' },
      `${PUSH}.eventTimeToLive: must be an ISO 8601 duration with minute precision between PT1M and P7D`,
    ],
    [
      { eventTimeToLive: 'P8D' },
      `${PUSH}.eventTimeToLive: must be an ISO 8601 duration with minute precision between PT1M and P7D`,
    ],
    [
      { eventTimeToLive: 'PT90S' },
      `${PUSH}.eventTimeToLive: must be an ISO 8601 duration with minute precision`,
    ],
    [{ eventTimeToLive: 'P1M' }, `${PUSH}.eventTimeToLive: must be an ISO 8601 duration`],
    [{ eventTimeToLive: 60 }, `${PUSH}.eventTimeToLive: must be an ISO 8601 duration`],
    [{ destination: undefined }, `${PUSH}.destination: is required`],
    [
      { destination: { endpointType: 'EventHub', properties: { endpointUrl: 'https://a.test' } } },
      `${PUSH}.destination.endpointType: must be 'WebHook'`,
    ],
    [
      { destination: { endpointType: 'WebHook', properties: { endpointUrl: 'http://a.test' } } },
      `${PUSH}.destination.properties.endpointUrl: must be an https URL`,
    ],
    [
      {
        destination: {
          endpointType: 'WebHook',
          properties: { endpointUrl: 'https://a.test', maxEventsPerBatch: 5001 },
        },
      },
      `${PUSH}.destination.properties.maxEventsPerBatch: must be an integer between 1 and 5000`,
    ],
    [
      {
        destination: {
          endpointType: 'WebHook',
          properties: { endpointUrl: 'https://a.test', preferredBatchSizeInKilobytes: 1025 },
        },
      },
      `${PUSH}.destination.properties.preferredBatchSizeInKilobytes: must be an integer between 1 and 1024`,
    ],
    [
      {
        destination: {
          endpointType: 'WebHook',
          properties: {
            endpointUrl: 'https://a.test',
            deliveryAttributeMappings: [{ name: 'aeg-x', type: 'Static', properties: { value: 'v' } }],
          },
        },
      },
      `${PUSH}.destination.properties.deliveryAttributeMappings.0.name: must not start with 'aeg-'`,
    ],
    [
      {
        deadLetterDestinationWithResourceIdentity: {
          deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'No' } },
        },
      },
      `${PUSH}.deadLetterDestinationWithResourceIdentity.deadLetterDestination.properties.blobContainerName: must be 3 to 63 lower-case letters`,
    ],
    [
      {
        deadLetterDestinationWithResourceIdentity: {
          deadLetterDestination: { endpointType: 'Queue', properties: { blobContainerName: 'dead' } },
        },
      },
      `${PUSH}.deadLetterDestinationWithResourceIdentity.deadLetterDestination.endpointType: must be 'StorageBlob'`,
    ],
    [{ maxDeliveryAttempts: 3 }, `${PUSH}.maxDeliveryAttempts: unknown field`],
    [
      { destination: { endpointType: 'WebHook', properties: { endpointUrl: 'https://a.test/in\r\nx' } } },
      `${PUSH}.destination.properties.endpointUrl: must not contain control characters (CR, LF, tab or any other below U+0020, or DEL); found CR (U+000D) at position 17`,
    ],
    [
      { destination: { endpointType: 'WebHook', properties: { endpointUrl: 'https://a.test/\tin' } } },
      `${PUSH}.destination.properties.endpointUrl: must not contain control characters`,
    ],
  ])('rejects push settings %j naming the field', (overrides, message) => {
    expect(rejection(() => parse(push(overrides)))).toContain(message);
  });

  it.each([
    [
      { eventDeliverySchema: 'EventGridSchema' },
      'properties.eventDeliverySchema: must be CloudEventSchemaV1_0',
    ],
    [
      { filtersConfiguration: { includedEventTypes: [''] } },
      'properties.filtersConfiguration.includedEventTypes.0:',
    ],
    [
      { filtersConfiguration: { filters: [] } },
      'properties.filtersConfiguration.filters: unknown filter field',
    ],
    [{ retryPolicy: {} }, 'properties.retryPolicy: unknown field'],
  ])('rejects subscription properties %j naming the field', (properties, message) => {
    expect(rejection(() => parse(push({}, properties)))).toContain(message);
  });

  it.each([
    [{ properties: {} }, 'properties.deliveryConfiguration: is required'],
    [
      { properties: { deliveryConfiguration: { deliveryMode: 'Queue', push: {} } } },
      "properties.deliveryConfiguration.deliveryMode: must be 'Push'",
    ],
    [{ properties: { deliveryConfiguration: { deliveryMode: 'Push' } } }, `${PUSH}: is required`],
    [{}, 'properties: is required'],
  ])('rejects the incomplete body %j', (body, message) => {
    expect(rejection(() => parse(body))).toContain(message);
  });

  it("refuses a time to live above the topic's retention, naming both", () => {
    expect(rejection(() => parse(push({ eventTimeToLive: 'P2D' }), 1))).toBe(
      `${PUSH}.eventTimeToLive: must not exceed the retention of topic 'orders', P1D (eventRetentionInDays 1) (got P2D).`,
    );
    expect(parse(push({ eventTimeToLive: 'P1D' }), 1).retry.ttlMs).toBe(DAY * 60_000);
  });
});

describe('namespace documents', () => {
  const times = { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z' };

  it('shows a namespace without its keys', () => {
    const namespace: Namespace = {
      name: 'shop',
      keys: { key1: 'k1', key2: 'k2' },
      tags: { team: 'a' },
      ...times,
    };
    expect(namespaceDocument(namespace)).toEqual({
      id: '/gridwire/namespaces/shop',
      name: 'shop',
      type: 'Microsoft.EventGrid/namespaces',
      tags: { team: 'a' },
      properties: { provisioningState: 'Succeeded' },
      systemData: { createdAt: times.createdAt, lastModifiedAt: times.updatedAt },
    });
  });

  it('shows a namespace topic', () => {
    expect(
      namespaceTopicDocument({
        namespace: 'shop',
        name: 'orders',
        eventRetentionInDays: 3,
        deduplicationWindowInMinutes: 5,
        subscriptionsVersion: 4,
        ...times,
      }),
    ).toEqual({
      id: '/gridwire/namespaces/shop/topics/orders',
      name: 'orders',
      type: 'Microsoft.EventGrid/namespaces/topics',
      properties: {
        provisioningState: 'Succeeded',
        publisherType: 'Custom',
        inputSchema: 'CloudEventSchemaV1_0',
        eventRetentionInDays: 3,
        deduplicationWindowInMinutes: 5,
        archive: null,
        validateEvents: false,
        unknownEventTypes: 'allow',
      },
      systemData: { createdAt: times.createdAt, lastModifiedAt: times.updatedAt },
    });
  });

  it('shows a push subscription in the ARM shape, secrets masked and the query string left out', () => {
    const document = namespaceSubscriptionDocument(
      subscription({
        topic: 'shop/orders',
        name: 'audit',
        deliveryProfile: 'namespace',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        retry: { maxAttempts: 5, ttlMs: 90 * 60_000 },
        filter: { includedEventTypes: ['order.created'] },
        destination: {
          endpointType: 'WebHook',
          endpointUrl: 'https://hooks.example.test/in?code=secret',
          deliveryAttributeMappings: [
            { name: 'Authorization', type: 'Static', isSecret: true, sealedValue: 'sealed' },
            { name: 'X-Static', type: 'Static', isSecret: false, value: 'v' },
          ],
        },
        deadLetter: { container: 'dead-letters' },
        ...times,
      }),
      0,
    );
    expect(document).toEqual({
      id: '/gridwire/namespaces/shop/topics/orders/eventSubscriptions/audit',
      name: 'audit',
      type: 'Microsoft.EventGrid/namespaces/topics/eventSubscriptions',
      properties: {
        provisioningState: 'Succeeded',
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            maxDeliveryCount: 5,
            eventTimeToLive: 'PT1H30M',
            destination: {
              endpointType: 'WebHook',
              properties: {
                endpointBaseUrl: 'https://hooks.example.test/in',
                maxEventsPerBatch: 1,
                preferredBatchSizeInKilobytes: 64,
                deliveryAttributeMappings: [
                  { name: 'Authorization', type: 'Static', properties: { value: null, isSecret: true } },
                  { name: 'X-Static', type: 'Static', properties: { value: 'v', isSecret: false } },
                ],
              },
            },
            deadLetterDestinationWithResourceIdentity: {
              deadLetterDestination: {
                endpointType: 'StorageBlob',
                properties: { blobContainerName: 'dead-letters' },
              },
            },
          },
        },
        deliveryLog: 'Failures',
        disableAfterFailingFor: 'P5D',
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        filtersConfiguration: { includedEventTypes: ['order.created'] },
        labels: [],
        orderedDelivery: null,
      },
      systemData: { createdAt: times.createdAt, lastModifiedAt: times.updatedAt },
    });
    expect(JSON.stringify(document)).not.toContain('sealed');
    expect(JSON.stringify(document)).not.toContain('secret');
  });

  it('refuses to show a classic subscription as a namespace one', () => {
    expect(() => namespaceSubscriptionDocument(subscription({ topic: 'orders' }), 0)).toThrow(
      /not a namespace topic/,
    );
  });
});

describe('deliveryLog', () => {
  it('is taken under properties, absent when not given, and refused naming the field otherwise', () => {
    expect(parse(push({}, { deliveryLog: 'All' })).deliveryLog).toBe('All');
    expect(parse(push()).deliveryLog).toBeUndefined();
    expect(rejection(() => parse(push({}, { deliveryLog: 'Some' })))).toMatch(
      /properties\.deliveryLog: must be one of Failures, All/,
    );
  });
});

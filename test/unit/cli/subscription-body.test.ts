/**
 * The command line's subscription bodies: Azure CLI-shaped flags become the ARM body the API
 * takes (classic) or the namespace push body, and `update` keeps what it is not told to change.
 */
import { InvalidArgumentError } from 'commander';
import {
  advancedFilterArgument,
  classicBodyOf,
  classicSubscriptionBody,
  deliveryAttributeArgument,
  deliverySchemaArgument,
  inputSchemaArgument,
  namespaceBodyOf,
  namespaceSubscriptionBody,
} from '../../../cli/subscription/body';
import { deliversToResource } from '../../../cli/subscription/destination-flags';
import { groupOptionWords, optionWords } from '../../../cli/words';

describe('multi-word flags', () => {
  it('group the words of each occurrence, so a repeated flag gives one value per occurrence', () => {
    const grouped = groupOptionWords([
      'subscription',
      'create',
      '--advanced-filter',
      'data.total',
      'NumberGreaterThan',
      '-5',
      '--advanced-filter',
      'data.region',
      'StringIn',
      'eu',
      'uk',
      '--name',
      'billing',
    ]);
    expect(grouped.slice(0, 3)).toEqual(['subscription', 'create', '--advanced-filter']);
    expect(optionWords(grouped[3] as string)).toEqual(['data.total', 'NumberGreaterThan', '-5']);
    expect(grouped[4]).toBe('--advanced-filter');
    expect(optionWords(grouped[5] as string)).toEqual(['data.region', 'StringIn', 'eu', 'uk']);
    expect(grouped.slice(6)).toEqual(['--name', 'billing']);
  });

  it('take one quoted argument split at white space, and leave words after -- alone', () => {
    expect(optionWords('  data.total  NumberLessThan 3 ')).toEqual(['data.total', 'NumberLessThan', '3']);
    expect(groupOptionWords(['--', '--advanced-filter', 'a', 'b'])).toEqual([
      '--',
      '--advanced-filter',
      'a',
      'b',
    ]);
  });
});

describe('--advanced-filter', () => {
  const parse = (words: string) => advancedFilterArgument(words.split(' ').join('\u001f'));

  it.each([
    [
      'data.total NumberGreaterThan 100',
      { operatorType: 'NumberGreaterThan', key: 'data.total', value: 100 },
    ],
    ['data.n NumberIn 1 2 3', { operatorType: 'NumberIn', key: 'data.n', values: [1, 2, 3] }],
    [
      'data.n NumberInRange 0,10 90,100',
      {
        operatorType: 'NumberInRange',
        key: 'data.n',
        values: [
          [0, 10],
          [90, 100],
        ],
      },
    ],
    ['data.ok BoolEquals TRUE', { operatorType: 'BoolEquals', key: 'data.ok', value: true }],
    ['data.region stringin eu uk', { operatorType: 'StringIn', key: 'data.region', values: ['eu', 'uk'] }],
    ['data.customer IsNotNull', { operatorType: 'IsNotNull', key: 'data.customer' }],
  ])('%s', (words, filter) => {
    expect(parse(words)).toEqual([filter]);
  });

  it('accumulates over occurrences', () => {
    const first = advancedFilterArgument('data.a IsNotNull');
    expect(advancedFilterArgument('data.b NumberLessThan 2', first)).toHaveLength(2);
  });

  it.each([
    ['data.total', /KEY OPERATOR/],
    ['data.total NumberBiggerThan 1', /operator must be one of .*NumberGreaterThan/],
    ['data.total NumberGreaterThan ten', /'ten' is not a number/],
    ['data.total NumberGreaterThan 1 2', /takes exactly one value/],
    ['data.n NumberInRange 5', /MIN,MAX pairs/],
    ['data.ok BoolEquals yes', /true or false/],
    ['data.x IsNotNull 1', /takes no value/],
    ['data.x StringIn', /one value or more/],
  ])('refuses %s naming the flag', (words, message) => {
    expect(() => parse(words)).toThrow(InvalidArgumentError);
    expect(() => parse(words)).toThrow(message);
    expect(() => parse(words)).toThrow(/--advanced-filter/);
  });
});

describe('--delivery-attribute-mapping', () => {
  it('takes static, secret static and dynamic headers in the Azure CLI form', () => {
    let mappings = deliveryAttributeArgument('X-Source static shop');
    mappings = deliveryAttributeArgument('Authorization Static "Bearer-x" true', mappings);
    mappings = deliveryAttributeArgument('X-Tenant dynamic data.tenant', mappings);
    expect(mappings).toEqual([
      { name: 'X-Source', type: 'Static', properties: { value: 'shop', isSecret: false } },
      { name: 'Authorization', type: 'Static', properties: { value: '"Bearer-x"', isSecret: true } },
      { name: 'X-Tenant', type: 'Dynamic', properties: { sourceField: 'data.tenant' } },
    ]);
  });

  it('keeps a value with spaces when the words were grouped', () => {
    expect(
      deliveryAttributeArgument(['Authorization', 'static', 'Bearer abc', 'true'].join('\u001f')),
    ).toEqual([
      { name: 'Authorization', type: 'Static', properties: { value: 'Bearer abc', isSecret: true } },
    ]);
  });

  it.each([
    ['X-Source static', /NAME TYPE VALUE/],
    ['X-Source header v', /type must be one of Static, Dynamic/],
    ['X-Tenant dynamic data.t true', /no ISSECRET/],
    ['X-Source static v maybe', /ISSECRET must be one of true, false/],
  ])('refuses %s', (words, message) => {
    expect(() => deliveryAttributeArgument(words)).toThrow(message);
  });
});

describe('schema names', () => {
  it('are taken in any case and given back as the API spells them', () => {
    expect(deliverySchemaArgument('cloudeventschemav1_0')).toBe('CloudEventSchemaV1_0');
    expect(inputSchemaArgument('customeventschema')).toBe('CustomEventSchema');
    expect(() => deliverySchemaArgument('avro')).toThrow(/--event-delivery-schema must be one of/);
  });
});

describe('classic subscription bodies', () => {
  it('map every flag to its field', () => {
    expect(
      classicSubscriptionBody({
        endpoint: 'https://billing.example.com/hook',
        includedEventTypes: ['Order.Created'],
        subjectBeginsWith: 'shop/',
        subjectEndsWith: '.json',
        subjectCaseSensitive: true,
        advancedFilter: [{ operatorType: 'IsNotNull', key: 'data.customer' }],
        enableAdvancedFilteringOnArrays: true,
        maxDeliveryAttempts: 10,
        eventTtl: 60,
        deadletterContainer: 'dead',
        maxEventsPerBatch: 50,
        preferredBatchSizeInKilobytes: 128,
        maxDeliveriesPerSecond: 20,
        deliveryAttributeMapping: [
          { name: 'X-A', type: 'Static', properties: { value: 'a', isSecret: false } },
        ],
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        labels: ['billing'],
        expirationDate: '2030-01-01',
      }),
    ).toEqual({
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: {
            endpointUrl: 'https://billing.example.com/hook',
            maxEventsPerBatch: 50,
            maxDeliveriesPerSecond: 20,
            preferredBatchSizeInKilobytes: 128,
            deliveryAttributeMappings: [
              { name: 'X-A', type: 'Static', properties: { value: 'a', isSecret: false } },
            ],
          },
        },
        filter: {
          includedEventTypes: ['Order.Created'],
          subjectBeginsWith: 'shop/',
          subjectEndsWith: '.json',
          isSubjectCaseSensitive: true,
          advancedFilters: [{ operatorType: 'IsNotNull', key: 'data.customer' }],
          enableAdvancedFilteringOnArrays: true,
        },
        retryPolicy: { maxDeliveryAttempts: 10, eventTimeToLiveInMinutes: 60 },
        deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        labels: ['billing'],
        expirationTimeUtc: '2030-01-01',
      },
    });
  });

  it('for update, keep the rate limit unless a flag changes or removes it', () => {
    const document = {
      name: 'billing',
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: { endpointBaseUrl: 'https://a.example/h', maxDeliveriesPerSecond: 50 },
        },
      },
    };
    const gaps = { endpointUrl: 'https://a.example/h' };
    const limitOf = (flags: Parameters<typeof classicSubscriptionBody>[0]) =>
      JSON.parse(JSON.stringify(classicSubscriptionBody(flags, classicBodyOf(document, gaps, flags))))
        .properties.destination.properties.maxDeliveriesPerSecond;
    expect(limitOf({})).toBe(50);
    expect(limitOf({ maxDeliveriesPerSecond: 5 })).toBe(5);
    expect(limitOf({ maxDeliveriesPerSecond: false })).toBeUndefined();
  });

  it('put TLS settings in the destination: the summaries kept, the files given over them, or none', () => {
    const summary = { sha256Fingerprint: 'AA:BB', subject: 'CN=c', issuer: 'CN=ca' };
    const document = {
      name: 'billing',
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: {
            endpointBaseUrl: 'https://a.example/h',
            tls: {
              clientCertificate: summary,
              clientKey: null,
              caCertificates: [summary],
              trustPublicCas: true,
            },
          },
        },
      },
    };
    const gaps = { endpointUrl: 'https://a.example/h' };
    const tlsOf = (flags: Parameters<typeof classicSubscriptionBody>[0]) =>
      JSON.parse(JSON.stringify(classicSubscriptionBody(flags, classicBodyOf(document, gaps, flags))))
        .properties.destination.properties.tls;
    // Sent back as shown: the API keeps the certificate, key and CAs it has.
    expect(tlsOf({})).toEqual(document.properties.destination.properties.tls);
    expect(tlsOf({ clientCertificate: 'CERT PEM', clientKey: 'KEY PEM' })).toEqual({
      clientCertificate: 'CERT PEM',
      clientKey: 'KEY PEM',
      caCertificates: [summary],
      trustPublicCas: true,
    });
    expect(tlsOf({ caCertificates: 'CA PEM', publicCas: false })).toMatchObject({
      clientCertificate: summary,
      caCertificates: 'CA PEM',
      trustPublicCas: false,
    });
    expect(tlsOf({ tls: false })).toBeUndefined();
    expect(() => tlsOf({ tls: false, caCertificates: 'CA PEM' })).toThrow(
      '--no-tls and --ca-certificates: give one or the other.',
    );
    expect(() =>
      classicSubscriptionBody({
        resourceArn: 'arn:aws:sqs:us-east-1:123456789012:q',
        clientCertificate: 'C',
      }),
    ).toThrow('--client-*: for webhooks only, not an AWS resource');
  });

  it('put endpoint auth in the destination: OAuth 2.0 over the client it has, SigV4, or none', () => {
    const document = {
      name: 'billing',
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: {
            endpointBaseUrl: 'https://a.example/h',
            auth: {
              type: 'OAuth2ClientCredentials',
              tokenUrl: 'https://auth.example/token',
              clientId: 'one',
              clientSecret: null,
            },
          },
        },
      },
    };
    const gaps = { endpointUrl: 'https://a.example/h' };
    const authOf = (flags: Parameters<typeof classicSubscriptionBody>[0]) =>
      JSON.parse(JSON.stringify(classicSubscriptionBody(flags, classicBodyOf(document, gaps, flags))))
        .properties.destination.properties.auth;
    // Sent back as shown: the API keeps the secret it has.
    expect(authOf({})).toEqual({
      type: 'OAuth2ClientCredentials',
      tokenUrl: 'https://auth.example/token',
      clientId: 'one',
      clientSecret: null,
    });
    expect(authOf({ oauth2ClientSecret: 'new', oauth2Scope: 'hooks' })).toEqual({
      type: 'OAuth2ClientCredentials',
      tokenUrl: 'https://auth.example/token',
      clientId: 'one',
      clientSecret: 'new',
      scope: 'hooks',
    });
    expect(authOf({ awsSigv4: 'lambda', awsSigv4Region: 'eu-west-1' })).toEqual({
      type: 'AwsSigV4',
      service: 'lambda',
      region: 'eu-west-1',
    });
    expect(authOf({ auth: false })).toBeUndefined();
    expect(() => classicSubscriptionBody({ awsSigv4: 'lambda', oauth2ClientId: 'x' })).toThrow(
      '--aws-sigv4 and the --oauth2-* options are two kinds of auth; give one.',
    );
  });

  it('generate a signing key of the scheme asked for', () => {
    const signingOf = (flags: Parameters<typeof classicSubscriptionBody>[0]) =>
      JSON.parse(JSON.stringify(classicSubscriptionBody({ endpoint: 'https://a.example/h', ...flags })))
        .properties.destination.properties.signing;
    expect(signingOf({ signingSecret: 'generate' })).toEqual({ generate: true });
    expect(signingOf({ signingSecret: 'generate', signingScheme: 'v1a' })).toEqual({
      generate: true,
      scheme: 'v1a',
    });
    expect(signingOf({ signingScheme: 'v1a' })).toEqual({ generate: true, scheme: 'v1a' });
    expect(signingOf({ signingSecret: 'whsk_abc' })).toEqual({ secret: 'whsk_abc' });
  });

  /** The body's destination as sent (fields set to undefined left out, as JSON leaves them). */
  const destinationOf = (
    flags: Parameters<typeof classicSubscriptionBody>[0],
    base?: Record<string, unknown>,
  ) => JSON.parse(JSON.stringify(classicSubscriptionBody(flags, base))).properties.destination;

  it('deliver to an AWS resource with --resource-arn, its type read from the ARN or given', () => {
    const arn = 'arn:aws:sqs:us-east-1:123456789012:orders';
    expect(destinationOf({ resourceArn: arn, maxDeliveriesPerSecond: 20 })).toEqual({
      endpointType: 'AwsSqsQueue',
      properties: { resourceArn: arn, maxDeliveriesPerSecond: 20 },
    });
    expect(destinationOf({ resourceArn: 'arn:aws:sns:us-east-1:123456789012:alerts' }).endpointType).toBe(
      'AwsSnsTopic',
    );
    // update: a resource subscription stays one, its ARN kept; --endpoint makes it a webhook again.
    const document = {
      properties: {
        destination: { endpointType: 'AwsSqsQueue', properties: { resourceArn: arn, maxEventsPerBatch: 1 } },
      },
    };
    const base = classicBodyOf(document, { endpointUrl: '' }, {});
    expect(destinationOf({ maxDeliveriesPerSecond: 5 }, base)).toEqual({
      endpointType: 'AwsSqsQueue',
      properties: { resourceArn: arn, maxEventsPerBatch: 1, maxDeliveriesPerSecond: 5 },
    });
    expect(destinationOf({ endpoint: 'https://a.example/h' }, base)).toEqual({
      endpointType: 'WebHook',
      properties: { endpointUrl: 'https://a.example/h' },
    });
    expect(deliversToResource(document)).toBe(true);
    expect(() => classicSubscriptionBody({ resourceArn: arn, signingSecret: 'generate' })).toThrow(
      '--signing-secret: for webhooks only, not an AWS resource',
    );
  });

  it("take a role to assume and each service's own settings for resources, and refuse them for webhooks", () => {
    const role = 'arn:aws:iam::210987654321:role/gridwire-sender';
    const stream = 'arn:aws:kinesis:us-east-1:210987654321:stream/orders';
    expect(destinationOf({ resourceArn: stream, roleArn: role, partitionKeyField: 'data.tenant' })).toEqual({
      endpointType: 'AwsKinesisStream',
      properties: { resourceArn: stream, roleArn: role, partitionKeyField: 'data.tenant' },
    });
    const fn = 'arn:aws:lambda:us-east-1:210987654321:function:orders';
    expect(destinationOf({ resourceArn: fn, invocationType: 'RequestResponse' }).properties).toEqual({
      resourceArn: fn,
      invocationType: 'RequestResponse',
    });
    // --no-role-arn: the stack's own role again.
    const base = classicBodyOf(
      {
        properties: {
          destination: {
            endpointType: 'AwsKinesisStream',
            properties: { resourceArn: stream, roleArn: role },
          },
        },
      },
      { endpointUrl: '' },
      {},
    );
    expect(destinationOf({ roleArn: false }, base).properties).toEqual({ resourceArn: stream });
    expect(() => classicSubscriptionBody({ endpoint: 'https://a.example/h', roleArn: role })).toThrow(
      '--role-arn: for AWS resources only, not a webhook',
    );
  });

  it('leave out what was not given', () => {
    expect(classicSubscriptionBody({ endpoint: 'https://a.example/h' })).toEqual({
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: 'https://a.example/h' } },
      },
    });
  });

  it('for update, start from the document with the full URL and change only the flags given', () => {
    const document = {
      name: 'billing',
      properties: {
        provisioningState: 'Succeeded',
        destination: {
          endpointType: 'WebHook',
          properties: {
            endpointBaseUrl: 'https://a.example/h',
            maxEventsPerBatch: 1,
            preferredBatchSizeInKilobytes: 64,
          },
        },
        filter: { includedEventTypes: null, subjectBeginsWith: 'shop/' },
        retryPolicy: { maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 },
        eventDeliverySchema: 'EventGridSchema',
        labels: [],
        deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
      },
    };
    const flags = { maxDeliveryAttempts: 5, includedEventTypes: ['Order.Paid'] };
    const base = classicBodyOf(document, { endpointUrl: 'https://a.example/h?code=1' }, flags);
    expect(classicSubscriptionBody(flags, base)).toEqual({
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: {
            endpointUrl: 'https://a.example/h?code=1',
            maxEventsPerBatch: 1,
            preferredBatchSizeInKilobytes: 64,
          },
        },
        filter: { subjectBeginsWith: 'shop/', includedEventTypes: ['Order.Paid'] },
        retryPolicy: { maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 1440 },
        eventDeliverySchema: 'EventGridSchema',
        labels: [],
        deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'dead' } },
      },
    });
  });

  it('for update, refuse to drop secret headers whose values the document never shows', () => {
    const document = {
      properties: {
        destination: {
          properties: {
            endpointBaseUrl: 'https://a.example/h',
            deliveryAttributeMappings: [
              { name: 'Authorization', type: 'Static', properties: { value: null, isSecret: true } },
            ],
          },
        },
      },
    };
    expect(() => classicBodyOf(document, { endpointUrl: 'https://a.example/h' }, {})).toThrow(
      /secret custom headers \(Authorization\).*--delivery-attribute-mapping/,
    );
    const given = deliveryAttributeArgument('Authorization static s3cret true');
    const base = classicBodyOf(
      document,
      { endpointUrl: 'https://a.example/h' },
      { deliveryAttributeMapping: given },
    );
    expect(classicSubscriptionBody({ deliveryAttributeMapping: given }, base).properties).toMatchObject({
      destination: { properties: { deliveryAttributeMappings: given } },
    });
  });
});

describe('namespace subscription bodies', () => {
  it('put the delivery settings under deliveryConfiguration.push, the time to live as a duration', () => {
    expect(
      namespaceSubscriptionBody({
        endpoint: 'https://a.example/h',
        maxDeliveryAttempts: 5,
        eventTtl: 90,
        deadletterContainer: 'dead',
        includedEventTypes: ['Shop.OrderCreated'],
      }),
    ).toEqual({
      properties: {
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            maxDeliveryCount: 5,
            eventTimeToLive: 'PT90M',
            destination: { endpointType: 'WebHook', properties: { endpointUrl: 'https://a.example/h' } },
            deadLetterDestinationWithResourceIdentity: {
              deadLetterDestination: {
                endpointType: 'StorageBlob',
                properties: { blobContainerName: 'dead' },
              },
            },
          },
        },
        filtersConfiguration: { includedEventTypes: ['Shop.OrderCreated'] },
      },
    });
  });

  it('for update, keep the push settings not given', () => {
    const document = {
      properties: {
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            maxDeliveryCount: 10,
            eventTimeToLive: 'P1D',
            destination: { endpointType: 'WebHook', properties: { endpointBaseUrl: 'https://a.example/h' } },
          },
        },
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        filtersConfiguration: { includedEventTypes: null },
      },
    };
    const base = namespaceBodyOf(document, { endpointUrl: 'https://a.example/h?k=1' }, {});
    expect(namespaceSubscriptionBody({ maxDeliveryAttempts: 3 }, base)).toEqual({
      properties: {
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            maxDeliveryCount: 3,
            eventTimeToLive: 'P1D',
            destination: { endpointType: 'WebHook', properties: { endpointUrl: 'https://a.example/h?k=1' } },
          },
        },
        filtersConfiguration: {},
      },
    });
  });
});

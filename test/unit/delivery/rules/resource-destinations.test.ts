import { applySignal, freshHealth, gateOf } from '../../../../shared/delivery/rules/health';
import { NAMESPACE_PROFILE, TOPIC_PROFILE } from '../../../../shared/delivery/rules/profiles';
import {
  allowedByList,
  cutResourceBatches,
  deliveryAttributeProblem,
  messageBytesOf,
  messageFieldsOf,
  parseResourceArn,
  RESOURCE_LIMITS,
  resourceTypeOfArn,
} from '../../../../shared/delivery/rules/resource-destinations';
import { RESOURCE_ERROR_RULES, resourceErrorRuleOf } from '../../../../shared/delivery/rules/resource-errors';
import { decideAfterFailure, isRetriable, retryFloorMs } from '../../../../shared/delivery/rules/retry';

describe('resource ARNs', () => {
  it.each([
    [
      'AwsSqsQueue',
      'arn:aws:sqs:eu-west-1:123456789012:orders',
      { region: 'eu-west-1', account: '123456789012', name: 'orders', fifo: false },
    ],
    ['AwsSqsQueue', 'arn:aws:sqs:us-east-1:123456789012:orders.fifo', { name: 'orders.fifo', fifo: true }],
    [
      'AwsSnsTopic',
      'arn:aws-cn:sns:cn-north-1:123456789012:alerts',
      { partition: 'aws-cn', name: 'alerts', fifo: false },
    ],
    ['AwsEventBridgeBus', 'arn:aws:events:us-east-1:123456789012:event-bus/orders', { name: 'orders' }],
    [
      'AwsLambdaFunction',
      'arn:aws:lambda:us-east-1:123456789012:function:handle-orders:live',
      { name: 'handle-orders' },
    ],
    ['AwsKinesisStream', 'arn:aws:kinesis:us-east-1:123456789012:stream/clicks', { name: 'clicks' }],
  ] as const)('read %s %s', (type, arn, expected) => {
    expect(parseResourceArn(type, arn)).toMatchObject(expected);
  });

  it.each([
    ['AwsSqsQueue', 'arn:aws:sns:us-east-1:123456789012:orders'],
    ['AwsSqsQueue', 'arn:aws:sqs:us-east-1:1234:orders'],
    ['AwsSqsQueue', 'arn:aws:sqs:us-east-1:123456789012:bad name'],
    ['AwsSnsTopic', 'https://sns.us-east-1.amazonaws.com/orders'],
    ['AwsLambdaFunction', 'arn:aws:lambda:us-east-1:123456789012:orders'],
    ['AwsKinesisStream', 'arn:aws:kinesis:us-east-1:123456789012:orders'],
  ] as const)('refuse %s %s, naming an example', (type, arn) => {
    expect(parseResourceArn(type, arn)).toEqual({
      problem: expect.stringMatching(/^must be the ARN of the [a-z]+ resource, such as arn:aws:/),
    });
  });
});

describe('resource batches', () => {
  it('cut messages in order into calls of at most 10 entries and the byte limit, leaving out what is too large', () => {
    const limits = { messageBytes: 100, batchEntries: 3, batchBytes: 150 };
    const messages = [60, 60, 60, 10, 10, 101, 10, 10].map((bytes, id) => ({ id, bytes }));
    const { batches, tooLarge } = cutResourceBatches(messages, limits);
    expect(batches.map((batch) => batch.map((message) => message.id))).toEqual([
      [0, 1],
      [2, 3, 4],
      [6, 7],
    ]);
    expect(tooLarge.map((message) => message.id)).toEqual([5]);
  });

  it('count a message as its body and attributes', () => {
    expect(messageBytesOf('héllo', {})).toBe(6);
    expect(messageBytesOf('x', { tenant: 'a' })).toBe(1 + 6 + 1 + 6);
    expect(RESOURCE_LIMITS.AwsSqsQueue.batchEntries).toBe(10);
    expect(RESOURCE_LIMITS.AwsSnsTopic.messageBytes).toBe(262_144);
  });
});

describe("the stack's allow-list of resources", () => {
  it.each([
    ['arn:aws:sqs:eu-west-1:123456789012:orders', ['arn:aws:sqs:eu-west-1:123456789012:orders'], true],
    ['arn:aws:sqs:eu-west-1:123456789012:orders-eu', ['arn:aws:sqs:eu-west-1:123456789012:orders-*'], true],
    ['arn:aws:sqs:eu-west-1:123456789012:billing', ['arn:aws:sqs:eu-west-1:123456789012:orders-*'], false],
    ['arn:aws:sqs:eu-west-1:123456789012:orders', ['*'], true],
    ['arn:aws:sqs:eu-west-1:123456789012:orders', [], false],
    // A dot in a pattern is a dot, not any character.
    [
      'arn:aws:sqs:eu-west-1:123456789012:ordersXfifo',
      ['arn:aws:sqs:eu-west-1:123456789012:orders.fifo'],
      false,
    ],
  ])('let %s through %j: %s', (arn, list, allowed) => {
    expect(allowedByList(arn, list)).toBe(allowed);
  });
});

describe('the status rules of resource destinations', () => {
  const MIN = 60_000;
  // Seed 003, "Retry schedule", the status table: "400 Bad Request | Retry after 5 minutes or more
  // (Dead letter immediately if Azure Resources endpoint)", "413 Request Entity Too Large | Retry
  // after 10 seconds or more (Dead letter immediately if Azure Resources endpoint)", "401
  // Unauthorized | Retry after 5 minutes or more for Azure Resources Endpoints", "404 Not Found |
  // Retry after 5 minutes or more for Azure Resources Endpoints", "503 Service Unavailable | Retry
  // after 30 seconds or more". One row per service error the rules name, so a new one needs a row.
  const expected: Record<string, [outcome: string, retried: boolean, floorMs: number]> = {
    AccessDenied: ['Unauthorized', true, 5 * MIN],
    AccessDeniedException: ['Unauthorized', true, 5 * MIN],
    AuthorizationError: ['Unauthorized', true, 5 * MIN],
    AuthorizationErrorException: ['Unauthorized', true, 5 * MIN],
    KMSAccessDeniedException: ['Unauthorized', true, 5 * MIN],
    'KMS.AccessDeniedException': ['Unauthorized', true, 5 * MIN],
    UnrecognizedClientException: ['Unauthorized', true, 5 * MIN],
    'AWS.SimpleQueueService.NonExistentQueue': ['NotFound', true, 5 * MIN],
    QueueDoesNotExist: ['NotFound', true, 5 * MIN],
    NotFound: ['NotFound', true, 5 * MIN],
    NotFoundException: ['NotFound', true, 5 * MIN],
    ResourceNotFoundException: ['NotFound', true, 5 * MIN],
    BatchRequestTooLong: ['PayloadTooLarge', false, 0],
    MessageTooLong: ['PayloadTooLarge', false, 0],
    RequestEntityTooLargeException: ['PayloadTooLarge', false, 0],
    PayloadTooLarge: ['PayloadTooLarge', false, 0],
    InvalidParameterValue: ['BadRequest', false, 0],
    InvalidParameterValueException: ['BadRequest', false, 0],
    InvalidParameterException: ['BadRequest', false, 0],
    InvalidParameter: ['BadRequest', false, 0],
    InvalidAttributeValue: ['BadRequest', false, 0],
    InvalidMessageContents: ['BadRequest', false, 0],
    ValidationException: ['BadRequest', false, 0],
    InvalidRequestContentException: ['BadRequest', false, 0],
    KMSDisabledException: ['Disabled', true, 5 * MIN],
    'KMS.DisabledException': ['Disabled', true, 5 * MIN],
    KMSInvalidStateException: ['Disabled', true, 5 * MIN],
    ResourceNotReadyException: ['Disabled', true, 5 * MIN],
    ThrottlingException: ['Busy', true, 30_000],
    Throttling: ['Busy', true, 30_000],
    RequestThrottled: ['Busy', true, 30_000],
    TooManyRequestsException: ['Busy', true, 30_000],
    ProvisionedThroughputExceededException: ['Full', true, 30_000],
    LimitExceededException: ['Full', true, 30_000],
    KMSThrottlingException: ['Busy', true, 30_000],
    'KMS.ThrottlingException': ['Busy', true, 30_000],
    ServiceUnavailable: ['Busy', true, 30_000],
    ServiceUnavailableException: ['Busy', true, 30_000],
    InternalError: ['GenericError', true, 10_000],
    InternalFailure: ['GenericError', true, 10_000],
    InternalServerError: ['GenericError', true, 10_000],
    InternalException: ['GenericError', true, 10_000],
    ServiceException: ['GenericError', true, 10_000],
    KMSInternalException: ['GenericError', true, 10_000],
  };

  it('name exactly the service errors of this table', () => {
    expect(Object.keys(RESOURCE_ERROR_RULES).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(
    Object.entries(expected).map(
      ([code, [outcome, retry, floorMs]]) => [code, outcome, retry, floorMs] as const,
    ),
  )('%s: %s, retried %s, no sooner than %i ms', (code, outcome, retry, floorMs) => {
    const rule = resourceErrorRuleOf(code);
    expect(rule).toMatchObject({ outcome, retry });
    expect(isRetriable(TOPIC_PROFILE, { outcome: rule.outcome, errorCode: code })).toBe(retry);
    if (retry) expect(retryFloorMs(TOPIC_PROFILE, { errorCode: code })).toBe(floorMs);
  });

  it('retry an error no rule names on the schedule, no sooner than 10 s', () => {
    expect(resourceErrorRuleOf('SomethingNew')).toMatchObject({ outcome: 'GenericError', retry: true });
    expect(retryFloorMs(TOPIC_PROFILE, { errorCode: 'SomethingNew' })).toBe(10_000);
  });

  it('retry a destination switched off (a disabled key), never ending the event or disabling the endpoint as a 410 does', () => {
    const result = { outcome: 'Disabled', errorCode: 'KMSDisabledException' } as const;
    const decision = decideAfterFailure({
      profile: TOPIC_PROFILE,
      limits: { maxAttempts: 30, ttlMs: 24 * 60 * MIN },
      attemptsMade: 1,
      result,
      now: 0,
      random: 0,
    });
    expect(decision).toMatchObject({ action: 'retry' });
    expect(decision.action === 'retry' && decision.delayMs).toBeGreaterThanOrEqual(5 * MIN);
    const health = applySignal(
      TOPIC_PROFILE,
      freshHealth('orders', 'audit', 'arn:aws:kms:eu-west-1:123456789012:key/k'),
      { at: 0, outcome: 'Disabled', resourceError: true },
    );
    expect(health.disabledAt).toBeUndefined();
    expect(gateOf(health, 1)).toMatchObject({ kind: 'hold', until: 5 * MIN });
    // A webhook's 410 Gone still ends the endpoint.
    expect(
      applySignal(TOPIC_PROFILE, freshHealth('orders', 'audit', 'arn:aws:kms:eu-west-1:123456789012:key/k'), {
        at: 0,
        outcome: 'Disabled',
      }).disabledAt,
    ).toBe(0);
  });

  it('wait 5 minutes after access denied or a missing resource, even when the schedule says 10 s', () => {
    // The first retry of the schedule is 10 s after the first attempt; the floor raises it.
    expect(retryFloorMs(TOPIC_PROFILE, { errorCode: 'AWS.SimpleQueueService.NonExistentQueue' })).toBe(
      5 * MIN,
    );
    expect(retryFloorMs(NAMESPACE_PROFILE, { errorCode: 'AccessDenied' })).toBe(5 * MIN);
    expect(
      isRetriable(NAMESPACE_PROFILE, { outcome: 'NotFound', errorCode: 'ResourceNotFoundException' }),
    ).toBe(true);
  });
});

describe('custom delivery attributes of resource destinations', () => {
  it.each([
    ['AwsSqsQueue', true, 'MessageGroupId', undefined],
    ['AwsSqsQueue', true, 'tenant', undefined],
    ['AwsSqsQueue', false, 'tenant', undefined],
    ['AwsSqsQueue', false, 'MessageGroupId', "MessageGroupId sets a FIFO queue's messages only"],
    ['AwsSnsTopic', false, 'subject', undefined],
    [
      'AwsSnsTopic',
      false,
      'MessageDeduplicationId',
      "MessageDeduplicationId sets a FIFO topic's messages only",
    ],
    ['AwsEventBridgeBus', false, 'DetailType', undefined],
    [
      'AwsEventBridgeBus',
      false,
      'tenant',
      'messages have no attributes; the names that set a field are Source',
    ],
    ['AwsKinesisStream', false, 'partitionkey', undefined],
    ['AwsKinesisStream', false, 'tenant', 'the names that set a field are PartitionKey, ExplicitHashKey'],
    ['AwsLambdaFunction', false, 'tenant', 'invocations carry no per-event fields or attributes'],
  ] as const)('%s (FIFO %s), %s: %s', (type, fifo, name, problem) => {
    const found = deliveryAttributeProblem(type, fifo, name);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it('set fields by their names, whatever the case; the rest are attributes where the service has them', () => {
    expect(messageFieldsOf('AwsSnsTopic', { SUBJECT: 'Hi', tenant: 'acme' })).toEqual({
      fields: { Subject: 'Hi' },
      attributes: { tenant: 'acme' },
    });
    expect(messageFieldsOf('AwsKinesisStream', { partitionKey: 'k', tenant: 'acme' })).toEqual({
      fields: { PartitionKey: 'k' },
      attributes: {},
    });
  });
});

describe('the resource type an ARN names by its service', () => {
  it.each([
    ['arn:aws:sqs:eu-west-1:123456789012:orders', 'AwsSqsQueue'],
    ['arn:aws:sns:eu-west-1:123456789012:orders.fifo', 'AwsSnsTopic'],
    ['arn:aws:events:eu-west-1:123456789012:event-bus/default', 'AwsEventBridgeBus'],
    ['arn:aws-cn:lambda:cn-north-1:123456789012:function:orders', 'AwsLambdaFunction'],
    ['arn:aws:kinesis:eu-west-1:123456789012:stream/orders', 'AwsKinesisStream'],
    ['arn:aws:s3:::bucket', undefined],
    ['arn:aws:iam::123456789012:role/gridwire', undefined],
    ['sqs:orders', undefined],
    ['', undefined],
  ])('%s: %p', (arn, type) => {
    expect(resourceTypeOfArn(arn)).toBe(type);
  });
});

import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { FINISHING_MARGIN_MS } from '../../functions/delivery';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import type { DeliveryPipelineProps } from '../../infra/delivery-pipeline-props';
import { GridwireStack } from '../../infra/gridwire-stack';
import { ARCHIVE_SWEEP_EVENT, archiveSweepEventSchema } from '../../shared/archive/sweep';
import { DELIVERY_BATCHING_DEFAULTS, LAMBDA_SQS_LIMITS } from '../../shared/config/event-source-mapping';
import { LAMBDA_FIFO_LIMITS } from '../../shared/config/fifo-queues';
import {
  ARCHIVE_BUCKET,
  BACKLOG_BUCKET,
  BACKLOG_WINDOW_SECONDS,
  BUCKET,
  DELIVERY_FUNCTION_TIMEOUT_SECONDS,
  ENV,
  FAN_OUT_BUCKET,
  FUNCTIONS,
  QUEUES,
  type QueueKey,
  queueOutputNames,
  SQS_LIMITS,
  TABLE,
} from '../../shared/config/resources';
import { ROUTES } from '../../shared/config/routes';
import { LATE_ANSWER_WINDOW_MS } from '../../shared/delivery/rules/late-answer';
import { backlogSweepJobSchema } from '../../shared/domain/delivery';
import { ARCHIVE_RETENTION_IN_DAYS } from '../../shared/domain/model';
import { BACKLOG_SWEEP_EVENT } from '../../shared/queue/backlog-sweep';
import { BACKLOG_TICK_QUEUE } from '../../shared/queue/job-codec';

// Skip asset bundling: these tests are about the template, `npm run synth` bundles for real.
const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

const synth = (props?: DeliveryPipelineProps) => {
  const stack = new GridwireStack(newApp(), 'Test', props === undefined ? {} : { pipeline: props });
  return { stack, template: Template.fromStack(stack) };
};

const { template } = synth();

/** The logical id of the resource whose id path ends with `constructId`. */
function logicalIdOf(type: string, constructId: string): string {
  const found = Object.entries(template.findResources(type)).find(([, resource]) =>
    String((resource as { Metadata?: Record<string, string> }).Metadata?.['aws:cdk:path'] ?? '').includes(
      `/${constructId}/`,
    ),
  );
  if (found !== undefined) return found[0];
  // `Pipeline<id><hash>` exactly: `DeadLetterBucket` must not find `DeadLetterBucketAccessLogs`.
  const byId = Object.keys(template.findResources(type)).find((id) =>
    new RegExp(`^Pipeline${constructId}[0-9A-F]{8}$`).test(id),
  );
  if (byId === undefined) throw new Error(`no ${type} for ${constructId}`);
  return byId;
}

const functionId = (key: keyof typeof FUNCTIONS) => logicalIdOf('AWS::Lambda::Function', FUNCTIONS[key].id);
const queueId = (constructId: string) => logicalIdOf('AWS::SQS::Queue', constructId);

/** Every IAM statement attached to a function's role. */
function statementsOf(key: keyof typeof FUNCTIONS): Array<{ Action: string | string[]; Resource: unknown }> {
  const fn = template.findResources('AWS::Lambda::Function')[functionId(key)] as {
    Properties: { Role: { 'Fn::GetAtt': string[] } };
  };
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
    JSON.stringify((policy as { Properties: { Roles: unknown } }).Properties.Roles).includes(String(roleId)),
  );
  return policies.flatMap(
    (policy) =>
      (policy as { Properties: { PolicyDocument: { Statement: [] } } }).Properties.PolicyDocument.Statement,
  );
}

const actionsOn = (key: keyof typeof FUNCTIONS, resourceLogicalId: string): string[] =>
  statementsOf(key)
    .filter((statement) => JSON.stringify(statement.Resource).includes(resourceLogicalId))
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]));

describe('queues', () => {
  it.each(Object.values(QUEUES))('$id redrives to its own queue after $maxReceiveCount receives', (queue) => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: queue.visibilityTimeoutSeconds,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [queueId(queue.redrive.id), 'Arn'] },
        maxReceiveCount: queue.maxReceiveCount,
      },
    });
  });

  it('give the consumer six times its function timeout (plus its batching window) before a message reappears', () => {
    for (const queue of Object.values(QUEUES)) {
      expect(queue.visibilityTimeoutSeconds).toBe(
        FUNCTIONS[queue.consumer.function].timeoutSeconds * 6 + queue.consumer.batchingWindowSeconds,
      );
    }
  });

  // 003 (classic page), "Retry schedule": "If the endpoint responds within 3 minutes, Event Grid
  // attempts to remove the event from the retry queue on a best effort basis". A timed-out request
  // is listened to within its invocation until 3 minutes after it started, so the delivery function
  // went from 120 s to 270 s: requests start in its first 85 s (as they did), each listened to for
  // 180 s from its start, with 5 s to record an answer. The queues it consumes keep six of its
  // timeouts (27 minutes where they were 12: a batch that fails outright comes back that much later).
  it('give the delivery function 270 s, room for a request started at its 85th second to be listened to 3 minutes, and its queues six times that', () => {
    expect(DELIVERY_FUNCTION_TIMEOUT_SECONDS * 1000).toBe(
      85_000 + LATE_ANSWER_WINDOW_MS + FINISHING_MARGIN_MS,
    );
    const fn = template.findResources('AWS::Lambda::Function')[functionId('delivery')] as {
      Properties: { Timeout: number };
    };
    expect(fn.Properties.Timeout).toBe(270);
    const visibility = (key: QueueKey) =>
      (
        template.findResources('AWS::SQS::Queue')[queueId(QUEUES[key].id)] as {
          Properties: { VisibilityTimeout: number };
        }
      ).Properties.VisibilityTimeout;
    expect([visibility('delivery'), visibility('retry'), visibility('backlog')]).toEqual([
      1620,
      1620,
      1620 + BACKLOG_WINDOW_SECONDS,
    ]);
    // Lambda refuses an SQS event source whose visibility timeout is shorter than the function's.
    expect(visibility('retry')).toBeGreaterThanOrEqual(DELIVERY_FUNCTION_TIMEOUT_SECONDS);
  });

  it('are encrypted, take 1 MiB messages and refuse plain-text access', () => {
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues).toHaveLength(Object.keys(QUEUES).length * 2);
    for (const queue of queues) {
      expect(queue).toMatchObject({
        Properties: { SqsManagedSseEnabled: true, MaximumMessageSize: SQS_LIMITS.maxMessageBytes },
      });
    }
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    expect(policies).toHaveLength(Object.keys(QUEUES).length * 2);
    for (const policy of policies) {
      expect(JSON.stringify(policy)).toContain('"aws:SecureTransport":"false"');
    }
  });
});

describe('queue consumers', () => {
  it.each(Object.entries(QUEUES))('the %s queue is consumed with partial batch failures', (_key, queue) => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId(queue.id), 'Arn'] },
      FunctionName: { Ref: functionId(queue.consumer.function) },
      BatchSize: queue.consumer.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: queue.consumer.maxConcurrency },
      ...(queue.consumer.batchingWindowSeconds > 0
        ? { MaximumBatchingWindowInSeconds: queue.consumer.batchingWindowSeconds }
        : {}),
    });
  });

  it('gathers ended deliveries for 300 s before the dead-letter function runs', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId(QUEUES.endedDelivery.id), 'Arn'] },
      FunctionName: { Ref: functionId('deadLetter') },
      MaximumBatchingWindowInSeconds: 300,
    });
  });

  it('the delivery function hands ended deliveries over by queue: it may send there, not consume', () => {
    const actions = actionsOn('delivery', queueId(QUEUES.endedDelivery.id));
    expect(actions).toContain('sqs:SendMessage');
    expect(actions).not.toContain('sqs:ReceiveMessage');
  });

  it('the dead-letter function consumes the ended-delivery queue and may re-queue what the bucket refuses', () => {
    expect(actionsOn('deadLetter', queueId(QUEUES.endedDelivery.id))).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage']),
    );
  });

  it('the dead-letter function may put objects in the bucket, not read or delete them', () => {
    const bucketId = logicalIdOf('AWS::S3::Bucket', BUCKET.id);
    const actions = actionsOn('deadLetter', bucketId);
    expect(actions).toEqual(expect.arrayContaining(['s3:PutObject']));
    expect(
      actions.some((action) => action.startsWith('s3:Get') || action.startsWith('s3:DeleteObject')),
    ).toBe(false);
    expect(actionsOn('management', bucketId).some((action) => action.startsWith('s3:DeleteObject'))).toBe(
      false,
    );
  });

  it('may send to both its queues: retries, and the delivery jobs of large fan-outs', () => {
    for (const id of [QUEUES.retry.id, QUEUES.delivery.id]) {
      expect(actionsOn('delivery', queueId(id))).toEqual(
        expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']),
      );
    }
  });
});

/** Bucket properties: no public access, encrypted at rest with S3-managed keys. */
const PRIVATE_ENCRYPTED_BUCKET = {
  PublicAccessBlockConfiguration: {
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  },
  BucketEncryption: {
    ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
  },
};

describe('fan-out bucket', () => {
  const bucketId = () => logicalIdOf('AWS::S3::Bucket', FAN_OUT_BUCKET.id);

  it('expires stored fan-outs after longer than a parked message is kept, and is private', () => {
    const longestParking = Math.max(...Object.values(QUEUES).map((queue) => queue.redrive.retentionDays));
    expect(FAN_OUT_BUCKET.retentionDays).toBeGreaterThan(longestParking);
    expect(template.findResources('AWS::S3::Bucket')[bucketId()]).toMatchObject({
      Properties: {
        LifecycleConfiguration: {
          Rules: [{ ExpirationInDays: FAN_OUT_BUCKET.retentionDays, Status: 'Enabled' }],
        },
        ...PRIVATE_ENCRYPTED_BUCKET,
      },
    });
  });

  it('is written by the publish function (and the dead-letter function, publishing notices) and read by the delivery function, and by no other', () => {
    expect(actionsOn('publish', bucketId())).toEqual(['s3:PutObject']);
    expect(actionsOn('deadLetter', bucketId())).toEqual(['s3:PutObject']);
    expect(actionsOn('delivery', bucketId())).toEqual(['s3:GetObject']);
    expect(actionsOn('management', bucketId())).toEqual([]);
  });
});

describe('functions', () => {
  it.each(Object.entries(FUNCTIONS))(
    '%s runs on Node.js 24 ARM64 with its memory and timeout, JSON logs without Lambda’s INFO lines, untraced',
    (key, definition) => {
      const fn = template.findResources('AWS::Lambda::Function')[functionId(key as keyof typeof FUNCTIONS)];
      expect(fn).toMatchObject({
        Properties: {
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          MemorySize: definition.memoryMb,
          Timeout: definition.timeoutSeconds,
          LoggingConfig: {
            LogFormat: 'JSON',
            LogGroup: { Ref: expect.any(String) },
            SystemLogLevel: 'WARN',
            ApplicationLogLevel: 'INFO',
          },
        },
      });
      expect(fn?.Properties.TracingConfig).toBeUndefined();
    },
  );

  it('are traced with X-Ray, and may write traces, when tracing is on', () => {
    const { template: traced } = synth({ tracing: true });
    const functions = Object.values(traced.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(Object.keys(FUNCTIONS).length);
    for (const fn of functions) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    const xrayGrants = Object.values(traced.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes('xray:PutTraceSegments'),
    );
    expect(xrayGrants).toHaveLength(Object.keys(FUNCTIONS).length);
  });

  it('keep the application log level given, and refuse one that would drop the metric records', () => {
    const { template: debug } = synth({ applicationLogLevel: ApplicationLogLevel.DEBUG });
    for (const fn of Object.values(debug.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.LoggingConfig).toMatchObject({
        ApplicationLogLevel: 'DEBUG',
        SystemLogLevel: 'WARN',
      });
    }
    expect(
      () =>
        new DeliveryPipeline(new Stack(newApp(), 'Quiet'), 'Pipeline', {
          applicationLogLevel: ApplicationLogLevel.WARN,
        }),
    ).toThrow(/applicationLogLevel must be TRACE, DEBUG, INFO \(got WARN\)/);
  });

  it('get the environment variable of every resource they are granted', () => {
    const env = (key: keyof typeof FUNCTIONS) =>
      Object.keys(
        (
          template.findResources('AWS::Lambda::Function')[functionId(key)] as {
            Properties: { Environment: { Variables: object } };
          }
        ).Properties.Environment.Variables,
      );
    expect(env('publish')).toEqual(
      expect.arrayContaining([ENV.tableName, ENV.deliveryQueueUrl, ENV.backlogQueueUrl, ENV.orderedQueueUrl]),
    );
    expect(env('publish')).not.toContain(ENV.retryQueueUrl);
    expect(env('management')).toEqual(
      expect.arrayContaining([ENV.tableName, ENV.deadLetterBucket, ENV.deliveryQueueUrl, ENV.retryQueueUrl]),
    );
    expect(env('management')).not.toContain(ENV.backlogBucket);
    expect(env('delivery')).toEqual(
      expect.arrayContaining([
        ENV.tableName,
        ENV.deliveryQueueUrl,
        ENV.retryQueueUrl,
        ENV.endedDeliveryQueueUrl,
        ENV.orderedQueueUrl,
      ]),
    );
    expect(env('management')).not.toContain(ENV.orderedQueueUrl);
    // The dead-letter function publishes notices, to ordered subscriptions of the notices topic too.
    expect(env('deadLetter')).toContain(ENV.orderedQueueUrl);
    expect(env('deadLetter')).toEqual(
      expect.arrayContaining([ENV.endedDeliveryQueueUrl, ENV.deadLetterBucket]),
    );
  });

  it('publish may read the table and write accepted event ids only, and may only send to the delivery, backlog and ordered queues', () => {
    const tableId = logicalIdOf('AWS::DynamoDB::GlobalTable', TABLE.id);
    // The writes are held to accepted event ids by their condition (test/infra/operations.test.ts).
    expect(actionsOn('publish', tableId).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
    ]);
    expect(actionsOn('publish', queueId(QUEUES.delivery.id))).toContain('sqs:SendMessage');
    // The backlog gate reads how many jobs wait in the delivery queue.
    expect(actionsOn('publish', queueId(QUEUES.delivery.id))).toContain('sqs:GetQueueAttributes');
    // A publish to one held subscription goes straight to its backlog.
    expect(actionsOn('publish', queueId(QUEUES.backlog.id))).toContain('sqs:SendMessage');
    expect(actionsOn('publish', queueId(QUEUES.backlog.id))).not.toContain('sqs:ReceiveMessage');
    expect(actionsOn('publish', queueId(QUEUES.retry.id))).toEqual([]);
    expect(actionsOn('publish', queueId(QUEUES.endedDelivery.id))).toEqual([]);
    // The events of subscriptions with ordered delivery.
    expect(actionsOn('publish', queueId(QUEUES.ordered.id))).toContain('sqs:SendMessage');
    expect(actionsOn('publish', queueId(QUEUES.ordered.id))).not.toContain('sqs:ReceiveMessage');
  });

  it('management may read and write dead letters, send replays to the delivery queue and backlog ticks to theirs, and nothing more', () => {
    const bucketActions = actionsOn('management', logicalIdOf('AWS::S3::Bucket', BUCKET.id));
    // Listing, reading blobs and replay markers, and writing markers.
    expect(bucketActions.sort()).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(actionsOn('management', queueId(QUEUES.delivery.id))).toContain('sqs:SendMessage');
    expect(actionsOn('management', queueId(QUEUES.delivery.id))).not.toContain('sqs:ReceiveMessage');
    // A backlog's tick sent at once after a change (enable, new endpoint URL, delete).
    expect(actionsOn('management', queueId(QUEUES[BACKLOG_TICK_QUEUE].id))).toContain('sqs:SendMessage');
    expect(actionsOn('management', queueId(QUEUES[BACKLOG_TICK_QUEUE].id))).not.toContain(
      'sqs:ReceiveMessage',
    );
    expect(actionsOn('management', queueId(QUEUES.endedDelivery.id))).toEqual([]);
    expect(actionsOn('management', queueId(QUEUES.backlog.id))).toEqual([]);
    // It reads backlogs' index items in the table, never their segments.
    expect(actionsOn('management', logicalIdOf('AWS::S3::Bucket', BACKLOG_BUCKET.id))).toEqual([]);
  });
});

describe('delivery queue batching window (deliveryBatchingWindow)', () => {
  const deliveryMapping = (of: Template) =>
    Object.values(of.findResources('AWS::Lambda::EventSourceMapping')).find(
      (mapping) =>
        JSON.stringify((mapping as { Properties: { EventSourceArn: unknown } }).Properties.EventSourceArn) ===
        JSON.stringify({ 'Fn::GetAtt': [queueId(QUEUES.delivery.id), 'Arn'] }),
    ) as { Properties: Record<string, unknown> } | undefined;
  const deliveryVisibility = (of: Template) =>
    (
      of.findResources('AWS::SQS::Queue')[queueId(QUEUES.delivery.id)] as {
        Properties: { VisibilityTimeout: number };
      }
    ).Properties.VisibilityTimeout;

  it('invokes with what one receive returns by default (no window, 10 at most), as { seconds: 0 } does', () => {
    expect(DELIVERY_BATCHING_DEFAULTS).toEqual({ seconds: 0, batchSize: 10 });
    const { template: atOnce } = synth({ deliveryBatchingWindow: { seconds: 0 } });
    for (const of of [template, atOnce]) {
      const properties = deliveryMapping(of)?.Properties;
      expect(properties).toMatchObject({ BatchSize: 10 });
      expect(properties).not.toHaveProperty('MaximumBatchingWindowInSeconds');
      expect(deliveryVisibility(of)).toBe(DELIVERY_FUNCTION_TIMEOUT_SECONDS * 6);
    }
  });

  it('{ seconds: 1 } gathers fresh deliveries for 1 s, 10 at most; the visibility timeout adds the second', () => {
    const { template: windowed } = synth({ deliveryBatchingWindow: { seconds: 1 } });
    expect(deliveryMapping(windowed)?.Properties).toMatchObject({
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 1,
    });
    expect(deliveryVisibility(windowed)).toBe(DELIVERY_FUNCTION_TIMEOUT_SECONDS * 6 + 1);
  });

  it('{ seconds: 5, batchSize: 50 } sets both, the visibility timeout 5 s longer, and the backlog limit follows the batch', () => {
    const { template: windowed } = synth({ deliveryBatchingWindow: { seconds: 5, batchSize: 50 } });
    expect(deliveryMapping(windowed)?.Properties).toMatchObject({
      BatchSize: 50,
      MaximumBatchingWindowInSeconds: 5,
    });
    expect(deliveryVisibility(windowed)).toBe(DELIVERY_FUNCTION_TIMEOUT_SECONDS * 6 + 5);
    // The retry queue keeps its own batch and no window.
    const retry = Object.values(windowed.findResources('AWS::Lambda::EventSourceMapping')).find((mapping) =>
      JSON.stringify(mapping).includes(queueId(QUEUES.retry.id)),
    ) as { Properties: Record<string, unknown> };
    expect(retry.Properties.BatchSize).toBe(10);
    expect(retry.Properties).not.toHaveProperty('MaximumBatchingWindowInSeconds');
    windowed.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [ENV.deliveryBacklogLimit]: String(20 * 50 * 50) }) },
    });
  });

  it.each([
    [
      { seconds: 0, batchSize: 50 },
      'deliveryBatchingWindow.batchSize must be at most 10 when deliveryBatchingWindow.seconds is 0 (got 50)',
    ],
    [
      { seconds: 1, batchSize: 101 },
      'deliveryBatchingWindow.batchSize must be an integer from 1 to 100 (got 101)',
    ],
    [
      { seconds: 1, batchSize: 0 },
      'deliveryBatchingWindow.batchSize must be an integer from 1 to 100 (got 0)',
    ],
    [{ seconds: 301 }, 'deliveryBatchingWindow.seconds must be an integer from 0 to 300 (got 301)'],
    [{ seconds: 1.5 }, 'deliveryBatchingWindow.seconds must be an integer from 0 to 300 (got 1.5)'],
    [{ seconds: -1 }, 'deliveryBatchingWindow.seconds must be an integer from 0 to 300 (got -1)'],
  ])('refuses %p', (deliveryBatchingWindow, message) => {
    expect(
      () => new DeliveryPipeline(new Stack(newApp(), 'Windowed'), 'Pipeline', { deliveryBatchingWindow }),
    ).toThrow(message);
  });
});

describe('backlog queue', () => {
  it('is consumed by the delivery function in batches of up to 10,000 gathered over 60 s, two invocations at most', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId(QUEUES.backlog.id), 'Arn'] },
      FunctionName: { Ref: functionId('delivery') },
      BatchSize: 10_000,
      MaximumBatchingWindowInSeconds: BACKLOG_WINDOW_SECONDS,
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(BACKLOG_WINDOW_SECONDS).toBe(60);
  });

  it('keeps its messages hidden for six delivery timeouts plus the window, and parks them after 5 receives', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: DELIVERY_FUNCTION_TIMEOUT_SECONDS * 6 + BACKLOG_WINDOW_SECONDS,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [queueId(QUEUES.backlog.redrive.id), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
  });

  it('keeps within what Lambda allows an SQS event source: a window for batches over 10, a batch Lambda can take', () => {
    for (const queue of Object.values(QUEUES)) {
      const { batchSize, batchingWindowSeconds } = queue.consumer;
      expect(batchSize).toBeLessThanOrEqual(LAMBDA_SQS_LIMITS.maxBatchSize);
      expect(batchingWindowSeconds).toBeLessThanOrEqual(LAMBDA_SQS_LIMITS.maxBatchingWindowSeconds);
      if (batchSize > LAMBDA_SQS_LIMITS.maxBatchSizeWithoutWindow) {
        expect([queue.id, batchingWindowSeconds >= 1]).toEqual([queue.id, true]);
      }
    }
  });

  it('takes the window given (backlogWindowSeconds), its visibility timeout lengthened to match', () => {
    const { template: slow } = synth({ backlogWindowSeconds: 300 });
    const queues = slow.findResources('AWS::SQS::Queue');
    const backlogQueue = Object.entries(queues).find(([id]) => id.startsWith(`Pipeline${QUEUES.backlog.id}`));
    expect(backlogQueue?.[1].Properties.VisibilityTimeout).toBe(DELIVERY_FUNCTION_TIMEOUT_SECONDS * 6 + 300);
    slow.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10_000,
      MaximumBatchingWindowInSeconds: 300,
    });
  });

  it.each([0, 301, 1.5])('refuses a backlogWindowSeconds of %p', (value) => {
    expect(
      () =>
        new DeliveryPipeline(new Stack(newApp(), 'Windowed'), 'Pipeline', { backlogWindowSeconds: value }),
    ).toThrow(`backlogWindowSeconds must be an integer from 1 to 300 (got ${value})`);
  });

  it('is consumed by the delivery function only, and sent to by it and by the publishers (publish, and dead-letter for its notices) of a held subscription, whose environments name it', () => {
    expect(actionsOn('delivery', queueId(QUEUES.backlog.id))).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']),
    );
    for (const key of ['publish', 'deadLetter'] as const) {
      expect(actionsOn(key, queueId(QUEUES.backlog.id))).toContain('sqs:SendMessage');
      expect(actionsOn(key, queueId(QUEUES.backlog.id))).not.toContain('sqs:ReceiveMessage');
    }
    expect(actionsOn('management', queueId(QUEUES.backlog.id))).toEqual([]);
    const fn = template.findResources('AWS::Lambda::Function')[functionId('delivery')] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    expect(fn.Properties.Environment.Variables[ENV.backlogQueueUrl]).toEqual({
      Ref: queueId(QUEUES.backlog.id),
    });
  });
});

describe('ordered queue', () => {
  const resourceOf = (constructId: string) =>
    template.findResources('AWS::SQS::Queue')[queueId(constructId)] as {
      Properties: Record<string, unknown>;
    };

  it('is the one FIFO queue, with its FIFO redrive queue; the others are standard', () => {
    const fifo = (Object.keys(QUEUES) as QueueKey[]).filter((key) => QUEUES[key].fifo === true);
    expect(fifo).toEqual(['ordered']);
    for (const [key, queue] of Object.entries(QUEUES)) {
      for (const id of [queue.id, queue.redrive.id]) {
        const properties = resourceOf(id).Properties;
        expect([id, properties.FifoQueue]).toEqual([id, key === 'ordered' ? true : undefined]);
        // No name: CloudFormation generates one (ending in .fifo for a FIFO queue).
        expect(properties).not.toHaveProperty('QueueName');
      }
    }
  });

  it('has high throughput (de-duplication and throughput per message group), ids from the sender, 14 days of retention', () => {
    expect(resourceOf(QUEUES.ordered.id).Properties).toMatchObject({
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      ContentBasedDeduplication: false,
      MessageRetentionPeriod: 14 * 24 * 3600,
      VisibilityTimeout: DELIVERY_FUNCTION_TIMEOUT_SECONDS * 6,
      SqsManagedSseEnabled: true,
      MaximumMessageSize: SQS_LIMITS.maxMessageBytes,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [queueId(QUEUES.ordered.redrive.id), 'Arn'] },
        maxReceiveCount: 1000,
      },
    });
    expect(resourceOf(QUEUES.ordered.redrive.id).Properties).toMatchObject({
      FifoQueue: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
  });

  it('is consumed by the delivery function 10 at a time with partial batch failures, without a batching window', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter(
      (mapping) =>
        JSON.stringify(mapping.Properties.EventSourceArn) ===
        JSON.stringify({ 'Fn::GetAtt': [queueId(QUEUES.ordered.id), 'Arn'] }),
    );
    expect(mappings).toHaveLength(1);
    const [mapping] = mappings as [{ Properties: Record<string, unknown> }];
    expect(mapping.Properties).toMatchObject({
      FunctionName: { Ref: functionId('delivery') },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: QUEUES.ordered.consumer.maxConcurrency },
    });
    expect(mapping.Properties).not.toHaveProperty('MaximumBatchingWindowInSeconds');
    // Whatever the other queues' windows are given as.
    const { template: windowed } = synth({
      deliveryBatchingWindow: { seconds: 5 },
      backlogWindowSeconds: 300,
    });
    const orderedArn = JSON.stringify({
      'Fn::GetAtt': [
        Object.keys(windowed.findResources('AWS::SQS::Queue')).find((id) =>
          new RegExp(`^Pipeline${QUEUES.ordered.id}[0-9A-F]{8}$`).test(id),
        ),
        'Arn',
      ],
    });
    const windowedMapping = Object.values(windowed.findResources('AWS::Lambda::EventSourceMapping')).find(
      (each) => JSON.stringify(each.Properties.EventSourceArn) === orderedArn,
    );
    expect(windowedMapping?.Properties).toMatchObject({ BatchSize: 10 });
    expect(windowedMapping?.Properties).not.toHaveProperty('MaximumBatchingWindowInSeconds');
  });

  it('is defined as Lambda takes a FIFO queue: no batching window, 10 messages a batch at most', () => {
    for (const queue of Object.values(QUEUES).filter((each) => each.fifo === true)) {
      expect([queue.id, queue.consumer.batchingWindowSeconds]).toEqual([
        queue.id,
        LAMBDA_FIFO_LIMITS.batchingWindowSeconds,
      ]);
      expect(queue.consumer.batchSize).toBeLessThanOrEqual(LAMBDA_FIFO_LIMITS.maxBatchSize);
      expect(queue.localName.endsWith('.fifo') && queue.redrive.localName.endsWith('.fifo')).toBe(true);
    }
  });

  it('the delivery function may receive, delete and change the visibility of its messages (its retries); it and dead-letter send notices there; management nothing', () => {
    const actions = actionsOn('delivery', queueId(QUEUES.ordered.id));
    expect(actions).toEqual(
      expect.arrayContaining([
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:SendMessage',
      ]),
    );
    expect(actionsOn('management', queueId(QUEUES.ordered.id))).toEqual([]);
    const deadLetter = actionsOn('deadLetter', queueId(QUEUES.ordered.id));
    expect(deadLetter).toContain('sqs:SendMessage');
    expect(deadLetter).not.toContain('sqs:ReceiveMessage');
  });
});

describe('backlog bucket', () => {
  const bucketId = () => logicalIdOf('AWS::S3::Bucket', BACKLOG_BUCKET.id);

  it('is private, encrypted, TLS only, and expires objects left behind after 15 days', () => {
    expect(BACKLOG_BUCKET.retentionDays).toBe(15);
    expect(template.findResources('AWS::S3::Bucket')[bucketId()]).toMatchObject({
      Properties: {
        LifecycleConfiguration: {
          Rules: [{ ExpirationInDays: BACKLOG_BUCKET.retentionDays, Status: 'Enabled' }],
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        ...PRIVATE_ENCRYPTED_BUCKET,
      },
    });
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy')).find((found) =>
      JSON.stringify(found.Properties.Bucket).includes(bucketId()),
    );
    expect(JSON.stringify(policy)).toContain('"aws:SecureTransport":"false"');
  });

  it('lets the delivery function put, get and delete segments under backlog/ and list that prefix, and no other function in', () => {
    const statements = statementsOf('delivery').filter((statement) =>
      JSON.stringify(statement.Resource).includes(bucketId()),
    );
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
          Resource: {
            'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, `/${BACKLOG_BUCKET.prefix}*`]],
          },
        }),
        expect.objectContaining({
          Action: 's3:ListBucket',
          Resource: { 'Fn::GetAtt': [bucketId(), 'Arn'] },
          Condition: { StringLike: { 's3:prefix': [`${BACKLOG_BUCKET.prefix}*`] } },
        }),
      ]),
    );
    expect(statements).toHaveLength(2);
    for (const key of ['publish', 'management', 'deadLetter'] as const) {
      expect([key, actionsOn(key, bucketId())]).toEqual([key, []]);
    }
    const fn = template.findResources('AWS::Lambda::Function')[functionId('delivery')] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    expect(fn.Properties.Environment.Variables[ENV.backlogBucket]).toEqual({ Ref: bucketId() });
  });
});

describe('backlog sweep schedule', () => {
  const rules = () => Object.entries(template.findResources('AWS::Events::Rule'));
  const ruleId = () => logicalIdOf('AWS::Events::Rule', 'BacklogSweepSchedule');

  it('is one of the two rules (the other sweeps the archives), enabled, every minute', () => {
    expect(rules()).toHaveLength(2);
    expect(template.findResources('AWS::Events::Rule')[ruleId()]).toMatchObject({
      Properties: { ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' },
    });
  });

  it('invokes the delivery function with exactly the sweep event the handler parses, never again when it fails', () => {
    const rule = template.findResources('AWS::Events::Rule')[ruleId()] as {
      Properties: { Targets: Array<Record<string, unknown>> };
    };
    expect(rule.Properties.Targets).toEqual([
      {
        Id: expect.any(String),
        Arn: { 'Fn::GetAtt': [functionId('delivery'), 'Arn'] },
        Input: JSON.stringify(BACKLOG_SWEEP_EVENT),
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
      },
    ]);
    const input = JSON.parse(rule.Properties.Targets[0]?.Input as string) as unknown;
    expect(input).toEqual({ v: BACKLOG_SWEEP_EVENT.v, kind: 'backlog-sweep' });
    expect(backlogSweepJobSchema.parse(input)).toEqual(input);
  });

  it('is allowed to invoke the delivery function, and only this rule is', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (permission) =>
        permission.Properties.Principal === 'events.amazonaws.com' &&
        JSON.stringify(permission.Properties.FunctionName).includes(functionId('delivery')),
    );
    expect(permissions).toEqual([
      expect.objectContaining({
        Properties: {
          Action: 'lambda:InvokeFunction',
          FunctionName: { 'Fn::GetAtt': [functionId('delivery'), 'Arn'] },
          Principal: 'events.amazonaws.com',
          SourceArn: { 'Fn::GetAtt': [ruleId(), 'Arn'] },
        },
      }),
    ]);
  });

  it('has Lambda drop a sweep it could not run at once instead of running it again later', () => {
    template.resourceCountIs('AWS::Lambda::EventInvokeConfig', 2);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('delivery') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
      Qualifier: '$LATEST',
    });
  });
});

describe('archive sweep schedule', () => {
  const ruleId = () => logicalIdOf('AWS::Events::Rule', 'ArchiveSweepSchedule');

  it('invokes the dead-letter function once a day with exactly the event its handler parses, never again', () => {
    const rule = template.findResources('AWS::Events::Rule')[ruleId()] as {
      Properties: { ScheduleExpression: string; State: string; Targets: Array<Record<string, unknown>> };
    };
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 day)', State: 'ENABLED' });
    expect(rule.Properties.Targets).toEqual([
      {
        Id: expect.any(String),
        Arn: { 'Fn::GetAtt': [functionId('deadLetter'), 'Arn'] },
        Input: JSON.stringify(ARCHIVE_SWEEP_EVENT),
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 3600 },
      },
    ]);
    const input = JSON.parse(rule.Properties.Targets[0]?.Input as string) as unknown;
    expect(archiveSweepEventSchema.parse(input)).toEqual(input);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('deadLetter') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 3600,
    });
  });

  it('is allowed to invoke the dead-letter function, and only this rule is', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (permission) =>
        permission.Properties.Principal === 'events.amazonaws.com' &&
        JSON.stringify(permission.Properties.FunctionName).includes(functionId('deadLetter')),
    );
    expect(permissions).toEqual([
      expect.objectContaining({
        Properties: {
          Action: 'lambda:InvokeFunction',
          FunctionName: { 'Fn::GetAtt': [functionId('deadLetter'), 'Arn'] },
          Principal: 'events.amazonaws.com',
          SourceArn: { 'Fn::GetAtt': [ruleId(), 'Arn'] },
        },
      }),
    ]);
  });
});

describe('archive bucket', () => {
  const bucketId = () => logicalIdOf('AWS::S3::Bucket', ARCHIVE_BUCKET.id);

  it('is private, encrypted, and expires anything older than the longest retention', () => {
    expect(ARCHIVE_BUCKET.retentionDays).toBeGreaterThan(ARCHIVE_RETENTION_IN_DAYS.max);
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: [{ ExpirationInDays: ARCHIVE_BUCKET.retentionDays, Status: 'Enabled' }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    expect(template.findResources('AWS::S3::Bucket')[bucketId()]).toBeDefined();
  });

  it('is written and swept by the dead-letter function only, and read by replays on the delivery function', () => {
    expect(actionsOn('deadLetter', bucketId())).toEqual(
      expect.arrayContaining(['s3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:ListBucket']),
    );
    expect([...actionsOn('delivery', bucketId())].sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    for (const fn of ['publish', 'management'] as const) expect(actionsOn(fn, bucketId())).toEqual([]);
  });
});

describe('table', () => {
  it('is on-demand with point-in-time recovery, a TTL attribute and the topics index', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      Replicas: [
        Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
      ],
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: TABLE.topicsIndex.name })],
    });
  });

  it('is kept when the stack is deleted or a change replaces it, and removed when the first create fails, unless told otherwise', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('header key secret', () => {
  const secretId = () => logicalIdOf('AWS::SecretsManager::Secret', 'HeaderKey');
  const variablesOf = (key: keyof typeof FUNCTIONS) =>
    (
      template.findResources('AWS::Lambda::Function')[functionId(key)] as {
        Properties: { Environment: { Variables: Record<string, unknown> } };
      }
    ).Properties.Environment.Variables;

  it('is one generated 64-character secret without punctuation', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('delivery header values'),
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });

  it('is kept when the stack is deleted like the table whose values it seals, unless told otherwise', () => {
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'RetainExceptOnCreate' });
    const { template: disposable } = synth({ removalPolicy: RemovalPolicy.DESTROY });
    disposable.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Delete' });
  });

  it('is readable by the management and delivery functions only', () => {
    expect(actionsOn('management', secretId())).toContain('secretsmanager:GetSecretValue');
    expect(actionsOn('delivery', secretId())).toContain('secretsmanager:GetSecretValue');
    expect(actionsOn('publish', secretId())).toEqual([]);
    expect(actionsOn('deadLetter', secretId())).toEqual([]);
    // No other policy in the stack names it.
    const granting = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy).includes(secretId()),
    );
    expect(granting).toHaveLength(2);
  });

  it('is named to the management and delivery functions only', () => {
    for (const key of ['management', 'delivery'] as const) {
      expect(variablesOf(key)[ENV.headerKeySecretArn]).toEqual({ Ref: secretId() });
    }
    for (const key of ['publish', 'deadLetter'] as const) {
      expect(variablesOf(key)).not.toHaveProperty(ENV.headerKeySecretArn);
    }
    for (const key of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      expect(variablesOf(key)).not.toHaveProperty(ENV.headerKey);
    }
  });
});

describe('session key secret', () => {
  const secretId = () => logicalIdOf('AWS::SecretsManager::Secret', 'SessionKey');
  const variablesOf = (key: keyof typeof FUNCTIONS) =>
    (
      template.findResources('AWS::Lambda::Function')[functionId(key)] as {
        Properties: { Environment: { Variables: Record<string, unknown> } };
      }
    ).Properties.Environment.Variables;

  it('is generated by Secrets Manager, never written in the template', () => {
    const secret = template.findResources('AWS::SecretsManager::Secret')[secretId()] as {
      Properties: Record<string, unknown>;
    };
    expect(secret.Properties).toMatchObject({
      Description: expect.stringMatching(/session tokens/),
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    expect(secret.Properties).not.toHaveProperty('SecretString');
    template.resourceCountIs('AWS::SecretsManager::Secret', 3);
  });

  it('takes the removal policy of the other secrets', () => {
    expect(template.findResources('AWS::SecretsManager::Secret')[secretId()]).toMatchObject({
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
    });
    const { template: disposable } = synth({ removalPolicy: RemovalPolicy.DESTROY });
    const [, secret] =
      Object.entries(disposable.findResources('AWS::SecretsManager::Secret')).find(([id]) =>
        id.startsWith('PipelineSessionKey'),
      ) ?? [];
    expect(secret).toMatchObject({ DeletionPolicy: 'Delete' });
  });

  it('is read and replaced by the management function alone, which may do nothing else to it', () => {
    expect(actionsOn('management', secretId()).sort()).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      'secretsmanager:PutSecretValue',
    ]);
    expect(statementsOf('management')).toContainEqual(
      expect.objectContaining({ Action: 'secretsmanager:PutSecretValue', Resource: { Ref: secretId() } }),
    );
    for (const key of ['publish', 'delivery', 'deadLetter'] as const) {
      expect([key, actionsOn(key, secretId())]).toEqual([key, []]);
    }
    // No other policy in the stack names it, and the management function may replace no other secret.
    const granting = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy).includes(secretId()),
    );
    expect(granting).toHaveLength(1);
    const replacing = statementsOf('management').filter((statement) =>
      JSON.stringify(statement.Action).includes('secretsmanager:PutSecretValue'),
    );
    expect(replacing).toEqual([expect.objectContaining({ Resource: { Ref: secretId() } })]);
  });

  it('is named to the management function only', () => {
    expect(variablesOf('management')[ENV.sessionKeySecretArn]).toEqual({ Ref: secretId() });
    for (const key of ['publish', 'delivery', 'deadLetter'] as const) {
      expect(variablesOf(key)).not.toHaveProperty(ENV.sessionKeySecretArn);
    }
    for (const key of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      expect(variablesOf(key)).not.toHaveProperty(ENV.sessionKeyFile);
    }
  });
});

describe('portal props', () => {
  const variablesOf = (t: Template, key: keyof typeof FUNCTIONS) => {
    const [fn] = Object.values(
      t.findResources('AWS::Lambda::Function', { Properties: { Description: FUNCTIONS[key].description } }),
    ) as { Properties: { Environment: { Variables: Record<string, unknown> } } }[];
    return fn?.Properties.Environment.Variables ?? {};
  };

  it('set nothing by default: no site may frame the portal, and it keeps its own look', () => {
    for (const key of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      expect(variablesOf(template, key)).not.toHaveProperty(ENV.portalFrameAncestors);
      expect(variablesOf(template, key)).not.toHaveProperty(ENV.portalBranding);
    }
  });

  it('reach the management function, and only it, as the variables it reads', () => {
    const branding = {
      title: 'Acme events',
      logoUrl: 'https://cdn.acme.example/logo.svg',
      accentColor: '#0a7cff',
    };
    const { template: portal } = synth({
      portalFrameAncestors: ['https://app.acme.example', 'https://*.acme.example:8443'],
      portalBranding: branding,
    });
    const management = variablesOf(portal, 'management');
    expect(management[ENV.portalFrameAncestors]).toBe('https://app.acme.example https://*.acme.example:8443');
    expect(JSON.parse(String(management[ENV.portalBranding]))).toEqual(branding);
    for (const key of ['publish', 'delivery', 'deadLetter'] as const) {
      expect(variablesOf(portal, key)).not.toHaveProperty(ENV.portalFrameAncestors);
      expect(variablesOf(portal, key)).not.toHaveProperty(ENV.portalBranding);
    }
  });

  it('set only what is given', () => {
    const { template: titled } = synth({ portalBranding: { title: 'Acme' } });
    expect(variablesOf(titled, 'management')[ENV.portalBranding]).toBe('{"title":"Acme"}');
    expect(variablesOf(titled, 'management')).not.toHaveProperty(ENV.portalFrameAncestors);
  });

  it.each([
    [
      { portalFrameAncestors: ['http://app.acme.example'] },
      /portalFrameAncestors\[0\]: 'http:\/\/app.acme.example' is not an https origin/,
    ],
    [
      { portalFrameAncestors: ['https://app.acme.example', 'https://acme.example/embed'] },
      /portalFrameAncestors\[1\]: /,
    ],
    [
      { portalFrameAncestors: 'https://app.acme.example' as never },
      /portalFrameAncestors must be a list of https origins/,
    ],
    [{ portalBranding: { title: 'x'.repeat(81) } }, /portalBranding.title: at most 80 characters/],
    [
      { portalBranding: { logoUrl: 'http://cdn.acme.example/logo.svg' } },
      /portalBranding.logoUrl: an https URL/,
    ],
    [{ portalBranding: { accentColor: 'blue' } }, /portalBranding.accentColor: a colour as #rrggbb/],
    [{ portalBranding: { colour: '#000000' } as never }, /portalBranding/],
  ])('refuse %j at synth time, naming the prop', (props, message) => {
    expect(() => new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Pipeline', props)).toThrow(message);
  });
});

describe('dead-letter bucket', () => {
  it('blocks public access, is encrypted and refuses plain-text access', () => {
    template.hasResourceProperties('AWS::S3::Bucket', PRIVATE_ENCRYPTED_BUCKET);
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('HTTP API', () => {
  it('has exactly the shared routes; admin and IAM publishing routes need IAM, the routes their function checks do not', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => (route as { Properties: { RouteKey: string; AuthorizationType?: string } }).Properties,
    );
    const expected = ROUTES.map((route) => ({
      key: `${route.method} ${route.path}`,
      auth: route.auth === 'admin' || route.auth === 'iam' ? 'AWS_IAM' : 'NONE',
    }));
    expect(
      routes
        .map((route) => ({ key: route.RouteKey, auth: route.AuthorizationType ?? 'NONE' }))
        .sort((a, b) => a.key.localeCompare(b.key)),
    ).toEqual(expected.sort((a, b) => a.key.localeCompare(b.key)));
  });

  it('has an IAM-authorized publish route beside the key-authorized one', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'POST /iam/topics/{topic}/api/events',
      AuthorizationType: 'AWS_IAM',
    });
    const keyRoute = Object.values(
      template.findResources('AWS::ApiGatewayV2::Route', {
        Properties: { RouteKey: 'POST /topics/{topic}/api/events' },
      }),
    );
    expect(keyRoute).toHaveLength(1);
    expect(keyRoute[0]?.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
  });

  it('serves the console, the portal and the API description without IAM: the API behind session tokens on every method, the page, files and document to anyone', () => {
    const routeByKey = (key: string) => {
      const found = Object.values(
        template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: key } }),
      ) as { Properties: { AuthorizationType?: string; AuthorizerId?: unknown } }[];
      expect([key, found.length]).toEqual([key, 1]);
      return found[0]?.Properties;
    };
    const consoleRoutes = ROUTES.filter((route) => route.auth === 'session' || route.auth === 'public');
    expect(consoleRoutes.map((route) => `${route.method} ${route.path}`).sort()).toEqual([
      'ANY /console/api/{proxy+}',
      'GET /console',
      'GET /console/{file+}',
      'GET /openapi.json',
      'GET /portal',
    ]);
    for (const route of consoleRoutes) {
      const properties = routeByKey(`${route.method} ${route.path}`);
      expect(properties?.AuthorizationType).toBe('NONE');
      expect(properties).not.toHaveProperty('AuthorizerId');
    }
    // Sessions are handed out and revoked by operators, through IAM like every admin route.
    for (const key of [
      'POST /admin/sessions',
      'POST /admin/sessions/revokeAll',
      'POST /admin/topics/{topic}/eventSubscriptions/{subscription}/sendTestEvent',
      'POST /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/sendTestEvent',
    ]) {
      expect([key, routeByKey(key)?.AuthorizationType]).toEqual([key, 'AWS_IAM']);
    }
  });

  it('sends the console and portal routes to the management function', () => {
    const integrationOf = (key: string) =>
      JSON.stringify(
        Object.values(
          template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: key } }),
        )[0]?.Properties.Target,
      );
    const management = integrationOf('POST /admin/sessions');
    for (const key of ['ANY /console/api/{proxy+}', 'GET /console', 'GET /console/{file+}', 'GET /portal']) {
      expect([key, integrationOf(key)]).toEqual([key, management]);
    }
    expect(integrationOf('POST /topics/{topic}/api/events')).not.toEqual(management);
  });

  it('logs access on the default stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue() },
    });
  });

  it('outputs the API URL', () => {
    expect(Object.keys(template.findOutputs('*')).some((key) => key.includes('ApiUrl'))).toBe(true);
  });
});

describe('publish ingress', () => {
  const publishRoutes = (t: Template) =>
    Object.values(t.findResources('AWS::ApiGatewayV2::Route'))
      .map((route) => (route as { Properties: { RouteKey: string } }).Properties.RouteKey)
      .sort();
  const keyPublishing = ROUTES.filter(
    (route) => route.function === 'publish' && route.auth === 'topicKey',
  ).map((route) => `${route.method} ${route.path}`);
  const { template: both } = synth({ publishIngress: 'both' });
  const { template: urlOnly } = synth({ publishIngress: 'functionUrl' });

  it('is the HTTP API alone by default: no function URL and no PublishUrl output', () => {
    template.resourceCountIs('AWS::Lambda::Url', 0);
    expect(Object.keys(template.findOutputs('PublishUrl'))).toEqual([]);
    expect(publishRoutes(template)).toEqual(expect.arrayContaining(keyPublishing));
  });

  it.each([
    ['both', both],
    ['functionUrl', urlOnly],
  ])(
    'with %s, gives the publish function a URL without auth or CORS, buffered, and outputs it',
    (_name, t) => {
      const urls = Object.values(t.findResources('AWS::Lambda::Url'));
      expect(urls).toHaveLength(1);
      const [url] = urls as { Properties: Record<string, unknown> }[];
      expect(url?.Properties).toEqual({
        AuthType: 'NONE',
        InvokeMode: 'BUFFERED',
        TargetFunctionArn: { 'Fn::GetAtt': [functionId('publish'), 'Arn'] },
      });
      // Anyone may call the URL (the function checks keys), and only through the URL.
      t.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunctionUrl',
        FunctionUrlAuthType: 'NONE',
        Principal: '*',
        FunctionName: { 'Fn::GetAtt': [functionId('publish'), 'Arn'] },
      });
      t.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        InvokedViaFunctionUrl: true,
        Principal: '*',
        FunctionName: { 'Fn::GetAtt': [functionId('publish'), 'Arn'] },
      });
      const urlId = Object.keys(t.findResources('AWS::Lambda::Url'))[0];
      expect(t.findOutputs('PublishUrl')).toEqual({
        PublishUrl: expect.objectContaining({ Value: { 'Fn::GetAtt': [urlId, 'FunctionUrl'] } }),
      });
    },
  );

  it('adds no IAM policy: the URL is opened by resource-based permissions alone', () => {
    expect(both.findResources('AWS::IAM::Policy')).toEqual(template.findResources('AWS::IAM::Policy'));
    expect(urlOnly.findResources('AWS::IAM::Policy')).toEqual(template.findResources('AWS::IAM::Policy'));
  });

  it('with both, keeps every route on the HTTP API', () => {
    expect(publishRoutes(both)).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('with functionUrl alone, the HTTP API keeps admin, validation and IAM publishing but not key publishing', () => {
    expect(publishRoutes(urlOnly)).toEqual(
      ROUTES.filter((route) => !keyPublishing.includes(`${route.method} ${route.path}`))
        .map((route) => `${route.method} ${route.path}`)
        .sort(),
    );
    expect(publishRoutes(urlOnly)).toContain('POST /iam/topics/{topic}/api/events');
  });

  it('with functionUrl alone, topic endpoints name the function URL unless a public URL is given', () => {
    const variablesOf = (t: Template, key: keyof typeof FUNCTIONS) => {
      const [fn] = Object.values(
        t.findResources('AWS::Lambda::Function', { Properties: { Description: FUNCTIONS[key].description } }),
      ) as { Properties: { Environment: { Variables: Record<string, unknown> } } }[];
      return fn?.Properties.Environment.Variables ?? {};
    };
    const urlId = Object.keys(urlOnly.findResources('AWS::Lambda::Url'))[0];
    expect(variablesOf(urlOnly, 'management')[ENV.publishUrl]).toEqual({
      'Fn::GetAtt': [urlId, 'FunctionUrl'],
    });
    expect(variablesOf(urlOnly, 'publish')[ENV.publishUrl]).toBeUndefined();
    expect(variablesOf(both, 'management')[ENV.publishUrl]).toBeUndefined();
    const { template: custom } = synth({
      publishIngress: 'functionUrl',
      publicUrl: 'https://events.example.com',
    });
    expect(variablesOf(custom, 'management')[ENV.publishUrl]).toBeUndefined();
  });
});

describe('props', () => {
  it.each([
    [{ deliveryConcurrency: 0 }, /deliveryConcurrency must be an integer from 1 to 1000 \(got 0\)/],
    [
      { maxDeliveryInvocations: { retry: 1 } },
      /maxDeliveryInvocations.retry must be an integer from 2 to 1000 \(got 1\)/,
    ],
    [{ historyRetentionDays: 400 }, /historyRetentionDays must be an integer from 1 to 365/],
    [{ subscriptionCacheSeconds: -1 }, /subscriptionCacheSeconds must be a number from 0 to 300/],
    [{ publicUrl: 'http://events.example.com' }, /publicUrl must be an https URL/],
    [
      { publishIngress: 'lambda' as never },
      /publishIngress must be one of 'httpApi', 'functionUrl', 'both' \(got lambda\)/,
    ],
    [{ backlogAgeAlarmHours: 0.5 }, /backlogAgeAlarmHours must be a number from 1 to 168 \(got 0.5\)/],
    [{ backlogAgeAlarmHours: 169 }, /backlogAgeAlarmHours must be a number from 1 to 168 \(got 169\)/],
    [{ backlogSizeAlarmEvents: 0 }, /backlogSizeAlarmEvents must be an integer >= 1 \(got 0\)/],
    [{ backlogSizeAlarmEvents: 2.5 }, /backlogSizeAlarmEvents must be an integer >= 1 \(got 2.5\)/],
  ])('refuse %j at synth time', (props, message) => {
    expect(() => new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Pipeline', props)).toThrow(message);
  });

  it('flow into the functions and event source mappings', () => {
    const { template: custom } = synth({
      deliveryConcurrency: 8,
      maxDeliveryInvocations: { retry: 5 },
      publicUrl: 'https://events.example.com',
    });
    custom.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [ENV.deliveryConcurrency]: '8',
          [ENV.publicUrl]: 'https://events.example.com',
        }),
      },
    });
    custom.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });

  it('give the functions the HTTP API’s own URL as the public URL by default, built without the stage', () => {
    const apiId = logicalIdOf('AWS::ApiGatewayV2::Api', 'Api');
    const fn = template.findResources('AWS::Lambda::Function')[functionId('management')] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    expect(fn.Properties.Environment.Variables[ENV.publicUrl]).toEqual({
      'Fn::Join': [
        '',
        ['https://', { Ref: apiId }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }],
      ],
    });
    // No cycle: the API itself refers to no function (its routes and integrations do).
    const api = template.findResources('AWS::ApiGatewayV2::Api')[apiId];
    const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
    const apiText = JSON.stringify(api);
    expect(functionIds.filter((id) => apiText.includes(id))).toEqual([]);
  });

  it('validate endpoints and refuse private ones by default; both can be turned off', () => {
    const every =
      (variables: Record<string, string>) =>
      (candidate: { Environment: { Variables: Record<string, string> } }) =>
        Object.entries(variables).every(([name, value]) => candidate.Environment.Variables[name] === value);
    const functions = (t: Template) =>
      Object.values(t.findResources('AWS::Lambda::Function')).map(
        (resource) =>
          (resource as { Properties: { Environment: { Variables: Record<string, string> } } }).Properties,
      );
    const defaults = { [ENV.validateEndpoints]: 'true', [ENV.blockPrivateEndpoints]: 'true' };
    expect(functions(template).filter(every(defaults))).toHaveLength(Object.keys(FUNCTIONS).length);
    const { template: open } = synth({ validateEndpoints: false, allowPrivateEndpoints: true });
    const off = { [ENV.validateEndpoints]: 'false', [ENV.blockPrivateEndpoints]: 'false' };
    expect(functions(open).filter(every(off))).toHaveLength(Object.keys(FUNCTIONS).length);
  });

  it('count metrics per topic by default, per subscription when asked', () => {
    const variable = (t: Template) =>
      Object.values(t.findResources('AWS::Lambda::Function')).map(
        (fn) => fn.Properties.Environment.Variables[ENV.subscriptionMetrics],
      );
    const all = (value: string) => Object.keys(FUNCTIONS).map(() => value);
    expect(variable(template)).toEqual(all('false'));
    expect(variable(synth({ subscriptionMetrics: true }).template)).toEqual(all('true'));
  });

  it('write metric records after every invocation by default, every metricsFlushSeconds when set', () => {
    const variable = (t: Template) =>
      Object.values(t.findResources('AWS::Lambda::Function')).map(
        (fn) => fn.Properties.Environment.Variables[ENV.metricsFlushSeconds],
      );
    const all = (value: string) => Object.keys(FUNCTIONS).map(() => value);
    expect(variable(template)).toEqual(all('0'));
    expect(variable(synth({ metricsFlushSeconds: 60 }).template)).toEqual(all('60'));
  });

  it('grantAdmin lets a principal invoke the admin routes only', () => {
    const fresh = new GridwireStack(newApp(), 'Granting');
    const role = new iam.Role(fresh, 'Operator', { assumedBy: new iam.AccountRootPrincipal() });
    fresh.pipeline.grantAdmin(role);
    const statements = Template.fromStack(fresh).findResources('AWS::IAM::Policy');
    const operator = Object.values(statements).find((policy) =>
      JSON.stringify(policy).includes('execute-api:Invoke'),
    );
    expect(JSON.stringify(operator)).toContain('/admin/*');
  });
});

describe('parked messages', () => {
  it.each(Object.entries(QUEUES))(
    'raise an alarm as soon as one waits in the %s redrive queue',
    (key, queue) => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId(queue.redrive.id), 'QueueName'] } },
        ],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        DatapointsToAlarm: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        TreatMissingData: 'notBreaching',
        AlarmDescription: Match.stringLikeRegexp(`gridwire parked list --stack Test --queue ${key}`),
      });
    },
  );

  it('notify alarmTopic when parked and when cleared', () => {
    const stack = new Stack(newApp(), 'Alarmed');
    const topic = new sns.Topic(stack, 'Operators');
    const pipeline = new DeliveryPipeline(stack, 'Pipeline', { alarmTopic: topic });
    expect(Object.keys(pipeline.parkedAlarms).sort()).toEqual(Object.keys(QUEUES).sort());
    const topicRef = { Ref: stack.getLogicalId(topic.node.defaultChild as sns.CfnTopic) };
    const alarms = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThanOrEqual(Object.keys(QUEUES).length);
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({ Properties: { AlarmActions: [topicRef], OKActions: [topicRef] } });
    }
  });

  it('output every queue URL and its redrive queue URL under the names the CLI reads', () => {
    const outputs = template.findOutputs('*');
    for (const [key, queue] of Object.entries(QUEUES)) {
      const names = queueOutputNames(key as QueueKey);
      expect(outputs[names.url]).toMatchObject({ Value: { Ref: queueId(queue.id) } });
      expect(outputs[names.redriveUrl]).toMatchObject({ Value: { Ref: queueId(queue.redrive.id) } });
    }
  });
});

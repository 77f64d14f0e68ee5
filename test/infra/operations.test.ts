/**
 * Operations and security: cdk-nag findings, least-privilege roles, hardened defaults (throttle,
 * reserved concurrency, deletion protection), and the dashboard and alarms.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { ALARM_THRESHOLDS } from '../../infra/alarm-definitions';
import { addComplianceChecks } from '../../infra/checks';
import { DEFAULT_THROTTLE, DeliveryPipeline } from '../../infra/delivery-pipeline';
import type { DeliveryPipelineProps } from '../../infra/delivery-pipeline-props';
import { GridwireStack } from '../../infra/gridwire-stack';
import { listAlarms } from '../../infra/monitoring';
import { ASSUMED_PUBLISH_DURATION_MS, THROTTLE_CEILING } from '../../infra/pipeline/capacity';
import { ENV, FUNCTIONS, QUEUES, TABLE } from '../../shared/config/resources';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '../../shared/observability/metrics';
import { unacknowledged } from '../support/compliance';

// Skip asset bundling: these tests are about the template.
const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

/** An app and stack not yet synthesized. */
const unsynthesized = (props?: DeliveryPipelineProps) => {
  const app = newApp();
  const stack = new GridwireStack(app, 'Ops', props === undefined ? {} : { pipeline: props });
  return { app, stack };
};

const build = (props?: DeliveryPipelineProps) => {
  const built = unsynthesized(props);
  return { ...built, template: Template.fromStack(built.stack) };
};

const { stack, template } = build();
const pipeline = stack.pipeline;
const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

type Statement = { Action: string | string[]; Resource: unknown };

/** The statements of the policies attached to a function's role. */
function statementsOf(key: keyof typeof FUNCTIONS, of: Template = template): Statement[] {
  const fn = of.findResources('AWS::Lambda::Function', {
    Properties: { Description: FUNCTIONS[key].description },
  });
  const [resource] = Object.values(fn) as { Properties: { Role: { 'Fn::GetAtt': string[] } } }[];
  const roleId = resource?.Properties.Role['Fn::GetAtt'][0];
  return Object.values(of.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

/** Actions a function may take on resources whose ARN mentions `logicalIdOfResource`. */
const actionsOn = (key: keyof typeof FUNCTIONS, logicalIdOfResource: string): string[] =>
  statementsOf(key)
    .filter((statement) => JSON.stringify(statement.Resource).includes(`"${logicalIdOfResource}"`))
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
    .sort();

/** A function's properties in a template, found by its description. */
const functionIn = (t: Template, key: keyof typeof FUNCTIONS) => {
  const found = t.findResources('AWS::Lambda::Function', {
    Properties: { Description: FUNCTIONS[key].description },
  });
  const [id] = Object.keys(found);
  if (id === undefined) throw new Error(`no ${key} function`);
  return { id, properties: found[id]?.Properties as Record<string, unknown> };
};
const functionIdIn = (t: Template, key: keyof typeof FUNCTIONS) => functionIn(t, key).id;
const environmentOf = (t: Template, key: keyof typeof FUNCTIONS) =>
  ((functionIn(t, key).properties.Environment as { Variables?: Record<string, unknown> } | undefined)
    ?.Variables ?? {}) as Record<string, unknown>;
/** The reserved executions of each function that has some. */
const reservedOf = (t: Template) =>
  Object.fromEntries(
    (Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]).flatMap((key) => {
      const reserved = functionIn(t, key).properties.ReservedConcurrentExecutions;
      return reserved === undefined ? [] : [[key, reserved]];
    }),
  );

describe('cdk-nag', () => {
  it.each([
    ['AwsSolutions', 'without', () => new AwsSolutionsChecks(), {}],
    ['Serverless', 'without', () => new ServerlessChecks(), {}],
    ['AwsSolutions', 'with', () => new AwsSolutionsChecks(), { tracing: true }],
    ['Serverless', 'with', () => new ServerlessChecks(), { tracing: true }],
  ])(
    'the %s rule pack finds nothing unacknowledged, errors or warnings, %s tracing',
    (_name, _tracing, pack, props) => {
      const { app } = unsynthesized(props);
      expect(unacknowledged(pack, app)).toEqual([]);
    },
  );

  it.each([
    ['both', 'AwsSolutions', () => new AwsSolutionsChecks()],
    ['both', 'Serverless', () => new ServerlessChecks()],
    ['functionUrl', 'AwsSolutions', () => new AwsSolutionsChecks()],
    ['functionUrl', 'Serverless', () => new ServerlessChecks()],
  ] as const)(
    'with publishIngress %s, the %s rule pack finds nothing unacknowledged',
    (publishIngress, _name, pack) => {
      const { app } = unsynthesized({ publishIngress });
      expect(unacknowledged(pack, app)).toEqual([]);
    },
  );

  it.each([
    ['without', {}],
    ['with', { tracing: true }],
  ])(
    'lets synthesis pass with both packs attached as infra/app.ts attaches them, %s tracing',
    (_tracing, props) => {
      const { app } = unsynthesized(props);
      addComplianceChecks(app);
      expect(() => app.synth()).not.toThrow();
    },
  );

  it('fails synthesis on a finding nobody acknowledged', () => {
    const { app, stack: failing } = unsynthesized();
    new sqs.Queue(failing, 'Unchecked');
    addComplianceChecks(app);
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });
});

describe('roles', () => {
  it('use no AWS managed policies: each function has its own role and may write its own log group', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
    for (const key of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      const logs = statementsOf(key).filter((statement) =>
        JSON.stringify(statement.Action).includes('logs:'),
      );
      expect(logs).toEqual([
        {
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Effect: 'Allow',
          Resource: { 'Fn::GetAtt': [expect.stringContaining(`${FUNCTIONS[key].id}Logs`), 'Arn'] },
        },
      ]);
    }
  });

  it.each([
    // Writes only accepted event ids (the next test).
    ['publish', ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']],
    [
      'management',
      [
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
    ],
    [
      'delivery',
      [
        // Looks up late answers for the retries of events whose requests timed out.
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
    ],
    // Reads the notices topic and its subscriptions, to publish dead-letter notices.
    ['deadLetter', ['dynamodb:GetItem', 'dynamodb:Query']],
  ] as const)('%s may take exactly %j on the table', (key, actions) => {
    expect(actionsOn(key, logicalId(pipeline.table))).toEqual([...actions].sort());
  });

  it('publish may write and delete only items whose partition key is an accepted event id', () => {
    const writes = statementsOf('publish').filter((statement) =>
      [statement.Action]
        .flat()
        .some((action) => action === 'dynamodb:PutItem' || action === 'dynamodb:DeleteItem'),
    );
    expect(writes).toEqual([
      expect.objectContaining({
        Action: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${TABLE.acceptedIdPrefix}*`] },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    ]);
  });

  it('only management (topics) and delivery (backlog timers) may query the index, and no role names every index', () => {
    const indexGrants = (key: keyof typeof FUNCTIONS) =>
      statementsOf(key).filter((statement) => JSON.stringify(statement.Resource).includes('/index/'));
    for (const key of ['management', 'delivery'] as const)
      expect(JSON.stringify(indexGrants(key))).toContain(`/index/${TABLE.topicsIndex.name}`);
    for (const key of ['publish', 'deadLetter'] as const) expect(indexGrants(key)).toEqual([]);
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain('/index/*');
  });

  it.each([
    ['publish', []],
    ['management', ['s3:GetObject', 's3:ListBucket', 's3:PutObject']],
    ['delivery', []],
    ['deadLetter', ['s3:PutObject']],
  ] as const)('%s may take exactly %j on the dead-letter bucket', (key, actions) => {
    const bucket = pipeline.deadLetterBucket as unknown as { node: { defaultChild?: unknown } };
    expect(actionsOn(key, logicalId(bucket))).toEqual([...actions].sort());
  });

  it('grant nothing on "*" by default: X-Ray is off', () => {
    for (const key of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      const onEverything = statementsOf(key).filter((statement) => statement.Resource === '*');
      expect([key, onEverything]).toEqual([key, []]);
      expect(JSON.stringify(statementsOf(key))).not.toContain('xray:');
    }
  });

  it('grant X-Ray when tracing is on, the only wildcard resource, and nothing else on "*"', () => {
    const traced = build({ tracing: true }).template;
    for (const key of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      const onEverything = statementsOf(key, traced).filter((statement) => statement.Resource === '*');
      expect(onEverything.flatMap((statement) => statement.Action)).toEqual([
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
      ]);
    }
  });
});

describe('dead-letter bucket access logs', () => {
  it('are written to a private, encrypted log bucket that expires them after a year', () => {
    const logBucket = pipeline.deadLetterAccessLogsBucket;
    expect(logBucket).toBeDefined();
    template.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: {
        DestinationBucketName: { Ref: logicalId(logBucket as never) },
        LogFilePrefix: 'dead-letters/',
      },
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 365, Status: 'Enabled' })] },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
  });

  it('are not set up for a bucket that was given', () => {
    const app = newApp();
    const given = new Stack(app, 'Given');
    const other = new Stack(app, 'Other');
    const { Bucket } = jest.requireActual('aws-cdk-lib/aws-s3') as typeof import('aws-cdk-lib/aws-s3');
    const bucket = new Bucket(other, 'Mine');
    const withBucket = new DeliveryPipeline(given, 'Pipeline', { deadLetterBucket: bucket });
    expect(withBucket.deadLetterAccessLogsBucket).toBeUndefined();
  });
});

describe('hardened defaults', () => {
  it(`throttle the API stage at ${DEFAULT_THROTTLE.rateLimit} requests/s with a ${DEFAULT_THROTTLE.burstLimit} burst unless told otherwise`, () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: {
        ThrottlingRateLimit: DEFAULT_THROTTLE.rateLimit,
        ThrottlingBurstLimit: DEFAULT_THROTTLE.burstLimit,
      },
    });
    build({ throttle: { rateLimit: 50, burstLimit: 20 } }).template.hasResourceProperties(
      'AWS::ApiGatewayV2::Stage',
      { DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 20 } },
    );
  });

  it.each([
    // reservedConcurrency × 1000 / 20 ms, burst reservedConcurrency...
    [20, 1000, 20],
    [60, 3000, 60],
    // ...never above half the account quota.
    [100, 5000, 100],
    [400, 5000, 400],
    [5000, 5000, 2500],
  ])(
    'size the stage throttle from the publish reservation: %i executions take %i requests/s, burst %i',
    (reservedConcurrency, rateLimit, burstLimit) => {
      expect(rateLimit).toBe(
        Math.min(THROTTLE_CEILING.rateLimit, (reservedConcurrency * 1000) / ASSUMED_PUBLISH_DURATION_MS),
      );
      build({ reservedConcurrency }).template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        DefaultRouteSettings: { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit },
      });
    },
  );

  it('throttle the stage at half the account quota when the publish function reserves nothing, and as told when given', () => {
    build({ reservedConcurrency: false }).template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: {
        ThrottlingRateLimit: THROTTLE_CEILING.rateLimit,
        ThrottlingBurstLimit: THROTTLE_CEILING.burstLimit,
      },
    });
    build({
      reservedConcurrency: 20,
      throttle: { rateLimit: 700, burstLimit: 70 },
    }).template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 700, ThrottlingBurstLimit: 70 },
    });
  });

  it('log API access as one JSON object per request, without query strings or fields said elsewhere', () => {
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const format = JSON.parse(stage?.Properties.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format).toEqual({
      requestId: '$context.requestId',
      requestTime: '$context.requestTime',
      sourceIp: '$context.identity.sourceIp',
      caller: '$context.identity.caller',
      method: '$context.httpMethod',
      routeKey: '$context.routeKey',
      path: '$context.path',
      status: '$context.status',
      responseLatency: '$context.responseLatency',
      integrationError: '$context.integrationErrorMessage',
      error: '$context.error.message',
    });
    expect(JSON.stringify(format)).not.toMatch(/querystring/i);
  });

  it('reserve no executions unless asked (a new account has 10, and Lambda keeps 100 unreserved); a number reserves them', () => {
    expect(reservedOf(template)).toEqual({});
    expect(reservedOf(build({ reservedConcurrency: 25 }).template).publish).toBe(25);
    expect(reservedOf(build({ reservedConcurrency: false }).template).publish).toBeUndefined();
  });

  it('warn at synth with the account concurrency limit the reservations need, and only when there are some', () => {
    const warningsOf = (props: DeliveryPipelineProps) => {
      const stack = new Stack(newApp(), 'Warned');
      new DeliveryPipeline(stack, 'Pipeline', props);
      return Annotations.fromStack(stack)
        .findWarning('*', Match.stringLikeRegexp('reserved concurrency'))
        .map((found) => String(found.entry.data));
    };
    expect(warningsOf({})).toEqual([]);
    const [warning, ...more] = warningsOf({ reservedConcurrency: 100, deliveryReservedConcurrency: 123 });
    expect(more).toEqual([]);
    expect(warning).toContain('needs an account concurrency limit of at least 323');
    expect(warning).toContain('new accounts have 10');
    expect(warningsOf({ reservedConcurrency: 5 })[0]).toContain('at least 105');
  });

  it("let the delivery function's reservation be what its event sources may run at once plus the backlog sweep's execution, or more", () => {
    const eventSourceConcurrency = (t: Template) =>
      Object.values(t.findResources('AWS::Lambda::EventSourceMapping'))
        .filter((mapping) =>
          JSON.stringify(mapping.Properties.FunctionName).includes(functionIdIn(t, 'delivery')),
        )
        .reduce((sum, mapping) => sum + (mapping.Properties.ScalingConfig.MaximumConcurrency as number), 0);
    // Fresh deliveries 50, retries 20, backlog 2, ordered 50.
    expect(eventSourceConcurrency(template)).toBe(122);
    expect(reservedOf(build({ deliveryReservedConcurrency: 123 }).template).delivery).toBe(123);
    const raised = build({
      maxDeliveryInvocations: { delivery: 100 },
      deliveryReservedConcurrency: 173,
    }).template;
    expect(eventSourceConcurrency(raised)).toBe(172);
    expect(reservedOf(raised).delivery).toBe(173);
    expect(reservedOf(build({ deliveryReservedConcurrency: 200 }).template).delivery).toBe(200);
    expect(reservedOf(build({ deliveryReservedConcurrency: false }).template).delivery).toBeUndefined();
  });

  it('tell the publish function the delivery backlog it refuses from: 20 rounds of the consumers, as given, or 0 for never', () => {
    const limitOf = (t: Template) => environmentOf(t, 'publish')[ENV.deliveryBacklogLimit];
    expect(limitOf(template)).toBe('10000');
    expect(limitOf(build({ maxDeliveryInvocations: { delivery: 10 } }).template)).toBe('2000');
    expect(limitOf(build({ deliveryBacklogLimit: 500 }).template)).toBe('500');
    expect(limitOf(build({ deliveryBacklogLimit: false }).template)).toBe('0');
    for (const key of ['management', 'delivery', 'deadLetter'] as const) {
      expect(environmentOf(template, key)[ENV.deliveryBacklogLimit]).toBeUndefined();
    }
  });

  it('leave DynamoDB deletion protection off unless asked, so a failed first create can delete the table', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
    build({ deletionProtection: true }).template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
  });

  it.each([
    [
      { throttle: { rateLimit: 0, burstLimit: 10 } },
      /throttle.rateLimit must be a number of requests per second above 0 \(got 0\)/,
    ],
    [
      { throttle: { rateLimit: 10, burstLimit: 1.5 } },
      /throttle.burstLimit must be an integer of at least 1 \(got 1.5\)/,
    ],
    [{ reservedConcurrency: 0 }, /reservedConcurrency must be false or an integer of at least 1 \(got 0\)/],
    [
      { deliveryReservedConcurrency: 122 },
      /deliveryReservedConcurrency must be false or an integer of at least 123: the delivery function's event sources may run 122 invocations at once/,
    ],
    [
      { maxDeliveryInvocations: { retry: 100 }, deliveryReservedConcurrency: 100 },
      /deliveryReservedConcurrency must be false or an integer of at least 203/,
    ],
    [{ deliveryBacklogLimit: 0 }, /deliveryBacklogLimit must be false or an integer of at least 1 \(got 0\)/],
  ])('refuse %j at synth time', (props, message) => {
    expect(() => new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Pipeline', props)).toThrow(message);
  });
});

describe('alarm topic', () => {
  it('is created, encrypted with its own rotating key CloudWatch may use, when none is given', () => {
    const topicId = logicalId(pipeline.alarmTopic as sns.Topic);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    expect(topicId).toMatch(/AlarmTopic/);
  });

  it('is the one given, and no other is created', () => {
    const app = newApp();
    const given = new Stack(app, 'Given');
    const topic = new sns.Topic(given, 'Operators');
    const withTopic = new DeliveryPipeline(given, 'Pipeline', { alarmTopic: topic });
    expect(withTopic.alarmTopic).toBe(topic);
    Template.fromStack(given).resourceCountIs('AWS::SNS::Topic', 1);
  });
});

describe('alarms', () => {
  const topicRef = { Ref: logicalId(pipeline.alarmTopic as sns.Topic) };
  const alarmProps = (alarm: { node: { defaultChild?: unknown } }) =>
    template.findResources('AWS::CloudWatch::Alarm')[logicalId(alarm)]?.Properties as Record<string, unknown>;

  it('all notify the alarm topic when they fire and when they clear', () => {
    const alarms = listAlarms(pipeline.alarms);
    // One parked per queue (6), 3 queue ages (not the ordered queue's, whose keys wait behind a
    // failing event by design, nor the archive queue's, gathered a minute by design), failure
    // rate, drops, errors and throttles of 4 functions, 4 of the backlogs, the archive's missed
    // copies, API 5xx, table throttles, failed endpoint validations, client certificates near
    // their end (none of the declared resources' provider: this pipeline declares nothing).
    expect(Object.keys(QUEUES)).toHaveLength(6);
    expect(alarms).toHaveLength(6 + 3 + 1 + 1 + 4 + 4 + 4 + 1 + 4);
    expect(Object.keys(template.findResources('AWS::CloudWatch::Alarm'))).toHaveLength(alarms.length);
    for (const alarm of alarms) {
      expect(alarmProps(alarm)).toMatchObject({ AlarmActions: [topicRef], OKActions: [topicRef] });
    }
    expect(pipeline.parkedAlarms).toBe(pipeline.alarms.parked);
  });

  it.each([
    ['delivery', ALARM_THRESHOLDS.deliveryQueueAgeSeconds],
    ['retry', ALARM_THRESHOLDS.retryQueueAgeSeconds],
    ['backlog', ALARM_THRESHOLDS.backlogQueueAgeSeconds],
  ] as const)(
    'fire when the oldest message of the %s queue is older than %i s for 10 minutes',
    (key, seconds) => {
      expect(alarmProps(pipeline.alarms.oldestMessageAge[key])).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(pipeline.queues[key]), 'QueueName'] } },
        ],
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
        Threshold: seconds,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
    },
  );

  const gridwireMetric = (name: string) => ({
    Namespace: METRICS_NAMESPACE,
    MetricName: name,
    Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
  });

  it(`fire when more than ${ALARM_THRESHOLDS.deliveryFailureRatePercent}% of delivery attempts fail for 15 minutes`, () => {
    expect(alarmProps(pipeline.alarms.deliveryFailureRate)).toMatchObject({
      Threshold: ALARM_THRESHOLDS.deliveryFailureRatePercent,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
      Metrics: [
        {
          Expression: '100 * FILL(failed, 0) / (FILL(failed, 0) + FILL(delivered, 0))',
          ReturnData: true,
        },
        {
          Id: 'failed',
          MetricStat: { Metric: gridwireMetric(METRIC.DeliveryAttemptFailCount), Period: 300, Stat: 'Sum' },
          ReturnData: false,
        },
        {
          Id: 'delivered',
          MetricStat: { Metric: gridwireMetric(METRIC.DeliverySuccessCount), Period: 300, Stat: 'Sum' },
          ReturnData: false,
        },
      ],
    });
  });

  it('fire on any dropped event', () => {
    expect(alarmProps(pipeline.alarms.droppedEvents)).toMatchObject({
      ...gridwireMetric(METRIC.DroppedEventCount),
      Statistic: 'Sum',
      Period: 300,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
  });

  it('fire when the oldest backlogged event was published 6 hours ago or more, or at the hours set', () => {
    const expected = (hours: number) => ({
      ...gridwireMetric(METRIC.BacklogOldestEventAgeSeconds),
      Statistic: 'Maximum',
      Period: 300,
      Threshold: hours * 3600,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(ALARM_THRESHOLDS.backlogAgeHours).toBe(6);
    expect(alarmProps(pipeline.alarms.backlogOldestAge)).toMatchObject(expected(6));
    const custom = build({ backlogAgeAlarmHours: 24 });
    const customProps =
      custom.template.findResources('AWS::CloudWatch::Alarm')[
        custom.stack.getLogicalId(custom.stack.pipeline.alarms.backlogOldestAge.node.defaultChild as never)
      ]?.Properties;
    expect(customProps).toMatchObject(expected(24));
  });

  it('fire when the backlogs hold a million events or more, or the number set', () => {
    const expected = (events: number) => ({
      ...gridwireMetric(METRIC.BacklogHeldEvents),
      Statistic: 'Maximum',
      Period: 300,
      Threshold: events,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(ALARM_THRESHOLDS.backlogHeldEvents).toBe(1_000_000);
    expect(alarmProps(pipeline.alarms.backlogSize)).toMatchObject(expected(1_000_000));
    const custom = build({ backlogSizeAlarmEvents: 5000 });
    const customProps =
      custom.template.findResources('AWS::CloudWatch::Alarm')[
        custom.stack.getLogicalId(custom.stack.pipeline.alarms.backlogSize.node.defaultChild as never)
      ]?.Properties;
    expect(customProps).toMatchObject(expected(5000));
  });

  it('fire on any late backlog wake armed again', () => {
    expect(alarmProps(pipeline.alarms.backlogWakeLate)).toMatchObject({
      ...gridwireMetric(METRIC.BacklogWakeLateCount),
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it.each(Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[])(
    'fire on any error or throttle of the %s function',
    (key) => {
      const functionRef = { Ref: logicalId(pipeline[`${key}Function` as const]) };
      for (const [alarm, metricName] of [
        [pipeline.alarms.functionErrors[key], 'Errors'],
        [pipeline.alarms.functionThrottles[key], 'Throttles'],
      ] as const) {
        expect(alarmProps(alarm)).toMatchObject({
          Namespace: 'AWS/Lambda',
          MetricName: metricName,
          Dimensions: [{ Name: 'FunctionName', Value: functionRef }],
          Statistic: 'Sum',
          Period: 300,
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
        });
      }
    },
  );

  it('describe what to do first', () => {
    expect(alarmProps(pipeline.alarms.parked.retry).AlarmDescription).toMatch(
      'gridwire parked list --stack Ops --queue retry',
    );
    for (const alarm of listAlarms(pipeline.alarms)) {
      expect(String(alarmProps(alarm).AlarmDescription)).toMatch(/^Gridwire \(Ops\): /);
    }
  });
});

describe('dashboard', () => {
  const body = () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    // The body is a Fn::Join of text and references; the text is what the widgets say.
    return JSON.stringify(dashboard?.Properties.DashboardBody);
  };

  it('is one dashboard', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(pipeline.dashboard).toBeDefined();
  });

  it.each([
    METRIC.PublishSuccessCount,
    METRIC.PublishFailCount,
    METRIC.PublishSuccessLatencyInMs,
    METRIC.DeliverySuccessCount,
    METRIC.DeliveryAttemptFailCount,
    METRIC.DestinationProcessingDurationInMs,
    METRIC.DeliveryHeldCount,
    METRIC.ProbationEnteredCount,
    METRIC.ReplayedEventCount,
    METRIC.BacklogHeldEvents,
    METRIC.BacklogOldestEventAgeSeconds,
    METRIC.BacklogWakeLateCount,
    METRIC.OldestOverdueSeconds,
  ])('graphs the stack-wide %s series (namespace and service dimension the functions emit)', (name) => {
    expect(body()).toContain(`[\\"${METRICS_NAMESPACE}\\",\\"${name}\\",\\"service\\",\\"${SERVICE_NAME}\\"`);
  });

  it.each([
    [METRIC.PublishFailCount, 'ErrorType,Error'],
    [METRIC.DeliveryAttemptFailCount, 'Error,ErrorType'],
    [METRIC.DeadLetteredCount, 'DeadLetterReason'],
    [METRIC.DroppedEventCount, 'DropReason'],
  ])('breaks %s down by %s', (name, dimensions) => {
    expect(body()).toContain(
      `SEARCH('{${METRICS_NAMESPACE},service,${dimensions}} MetricName=\\\\\\"${name}\\\\\\" service=\\\\\\"${SERVICE_NAME}\\\\\\"', 'Sum', 300)`,
    );
  });

  it('graphs depth and oldest-message age of every queue and redrive queue, and errors and throttles of every function', () => {
    const text = body();
    expect(text.match(/ApproximateNumberOfMessagesVisible/g)).toHaveLength(Object.keys(QUEUES).length * 2);
    expect(text.match(/ApproximateAgeOfOldestMessage/g)).toHaveLength(Object.keys(QUEUES).length * 2);
    expect(text.match(/\\"AWS\/Lambda\\",\\"Errors\\"/g)).toHaveLength(Object.keys(FUNCTIONS).length);
    expect(text.match(/\\"AWS\/Lambda\\",\\"Throttles\\"/g)).toHaveLength(Object.keys(FUNCTIONS).length);
  });
});

describe('topic key secret', () => {
  it('is readable by, and named to, the functions that read topics (management, publish, and dead-letter for its notices) only', () => {
    const secretId = logicalId(pipeline.topicKeySecret);
    for (const key of ['management', 'publish', 'deadLetter'] as const) {
      expect(actionsOn(key, secretId)).toContain('secretsmanager:GetSecretValue');
    }
    expect(actionsOn('delivery', secretId)).toEqual([]);
    const variables = (key: keyof typeof FUNCTIONS) =>
      Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Description: FUNCTIONS[key].description },
        }),
      )[0]?.Properties.Environment.Variables as Record<string, unknown>;
    for (const key of ['management', 'publish', 'deadLetter'] as const) {
      expect(variables(key)[ENV.topicKeySecretArn]).toEqual({ Ref: secretId });
    }
    expect(variables('delivery')).not.toHaveProperty(ENV.topicKeySecretArn);
  });
});

/**
 * Alarms that reach people, and the routes operators need under load:
 * - the alarm topic's policy allows CloudWatch to publish (for this account's alarms only) beside
 *   the TLS Deny, and its key lets CloudWatch use it under the same condition: a topic policy
 *   replaces SNS's default one, so a Deny alone left every alarm unable to notify;
 * - `alarmEmail` subscribes addresses, checked at synth; the topic's ARN is a fixed output;
 * - alarms on API 5xx, table throttling, failed endpoint validations, backlog wakes the sweep
 *   could not bring back, and the declared resources' provider framework;
 * - admin routes and the validation URL have route-level throttles of their own.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sns from 'aws-cdk-lib/aws-sns';
import { ALARM_THRESHOLDS } from '../../infra/alarm-definitions';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import type { DeliveryPipelineProps } from '../../infra/delivery-pipeline-props';
import { GridwireStack } from '../../infra/gridwire-stack';
import { listAlarms } from '../../infra/monitoring';
import { routeSettingsOf } from '../../infra/pipeline/api';
import {
  ADMIN_ROUTE_THROTTLE,
  PUBLIC_FILE_ROUTE_THROTTLE,
  SESSION_ROUTE_THROTTLE,
  VALIDATION_ROUTE_THROTTLE,
} from '../../infra/pipeline/capacity';
import { TABLE } from '../../shared/config/resources';
import { ROUTES } from '../../shared/config/routes';
import { WAKE_LATE_MS } from '../../shared/delivery/backlog/sweep';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '../../shared/observability/metrics';
import { BACKLOG_SWEEP_EVERY_MINUTES } from '../../shared/queue/backlog-sweep';
import { RULE_PACKS, unacknowledged } from '../support/compliance';

// Skip asset bundling: these tests are about the template.
const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

const build = (props: DeliveryPipelineProps = {}) => {
  const app = newApp();
  const stack = new GridwireStack(app, 'Alarms', { pipeline: props });
  return { app, stack, pipeline: stack.pipeline, template: Template.fromStack(stack) };
};

const { stack, pipeline, template } = build({ alarmEmail: 'oncall@example.com' });
const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);
const topicRef = { Ref: logicalId(pipeline.alarmTopic as sns.Topic) };
const alarmProps = (alarm: cloudwatch.Alarm, of: Template = template, inStack: Stack = stack) =>
  of.findResources('AWS::CloudWatch::Alarm')[inStack.getLogicalId(alarm.node.defaultChild as never)]
    ?.Properties as Record<string, unknown>;

/** `arn:<partition>:cloudwatch:<region>:<account>:alarm:*`, as the template writes it. */
const ownAlarmArns = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':cloudwatch:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ':alarm:*',
    ],
  ],
};
const fromOwnAlarms = {
  StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
  ArnLike: { 'aws:SourceArn': ownAlarmArns },
};

describe('the alarm topic', () => {
  const [policy] = Object.values(template.findResources('AWS::SNS::TopicPolicy')) as Array<{
    Properties: { Topics: unknown[]; PolicyDocument: { Statement: Array<Record<string, unknown>> } };
  }>;

  it('lets CloudWatch publish, for this account’s alarms only', () => {
    expect(policy?.Properties.Topics).toEqual([topicRef]);
    expect(policy?.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: topicRef,
        Condition: fromOwnAlarms,
      }),
    );
  });

  it('still refuses every request not made over TLS', () => {
    expect(policy?.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('is encrypted with a key CloudWatch may use for this account’s alarms only', () => {
    const keys = Object.values(template.findResources('AWS::KMS::Key')) as Array<{
      Properties: { KeyPolicy: { Statement: Array<Record<string, unknown>> } };
    }>;
    const toCloudWatch = keys.flatMap((key) =>
      key.Properties.KeyPolicy.Statement.filter(
        (statement) => JSON.stringify(statement.Principal) === '{"Service":"cloudwatch.amazonaws.com"}',
      ),
    );
    expect(toCloudWatch).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Condition: fromOwnAlarms,
      }),
    ]);
  });

  it('has its ARN as a stack output of a fixed name, after the pipeline’s prefix', () => {
    template.hasOutput('AlarmTopicArn', { Value: topicRef });
    const given = newApp();
    const prefixed = new Stack(given, 'Prefixed');
    const topic = new sns.Topic(prefixed, 'Operators');
    new DeliveryPipeline(prefixed, 'Second', { outputPrefix: 'Orders', alarmTopic: topic });
    Template.fromStack(prefixed).hasOutput('OrdersAlarmTopicArn', {
      Value: { Ref: prefixed.getLogicalId(topic.node.defaultChild as never) },
    });
  });
});

describe('alarmEmail', () => {
  it('subscribes the address to the alarm topic by email', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: topicRef,
    });
  });

  it('subscribes each of several addresses, to the topic given when there is one', () => {
    const app = newApp();
    const given = new Stack(app, 'Given');
    const topic = new sns.Topic(given, 'Operators');
    new DeliveryPipeline(given, 'Pipeline', {
      alarmTopic: topic,
      alarmEmail: ['oncall@example.com', 'platform@example.org'],
    });
    const subscriptions = Template.fromStack(given).findResources('AWS::SNS::Subscription');
    expect(
      Object.values(subscriptions).map((s) => [
        s.Properties.Protocol,
        s.Properties.Endpoint,
        s.Properties.TopicArn,
      ]),
    ).toEqual([
      ['email', 'oncall@example.com', { Ref: given.getLogicalId(topic.node.defaultChild as never) }],
      ['email', 'platform@example.org', { Ref: given.getLogicalId(topic.node.defaultChild as never) }],
    ]);
  });

  it('subscribes nobody when not given', () => {
    build().template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it.each([
    ['oncall', /alarmEmail must be email addresses such as oncall@example.com \(got "oncall"\)/],
    ['on call@example.com', /alarmEmail must be email addresses .*\(got "on call@example.com"\)/],
    [['ok@example.com', 'oncall@'], /alarmEmail must be email addresses .*\(got "oncall@"\)/],
    [['ok@example.com', 'ok@example.com'], /alarmEmail names ok@example.com more than once/],
  ])('refuses %j at synth time, naming the prop', (alarmEmail, message) => {
    expect(() => new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Pipeline', { alarmEmail })).toThrow(
      message,
    );
  });
});

describe('alarms', () => {
  it('include the new ones in every alarm of the pipeline, each notifying the topic', () => {
    const alarms = listAlarms(pipeline.alarms);
    for (const alarm of [
      pipeline.alarms.apiServerErrors,
      pipeline.alarms.tableThrottles,
      pipeline.alarms.endpointValidationFailed,
      pipeline.alarms.clientCertificateExpiring,
      pipeline.alarms.oldestOverdue,
    ]) {
      expect(alarms).toContain(alarm);
      expect(alarmProps(alarm)).toMatchObject({ AlarmActions: [topicRef], OKActions: [topicRef] });
    }
  });

  it(`fire when more than ${ALARM_THRESHOLDS.apiServerErrorRatePercent}% of API requests (at least ${ALARM_THRESHOLDS.apiServerErrorsMinimum}) are answered 5xx for 10 minutes`, () => {
    const apiId = { Ref: logicalId(pipeline.api as HttpApi) };
    const apiMetric = (name: string) => ({
      Metric: {
        Namespace: 'AWS/ApiGateway',
        MetricName: name,
        Dimensions: [{ Name: 'ApiId', Value: apiId }],
      },
      Period: 300,
      Stat: 'Sum',
    });
    expect(alarmProps(pipeline.alarms.apiServerErrors)).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
      Metrics: [
        { Expression: 'IF(FILL(errors, 0) >= 5, 100 * FILL(errors, 0) / requests, 0)', ReturnData: true },
        { Id: 'errors', MetricStat: apiMetric('5xx'), ReturnData: false },
        { Id: 'requests', MetricStat: apiMetric('Count'), ReturnData: false },
      ],
    });
  });

  it('fire when the table or its index throttles reads or writes for 10 minutes', () => {
    const tableName = { Ref: logicalId(pipeline.table) };
    const throttles = (id: string, name: string, index?: string) => ({
      Id: id,
      MetricStat: {
        Metric: {
          Namespace: 'AWS/DynamoDB',
          MetricName: name,
          Dimensions: [
            ...(index === undefined ? [] : [{ Name: 'GlobalSecondaryIndexName', Value: index }]),
            { Name: 'TableName', Value: tableName },
          ],
        },
        Period: 300,
        Stat: 'Sum',
      },
      ReturnData: false,
    });
    expect(alarmProps(pipeline.alarms.tableThrottles)).toMatchObject({
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
      Metrics: [
        {
          Expression: 'FILL(reads, 0) + FILL(writes, 0) + FILL(indexReads, 0) + FILL(indexWrites, 0)',
          ReturnData: true,
        },
        throttles('reads', 'ReadThrottleEvents'),
        throttles('writes', 'WriteThrottleEvents'),
        throttles('indexReads', 'ReadThrottleEvents', TABLE.topicsIndex.name),
        throttles('indexWrites', 'WriteThrottleEvents', TABLE.topicsIndex.name),
      ],
    });
  });

  it('fire when an endpoint refuses the validation handshake or does not answer it', () => {
    expect(alarmProps(pipeline.alarms.endpointValidationFailed)).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.EndpointValidationFailCount,
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it("fire when a subscription's client certificate has 30 days left or fewer", () => {
    expect(alarmProps(pipeline.alarms.clientCertificateExpiring)).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.ClientCertificateDaysLeft,
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
      Statistic: 'Minimum',
      Period: 3600,
      Threshold: 30,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      // Written only with a near certificate's deliveries: no data is no certificate near its end.
      TreatMissingData: 'notBreaching',
    });
  });

  describe('the oldest overdue backlog wake', () => {
    const { oldestOverdueSeconds: threshold, oldestOverduePeriods: periods } = ALARM_THRESHOLDS;

    it('fires when a wake has been overdue more than 10 minutes at two sweeps running (one-minute periods)', () => {
      expect([threshold, periods]).toEqual([600, 2]);
      expect(alarmProps(pipeline.alarms.oldestOverdue)).toMatchObject({
        Namespace: METRICS_NAMESPACE,
        MetricName: METRIC.OldestOverdueSeconds,
        Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
        Statistic: 'Maximum',
        Period: 60,
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: periods,
        DatapointsToAlarm: periods,
        TreatMissingData: 'notBreaching',
        AlarmActions: [topicRef],
        OKActions: [topicRef],
      });
    });

    it('stays quiet while the sweep’s re-arm works, and fires before a second lost re-arm is armed again', () => {
      const sweepMs = BACKLOG_SWEEP_EVERY_MINUTES * 60_000;
      // A lost wake is armed again at the first sweep after it is WAKE_LATE_MS late, and its new
      // tick is taken within seconds: it reads at most about WAKE_LATE_MS + one sweep, never twice
      // running above the threshold.
      expect(threshold * 1000).toBeGreaterThanOrEqual(WAKE_LATE_MS + 2 * sweepMs);
      // The tick of that re-arm lost too: the wake passes the threshold before the sweep's next
      // re-arm could have brought it back.
      expect(threshold * 1000).toBeLessThanOrEqual(2 * WAKE_LATE_MS);
    });

    it('says what failed and where to look', () => {
      const description = String(alarmProps(pipeline.alarms.oldestOverdue).AlarmDescription);
      expect(description).toMatch(
        /^Gridwire \(Alarms\): a backlog's wake has been overdue more than 10 minutes/,
      );
      for (const line of ['backlog wake was late', 'could not arm a backlog wake', 'gridwire health']) {
        expect(description).toContain(line);
      }
    });
  });

  describe('alarms on the declared resources’ provider', () => {
    it('are none while the pipeline declares nothing (there is no provider)', () => {
      expect(pipeline.alarms.declaredResourcesErrors).toEqual({});
    });

    const app = newApp();
    const declaring = new Stack(app, 'Declaring');
    const withDeclarations = new DeliveryPipeline(declaring, 'Pipeline');
    withDeclarations.addTopic('orders');
    withDeclarations.addTopic('audit');
    const declaredTemplate = Template.fromStack(declaring);
    const frameworkFunction = (entrypoint: string) => {
      const found = declaredTemplate.findResources('AWS::Lambda::Function', {
        Properties: { Handler: `framework.${entrypoint}` },
      });
      const ids = Object.keys(found);
      expect(ids).toHaveLength(1);
      return ids[0] as string;
    };

    it.each([
      ['onEvent', 'CloudFormation may not have been answered'],
      ['onTimeout', 'could not be reported failed'],
    ] as const)('fire on any error of the framework’s %s function', (key, meaning) => {
      const alarm = withDeclarations.alarms.declaredResourcesErrors[key] as cloudwatch.Alarm;
      expect(alarm).toBeDefined();
      expect(listAlarms(withDeclarations.alarms)).toContain(alarm);
      const topic = { Ref: declaring.getLogicalId(withDeclarations.alarmTopic.node.defaultChild as never) };
      const props = alarmProps(alarm, declaredTemplate, declaring);
      expect(props).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: frameworkFunction(key) } }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        AlarmActions: [topic],
        OKActions: [topic],
      });
      expect(props.AlarmDescription).toContain(meaning);
    });

    it('leave out isComplete, whose errors are the framework’s own “not yet” on every poll', () => {
      const watched = Object.values(declaredTemplate.findResources('AWS::CloudWatch::Alarm')).map((alarm) =>
        JSON.stringify(alarm.Properties.Dimensions ?? []),
      );
      expect(watched.some((dimensions) => dimensions.includes(frameworkFunction('isComplete')))).toBe(false);
      expect(Object.keys(withDeclarations.alarms.declaredResourcesErrors).sort()).toEqual([
        'onEvent',
        'onTimeout',
      ]);
    });

    it.each(RULE_PACKS)('leave the %s rule pack nothing unacknowledged', (_name, pack) => {
      expect(unacknowledged(pack, app)).toEqual([]);
    });
  });

  describe('route-level throttles', () => {
    type Stage = { Properties: Record<string, unknown>; DependsOn?: string[] };
    const stageOf = (of: Template): Stage => {
      const [stage] = Object.values(of.findResources('AWS::ApiGatewayV2::Stage')) as Stage[];
      return stage as Stage;
    };
    const routeIdsByKey = (of: Template) =>
      new Map(
        Object.entries(of.findResources('AWS::ApiGatewayV2::Route')).map(([id, route]) => [
          route.Properties.RouteKey as string,
          id,
        ]),
      );
    const adminKeys = ROUTES.filter((route) => route.auth === 'admin').map((r) => `${r.method} ${r.path}`);
    const validationKey = ROUTES.filter((route) => route.auth === 'validationCode').map(
      (r) => `${r.method} ${r.path}`,
    );
    const publishKeys = ROUTES.filter((route) => route.function === 'publish').map(
      (r) => `${r.method} ${r.path}`,
    );
    const sessionKeys = ROUTES.filter((route) => route.auth === 'session').map(
      (r) => `${r.method} ${r.path}`,
    );
    const publicKeys = ROUTES.filter((route) => route.auth === 'public').map((r) => `${r.method} ${r.path}`);
    const ownKeys = [...adminKeys, ...validationKey, ...sessionKeys, ...publicKeys];

    it('give every admin route, the validation URL, the console’s routes and the API description a throttle of their own, publishing the stage’s', () => {
      const settings = stageOf(template).Properties.RouteSettings as Record<string, unknown>;
      expect(adminKeys.length).toBeGreaterThan(40);
      expect(validationKey).toEqual(['GET /eventSubscriptions/validate']);
      expect(sessionKeys).toEqual(['ANY /console/api/{proxy+}']);
      expect(publicKeys.sort()).toEqual([
        'GET /console',
        'GET /console/{file+}',
        'GET /openapi.json',
        'GET /portal',
      ]);
      expect(Object.keys(settings).sort()).toEqual([...ownKeys].sort());
      for (const key of adminKeys) {
        expect(settings[key]).toEqual({
          ThrottlingRateLimit: ADMIN_ROUTE_THROTTLE.rateLimit,
          ThrottlingBurstLimit: ADMIN_ROUTE_THROTTLE.burstLimit,
        });
      }
      expect(settings['GET /eventSubscriptions/validate']).toEqual({
        ThrottlingRateLimit: VALIDATION_ROUTE_THROTTLE.rateLimit,
        ThrottlingBurstLimit: VALIDATION_ROUTE_THROTTLE.burstLimit,
      });
      expect(settings['ANY /console/api/{proxy+}']).toEqual({
        ThrottlingRateLimit: SESSION_ROUTE_THROTTLE.rateLimit,
        ThrottlingBurstLimit: SESSION_ROUTE_THROTTLE.burstLimit,
      });
      for (const key of publicKeys) {
        expect(settings[key]).toEqual({
          ThrottlingRateLimit: PUBLIC_FILE_ROUTE_THROTTLE.rateLimit,
          ThrottlingBurstLimit: PUBLIC_FILE_ROUTE_THROTTLE.burstLimit,
        });
      }
      for (const key of publishKeys) expect(settings[key]).toBeUndefined();
      expect(ADMIN_ROUTE_THROTTLE).toEqual({ rateLimit: 200, burstLimit: 100 });
      expect(VALIDATION_ROUTE_THROTTLE).toEqual({ rateLimit: 20, burstLimit: 50 });
      expect(SESSION_ROUTE_THROTTLE).toEqual(ADMIN_ROUTE_THROTTLE);
      expect(PUBLIC_FILE_ROUTE_THROTTLE).toEqual({ rateLimit: 50, burstLimit: 100 });
    });

    it('keep admin routes their own size when the stage is sized down for a small publish function', () => {
      const small = build({ throttle: { rateLimit: 10, burstLimit: 1 } }).template;
      const stage = stageOf(small);
      expect(stage.Properties.DefaultRouteSettings).toMatchObject({
        ThrottlingRateLimit: 10,
        ThrottlingBurstLimit: 1,
      });
      expect((stage.Properties.RouteSettings as Record<string, unknown>)['GET /admin/topics']).toEqual({
        ThrottlingRateLimit: 200,
        ThrottlingBurstLimit: 100,
      });
    });

    it('make the stage wait for the routes its settings name (CloudFormation refuses unknown route keys)', () => {
      const ids = routeIdsByKey(template);
      const dependsOn = stageOf(template).DependsOn ?? [];
      for (const key of ownKeys) expect(dependsOn).toContain(ids.get(key));
    });

    it.each(['functionUrl', 'both'] as const)(
      'name only routes the HTTP API serves with publishIngress %s',
      (publishIngress) => {
        const served = build({ publishIngress }).template;
        const ids = routeIdsByKey(served);
        const settings = stageOf(served).Properties.RouteSettings as Record<string, unknown>;
        for (const key of Object.keys(settings)) expect(ids.has(key)).toBe(true);
      },
    );

    it('are derived from the route table alone', () => {
      expect(Object.keys(routeSettingsOf(ROUTES))).toHaveLength(ownKeys.length);
      expect(
        routeSettingsOf([
          { method: 'POST', path: '/topics/{topic}/api/events', function: 'publish', auth: 'topicKey' },
        ]),
      ).toEqual({});
    });
  });

  it.each(RULE_PACKS)(
    'a pipeline with alarmEmail leaves the %s rule pack nothing unacknowledged',
    (_name, pack) => {
      const { app } = build({ alarmEmail: ['oncall@example.com'] });
      expect(unacknowledged(pack, app)).toEqual([]);
    },
  );

  it('the stage keeps its default throttle for the routes without their own', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: Match.anyValue() }),
    });
  });
});

/**
 * Sources of declared topics in the template: a queue of the deployer's consumed by the publish
 * function (partial batch failures, after its topic exists); a bus source's rule with its event
 * pattern, its target (the stack's queue) with EventBridge's retry policy and the source's
 * dead-letter queue, that queue's redrive to the same dead-letter queue, and its alarm; the
 * functions told of both sources; grants; nothing left unacknowledged by the compliance packs and
 * every deploy rule passed. A bus of another account is refused at synthesis.
 */
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { GridwireStack } from '../../infra/gridwire-stack';
import { Source } from '../../infra/sources';
import { ENV } from '../../shared/config/resources';
import { SOURCE_BATCH_SIZE, SOURCE_MAX_RECEIVES } from '../../shared/config/sources';
import { METRIC } from '../../shared/observability/metrics';
import { RULE_PACKS, unacknowledged } from '../support/compliance';
import { deployProblems, type TemplateJson } from '../support/deploy-rules';

const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };

const app = newApp();
const stack = new GridwireStack(app, 'Sources');
// A queue of the deployer's, as a careful one is: encrypted in transit only, with its own dead-letter queue.
const ordersDeadLetters = new Queue(stack, 'OrdersDeadLetters', { enforceSSL: true });
Validations.of(ordersDeadLetters).acknowledge({
  id: 'Serverless-SQSRedrivePolicy',
  reason: 'A dead-letter queue.',
});
const orders = new Queue(stack, 'OrdersIn', {
  enforceSSL: true,
  deadLetterQueue: { queue: ordersDeadLetters, maxReceiveCount: 3 },
});
const bus = new EventBus(stack, 'Bus');
const topic = stack.pipeline.addTopic('orders');
topic.addSource(Source.sqs(orders));
const uploads = stack.pipeline.addTopic('uploads', { inputSchema: 'CloudEventSchemaV1_0' });
uploads.addSource(
  Source.eventBridge(bus, {
    eventPattern: { source: ['aws.s3'], detailType: ['Object Created'] },
    name: 'uploads',
  }),
);
const template = Template.fromStack(stack);
const json = template.toJSON() as TemplateJson & { Resources: Record<string, Resource> };
const ofType = (type: string) => Object.entries(json.Resources).filter(([, r]) => r.Type === type);
const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as import('aws-cdk-lib').CfnElement);
const publishId = idOf(stack.pipeline.publishFunction);

describe('sources', () => {
  it('have the publish function consume each queue, reporting partial batch failures, after its topic exists', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, r]) => (r.Properties.FunctionName as { Ref?: string }).Ref === publishId,
    );
    expect(mappings).toHaveLength(2);
    for (const [, mapping] of mappings) {
      expect(mapping.Properties).toMatchObject({
        BatchSize: SOURCE_BATCH_SIZE,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(mapping.DependsOn?.some((id) => id.startsWith('PipelineTopic'))).toBe(true);
    }
    const ordersArn = { 'Fn::GetAtt': [idOf(orders), 'Arn'] };
    expect(mappings.map(([, r]) => r.Properties.EventSourceArn)).toContainEqual(ordersArn);
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('sqs:ReceiveMessage');
    expect(policies).toContain(idOf(orders));
  });

  it("make a bus source's rule, its queue target with EventBridge's retries and the dead-letter queue, and its alarm", () => {
    const [[, rule]] = ofType('AWS::Events::Rule').filter(
      ([, r]) => r.Properties.EventBusName !== undefined,
    ) as [[string, Resource]];
    expect(rule.Properties.EventPattern).toEqual({ source: ['aws.s3'], 'detail-type': ['Object Created'] });
    expect(rule.Properties.EventBusName).toEqual({ Ref: idOf(bus) });
    const [target] = rule.Properties.Targets as Record<string, unknown>[];
    expect(target).toMatchObject({
      RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
      DeadLetterConfig: { Arn: expect.anything() },
    });
    const queues = ofType('AWS::SQS::Queue').filter(([id]) => id.includes('Sources'));
    const [queueId, queue] = queues.find(([id]) => id.includes('Queue') && !id.includes('DeadLetters')) as [
      string,
      Resource,
    ];
    const [deadLettersId] = queues.find(([id]) => id.includes('DeadLetters')) as [string, Resource];
    expect(target?.Arn).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(target?.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [deadLettersId, 'Arn'] } });
    expect(queue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [deadLettersId, 'Arn'] },
      maxReceiveCount: SOURCE_MAX_RECEIVES,
    });
    // EventBridge may send to both queues, for this rule only.
    const queuePolicies = JSON.stringify(ofType('AWS::SQS::QueuePolicy'));
    expect(queuePolicies).toContain('events.amazonaws.com');
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, r]) => r.Properties);
    expect(alarms).toContainEqual(
      expect.objectContaining({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLettersId, 'QueueName'] } }],
      }),
    );
    expect(alarms).toContainEqual(expect.objectContaining({ MetricName: METRIC.SourceRefusedCount }));
  });

  it('tell the publish and management functions of every source', () => {
    for (const fn of [stack.pipeline.publishFunction, stack.pipeline.managementFunction]) {
      const variables = (
        (json.Resources[idOf(fn)] as Resource).Properties.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      const value = JSON.stringify(variables[ENV.sources]);
      expect(value).toContain('"topic\\":\\"orders\\"');
      expect(value).toContain('"format\\":\\"eventBridge\\"');
      expect(value).toContain('"name\\":\\"uploads\\"');
    }
  });

  it('leave the functions without the setting when there is no source', () => {
    const plain = new GridwireStack(newApp(), 'Plain');
    const variables = (
      Template.fromStack(plain).toJSON().Resources[
        plain.getLogicalId(
          plain.pipeline.publishFunction.node.defaultChild as import('aws-cdk-lib').CfnElement,
        )
      ].Properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(variables[ENV.sources]).toBeUndefined();
  });

  it.each(RULE_PACKS)('leave the %s rule pack nothing unacknowledged', (_name, pack) => {
    expect(unacknowledged(pack, app)).toEqual([]);
  });

  it('pass every deploy rule', () => {
    expect(deployProblems(json)).toEqual([]);
  });

  it('refuse a bus of another account, saying how to forward its events', () => {
    const here = new GridwireStack(newApp(), 'Here', {
      env: { account: '111111111111', region: 'eu-west-1' },
    });
    const theirs = EventBus.fromEventBusArn(
      here,
      'Theirs',
      'arn:aws:events:eu-west-1:222222222222:event-bus/partner',
    );
    expect(() =>
      here.pipeline
        .addTopic('partner')
        .addSource(Source.eventBridge(theirs, { eventPattern: { source: ['partner'] } })),
    ).toThrow(/the bus is in account 222222222222 and the stack in 111111111111.*Forward the events/);
  });
});

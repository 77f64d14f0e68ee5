/**
 * The `resourceDestinations` prop's pairs and the external id of declared destinations in the
 * synthesized template: a pair grants `sts:AssumeRole` on its role and nothing on its resource,
 * and reaches the management function as `<resource>|<role>`; patterns with `..` or empty
 * segments fail the synth; `Destination.sqs(queue, {role, externalId})` puts the external id in
 * the declared subscription's body.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role } from 'aws-cdk-lib/aws-iam';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import { Destination } from '../../infra/destinations';
import { ENV } from '../../shared/config/resources';

const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const QUEUES = 'arn:aws:sqs:eu-west-1:210987654321:billing-*';
const ROLE = 'arn:aws:iam::123456789012:role/gridwire-sender';

describe('a resourceDestinations pair', () => {
  const stack = new Stack(newApp(), 'Pairs');
  new DeliveryPipeline(stack, 'Events', {
    resourceDestinations: ['arn:aws:sns:eu-west-1:123456789012:alerts', { resource: QUEUES, role: ROLE }],
  });
  const template = Template.fromStack(stack);

  it('lets the delivery role assume its role and grants nothing on its resource', () => {
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain(`"Action":"sts:AssumeRole","Effect":"Allow","Resource":"${ROLE}"`);
    expect(policies).toContain(
      '"Action":"sns:Publish","Effect":"Allow","Resource":"arn:aws:sns:eu-west-1:123456789012:alerts"',
    );
    expect(policies).not.toContain('billing-*');
  });

  it("reaches the management function's list as <resource>|<role>", () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Array<{
      Properties: { Environment?: { Variables?: Record<string, string> } };
    }>;
    expect(functions.map((fn) => fn.Properties.Environment?.Variables?.[ENV.resourceDestinations])).toContain(
      `arn:aws:sns:eu-west-1:123456789012:alerts,${QUEUES}|${ROLE}`,
    );
  });

  it.each([
    [
      { resource: QUEUES, role: 'arn:aws:sqs:eu-west-1:123456789012:other' },
      'must pair a resource with the ARN of an IAM role',
    ],
    [{ resource: ROLE, role: ROLE }, 'must be the ARN of an SQS queue, SNS topic'],
    ['arn:aws:iam::123456789012:role/gridwire-x/../Admin', "must not have an empty, '.' or '..' segment"],
    ['arn:aws:iam::123456789012:role//gridwire-*', "must not have an empty, '.' or '..' segment"],
    ['arn:aws:sqs:eu-west-1:123456789012:a,b', "must not hold a ','"],
  ])('fails the synth when not granted as it reads (%#), naming the prop', (entry, message) => {
    expect(
      () => new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events', { resourceDestinations: [entry] }),
    ).toThrow(message);
    expect(
      () => new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events', { resourceDestinations: [entry] }),
    ).toThrow('resourceDestinations: ');
  });
});

describe('a declared destination with an external id', () => {
  it("carries it in the subscription's body beside the role", () => {
    const stack = new Stack(newApp(), 'ExternalId');
    const events = new DeliveryPipeline(stack, 'Events');
    const queue = Queue.fromQueueArn(stack, 'Billing', 'arn:aws:sqs:eu-west-1:210987654321:billing');
    const role = Role.fromRoleArn(stack, 'Sender', 'arn:aws:iam::210987654321:role/gridwire-sender');
    events.addTopic('orders').addSubscription('billing', {
      destination: Destination.sqs(queue, { role, externalId: 'gridwire-orders' }),
    });
    const subscriptions = Object.values(
      Template.fromStack(stack).findResources('Custom::GridwireSubscription'),
    );
    const body = JSON.parse(subscriptions[0]?.Properties.Body as string);
    expect(body.properties.destination.properties).toMatchObject({
      roleArn: 'arn:aws:iam::210987654321:role/gridwire-sender',
      externalId: 'gridwire-orders',
    });
  });

  it('is refused without a role, naming the option', () => {
    const stack = new Stack(newApp(), 'NoRole');
    const queue = Queue.fromQueueArn(stack, 'Billing', 'arn:aws:sqs:eu-west-1:210987654321:billing');
    expect(() => Destination.sqs(queue, { externalId: 'gridwire-orders' })).toThrow(
      'externalId: is sent when the role is assumed; give role too',
    );
  });
});

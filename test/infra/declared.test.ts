/**
 * Topics and subscriptions declared in code: custom resources the management function carries
 * out through one provider per pipeline, their bodies in the admin API's terms (no key in the
 * template), a subscription made after its topic, bad declarations refused at synthesis, and
 * nothing left unacknowledged by the compliance packs.
 */
import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Role } from 'aws-cdk-lib/aws-iam';
import { Stream, StreamEncryption } from 'aws-cdk-lib/aws-kinesis';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import { Destination } from '../../infra/destinations';
import { ENV } from '../../shared/config/resources';
import {
  ARCHIVE_RETENTION_IN_DAYS,
  DEDUPLICATION_WINDOW_IN_MINUTES,
  ORDERED_KEY_RULE,
} from '../../shared/domain/model';
import {
  parseNamespaceSubscriptionBody,
  parseNamespaceTopicBody,
} from '../../shared/management/namespace-schema';
import { parseSubscriptionBody } from '../../shared/management/subscription-schema';
import { parseTopicBody } from '../../shared/management/topic-schema';
import { RULE_PACKS, unacknowledged } from '../support/compliance';

const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };

function declared() {
  const app = newApp();
  const stack = new Stack(app, 'Declared');
  const pipeline = new DeliveryPipeline(stack, 'Events');
  const orders = pipeline.addTopic('orders');
  orders.addSubscription('billing', {
    endpointUrl: 'https://billing.example.com/hook',
    includedEventTypes: ['Order.Created'],
    maxDeliveryAttempts: 10,
  });
  pipeline.addTopic('audit', { inputSchema: 'CloudEventSchemaV1_0', tags: { team: 'a' } });
  return { app, stack, pipeline, template: Template.fromStack(stack) };
}

const resources = (template: Template, type: string): Array<[string, Resource]> =>
  Object.entries(template.findResources(type)) as Array<[string, Resource]>;

describe('declared topics and subscriptions', () => {
  const { app, pipeline, template } = declared();

  it('are custom resources carrying the admin API body, with no key in the template', () => {
    const topics = resources(template, 'Custom::GridwireTopic');
    expect(topics.map(([, r]) => [r.Properties.Topic, JSON.parse(r.Properties.Body as string)])).toEqual([
      ['orders', { properties: { inputSchema: 'EventGridSchema' } }],
      ['audit', { tags: { team: 'a' }, properties: { inputSchema: 'CloudEventSchemaV1_0' } }],
    ]);
    // Bodies the API takes, tags and all.
    expect(topics.map(([, r]) => parseTopicBody(JSON.parse(r.Properties.Body as string)).tags)).toEqual([
      {},
      { team: 'a' },
    ]);
    const [[, subscription] = []] = resources(template, 'Custom::GridwireSubscription');
    expect(subscription?.Properties).toMatchObject({
      Kind: 'Subscription',
      Topic: 'orders',
      Subscription: 'billing',
      Validation: 'async',
    });
    expect(subscription?.Properties.ValidationWaitSeconds).toBeUndefined();
    expect(JSON.parse(subscription?.Properties.Body as string)).toEqual({
      properties: {
        destination: {
          endpointType: 'WebHook',
          properties: { endpointUrl: 'https://billing.example.com/hook' },
        },
        filter: { includedEventTypes: ['Order.Created'] },
        retryPolicy: { maxDeliveryAttempts: 10 },
      },
    });
    expect(JSON.stringify(template.toJSON())).not.toMatch(/key1|key2/);
  });

  it('are made after their topic and the management function, by one provider for the pipeline', () => {
    const [[topicId] = []] = resources(template, 'Custom::GridwireTopic');
    const [[, subscription] = []] = resources(template, 'Custom::GridwireSubscription');
    expect(subscription?.DependsOn).toEqual(expect.arrayContaining([topicId]));
    const management = Stack.of(pipeline).resolve(pipeline.managementFunction.functionArn) as {
      'Fn::GetAtt': [string, string];
    };
    expect(subscription?.DependsOn).toEqual(expect.arrayContaining([management['Fn::GetAtt'][0]]));
    // The handshake runs in the delivery function, fed by the delivery queue's event source: both
    // exist before a subscription is put, so its endpoint is asked at once, even on a first deploy.
    const delivery = Stack.of(pipeline).resolve(pipeline.deliveryFunction.functionArn) as {
      'Fn::GetAtt': [string, string];
    };
    expect(subscription?.DependsOn).toEqual(expect.arrayContaining([delivery['Fn::GetAtt'][0]]));
    const mappings = resources(template, 'AWS::Lambda::EventSourceMapping')
      .filter(([, r]) => JSON.stringify(r.Properties.FunctionName).includes(delivery['Fn::GetAtt'][0]))
      .map(([id]) => id);
    expect(mappings.length).toBeGreaterThanOrEqual(3);
    expect(subscription?.DependsOn).toEqual(expect.arrayContaining(mappings));
    // One framework (its event, completion and timeout functions) for the pipeline, asking the
    // management function for both the requests and the completion checks.
    const frameworks = resources(template, 'AWS::Lambda::Function').filter(
      ([, r]) => r.Properties.Handler === 'framework.onEvent',
    );
    expect(frameworks).toHaveLength(1);
    const [[, framework] = []] = frameworks;
    const variables = (
      framework?.Properties.Environment as { Variables: Record<string, unknown> } | undefined
    )?.Variables;
    expect(variables).toBeDefined();
    expect(variables?.USER_ON_EVENT_FUNCTION_ARN).toEqual(
      Stack.of(pipeline).resolve(pipeline.managementFunction.functionArn),
    );
    expect(variables?.USER_IS_COMPLETE_FUNCTION_ARN).toEqual(variables?.USER_ON_EVENT_FUNCTION_ARN);
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 1);
  });

  it.each(RULE_PACKS)('leave the %s rule pack nothing unacknowledged', (_name, pack) => {
    expect(unacknowledged(pack, app)).toEqual([]);
  });

  it('refuse bad names and limits at synthesis, naming the field and the limit', () => {
    const pipeline = new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events');
    expect(() => pipeline.addTopic('no')).toThrow("The topic name 'no' is not valid");
    const topic = pipeline.addTopic('orders');
    expect(() =>
      topic.addSubscription('billing', { endpointUrl: 'https://x.example', maxDeliveryAttempts: 31 }),
    ).toThrow('maxDeliveryAttempts must be an integer from 1 to 30 (got 31).');
    expect(() =>
      topic.addSubscription('billing', { endpointUrl: 'https://x.example', validationWaitSeconds: 4000 }),
    ).toThrow("validationWaitSeconds applies only with validation: 'wait'");
    expect(() =>
      topic.addSubscription('billing', {
        endpointUrl: 'https://x.example',
        validation: 'wait',
        validationWaitSeconds: 4000,
      }),
    ).toThrow('validationWaitSeconds must be an integer from 0 to 3000 (got 4000).');
    expect(() =>
      topic.addSubscription('billing', {
        endpointUrl: 'https://x.example',
        validation: 'later' as unknown as 'wait',
      }),
    ).toThrow("validation must be 'async' or 'wait' (got later).");
  });

  it("wait for the endpoint when validation is 'wait', 120 s unless told otherwise", () => {
    const pipeline = new DeliveryPipeline(new Stack(newApp(), 'Waits'), 'Events');
    const topic = pipeline.addTopic('orders');
    topic.addSubscription('billing', { endpointUrl: 'https://x.example', validation: 'wait' });
    topic.addSubscription('audit', {
      endpointUrl: 'https://x.example',
      validation: 'wait',
      validationWaitSeconds: 600,
    });
    const waits = resources(Template.fromStack(Stack.of(pipeline)), 'Custom::GridwireSubscription').map(
      ([, r]) => [r.Properties.Subscription, r.Properties.Validation, r.Properties.ValidationWaitSeconds],
    );
    expect(waits).toEqual([
      ['billing', 'wait', '120'],
      ['audit', 'wait', '600'],
    ]);
  });
});

/** The IAM policies of the stack. */
const template = (stack: Stack) => Template.fromStack(stack).findResources('AWS::IAM::Policy');

describe('declared subscriptions with the settings beyond the original', () => {
  const native = {
    endpointUrl: 'https://billing.example.com/hook',
    maxDeliveriesPerSecond: 50,
    signing: true,
    retrySchedule: [Duration.seconds(10), Duration.minutes(1), Duration.hours(1)],
    disableAfterFailingFor: Duration.days(2),
    deliveryLog: 'All' as const,
  };

  const bodyOf = (template: Template, type: string) => {
    const [[, resource] = []] = resources(template, type);
    return JSON.parse(resource?.Properties.Body as string);
  };

  it('put the rate limit, a generated signing secret, the own schedule, the disable-after time and the log in the body, no secret in the template', () => {
    const stack = new Stack(newApp(), 'Native');
    const pipeline = new DeliveryPipeline(stack, 'Events');
    pipeline.addTopic('orders').addSubscription('billing', native);
    pipeline
      .addNamespace('shop')
      .addTopic('carts')
      .addSubscription('analytics', { ...native, signing: 'v1a', disableAfterFailingFor: 'never' });
    const template = Template.fromStack(stack);

    const destination = {
      endpointType: 'WebHook',
      properties: {
        endpointUrl: 'https://billing.example.com/hook',
        maxDeliveriesPerSecond: 50,
        signing: { generate: true },
      },
    };
    expect(bodyOf(template, 'Custom::GridwireSubscription')).toEqual({
      properties: {
        destination,
        retryPolicy: { retrySchedule: ['PT10S', 'PT1M', 'PT1H'] },
        disableAfterFailingFor: 'P2D',
        deliveryLog: 'All',
      },
    });
    expect(bodyOf(template, 'Custom::GridwireNamespaceSubscription')).toEqual({
      properties: {
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            destination: {
              ...destination,
              properties: { ...destination.properties, signing: { generate: true, scheme: 'v1a' } },
            },
            retrySchedule: ['PT10S', 'PT1M', 'PT1H'],
          },
        },
        disableAfterFailingFor: null,
        deliveryLog: 'All',
      },
    });
    expect(JSON.stringify(template.toJSON())).not.toContain('whsec_');
  });

  it("take a client certificate's key from Secrets Manager, granting the management function to read it, never in the body", () => {
    const stack = new Stack(newApp(), 'Tls');
    const pipeline = new DeliveryPipeline(stack, 'Events');
    const clientKey = new Secret(stack, 'ClientKey');
    const certificate = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    pipeline.addTopic('orders').addSubscription('partner', {
      endpointUrl: 'https://partner.example.com/hook',
      tls: { clientCertificate: certificate, clientKey, caCertificates: certificate, trustPublicCas: false },
    });
    const template = Template.fromStack(stack);
    const partner = resources(template, 'Custom::GridwireSubscription').map(([, r]) => r)[0] as {
      Properties: Record<string, unknown>;
    };
    expect(JSON.parse(partner.Properties.Body as string).properties.destination.properties.tls).toEqual({
      clientCertificate: certificate,
      caCertificates: certificate,
      trustPublicCas: false,
    });
    const keyId = stack.getLogicalId(clientKey.node.defaultChild as CfnElement);
    expect(partner.Properties.ClientKeySecretArn).toEqual({ Ref: keyId });
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain(keyId);
  });

  it("take an OAuth 2.0 client's secret from Secrets Manager, granting the management function to read it, never in the body", () => {
    const stack = new Stack(newApp(), 'Auth');
    const pipeline = new DeliveryPipeline(stack, 'Events');
    const clientSecret = new Secret(stack, 'ClientSecret');
    pipeline.addTopic('orders').addSubscription('billing', {
      endpointUrl: 'https://billing.example.com/hook',
      auth: {
        type: 'OAuth2ClientCredentials',
        tokenUrl: 'https://auth.example.com/token',
        clientId: 'gridwire',
        clientSecret,
        scope: 'hooks',
      },
    });
    pipeline.addTopic('audit').addSubscription('iam', {
      endpointUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/hook',
      auth: { type: 'AwsSigV4', service: 'execute-api' },
    });
    const template = Template.fromStack(stack);
    const subscriptions = resources(template, 'Custom::GridwireSubscription').map(([, r]) => r.Properties);
    const billing = subscriptions.find((properties) => properties.Subscription === 'billing');
    expect(JSON.parse(billing?.Body as string).properties.destination.properties.auth).toEqual({
      type: 'OAuth2ClientCredentials',
      tokenUrl: 'https://auth.example.com/token',
      clientId: 'gridwire',
      scope: 'hooks',
    });
    const secretId = stack.getLogicalId(clientSecret.node.defaultChild as CfnElement);
    expect(billing?.ClientSecretArn).toEqual({ Ref: secretId });
    const iam = subscriptions.find((properties) => properties.Subscription === 'iam');
    expect(JSON.parse(iam?.Body as string).properties.destination.properties.auth).toEqual({
      type: 'AwsSigV4',
      service: 'execute-api',
    });
    expect(iam?.ClientSecretArn).toBeUndefined();
    // The management function may read that secret.
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('secretsmanager:GetSecretValue');
    expect(policies).toContain(secretId);
  });

  it('let signed deliveries reach a function URL or API routes behind IAM, and nothing else', () => {
    const stack = new Stack(newApp(), 'Signed');
    const pipeline = new DeliveryPipeline(stack, 'Events');
    const target = new LambdaFunction(stack, 'Target', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({})'),
    });
    pipeline.allowSignedDeliveriesTo(target);
    pipeline.allowSignedDeliveriesTo('arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/POST/hooks');
    const statements = Object.values(template(stack)).flatMap(
      (policy) =>
        (policy as { Properties: { PolicyDocument: { Statement: Array<Record<string, unknown>> } } })
          .Properties.PolicyDocument.Statement,
    );
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: 'lambda:InvokeFunctionUrl',
          Condition: { StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' } },
        }),
        expect.objectContaining({
          Action: 'execute-api:Invoke',
          Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/POST/hooks',
        }),
      ]),
    );
  });

  it('refuse a limit, a schedule step or a disable-after time out of range at synthesis, naming the prop', () => {
    const topic = new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events').addTopic('orders');
    const url = 'https://x.example';
    expect(() => topic.addSubscription('aaa', { endpointUrl: url, maxDeliveriesPerSecond: 0 })).toThrow(
      'maxDeliveriesPerSecond must be an integer from 1 to 10000 (got 0).',
    );
    expect(() =>
      topic.addSubscription('bbb', {
        endpointUrl: url,
        retrySchedule: [Duration.seconds(10), Duration.seconds(5)],
      }),
    ).toThrow('retrySchedule[1] must be from PT10S to PT12H (got PT5S).');
    expect(() =>
      topic.addSubscription('ccc', { endpointUrl: url, disableAfterFailingFor: Duration.minutes(30) }),
    ).toThrow("disableAfterFailingFor must be from 1 hour to 30 days, or 'never' (got PT30M).");
  });
});

describe('labels of declared subscriptions', () => {
  const app = newApp();
  const stack = new Stack(app, 'Labelled');
  const pipeline = new DeliveryPipeline(stack, 'Events');
  pipeline.addTopic('orders').addSubscription('acme-orders', {
    endpointUrl: 'https://acme.example.com/hook',
    labels: ['tenant=acme'],
  });
  pipeline
    .addNamespace('shop')
    .addTopic('carts')
    .addSubscription('acme-carts', {
      endpointUrl: 'https://acme.example.com/carts',
      labels: ['tenant=acme'],
    });
  const template = Template.fromStack(stack);
  const bodyOf = (type: string) =>
    JSON.parse(((resources(template, type)[0] as [string, Resource])[1].Properties.Body as string) ?? '{}');

  it('are in the admin API body of classic and namespace subscriptions alike', () => {
    expect(bodyOf('Custom::GridwireSubscription').properties.labels).toEqual(['tenant=acme']);
    expect(bodyOf('Custom::GridwireNamespaceSubscription').properties.labels).toEqual(['tenant=acme']);
  });

  it('are refused at synthesis past their count or length, naming the prop and the limit', () => {
    const topic = new DeliveryPipeline(new Stack(newApp(), 'BadLabels'), 'Events').addTopic('orders');
    const url = 'https://x.example';
    const many = Array.from({ length: 21 }, (_, i) => `label-${i}`);
    expect(() => topic.addSubscription('aaa', { endpointUrl: url, labels: many })).toThrow(
      /^labels: at most 20 labels \(got /,
    );
    expect(() => topic.addSubscription('bbb', { endpointUrl: url, labels: ['ok', 'x'.repeat(129)] })).toThrow(
      /^labels\[1\]: a label is 1 to 128 characters/,
    );
  });
});

describe('ordered delivery of declared subscriptions', () => {
  const stack = new Stack(newApp(), 'Ordered');
  const pipeline = new DeliveryPipeline(stack, 'Events');
  const orders = pipeline.addTopic('orders');
  orders.addSubscription('billing', {
    endpointUrl: 'https://billing.example.com/hook',
    labels: ['tenant=acme'],
    orderedDelivery: { key: 'data.orderId' },
  });
  orders.addSubscription('audit', { endpointUrl: 'https://audit.example.com/hook' });
  pipeline
    .addNamespace('shop')
    .addTopic('carts')
    .addSubscription('analytics', {
      endpointUrl: 'https://analytics.example.com/hook',
      labels: ['tenant=acme'],
      orderedDelivery: { key: 'subject' },
    });
  const template = Template.fromStack(stack);
  const bodies = (type: string) =>
    Object.fromEntries(
      resources(template, type).map(([, r]) => [
        r.Properties.Subscription as string,
        JSON.parse(r.Properties.Body as string) as { properties: Record<string, unknown> },
      ]),
    );

  it("is carried in the body of classic and namespace subscriptions, beside labels, and the API's parser takes it", () => {
    const classic = bodies('Custom::GridwireSubscription');
    expect(classic.billing?.properties).toMatchObject({
      labels: ['tenant=acme'],
      orderedDelivery: { key: 'data.orderId' },
    });
    expect(classic.audit?.properties).not.toHaveProperty('orderedDelivery');
    expect(parseSubscriptionBody(classic.billing, { allowHttp: false }).orderedDelivery).toEqual({
      key: 'data.orderId',
    });
    expect(parseSubscriptionBody(classic.audit, { allowHttp: false })).not.toHaveProperty('orderedDelivery');

    const namespaced = bodies('Custom::GridwireNamespaceSubscription');
    expect(namespaced.analytics?.properties).toMatchObject({
      labels: ['tenant=acme'],
      orderedDelivery: { key: 'subject' },
    });
    expect(
      parseNamespaceSubscriptionBody(namespaced.analytics, {
        allowHttp: false,
        topic: { name: 'carts', eventRetentionInDays: 1 },
      }).orderedDelivery,
    ).toEqual({ key: 'subject' });
  });

  it('is refused at synthesis when its key breaks the rule, naming the prop and the rule', () => {
    const bad = new DeliveryPipeline(new Stack(newApp(), 'BadOrder'), 'Events');
    const topic = bad.addTopic('orders');
    const namespaced = bad.addNamespace('shop').addTopic('carts');
    const url = 'https://x.example';
    // A refused declaration keeps its construct's id: each try names another subscription.
    for (const [index, key] of [
      '',
      'data..orderId',
      'a.b.c.d.e.f.g.h.i',
      `data.${'x'.repeat(257)}`,
    ].entries()) {
      const message = `orderedDelivery.key must be ${ORDERED_KEY_RULE} (got ${JSON.stringify(key)}).`;
      expect(() =>
        topic.addSubscription(`billing-${index}`, { endpointUrl: url, orderedDelivery: { key } }),
      ).toThrow(message);
      expect(() =>
        namespaced.addSubscription(`analytics-${index}`, { endpointUrl: url, orderedDelivery: { key } }),
      ).toThrow(message);
    }
    expect(() =>
      topic.addSubscription('no-key', { endpointUrl: url, orderedDelivery: {} as { key: string } }),
    ).toThrow(`orderedDelivery.key must be ${ORDERED_KEY_RULE} (got undefined).`);
    expect(() =>
      topic.addSubscription('both', {
        endpointUrl: url,
        orderedDelivery: { key: 'subject' },
        properties: { orderedDelivery: { key: 'data.orderId' } },
      }),
    ).toThrow('orderedDelivery: give it or properties.orderedDelivery, not both.');
  });
});

describe('AWS resource destinations a pipeline allows', () => {
  const app = newApp();
  const stack = new Stack(app, 'Resources');
  const pipeline = new DeliveryPipeline(stack, 'Events', {
    resourceDestinations: [
      'arn:aws:sqs:eu-west-1:123456789012:orders-*',
      'arn:aws:sns:eu-west-1:123456789012:alerts',
    ],
  });
  const template = Template.fromStack(stack);
  const deliveryRole =
    (pipeline.deliveryFunction.role?.node.defaultChild as CfnElement | undefined) ?? undefined;

  it('let the delivery role send to exactly those resources, and tell every function the list', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
      Properties: {
        Roles: Array<{ Ref: string }>;
        PolicyDocument: { Statement: Array<Record<string, unknown>> };
      };
    }>;
    const roleId = stack.getLogicalId(deliveryRole as CfnElement);
    const statements = policies
      .filter((policy) => policy.Properties.Roles.some((role) => role.Ref === roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: ['sqs:SendMessage', 'sqs:GetQueueUrl'],
          Resource: 'arn:aws:sqs:eu-west-1:123456789012:orders-*',
        }),
        expect.objectContaining({
          Action: 'sns:Publish',
          Resource: 'arn:aws:sns:eu-west-1:123456789012:alerts',
        }),
      ]),
    );
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Array<{
      Properties: { Environment?: { Variables?: Record<string, string> } };
    }>;
    const lists = functions.map((fn) => fn.Properties.Environment?.Variables?.[ENV.resourceDestinations]);
    expect(lists).toContain(
      'arn:aws:sqs:eu-west-1:123456789012:orders-*,arn:aws:sns:eu-west-1:123456789012:alerts',
    );
  });

  it.each(RULE_PACKS)('leave the %s rule pack nothing unacknowledged', (_name, pack) => {
    expect(unacknowledged(pack, app)).toEqual([]);
  });

  it('declare a subscription to a queue made in the same app: allowed, granted, and nothing else', () => {
    const own = newApp();
    const ownStack = new Stack(own, 'Declared');
    const events = new DeliveryPipeline(ownStack, 'Events');
    const queue = new Queue(ownStack, 'Billing', { enforceSSL: true });
    events
      .addTopic('orders')
      .addSubscription('billing', { destination: Destination.sqs(queue), maxDeliveriesPerSecond: 100 });
    const declared = Template.fromStack(ownStack);
    const queueId = ownStack.getLogicalId(queue.node.defaultChild as CfnElement);
    const [[, subscription] = []] = resources(declared, 'Custom::GridwireSubscription');
    // The body names the queue's ARN (resolved by CloudFormation), its type and settings.
    expect(JSON.stringify(subscription?.Properties.Body)).toContain(queueId);
    expect(JSON.stringify(subscription?.Properties.Body)).toContain('AwsSqsQueue');
    expect(JSON.stringify(subscription?.Properties.Body)).toContain('maxDeliveriesPerSecond');
    const policies = JSON.stringify(declared.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('sqs:SendMessage');
    const functions = Object.values(declared.findResources('AWS::Lambda::Function')) as Array<{
      Properties: { Environment?: { Variables?: Record<string, unknown> } };
    }>;
    const allowLists = functions
      .map((fn) => fn.Properties.Environment?.Variables?.[ENV.resourceDestinations])
      .filter((value) => value !== undefined);
    // Only the management function checks the list, and its environment holds the prop's patterns
    // (none here): a declared destination is put in the table, before its subscription.
    expect(allowLists).toEqual(['']);
    const [[listId, list] = []] = resources(declared, 'Custom::GridwireDeclaredDestinations');
    expect(list?.Properties.Kind).toBe('DeclaredDestinations');
    expect(JSON.stringify(list?.Properties.Body)).toContain(queueId);
    expect(subscription?.DependsOn).toEqual(expect.arrayContaining([listId]));
    // The pipeline's own findings (the test's queues are the deployer's, not the pipeline's).
    for (const [, pack] of RULE_PACKS) {
      expect(unacknowledged(pack, own).filter((finding) => finding.includes(': Declared/Events/'))).toEqual(
        [],
      );
    }
    expect(() =>
      events
        .addTopic('audit')
        .addSubscription('both', { destination: Destination.sqs(queue), endpointUrl: 'https://x.example' }),
    ).toThrow(
      'A declared subscription needs endpointUrl (a webhook) or destination (an AWS resource), one of the two.',
    );
  });

  it('declare subscriptions to a topic, bus, function and stream: each its type, ARN and own grant', () => {
    const own = newApp();
    const ownStack = new Stack(own, 'Services');
    const events = new DeliveryPipeline(ownStack, 'Events');
    const topic = new Topic(ownStack, 'Alerts', { enforceSSL: true });
    const bus = new EventBus(ownStack, 'Bus');
    const fn = new LambdaFunction(ownStack, 'Handler', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => {};'),
    });
    const stream = new Stream(ownStack, 'Stream', { encryption: StreamEncryption.MANAGED });
    const orders = events.addTopic('orders');
    orders.addSubscription('to-topic', { destination: Destination.sns(topic) });
    orders.addSubscription('to-bus', { destination: Destination.eventBus(bus) });
    orders.addSubscription('to-fn', {
      destination: Destination.lambda(fn, { invocationType: 'RequestResponse' }),
    });
    orders.addSubscription('to-stream', {
      destination: Destination.kinesis(stream, { partitionKeyField: 'data.tenant' }),
    });
    const template = Template.fromStack(ownStack);
    /** The subscription's body as the template holds it (escaped JSON, with the ARN's token). */
    const destinationOf = (name: string) =>
      JSON.stringify(
        resources(template, 'Custom::GridwireSubscription').find(
          ([, r]) => r.Properties.Subscription === name,
        )?.[1].Properties.Body,
      ).replace(/\\"/g, '"');
    const idOf = (construct: { node: { defaultChild?: unknown } }) =>
      ownStack.getLogicalId(construct.node.defaultChild as CfnElement);
    expect(destinationOf('to-topic')).toContain('AwsSnsTopic');
    expect(destinationOf('to-topic')).toContain(idOf(topic));
    expect(destinationOf('to-bus')).toContain('AwsEventBridgeBus');
    expect(destinationOf('to-bus')).toContain(idOf(bus));
    expect(destinationOf('to-fn')).toContain('AwsLambdaFunction');
    expect(destinationOf('to-fn')).toContain('"invocationType":"RequestResponse"');
    expect(destinationOf('to-stream')).toContain('AwsKinesisStream');
    expect(destinationOf('to-stream')).toContain('"partitionKeyField":"data.tenant"');

    const deliveryRoleId = ownStack.getLogicalId(
      events.deliveryFunction.role?.node.defaultChild as CfnElement,
    );
    const statements = (
      Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
        Properties: {
          Roles: Array<{ Ref: string }>;
          PolicyDocument: { Statement: Array<Record<string, unknown>> };
        };
      }>
    )
      .filter((policy) => policy.Properties.Roles.some((role) => role.Ref === deliveryRoleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    const grantOn = (id: string) =>
      statements.filter((statement) => JSON.stringify(statement.Resource).includes(id)).map((s) => s.Action);
    expect(grantOn(idOf(topic))).toContainEqual('sns:Publish');
    expect(grantOn(idOf(bus))).toContainEqual('events:PutEvents');
    expect(grantOn(idOf(fn))).toContainEqual('lambda:InvokeFunction');
    expect(grantOn(idOf(stream)).flat()).toEqual(expect.arrayContaining(['kinesis:PutRecords']));
    for (const [, pack] of RULE_PACKS) {
      expect(unacknowledged(pack, own).filter((finding) => finding.includes(': Services/Events/'))).toEqual(
        [],
      );
    }
  });

  it('send to a resource of another account through its role: sts:AssumeRole on it, nothing on the resource', () => {
    const own = newApp();
    const ownStack = new Stack(own, 'CrossAccount');
    const events = new DeliveryPipeline(ownStack, 'Events');
    const queue = Queue.fromQueueArn(ownStack, 'Billing', 'arn:aws:sqs:eu-west-1:210987654321:billing');
    const role = Role.fromRoleArn(ownStack, 'Sender', 'arn:aws:iam::210987654321:role/gridwire-sender');
    events.addTopic('orders').addSubscription('billing', { destination: Destination.sqs(queue, { role }) });
    const template = Template.fromStack(ownStack);
    const [[, subscription] = []] = resources(template, 'Custom::GridwireSubscription');
    expect(subscription?.Properties.Body).toContain(
      '"roleArn":"arn:aws:iam::210987654321:role/gridwire-sender"',
    );
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain(
      '"Action":"sts:AssumeRole","Effect":"Allow","Resource":"arn:aws:iam::210987654321:role/gridwire-sender"',
    );
    expect(policies).not.toContain('arn:aws:sqs:eu-west-1:210987654321:billing');
    const [[, list] = []] = resources(template, 'Custom::GridwireDeclaredDestinations');
    expect(JSON.parse(list?.Properties.Body as string)).toEqual({
      // The resource paired with its role: allowed together, neither alone.
      resources: [
        'arn:aws:sqs:eu-west-1:210987654321:billing|arn:aws:iam::210987654321:role/gridwire-sender',
      ],
    });
  });

  it('let the delivery role assume the roles a resourceDestinations pattern names', () => {
    const stack = new Stack(newApp(), 'Roles');
    new DeliveryPipeline(stack, 'Events', {
      resourceDestinations: [
        'arn:aws:sqs:eu-west-1:210987654321:*',
        'arn:aws:iam::210987654321:role/gridwire-*',
      ],
    });
    const policies = JSON.stringify(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
    expect(policies).toContain(
      '"Action":"sts:AssumeRole","Effect":"Allow","Resource":"arn:aws:iam::210987654321:role/gridwire-*"',
    );
  });

  it('refuse a pattern of another service at synthesis, naming the prop', () => {
    expect(
      () => new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events', { resourceDestinations: ['*'] }),
    ).toThrow("resourceDestinations: '*' must be the ARN of an SQS queue, SNS topic, EventBridge bus");
  });
});

describe('de-duplication windows of declared topics', () => {
  const stack = new Stack(newApp(), 'Dedup');
  const pipeline = new DeliveryPipeline(stack, 'Events');
  pipeline.addTopic('orders', { deduplicationWindowInMinutes: 60 });
  pipeline.addTopic('audit', { inputSchema: 'CloudEventSchemaV1_0', deduplicationWindowInMinutes: 0 });
  pipeline.addTopic('plain');
  const shop = pipeline.addNamespace('shop');
  shop.addTopic('carts', { eventRetentionInDays: 2, deduplicationWindowInMinutes: 1440 });
  shop.addTopic('baskets', { deduplicationWindowInMinutes: 5 });
  const template = Template.fromStack(stack);
  const bodies = (type: string) =>
    Object.fromEntries(
      resources(template, type).map(([, r]) => [
        r.Properties.Topic as string,
        JSON.parse(r.Properties.Body as string) as Record<string, unknown>,
      ]),
    );

  it('are carried in the bodies of classic and namespace topics, in the form the API takes', () => {
    const classic = bodies('Custom::GridwireTopic');
    expect(classic).toEqual({
      orders: { properties: { inputSchema: 'EventGridSchema', deduplicationWindowInMinutes: 60 } },
      audit: { properties: { inputSchema: 'CloudEventSchemaV1_0', deduplicationWindowInMinutes: 0 } },
      plain: { properties: { inputSchema: 'EventGridSchema' } },
    });
    expect(Object.values(classic).map((body) => parseTopicBody(body).deduplicationWindowInMinutes)).toEqual([
      60, 0, 0,
    ]);
    const namespaced = bodies('Custom::GridwireNamespaceTopic');
    expect(namespaced).toEqual({
      carts: { properties: { eventRetentionInDays: 2, deduplicationWindowInMinutes: 1440 } },
      baskets: { properties: { deduplicationWindowInMinutes: 5 } },
    });
    expect(Object.values(namespaced).map((body) => parseNamespaceTopicBody(body))).toEqual([
      {
        eventRetentionInDays: 2,
        deduplicationWindowInMinutes: 1440,
        validateEvents: false,
        unknownEventTypes: 'allow',
      },
      {
        eventRetentionInDays: 1,
        deduplicationWindowInMinutes: 5,
        validateEvents: false,
        unknownEventTypes: 'allow',
      },
    ]);
  });

  it('are refused at synthesis outside 0 to 1440 minutes, naming the prop and the limit', () => {
    const bad = new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events');
    const namespace = bad.addNamespace('shop');
    // A refused declaration keeps its construct's id: each try names another topic.
    for (const [index, minutes] of [1441, -1, 2.5].entries()) {
      const message = `deduplicationWindowInMinutes must be an integer from ${DEDUPLICATION_WINDOW_IN_MINUTES.min} to ${DEDUPLICATION_WINDOW_IN_MINUTES.max} (got ${minutes}).`;
      expect(() => bad.addTopic(`orders-${index}`, { deduplicationWindowInMinutes: minutes })).toThrow(
        message,
      );
      expect(() => namespace.addTopic(`carts-${index}`, { deduplicationWindowInMinutes: minutes })).toThrow(
        message,
      );
    }
    expect(() =>
      bad.addTopic('orders', {
        deduplicationWindowInMinutes: 10,
        properties: { deduplicationWindowInMinutes: 20 },
      }),
    ).toThrow('deduplicationWindowInMinutes: give it or properties.deduplicationWindowInMinutes, not both.');
  });
});

describe('archives of declared topics', () => {
  const stack = new Stack(newApp(), 'Archive');
  const pipeline = new DeliveryPipeline(stack, 'Events');
  pipeline.addTopic('ledger', { archive: { retentionInDays: 30 }, deduplicationWindowInMinutes: 60 });
  pipeline.addTopic('audit', { inputSchema: 'CloudEventSchemaV1_0', archive: { retentionInDays: 365 } });
  pipeline.addTopic('plain');
  const shop = pipeline.addNamespace('shop');
  shop.addTopic('carts', { eventRetentionInDays: 2, archive: { retentionInDays: 90 } });
  shop.addTopic('baskets', { eventRetentionInDays: 3, archive: {} });
  shop.addTopic('lists');
  const template = Template.fromStack(stack);
  const bodies = (type: string) =>
    Object.fromEntries(
      resources(template, type).map(([, r]) => [
        r.Properties.Topic as string,
        JSON.parse(r.Properties.Body as string) as Record<string, unknown>,
      ]),
    );

  it('are carried in the bodies of classic and namespace topics, in the form the API takes', () => {
    const classic = bodies('Custom::GridwireTopic');
    expect(classic).toEqual({
      ledger: {
        properties: {
          inputSchema: 'EventGridSchema',
          deduplicationWindowInMinutes: 60,
          archive: { retentionInDays: 30 },
        },
      },
      audit: { properties: { inputSchema: 'CloudEventSchemaV1_0', archive: { retentionInDays: 365 } } },
      plain: { properties: { inputSchema: 'EventGridSchema' } },
    });
    expect(Object.values(classic).map((body) => parseTopicBody(body).archive)).toEqual([
      { retentionInDays: 30 },
      { retentionInDays: 365 },
      undefined,
    ]);
    const namespaced = bodies('Custom::GridwireNamespaceTopic');
    expect(namespaced).toEqual({
      carts: { properties: { eventRetentionInDays: 2, archive: { retentionInDays: 90 } } },
      baskets: { properties: { eventRetentionInDays: 3, archive: {} } },
      lists: {},
    });
    // A namespace topic's archive without its retention keeps events as long as the topic does.
    expect(Object.values(namespaced).map((body) => parseNamespaceTopicBody(body).archive)).toEqual([
      { retentionInDays: 90 },
      { retentionInDays: 3 },
      undefined,
    ]);
  });

  it('are refused at synthesis outside 1 to 365 days, naming the prop and the limit', () => {
    const bad = new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events');
    const namespace = bad.addNamespace('shop');
    const message = (days: unknown) =>
      `archive.retentionInDays must be an integer from ${ARCHIVE_RETENTION_IN_DAYS.min} to ${ARCHIVE_RETENTION_IN_DAYS.max} (got ${days}).`;
    // A refused declaration keeps its construct's id: each try names another topic.
    for (const [index, days] of [0, 366, 1.5, -7].entries()) {
      expect(() => bad.addTopic(`ledger-${index}`, { archive: { retentionInDays: days } })).toThrow(
        message(days),
      );
      expect(() => namespace.addTopic(`carts-${index}`, { archive: { retentionInDays: days } })).toThrow(
        message(days),
      );
    }
    // A classic topic has no retention of its own to default to.
    expect(() =>
      bad.addTopic('ledger-none', { archive: {} as unknown as { retentionInDays: number } }),
    ).toThrow(message(undefined));
    expect(() =>
      bad.addTopic('ledger-text', { archive: { retentionInDays: '7' as unknown as number } }),
    ).toThrow(message('"7"'));
    expect(() =>
      bad.addTopic('ledger', {
        archive: { retentionInDays: 7 },
        properties: { archive: { retentionInDays: 14 } },
      }),
    ).toThrow('archive: give it or properties.archive, not both.');
  });
});

describe('declared namespaces, their topics and push subscriptions', () => {
  const app = newApp();
  const stack = new Stack(app, 'Namespaces');
  const pipeline = new DeliveryPipeline(stack, 'Events');
  const carts = pipeline
    .addNamespace('shop', { tags: { team: 'b' } })
    .addTopic('carts', { eventRetentionInDays: 2 });
  carts.addSubscription('analytics', {
    endpointUrl: 'https://analytics.example.com/hook',
    includedEventTypes: ['Cart.Abandoned'],
    maxDeliveryCount: 5,
    eventTimeToLiveInMinutes: 90,
    maxEventsPerBatch: 10,
  });
  pipeline.addTopic('orders');
  const template = Template.fromStack(stack);
  const only = (type: string) => {
    const found = resources(template, type);
    expect(found).toHaveLength(1);
    return found[0] as [string, Resource];
  };

  it("carry the admin API's namespace bodies, each made after its parent, through the pipeline's one provider", () => {
    const [namespaceId, namespace] = only('Custom::GridwireNamespace');
    const [topicId, topic] = only('Custom::GridwireNamespaceTopic');
    const [, subscription] = only('Custom::GridwireNamespaceSubscription');
    expect(namespace.Properties).toMatchObject({ Kind: 'Namespace', Namespace: 'shop' });
    expect(JSON.parse(namespace.Properties.Body as string)).toEqual({ tags: { team: 'b' } });
    expect(topic.Properties).toMatchObject({ Kind: 'NamespaceTopic', Namespace: 'shop', Topic: 'carts' });
    expect(JSON.parse(topic.Properties.Body as string)).toEqual({ properties: { eventRetentionInDays: 2 } });
    expect(topic.DependsOn).toEqual(expect.arrayContaining([namespaceId]));
    expect(subscription.Properties).toMatchObject({
      Kind: 'NamespaceSubscription',
      Namespace: 'shop',
      Topic: 'carts',
      Subscription: 'analytics',
      Validation: 'async',
    });
    expect(subscription.DependsOn).toEqual(expect.arrayContaining([topicId]));
    expect(JSON.parse(subscription.Properties.Body as string)).toEqual({
      properties: {
        deliveryConfiguration: {
          deliveryMode: 'Push',
          push: {
            destination: {
              endpointType: 'WebHook',
              properties: { endpointUrl: 'https://analytics.example.com/hook', maxEventsPerBatch: 10 },
            },
            maxDeliveryCount: 5,
            eventTimeToLive: 'PT1H30M',
          },
        },
        filtersConfiguration: { includedEventTypes: ['Cart.Abandoned'] },
      },
    });
    // Namespaces and classic topics share the pipeline's provider.
    expect(
      resources(template, 'AWS::Lambda::Function').filter(
        ([, r]) => r.Properties.Handler === 'framework.onEvent',
      ),
    ).toHaveLength(1);
  });

  it('refuse bad names and limits at synthesis, naming the field and the limit', () => {
    const bad = new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events');
    expect(() => bad.addNamespace('a_b')).toThrow("The namespace name 'a_b' is not valid: 3 to 50");
    const namespace = bad.addNamespace('shop');
    expect(() => namespace.addTopic('carts', { eventRetentionInDays: 8 })).toThrow(
      'eventRetentionInDays must be an integer from 1 to 7 (got 8).',
    );
    const topic = namespace.addTopic('baskets');
    expect(() =>
      topic.addSubscription('analytics', { endpointUrl: 'https://x.example', maxDeliveryCount: 11 }),
    ).toThrow('maxDeliveryCount must be an integer from 1 to 10 (got 11).');
  });
});

describe('event catalogs of declared topics', () => {
  const SCHEMA = { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } };
  const app = newApp();
  const stack = new Stack(app, 'Catalog');
  const pipeline = new DeliveryPipeline(stack, 'Events');
  const orders = pipeline.addTopic('orders', { validateEvents: true, unknownEventTypes: 'reject' });
  orders.addEventType({
    name: 'Order.Created',
    description: 'An order was placed.',
    schema: SCHEMA,
    example: { orderId: 'o-1' },
  });
  orders.addEventType({ name: 'Order.Noted' });
  const carts = pipeline.addNamespace('shop').addTopic('carts', { validateEvents: true });
  carts.addEventType({ name: 'Cart.Updated', schema: { type: 'object' } });
  const template = Template.fromStack(stack);

  it('carry the validation settings in the topics’ bodies, in the form the API takes', () => {
    const [[, topic] = []] = resources(template, 'Custom::GridwireTopic');
    const body = JSON.parse(topic?.Properties.Body as string);
    expect(body.properties).toEqual({
      inputSchema: 'EventGridSchema',
      validateEvents: true,
      unknownEventTypes: 'reject',
    });
    expect(parseTopicBody(body)).toMatchObject({ validateEvents: true, unknownEventTypes: 'reject' });
    const [[, namespaceTopic] = []] = resources(template, 'Custom::GridwireNamespaceTopic');
    expect(parseNamespaceTopicBody(JSON.parse(namespaceTopic?.Properties.Body as string))).toMatchObject({
      validateEvents: true,
      unknownEventTypes: 'allow',
    });
  });

  it('are custom resources, one per type, with the admin API body, made after their topic', () => {
    const types = resources(template, 'Custom::GridwireEventType');
    expect(
      types.map(([, r]) => [
        r.Properties.Topic,
        r.Properties.EventType,
        JSON.parse(r.Properties.Body as string),
      ]),
    ).toEqual([
      [
        'orders',
        'Order.Created',
        { description: 'An order was placed.', schema: SCHEMA, example: { orderId: 'o-1' } },
      ],
      ['orders', 'Order.Noted', {}],
    ]);
    const [[topicId] = []] = resources(template, 'Custom::GridwireTopic');
    for (const [, type] of types) {
      expect(type.Properties.Kind).toBe('EventType');
      expect(type.DependsOn).toEqual(expect.arrayContaining([topicId]));
    }
    const [[, namespaced] = []] = resources(template, 'Custom::GridwireNamespaceEventType');
    expect(namespaced?.Properties).toMatchObject({
      Kind: 'NamespaceEventType',
      Namespace: 'shop',
      Topic: 'carts',
      EventType: 'Cart.Updated',
    });
    const [[namespaceTopicId] = []] = resources(template, 'Custom::GridwireNamespaceTopic');
    expect(namespaced?.DependsOn).toEqual(expect.arrayContaining([namespaceTopicId]));
  });

  it.each(RULE_PACKS)('leave the %s rule pack nothing unacknowledged', (_name, pack) => {
    expect(unacknowledged(pack, app)).toEqual([]);
  });

  it('are refused at synthesis when a name, schema or example is wrong, naming the type and field', () => {
    const bad = new DeliveryPipeline(new Stack(newApp(), 'BadCatalog'), 'Events').addTopic('orders');
    expect(() => bad.addEventType({ name: 'a/b' })).toThrow(
      "addEventType: 'a/b' is not an event type's name",
    );
    expect(() => bad.addEventType({ name: 'A', schema: { type: 'objekt' } })).toThrow(
      "addEventType 'A': schema: is not a valid draft 2020-12 schema: at /type:",
    );
    expect(() => bad.addEventType({ name: 'B', schema: SCHEMA, example: { orderId: 1 } })).toThrow(
      "addEventType 'B': example: does not match the schema: example/orderId must be string.",
    );
    expect(() =>
      new DeliveryPipeline(new Stack(newApp(), 'BadUnknown'), 'Events').addTopic('orders', {
        unknownEventTypes: 'deny' as 'reject',
      }),
    ).toThrow('unknownEventTypes must be one of allow, reject (got deny).');
  });
});

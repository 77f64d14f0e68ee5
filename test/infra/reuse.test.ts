/**
 * Using the construct more than once: resource policies that stay far from their size limits
 * (one Lambda permission per function for the whole API), two pipelines in one stack, and two
 * stacks in one account and region kept apart (names, outputs, metrics namespace).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addComplianceChecks } from '../../infra/checks';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import type { DeliveryPipelineProps } from '../../infra/delivery-pipeline-props';
import { GridwireStack } from '../../infra/gridwire-stack';
import { LONGEST_PHYSICAL, longestValue } from '../../infra/pipeline/deploy-limits';
import {
  ENV,
  FUNCTIONS,
  type FunctionKey,
  QUEUES,
  type QueueKey,
  queueOutputNames,
} from '../../shared/config/resources';
import { METRICS_NAMESPACE } from '../../shared/observability/metrics';
import { RULE_PACKS, unacknowledged } from '../support/compliance';

// Skip asset bundling: these tests are about the template.
const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

type Resource = { Type: string; Properties?: Record<string, unknown> };
type Resources = Record<string, Resource>;

const resourcesOf = (template: Template): Resources => template.toJSON().Resources as Resources;

/*
 * Estimating a resource policy as the service stores it: the synthesized statements with every
 * reference replaced by a value as long as it can realistically be (`longestValue`, the same
 * estimate the synth's environment check makes: the longest stack name and region, names
 * CloudFormation generates at their services' longest). A reference it can't estimate fails.
 */
const REGION = 'ap-southeast-2';
const ACCOUNT = '123456789012';

/** `value` with every intrinsic function resolved at its longest; throws on one it doesn't know. */
const realistic = (value: unknown, resources: Resources): unknown =>
  longestValue(value, (id) => resources[id]?.Type, true);

const logicalIdIn = (reference: unknown): string => {
  const ref = reference as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const id = ref.Ref ?? ref['Fn::GetAtt']?.[0];
  if (id === undefined) throw new Error(`not a reference: ${JSON.stringify(reference)}`);
  return id;
};

/**
 * The statement Lambda adds to a function's resource-based policy for one AWS::Lambda::Permission
 * (as `GetPolicy` returns it): its statement id (CloudFormation generates one of up to 100
 * characters), the principal, the action, the function's ARN and the conditions its properties ask for.
 */
function lambdaStatement(properties: Record<string, unknown>, resources: Resources): Record<string, unknown> {
  const value = (key: string) => realistic(properties[key], resources) as string | undefined;
  const principal = value('Principal') as string;
  const conditions: Record<string, Record<string, string>> = {};
  const add = (operator: string, key: string, condition: string | undefined) => {
    if (condition !== undefined) conditions[operator] = { ...conditions[operator], [key]: condition };
  };
  add('ArnLike', 'AWS:SourceArn', value('SourceArn'));
  add('StringEquals', 'AWS:SourceAccount', value('SourceAccount'));
  add('StringEquals', 'lambda:FunctionUrlAuthType', value('FunctionUrlAuthType'));
  add('StringEquals', 'aws:PrincipalOrgID', value('PrincipalOrgID'));
  add('StringEquals', 'lambda:EventSourceToken', value('EventSourceToken'));
  if (properties.InvokedViaFunctionUrl !== undefined) {
    add('Bool', 'lambda:InvokedViaFunctionUrl', String(properties.InvokedViaFunctionUrl));
  }
  return {
    Sid: 'x'.repeat(100),
    Effect: 'Allow',
    Principal:
      principal === '*'
        ? '*'
        : principal.endsWith('.amazonaws.com')
          ? { Service: principal }
          : { AWS: principal },
    Action: value('Action'),
    Resource: LONGEST_PHYSICAL['AWS::Lambda::Function']?.attributes.Arn,
    ...(Object.keys(conditions).length === 0 ? {} : { Condition: conditions }),
  };
}

const bytes = (document: unknown) => Buffer.byteLength(JSON.stringify(document), 'utf8');

/** Each function's permissions (logical ids) and its estimated resource-based policy in bytes. */
function lambdaPolicies(template: Template): Map<string, { permissions: string[]; bytes: number }> {
  const resources = resourcesOf(template);
  const byFunction = new Map<string, { permissions: string[]; statements: unknown[] }>();
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    byFunction.set(id, { permissions: [], statements: [] });
  }
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::Lambda::Permission') continue;
    const properties = resource.Properties ?? {};
    const entry = byFunction.get(logicalIdIn(properties.FunctionName));
    if (entry === undefined) throw new Error(`${id} names no function of the template`);
    entry.permissions.push(id);
    entry.statements.push(lambdaStatement(properties, resources));
  }
  return new Map(
    [...byFunction].map(([id, { permissions, statements }]) => [
      id,
      {
        permissions,
        bytes:
          statements.length === 0
            ? 0
            : bytes({ Version: '2012-10-17', Id: 'default', Statement: statements }),
      },
    ]),
  );
}

/*
 * Resource policy size limits, each checked at half:
 * - Lambda function resource-based policy: 20 KB, not adjustable (Lambda quotas; re:Post
 *   knowledge center "lambda-resource-based-policy-size-error").
 * - SQS queue policy: 8,192 bytes (SQS Developer Guide, "Amazon SQS policy quotas").
 * - S3 bucket policy: 20 KB (S3 User Guide, "Bucket policies and user policies").
 * - KMS key policy: 32 KB, 32,768 bytes (KMS API reference, PutKeyPolicy `Policy`).
 * - SNS topic policy: 30 KB (SNS Developer Guide, "Amazon SNS API permissions", policy quotas).
 */
const POLICY_LIMIT_BYTES = {
  lambda: 20_480,
  sqsQueue: 8_192,
  s3Bucket: 20_480,
  kmsKey: 32_768,
  snsTopic: 30_720,
} as const;

/** Every other resource policy of the template: its kind, the resource it guards, its size. */
function otherPolicies(
  template: Template,
): { kind: keyof typeof POLICY_LIMIT_BYTES; on: string; bytes: number }[] {
  const resources = resourcesOf(template);
  const sizes = new Map<string, { kind: keyof typeof POLICY_LIMIT_BYTES; on: string; bytes: number }>();
  // Sizes add up per guarded resource, should two policies ever name the same one.
  const add = (kind: keyof typeof POLICY_LIMIT_BYTES, on: string, document: unknown) => {
    const key = `${kind}:${on}`;
    const size = bytes(realistic(document, resources));
    sizes.set(key, { kind, on, bytes: (sizes.get(key)?.bytes ?? 0) + size });
  };
  for (const resource of Object.values(resources)) {
    const properties = resource.Properties ?? {};
    if (resource.Type === 'AWS::SQS::QueuePolicy') {
      for (const queue of properties.Queues as unknown[])
        add('sqsQueue', logicalIdIn(queue), properties.PolicyDocument);
    } else if (resource.Type === 'AWS::S3::BucketPolicy') {
      add('s3Bucket', logicalIdIn(properties.Bucket), properties.PolicyDocument);
    } else if (resource.Type === 'AWS::SNS::TopicPolicy') {
      for (const topic of properties.Topics as unknown[])
        add('snsTopic', logicalIdIn(topic), properties.PolicyDocument);
    }
  }
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type === 'AWS::KMS::Key') add('kmsKey', id, resource.Properties?.KeyPolicy);
  }
  return [...sizes.values()];
}

const functionIdIn = (template: Template, key: FunctionKey): string => {
  const found = Object.keys(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Description: FUNCTIONS[key].description },
    }),
  );
  if (found.length !== 1) throw new Error(`${found.length} ${key} functions`);
  return found[0] as string;
};

const gridwireTemplate = (props: DeliveryPipelineProps = {}) =>
  Template.fromStack(new GridwireStack(newApp(), 'Reuse', { pipeline: props }));

/** A stack with two pipelines, `Pipeline` (the first) and `Orders`. */
function twoPipelines(second: DeliveryPipelineProps = {}) {
  const app = newApp();
  const stack = new Stack(app, 'Shop');
  const first = new DeliveryPipeline(stack, 'Pipeline', { publishIngress: 'both' });
  const orders = new DeliveryPipeline(stack, 'Orders', { publishIngress: 'both', ...second });
  return { app, stack, first, orders };
}

describe('Lambda permissions', () => {
  const template = gridwireTemplate();
  const policies = lambdaPolicies(template);
  const permissionsOf = (key: FunctionKey) => policies.get(functionIdIn(template, key))?.permissions ?? [];
  const principalsOf = (key: FunctionKey) =>
    permissionsOf(key).map((id) => resourcesOf(template)[id]?.Properties?.Principal);

  it('are one per function for the whole API, and one each for the two sweep rules', () => {
    expect(principalsOf('publish')).toEqual(['apigateway.amazonaws.com']);
    expect(principalsOf('management')).toEqual(['apigateway.amazonaws.com']);
    // The backlog sweep (every minute) and the archive sweep (every day).
    expect(principalsOf('delivery')).toEqual(['events.amazonaws.com']);
    expect(principalsOf('deadLetter')).toEqual(['events.amazonaws.com']);
    template.resourceCountIs('AWS::Lambda::Permission', 4);
  });

  it("let API Gateway invoke each function from any route and stage of this pipeline's API only", () => {
    for (const key of ['publish', 'management'] as const) {
      const [id] = permissionsOf(key);
      const sourceArn = JSON.stringify(resourcesOf(template)[id as string]?.Properties?.SourceArn);
      const [apiId] = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'));
      expect(sourceArn).toContain(`":execute-api:",`);
      expect(sourceArn).toContain(`{"Ref":"${apiId}"},"/*/*/*"`);
    }
  });

  it('with a function URL too, add the URL permissions to the publish function only', () => {
    const both = gridwireTemplate({ publishIngress: 'both' });
    const publish = lambdaPolicies(both).get(functionIdIn(both, 'publish'))?.permissions ?? [];
    const principals = publish.map((id) => resourcesOf(both)[id]?.Properties?.Principal).sort();
    expect(principals.filter((principal) => principal === 'apigateway.amazonaws.com')).toHaveLength(1);
    // The function URL's own permissions (auth type NONE: anyone may call the URL).
    expect(principals.filter((principal) => principal === '*').length).toBeGreaterThanOrEqual(1);
    expect(principals.every((p) => p === '*' || p === 'apigateway.amazonaws.com')).toBe(true);
  });
});

describe('resource policies', () => {
  const cases: [string, () => Template][] = [
    ['the default pipeline', () => gridwireTemplate()],
    ["publishIngress 'both'", () => gridwireTemplate({ publishIngress: 'both' })],
    ['two pipelines in one stack', () => Template.fromStack(twoPipelines().stack)],
  ];

  it.each(cases)('of %s: every function policy is under half of Lambda’s 20 KB', (_name, build) => {
    const policies = lambdaPolicies(build());
    const over = [...policies].filter(([, policy]) => policy.bytes > POLICY_LIMIT_BYTES.lambda / 2);
    expect(over).toEqual([]);
    // The estimate is of statements at their realistic length, not of nothing.
    const sizes = [...policies.values()].filter((policy) => policy.permissions.length > 0);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    for (const policy of sizes) expect(policy.bytes).toBeGreaterThan(400 * policy.permissions.length);
  });

  it.each(cases)(
    'of %s: queue, bucket, key and topic policies are under half their limits',
    (_name, build) => {
      const policies = otherPolicies(build());
      expect(new Set(policies.map((policy) => policy.kind))).toEqual(
        new Set(['sqsQueue', 's3Bucket', 'kmsKey', 'snsTopic']),
      );
      expect(policies.filter((policy) => policy.bytes > POLICY_LIMIT_BYTES[policy.kind] / 2)).toEqual([]);
    },
  );
});

/*
 * Properties that name a resource in its account and region (a second resource of that name fails
 * to deploy). The API's `Name`, the stage's `StageName` ($default, per API) and an inline policy's
 * `PolicyName` (per role) are labels, not such names.
 */
const PHYSICAL_NAMES: Record<string, string> = {
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::CloudWatch::Dashboard': 'DashboardName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::DynamoDB::GlobalTable': 'TableName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::Events::Rule': 'Name',
  'AWS::KMS::Alias': 'AliasName',
};

const explicitNames = (...templates: Template[]): string[] =>
  templates.flatMap((template) =>
    Object.values(resourcesOf(template)).flatMap((resource) => {
      const property = PHYSICAL_NAMES[resource.Type];
      const value = property === undefined ? undefined : resource.Properties?.[property];
      return value === undefined ? [] : [`${resource.Type} ${JSON.stringify(value)}`];
    }),
  );

describe('two pipelines in one stack', () => {
  const { app, stack, first, orders } = twoPipelines();
  const template = Template.fromStack(stack);

  it('synthesize, each with its own resources', () => {
    template.resourceCountIs('AWS::Lambda::Function', Object.keys(FUNCTIONS).length * 2);
    template.resourceCountIs('AWS::SQS::Queue', Object.keys(QUEUES).length * 4);
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 2);
  });

  it('give each function its own code, shared by the two pipelines (one asset per handler)', () => {
    const keys = Object.values(resourcesOf(template))
      .filter((resource) => resource.Type === 'AWS::Lambda::Function')
      .map((resource) => (resource.Properties as { Code: { S3Key: string } }).Code.S3Key);
    expect(keys).toHaveLength(Object.keys(FUNCTIONS).length * 2);
    expect(new Set(keys).size).toBe(Object.keys(FUNCTIONS).length);
  });

  it.each(RULE_PACKS)('leave the %s rule pack nothing unacknowledged', (_name, pack) => {
    expect(unacknowledged(pack, app)).toEqual([]);
  });

  it('pass synthesis with both packs attached as infra/app.ts attaches them', () => {
    const built = twoPipelines();
    addComplianceChecks(built.app);
    expect(() => built.app.synth()).not.toThrow();
  });

  it('give nothing an explicit physical name (CloudFormation names each after stack and construct)', () => {
    expect(explicitNames(template)).toEqual([]);
  });

  it("output the first pipeline's queues under the plain names, the second's under its construct id", () => {
    expect(first.outputPrefix).toBe('');
    expect(orders.outputPrefix).toBe('Orders');
    const outputs = template.findOutputs('*');
    for (const key of Object.keys(QUEUES) as QueueKey[]) {
      const plain = queueOutputNames(key);
      const prefixed = queueOutputNames(key, 'Orders');
      expect(outputs[plain.url]).toMatchObject({
        Value: { Ref: stack.getLogicalId(first.queues[key].node.defaultChild as never) },
      });
      expect(outputs[prefixed.url]).toMatchObject({
        Value: { Ref: stack.getLogicalId(orders.queues[key].node.defaultChild as never) },
      });
      expect(outputs[prefixed.redriveUrl]).toMatchObject({
        Value: { Ref: stack.getLogicalId(orders.redriveQueues[key].node.defaultChild as never) },
      });
    }
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['PublishUrl', 'OrdersPublishUrl']));
  });

  it('tell the operator which pipeline a parked-message alarm is about', () => {
    const descriptions = Object.values(resourcesOf(template))
      .map((resource) => String(resource.Properties?.AlarmDescription ?? ''))
      .filter((description) => description.includes('gridwire parked list'));
    expect(descriptions).toHaveLength(Object.keys(QUEUES).length * 2);
    expect(descriptions.filter((d) => d.includes('--stack Shop --pipeline Orders --queue'))).toHaveLength(
      Object.keys(QUEUES).length,
    );
  });

  it('take the output prefix given, and refuse one taken or malformed', () => {
    expect(twoPipelines({ outputPrefix: 'Shop2' }).orders.outputPrefix).toBe('Shop2');
    expect(() => twoPipelines({ outputPrefix: '' })).toThrow(
      /outputPrefix must be 1 to 64 letters or digits/,
    );
    expect(() => twoPipelines({ outputPrefix: 'Or-ders' })).toThrow(
      /outputPrefix must be 1 to 64 letters or digits/,
    );
    const stackOfThree = new Stack(newApp(), 'Three');
    new DeliveryPipeline(stackOfThree, 'Pipeline');
    new DeliveryPipeline(stackOfThree, 'Orders');
    expect(() => new DeliveryPipeline(stackOfThree, 'Billing', { outputPrefix: 'Orders' })).toThrow(
      "another pipeline of stack Three has the output prefix 'Orders'; give this pipeline its own outputPrefix",
    );
  });
});

describe('two stacks in one account and region', () => {
  const app = newApp();
  const env = { account: ACCOUNT, region: REGION };
  const blue = new GridwireStack(app, 'Blue', { env, pipeline: { metricsNamespace: 'Gridwire/Blue' } });
  const green = new GridwireStack(app, 'Green', { env, pipeline: { metricsNamespace: 'Gridwire Green' } });
  const templates = { blue: Template.fromStack(blue), green: Template.fromStack(green) };

  /** The namespaces of Gridwire's own metrics an alarm reads (plain or in metric math). */
  const alarmNamespaces = (template: Template): string[] =>
    Object.values(template.findResources('AWS::CloudWatch::Alarm')).flatMap((alarm) => {
      const properties = alarm.Properties as {
        Namespace?: string;
        Metrics?: { MetricStat?: { Metric: { Namespace: string } } }[];
      };
      const namespaces = [
        ...(properties.Namespace === undefined ? [] : [properties.Namespace]),
        ...(properties.Metrics ?? []).flatMap((query) =>
          query.MetricStat === undefined ? [] : [query.MetricStat.Metric.Namespace],
        ),
      ];
      return namespaces.filter((namespace) => !namespace.startsWith('AWS/'));
    });

  /** The namespaces of Gridwire's own graphs on the dashboard, and its SEARCH expressions. */
  const dashboardReads = (template: Template) => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const parts = dashboard?.Properties.DashboardBody['Fn::Join'][1] as unknown[];
    // References (region, queue and function names) become a placeholder: only the text is read.
    const body = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'ref')).join('')) as {
      widgets: { properties: { metrics?: unknown[][] } }[];
    };
    const lines = body.widgets.flatMap((widget) => widget.properties.metrics ?? []);
    return {
      namespaces: lines
        .map((line) => line[0])
        .filter((first): first is string => typeof first === 'string' && !first.startsWith('AWS/')),
      searches: lines
        .map((line) => (line[0] as { expression?: string }).expression)
        .filter((expression): expression is string => expression?.startsWith('SEARCH') === true),
    };
  };

  it('alarm on their own metrics namespace', () => {
    expect(new Set(alarmNamespaces(templates.blue))).toEqual(new Set(['Gridwire/Blue']));
    expect(new Set(alarmNamespaces(templates.green))).toEqual(new Set(['Gridwire Green']));
    expect(alarmNamespaces(templates.blue).length).toBeGreaterThanOrEqual(4);
  });

  it('have every function write there, and their dashboards read there', () => {
    for (const [template, namespace] of [
      [templates.blue, 'Gridwire/Blue'],
      [templates.green, 'Gridwire Green'],
    ] as const) {
      const functions = Object.values(template.findResources('AWS::Lambda::Function'));
      expect(functions).toHaveLength(Object.keys(FUNCTIONS).length);
      for (const fn of functions) {
        expect(fn.Properties.Environment.Variables[ENV.metricsNamespace]).toBe(namespace);
      }
      const { namespaces, searches } = dashboardReads(template);
      expect(new Set(namespaces)).toEqual(new Set([namespace]));
      expect(searches.length).toBeGreaterThanOrEqual(4);
      // SEARCH takes a namespace that is not only letters and digits in double quotes.
      for (const search of searches) expect(search).toContain(`SEARCH('{"${namespace}",service,`);
    }
  });

  it('share no explicit physical name', () => {
    const names = explicitNames(templates.blue, templates.green);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('leave the default namespace, and the functions without the variable, when none is given', () => {
    const template = gridwireTemplate();
    expect(new Set(alarmNamespaces(template))).toEqual(new Set([METRICS_NAMESPACE]));
    expect(new Set(dashboardReads(template).namespaces)).toEqual(new Set([METRICS_NAMESPACE]));
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables[ENV.metricsNamespace]).toBeUndefined();
    }
  });

  it.each(['AWS/Lambda', ':Gridwire', 'Grid"wire', ' Gridwire', 'x'.repeat(256), ''])(
    'refuse the namespace %p',
    (metricsNamespace) => {
      expect(() => gridwireTemplate({ metricsNamespace })).toThrow(
        /metricsNamespace must be a CloudWatch namespace/,
      );
    },
  );
});

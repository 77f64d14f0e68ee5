/**
 * The deploy rehearsal on this repository's templates: the defaults, and the README's example,
 * hold every rule of `test/support/deploy-rules.ts`; each rule finds the defect it was written
 * for (so none is a check that cannot fail); a function environment that would pass Lambda's
 * 4 KB fails the synth naming the prop that grew it.
 */
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import type { DeliveryPipelineProps } from '../../infra/delivery-pipeline-props';
import { Destination } from '../../infra/destinations';
import { environmentEstimate, LAMBDA_ENVIRONMENT_LIMIT_BYTES } from '../../infra/pipeline/deploy-limits';
import { DEPLOY_RULES, deployProblems, type TemplateJson } from '../support/deploy-rules';

const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

/** The README's example: a pipeline, a topic and a subscription to a placeholder endpoint. */
function readmeExample(props: DeliveryPipelineProps = {}) {
  const stack = new Stack(newApp(), 'Events');
  const pipeline = new DeliveryPipeline(stack, 'Pipeline', props);
  pipeline.addTopic('orders').addSubscription('billing', {
    endpointUrl: 'https://billing.example.com/hook',
    includedEventTypes: ['Order.Created'],
    maxDeliveryAttempts: 10,
  });
  pipeline
    .addNamespace('shop')
    .addTopic('carts')
    .addSubscription('analytics', { endpointUrl: 'https://analytics.example.com/hook' });
  return { stack, pipeline };
}

const templateOf = (props: DeliveryPipelineProps = {}): TemplateJson =>
  Template.fromStack(readmeExample(props).stack).toJSON() as TemplateJson;

const ruleNamed = (fragment: string) => {
  const found = DEPLOY_RULES.find(({ rule }) => rule.includes(fragment));
  if (found === undefined) throw new Error(`no rule about ${fragment}`);
  return found;
};

const defaults = templateOf();

it('the defaults, with declared topics and subscriptions, pass every deploy rule', () => {
  expect(deployProblems(defaults)).toEqual([]);
});

describe('each rule finds the defect it was written for', () => {
  it('reservations a new account refuses', () => {
    expect(ruleNamed('reserves no concurrency').check(templateOf({ reservedConcurrency: 100 }))).toEqual([
      expect.stringMatching(/^reserves 100 executions/),
    ]);
  });

  it('an alarm topic policy without an allow for CloudWatch', () => {
    const denyOnly = structuredClone(defaults);
    for (const resource of Object.values(denyOnly.Resources)) {
      if (resource.Type !== 'AWS::SNS::TopicPolicy') continue;
      const document = resource.Properties?.PolicyDocument as { Statement: { Effect: string }[] };
      document.Statement = document.Statement.filter((statement) => statement.Effect === 'Deny');
    }
    const rule = ruleNamed('lets CloudWatch publish');
    expect(rule.check(defaults)).toEqual([]);
    expect(rule.check(denyOnly)).toEqual([expect.stringMatching(/allows cloudwatch.amazonaws.com nothing/)]);
  });

  it('a declared subscription made before the delivery queues are consumed', () => {
    const racing = structuredClone(defaults);
    for (const resource of Object.values(racing.Resources)) {
      if (!resource.Type.startsWith('Custom::Gridwire')) continue;
      resource.DependsOn = ([] as string[])
        .concat(resource.DependsOn ?? [])
        .filter((id) => racing.Resources[id]?.Type !== 'AWS::Lambda::EventSourceMapping');
    }
    const problems = ruleNamed('declared subscriptions after').check(racing);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/is not made after .*EventSource/);
  });

  it('an environment over 4 KB at the longest names', () => {
    const grown = structuredClone(defaults);
    const fn = Object.values(grown.Resources).find((resource) => resource.Type === 'AWS::Lambda::Function');
    const environment = fn?.Properties?.Environment as { Variables: Record<string, unknown> } | undefined;
    if (environment === undefined) throw new Error('no function with an environment');
    environment.Variables.PADDING = 'x'.repeat(4_096);
    expect(ruleNamed("function's environment").check(grown)).toEqual([
      expect.stringMatching(/environment may reach \d+ bytes/),
    ]);
  });

  it('stateful resources kept after a failed create, or deleted with the stack', () => {
    const rule = ruleNamed('removes stateful resources');
    const kept = rule.check(templateOf({ removalPolicy: RemovalPolicy.RETAIN }));
    // The table, four buckets, two secrets, the alarm topic's key: kept after a failed create.
    for (const type of [
      'GlobalTable',
      'S3::Bucket',
      'SecretsManager::Secret',
      'KMS::Key',
      'Logs::LogGroup',
    ]) {
      expect(kept.join('\n')).toMatch(new RegExp(`${type}\\) has DeletionPolicy Retain`));
    }
    expect(rule.check(templateOf({ removalPolicy: RemovalPolicy.DESTROY })).join('\n')).toMatch(
      /has UpdateReplacePolicy Delete/,
    );
  });

  it('a table whose deletion protection would fail the rollback', () => {
    expect(ruleNamed('deletion protection off').check(templateOf({ deletionProtection: true }))).toEqual([
      expect.stringMatching(/has deletion protection on/),
    ]);
  });

  it('an ARN with a literal partition', () => {
    const literal = structuredClone(defaults);
    literal.Resources.Extra = { Type: 'AWS::SNS::Topic', Properties: { Arn: 'arn:aws:sns:eu-west-1:1:x' } };
    expect(ruleNamed('names no partition').check(literal)).toEqual(['writes "arn:aws:sns:eu-west-1:1:x"']);
  });

  it('a FIFO queue with a standard redrive queue or a name without .fifo, its event source with a window or a batch over 10', () => {
    const rule = ruleNamed('keeps FIFO queues FIFO');
    expect(rule.check(defaults)).toEqual([]);
    const broken = structuredClone(defaults);
    const queues = Object.entries(broken.Resources).filter(
      ([, resource]) => resource.Type === 'AWS::SQS::Queue',
    );
    const fifo = queues.filter(([, queue]) => queue.Properties?.FifoQueue === true);
    // The ordered queue and its redrive queue.
    expect(fifo).toHaveLength(2);
    const source = fifo.find(([, queue]) => queue.Properties?.RedrivePolicy !== undefined);
    const redrive = fifo.find(([, queue]) => queue.Properties?.RedrivePolicy === undefined);
    if (source === undefined || redrive === undefined) throw new Error('no FIFO queue and redrive queue');
    delete redrive[1].Properties?.FifoQueue;
    (source[1].Properties as Record<string, unknown>).QueueName = 'gridwire-ordered';
    const mapping = Object.values(broken.Resources).find(
      (resource) =>
        resource.Type === 'AWS::Lambda::EventSourceMapping' &&
        JSON.stringify(resource.Properties?.EventSourceArn).includes(source[0]),
    );
    if (mapping?.Properties === undefined) throw new Error('no event source on the FIFO queue');
    Object.assign(mapping.Properties, { MaximumBatchingWindowInSeconds: 5, BatchSize: 100 });
    expect(rule.check(broken)).toEqual([
      `${source[0]} is FIFO and named gridwire-ordered`,
      `${source[0]} is FIFO and redrives to ${redrive[0]}, standard`,
      expect.stringMatching(new RegExp(`gathers ${source[0]}'s messages for 5 s$`)),
      expect.stringMatching(new RegExp(`takes 100 of ${source[0]}'s messages a batch$`)),
    ]);
  });

  it("a template over CloudFormation's resource and output counts", () => {
    const crowded = structuredClone(defaults);
    for (let index = 0; index < 500; index++)
      crowded.Resources[`Extra${index}`] = { Type: 'AWS::SNS::Topic' };
    crowded.Outputs = Object.fromEntries(Array.from({ length: 201 }, (_, index) => [`Out${index}`, {}]));
    expect(ruleNamed('500 resources').check(crowded)).toEqual([
      expect.stringMatching(/^has \d+ resources$/),
      'has 201 outputs',
    ]);
  });

  it("a role's inline policies over IAM's limit", () => {
    const grown = structuredClone(defaults);
    const policy = Object.values(grown.Resources).find((resource) => resource.Type === 'AWS::IAM::Policy');
    const document = policy?.Properties?.PolicyDocument as { Statement: unknown[] } | undefined;
    if (document === undefined) throw new Error('no inline policy');
    const [statement] = document.Statement;
    for (let index = 0; index < 100; index++)
      document.Statement.push({ ...(statement as object), Sid: `S${index}` });
    const rule = ruleNamed('inline policies');
    expect(rule.check(defaults)).toEqual([]);
    expect(rule.check(grown)).toEqual([expect.stringMatching(/inline policies may reach \d+ characters/)]);
  });

  it('sixty declared queue destinations fit: their list is in the table, not an environment', () => {
    const stack = new Stack(newApp(), 'Many');
    const pipeline = new DeliveryPipeline(stack, 'Pipeline');
    const topic = pipeline.addTopic('orders');
    for (let index = 0; index < 60; index++) {
      const queue = new Queue(stack, `Queue${index}`);
      topic.addSubscription(`queue-${index}`, { destination: Destination.sqs(queue) });
    }
    expect(deployProblems(Template.fromStack(stack).toJSON() as TemplateJson)).toEqual([]);
  });

  it("a stage throttle above the account's quota", () => {
    expect(
      ruleNamed('throttles every route').check(
        templateOf({ throttle: { rateLimit: 20_000, burstLimit: 100 } }),
      ),
    ).toEqual([expect.stringMatching(/throttles its default route settings at 20000\/s/)]);
  });
});

describe("the functions' environment at synthesis", () => {
  it('leaves room under 4 KB by default, at the longest names AWS can generate', () => {
    const { pipeline } = readmeExample();
    // Room for what grows with props: 25 resource destination patterns of about 70 bytes each
    // (the delivery and management functions), or as much of the portal's look or dead-letter buckets.
    const room = 25 * 72;
    for (const fn of [pipeline.publishFunction, pipeline.managementFunction, pipeline.deliveryFunction]) {
      expect(environmentEstimate(fn).bytes).toBeLessThan(LAMBDA_ENVIRONMENT_LIMIT_BYTES - room);
    }
  });

  it('fails the synth naming resourceDestinations when the allow-list would not fit', () => {
    const patterns = (count: number) =>
      Array.from(
        { length: count },
        (_, index) => `arn:aws:sqs:eu-west-1:123456789012:billing-ledger-queue-number-${index}`,
      );
    // About 70 bytes a pattern, in the delivery and the management function's environment.
    const fits = readmeExample({ resourceDestinations: patterns(20) });
    expect(() => (fits.stack.node.root as App).synth()).not.toThrow();
    const overflowing = readmeExample({ resourceDestinations: patterns(60) });
    expect(() => (overflowing.stack.node.root as App).synth()).toThrow(
      /The management function's environment may reach \d+ bytes .* over Lambda's limit of 4096: \d+ bytes of it are the AWS resources subscriptions may deliver to \(the resourceDestinations prop/,
    );
  });

  it("fits the portal's props as usually given, and names portalBranding when a logo URL would not fit", () => {
    const portal = (logoUrl: string) =>
      readmeExample({
        portalFrameAncestors: ['https://app.acme.example', 'https://*.acme.example'],
        portalBranding: { title: 'Acme events', logoUrl, accentColor: '#0a7cff' },
      });
    const usual = portal('https://cdn.acme.example/brand/logo.svg');
    expect(() => (usual.stack.node.root as App).synth()).not.toThrow();
    expect(deployProblems(Template.fromStack(usual.stack).toJSON() as TemplateJson)).toEqual([]);
    // The longest logo URL the management function takes (2048 characters) with the rest of its environment.
    const long = portal(`https://cdn.acme.example/${'x'.repeat(2_048 - 25)}`);
    expect(() => (long.stack.node.root as App).synth()).toThrow(
      /The management function's environment may reach \d+ bytes .* over Lambda's limit of 4096: \d+ bytes of it are the portal's look \(the portalBranding prop/,
    );
  });
});

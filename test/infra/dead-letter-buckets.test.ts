/**
 * The `deadLetterBuckets` prop and declared subscriptions' `deadLetter` in the synthesized
 * template: each entry reaches the dead-letter and management functions as `arn:aws:s3:::<name>`
 * (a pair as `<bucket>|<role>`), the dead-letter function may put objects in the allowed buckets
 * and management list, read and write them (a bucket's KMS key too), a pair grants
 * `sts:AssumeRole` on its role and nothing on its bucket; bad entries fail the synth naming the
 * prop; a bucket a declared subscription names is allowed and granted by declaring it; and a
 * pipeline without any keeps its functions' environment and policies as they were.
 */
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import { ENV, FUNCTIONS, type FunctionKey } from '../../shared/config/resources';
import { RULE_PACKS, unacknowledged } from '../support/compliance';

const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const ROLE = 'arn:aws:iam::210987654321:role/gridwire-dead-letters';
const ROLES = 'arn:aws:iam::210987654321:role/gridwire-*';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** The template's function of `key`: its environment and its role's policy statements. */
function functionOf(template: Template, key: FunctionKey) {
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const [, fn] =
    Object.entries(resources).find(
      ([id, resource]) => resource.Type === 'AWS::Lambda::Function' && id.includes(FUNCTIONS[key].id),
    ) ?? [];
  if (fn === undefined) throw new Error(`no ${FUNCTIONS[key].id}`);
  const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const statements = Object.values(resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' &&
        (resource.Properties.Roles as { Ref: string }[]).some((entry) => entry.Ref === role),
    )
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  return { variables, statements };
}

/** `arn:<partition>:s3:::<rest>` as the template writes it. */
const s3Arn = (rest: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:s3:::${rest}`]] });

describe('the deadLetterBuckets prop', () => {
  const app = newApp();
  const stack = new Stack(app, 'DeadLetters');
  const key = new Key(stack, 'Key', { enableKeyRotation: true });
  const own = new Bucket(stack, 'Own', {
    encryption: BucketEncryption.KMS,
    encryptionKey: key,
    enforceSSL: true,
  });
  const pipeline = new DeliveryPipeline(stack, 'Events', {
    deadLetterBuckets: [
      'acme-dead-letters',
      'arn:aws:s3:::acme-archive-*',
      own,
      Bucket.fromBucketName(stack, 'Imported', 'acme-imported'),
      { bucket: 'partner-dead-letters', role: ROLES },
      `arn:aws:s3:::partner-archive|${ROLE}`,
    ],
  });
  const template = Template.fromStack(stack);
  const ownId = stack.getLogicalId(own.node.defaultChild as CfnElement);

  it('reaches the dead-letter and management functions as arn:aws:s3:::<name>, pairs as <bucket>|<role>', () => {
    const expected = {
      'Fn::Join': [
        '',
        [
          'arn:aws:s3:::acme-dead-letters,arn:aws:s3:::acme-archive-*,arn:aws:s3:::',
          { Ref: ownId },
          `,arn:aws:s3:::acme-imported,arn:aws:s3:::partner-dead-letters|${ROLES},arn:aws:s3:::partner-archive|${ROLE}`,
        ],
      ],
    };
    expect(functionOf(template, 'deadLetter').variables[ENV.deadLetterBuckets]).toEqual(expected);
    expect(functionOf(template, 'management').variables[ENV.deadLetterBuckets]).toEqual(expected);
    expect(functionOf(template, 'publish').variables[ENV.deadLetterBuckets]).toBeUndefined();
    expect(functionOf(template, 'delivery').variables[ENV.deadLetterBuckets]).toBeUndefined();
  });

  it("lets the dead-letter function put objects in each bucket, and assume the pairs' roles", () => {
    const { statements } = functionOf(template, 'deadLetter');
    for (const objects of [
      s3Arn('acme-dead-letters/*'),
      s3Arn('acme-archive-*/*'),
      s3Arn('acme-imported/*'),
      { 'Fn::Join': ['', [{ 'Fn::GetAtt': [ownId, 'Arn'] }, '/*']] },
    ]) {
      expect(statements).toContainEqual({ Action: 's3:PutObject', Effect: 'Allow', Resource: objects });
    }
    expect(statements).toContainEqual({ Action: 'sts:AssumeRole', Effect: 'Allow', Resource: [ROLES, ROLE] });
    // The key of an encrypted bucket: encrypt only.
    expect(statements).toContainEqual({
      Action: ['kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'],
      Effect: 'Allow',
      Resource: { 'Fn::GetAtt': [stack.getLogicalId(key.node.defaultChild as CfnElement), 'Arn'] },
    });
    // Nothing else of S3 beside the stack's own buckets (the archive's segments are its only
    // other objects: they are written, read and swept under their prefix), and nothing on a
    // pair's bucket.
    const archiveBucket = stack.getLogicalId(pipeline.archiveBucket.node.defaultChild as CfnElement);
    const s3Actions = statements.filter(
      (s) =>
        [s.Action].flat().some((a) => a.startsWith('s3:')) &&
        !JSON.stringify(s.Resource).includes(archiveBucket),
    );
    expect(s3Actions.every((s) => s.Action === 's3:PutObject')).toBe(true);
    expect(JSON.stringify(statements)).not.toContain('partner-');
  });

  it('lets the management function list, read and write each bucket, and assume the same roles', () => {
    const { statements } = functionOf(template, 'management');
    for (const name of ['acme-dead-letters', 'acme-archive-*', 'acme-imported']) {
      expect(statements).toContainEqual({ Action: 's3:ListBucket', Effect: 'Allow', Resource: s3Arn(name) });
      expect(statements).toContainEqual({
        Action: ['s3:GetObject', 's3:PutObject'],
        Effect: 'Allow',
        Resource: s3Arn(`${name}/*`),
      });
    }
    expect(statements).toContainEqual({
      Action: 's3:ListBucket',
      Effect: 'Allow',
      Resource: { 'Fn::GetAtt': [ownId, 'Arn'] },
    });
    expect(statements).toContainEqual({
      Action: ['kms:Decrypt', 'kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'],
      Effect: 'Allow',
      Resource: { 'Fn::GetAtt': [stack.getLogicalId(key.node.defaultChild as CfnElement), 'Arn'] },
    });
    expect(statements).toContainEqual({ Action: 'sts:AssumeRole', Effect: 'Allow', Resource: [ROLES, ROLE] });
    expect(JSON.stringify(statements)).not.toContain('partner-');
    expect(JSON.stringify(statements)).not.toContain('s3:DeleteObject');
  });

  it('grants the other functions none of it', () => {
    for (const fn of ['publish', 'delivery'] as const) {
      const text = JSON.stringify(functionOf(template, fn).statements);
      expect(text).not.toContain('acme-');
      expect(text).not.toContain('sts:AssumeRole');
    }
  });

  it.each(RULE_PACKS)("leaves the %s rule pack nothing unacknowledged of the pipeline's", (_name, pack) => {
    expect(unacknowledged(pack, app).filter((finding) => finding.includes(': DeadLetters/Events/'))).toEqual(
      [],
    );
    expect(pipeline.deadLetterFunction).toBeDefined();
  });

  it.each([
    [
      'Acme-Dead-Letters',
      "must be an S3 bucket's name or ARN (arn:aws:s3:::<name>): 3 to 63 lower-case letters",
    ],
    ['ab', '3 to 63 lower-case letters'],
    [`a${'b'.repeat(63)}`, '3 to 63 lower-case letters'],
    ['-acme', 'beginning and ending with a letter or digit'],
    ['arn:aws:s3:::acme/dead-letters', '3 to 63 lower-case letters'],
    ['arn:aws:sqs:eu-west-1:123456789012:dead-letters', 'not the ARN of another service'],
    ['*', 'not * alone'],
    ['arn:aws:s3:::*', 'not * alone'],
    ['acme,archive', "must not hold a ','"],
    [
      { bucket: 'acme-dead-letters', role: 'arn:aws:sqs:eu-west-1:123456789012:q' },
      'the ARN of an IAM role to assume',
    ],
    [
      { bucket: 'acme-dead-letters', role: 'arn:aws:iam::210987654321:user/someone' },
      'the ARN of an IAM role',
    ],
    [{ bucket: 'acme-dead-letters', role: 'arn:aws:iam::210987654321:role/a/../Admin' }, "'..' segment"],
    [`acme-dead-letters|arn:aws:iam::210987654321:role/a,b`, "must not hold a ','"],
  ] as [string | { bucket: string; role: string }, string][])(
    'fails the synth naming the prop, the entry and the rule (%#)',
    (entry, rule) => {
      const synth = () =>
        new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events', { deadLetterBuckets: [entry] });
      expect(synth).toThrow(rule);
      expect(synth).toThrow(/^deadLetterBuckets: '/);
      const named = typeof entry === 'string' ? entry : `${entry.bucket}|${entry.role}`;
      expect(synth).toThrow(`'${named}'`);
    },
  );

  it('fails the synth naming deadLetterBuckets when the list would not fit the environment', () => {
    const buckets = (count: number) =>
      Array.from({ length: count }, (_, index) => `acme-dead-letters-of-the-billing-team-number-${index}`);
    const synth = (count: number) => {
      const stack = new Stack(newApp(), 'Long');
      new DeliveryPipeline(stack, 'Events', { deadLetterBuckets: buckets(count) });
      return () => (stack.node.root as App).synth();
    };
    expect(synth(20)).not.toThrow();
    expect(synth(60)).toThrow(
      /The management function's environment may reach \d+ bytes .* over Lambda's limit of 4096: \d+ bytes of it are the S3 buckets dead letters may be written to \(the deadLetterBuckets prop/,
    );
  });
});

describe('without deadLetterBuckets', () => {
  const template = Template.fromStack(
    (() => {
      const stack = new Stack(newApp(), 'Plain');
      const pipeline = new DeliveryPipeline(stack, 'Events');
      // A dead-letter destination in the stack's own bucket names no bucket of its own.
      pipeline.addTopic('orders').addSubscription('billing', {
        endpointUrl: 'https://billing.example.com/hook',
        deadLetter: { container: 'billing-dead' },
      });
      return stack;
    })(),
  );

  it("leaves every function's environment and policies as they were", () => {
    const empty = new Stack(newApp(), 'Plain');
    new DeliveryPipeline(empty, 'Events', { deadLetterBuckets: [] })
      .addTopic('orders')
      .addSubscription('billing', {
        endpointUrl: 'https://billing.example.com/hook',
      });
    const plain = Template.fromStack(empty);
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      expect(functionOf(template, key).variables[ENV.deadLetterBuckets]).toBeUndefined();
      expect(functionOf(template, key).variables).toEqual(functionOf(plain, key).variables);
      expect(functionOf(template, key).statements).toEqual(functionOf(plain, key).statements);
      expect(JSON.stringify(functionOf(template, key).statements)).not.toContain('sts:AssumeRole');
    }
  });

  it("writes the declared subscription's dead letters to the stack's own bucket, in its container", () => {
    const [subscription] = Object.values(template.findResources('Custom::GridwireSubscription'));
    expect(JSON.parse(subscription?.Properties.Body as string).properties.deadLetterDestination).toEqual({
      endpointType: 'StorageBlob',
      properties: { blobContainerName: 'billing-dead' },
    });
  });
});

describe("a declared subscription's deadLetter bucket", () => {
  const app = newApp();
  const stack = new Stack(app, 'Declared');
  const bucket = new Bucket(stack, 'Archive', { enforceSSL: true });
  const pipeline = new DeliveryPipeline(stack, 'Events', { deadLetterBuckets: ['acme-dead-letters'] });
  pipeline.addTopic('orders').addSubscription('billing', {
    endpointUrl: 'https://billing.example.com/hook',
    deadLetter: { container: 'billing', bucket },
  });
  pipeline.addTopic('audit').addSubscription('archive', {
    endpointUrl: 'https://audit.example.com/hook',
    // Already on the prop's list: named once.
    deadLetter: { container: 'archive', bucket: 'arn:aws:s3:::acme-dead-letters' },
  });
  pipeline
    .addNamespace('shop')
    .addTopic('carts')
    .addSubscription('analytics', {
      endpointUrl: 'https://analytics.example.com/hook',
      deadLetter: {
        container: 'analytics',
        bucket: 'partner-dead-letters',
        role: ROLE,
        externalId: 'gridwire-shop',
      },
    });
  const template = Template.fromStack(stack);
  const bucketId = stack.getLogicalId(bucket.node.defaultChild as CfnElement);
  const bodyOf = (type: string, name: string) =>
    Object.values(template.findResources(type)).find((resource) => resource.Properties.Subscription === name)
      ?.Properties.Body;

  it('is named by resourceId in the classic body, the bucket of the stack resolved by CloudFormation', () => {
    const body = bodyOf('Custom::GridwireSubscription', 'billing');
    expect(JSON.stringify(body)).toContain(bucketId);
    expect(JSON.stringify(body).replace(/\\"/g, '"')).toContain(
      '"deadLetterDestination":{"endpointType":"StorageBlob","properties":{"blobContainerName":"billing","resourceId":"arn:aws:s3:::',
    );
    expect(
      JSON.parse(bodyOf('Custom::GridwireSubscription', 'archive') as string).properties
        .deadLetterDestination,
    ).toEqual({
      endpointType: 'StorageBlob',
      properties: { blobContainerName: 'archive', resourceId: 'arn:aws:s3:::acme-dead-letters' },
    });
  });

  it("is the namespace push settings' deadLetterDestinationWithResourceIdentity, with its role and external id", () => {
    const body = JSON.parse(bodyOf('Custom::GridwireNamespaceSubscription', 'analytics') as string);
    expect(body.properties.deliveryConfiguration.push.deadLetterDestinationWithResourceIdentity).toEqual({
      deadLetterDestination: {
        endpointType: 'StorageBlob',
        properties: {
          blobContainerName: 'analytics',
          resourceId: 'arn:aws:s3:::partner-dead-letters',
          roleArn: ROLE,
          externalId: 'gridwire-shop',
        },
      },
    });
  });

  it('is added to the allow-list and granted by declaring it, once each', () => {
    const expected = {
      'Fn::Join': [
        '',
        [
          'arn:aws:s3:::acme-dead-letters,arn:aws:s3:::',
          { Ref: bucketId },
          `,arn:aws:s3:::partner-dead-letters|${ROLE}`,
        ],
      ],
    };
    for (const key of ['deadLetter', 'management'] as const) {
      expect(functionOf(template, key).variables[ENV.deadLetterBuckets]).toEqual(expected);
    }
    const deadLetter = functionOf(template, 'deadLetter').statements;
    expect(deadLetter).toContainEqual({
      Action: 's3:PutObject',
      Effect: 'Allow',
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
    });
    expect(deadLetter).toContainEqual({ Action: 'sts:AssumeRole', Effect: 'Allow', Resource: ROLE });
    expect(deadLetter.filter((s) => JSON.stringify(s).includes('acme-dead-letters/*'))).toHaveLength(1);
    const management = functionOf(template, 'management').statements;
    expect(management).toContainEqual({
      Action: 's3:ListBucket',
      Effect: 'Allow',
      Resource: { 'Fn::GetAtt': [bucketId, 'Arn'] },
    });
    expect(management).toContainEqual({ Action: 'sts:AssumeRole', Effect: 'Allow', Resource: ROLE });
    expect(JSON.stringify(management)).not.toContain('partner-');
  });

  it.each(RULE_PACKS)("leaves the %s rule pack nothing unacknowledged of the pipeline's", (_name, pack) => {
    expect(unacknowledged(pack, app).filter((finding) => finding.includes(': Declared/Events/'))).toEqual([]);
  });

  it.each([
    [{ container: 'Billing' }, "deadLetter.container: 'Billing' must be 3 to 63 lower-case letters"],
    [{ container: 'bi--lling' }, 'single hyphens'],
    [
      { container: 'billing', role: ROLE },
      'deadLetter.role: is assumed to write to a bucket of your own; give bucket too',
    ],
    [
      { container: 'billing', bucket: 'acme', externalId: 'abc' },
      'deadLetter.externalId: is sent when the role is assumed',
    ],
    [
      { container: 'billing', bucket: 'acme', role: ROLE, externalId: 'a b' },
      "deadLetter.externalId: 'a b' must be 2 to 1224",
    ],
    [{ container: 'billing', bucket: 'acme-*' }, "deadLetter.bucket: 'acme-*'"],
    [{ container: 'billing', bucket: 'Acme' }, "deadLetter.bucket: 'Acme' must be an S3 bucket's name"],
    [
      { container: 'billing', bucket: 'acme', role: ROLES },
      `deadLetter: 'acme|${ROLES}' must pair the bucket`,
    ],
  ])('fails the synth naming the prop and the rule (%#)', (deadLetter, message) => {
    const events = new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Events');
    expect(() =>
      events
        .addTopic('orders')
        .addSubscription('billing', { endpointUrl: 'https://b.example/h', deadLetter }),
    ).toThrow(message);
  });

  it('is refused beside the body’s own dead-letter destination', () => {
    const events = new DeliveryPipeline(new Stack(newApp(), 'Both'), 'Events');
    expect(() =>
      events.addTopic('orders').addSubscription('billing', {
        endpointUrl: 'https://b.example/h',
        deadLetter: { container: 'billing' },
        properties: {
          deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'x' } },
        },
      }),
    ).toThrow('deadLetter: give it or properties.deadLetterDestination, not both.');
    expect(() =>
      events
        .addNamespace('shop')
        .addTopic('carts')
        .addSubscription('analytics', {
          endpointUrl: 'https://b.example/h',
          deadLetter: { container: 'billing' },
          push: { deadLetterDestinationWithResourceIdentity: {} },
        }),
    ).toThrow('deadLetter: give it or push.deadLetterDestinationWithResourceIdentity, not both.');
  });
});

/**
 * The functions' IAM policies as the synthesized stack defines them, made concrete: every `Ref`,
 * `Fn::GetAtt`, `Fn::Join` and `Fn::Sub` resolved to a well-formed ARN or name in one fake
 * account and region. A queue, the table or a bucket the local stack also has gets its local
 * name (`shared/config/resources.ts`), so the ARN of what a local call names is the ARN the
 * policy grants. The check of recorded calls (`test/iam/`) simulates requests against these.
 */

import { runSimulation } from '@cloud-copilot/iam-simulate';
import { App, CfnResource } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { DeliveryPipelineProps } from '../../infra/delivery-pipeline-props';
import { GridwireStack } from '../../infra/gridwire-stack';
import { Source } from '../../infra/sources';
import {
  ARCHIVE_BUCKET,
  BACKLOG_BUCKET,
  BUCKET,
  FAN_OUT_BUCKET,
  FUNCTIONS,
  type FunctionKey,
  QUEUES,
  TABLE,
} from '../../shared/config/resources';

export const FAKE_ACCOUNT = '123456789012';
export const FAKE_REGION = 'us-east-1';

export const queueArn = (name: string) => `arn:aws:sqs:${FAKE_REGION}:${FAKE_ACCOUNT}:${name}`;
export const tableArn = (name: string) => `arn:aws:dynamodb:${FAKE_REGION}:${FAKE_ACCOUNT}:table/${name}`;
export const bucketArn = (name: string) => `arn:aws:s3:::${name}`;

/** A policy document with nothing left to resolve. */
export interface PolicyDocument {
  Version?: string;
  Statement: Array<Record<string, unknown>>;
}

export interface FunctionRole {
  /** The role's fake ARN (the principal of every request). */
  roleArn: string;
  /** Every policy attached to the role, resolved. */
  policies: Array<{ name: string; policy: PolicyDocument }>;
}

/** Names of the resources the local stack also has, by construct id. */
const LOCAL_NAMES: Readonly<Record<string, string>> = Object.fromEntries([
  ...Object.values(QUEUES).flatMap((queue) => [
    [queue.id, queue.localName],
    [queue.redrive.id, queue.redrive.localName],
  ]),
  [TABLE.id, TABLE.localName],
  [BUCKET.id, BUCKET.localName],
  [FAN_OUT_BUCKET.id, FAN_OUT_BUCKET.localName],
  [BACKLOG_BUCKET.id, BACKLOG_BUCKET.localName],
  [ARCHIVE_BUCKET.id, ARCHIVE_BUCKET.localName],
]);

interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

/** What a logical id resolves to: its `Ref` and its attributes. */
interface Resolved {
  ref: string;
  attributes: Record<string, string>;
}

/** The fake identity of one resource; `undefined` for a type no policy of ours names. */
function fakeResource(type: string, name: string, logicalId: string): Resolved | undefined {
  const region = FAKE_REGION;
  const account = FAKE_ACCOUNT;
  switch (type) {
    case 'AWS::SQS::Queue': {
      const url = `https://sqs.${region}.amazonaws.com/${account}/${name}`;
      return { ref: url, attributes: { Arn: queueArn(name), QueueName: name, QueueUrl: url } };
    }
    case 'AWS::DynamoDB::Table':
    case 'AWS::DynamoDB::GlobalTable':
      return { ref: name, attributes: { Arn: tableArn(name) } };
    case 'AWS::S3::Bucket':
      return { ref: name, attributes: { Arn: bucketArn(name) } };
    case 'AWS::SecretsManager::Secret':
      return { ref: `arn:aws:secretsmanager:${region}:${account}:secret:${name}-AbCdEf`, attributes: {} };
    case 'AWS::Logs::LogGroup':
      return { ref: name, attributes: { Arn: `arn:aws:logs:${region}:${account}:log-group:${name}:*` } };
    case 'AWS::KMS::Key':
      return { ref: logicalId, attributes: { Arn: `arn:aws:kms:${region}:${account}:key/${logicalId}` } };
    case 'AWS::IAM::Role':
      return { ref: name, attributes: { Arn: `arn:aws:iam::${account}:role/${name}` } };
    default:
      return undefined;
  }
}

const PSEUDO: Readonly<Record<string, string>> = {
  'AWS::Partition': 'aws',
  'AWS::Region': FAKE_REGION,
  'AWS::AccountId': FAKE_ACCOUNT,
  'AWS::URLSuffix': 'amazonaws.com',
};

/** Resolves CloudFormation intrinsics in `value` with `resources`; anything else is an error. */
function resolver(resources: Map<string, Resolved>) {
  const ref = (id: string): string => {
    const value = PSEUDO[id] ?? resources.get(id)?.ref;
    if (value === undefined) throw new Error(`cannot resolve Ref ${id}`);
    return value;
  };
  const attribute = (id: string, name: string): string => {
    const value = resources.get(id)?.attributes[name];
    if (value === undefined) throw new Error(`cannot resolve Fn::GetAtt ${id}.${name}`);
    return value;
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [key, argument] = entries[0] ?? [];
    if (entries.length === 1 && key === 'Ref') return ref(argument as string);
    if (entries.length === 1 && key === 'Fn::GetAtt') {
      const [id, name] = argument as [string, string];
      return attribute(id, name);
    }
    if (entries.length === 1 && key === 'Fn::Join') {
      const [separator, parts] = argument as [string, unknown[]];
      return parts.map((part) => resolve(part) as string).join(separator);
    }
    if (entries.length === 1 && key === 'Fn::Sub') {
      const [text, variables = {}] = (typeof argument === 'string' ? [argument] : argument) as [
        string,
        Record<string, unknown>?,
      ];
      return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
        if (name in variables) return resolve(variables[name]) as string;
        const [id = '', attr] = name.split('.');
        return attr === undefined ? ref(id) : attribute(id, attr);
      });
    }
    if (key?.startsWith('Fn::')) throw new Error(`cannot resolve ${key}`);
    return Object.fromEntries(entries.map(([name, inner]) => [name, resolve(inner)]));
  };
  return resolve;
}

/**
 * Synthesizes the stack with `pipeline` props (default none; bundling skipped, as the infra tests do) and
 * returns each function's role: its fake ARN and its policies, resolved. Roles' managed policies
 * are left out (the functions have none; one would only add permissions).
 */
export function synthesizedFunctionRoles(
  pipeline: DeliveryPipelineProps = {},
  /**
   * Queues a declared topic takes events from (`topic.addSource(Source.sqs(queue))`), by name, as
   * a deployer would declare the sources the local stacks were started with: the publish
   * function's grant to consume each is then in its role (a bus source's queue gets the same).
   */
  sourceQueues: readonly string[] = [],
): Record<FunctionKey, FunctionRole> {
  const stack = new GridwireStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test', {
    pipeline,
  });
  if (sourceQueues.length > 0) {
    const topic = stack.pipeline.addTopic('sourced');
    for (const name of sourceQueues) topic.addSource(Source.sqs(new Queue(stack, name)));
  }
  const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, TemplateResource> };

  const resources = new Map<string, Resolved>();
  const functionIds = new Map<string, FunctionKey>();
  for (const construct of stack.node.findAll()) {
    if (!(construct instanceof CfnResource)) continue;
    const logicalId = stack.resolve(construct.logicalId) as string;
    // An L2's resource is its child `Resource`: the L2's id is the one the config names.
    const constructId =
      construct.node.id === 'Resource' ? (construct.node.scope?.node.id ?? logicalId) : construct.node.id;
    const name = LOCAL_NAMES[constructId] ?? constructId.toLowerCase();
    const resolved = fakeResource(construct.cfnResourceType, name, logicalId);
    if (resolved !== undefined) resources.set(logicalId, resolved);
    const fn = (Object.keys(FUNCTIONS) as FunctionKey[]).find((key) => FUNCTIONS[key].id === constructId);
    if (fn !== undefined && construct.cfnResourceType === 'AWS::Lambda::Function')
      functionIds.set(logicalId, fn);
  }
  const resolve = resolver(resources);

  const roles = {} as Record<FunctionKey, FunctionRole>;
  for (const [logicalId, fn] of functionIds) {
    const roleArn = template.Resources[logicalId]?.Properties?.Role as { 'Fn::GetAtt'?: [string, string] };
    const role = roleArn['Fn::GetAtt']?.[0];
    if (role === undefined) throw new Error(`the role of ${logicalId} is not one of the stack's`);
    const attached = Object.entries(template.Resources).filter(
      ([, resource]) =>
        resource.Type === 'AWS::IAM::Policy' &&
        ((resource.Properties?.Roles ?? []) as unknown[]).some(
          (entry) => (entry as { Ref?: string }).Ref === role,
        ),
    );
    const inline = (template.Resources[role]?.Properties?.Policies ?? []) as Array<{
      PolicyName: string;
      PolicyDocument: unknown;
    }>;
    roles[fn] = {
      roleArn: resolve({ 'Fn::GetAtt': [role, 'Arn'] }) as string,
      policies: [
        ...attached.map(([id, policy]) => ({
          name: id,
          policy: resolve(policy.Properties?.PolicyDocument) as PolicyDocument,
        })),
        ...inline.map((policy) => ({
          name: policy.PolicyName,
          policy: resolve(policy.PolicyDocument) as PolicyDocument,
        })),
      ],
    };
  }
  for (const fn of Object.keys(FUNCTIONS) as FunctionKey[]) {
    if (roles[fn] === undefined) throw new Error(`no function ${FUNCTIONS[fn].id} in the synthesized stack`);
  }
  return roles;
}

/** One request as IAM sees it. */
export interface IamRequest {
  action: string;
  resource: string;
  context: Record<string, string>;
}

/** IAM's decision on `request` by `role` (same account; no SCP, RCP or boundary), and why. */
export async function decide(
  role: FunctionRole,
  request: IamRequest,
): Promise<{ allowed: boolean; detail: string }> {
  const result = await runSimulation(
    {
      request: {
        principal: role.roleArn,
        action: request.action,
        resource: { resource: request.resource, accountId: FAKE_ACCOUNT },
        contextVariables: request.context,
      },
      identityPolicies: role.policies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    { simulationMode: 'Strict' },
  );
  if (result.resultType === 'error') return { allowed: false, detail: JSON.stringify(result.errors) };
  return { allowed: result.overallResult === 'Allowed', detail: result.overallResult };
}

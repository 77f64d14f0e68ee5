/**
 * The deploy rehearsal: what a fresh AWS account enforces only when a template is deployed, as
 * rules over the synthesized template, each learned from a review of what would have failed (or
 * silently not worked) on a first `cdk deploy`. `test/infra/deploy-rules.test.ts` holds this
 * repository's templates to them, and `test/package/consumer.test.ts` the README's example app
 * built from the packed package. A rule answers the problems it finds, none when it holds.
 */
import { LAMBDA_UNRESERVED_MINIMUM, NEW_ACCOUNT_CONCURRENCY_LIMIT } from '../../infra/pipeline/capacity';
import {
  type EgressResourceCounts,
  egressQuotaProblems,
  environmentBytes,
  FRESH_ACCOUNT_QUOTAS,
  LAMBDA_ENVIRONMENT_LIMIT_BYTES,
  longestValue,
} from '../../infra/pipeline/deploy-limits';
import { FUNCTIONS } from '../../shared/config/resources';

export type TemplateResource = {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};
export type TemplateJson = { Resources: Record<string, TemplateResource>; Outputs?: Record<string, unknown> };

/** IAM's limit on a role's inline policies together, in characters without white space (not adjustable). */
export const IAM_INLINE_POLICY_LIMIT_CHARACTERS = 10_240;

export interface DeployRule {
  /** What the rule holds the template to. */
  readonly rule: string;
  /** What goes wrong on a deploy when it does not hold. */
  readonly why: string;
  readonly check: (template: TemplateJson) => string[];
}

const entriesOf = (template: TemplateJson, type: string): [string, TemplateResource][] =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

const dependsOn = (resource: TemplateResource): string[] =>
  resource.DependsOn === undefined ? [] : ([] as string[]).concat(resource.DependsOn);

const refId = (value: unknown): string | undefined => {
  const ref = value as { Ref?: unknown; 'Fn::GetAtt'?: unknown[] } | undefined;
  if (typeof ref?.Ref === 'string') return ref.Ref;
  const attribute = ref?.['Fn::GetAtt']?.[0];
  return typeof attribute === 'string' ? attribute : undefined;
};

/** Types whose data or cost outlives a failed create when kept: removed when a first create rolls back. */
const STATEFUL_TYPES = [
  'AWS::DynamoDB::GlobalTable',
  'AWS::DynamoDB::Table',
  'AWS::S3::Bucket',
  'AWS::SecretsManager::Secret',
  'AWS::KMS::Key',
  'AWS::Logs::LogGroup',
];

/** The Gridwire delivery functions of a template, by logical id. */
const deliveryFunctions = (template: TemplateJson): string[] =>
  entriesOf(template, 'AWS::Lambda::Function')
    .filter(([, resource]) => resource.Properties?.Description === FUNCTIONS.delivery.description)
    .map(([id]) => id);

/** Whether a queue resource of the template is FIFO. */
const isFifo = (queue: TemplateResource | undefined): boolean =>
  queue?.Properties?.FifoQueue === true || queue?.Properties?.FifoQueue === 'true';

/** SQS's longest queue name, `.fifo` included. */
const SQS_QUEUE_NAME_LIMIT = 80;

export const DEPLOY_RULES: readonly DeployRule[] = [
  {
    rule: `reserves no concurrency a new account (limit ${NEW_ACCOUNT_CONCURRENCY_LIMIT}) can't give`,
    why: `Lambda refuses a reservation that leaves fewer than ${LAMBDA_UNRESERVED_MINIMUM} executions unreserved, and the create fails partway.`,
    check: (template) => {
      const reserved = entriesOf(template, 'AWS::Lambda::Function').flatMap(([id, resource]) => {
        const value = resource.Properties?.ReservedConcurrentExecutions;
        return typeof value === 'number' && value > 0 ? [[id, value] as const] : [];
      });
      const total = reserved.reduce((sum, [, value]) => sum + value, 0);
      return total + LAMBDA_UNRESERVED_MINIMUM > NEW_ACCOUNT_CONCURRENCY_LIMIT && total > 0
        ? [`reserves ${total} executions (${reserved.map(([id, value]) => `${id}: ${value}`).join(', ')})`]
        : [];
    },
  },
  {
    rule: 'lets CloudWatch publish to every alarm topic whose policy the template writes',
    why: "A topic policy replaces SNS's default one: with only a Deny (as `enforceSSL` writes), alarms change state and nobody hears of it.",
    check: (template) => {
      const alarmTopics = new Set(
        entriesOf(template, 'AWS::CloudWatch::Alarm').flatMap(([, alarm]) =>
          ((alarm.Properties?.AlarmActions as unknown[] | undefined) ?? []).flatMap(
            (action) => refId(action) ?? [],
          ),
        ),
      );
      return entriesOf(template, 'AWS::SNS::TopicPolicy').flatMap(([id, policy]) => {
        const topics = ((policy.Properties?.Topics as unknown[] | undefined) ?? []).flatMap(
          (topic) => refId(topic) ?? [],
        );
        if (!topics.some((topic) => alarmTopics.has(topic))) return [];
        const statements =
          (policy.Properties?.PolicyDocument as { Statement?: Record<string, unknown>[] } | undefined)
            ?.Statement ?? [];
        const allowsCloudWatch = statements.some(
          (statement) =>
            statement.Effect === 'Allow' &&
            JSON.stringify(statement.Principal).includes('cloudwatch.amazonaws.com') &&
            JSON.stringify(statement.Action).includes('sns:Publish'),
        );
        return allowsCloudWatch
          ? []
          : [`${id} (on ${topics.join(', ')}) allows cloudwatch.amazonaws.com nothing`];
      });
    },
  },
  {
    rule: 'creates declared subscriptions after the delivery function and its queue event sources',
    why: 'The validation handshake runs in the delivery function, fed by its queues: asked before they exist, an endpoint is asked late or not at all.',
    check: (template) => {
      const delivery = new Set(deliveryFunctions(template));
      const mappingsOf = (fn: string) =>
        entriesOf(template, 'AWS::Lambda::EventSourceMapping')
          .filter(([, mapping]) => refId(mapping.Properties?.FunctionName) === fn)
          .map(([id]) => id);
      return Object.entries(template.Resources)
        .filter(([, resource]) => /^Custom::Gridwire(Namespace)?Subscription$/.test(resource.Type))
        .flatMap(([id, resource]) => {
          const after = dependsOn(resource);
          const functions = after.filter((dependency) => delivery.has(dependency));
          if (functions.length === 0) return [`${id} is not made after a delivery function`];
          const missing = functions.flatMap(mappingsOf).filter((mapping) => !after.includes(mapping));
          return missing.length === 0 ? [] : [`${id} is not made after ${missing.join(', ')}`];
        });
    },
  },
  {
    rule: `keeps each function's environment under Lambda's ${LAMBDA_ENVIRONMENT_LIMIT_BYTES} bytes at the longest generated names`,
    why: 'Lambda refuses a larger environment when the function is created or updated.',
    check: (template) => {
      const types = (id: string) => template.Resources[id]?.Type;
      return entriesOf(template, 'AWS::Lambda::Function').flatMap(([id, fn]) => {
        const variables = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables;
        if (variables === undefined) return [];
        const bytes = environmentBytes(longestValue(variables, types) as Record<string, unknown>);
        return bytes > LAMBDA_ENVIRONMENT_LIMIT_BYTES ? [`${id}'s environment may reach ${bytes} bytes`] : [];
      });
    },
  },
  {
    rule: 'removes stateful resources when a first create rolls back, and keeps them on delete and replacement',
    why: 'Kept after a failed first create (Retain), a table, bucket, secret, key or log group collides with the next try or goes on billing; deleted with the stack, data is lost.',
    check: (template) =>
      Object.entries(template.Resources).flatMap(([id, resource]) => {
        if (!STATEFUL_TYPES.includes(resource.Type)) return [];
        const problems: string[] = [];
        if (resource.DeletionPolicy !== 'RetainExceptOnCreate') {
          problems.push(`${id} (${resource.Type}) has DeletionPolicy ${resource.DeletionPolicy ?? 'Delete'}`);
        }
        if (resource.UpdateReplacePolicy !== 'Retain') {
          problems.push(
            `${id} (${resource.Type}) has UpdateReplacePolicy ${resource.UpdateReplacePolicy ?? 'Delete'}`,
          );
        }
        return problems;
      }),
  },
  {
    rule: 'leaves DynamoDB deletion protection off on the first create',
    why: 'A protected table cannot be deleted by a rollback: the failed first create ends in ROLLBACK_FAILED with the table left behind.',
    check: (template) =>
      [
        ...entriesOf(template, 'AWS::DynamoDB::GlobalTable'),
        ...entriesOf(template, 'AWS::DynamoDB::Table'),
      ].flatMap(([id, table]) =>
        JSON.stringify(table.Properties ?? {}).includes('"DeletionProtectionEnabled":true')
          ? [`${id} has deletion protection on`]
          : [],
      ),
  },
  {
    rule: 'names no partition in an ARN it writes (aws, aws-cn, aws-us-gov alike)',
    why: 'A literal `arn:aws:` fails or grants nothing in the China and GovCloud partitions.',
    check: (template) => {
      const found = JSON.stringify(template.Resources).match(/"arn:aws[a-z-]*:[^"]*"/g) ?? [];
      return found.map((arn) => `writes ${arn}`);
    },
  },
  {
    rule: "throttles every route of every API stage within the account's regional API Gateway quota (10,000 requests/s, burst 5,000)",
    why: "API Gateway applies a stage's throttle to each route on its own; a route above the account quota never throttles and lets the quota refuse every API of the account.",
    check: (template) =>
      entriesOf(template, 'AWS::ApiGatewayV2::Stage').flatMap(([id, stage]) => {
        type Throttle = { ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number };
        const routes: [string, Throttle | undefined][] = [
          ['its default route settings', stage.Properties?.DefaultRouteSettings as Throttle | undefined],
          ...Object.entries((stage.Properties?.RouteSettings as Record<string, Throttle> | undefined) ?? {}),
        ];
        return routes.flatMap(([route, settings]) => {
          const rate = settings?.ThrottlingRateLimit;
          const burst = settings?.ThrottlingBurstLimit;
          return rate === undefined || burst === undefined || rate > 10_000 || burst > 5_000
            ? [`${id} throttles ${route} at ${rate ?? 'no rate'}/s, burst ${burst ?? 'none'}`]
            : [];
        });
      }),
  },
  {
    rule: 'keeps FIFO queues FIFO throughout: a FIFO redrive queue, a name ending in .fifo, event sources without a batching window and with 10 messages a batch at most',
    why: 'SQS refuses a redrive queue of the other type and a FIFO name without the suffix (CDK only warns of the first), and Lambda a FIFO event source with a batching window or a batch over 10: the create fails partway.',
    check: (template) => {
      const queues = new Map(entriesOf(template, 'AWS::SQS::Queue'));
      const problems: string[] = [];
      for (const [id, queue] of queues) {
        const name = queue.Properties?.QueueName;
        if (typeof name === 'string') {
          if (isFifo(queue) !== name.endsWith('.fifo')) {
            problems.push(`${id} is ${isFifo(queue) ? 'FIFO' : 'standard'} and named ${name}`);
          }
          if (name.length > SQS_QUEUE_NAME_LIMIT) problems.push(`${id}'s name has ${name.length} characters`);
        }
        const target = refId(
          (queue.Properties?.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined)
            ?.deadLetterTargetArn,
        );
        if (target !== undefined && queues.has(target) && isFifo(queues.get(target)) !== isFifo(queue)) {
          problems.push(
            `${id} is ${isFifo(queue) ? 'FIFO' : 'standard'} and redrives to ${target}, ${isFifo(queues.get(target)) ? 'FIFO' : 'standard'}`,
          );
        }
      }
      for (const [id, mapping] of entriesOf(template, 'AWS::Lambda::EventSourceMapping')) {
        const source = refId(mapping.Properties?.EventSourceArn);
        if (source === undefined || !isFifo(queues.get(source))) continue;
        const window = mapping.Properties?.MaximumBatchingWindowInSeconds;
        if (typeof window === 'number' && window > 0) {
          problems.push(`${id} gathers ${source}'s messages for ${window} s`);
        }
        const batch = mapping.Properties?.BatchSize;
        if (typeof batch === 'number' && batch > 10)
          problems.push(`${id} takes ${batch} of ${source}'s messages a batch`);
      }
      return problems;
    },
  },
  {
    rule: "stays within CloudFormation's 500 resources and 200 outputs a stack",
    why: 'CloudFormation refuses a larger template before it creates anything.',
    check: (template) => {
      const resources = Object.keys(template.Resources).length;
      const outputs = Object.keys(template.Outputs ?? {}).length;
      return [
        ...(resources > 500 ? [`has ${resources} resources`] : []),
        ...(outputs > 200 ? [`has ${outputs} outputs`] : []),
      ];
    },
  },
  {
    rule: `keeps each role's inline policies under IAM's ${IAM_INLINE_POLICY_LIMIT_CHARACTERS.toLocaleString('en-US')} characters at the longest generated names`,
    why: "IAM refuses a policy that takes a role's inline policies past the limit; each declared destination adds a grant to the delivery role.",
    check: (template) => {
      const types = (id: string) => template.Resources[id]?.Type;
      const byRole = new Map<string, number>();
      for (const [, policy] of entriesOf(template, 'AWS::IAM::Policy')) {
        const document = longestValue(policy.Properties?.PolicyDocument, types);
        // IAM counts the policy's characters without white space.
        const characters = JSON.stringify(document).replace(/\s/g, '').length;
        for (const role of ((policy.Properties?.Roles as unknown[] | undefined) ?? []).flatMap(
          (each) => refId(each) ?? [],
        )) {
          byRole.set(role, (byRole.get(role) ?? 0) + characters);
        }
      }
      return [...byRole]
        .filter(([, characters]) => characters > IAM_INLINE_POLICY_LIMIT_CHARACTERS)
        .map(([role, characters]) => `${role}'s inline policies may reach ${characters} characters`);
    },
  },
  {
    rule: `stays within a fresh account's default quotas of the egress VPC: ${FRESH_ACCOUNT_QUOTAS.elasticIpsPerRegion} Elastic IPs and ${FRESH_ACCOUNT_QUOTAS.vpcsPerRegion} VPCs a region (the default VPC one of them), ${FRESH_ACCOUNT_QUOTAS.natGatewaysPerZone} NAT gateways a zone`,
    why: 'EC2 refuses the Elastic IP, VPC or NAT gateway past the quota, and the create fails partway with the network half made (each quota can be raised, but not during a deploy).',
    check: (template) => egressQuotaProblems(egressResourceCountsOfTemplate(template)),
  },
];

/**
 * What a template adds of each resource a fresh account's default quotas count: Elastic IPs,
 * VPCs, internet gateways, NAT gateways in one zone (by their subnet's zone), gateway endpoints,
 * interface endpoints in one VPC.
 */
export function egressResourceCountsOfTemplate(template: TemplateJson): EgressResourceCounts {
  const count = (type: string) => entriesOf(template, type).length;
  const mostInOne = (keys: string[]) => {
    const byKey = new Map<string, number>();
    for (const key of keys) byKey.set(key, (byKey.get(key) ?? 0) + 1);
    return Math.max(0, ...byKey.values());
  };
  const zoneOfSubnet = (subnet: string | undefined) =>
    JSON.stringify(template.Resources[subnet ?? '']?.Properties?.AvailabilityZone ?? subnet);
  const endpoints = entriesOf(template, 'AWS::EC2::VPCEndpoint');
  const ofType = (type: string) =>
    endpoints.filter(([, endpoint]) => endpoint.Properties?.VpcEndpointType === type);
  return {
    elasticIps: count('AWS::EC2::EIP'),
    vpcs: count('AWS::EC2::VPC'),
    internetGateways: count('AWS::EC2::InternetGateway'),
    natGatewaysInOneZone: mostInOne(
      entriesOf(template, 'AWS::EC2::NatGateway').map(([, nat]) =>
        zoneOfSubnet(refId(nat.Properties?.SubnetId)),
      ),
    ),
    gatewayEndpoints: ofType('Gateway').length,
    interfaceEndpointsInOneVpc: mostInOne(
      ofType('Interface').map(([, endpoint]) => JSON.stringify(endpoint.Properties?.VpcId)),
    ),
  };
}

/** Every rule's problems in `template`, as `rule: problem` lines; empty when all hold. */
export const deployProblems = (template: TemplateJson): string[] =>
  DEPLOY_RULES.flatMap(({ rule, check }) => check(template).map((problem) => `${rule}: ${problem}`));

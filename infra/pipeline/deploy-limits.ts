/**
 * Limits AWS enforces only when a template is deployed, checked at synthesis instead: a value a
 * template can only know as a reference (a queue's URL, a table's name, a resource's ARN) is
 * estimated at the longest it can realistically be, so a template that passes here can't fail
 * the deployment for being too long, however long the stack name, region and generated names.
 *
 * Today: each function's environment against Lambda's 4 KB, where the lists of AWS resources
 * subscriptions may deliver to (`resourceDestinations`) and of the buckets their dead letters may
 * be written to (`deadLetterBuckets`) are the parts that grow. The same estimates size the resource policies in `test/infra/reuse.test.ts`.
 * And the default quotas of a fresh account the `egress` prop's VPC counts against (Elastic IPs,
 * VPCs, NAT gateways, endpoints), warned of at synthesis since each can be raised.
 */
import { Annotations, CfnResource, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct, IConstruct } from 'constructs';
import { ENV } from '../../shared/config/resources';
import type { DeliveryNetwork } from './egress';

/** Lambda's limit on a function's environment variables, names and values together (not adjustable). */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4_096;

/** A realistic longest region (the longest names are 14 characters) and a 12-digit account. */
const REGION = 'ap-southeast-2';
const ACCOUNT = '123456789012';
/** CloudFormation's longest stack name. */
const STACK_NAME = 'S'.repeat(128);
const name = (length: number) => 'n'.repeat(length);

/** What the pseudo parameters resolve to, at their longest. */
export const LONGEST_PSEUDO: Readonly<Record<string, string>> = {
  'AWS::Region': REGION,
  'AWS::AccountId': ACCOUNT,
  // `aws-us-gov` is the longest partition, `amazonaws.com.cn` the longest URL suffix.
  'AWS::Partition': 'aws-us-gov',
  'AWS::URLSuffix': 'amazonaws.com.cn',
  'AWS::StackName': STACK_NAME,
};

/**
 * Per resource type: what `Ref` and `Fn::GetAtt` give, at their longest (the names CloudFormation
 * generates are cut to each service's limit).
 */
export const LONGEST_PHYSICAL: Readonly<
  Record<string, { readonly ref: string; readonly attributes: Readonly<Record<string, string>> }>
> = {
  'AWS::Lambda::Function': {
    ref: name(64),
    attributes: { Arn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name(64)}` },
  },
  // SQS names are at most 80 characters, a FIFO queue's `.fifo` included (CloudFormation cuts
  // the names it generates to fit, the suffix kept).
  'AWS::SQS::Queue': {
    ref: `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name(80)}`,
    attributes: { Arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${name(80)}`, QueueName: name(80) },
  },
  'AWS::S3::Bucket': { ref: name(63), attributes: { Arn: `arn:aws:s3:::${name(63)}` } },
  'AWS::KMS::Key': {
    ref: name(36),
    attributes: { Arn: `arn:aws:kms:${REGION}:${ACCOUNT}:key/${name(36)}` },
  },
  'AWS::SNS::Topic': {
    ref: `arn:aws:sns:${REGION}:${ACCOUNT}:${name(256)}`,
    attributes: { TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:${name(256)}`, TopicName: name(256) },
  },
  'AWS::Events::Rule': {
    ref: name(64),
    attributes: { Arn: `arn:aws:events:${REGION}:${ACCOUNT}:rule/${name(64)}` },
  },
  'AWS::Events::EventBus': {
    ref: name(256),
    attributes: { Arn: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${name(256)}`, Name: name(256) },
  },
  'AWS::Kinesis::Stream': {
    ref: name(128),
    attributes: { Arn: `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${name(128)}` },
  },
  'AWS::ApiGatewayV2::Api': {
    ref: name(10),
    attributes: {
      ApiId: name(10),
      ApiEndpoint: `https://${name(10)}.execute-api.${REGION}.amazonaws.com.cn`,
    },
  },
  'AWS::IAM::Role': { ref: name(64), attributes: { Arn: `arn:aws:iam::${ACCOUNT}:role/${name(64)}` } },
  'AWS::DynamoDB::GlobalTable': {
    ref: name(255),
    attributes: { Arn: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name(255)}` },
  },
  'AWS::SecretsManager::Secret': {
    // Secrets Manager ARNs end with a dash and six random characters.
    ref: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name(128)}-AbCdEf`,
    attributes: {},
  },
  // An IPv4 address at its longest; the allocation id is `eipalloc-` and 17 hex digits.
  'AWS::EC2::EIP': {
    ref: '255.255.255.255',
    attributes: { PublicIp: '255.255.255.255', AllocationId: `eipalloc-${'0'.repeat(17)}` },
  },
  'AWS::Lambda::Url': {
    ref: name(64),
    attributes: { FunctionUrl: `https://${name(32)}.lambda-url.${REGION}.on.aws/` },
  },
};

/**
 * The longest a value may be that the template can't know (an output of another stack, an
 * intrinsic function this estimate doesn't follow): the longest ARN of the services a pipeline
 * refers to (an SNS topic's, with its 256-character name).
 */
export const LONGEST_UNKNOWN = `arn:aws:sns:${REGION}:${ACCOUNT}:${name(256)}`;

/** The resource type of each logical id of a template; `undefined` for one not in it. */
export type ResourceTypes = (logicalId: string) => string | undefined;

/**
 * `value` (a template fragment) with every reference replaced by the longest value it can
 * realistically have. `strict` throws on a reference it can't estimate (tests, which must know
 * every one); otherwise such a reference counts as {@link LONGEST_UNKNOWN}.
 */
export function longestValue(value: unknown, types: ResourceTypes, strict = false): unknown {
  if (Array.isArray(value)) return value.map((item) => longestValue(item, types, strict));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [key, argument] = entries[0] ?? [];
  const unknown = (what: string): string => {
    if (strict) throw new Error(`no realistic value of ${what}`);
    return LONGEST_UNKNOWN;
  };
  if (entries.length === 1 && key === 'Ref') {
    const ref = argument as string;
    return LONGEST_PSEUDO[ref] ?? physicalOf(ref, types)?.ref ?? unknown(`Ref ${ref}`);
  }
  if (entries.length === 1 && key === 'Fn::GetAtt') {
    const [id, attribute] = argument as [string, string];
    return physicalOf(id, types)?.attributes[attribute] ?? unknown(`${attribute} of ${id}`);
  }
  if (entries.length === 1 && key === 'Fn::Join') {
    const [separator, parts] = argument as [string, unknown[]];
    return parts.map((part) => longestValue(part, types, strict)).join(separator);
  }
  if (entries.length === 1 && key?.startsWith('Fn::')) return unknown(key);
  return Object.fromEntries(entries.map(([k, v]) => [k, longestValue(v, types, strict)]));
}

const physicalOf = (id: string, types: ResourceTypes) => {
  const type = types(id);
  return type === undefined ? undefined : LONGEST_PHYSICAL[type];
};

/** The resource types of a stack's resources, by logical id, as its template will name them. */
export function resourceTypesOf(stack: Stack): ResourceTypes {
  const types = new Map<string, string>();
  for (const construct of stack.node.findAll()) {
    if (!CfnResource.isCfnResource(construct) || Stack.of(construct) !== stack) continue;
    types.set(stack.resolve(construct.logicalId) as string, construct.cfnResourceType);
  }
  return (logicalId) => types.get(logicalId);
}

/** The bytes of a function's environment as Lambda counts them: its variables as JSON. */
export const environmentBytes = (variables: Readonly<Record<string, unknown>>): number =>
  Buffer.byteLength(JSON.stringify(variables), 'utf8');

/** What one function's environment comes to at its longest, and its largest variables. */
export interface EnvironmentEstimate {
  readonly bytes: number;
  /** Each variable's name and its value's longest bytes, the largest first. */
  readonly largest: readonly (readonly [string, number])[];
}

/** A function's environment at its longest, from its CloudFormation resource. */
export function environmentEstimate(
  fn: IConstruct,
  types: ResourceTypes = resourceTypesOf(Stack.of(fn)),
): EnvironmentEstimate {
  const cfn = fn.node.defaultChild as CfnFunction;
  // The L1 property, resolved: its keys are still the construct's (`variables`), not the template's.
  const resolved = Stack.of(fn).resolve(cfn.environment) as
    | { variables?: Record<string, unknown> }
    | undefined;
  const variables = longestValue(resolved?.variables ?? {}, types) as Record<string, unknown>;
  const largest = Object.entries(variables)
    .map(([key, value]) => [key, Buffer.byteLength(String(value), 'utf8')] as const)
    .sort((a, b) => b[1] - a[1]);
  return { bytes: environmentBytes(variables), largest };
}

/**
 * What a variable of the functions' environment comes from, where a prop makes it grow: named in
 * the synth's error, so the fix is clear.
 */
const GROWING_VARIABLES: Readonly<Record<string, string>> = {
  [ENV.resourceDestinations]:
    'the AWS resources subscriptions may deliver to (the resourceDestinations prop: cover many resources with one pattern, such as arn:aws:sqs:eu-west-1:123456789012:orders-*, or declare the subscriptions in code, whose destinations are kept in the table)',
  [ENV.deadLetterBuckets]:
    "the S3 buckets dead letters may be written to (the deadLetterBuckets prop and declared subscriptions' deadLetter buckets: cover many buckets with one pattern, such as arn:aws:s3:::acme-dead-letters-*)",
  [ENV.portalFrameAncestors]:
    'the origins that may frame the portal (the portalFrameAncestors prop: cover many subdomains with one origin, such as https://*.example.com)',
  [ENV.portalBranding]: "the portal's look (the portalBranding prop: a shorter logoUrl)",
  [ENV.egressProxyUrl]: 'the egress proxy (the egress.proxyUrl prop: a shorter host name or credentials)',
  [ENV.egressAddresses]:
    'the egress addresses (the egress.addresses prop, or egress.natGateways: fewer NAT gateways)',
};

/**
 * Each function whose environment may exceed Lambda's limit, as a message naming the function,
 * its estimate, and what its largest variable comes from; none when all fit.
 */
export function environmentProblems(functions: Readonly<Record<string, IConstruct>>): string[] {
  return Object.entries(functions).flatMap(([key, fn]) => {
    const { bytes, largest } = environmentEstimate(fn);
    if (bytes <= LAMBDA_ENVIRONMENT_LIMIT_BYTES) return [];
    const [variable, size] = largest[0] ?? ['', 0];
    const source = GROWING_VARIABLES[variable] ?? `the ${variable} variable`;
    return [
      `The ${key} function's environment may reach ${bytes} bytes at the longest names AWS can generate, over Lambda's limit of ${LAMBDA_ENVIRONMENT_LIMIT_BYTES}: ${size} bytes of it are ${source}.`,
    ];
  });
}

/**
 * A fresh account's default quotas that the `egress` prop's VPC counts against, each adjustable
 * in Service Quotas (its code given). Lambda's network interfaces in the VPC are Hyperplane ENIs,
 * one per subnet and security group the function uses (2 with the default two zones), shared by
 * all its instances: far from the 5,000 network interfaces a region allows, and not counted here.
 */
export const FRESH_ACCOUNT_QUOTAS = {
  /** Elastic IP addresses per region (L-0263D0A3): one per NAT gateway of the construct's VPC. */
  elasticIpsPerRegion: 5,
  /** VPCs per region (L-F678F1CE); a fresh account's default VPC is one of them. */
  vpcsPerRegion: 5,
  /** VPCs a fresh account has before any deploy: its default VPC. */
  vpcsAlreadyThere: 1,
  /** Internet gateways per region (L-A4707A72); the default VPC has one. */
  internetGatewaysPerRegion: 5,
  /** NAT gateways per Availability Zone (L-FE5A380F): the construct's VPC puts one in each zone. */
  natGatewaysPerZone: 5,
  /** Gateway VPC endpoints per region (L-1B52E74A): S3 and DynamoDB, two per VPC made. */
  gatewayEndpointsPerRegion: 20,
  /** Interface VPC endpoints per VPC (L-29B6F2EB): SQS and Secrets Manager with `interfaceEndpoints`. */
  interfaceEndpointsPerVpc: 50,
} as const;

/** What a template (or a pipeline's network) adds of each resource a fresh account's quotas count. */
export interface EgressResourceCounts {
  readonly elasticIps: number;
  readonly vpcs: number;
  readonly internetGateways: number;
  /** The most NAT gateways in one Availability Zone. */
  readonly natGatewaysInOneZone: number;
  readonly gatewayEndpoints: number;
  /** The most interface endpoints in one VPC. */
  readonly interfaceEndpointsInOneVpc: number;
}

/**
 * Each default quota of a fresh account `counts` would exceed, as a message naming the quota, its
 * code and what to change; none when all fit. Several stacks in one region share the quotas: two
 * pipelines with the default two NAT gateways hold 4 of the 5 Elastic IPs.
 */
export function egressQuotaProblems(counts: EgressResourceCounts): string[] {
  const q = FRESH_ACCOUNT_QUOTAS;
  const problems: string[] = [];
  if (counts.elasticIps > q.elasticIpsPerRegion) {
    problems.push(
      `${counts.elasticIps} Elastic IPs, over the ${q.elasticIpsPerRegion} a fresh account may hold in a region (L-0263D0A3): give egress.natGateways ${q.elasticIpsPerRegion} or fewer, or have the quota raised first`,
    );
  }
  const vpcsLeft = q.vpcsPerRegion - q.vpcsAlreadyThere;
  if (counts.vpcs > vpcsLeft) {
    problems.push(
      `${counts.vpcs} VPCs, over the ${vpcsLeft} a fresh account has left in a region beside its default VPC (L-F678F1CE, ${q.vpcsPerRegion}): share one with egress.vpc`,
    );
  }
  const gatewaysLeft = q.internetGatewaysPerRegion - q.vpcsAlreadyThere;
  if (counts.internetGateways > gatewaysLeft) {
    problems.push(
      `${counts.internetGateways} internet gateways, over the ${gatewaysLeft} a fresh account has left in a region (L-A4707A72, ${q.internetGatewaysPerRegion}): share one VPC with egress.vpc`,
    );
  }
  if (counts.natGatewaysInOneZone > q.natGatewaysPerZone) {
    problems.push(
      `${counts.natGatewaysInOneZone} NAT gateways in one Availability Zone, over the ${q.natGatewaysPerZone} a zone allows (L-FE5A380F)`,
    );
  }
  if (counts.gatewayEndpoints > q.gatewayEndpointsPerRegion) {
    problems.push(
      `${counts.gatewayEndpoints} gateway VPC endpoints, over the ${q.gatewayEndpointsPerRegion} a region allows (L-1B52E74A)`,
    );
  }
  if (counts.interfaceEndpointsInOneVpc > q.interfaceEndpointsPerVpc) {
    problems.push(
      `${counts.interfaceEndpointsInOneVpc} interface endpoints in one VPC, over the ${q.interfaceEndpointsPerVpc} a VPC allows (L-29B6F2EB)`,
    );
  }
  return problems;
}

/** What one pipeline's delivery network adds of each resource the quotas count. */
export function egressResourceCountsOf(network: DeliveryNetwork): EgressResourceCounts {
  const made = network.createdVpc;
  const within = made === undefined ? [] : made.node.findAll();
  return {
    elasticIps: network.elasticIps.length,
    vpcs: made === undefined ? 0 : 1,
    internetGateways: made === undefined ? 0 : 1,
    // One NAT gateway in each of the VPC's zones.
    natGatewaysInOneZone: made === undefined ? 0 : 1,
    gatewayEndpoints: within.filter((c) => c instanceof ec2.GatewayVpcEndpoint).length,
    interfaceEndpointsInOneVpc: within.filter((c) => c instanceof ec2.InterfaceVpcEndpoint).length,
  };
}

/**
 * A synth-time warning for each default quota of a fresh account the pipeline's VPC would exceed
 * (adjustable, so not an error): the deploy would otherwise fail partway with the VPC half made.
 */
export function warnOfEgressQuotas(scope: Construct, network: DeliveryNetwork): void {
  for (const problem of egressQuotaProblems(egressResourceCountsOf(network))) {
    Annotations.of(scope).addWarningV2(
      'gridwire:egressQuota',
      `The egress prop's VPC needs ${problem}. Check the account's quotas ("aws service-quotas get-service-quota --service-code ec2 --quota-code L-0263D0A3" for Elastic IPs) before deploying.`,
    );
  }
}

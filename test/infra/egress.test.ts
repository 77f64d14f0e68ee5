/**
 * The `egress` prop: the delivery function in a new VPC whose NAT gateways have the construct's
 * own Elastic IPs (the addresses output and given to the delivery and management functions), or
 * in a VPC of the deployer's; the proxy URL checked at synthesis; the fresh account's quotas the
 * VPC counts against; and nothing of it in the default template, which stays as it was.
 */
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import type { DeliveryPipelineProps, EgressProps } from '../../infra/delivery-pipeline-props';
import { GridwireStack } from '../../infra/gridwire-stack';
import { egressQuotaProblems, FRESH_ACCOUNT_QUOTAS } from '../../infra/pipeline/deploy-limits';
import { VPC_ACCESS_ACTIONS } from '../../infra/pipeline-function';
import { ENV, FUNCTIONS, type FunctionKey, pipelineOutputNames } from '../../shared/config/resources';
import { RULE_PACKS, unacknowledged } from '../support/compliance';
import {
  DEPLOY_RULES,
  deployProblems,
  egressResourceCountsOfTemplate,
  type TemplateJson,
} from '../support/deploy-rules';

// Skip asset bundling: these tests are about the template.
const newApp = (context: Record<string, unknown> = {}) =>
  new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };

const synth = (pipeline?: DeliveryPipelineProps) => {
  const app = newApp();
  const stack = new GridwireStack(app, 'Test', pipeline === undefined ? {} : { pipeline });
  const template = Template.fromStack(stack);
  return {
    app,
    stack,
    template,
    json: template.toJSON() as TemplateJson & { Resources: Record<string, Resource> },
  };
};

const resourcesOf = (json: { Resources: Record<string, Resource> }, type: string): [string, Resource][] =>
  Object.entries(json.Resources).filter(([, resource]) => resource.Type === type);

/** A function's resource, by its key. */
const functionOf = (json: { Resources: Record<string, Resource> }, key: FunctionKey): Resource => {
  const found = resourcesOf(json, 'AWS::Lambda::Function').find(
    ([, resource]) => resource.Properties.Description === FUNCTIONS[key].description,
  );
  if (found === undefined) throw new Error(`no ${key} function`);
  return found[1];
};

const variablesOf = (json: { Resources: Record<string, Resource> }, key: FunctionKey) =>
  (functionOf(json, key).Properties.Environment as { Variables: Record<string, unknown> }).Variables;

/** Every statement of the policies attached to a function's role. */
const statementsOf = (json: { Resources: Record<string, Resource> }, key: FunctionKey) => {
  const role = (functionOf(json, key).Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
  return resourcesOf(json, 'AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(`"${role}"`))
    .flatMap(
      ([, policy]) =>
        (
          policy.Properties.PolicyDocument as {
            Statement: { Action: string | string[]; Resource: unknown }[];
          }
        ).Statement,
    );
};

const actionsOf = (json: { Resources: Record<string, Resource> }, key: FunctionKey) =>
  statementsOf(json, key).flatMap((statement) => ([] as string[]).concat(statement.Action));

const ALL_VPC_ACTIONS = [...VPC_ACCESS_ACTIONS.anyResource, ...VPC_ACCESS_ACTIONS.networkInterfaces];

describe('off by default', () => {
  const base = synth();
  it.each<[string, EgressProps | undefined]>([
    ['egress: undefined', undefined],
    ['egress: {}', {}],
    ['staticIps: false', { staticIps: false }],
  ])('the template with %s is the default one, byte for byte', (_label, egress) => {
    const { json } = synth({ egress });
    expect(JSON.stringify(json)).toBe(JSON.stringify(base.json));
  });

  it('has no EC2 resource, no function in a VPC, no egress variable, output or VPC grant', () => {
    expect(
      Object.values(base.json.Resources).filter((resource) => resource.Type.startsWith('AWS::EC2::')),
    ).toEqual([]);
    for (const [id, fn] of resourcesOf(base.json, 'AWS::Lambda::Function')) {
      expect([id, fn.Properties.VpcConfig]).toEqual([id, undefined]);
      const variables = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      expect(Object.keys(variables ?? {})).not.toEqual(
        expect.arrayContaining([ENV.egressAddresses, ENV.egressProxyUrl]),
      );
    }
    expect(Object.keys(base.json.Outputs ?? {})).not.toContain(pipelineOutputNames().egressAddresses);
    expect(JSON.stringify(base.json)).not.toMatch(/ec2:/);
    expect(base.stack.pipeline.egress).toBeUndefined();
  });
});

describe('staticIps: a new VPC with the default two NAT gateways', () => {
  const built = synth({ egress: { staticIps: true, proxyUrl: 'http://proxy.internal.example:3128' } });
  const { json, template } = built;

  it('makes two Elastic IPs and a NAT gateway on each, one per public subnet', () => {
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.resourceCountIs('AWS::EC2::EIP', 2);
    template.resourceCountIs('AWS::EC2::NatGateway', 2);
    const eips = resourcesOf(json, 'AWS::EC2::EIP').map(([id]) => id);
    const allocations = resourcesOf(json, 'AWS::EC2::NatGateway').map(
      ([, nat]) => (nat.Properties.AllocationId as { 'Fn::GetAtt': string[] })['Fn::GetAtt'],
    );
    expect(allocations).toEqual(eips.map((id) => [id, 'AllocationId']));
    expect(resourcesOf(json, 'AWS::EC2::Subnet')).toHaveLength(4);
  });

  it('sets the VPC in two zones, with a public and a private subnet in each', () => {
    const subnets = resourcesOf(json, 'AWS::EC2::Subnet').map(([, subnet]) => subnet.Properties);
    expect(subnets.filter((subnet) => subnet.MapPublicIpOnLaunch === true)).toHaveLength(2);
    expect(subnets.filter((subnet) => subnet.MapPublicIpOnLaunch === false)).toHaveLength(2);
    expect(new Set(subnets.map((subnet) => JSON.stringify(subnet.AvailabilityZone))).size).toBe(2);
  });

  it('adds the free gateway endpoints for S3 and DynamoDB, and no interface endpoint', () => {
    const endpoints = resourcesOf(json, 'AWS::EC2::VPCEndpoint').map(([, endpoint]) => endpoint.Properties);
    expect(endpoints.map((endpoint) => endpoint.VpcEndpointType)).toEqual(['Gateway', 'Gateway']);
    const services = endpoints.map((endpoint) => JSON.stringify(endpoint.ServiceName));
    expect(services).toEqual([expect.stringContaining('.s3'), expect.stringContaining('.dynamodb')]);
    for (const endpoint of endpoints) expect(endpoint.RouteTableIds).toHaveLength(2);
  });

  it('puts the delivery function, and it alone, in the private subnets with its own security group', () => {
    const pipeline = built.stack.pipeline;
    const network = pipeline.egress;
    if (network === undefined) throw new Error('no egress network');
    const privateSubnets = network.vpc.privateSubnets.map((subnet) => ({
      Ref: built.stack.getLogicalId(subnet.node.defaultChild as never),
    }));
    expect(functionOf(json, 'delivery').Properties.VpcConfig).toEqual({
      SubnetIds: privateSubnets,
      SecurityGroupIds: [
        {
          'Fn::GetAtt': [
            built.stack.getLogicalId(network.securityGroup.node.defaultChild as never),
            'GroupId',
          ],
        },
      ],
    });
    for (const key of ['publish', 'management', 'deadLetter'] as const) {
      expect([key, functionOf(json, key).Properties.VpcConfig]).toEqual([key, undefined]);
    }
  });

  it('lets the delivery function out everywhere and nothing in', () => {
    const [group] = resourcesOf(json, 'AWS::EC2::SecurityGroup');
    expect(group?.[1].Properties).toMatchObject({
      SecurityGroupEgress: [{ CidrIp: '0.0.0.0/0', IpProtocol: '-1' }],
    });
    expect(group?.[1].Properties.SecurityGroupIngress).toBeUndefined();
    template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
  });

  it('grants the delivery role the network interface actions inline, and no managed policy anywhere', () => {
    expect(actionsOf(json, 'delivery')).toEqual(expect.arrayContaining(ALL_VPC_ACTIONS));
    for (const key of ['publish', 'management', 'deadLetter'] as const) {
      expect([key, actionsOf(json, key).filter((action) => action.startsWith('ec2:'))]).toEqual([key, []]);
    }
    for (const [id, role] of resourcesOf(json, 'AWS::IAM::Role')) {
      expect([id, role.Properties.ManagedPolicyArns]).toEqual([id, undefined]);
    }
    const wildcard = statementsOf(json, 'delivery').find((statement) => statement.Resource === '*');
    expect(wildcard?.Action).toEqual([...VPC_ACCESS_ACTIONS.anyResource]);
  });

  it('makes the delivery function after its subnets can reach the internet', () => {
    const after = functionOf(json, 'delivery').DependsOn ?? [];
    expect(after.filter((id) => /DefaultRoute/.test(id))).toHaveLength(2);
  });

  it('outputs the Elastic IPs comma-joined, under a fixed name', () => {
    const eips = resourcesOf(json, 'AWS::EC2::EIP').map(([id]) => ({ 'Fn::GetAtt': [id, 'PublicIp'] }));
    template.hasOutput('EgressAddresses', { Value: { 'Fn::Join': [',', eips] } });
  });

  it('gives the same list and the proxy to the delivery and management functions only', () => {
    const eips = resourcesOf(json, 'AWS::EC2::EIP').map(([id]) => ({ 'Fn::GetAtt': [id, 'PublicIp'] }));
    for (const key of ['delivery', 'management'] as const) {
      expect(variablesOf(json, key)[ENV.egressAddresses]).toEqual({ 'Fn::Join': [',', eips] });
    }
    for (const key of ['delivery', 'management'] as const) {
      expect(variablesOf(json, key)[ENV.egressProxyUrl]).toBe('http://proxy.internal.example:3128');
    }
    for (const key of ['publish', 'deadLetter'] as const) {
      expect(variablesOf(json, key)[ENV.egressProxyUrl]).toBeUndefined();
    }
    for (const key of ['publish', 'deadLetter'] as const) {
      expect(variablesOf(json, key)[ENV.egressAddresses]).toBeUndefined();
    }
  });

  it.each(RULE_PACKS)('leaves the %s rule pack nothing unacknowledged', (_name, pack) => {
    expect(unacknowledged(pack, built.app)).toEqual([]);
  });

  it('passes every deploy rule', () => {
    expect(deployProblems(json)).toEqual([]);
  });
});

describe('natGateways: 1', () => {
  const { json, template } = synth({ egress: { staticIps: true, natGateways: 1 } });

  it('makes one NAT gateway, one Elastic IP, and one zone of subnets', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    template.resourceCountIs('AWS::EC2::EIP', 1);
    template.resourceCountIs('AWS::EC2::Subnet', 2);
    expect(
      (functionOf(json, 'delivery').Properties.VpcConfig as { SubnetIds: unknown[] }).SubnetIds,
    ).toHaveLength(1);
  });

  it('outputs the one address', () => {
    const [eip] = resourcesOf(json, 'AWS::EC2::EIP');
    template.hasOutput('EgressAddresses', {
      // One address needs no join.
      Value: { 'Fn::GetAtt': [eip?.[0], 'PublicIp'] },
    });
  });
});

describe('interfaceEndpoints: true', () => {
  const { json, template } = synth({ egress: { staticIps: true, interfaceEndpoints: true } });
  const interfaces = () =>
    resourcesOf(json, 'AWS::EC2::VPCEndpoint')
      .map(([, endpoint]) => endpoint.Properties)
      .filter((endpoint) => endpoint.VpcEndpointType === 'Interface');

  it('adds SQS and Secrets Manager endpoints with private DNS in the private subnets', () => {
    const endpoints = interfaces();
    expect(endpoints.map((endpoint) => JSON.stringify(endpoint.ServiceName))).toEqual([
      expect.stringContaining('.sqs'),
      expect.stringContaining('.secretsmanager'),
    ]);
    for (const endpoint of endpoints) {
      expect(endpoint.PrivateDnsEnabled).toBe(true);
      expect(endpoint.SubnetIds).toHaveLength(2);
    }
  });

  it('opens the endpoints to the delivery function only, on 443', () => {
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      IpProtocol: 'tcp',
      FromPort: 443,
      ToPort: 443,
      SourceSecurityGroupId: Match.anyValue(),
    });
    const groups = resourcesOf(json, 'AWS::EC2::SecurityGroup').map(([, group]) => group.Properties);
    expect(groups.filter((group) => group.SecurityGroupIngress !== undefined)).toEqual([]);
  });
});

describe('an existing VPC', () => {
  /** A stack with a VPC of its own (flow logs acknowledged: the test's, not the construct's). */
  const stackWithVpc = (subnetConfiguration?: ec2.SubnetConfiguration[]) => {
    const app = newApp();
    const stack = new Stack(app, 'Shared');
    const vpc = new ec2.Vpc(stack, 'Network', {
      maxAzs: 2,
      natGateways: 1,
      restrictDefaultSecurityGroup: false,
      ...(subnetConfiguration === undefined ? {} : { subnetConfiguration }),
    });
    Validations.of(vpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: "The test's own VPC." });
    return { app, stack, vpc };
  };
  const { app, stack, vpc } = stackWithVpc();
  const pipeline = new DeliveryPipeline(stack, 'Pipeline', {
    egress: { vpc, addresses: ['203.0.113.10', '203.0.113.11'] },
  });
  const template = Template.fromStack(stack);
  const json = template.toJSON() as TemplateJson & { Resources: Record<string, Resource> };

  it("puts the delivery function in the VPC's private subnets, with a security group of its own", () => {
    expect(functionOf(json, 'delivery').Properties.VpcConfig).toEqual({
      SubnetIds: vpc.privateSubnets.map((subnet) => ({
        Ref: stack.getLogicalId(subnet.node.defaultChild as never),
      })),
      SecurityGroupIds: [
        {
          'Fn::GetAtt': [
            stack.getLogicalId(pipeline.egress?.securityGroup.node.defaultChild as never),
            'GroupId',
          ],
        },
      ],
    });
    expect(pipeline.egress?.securityGroup.node.path).toBe('Shared/Pipeline/Egress/DeliverySecurityGroup');
  });

  it('makes no VPC, NAT gateway or Elastic IP of its own', () => {
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    const made = Object.keys(json.Resources).filter(
      (id) => id.startsWith('Pipeline') && json.Resources[id]?.Type.startsWith('AWS::EC2::'),
    );
    expect(made.map((id) => json.Resources[id]?.Type)).toEqual(['AWS::EC2::SecurityGroup']);
    expect(pipeline.egress?.elasticIps).toEqual([]);
  });

  it('outputs and gives the functions the addresses given', () => {
    template.hasOutput('EgressAddresses', { Value: '203.0.113.10,203.0.113.11' });
    expect(variablesOf(json, 'delivery')[ENV.egressAddresses]).toBe('203.0.113.10,203.0.113.11');
    expect(variablesOf(json, 'management')[ENV.egressAddresses]).toBe('203.0.113.10,203.0.113.11');
  });

  it.each(RULE_PACKS)('leaves the %s rule pack nothing unacknowledged', (_name, pack) => {
    expect(unacknowledged(pack, app)).toEqual([]);
  });

  it('outputs nothing and sets no variable without addresses', () => {
    const other = stackWithVpc();
    new DeliveryPipeline(other.stack, 'Pipeline', { egress: { vpc: other.vpc } });
    const plain = Template.fromStack(other.stack).toJSON() as TemplateJson & {
      Resources: Record<string, Resource>;
    };
    expect(Object.keys(plain.Outputs ?? {})).not.toContain('EgressAddresses');
    expect(variablesOf(plain, 'delivery')[ENV.egressAddresses]).toBeUndefined();
    expect(functionOf(plain, 'delivery').Properties.VpcConfig).toBeDefined();
  });

  it('takes a VPC imported by its attributes', () => {
    const importing = new Stack(newApp(), 'Importing');
    const imported = ec2.Vpc.fromVpcAttributes(importing, 'Imported', {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['us-east-1a', 'us-east-1b'],
      privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
    });
    new DeliveryPipeline(importing, 'Pipeline', { egress: { vpc: imported, addresses: ['198.51.100.7'] } });
    const imports = Template.fromStack(importing).toJSON() as TemplateJson & {
      Resources: Record<string, Resource>;
    };
    expect(functionOf(imports, 'delivery').Properties.VpcConfig).toMatchObject({
      SubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
    });
    expect(resourcesOf(imports, 'AWS::EC2::SecurityGroup')[0]?.[1].Properties.VpcId).toBe(
      'vpc-0123456789abcdef0',
    );
  });

  it('fails synthesis naming egress.vpc when the VPC has no private subnets with egress', () => {
    const isolated = stackWithVpc([
      { name: 'Public', subnetType: ec2.SubnetType.PUBLIC },
      { name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    ]);
    expect(() => new DeliveryPipeline(isolated.stack, 'Pipeline', { egress: { vpc: isolated.vpc } })).toThrow(
      /egress\.vpc \(Shared\/Network\) has no PRIVATE_WITH_EGRESS subnets/,
    );
  });
});

describe('props checked at synthesis', () => {
  const fails = (egress: EgressProps) => () =>
    new DeliveryPipeline(new Stack(newApp(), 'Bad'), 'Pipeline', { egress });

  it.each([
    ['https://proxy.example.com:3128', /egress\.proxyUrl: the proxy is reached over plain HTTP/],
    ['proxy.example.com:3128', /egress\.proxyUrl/],
    ['http://proxy.example.com:3128/path', /egress\.proxyUrl: give the proxy as http:\/\/host:port/],
    ['not a url', /egress\.proxyUrl: 'not a url' is not a URL/],
  ])('a bad proxyUrl (%s) fails naming the prop', (proxyUrl, message) => {
    expect(fails({ proxyUrl })).toThrow(message);
  });

  it('a proxy alone puts nothing in a VPC', () => {
    const { json } = synth({ egress: { proxyUrl: 'http://user:secret@proxy.example.com:8080' } });
    expect(functionOf(json, 'delivery').Properties.VpcConfig).toBeUndefined();
    expect(variablesOf(json, 'delivery')[ENV.egressProxyUrl]).toBe(
      'http://user:secret@proxy.example.com:8080',
    );
  });

  it.each<[string, EgressProps, RegExp]>([
    [
      'no NAT gateway',
      { staticIps: true, natGateways: 0 },
      /egress\.natGateways must be an integer of at least 1/,
    ],
    ['a fraction of one', { staticIps: true, natGateways: 1.5 }, /egress\.natGateways must be an integer/],
    [
      'NAT gateways without staticIps',
      { natGateways: 1 },
      /egress\.natGateways needs egress\.staticIps: true/,
    ],
    [
      'interface endpoints without staticIps',
      { interfaceEndpoints: true },
      /egress\.interfaceEndpoints needs/,
    ],
    [
      'addresses without a VPC',
      { staticIps: true, addresses: ['203.0.113.1'] },
      /egress\.addresses is for egress\.vpc/,
    ],
  ])('%s fails naming the field', (_label, egress, message) => {
    expect(fails(egress)).toThrow(message);
  });

  it('addresses that are not IP addresses, or repeated, fail naming the field', () => {
    const vpc = ec2.Vpc.fromVpcAttributes(new Stack(newApp(), 'Other'), 'Imported', {
      vpcId: 'vpc-1',
      availabilityZones: ['us-east-1a'],
      privateSubnetIds: ['subnet-1'],
    });
    expect(fails({ vpc, addresses: ['nat.example.com'] })).toThrow(/egress\.addresses must be IP addresses/);
    expect(fails({ vpc, addresses: ['203.0.113.1', '203.0.113.1'] })).toThrow(
      /egress\.addresses names 203\.0\.113\.1 more than once/,
    );
    expect(fails({ vpc, natGateways: 2 })).toThrow(/egress\.natGateways is for the VPC the construct makes/);
  });

  it('more NAT gateways than an environment-agnostic stack has zones fails naming the prop', () => {
    expect(fails({ staticIps: true, natGateways: 3 })).toThrow(
      /egress\.natGateways is 3, one per Availability Zone, but the stack knows 2 zones.*give the stack an account and region/,
    );
  });
});

describe("a fresh account's quotas", () => {
  const ACCOUNT = '123456789012';
  const REGION = 'us-east-1';
  const ZONES = ['a', 'b', 'c', 'd', 'e', 'f'].map((zone) => `${REGION}${zone}`);
  /** A stack in an account and region with six zones (as us-east-1 has), with `natGateways`. */
  const withNatGateways = (natGateways: number) => {
    const app = newApp({ [`availability-zones:account=${ACCOUNT}:region=${REGION}`]: ZONES });
    const stack = new Stack(app, 'Zones', { env: { account: ACCOUNT, region: REGION } });
    new DeliveryPipeline(stack, 'Pipeline', { egress: { staticIps: true, natGateways } });
    return { stack, json: Template.fromStack(stack).toJSON() as TemplateJson };
  };
  const quotaRule = DEPLOY_RULES.find(({ rule }) => rule.includes('default quotas of the egress VPC'));
  const over = withNatGateways(FRESH_ACCOUNT_QUOTAS.elasticIpsPerRegion + 1);
  const at = withNatGateways(FRESH_ACCOUNT_QUOTAS.elasticIpsPerRegion);

  it('the deploy rehearsal refuses more NAT gateways (and Elastic IPs) than the default Elastic IP quota', () => {
    expect(quotaRule?.check(over.json)).toEqual([
      expect.stringMatching(/^6 Elastic IPs, over the 5 .*L-0263D0A3/),
    ]);
    expect(quotaRule?.check(at.json)).toEqual([]);
  });

  it('the synth warns of it, naming the prop', () => {
    Annotations.fromStack(over.stack).hasWarning(
      '/Zones/Pipeline',
      Match.stringLikeRegexp('6 Elastic IPs, over the 5 .* egress\\.natGateways 5 or fewer'),
    );
    expect(Annotations.fromStack(at.stack).findWarning('*', Match.stringLikeRegexp('Elastic IPs'))).toEqual(
      [],
    );
  });

  it('counts one NAT gateway a zone, one VPC and its internet gateway, two gateway endpoints', () => {
    expect(egressResourceCountsOfTemplate(at.json)).toEqual({
      elasticIps: 5,
      vpcs: 1,
      internetGateways: 1,
      natGatewaysInOneZone: 1,
      gatewayEndpoints: 2,
      interfaceEndpointsInOneVpc: 0,
    });
  });

  it('leaves room for four VPCs beside the default one', () => {
    const counts = {
      elasticIps: 0,
      internetGateways: 0,
      natGatewaysInOneZone: 0,
      gatewayEndpoints: 0,
      interfaceEndpointsInOneVpc: 0,
    };
    expect(egressQuotaProblems({ ...counts, vpcs: 4 })).toEqual([]);
    expect(egressQuotaProblems({ ...counts, vpcs: 5 })).toEqual([
      expect.stringMatching(/^5 VPCs, over the 4/),
    ]);
    expect(egressQuotaProblems({ ...counts, vpcs: 0, natGatewaysInOneZone: 6 })).toEqual([
      expect.stringMatching(/NAT gateways in one Availability Zone/),
    ]);
  });
});

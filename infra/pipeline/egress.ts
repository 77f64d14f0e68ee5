/**
 * Where requests to endpoints leave AWS (the `egress` prop): the delivery function in private
 * subnets behind NAT gateways with Elastic IPs of the construct's own (or in a VPC of the
 * deployer's), so receivers behind a firewall can allow-list fixed addresses; and the HTTP proxy
 * those requests may go through. Only the delivery function calls endpoints (deliveries, the
 * validation handshake, OAuth token requests: `shared/lambda/wiring/delivery.ts`), so only it is
 * put in the VPC; the other functions stay outside any VPC.
 */
import { isIP } from 'node:net';
import { CfnOutput, Fn, Stack, Token, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import { checkProxyUrl } from '../../shared/config/egress';
import { pipelineOutputNames } from '../../shared/config/resources';
import type { EgressProps } from '../delivery-pipeline-props';

/** NAT gateways (and so Elastic IPs and Availability Zones) of the construct's VPC by default. */
export const DEFAULT_NAT_GATEWAYS = 2;

/** The subnets the delivery function runs in: private, their default route through a NAT. */
export const DELIVERY_SUBNETS: ec2.SubnetSelection = { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS };

/**
 * The VPC's address range and its subnets' sizes: a /24 public subnet per zone holds its NAT
 * gateway; a /20 private subnet per zone leaves room for Lambda's network interfaces (one per
 * subnet and security group, shared by the function's instances) and anything the deployer adds.
 */
const VPC_CIDR = '10.0.0.0/16';
const PUBLIC_CIDR_MASK = 24;
const PRIVATE_CIDR_MASK = 20;

/** The network the delivery function runs in, and the addresses its requests leave from. */
export interface DeliveryNetwork {
  readonly vpc: ec2.IVpc;
  readonly subnets: ec2.SubnetSelection;
  /** The delivery function's own: all outbound allowed, nothing inbound. */
  readonly securityGroup: ec2.SecurityGroup;
  /**
   * The public addresses requests to endpoints leave from: the Elastic IPs' (tokens until
   * deployed), or the `addresses` given with an existing VPC; empty when none are known.
   */
  readonly addresses: readonly string[];
  /** The Elastic IPs the construct made for its NAT gateways; none with an existing VPC. */
  readonly elasticIps: readonly ec2.CfnEIP[];
  /** The VPC the construct made; undefined with an existing one. */
  readonly createdVpc?: ec2.Vpc;
}

/** Whether `egress` puts the delivery function in a VPC: `staticIps`, or a VPC given. */
export const usesVpc = (egress: EgressProps | undefined): boolean =>
  egress !== undefined && (egress.staticIps === true || egress.vpc !== undefined);

/**
 * What is wrong with the `egress` prop, each problem naming its field: `natGateways` an integer
 * of at least 1 and only for the construct's own VPC, as `interfaceEndpoints` is; `addresses`
 * only with `vpc`, each an IP address, none twice; `proxyUrl` as the delivery function checks it
 * when it starts (`checkProxyUrl`).
 */
export function egressProblems(egress: EgressProps | undefined): string[] {
  if (egress === undefined) return [];
  const problems: string[] = [];
  const ownVpc = egress.staticIps === true && egress.vpc === undefined;
  const { natGateways, addresses, proxyUrl } = egress;
  if (natGateways !== undefined) {
    if (!Number.isInteger(natGateways) || natGateways < 1) {
      problems.push(`egress.natGateways must be an integer of at least 1 (got ${natGateways})`);
    } else if (!ownVpc) {
      problems.push(
        egress.vpc === undefined
          ? 'egress.natGateways needs egress.staticIps: true (the NAT gateways of the VPC the construct makes)'
          : "egress.natGateways is for the VPC the construct makes; with egress.vpc, the VPC's own NAT serves",
      );
    }
  }
  if (egress.interfaceEndpoints === true && !ownVpc) {
    problems.push(
      egress.vpc === undefined
        ? 'egress.interfaceEndpoints needs egress.staticIps: true (they are made in the VPC the construct makes)'
        : 'egress.interfaceEndpoints is for the VPC the construct makes; add endpoints to egress.vpc yourself',
    );
  }
  if (addresses !== undefined) {
    if (egress.vpc === undefined) {
      problems.push(
        "egress.addresses is for egress.vpc: the construct's own VPC shows its Elastic IPs without it",
      );
    }
    const known = addresses.filter((address) => !Token.isUnresolved(address));
    for (const address of known) {
      if (typeof address !== 'string' || isIP(address) === 0) {
        problems.push(
          `egress.addresses must be IP addresses such as 203.0.113.10 (got ${JSON.stringify(address)})`,
        );
      }
    }
    const repeated = known.filter((address, index) => known.indexOf(address) !== index);
    if (repeated.length > 0) problems.push(`egress.addresses names ${repeated.join(', ')} more than once`);
  }
  if (proxyUrl !== undefined && !Token.isUnresolved(proxyUrl)) {
    try {
      checkProxyUrl('egress.proxyUrl', proxyUrl);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}

/**
 * The delivery function's network, or `undefined` when `egress` puts it in no VPC: a new VPC
 * (`staticIps`) with its NAT gateways' Elastic IPs, or the given `vpc`'s private subnets with
 * egress; either way a security group of its own.
 */
export function createDeliveryNetwork(
  scope: Construct,
  egress: EgressProps | undefined,
): DeliveryNetwork | undefined {
  if (egress === undefined || !usesVpc(egress)) return undefined;
  const egressScope = new Construct(scope, 'Egress');
  if (egress.vpc !== undefined) return existingVpcNetwork(egressScope, egress.vpc, egress.addresses ?? []);
  return newVpcNetwork(
    egressScope,
    egress.natGateways ?? DEFAULT_NAT_GATEWAYS,
    egress.interfaceEndpoints ?? false,
  );
}

function newVpcNetwork(scope: Construct, natGateways: number, interfaceEndpoints: boolean): DeliveryNetwork {
  const zones = Stack.of(scope).availabilityZones;
  if (natGateways > zones.length) {
    throw new Error(
      `Invalid DeliveryPipeline props: egress.natGateways is ${natGateways}, one per Availability Zone, but the stack knows ${zones.length} zones` +
        (Token.isUnresolved(Stack.of(scope).region)
          ? ' (an environment-agnostic stack knows two: give the stack an account and region, env, to use more)'
          : ''),
    );
  }
  // The construct's own Elastic IPs, so their addresses can be output and given to the functions
  // (the NAT gateways' own would be unknown to the template).
  const elasticIps = Array.from({ length: natGateways }, (_, index) => {
    const eip = new ec2.CfnEIP(scope, `NatAddress${index + 1}`, { domain: 'vpc' });
    eip.tags.setTag('Name', `${scope.node.path}/NatAddress${index + 1}`);
    return eip;
  });
  const vpc = new ec2.Vpc(scope, 'Vpc', {
    ipAddresses: ec2.IpAddresses.cidr(VPC_CIDR),
    maxAzs: natGateways,
    natGateways,
    natGatewayProvider: ec2.NatProvider.gateway({
      eipAllocationIds: elasticIps.map((eip) => eip.attrAllocationId),
    }),
    subnetConfiguration: [
      { name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: PUBLIC_CIDR_MASK },
      { name: 'Delivery', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: PRIVATE_CIDR_MASK },
    ],
    // Restricting the default security group takes a custom resource (a function with an AWS
    // managed policy); nothing is ever put in it here: the delivery function has its own.
    restrictDefaultSecurityGroup: false,
  });
  Validations.of(vpc).acknowledge({
    id: 'AwsSolutions-VPC7',
    reason:
      "The VPC carries only the delivery function's requests: to endpoints (each one's URL, answer and duration are in the attempt history and Gridwire's metrics) and to AWS APIs (in CloudTrail). Flow logs would add a log line per connection, billed as ingestion, and show nothing those do not.",
  });
  // Free, and traffic to them skips the NAT gateways' data processing: the table, the backlog,
  // archive and fan-out buckets the delivery function reads and writes.
  vpc.addGatewayEndpoint('S3Endpoint', {
    service: ec2.GatewayVpcEndpointAwsService.S3,
    subnets: [DELIVERY_SUBNETS],
  });
  vpc.addGatewayEndpoint('DynamoDbEndpoint', {
    service: ec2.GatewayVpcEndpointAwsService.DYNAMODB,
    subnets: [DELIVERY_SUBNETS],
  });
  const securityGroup = deliverySecurityGroup(scope, vpc);
  if (interfaceEndpoints) addInterfaceEndpoints(scope, vpc, securityGroup);
  return {
    vpc,
    subnets: DELIVERY_SUBNETS,
    securityGroup,
    addresses: elasticIps.map((eip) => eip.attrPublicIp),
    elasticIps,
    createdVpc: vpc,
  };
}

/**
 * The services the delivery function calls that have no gateway endpoint: SQS (its sends) and
 * Secrets Manager (the header key, once per instance). Each billed per zone and hour and per GB.
 */
export const INTERFACE_ENDPOINT_SERVICES = [
  ['SqsEndpoint', ec2.InterfaceVpcEndpointAwsService.SQS],
  ['SecretsManagerEndpoint', ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER],
] as const;

function addInterfaceEndpoints(scope: Construct, vpc: ec2.Vpc, delivery: ec2.SecurityGroup): void {
  // Open to the delivery function's security group only, on HTTPS.
  const endpoints = new ec2.SecurityGroup(scope, 'EndpointSecurityGroup', {
    vpc,
    description: 'Gridwire interface endpoints: HTTPS from the delivery function only',
    allowAllOutbound: false,
  });
  endpoints.addIngressRule(delivery, ec2.Port.tcp(443), 'HTTPS from the delivery function');
  for (const [id, service] of INTERFACE_ENDPOINT_SERVICES) {
    vpc.addInterfaceEndpoint(id, {
      service,
      subnets: DELIVERY_SUBNETS,
      privateDnsEnabled: true,
      securityGroups: [endpoints],
      open: false,
    });
  }
}

function existingVpcNetwork(scope: Construct, vpc: ec2.IVpc, addresses: readonly string[]): DeliveryNetwork {
  let subnetIds: string[];
  try {
    subnetIds = vpc.selectSubnets(DELIVERY_SUBNETS).subnetIds;
  } catch {
    subnetIds = [];
  }
  if (subnetIds.length === 0) {
    throw new Error(
      `Invalid DeliveryPipeline props: egress.vpc (${vpc.node.path}) has no PRIVATE_WITH_EGRESS subnets (private subnets whose default route goes through a NAT); the delivery function must run in such subnets to reach endpoints`,
    );
  }
  return {
    vpc,
    subnets: DELIVERY_SUBNETS,
    securityGroup: deliverySecurityGroup(scope, vpc),
    addresses: [...addresses],
    elasticIps: [],
  };
}

function deliverySecurityGroup(scope: Construct, vpc: ec2.IVpc): ec2.SecurityGroup {
  return new ec2.SecurityGroup(scope, 'DeliverySecurityGroup', {
    vpc,
    description: 'Gridwire delivery function: outbound to endpoints and AWS APIs, nothing inbound',
    allowAllOutbound: true,
  });
}

/** The addresses as the functions' environment and the output hold them: comma-separated. */
export const egressAddressesValue = (addresses: readonly string[]): string =>
  addresses.some((address) => Token.isUnresolved(address))
    ? Fn.join(',', [...addresses])
    : addresses.join(',');

/**
 * The addresses requests to endpoints leave from, as the `<prefix>EgressAddresses` output
 * (comma-separated), so a receiver's firewall can be given them; none when none are known.
 */
export function addEgressOutput(
  scope: Construct,
  network: DeliveryNetwork | undefined,
  prefix: string,
): void {
  if (network === undefined || network.addresses.length === 0) return;
  new CfnOutput(scope, 'EgressAddresses', {
    value: egressAddressesValue(network.addresses),
    description:
      'Public addresses webhook requests leave from (comma-separated), for receivers to allow-list',
  }).overrideLogicalId(pipelineOutputNames(prefix).egressAddresses);
}

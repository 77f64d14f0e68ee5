import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FunctionDefinition } from '../shared/config/resources';
import { SERVICE_NAME } from '../shared/observability/metrics';
import { BUNDLE_HANDLER, functionCode } from './function-bundle';

/** The Lambda runtime every Gridwire function uses. */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;

/** DynamoDB item actions a function may be granted, each named for what the code calls. */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem';

const WRITE_ACTIONS: readonly TableAction[] = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];

export interface PipelineFunctionProps {
  readonly definition: FunctionDefinition;
  /**
   * Days the function's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the function's log group when the stack is deleted or its first create fails.
   * @default RemovalPolicy.RETAIN (CDK's default for log groups)
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Extra environment variables. */
  readonly environment?: Record<string, string>;
  /**
   * Concurrent executions reserved for (and capped at) this function.
   * @default none: the function shares the account's unreserved concurrency
   */
  readonly reservedConcurrency?: number;
  /**
   * Whether the function is traced with X-Ray (active tracing, and the role may write traces).
   * @default false
   */
  readonly tracing?: boolean;
  /**
   * The lowest level of the function's own log lines Lambda keeps (Lambda's advanced logging
   * controls, which Powertools Logger follows).
   * @default ApplicationLogLevel.INFO
   */
  readonly applicationLogLevel?: ApplicationLogLevel;
  /**
   * The VPC subnets and security group the function runs in (its role is granted the network
   * interface actions Lambda needs for them, inline).
   * @default none: the function runs outside any VPC
   */
  readonly network?: FunctionNetwork;
}

/** Where a function runs in a VPC. */
export interface FunctionNetwork {
  readonly vpc: ec2.IVpc;
  readonly subnets: ec2.SubnetSelection;
  readonly securityGroups: readonly ec2.ISecurityGroup[];
}

/**
 * What Lambda does with a function's role to attach it to a VPC (the actions of the AWS managed
 * AWSLambdaVPCAccessExecutionRole, without its log actions): create, describe and delete the
 * function's network interfaces and assign their addresses. CreateNetworkInterface and the
 * Describe actions take no resource narrower than `*` (Lambda checks CreateNetworkInterface on
 * `*` when the function is created); the others act on network interfaces only.
 */
export const VPC_ACCESS_ACTIONS = {
  anyResource: ['ec2:CreateNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'],
  networkInterfaces: [
    'ec2:DeleteNetworkInterface',
    'ec2:AssignPrivateIpAddresses',
    'ec2:UnassignPrivateIpAddresses',
  ],
} as const;

/**
 * A Gridwire function: Node.js on ARM64, JSON logs in its own log group (Lambda's START, END and
 * REPORT lines left out), X-Ray tracing when asked for, source maps, its code bundled by esbuild
 * when the package was built (see `function-bundle.ts`; no Docker). It runs under its own role
 * that may write its own log group and nothing else until resources are attached with the `bind*` helpers, which grant exactly the
 * actions named and set the environment variable together, so neither can be forgotten.
 */
export class PipelineFunction extends LambdaFunction {
  /** The function's own execution role (no AWS managed policies). */
  readonly executionRole: iam.Role;

  constructor(scope: Construct, props: PipelineFunctionProps) {
    const { definition } = props;
    const logGroup = new LogGroup(scope, `${definition.id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      ...(props.logRemovalPolicy === undefined ? {} : { removalPolicy: props.logRemovalPolicy }),
    });
    // Instead of the AWS managed basic execution role, which may write to every log group.
    const role = new iam.Role(scope, `${definition.id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Gridwire ${definition.id}: its log group and the resources bound to it`,
    });
    logGroup.grantWrite(role);
    super(scope, definition.id, {
      code: functionCode(definition),
      handler: BUNDLE_HANDLER,
      description: definition.description,
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: definition.memoryMb,
      timeout: Duration.seconds(definition.timeoutSeconds),
      // Off, no TracingConfig is written: Lambda's default (PassThrough) traces only requests a
      // caller sampled, and nothing before these functions samples (HTTP APIs don't trace; the
      // queues are fed by these same untraced functions).
      ...(props.tracing === true ? { tracing: Tracing.ACTIVE } : {}),
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      // Lambda's own lines: WARN leaves out START, END and REPORT, three lines per invocation that
      // repeat what Lambda's metrics (Invocations, Duration, Errors, Throttles) already count.
      systemLogLevelV2: SystemLogLevel.WARN,
      applicationLogLevelV2: props.applicationLogLevel ?? ApplicationLogLevel.INFO,
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrency }),
      ...(props.network === undefined
        ? {}
        : {
            vpc: props.network.vpc,
            vpcSubnets: props.network.subnets,
            securityGroups: [...props.network.securityGroups],
          }),
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        ...props.environment,
      },
    });
    this.executionRole = role;
    // Instead of the AWS managed AWSLambdaVPCAccessExecutionRole (CDK adds it only to roles it makes).
    const wildcardReasons: string[] = [];
    if (props.network !== undefined) {
      role.addToPolicy(
        new iam.PolicyStatement({ actions: [...VPC_ACCESS_ACTIONS.anyResource], resources: ['*'] }),
      );
      const networkInterfaces = Stack.of(this).formatArn({
        service: 'ec2',
        resource: 'network-interface',
        resourceName: '*',
      });
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: [...VPC_ACCESS_ACTIONS.networkInterfaces],
          resources: [networkInterfaces],
        }),
      );
      wildcardReasons.push(
        'VPC access: Lambda creates and describes the network interfaces of the function\'s subnets with ec2:CreateNetworkInterface, ec2:DescribeNetworkInterfaces and ec2:DescribeSubnets, which support no resource narrower than "*".',
      );
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:network-interface/*]',
        reason:
          "VPC access: Lambda deletes and re-addresses the network interfaces it made for the function, whose ids it picks when it makes them; the grant covers this account and region's network interfaces, with only those three actions.",
      });
    }
    if (props.tracing === true) {
      wildcardReasons.push(
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so their only resource is "*".',
      );
    }
    if (wildcardReasons.length > 0) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: wildcardReasons.join(' '),
      });
    }
    if (props.tracing !== true) {
      Validations.of(this).acknowledge({
        id: 'Serverless-LambdaTracing',
        reason:
          "X-Ray is opt-in (the pipeline's `tracing` prop): it bills per trace, and Lambda records the first invocation each second and 5% of the others. Failures are found through the alarms, Gridwire's metrics and the functions' warning and error lines.",
      });
    }
  }

  /**
   * The table's name in `envName`, and exactly `actions` on the table (and on the named
   * `indexes`, for queries through them). Nothing else: no scans, no table-level operations.
   */
  bindTable(
    table: dynamodb.ITableV2,
    envName: string,
    actions: readonly TableAction[],
    indexes: readonly string[] = [],
  ): this {
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [table.tableArn, ...indexes.map((index) => `${table.tableArn}/index/${index}`)],
      }),
    );
    if (table.encryptionKey !== undefined) {
      if (actions.some((action) => WRITE_ACTIONS.includes(action)))
        table.encryptionKey.grantEncryptDecrypt(this);
      else table.encryptionKey.grantDecrypt(this);
    }
    this.addEnvironment(envName, table.tableName);
    return this;
  }

  /**
   * `actions` on the table's items whose partition key begins with `prefix` only (a condition on
   * `dynamodb:LeadingKeys`), beside what `bindTable` granted.
   */
  bindTableItems(table: dynamodb.ITableV2, actions: readonly TableAction[], prefix: string): this {
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [table.tableArn],
        // ForAllValues holds for a request without the key at all: Null makes it required.
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${prefix}*`] },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    );
    if (table.encryptionKey !== undefined && actions.some((action) => WRITE_ACTIONS.includes(action))) {
      table.encryptionKey.grantEncryptDecrypt(this);
    }
    return this;
  }

  /** Send or consume access to the queue, and its URL in `envName`. */
  bindQueue(queue: sqs.IQueue, envName: string, access: 'send' | 'consume' | 'sendAndConsume'): this {
    if (access !== 'consume') queue.grantSendMessages(this);
    if (access !== 'send') queue.grantConsumeMessages(this);
    this.addEnvironment(envName, queue.queueUrl);
    return this;
  }

  /**
   * Access to the bucket's objects, and its name in `envName`: `write` puts objects only
   * (s3:PutObject); `read` gets them only (s3:GetObject); `readWrite` also lists the bucket and
   * gets objects (s3:ListBucket, s3:GetObject; listing also lets a missing key read as NoSuchKey
   * rather than AccessDenied). None may delete.
   */
  bindBucket(
    bucket: s3.IBucket,
    envName: string,
    access: 'write' | 'read' | 'readWrite',
    reason = 'Dead-letter object keys are made at run time (topic, subscription, time); the grant covers objects of this one bucket, with only the object actions named.',
  ): this {
    const actions = {
      write: ['s3:PutObject'],
      read: ['s3:GetObject'],
      readWrite: ['s3:GetObject', 's3:PutObject'],
    };
    this.addToRolePolicy(
      new iam.PolicyStatement({ actions: actions[access], resources: [bucket.arnForObjects('*')] }),
    );
    if (access === 'readWrite') {
      this.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
      );
    }
    if (bucket.encryptionKey !== undefined) {
      if (access === 'write') bucket.encryptionKey.grantEncrypt(this);
      else if (access === 'read') bucket.encryptionKey.grantDecrypt(this);
      else bucket.encryptionKey.grantEncryptDecrypt(this);
    }
    Validations.of(this.executionRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketArnToken(bucket)}>/*]`,
      reason,
    });
    this.addEnvironment(envName, bucket.bucketName);
    return this;
  }

  /**
   * Put, get and delete of the objects under `prefix` of the bucket, and listing that prefix
   * (so a missing key reads as NoSuchKey rather than AccessDenied), and the bucket's name in
   * `envName`: for a bucket whose objects one function writes, reads and removes; with `read`,
   * only reads and lists them.
   */
  bindBucketPrefix(
    bucket: s3.IBucket,
    envName: string,
    prefix: string,
    reason: string,
    access: 'readWrite' | 'read' = 'readWrite',
  ): this {
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: access === 'read' ? ['s3:GetObject'] : ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
        resources: [bucket.arnForObjects(`${prefix}*`)],
      }),
    );
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } },
      }),
    );
    if (bucket.encryptionKey !== undefined) bucket.encryptionKey.grantEncryptDecrypt(this);
    Validations.of(this.executionRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketArnToken(bucket)}>/${prefix}*]`,
      reason,
    });
    this.addEnvironment(envName, bucket.bucketName);
    return this;
  }

  /**
   * Read access to the secret's value, and its ARN in `envName`; with `readReplace`, also
   * `secretsmanager:PutSecretValue` on it (a new value, nothing else: not its settings, policy or
   * version stages, which the wider `grantWrite` would allow).
   */
  bindSecret(secret: secretsmanager.ISecret, envName: string, access: 'read' | 'readReplace' = 'read'): this {
    secret.grantRead(this);
    if (access === 'readReplace') {
      this.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['secretsmanager:PutSecretValue'],
          resources: [secret.secretArn],
        }),
      );
    }
    this.addEnvironment(envName, secret.secretArn);
    return this;
  }
}

/** How cdk-nag names a bucket's ARN in a finding: `<LogicalId.Arn>` for a bucket of the stack. */
function bucketArnToken(bucket: s3.IBucket): string {
  const cfn = bucket.node.defaultChild as { logicalId?: string } | undefined;
  if (cfn?.logicalId === undefined) return bucket.bucketArn;
  return `${bucket.stack.resolve(cfn.logicalId)}.Arn`;
}

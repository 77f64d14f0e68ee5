import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FunctionDefinition } from '../shared/config/resources';

/** The Lambda runtime every Gridwire function uses. */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;

export interface PipelineFunctionProps {
  readonly definition: FunctionDefinition;
  /**
   * Days the function's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /** Extra environment variables. */
  readonly environment?: Record<string, string>;
}

/**
 * A Gridwire function: Node.js on ARM64, X-Ray tracing, its own log group, source maps, bundled
 * by the local esbuild (no Docker). Resources are attached with `bind*` helpers that grant the
 * permission and set the environment variable together, so neither can be forgotten.
 */
export class PipelineFunction extends NodejsFunction {
  constructor(scope: Construct, props: PipelineFunctionProps) {
    const { definition } = props;
    const logGroup = new LogGroup(scope, `${definition.id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    super(scope, definition.id, {
      entry: path.join(__dirname, '..', definition.entry),
      handler: 'handler',
      description: definition.description,
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: definition.memoryMb,
      timeout: Duration.seconds(definition.timeoutSeconds),
      tracing: Tracing.ACTIVE,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'gridwire',
        ...props.environment,
      },
      bundling: {
        minify: true,
        sourceMap: true,
        target: 'node24',
        format: OutputFormat.CJS,
        // Bundle the AWS SDK too: the versions tested here are the versions that run.
        externalModules: [],
        forceDockerBundling: false,
      },
    });
  }

  /** Read and write access to the table, and its name in `envName`. */
  bindTable(table: dynamodb.ITableV2, envName: string, access: 'read' | 'readWrite'): this {
    if (access === 'read') table.grantReadData(this);
    else table.grantReadWriteData(this);
    this.addEnvironment(envName, table.tableName);
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
   * Access to the bucket, and its name in `envName`: `write` puts objects only; `readWrite` also
   * gets and lists them. Neither may delete.
   */
  bindBucket(bucket: s3.IBucket, envName: string, access: 'read' | 'write' | 'readWrite'): this {
    if (access !== 'write') bucket.grantRead(this);
    if (access !== 'read') bucket.grantPut(this);
    this.addEnvironment(envName, bucket.bucketName);
    return this;
  }

  /** Read access to the secret's value, and its ARN in `envName`. */
  bindSecret(secret: secretsmanager.ISecret, envName: string): this {
    secret.grantRead(this);
    this.addEnvironment(envName, secret.secretArn);
    return this;
  }
}

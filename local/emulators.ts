/**
 * The AWS-API-compatible emulators behind the local stack, started in this process:
 * fauxqs (SQS and S3, in memory) and dynalite (DynamoDB on LevelDB, on disk).
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import dynalite from 'dynalite';
import type { FauxqsServer } from 'fauxqs';
import type { LocalEndpoints } from '../shared/aws';

export interface Emulators {
  endpoints: LocalEndpoints;
  fauxqs: FauxqsServer;
  stop(): Promise<void>;
}

export interface EmulatorOptions {
  /** Directory for DynamoDB's files; in memory when undefined. */
  dataDir?: string;
  host?: string;
  sqsPort?: number;
  dynamodbPort?: number;
}

export async function startEmulators(options: EmulatorOptions = {}): Promise<Emulators> {
  const host = options.host ?? '127.0.0.1';
  const { startFauxqs } = await import('fauxqs');
  const fauxqs = await startFauxqs({ port: options.sqsPort ?? 0, host, logger: false });

  const dynamo = dynalite({
    ...(options.dataDir === undefined ? {} : { path: join(options.dataDir, 'dynamodb') }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      dynamo.once('error', reject);
      dynamo.listen(options.dynamodbPort ?? 0, host, () => {
        dynamo.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await fauxqs.stop();
    throw error;
  }
  const dynamoPort = (dynamo.address() as AddressInfo).port;
  const sqsUrl = `http://${host}:${fauxqs.port}`;
  return {
    endpoints: { sqs: sqsUrl, s3: sqsUrl, dynamodb: `http://${host}:${dynamoPort}` },
    fauxqs,
    stop: async () => {
      dynamo.closeAllConnections();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
      await fauxqs.stop();
    },
  };
}

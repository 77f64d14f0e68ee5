/**
 * The AWS calls test stacks make, recorded for the IAM check (`test/iam/calls-allowed.test.ts`):
 * for each SDK command, the function it was made as (`local/current-function.ts`; none for the
 * stack's own calls), the command and what names its resources. Each jest worker appends the
 * calls its test file has not recorded yet (jest gives each file fresh modules, so a call may
 * appear once per file) to a JSON-lines file of its own under {@link AWS_CALLS_DIR},
 * which the integration project empties before it runs (`clearRecordedCalls`, its global setup).
 */
import { join } from 'node:path';
import { currentFunction } from '../../local/current-function';
import type { FunctionKey } from '../../shared/config/resources';
import type { AwsClients } from '../../shared/platform/aws';
import { Recordings } from './recordings';

/**
 * Where the recordings are (ignored by git); `TEST_AWS_CALLS_DIR` puts them elsewhere (`npm test`
 * does for the isolation file, which runs beside the IAM check).
 */
export const AWS_CALLS_DIR =
  process.env.TEST_AWS_CALLS_DIR ?? join(__dirname, '..', '..', '.test-output', 'aws-calls');

export type AwsService = 'sqs' | 'dynamodb' | 's3';

/** One distinct call: who made it, which operation, on what. */
export interface RecordedCall {
  /** The function whose role makes the call on AWS; `null` for the local stack's own calls. */
  function: FunctionKey | null;
  service: AwsService;
  /** The API operation (`SendMessageBatch`, `PutItem`, `ListObjectsV2`...). */
  operation: string;
  /** The queue's name (from `QueueUrl`). */
  queue?: string;
  /** Table names (`TableName`, or each table of a `BatchWriteItem`). */
  tables?: string[];
  index?: string;
  /**
   * For a call on one item: the kind of item, as its partition key begins (up to and with the
   * first `#`), what a `dynamodb:LeadingKeys` condition is checked against.
   */
  leadingKey?: string;
  bucket?: string;
  /** The object key, or the listing's `Prefix`. */
  key?: string;
  prefix?: string;
}

const SERVICES: Record<string, AwsService> = {
  SQSClient: 'sqs',
  DynamoDBClient: 'dynamodb',
  S3Client: 's3',
};

/** What names the resources of one command's input. */
function resourcesOf(service: AwsService, input: Record<string, unknown>): Partial<RecordedCall> {
  const text = (name: string) => (typeof input[name] === 'string' ? (input[name] as string) : undefined);
  const defined = (call: Partial<RecordedCall>) =>
    Object.fromEntries(Object.entries(call).filter(([, value]) => value !== undefined));
  switch (service) {
    case 'sqs': {
      const url = text('QueueUrl');
      return defined({ queue: url === undefined ? text('QueueName') : url.split('/').pop() });
    }
    case 'dynamodb': {
      const table = text('TableName');
      const batch = input.RequestItems as Record<string, unknown> | undefined;
      const item = (input.Key ?? input.Item) as Record<string, unknown> | undefined;
      const pk = item?.pk;
      const pkText =
        typeof pk === 'string'
          ? pk
          : typeof (pk as { S?: unknown } | undefined)?.S === 'string'
            ? (pk as { S: string }).S
            : undefined;
      return defined({
        tables: table !== undefined ? [table] : batch === undefined ? undefined : Object.keys(batch).sort(),
        index: text('IndexName'),
        leadingKey: pkText === undefined ? undefined : pkText.slice(0, pkText.indexOf('#') + 1) || pkText,
      });
    }
    case 's3': {
      // DeleteObjects names its keys in a list: the first stands for the call (one prefix's keys).
      const deleted = (input.Delete as { Objects?: Array<{ Key?: string }> } | undefined)?.Objects?.[0]?.Key;
      return defined({ bucket: text('Bucket'), key: text('Key') ?? deleted, prefix: text('Prefix') });
    }
  }
}

/**
 * Adds a middleware to each client that records every command it sends (once per distinct call
 * in this test file) to this worker's file.
 */
export function recordAwsCalls(clients: AwsClients): void {
  const note = (context: { clientName?: string; commandName?: string }, input: object) => {
    const service = SERVICES[context.clientName ?? ''];
    if (service === undefined) return;
    recordings.add({
      function: currentFunction() ?? null,
      service,
      operation: (context.commandName ?? '').replace(/Command$/, ''),
      ...resourcesOf(service, input as Record<string, unknown>),
    });
  };
  // The document client's commands arrive here as the table commands they become.
  const options = { step: 'initialize', name: 'recordAwsCalls' } as const;
  clients.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      note(context, args.input);
      return next(args);
    },
    options,
  );
  clients.dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      note(context, args.input);
      return next(args);
    },
    options,
  );
  clients.s3.middlewareStack.add(
    (next, context) => async (args) => {
      note(context, args.input);
      return next(args);
    },
    options,
  );
}

const recordings = new Recordings<RecordedCall>(AWS_CALLS_DIR);

/** Every distinct call recorded by every worker since the directory was last emptied. */
export const readRecordedCalls = (): RecordedCall[] => recordings.read();

/** Empties the recordings (before the integration tests run, so they show this run's calls only). */
export const clearRecordedCalls = (): void => recordings.clear();

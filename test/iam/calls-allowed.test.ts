/**
 * Every AWS call the integration tests' stacks made as a function (recorded by
 * `test/support/aws-calls.ts`) is allowed by that function's role in the synthesized stack, as
 * IAM's policy evaluation decides (`@cloud-copilot/iam-simulate`). Run the integration project
 * first (`npm test` does). What this checks and what it does not: docs/iam.md.
 */
import { BACKLOG_BUCKET, FUNCTIONS, type FunctionKey, QUEUES, TABLE } from '../../shared/config/resources';
import { type RecordedCall, readRecordedCalls } from '../support/aws-calls';
import {
  bucketArn,
  decide,
  type FunctionRole,
  type IamRequest,
  queueArn,
  synthesizedFunctionRoles,
  tableArn,
} from '../support/iam-policies';

/** The IAM action each recorded operation needs, where it is not the operation's own name. */
const ACTIONS: Readonly<Record<RecordedCall['service'], Readonly<Record<string, string>>>> = {
  sqs: {
    SendMessage: 'sqs:SendMessage',
    SendMessageBatch: 'sqs:SendMessage',
    ReceiveMessage: 'sqs:ReceiveMessage',
    DeleteMessage: 'sqs:DeleteMessage',
    DeleteMessageBatch: 'sqs:DeleteMessage',
    ChangeMessageVisibility: 'sqs:ChangeMessageVisibility',
    ChangeMessageVisibilityBatch: 'sqs:ChangeMessageVisibility',
    GetQueueAttributes: 'sqs:GetQueueAttributes',
    GetQueueUrl: 'sqs:GetQueueUrl',
  },
  dynamodb: {
    GetItem: 'dynamodb:GetItem',
    PutItem: 'dynamodb:PutItem',
    UpdateItem: 'dynamodb:UpdateItem',
    DeleteItem: 'dynamodb:DeleteItem',
    Query: 'dynamodb:Query',
    BatchWriteItem: 'dynamodb:BatchWriteItem',
    BatchGetItem: 'dynamodb:BatchGetItem',
  },
  s3: {
    PutObject: 's3:PutObject',
    GetObject: 's3:GetObject',
    // HEAD needs the same permission as GET.
    HeadObject: 's3:GetObject',
    DeleteObject: 's3:DeleteObject',
    // Deleting several objects at once needs s3:DeleteObject on each (the recorded first key).
    DeleteObjects: 's3:DeleteObject',
    ListObjectsV2: 's3:ListBucket',
    ListObjects: 's3:ListBucket',
  },
};

/** The IAM requests one recorded call makes (a batch write: one per table). */
function requestsOf(call: RecordedCall): IamRequest[] {
  const action = ACTIONS[call.service][call.operation];
  if (action === undefined) {
    throw new Error(
      `no IAM action known for ${call.service} ${call.operation} (${JSON.stringify(call)}): add it to ACTIONS`,
    );
  }
  const missing = (what: string) => new Error(`${call.service} ${call.operation} named no ${what}`);
  switch (call.service) {
    case 'sqs':
      if (call.queue === undefined) throw missing('queue');
      return [{ action, resource: queueArn(call.queue), context: {} }];
    case 'dynamodb':
      if (call.tables === undefined) throw missing('table');
      return call.tables.map((table) => ({
        action,
        resource: call.index === undefined ? tableArn(table) : `${tableArn(table)}/index/${call.index}`,
        // The item's kind stands for its key: a grant on `ACCEPTED#*` items matches `ACCEPTED#`.
        context: (call.leadingKey === undefined ? {} : { 'dynamodb:LeadingKeys': call.leadingKey }) as Record<
          string,
          string
        >,
      }));
    case 's3': {
      if (call.bucket === undefined) throw missing('bucket');
      if (action === 's3:ListBucket') {
        return [
          {
            action,
            resource: bucketArn(call.bucket),
            context: call.prefix === undefined ? {} : { 's3:prefix': call.prefix },
          },
        ];
      }
      if (call.key === undefined) throw missing('key');
      return [{ action, resource: `${bucketArn(call.bucket)}/${call.key}`, context: {} }];
    }
  }
}

// The buckets of their own that `test/integration/dead-letter-buckets.test.ts` has subscriptions
// name for their dead letters (one made, one never made), allowed as a deployer would allow them.
// The source queues the integration and browser tests start their stacks with (`--source`), declared
// as a deployer would declare them (a bus source's queue is `gridwire-source-<name>`).
const roles = synthesizedFunctionRoles({ deadLetterBuckets: ['team-dead-*', 'never-made-*'] }, [
  'orders-in',
  'bridged-in',
  'gridwire-source-uploads',
  'console-in',
]);
const calls = readRecordedCalls();
const functionKeys = Object.keys(FUNCTIONS) as FunctionKey[];

/** Each function's distinct requests, with the recorded calls behind each. */
function requestsByFunction(): Record<
  FunctionKey,
  Map<string, { request: IamRequest; calls: RecordedCall[] }>
> {
  const byFunction = Object.fromEntries(functionKeys.map((fn) => [fn, new Map()])) as Record<
    FunctionKey,
    Map<string, { request: IamRequest; calls: RecordedCall[] }>
  >;
  for (const call of calls) {
    if (call.function === null) continue;
    for (const request of requestsOf(call)) {
      const key = JSON.stringify(request);
      const entry = byFunction[call.function].get(key) ?? { request, calls: [] };
      entry.calls.push(call);
      byFunction[call.function].set(key, entry);
    }
  }
  return byFunction;
}

describe('recorded AWS calls', () => {
  const byFunction = requestsByFunction();

  it('were recorded (run `npm run test:integration` first)', () => {
    // Calls made outside any function: the local stack's own (creating resources, the admission
    // gate's and the status route's queue reads) and the tests' own reads and writes.
    const own = new Set(
      calls.filter((call) => call.function === null).map((c) => `${c.service}:${c.operation}`),
    );
    process.stdout.write(
      [
        'Distinct IAM requests checked, per function:',
        ...functionKeys.map((fn) => `  ${fn}: ${byFunction[fn].size}`),
        `Not checked, made outside any function: ${[...own].sort().join(', ') || 'none'}`,
        '',
      ].join('\n'),
    );
    expect(calls.filter((call) => call.function !== null).length).toBeGreaterThan(0);
  });

  it.each(functionKeys.map((fn) => ({ fn, count: byFunction[fn].size })))(
    '$fn: each of its $count distinct requests is allowed by its role',
    async ({ fn }) => {
      const denied: string[] = [];
      for (const { request, calls: behind } of byFunction[fn].values()) {
        const { allowed, detail } = await decide(roles[fn], request);
        if (!allowed) {
          const operations = [...new Set(behind.map((call) => `${call.service}:${call.operation}`))];
          denied.push(
            `${request.action} on ${request.resource}${Object.keys(request.context).length > 0 ? ` with ${JSON.stringify(request.context)}` : ''} (${operations.join(', ')}): ${detail}`,
          );
        }
      }
      expect(denied).toEqual([]);
    },
  );
});

/** The check itself catches a missing grant, a wrong index and an unmet condition. */
describe('the check', () => {
  // A denial by policy evaluation, not a request the simulator could not evaluate.
  const DENIED = { allowed: false, detail: 'ImplicitlyDenied' };
  const ALLOWED = { allowed: true, detail: 'Allowed' };
  const table = tableArn(TABLE.localName);
  const withoutStatementsGranting = (role: FunctionRole, action: string): FunctionRole => ({
    ...role,
    policies: role.policies.map(({ name, policy }) => ({
      name,
      policy: {
        ...policy,
        Statement: policy.Statement.filter((statement) => ![statement.Action].flat().includes(action)),
      },
    })),
  });

  it('denies a call once the statement granting it is removed from a copy of the policy', async () => {
    const request = { action: 'dynamodb:BatchWriteItem', resource: table, context: {} };
    expect(await decide(roles.delivery, request)).toEqual(ALLOWED);
    const stripped = withoutStatementsGranting(roles.delivery, 'dynamodb:BatchWriteItem');
    expect(await decide(stripped, request)).toEqual(DENIED);
    // The copy left the synthesized policy as it was.
    expect(await decide(roles.delivery, request)).toEqual(ALLOWED);
  });

  it('checks a query of the index against the index ARN, not the table', async () => {
    const [query] = requestsOf({
      function: 'publish',
      service: 'dynamodb',
      operation: 'Query',
      tables: [TABLE.localName],
      index: TABLE.topicsIndex.name,
    });
    expect(query?.resource).toBe(`${table}/index/${TABLE.topicsIndex.name}`);
    // Publish may query the table but was never given the index; management was.
    expect(await decide(roles.publish, query as IamRequest)).toEqual(DENIED);
    expect(await decide(roles.management, query as IamRequest)).toEqual(ALLOWED);
  });

  it('maps batch operations to their actions and checks them on the named queue', async () => {
    const [deleteBatch] = requestsOf({
      function: 'publish',
      service: 'sqs',
      operation: 'DeleteMessageBatch',
      queue: QUEUES.delivery.localName,
    });
    expect(deleteBatch?.action).toBe('sqs:DeleteMessage');
    // Publish sends to the delivery queue but never consumes it.
    expect(await decide(roles.publish, deleteBatch as IamRequest)).toEqual(DENIED);
    expect(await decide(roles.delivery, deleteBatch as IamRequest)).toEqual(ALLOWED);
  });

  it('evaluates conditions with what the call sent (a listing outside the granted prefix is denied)', async () => {
    const listing = (prefix: string) => ({
      action: 's3:ListBucket',
      resource: bucketArn(BACKLOG_BUCKET.localName),
      context: { 's3:prefix': prefix },
    });
    expect(await decide(roles.delivery, listing(`${BACKLOG_BUCKET.prefix}topic/`))).toEqual(ALLOWED);
    expect(await decide(roles.delivery, listing('elsewhere/'))).toEqual(DENIED);
  });

  it('lets publish write accepted event ids and no other item', async () => {
    const put = (pk: string) =>
      requestsOf({
        function: 'publish',
        service: 'dynamodb',
        operation: 'PutItem',
        tables: [TABLE.localName],
        leadingKey: pk,
      })[0] as IamRequest;
    expect(await decide(roles.publish, put(TABLE.acceptedIdPrefix))).toEqual(ALLOWED);
    expect(await decide(roles.publish, put('TOPIC#'))).toEqual(DENIED);
    // Without the key (a call the check could not tie to an item) the condition is not met.
    expect(await decide(roles.publish, { ...put('x'), context: {} })).toEqual(DENIED);
  });
});

/**
 * Writing a subscription to an AWS resource on a stack with a deployer's allow-list: the resource
 * and the role to assume must both be on it; the attributes must have somewhere to go on the
 * service's messages. Each refusal names the field.
 */
import { ENV } from '../../../shared/config/resources';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { handleManagement } from '../../../shared/management/api';
import { MemoryDeclaredDestinations } from '../../../shared/storage/declared-destinations';
import { routeTestDeps } from '../../support/management-routes';
import { memoryStores } from '../../support/memory-stores';

const ALLOWED = [
  'arn:aws:sqs:eu-west-1:210987654321:billing-*',
  'arn:aws:kinesis:eu-west-1:210987654321:stream/orders',
  'arn:aws:iam::210987654321:role/gridwire-*',
];

/**
 * PUTs `destination` as subscription `audit` of topic `orders` on a stack allowing `ALLOWED`, and
 * `declared` (the destinations of subscriptions declared in its CDK app, kept in the table).
 */
async function put(destination: Record<string, unknown>, declared: readonly string[] = []) {
  const declaredDestinations = new MemoryDeclaredDestinations();
  await declaredDestinations.put(declared);
  const stores = memoryStores();
  await stores.topics.create('orders', { inputSchema: 'EventGridSchema', tags: {} }, new Date(0));
  const deps = routeTestDeps(stores, { resourceDestinations: ALLOWED, declaredDestinations });
  const event = {
    routeKey: 'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}',
    pathParameters: { topic: 'orders', subscription: 'audit' },
    requestContext: { domainName: 'api.example.test' },
    body: JSON.stringify({ properties: { destination } }),
  } as unknown as HttpEvent;
  try {
    const answer = await handleManagement(event, deps);
    return {
      status: answer.statusCode,
      body: JSON.parse(answer.body as string),
      stored: await stores.subscriptions.list('orders'),
    };
  } catch (error) {
    const failed = error as { statusCode: number; message: string };
    return { status: failed.statusCode, body: { error: { message: failed.message } }, stored: [] };
  }
}

const queue = (properties: Record<string, unknown>) => ({
  endpointType: 'AwsSqsQueue',
  properties: { resourceArn: 'arn:aws:sqs:eu-west-1:210987654321:billing-eu', ...properties },
});

describe('a resource destination declared in the CDK app', () => {
  const declaredQueue = 'arn:aws:sqs:eu-west-1:123456789012:Declared-Billing1A2B3C';

  it('is allowed by the list the deploy put in the table, beside the patterns', async () => {
    const answer = await put({ endpointType: 'AwsSqsQueue', properties: { resourceArn: declaredQueue } }, [
      declaredQueue,
    ]);
    expect(answer.status).toBe(201);
    expect(answer.stored[0]?.destination).toMatchObject({ resourceArn: declaredQueue });
  });

  it('is refused once no declaration names it, naming the field and where the list comes from', async () => {
    const answer = await put({ endpointType: 'AwsSqsQueue', properties: { resourceArn: declaredQueue } }, [
      'arn:aws:sqs:eu-west-1:123456789012:other',
    ]);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      `properties.destination.properties.resourceArn: ${declaredQueue} is not among the AWS resources this stack may deliver to (${ENV.resourceDestinations}, the resourceDestinations prop, or a destination declared in the CDK app)`,
    );
  });
});

describe('a resource destination in another account', () => {
  it('is stored and shown with the role to assume when the stack allows both', async () => {
    const answer = await put(queue({ roleArn: 'arn:aws:iam::210987654321:role/gridwire-sender' }));
    expect(answer.status).toBe(201);
    expect(answer.body.properties.destination.properties.roleArn).toBe(
      'arn:aws:iam::210987654321:role/gridwire-sender',
    );
    expect(answer.stored[0]?.destination).toMatchObject({
      endpointType: 'AwsSqsQueue',
      roleArn: 'arn:aws:iam::210987654321:role/gridwire-sender',
    });
  });

  it('is refused when the role is not on the allow-list, naming the field', async () => {
    const answer = await put(queue({ roleArn: 'arn:aws:iam::210987654321:role/admin' }));
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      'properties.destination.properties.roleArn: arn:aws:iam::210987654321:role/admin is not among the AWS roles this stack may deliver through',
    );
    expect(answer.stored).toEqual([]);
  });

  it('is refused when the role is not a role ARN', async () => {
    const answer = await put(queue({ roleArn: 'arn:aws:iam::210987654321:user/alice' }));
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      'properties.destination.properties.roleArn: must be the ARN of an IAM role',
    );
  });
});

describe('custom delivery attributes of resource destinations', () => {
  it('refuses a name that is neither a field nor an attribute of the service, naming it', async () => {
    const answer = await put({
      endpointType: 'AwsKinesisStream',
      properties: {
        resourceArn: 'arn:aws:kinesis:eu-west-1:210987654321:stream/orders',
        deliveryAttributeMappings: [
          { name: 'PartitionKey', type: 'Dynamic', properties: { sourceField: 'data.tenant' } },
          { name: 'tenant', type: 'Static', properties: { value: 'acme' } },
        ],
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      "properties.destination.properties.deliveryAttributeMappings.1.name: 'tenant': AwsKinesisStream messages have no attributes",
    );
  });

  it("refuses a FIFO id on a standard queue, and both ways of setting a stream's partition key", async () => {
    const standard = await put(
      queue({
        deliveryAttributeMappings: [{ name: 'MessageGroupId', type: 'Static', properties: { value: 'g' } }],
      }),
    );
    expect(standard.status).toBe(400);
    expect(standard.body.error.message).toContain("MessageGroupId sets a FIFO queue's messages only");
    const both = await put({
      endpointType: 'AwsKinesisStream',
      properties: {
        resourceArn: 'arn:aws:kinesis:eu-west-1:210987654321:stream/orders',
        partitionKeyField: 'data.tenant',
        deliveryAttributeMappings: [{ name: 'PartitionKey', type: 'Static', properties: { value: 'k' } }],
      },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain(
      'properties.destination.properties.partitionKeyField: and a PartitionKey delivery attribute both set the partition key',
    );
  });
});

describe("a stream's partition key field", () => {
  const stream = (partitionKeyField: unknown) => ({
    endpointType: 'AwsKinesisStream',
    properties: { resourceArn: 'arn:aws:kinesis:eu-west-1:210987654321:stream/orders', partitionKeyField },
  });

  it.each([
    ['', 'must not be empty: a dotted path into the event'],
    ['data..tenant', 'must be a dotted path with no empty segments'],
    [`data.${'x'.repeat(260)}`, 'may be at most 256 characters (got 265)'],
    [7, 'must be a string: a dotted path into the event'],
  ])('%p is refused as a dynamic attribute’s source field is: %s', async (field, message) => {
    const answer = await put(stream(field));
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      `properties.destination.properties.partitionKeyField: ${message}`,
    );
    expect(answer.stored).toEqual([]);
  });

  it('is stored as given, and is for streams only', async () => {
    const answer = await put(stream('data.tenant id'));
    expect(answer.status).toBe(201);
    expect(answer.stored[0]?.destination).toMatchObject({ partitionKeyField: 'data.tenant id' });
    const onQueue = await put(queue({ partitionKeyField: 'data.tenant' }));
    expect(onQueue.status).toBe(400);
    expect(onQueue.body.error.message).toContain(
      'properties.destination.properties.partitionKeyField: is for AwsKinesisStream destinations only',
    );
  });
});

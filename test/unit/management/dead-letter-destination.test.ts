/**
 * Dead letters in a bucket the team names: `deadLetterDestination.properties.resourceId` as an S3
 * bucket ARN, with `roleArn` for a bucket in another account, allowed only when the deployer's
 * list names it. Seed 003, "Dead-letter events": the subscriber provides the storage that holds
 * undelivered events ("you need to have a storage account with a container"); the identity fields
 * of the seeds (`deadLetterWithResourceIdentity`) map onto the role.
 */
import { callRoute, routeTestDeps } from '../../support/management-routes';
import { memoryStores, seedTopic } from '../../support/memory-stores';

const SUB = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const NS_SUB = '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}';
const ROLE = 'arn:aws:iam::222222222222:role/dead-letter-writer';
const BUCKET = 'arn:aws:s3:::team-dead-letters';
const WEBHOOK = { endpointType: 'WebHook', properties: { endpointUrl: 'https://hooks.example.com/in' } };

async function api(deadLetterBuckets: string[]) {
  const stores = memoryStores();
  const deps = routeTestDeps(stores, { deadLetterBuckets });
  await seedTopic(stores, 'orders');
  await seedTopic(stores, 'shop/orders');
  const put = (properties: Record<string, unknown>) =>
    callRoute(deps, `PUT ${SUB}`, { topic: 'orders', subscription: 'audit' }, { properties });
  const putNamespaced = (push: Record<string, unknown>) =>
    callRoute(
      deps,
      `PUT ${NS_SUB}`,
      { namespace: 'shop', topic: 'orders', subscription: 'audit' },
      {
        properties: {
          deliveryConfiguration: { deliveryMode: 'Push', push: { destination: WEBHOOK, ...push } },
        },
      },
    );
  return { stores, put, putNamespaced };
}

const storageBlob = (properties: Record<string, unknown>) => ({
  endpointType: 'StorageBlob',
  properties: { blobContainerName: 'dead', ...properties },
});

describe('dead letters in a bucket the subscription names', () => {
  it('stores the bucket an allowed S3 ARN names, and shows the destination as given', async () => {
    const { put, stores } = await api([BUCKET]);
    const answer = await put({
      destination: WEBHOOK,
      deadLetterDestination: storageBlob({ resourceId: BUCKET }),
    });
    expect(answer.status).toBe(201);
    expect(answer.body.properties.deadLetterDestination).toEqual(storageBlob({ resourceId: BUCKET }));
    expect((await stores.subscriptions.list('orders'))[0]?.deadLetter).toEqual({
      container: 'dead',
      resourceId: BUCKET,
      bucket: 'team-dead-letters',
    });
  });

  it('allows a bucket a pattern of the list matches', async () => {
    const { put } = await api(['arn:aws:s3:::team-*']);
    const answer = await put({
      destination: WEBHOOK,
      deadLetterDestination: storageBlob({ resourceId: BUCKET }),
    });
    expect(answer.status).toBe(201);
  });

  it('refuses a bucket the list does not name, with a 400 naming resourceId', async () => {
    const { put } = await api(['arn:aws:s3:::other-bucket']);
    const answer = await put({
      destination: WEBHOOK,
      deadLetterDestination: storageBlob({ resourceId: BUCKET }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(
      /^properties\.deadLetterDestination\.properties\.resourceId: arn:aws:s3:::team-dead-letters is not a bucket this stack may write dead letters to/,
    );
  });

  it('keeps an id that is not an ARN (the original storage account) and uses the stack bucket', async () => {
    const azure = '/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/a';
    const { put, stores } = await api([]);
    const answer = await put({
      destination: WEBHOOK,
      deadLetterDestination: storageBlob({ resourceId: azure }),
    });
    expect(answer.status).toBe(201);
    expect((await stores.subscriptions.list('orders'))[0]?.deadLetter).toEqual({
      container: 'dead',
      resourceId: azure,
    });
  });

  it.each([
    [
      { resourceId: 'arn:aws:sqs:us-east-1:123456789012:q' },
      'properties.deadLetterDestination.properties.resourceId',
      /ARN of an S3 bucket/,
    ],
    [
      { resourceId: 'arn:aws:s3:::Bad_Name' },
      'properties.deadLetterDestination.properties.resourceId',
      /ARN of an S3 bucket/,
    ],
    [
      { roleArn: ROLE },
      'properties.deadLetterDestination.properties.roleArn',
      /give resourceId as arn:aws:s3:::<bucket>/,
    ],
    [
      { resourceId: BUCKET, roleArn: 'arn:aws:iam::1:user/x' },
      'properties.deadLetterDestination.properties.roleArn',
      /ARN of an IAM role/,
    ],
    [
      { resourceId: BUCKET, externalId: 'gw-1' },
      'properties.deadLetterDestination.properties.externalId',
      /give roleArn too/,
    ],
  ])('refuses %j with a 400 naming %s', async (properties, field, why) => {
    const { put } = await api(['*']);
    const answer = await put({ destination: WEBHOOK, deadLetterDestination: storageBlob(properties) });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(field);
    expect(answer.body.error.message).toMatch(why);
  });

  it('takes a role of another account only when the list pairs it with the bucket', async () => {
    const body = {
      destination: WEBHOOK,
      deadLetterDestination: storageBlob({ resourceId: BUCKET, roleArn: ROLE, externalId: 'gw-7' }),
    };
    const unpaired = await (await api([BUCKET, ROLE])).put(body);
    expect(unpaired.status).toBe(400);
    expect(unpaired.body.error.message).toMatch(
      /^properties\.deadLetterDestination\.properties\.roleArn: .* is not paired with arn:aws:s3:::team-dead-letters/,
    );
    const { put, stores } = await api([`${BUCKET}|${ROLE}`]);
    const paired = await put(body);
    expect(paired.status).toBe(201);
    expect(paired.body.properties.deadLetterDestination.properties).toMatchObject({
      roleArn: ROLE,
      externalId: 'gw-7',
    });
    expect((await stores.subscriptions.list('orders'))[0]?.deadLetter).toMatchObject({
      bucket: 'team-dead-letters',
      roleArn: ROLE,
      externalId: 'gw-7',
    });
  });

  it('maps deadLetterWithResourceIdentity: a UserAssigned identity is the role to assume', async () => {
    const { put, stores } = await api([`${BUCKET}|${ROLE}`]);
    const answer = await put({
      destination: WEBHOOK,
      deadLetterWithResourceIdentity: {
        identity: { type: 'UserAssigned', userAssignedIdentity: ROLE },
        deadLetterDestination: storageBlob({ resourceId: BUCKET }),
      },
    });
    expect(answer.status).toBe(201);
    expect((await stores.subscriptions.list('orders'))[0]?.deadLetter).toMatchObject({
      bucket: 'team-dead-letters',
      roleArn: ROLE,
    });
  });

  it.each([
    [
      { identity: { type: 'UserAssigned' }, deadLetterDestination: storageBlob({ resourceId: BUCKET }) },
      'properties.deadLetterWithResourceIdentity.identity.userAssignedIdentity',
    ],
    [
      { identity: { type: 'Managed' }, deadLetterDestination: storageBlob({}) },
      'properties.deadLetterWithResourceIdentity.identity.type',
    ],
    [
      {
        identity: { type: 'UserAssigned', userAssignedIdentity: ROLE },
        deadLetterDestination: storageBlob({}),
      },
      'properties.deadLetterWithResourceIdentity.identity.userAssignedIdentity',
    ],
  ])('refuses the identity %j with a 400 naming %s', async (withIdentity, field) => {
    const { put } = await api(['*']);
    const answer = await put({ destination: WEBHOOK, deadLetterWithResourceIdentity: withIdentity });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(field);
  });

  it('refuses both deadLetterDestination and deadLetterWithResourceIdentity', async () => {
    const { put } = await api(['*']);
    const answer = await put({
      destination: WEBHOOK,
      deadLetterDestination: storageBlob({}),
      deadLetterWithResourceIdentity: {
        identity: { type: 'SystemAssigned' },
        deadLetterDestination: storageBlob({}),
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(
      /^properties\.deadLetterWithResourceIdentity: give either it or properties\.deadLetterDestination/,
    );
  });

  it('checks a namespace subscription against the same list, naming its own field', async () => {
    const { putNamespaced } = await api([]);
    const refused = await putNamespaced({
      deadLetterDestinationWithResourceIdentity: {
        deadLetterDestination: storageBlob({ resourceId: BUCKET }),
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /^properties\.deliveryConfiguration\.push\.deadLetterDestinationWithResourceIdentity\.deadLetterDestination\.properties\.resourceId: /,
    );
    const allowed = await (await api([BUCKET])).putNamespaced({
      deadLetterDestinationWithResourceIdentity: {
        identity: { type: 'SystemAssigned' },
        deadLetterDestination: storageBlob({ resourceId: BUCKET }),
      },
    });
    expect(allowed.status).toBe(201);
  });
});

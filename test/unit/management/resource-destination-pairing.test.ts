/**
 * Writing a subscription to an AWS resource through a role: the role in the resource's account
 * unless the allow-list pairs them, no empty or `..` segment in either ARN, and an external id
 * only beside a role, stored and shown. Each refusal a 400 naming the field.
 */
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { handleManagement } from '../../../shared/management/api';
import { MemoryDeclaredDestinations } from '../../../shared/storage/declared-destinations';
import { routeTestDeps } from '../../support/management-routes';
import { memoryStores } from '../../support/memory-stores';

const HOME = '123456789012';
const BILLING = '210987654321';
const QUEUE = `arn:aws:sqs:eu-west-1:${BILLING}:billing-eu`;
const BILLING_ROLE = `arn:aws:iam::${BILLING}:role/gridwire-sender`;
const HOME_ROLE = `arn:aws:iam::${HOME}:role/gridwire-sender`;
const FIELD = 'properties.destination.properties';

const ALLOWED = [
  `arn:aws:sqs:eu-west-1:${BILLING}:billing-*`,
  `arn:aws:iam::${BILLING}:role/gridwire-*`,
  `arn:aws:iam::${HOME}:role/gridwire-*`,
];

/** PUTs a queue destination with `properties` on a stack allowing `allowed` and `declared`. */
async function put(
  properties: Record<string, unknown>,
  allowed: readonly string[] = ALLOWED,
  declared: readonly string[] = [],
) {
  const declaredDestinations = new MemoryDeclaredDestinations();
  await declaredDestinations.put(declared);
  const stores = memoryStores();
  await stores.topics.create('orders', { inputSchema: 'EventGridSchema', tags: {} }, new Date(0));
  const deps = routeTestDeps(stores, { resourceDestinations: allowed, declaredDestinations });
  const event = {
    routeKey: 'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}',
    pathParameters: { topic: 'orders', subscription: 'audit' },
    requestContext: { domainName: 'api.example.test' },
    body: JSON.stringify({
      properties: {
        destination: { endpointType: 'AwsSqsQueue', properties: { resourceArn: QUEUE, ...properties } },
      },
    }),
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

describe("a resource destination's role", () => {
  it("is taken in the resource's account", async () => {
    const answer = await put({ roleArn: BILLING_ROLE });
    expect(answer.status).toBe(201);
  });

  it('is refused in another account, though each ARN is on the list, naming roleArn and the pairing', async () => {
    const answer = await put({ roleArn: HOME_ROLE });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      `${FIELD}.roleArn: ${HOME_ROLE} is in account ${HOME} and the resource in ${BILLING}: a role to assume must be in the resource's account, unless the allow-list pairs the two`,
    );
    expect(answer.stored).toEqual([]);
  });

  it('is taken in another account when the list pairs it with the resource, and only with it', async () => {
    const paired = [`arn:aws:sqs:eu-west-1:${BILLING}:billing-*|${HOME_ROLE}`];
    expect((await put({ roleArn: HOME_ROLE }, paired)).status).toBe(201);
    const alone = await put({}, paired);
    expect(alone.status).toBe(400);
    expect(alone.body.error.message).toContain(
      `${FIELD}.resourceArn: ${QUEUE} is not among the AWS resources`,
    );
    const otherRole = await put({ roleArn: BILLING_ROLE }, [...paired, `arn:aws:iam::${BILLING}:role/other`]);
    expect(otherRole.status).toBe(400);
    expect(otherRole.body.error.message).toContain(
      `${FIELD}.roleArn: ${BILLING_ROLE} is not among the AWS roles`,
    );
  });

  it('is taken in another account when a declared destination pairs it with the resource', async () => {
    expect((await put({ roleArn: HOME_ROLE }, [], [`${QUEUE}|${HOME_ROLE}`])).status).toBe(201);
  });

  it("is refused when a * would have to cross a '/' to name it", async () => {
    const answer = await put({ roleArn: `arn:aws:iam::${BILLING}:role/gridwire-x/Admin` });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      `${FIELD}.roleArn: arn:aws:iam::${BILLING}:role/gridwire-x/Admin is not among`,
    );
  });

  it("is refused with a '..' or an empty segment, naming the field", async () => {
    const climbing = await put({ roleArn: `arn:aws:iam::${BILLING}:role/gridwire-x/../Admin` });
    expect(climbing.status).toBe(400);
    expect(climbing.body.error.message).toContain(
      `${FIELD}.roleArn: must not have an empty, '.' or '..' segment`,
    );
    const empty = await put({ roleArn: `arn:aws:iam::${BILLING}:role//gridwire-sender` });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toContain(
      `${FIELD}.roleArn: must not have an empty, '.' or '..' segment`,
    );
  });
});

describe("a resource destination's external id", () => {
  it('is stored and shown beside the role', async () => {
    const answer = await put({ roleArn: BILLING_ROLE, externalId: 'gridwire:orders/2024-eu' });
    expect(answer.status).toBe(201);
    expect(answer.body.properties.destination.properties.externalId).toBe('gridwire:orders/2024-eu');
    expect(answer.stored[0]?.destination).toMatchObject({
      roleArn: BILLING_ROLE,
      externalId: 'gridwire:orders/2024-eu',
    });
  });

  it('is refused without a role, naming the field', async () => {
    const answer = await put({ externalId: 'gridwire-orders' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      `${FIELD}.externalId: is sent when the role in roleArn is assumed`,
    );
  });

  it.each([
    ['one character', 'x'],
    ['1225 characters', 'x'.repeat(1225)],
    ['a space', 'has space'],
    ['a tab', 'tab\there'],
    ['a letter outside ASCII', 'é-accent'],
  ])(
    "is refused when STS would refuse it (%s), naming the field and STS's rules",
    async (_what, externalId) => {
      const answer = await put({ roleArn: BILLING_ROLE, externalId });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain(`${FIELD}.externalId: must be 2 to 1224 characters`);
    },
  );

  it('is taken at 1224 characters', async () => {
    expect((await put({ roleArn: BILLING_ROLE, externalId: 'x'.repeat(1224) })).status).toBe(201);
  });
});
